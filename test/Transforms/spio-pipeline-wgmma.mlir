// RUN: spio-opt %s -split-input-file --spio-pipeline | FileCheck %s

!GA = !spio.tensor<[t: 16, i: 64, k/8: 8] x vector<8xbf16>, global>
!GB = !spio.tensor<[t: 16, j: 64, k/8: 8] x vector<8xbf16>, global>
!SA = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

// Tiles that wgmma reads through the async proxy: each thread's fence
// stays between the ring's wait and its barrier, and the wgmma operands
// get the stage.
// CHECK-LABEL: gpu.func @wgmma_ring
// CHECK: scf.for
// CHECK: spio.async_wait 1
// CHECK-NEXT: spio.fence_proxy_async
// CHECK-NEXT: gpu.barrier
// CHECK: spio.wgmma %{{.*}} : !spio.tensor<[stage: 3, i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>, !spio.tensor<[stage: 3, j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
// CHECK-NOT: spio.fence_proxy_async
// CHECK: scf.yield
gpu.module @m {
  gpu.func @wgmma_ring(%ga: !GA, %gb: !GB, %acc0: !Acc) kernel {
    %sa = spio.alloc : !SA
    %sb = spio.alloc : !SB
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tid = spio.linear_id thread
    %i, %k8 = spio.decompose %tid [16, 8] : !spio.coord<i>, !spio.coord<k/8>
    %j = spio.cast %i : !spio.coord<i> to !spio.coord<j>
    %r = scf.for %iv = %c0 to %c16 step %c1 iter_args(%acc = %acc0) -> (!Acc) {
      %t = spio.from_index %iv : !spio.coord<t>
      %ta = spio.subscript %ga[%t] : !GA[!spio.coord<t>]
      %tb = spio.subscript %gb[%t] : !GB[!spio.coord<t>]
      spio.async_copy %ta[%i, %k8] to %sa[%i, %k8] : !GA[!spio.coord<i>, !spio.coord<k/8>] to !SA[!spio.coord<i>, !spio.coord<k/8>]
      spio.async_copy %tb[%j, %k8] to %sb[%j, %k8] : !GB[!spio.coord<j>, !spio.coord<k/8>] to !SB[!spio.coord<j>, !spio.coord<k/8>]
      spio.async_commit
      spio.async_wait 0
      spio.fence_proxy_async
      gpu.barrier
      spio.wgmma_fence
      %d = spio.wgmma %sa[], %sb[], %acc : !SA, !SB, !Acc
      spio.wgmma_commit
      spio.wgmma_wait 0
      gpu.barrier
      scf.yield %d : !Acc
    } {spio.stages = 3}
    gpu.return
  }
}

// -----

!GA = !spio.tensor<[t: 16, i: 64, k/8: 8] x vector<8xbf16>, global>
!GB = !spio.tensor<[t: 16, j: 64, k/8: 8] x vector<8xbf16>, global>
!SA = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

// A wgmma group left in flight still reads its stage in the next
// iteration: the ring refills a stage one iteration later, two tiles ahead
// of four stages, and waits for one copy group less.
// CHECK-LABEL: gpu.func @wgmma_ring_in_flight
// CHECK-COUNT-2: spio.async_commit
// CHECK-NOT: spio.async_commit
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %[[UB:.*]] step %[[STEP:[^ ]*]]
// CHECK: spio.async_wait 1
// CHECK-NEXT: spio.fence_proxy_async
// CHECK-NEXT: gpu.barrier
// CHECK: %[[TWO:.*]] = arith.constant 2 : index
// CHECK: %[[DIST:.*]] = arith.muli %[[STEP]], %[[TWO]]
// CHECK: arith.addi %[[IV]], %[[DIST]]
// CHECK: spio.wgmma_wait 1
gpu.module @m {
  gpu.func @wgmma_ring_in_flight(%ga: !GA, %gb: !GB, %acc0: !Acc) kernel {
    %sa = spio.alloc : !SA
    %sb = spio.alloc : !SB
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tid = spio.linear_id thread
    %i, %k8 = spio.decompose %tid [16, 8] : !spio.coord<i>, !spio.coord<k/8>
    %j = spio.cast %i : !spio.coord<i> to !spio.coord<j>
    %r = scf.for %iv = %c0 to %c16 step %c1 iter_args(%acc = %acc0) -> (!Acc) {
      %t = spio.from_index %iv : !spio.coord<t>
      %ta = spio.subscript %ga[%t] : !GA[!spio.coord<t>]
      %tb = spio.subscript %gb[%t] : !GB[!spio.coord<t>]
      spio.async_copy %ta[%i, %k8] to %sa[%i, %k8] : !GA[!spio.coord<i>, !spio.coord<k/8>] to !SA[!spio.coord<i>, !spio.coord<k/8>]
      spio.async_copy %tb[%j, %k8] to %sb[%j, %k8] : !GB[!spio.coord<j>, !spio.coord<k/8>] to !SB[!spio.coord<j>, !spio.coord<k/8>]
      spio.async_commit
      spio.async_wait 0
      spio.fence_proxy_async
      gpu.barrier
      spio.wgmma_fence
      %d = spio.wgmma %sa[], %sb[], %acc : !SA, !SB, !Acc
      spio.wgmma_commit
      spio.wgmma_wait 1
      gpu.barrier
      scf.yield %d : !Acc
    } {spio.stages = 4}
    spio.wgmma_wait 0
    gpu.return
  }
}
