// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x bf16, global>
!Cols = !spio.tensor<[j: 128] x bf16, global>
!Rows = !spio.tensor<[i: 256] x f32, global>

// A bias along columns, then an activation.
// CHECK-LABEL: func.func @bias_gelu
// CHECK: spio.gemm %{{.*}}, %{{.*}} into %{{.*}} alpha %{{.*}} bias %{{.*}} {config = #spio.gemm_config<{{.*}}>, epilogue = #spio.epilogue<bias, gelu_tanh>} : {{.*}} -> !spio.tensor<[i: 256, j: 128] x bf16, global> bias !spio.tensor<[j: 128] x bf16, global>
func.func @bias_gelu(%a: !A, %b: !B, %d: !D, %bias: !Cols, %alpha: f32) {
  spio.gemm %a, %b into %d alpha %alpha bias %bias {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, epilogue = #spio.epilogue<bias, gelu_tanh>} : !A, !B -> !D bias !Cols
  return
}

// Every operand: a scale along rows, a bias along columns, C added after
// the activation.
// CHECK-LABEL: func.func @all_steps
// CHECK: spio.gemm %{{.*}}, %{{.*}} into %{{.*}} alpha %{{.*}} beta %{{.*}}, %{{.*}} bias %{{.*}} scale %{{.*}} {{{.*}}epilogue = #spio.epilogue<scale, bias, silu, residual>} : {{.*}}, !spio.tensor<[i: 256, j: 128] x bf16, global> bias !spio.tensor<[j: 128] x bf16, global> scale !spio.tensor<[i: 256] x f32, global>
func.func @all_steps(%a: !A, %b: !B, %c: !D, %d: !D, %bias: !Cols, %scale: !Rows, %alpha: f32, %beta: f32) {
  spio.gemm %a, %b into %d alpha %alpha beta %beta, %c bias %bias scale %scale {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, epilogue = #spio.epilogue<scale, bias, silu, residual>} : !A, !B -> !D, !D bias !Cols scale !Rows
  return
}

// The activations.
// CHECK-LABEL: func.func @activations
// CHECK: spio.activation relu %{{.*}} : vector<4xf32>
// CHECK: spio.activation gelu_tanh %{{.*}} : vector<4xf32>
// CHECK: spio.activation gelu_erf %{{.*}} : f32
// CHECK: spio.activation silu %{{.*}} : f32
func.func @activations(%v: vector<4xf32>, %s: f32) -> (vector<4xf32>, f32) {
  %0 = spio.activation relu %v : vector<4xf32>
  %1 = spio.activation gelu_tanh %0 : vector<4xf32>
  %2 = spio.activation gelu_erf %s : f32
  %3 = spio.activation silu %2 : f32
  return %1, %3 : vector<4xf32>, f32
}
