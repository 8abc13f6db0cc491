/*===- spio-c/Dialects.h - The spio dialect through MLIR's C API ---*- C -*-===*\
|*                                                                            *|
|* For front ends that drive MLIR through its C API (and MLIR's Python        *|
|* bindings): the spio dialect's handle, and one call that registers Spio's   *|
|* passes and pipelines so that mlirParsePassPipeline takes them.             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SPIO_C_DIALECTS_H
#define SPIO_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Spio, spio);

/* Registers with `context` the spio dialect and every upstream dialect its
 * pipelines produce (GPU, NVVM, LLVM, arith, scf, vector, ...), and with
 * MLIR's pass registry Spio's passes and the spio-to-ptx pipeline (once). */
MLIR_CAPI_EXPORTED void spioRegisterCompiler(MlirContext context);

#ifdef __cplusplus
}
#endif

#endif /* SPIO_C_DIALECTS_H */
