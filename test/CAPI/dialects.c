// RUN: spio-capi-dialects-test 2>&1 | FileCheck %s

// The spio dialect through MLIR's C API (include/spio-c/Dialects.h), as a
// front end on MLIR's C API uses it: the dialect loaded through its handle,
// Spio's passes registered, a spio.gemm parsed and expanded by spio-tile.

#include "spio-c/Dialects.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static const char *kGemm =
    "gpu.module @m {\n"
    "  gpu.func @gemm(%a: !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, global>,\n"
    "                 %b: !spio.tensor<[j: 32, k/8: 8] x vector<8xbf16>, global>,\n"
    "                 %d: !spio.tensor<[i: 64, j: 32] x f32, global>, %alpha: f32) kernel {\n"
    "    spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [32, 32, 32], "
    "warps = [2, 1], stages = 2>} : !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, global>, "
    "!spio.tensor<[j: 32, k/8: 8] x vector<8xbf16>, global> -> "
    "!spio.tensor<[i: 64, j: 32] x f32, global>\n"
    "    gpu.return\n"
    "  }\n"
    "}\n";

int main(void) {
  MlirContext context = mlirContextCreate();
  MlirDialectHandle spio = mlirGetDialectHandle__spio__();
  mlirDialectHandleRegisterDialect(spio, context);
  MlirDialect dialect = mlirDialectHandleLoadDialect(spio, context);
  MlirStringRef name = mlirDialectGetNamespace(dialect);
  // CHECK: loaded dialect: spio
  printf("loaded dialect: %.*s\n", (int)name.length, name.data);

  spioRegisterCompiler(context);
  MlirModule module = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kGemm));
  // CHECK: parsed: yes
  printf("parsed: %s\n", mlirModuleIsNull(module) ? "no" : "yes");
  if (mlirModuleIsNull(module))
    return 1;

  MlirPassManager passes = mlirPassManagerCreate(context);
  MlirLogicalResult pipeline =
      mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(passes),
                            mlirStringRefCreateFromCString("builtin.module(spio-tile)"),
                            printToStdout, NULL);
  // CHECK: pipeline: parsed
  printf("pipeline: %s\n", mlirLogicalResultIsSuccess(pipeline) ? "parsed" : "refused");
  MlirLogicalResult ran = mlirPassManagerRunOnOp(passes, mlirModuleGetOperation(module));
  // CHECK: spio-tile: success
  printf("spio-tile: %s\n", mlirLogicalResultIsSuccess(ran) ? "success" : "failure");

  // The workload op became block, warp and fragment code.
  // CHECK-LABEL: gpu.func @gemm
  // CHECK-NOT: spio.gemm
  // CHECK: spio.ldmatrix
  // CHECK: spio.mma
  // CHECK: spio.store_fragment
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");

  mlirPassManagerDestroy(passes);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return mlirLogicalResultIsSuccess(ran) ? 0 : 1;
}
