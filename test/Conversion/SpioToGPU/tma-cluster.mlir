// RUN: spio-opt %s --convert-spio-to-gpu --canonicalize | FileCheck %s

!A = !spio.tensor<[i: 4096, k/8: 512] x vector<8xbf16>, global>
!Box = !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Ring = !spio.tensor<[stage: 4, i/128: 2, i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Map = !spio.tensor_map<!A, !Box>

// A multicast copy to the cluster's two blocks carries the mask 0b11; the
// block's rank is the cluster's ctarank; an arrival at another block's
// barrier maps the barrier's address into that block (mapa) and arrives
// there with cluster scope; the barriers' initialization is fenced for the
// cluster.
// CHECK-LABEL: gpu.func @multicast
// CHECK-DAG: %c3_i16 = arith.constant 3 : i16
// CHECK: nvvm.fence.mbarrier.init
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %c3_i16 : !llvm.ptr<7>, !llvm.ptr
// CHECK: %[[REMOTE:.*]] = nvvm.mapa %{{.*}}, %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[REMOTE]] : !llvm.ptr<7>
gpu.module @m {
  gpu.func @multicast(%map: !Map) kernel {
    %ring = spio.alloc : !Ring
    %bars = spio.barrier_alloc : !spio.barriers<4>
    %slot = arith.constant 1 : index
    spio.fence_barrier_init
    %rank = spio.linear_id cluster_block
    %part = spio.from_index %rank : !spio.coord<i/128>
    %bi = spio.constant 2 : !spio.coord<i/128>
    %kt = spio.constant 5 : !spio.coord<k/64>
    %stage = spio.constant 3 : !spio.coord<stage>
    spio.tma_load %map[%bi, %kt], %ring[%stage, %part], %bars[%slot] multicast 2
        : !Map[!spio.coord<i/128>, !spio.coord<k/64>], !Ring[!spio.coord<stage>, !spio.coord<i/128>], !spio.barriers<4>
    spio.barrier_arrive %bars[%slot] block %rank : !spio.barriers<4>
    gpu.return
  }
}
