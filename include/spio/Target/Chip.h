//===- Chip.h - What the chips spio targets can do --------------*- C++ -*-===//
//
// Features that depend on the target chip's name (sm_90, sm_90a, ...), for
// the compiler and the kernel families. No LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_TARGET_CHIP_H
#define SPIO_TARGET_CHIP_H

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

namespace spio {

/// The compute capability in `chip` ("sm_90a": 90), 0 if it names none.
inline int chipVersion(std::string_view chip) {
  if (chip.substr(0, 3) != "sm_")
    return 0;
  int version = 0;
  for (char digit : chip.substr(3)) {
    if (!std::isdigit(static_cast<unsigned char>(digit)))
      break;
    version = 10 * version + (digit - '0');
  }
  return version;
}

/// Empty where spio compiles for `chip`, else why not: its kernels need
/// sm_80's mma.sync, cp.async and ldmatrix, and LLVM's NVPTX backend the
/// PTX version spio asks for (the chips of Ampere, Ada and Hopper).
inline std::string checkChip(std::string_view chip) {
  for (std::string_view known : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"})
    if (chip == known)
      return {};
  return "unsupported target chip '" + std::string(chip) +
         "': spio compiles for sm_80, sm_86, sm_89, sm_90 and sm_90a";
}

/// Whether kernels for `chip` control dependent grids (griddepcontrol,
/// sm_90 and later): a grid launched as a programmatic dependent of the one
/// before it starts early and waits for its results.
inline bool hasDependentGrids(std::string_view chip) { return chipVersion(chip) >= 90; }

/// Whether `chip` has Hopper's warpgroup wgmma (sm_90, compiled as sm_90a).
inline bool hasWarpgroupMma(std::string_view chip) { return chipVersion(chip) == 90; }

} // namespace spio

#endif // SPIO_TARGET_CHIP_H
