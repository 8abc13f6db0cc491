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

// -----

!A = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 32, k/8: 8] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 64, j: 32] x bf16, global>
!Bias = !spio.tensor<[j: 32] x bf16, global>
!Scale = !spio.tensor<[i: 64] x f32, global>

// The epilogue reads the scale, the bias and C of a batch of fragments
// (here all four of the warp's) before it stores any; the scale and the
// bias read as C fragments of views that broadcast them along the other
// dimension (stride 0). Then on each fragment, the steps in their order:
// scale, bias, the activation, beta * C; then the store. The views are
// built with the epilogue, after the reduction loop.
// CHECK-LABEL: gpu.func @gemm_epilogue
// CHECK: scf.for
// CHECK: } {spio.stages = 2 : i64}
// CHECK-DAG: %[[BIAS:.*]] = spio.view %{{.*}} : !spio.tensor<[j: 32] x bf16, global> to !spio.tensor<[i: 64:0, j: 32] x bf16, global>
// CHECK-DAG: %[[SCALE:.*]] = spio.view %{{.*}} : !spio.tensor<[i: 64] x f32, global> to !spio.tensor<[i: 64:1, j: 32:0] x f32, global>
// CHECK: %[[S:.*]] = spio.load_fragment {{.*}} : !spio.tensor<[i: 64:1, j: 32:0] x f32, global>
// CHECK: %[[SV:.*]] = spio.fragment_to_vector %[[S]]
// CHECK: %[[B:.*]] = spio.load_fragment {{.*}} : !spio.tensor<[i: 64:0, j: 32] x bf16, global>
// CHECK: %[[BV:.*]] = spio.fragment_to_vector %[[B]]
// CHECK: %[[C:.*]] = spio.load_fragment {{.*}} : !spio.tensor<[i: 64, j: 32] x bf16, global>
// CHECK: %[[CV:.*]] = spio.fragment_to_vector %[[C]]
// CHECK-COUNT-9: spio.load_fragment
// CHECK-NOT: spio.store_fragment
// CHECK: %[[ACC:.*]] = spio.fragment_to_vector %{{[0-9]+}}#0 : !spio.fragment<C, m16n8k16, f32, [i, j]>
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[ACC]]
// CHECK: %[[X:.*]] = arith.mulf %[[SCALED]], %[[SV]]
// CHECK: %[[Y:.*]] = arith.addf %[[X]], %[[BV]]
// CHECK: %[[G:.*]] = spio.activation gelu_erf %[[Y]] : vector<4xf32>
// CHECK: %[[BETAC:.*]] = arith.mulf %{{.*}}, %[[CV]]
// CHECK: %[[R:.*]] = arith.addf %[[G]], %[[BETAC]]
// CHECK: %[[F:.*]] = spio.vector_to_fragment %[[R]]
// CHECK: spio.store_fragment %[[F]]
// CHECK-COUNT-3: spio.store_fragment
// CHECK-NOT: spio.load_fragment
gpu.module @m {
  gpu.func @gemm_epilogue(%a: !A, %b: !B, %c: !D, %d: !D, %alpha: f32, %beta: f32, %bias: !Bias, %scale: !Scale) kernel {
    spio.gemm %a, %b into %d alpha %alpha beta %beta, %c bias %bias scale %scale {config = #spio.gemm_config<block = [64, 32, 32], warps = [2, 2], stages = 2>, epilogue = #spio.epilogue<scale, bias, gelu_erf, residual>} : !A, !B -> !D, !D bias !Bias scale !Scale
    gpu.return
  }
}

// -----

!A = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 32, k/8: 8] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 64, j: 32] x bf16, global>
!Bias = !spio.tensor<[j: 32] x bf16, global>

// A bias as the first step joins alpha's product in one fused multiply-add
// (the multiply and the add marked contractible).
// CHECK-LABEL: gpu.func @gemm_bias_first
// CHECK-SAME: %[[ALPHA:[a-z0-9]+]]: f32
// CHECK: %[[AV:.*]] = vector.broadcast %[[ALPHA]]
// CHECK: %[[B:.*]] = spio.load_fragment {{.*}} : !spio.tensor<[i: 64:0, j: 32] x bf16, global>
// CHECK: %[[BV:.*]] = spio.fragment_to_vector %[[B]]
// CHECK: %[[ACC:.*]] = spio.fragment_to_vector %{{[0-9]+}}#0 : !spio.fragment<C, m16n8k16, f32, [i, j]>
// CHECK: %[[X:.*]] = arith.mulf %[[AV]], %[[ACC]] fastmath<contract>
// CHECK: %[[Y:.*]] = arith.addf %[[X]], %[[BV]] fastmath<contract>
// CHECK: spio.activation relu %[[Y]]
gpu.module @m {
  gpu.func @gemm_bias_first(%a: !A, %b: !B, %d: !D, %alpha: f32, %bias: !Bias) kernel {
    spio.gemm %a, %b into %d alpha %alpha bias %bias {config = #spio.gemm_config<block = [64, 32, 32], warps = [2, 2], stages = 2>, epilogue = #spio.epilogue<bias, relu>} : !A, !B -> !D bias !Bias
    gpu.return
  }
}
