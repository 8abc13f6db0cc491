//===- Targets.h - The targets the kernel families' tests choose for -----===//

#ifndef SPIO_UNITTESTS_KERNELS_TARGETS_H
#define SPIO_UNITTESTS_KERNELS_TARGETS_H

#include "spio/Target/Target.h"

#include <cstdint>

/// sm_90's reference part, an H100 SXM (132 multiprocessors, 50 MiB L2),
/// on which the choosers' rules were measured.
inline const spio::Target &hopper() {
  static const spio::Target target = *spio::referenceTarget("sm_90");
  return target;
}

/// That part with `multiprocessors` multiprocessors.
inline spio::Target hopperWith(int64_t multiprocessors) {
  spio::Target target = hopper();
  target.multiprocessors = multiprocessors;
  return target;
}

#endif // SPIO_UNITTESTS_KERNELS_TARGETS_H
