// RUN: spio-opt %s -split-input-file --spio-tile | FileCheck %s

!A = !spio.tensor<[m: 64, r/8: 8] x vector<8xf16>, global>
!B = !spio.tensor<[r: 64, n/8: 4] x vector<8xf16>, global>
!D = !spio.tensor<[m: 64, n: 32] x f32, global>

// The workload's own dimension names carry into every tile, fragment and
// coordinate; B, stored [r, n/8], is loaded with transposed ldmatrix.
// CHECK-LABEL: gpu.func @gemm
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-NOT: spio.gemm
// CHECK-DAG: spio.alloc : !spio.tensor<[m: 32, r/8: 4] x vector<8xf16>, shared, #spio.xor_swizzle<2, 0, 3>>
// CHECK-DAG: spio.alloc : !spio.tensor<[r: 32, n/8: 4] x vector<8xf16>, shared, #spio.xor_swizzle<2, 0, 3>>
// CHECK: spio.decompose %{{.*}} [2, 1] : !spio.coord<m/16>, !spio.coord<n/32>
// CHECK: scf.for
// CHECK: spio.async_copy {{.*}} in_bounds
// CHECK: spio.async_commit
// CHECK-NEXT: spio.async_wait 0
// CHECK-NEXT: gpu.barrier
// CHECK: spio.ldmatrix {{.*}} -> !spio.fragment<A, m16n8k16, f16, [m, r]>
// CHECK: spio.ldmatrix {{.*}} transpose {{.*}} -> !spio.fragment<B, m16n8k16, f16, [r, n]>
// CHECK: spio.mma {{.*}} : !spio.fragment<A, m16n8k16, f16, [m, r]>, !spio.fragment<B, m16n8k16, f16, [r, n]>, !spio.fragment<C, m16n8k16, f32, [m, n]>
// CHECK: gpu.barrier
// CHECK: } {spio.stages = 3 : i64}
// CHECK-NOT: spio.load_fragment
// CHECK-COUNT-4: spio.store_fragment {{.*}} bounds
gpu.module @m {
  gpu.func @gemm(%a: !A, %b: !B, %d: !D, %alpha: f32) kernel {
    spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [32, 32, 32], warps = [2, 1], stages = 3>} : !A, !B -> !D
    gpu.return
  }
}

// -----

!A = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 32, k/8: 8] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 64, j: 32] x bf16, global>

// With beta, C is read through load_fragment.
// CHECK-LABEL: gpu.func @gemm_c
// CHECK: spio.load_fragment
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: spio.store_fragment
gpu.module @m {
  gpu.func @gemm_c(%a: !A, %b: !B, %c: !D, %d: !D, %alpha: f32, %beta: f32) kernel {
    spio.gemm %a, %b into %d alpha %alpha beta %beta, %c {config = #spio.gemm_config<block = [64, 32, 32], warps = [2, 2], stages = 2>} : !A, !B -> !D, !D
    gpu.return
  }
}
