//===- PrintedWorkload.h - A kernel family's workload as text ---*- C++ -*-===//
//
// What the families' *Source() functions share: the workload module built in
// a context of its own and printed, as `spio-jit --emit-spio` shows it and
// the compiler and its cache take it. Not installed.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_LIB_KERNELS_IR_PRINTEDWORKLOAD_H
#define SPIO_LIB_KERNELS_IR_PRINTEDWORKLOAD_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace mlir::spio {

std::string printedWorkload(function_ref<OwningOpRef<ModuleOp>(MLIRContext *)> buildWorkload);

} // namespace mlir::spio

#endif // SPIO_LIB_KERNELS_IR_PRINTEDWORKLOAD_H
