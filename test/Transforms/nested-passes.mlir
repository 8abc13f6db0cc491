// Spio's passes run on whatever op they are given, so that they nest in
// another compiler's pipeline: on each gpu.module, or on each gpu.func
// (tiling and pipelining change nothing outside a kernel), they give what
// they give on the whole module.
// RUN: spio-opt %s --spio-tile --spio-pipeline --convert-spio-to-gpu > %t.module
// RUN: spio-opt %s --pass-pipeline='builtin.module(gpu.module(spio-tile,spio-pipeline,convert-spio-to-gpu))' > %t.gpu-module
// RUN: diff %t.module %t.gpu-module
// RUN: spio-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(spio-tile,spio-pipeline),convert-spio-to-gpu))' > %t.gpu-func
// RUN: diff %t.module %t.gpu-func
// RUN: FileCheck %s --input-file=%t.gpu-func

// CHECK-LABEL: gpu.func @first
// CHECK:         nvvm.mma.sync
// CHECK-NOT:     spio.
// CHECK-LABEL: gpu.func @second
// CHECK:         nvvm.mma.sync
// CHECK-NOT:     spio.

!A1 = !spio.tensor<[i: 128, k/8: 8] x vector<8xf16>, global>
!B1 = !spio.tensor<[j: 64, k/8: 8] x vector<8xf16>, global>
!D1 = !spio.tensor<[i: 128, j: 64] x f16, global>
!A2 = !spio.tensor<[i: 64, k/8: 16] x vector<8xbf16>, global>
!B2 = !spio.tensor<[j: 128, k/8: 16] x vector<8xbf16>, global>
!D2 = !spio.tensor<[i: 64, j: 128] x f32, global>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @first(%a: !A1, %b: !B1, %d: !D1, %alpha: f32) kernel {
      spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [64, 64, 32], warps = [2, 2], stages = 3>} : !A1, !B1 -> !D1
      gpu.return
    }
    gpu.func @second(%a: !A2, %b: !B2, %d: !D2, %alpha: f32) kernel {
      spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [64, 64, 32], warps = [2, 2], stages = 2>} : !A2, !B2 -> !D2
      gpu.return
    }
  }
}
