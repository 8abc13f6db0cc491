//===- Chip.h - What the chips spio targets can do --------------*- C++ -*-===//
//
// Features that depend on the target chip's name (sm_90, sm_90a, ...), for
// the compiler. No LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_TARGET_CHIP_H
#define SPIO_TARGET_CHIP_H

#include <cctype>
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

/// Whether kernels for `chip` control dependent grids (griddepcontrol,
/// sm_90 and later): a grid launched as a programmatic dependent of the one
/// before it starts early and waits for its results.
inline bool hasDependentGrids(std::string_view chip) { return chipVersion(chip) >= 90; }

} // namespace spio

#endif // SPIO_TARGET_CHIP_H
