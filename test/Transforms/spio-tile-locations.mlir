// RUN: spio-opt %s --spio-tile --mlir-print-debuginfo | FileCheck %s

// Every op spio-tile builds points back at the workload op in this file,
// fused with the line of the kernel family's C++ source that built it.
// CHECK-LABEL: gpu.func @gemm
// CHECK-NOT: spio.gemm
// CHECK: spio.alloc {{.*}} loc([[SHARED:#loc[0-9]+]])
// CHECK: scf.for
// CHECK: spio.mma {{.*}} loc([[MMA:#loc[0-9]+]])
// CHECK-DAG: [[USER:#loc[0-9]+]] = loc("{{.*}}spio-tile-locations.mlir":[[# @LINE + 10]]:7)
// CHECK-DAG: [[SHARED]] = loc(fused[[[USER]], [[SHARED_CPP:#loc[0-9]+]]])
// CHECK-DAG: [[SHARED_CPP]] = loc("lib/Kernels/IR/GemmKernel.cpp":{{[0-9]+}}:0)
// CHECK-DAG: [[MMA]] = loc(fused[[[USER]], [[MMA_CPP:#loc[0-9]+]]])
// CHECK-DAG: [[MMA_CPP]] = loc("lib/Kernels/IR/GemmKernel.cpp":{{[0-9]+}}:0)
!A = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 32, k/8: 8] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 64, j: 32] x f32, global>
gpu.module @m {
  gpu.func @gemm(%a: !A, %b: !B, %d: !D, %alpha: f32) kernel {
      spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [32, 32, 32], warps = [2, 1], stages = 3>} : !A, !B -> !D
    gpu.return
  }
}
