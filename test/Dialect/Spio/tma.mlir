// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

!A = !spio.tensor<[i: 4096, k/8: 512] x vector<8xbf16>, global>
!Box = !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Ring = !spio.tensor<[stage: 4, i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Map = !spio.tensor_map<!A, !Box>

// One thread of a copy warpgroup expects a stage's bytes and starts its TMA
// copy; the compute warpgroups take the registers the copy warpgroup gives
// back.
// CHECK-LABEL: func.func @tma_ring
// CHECK-SAME: %[[MAP:.*]]: !spio.tensor_map<!spio.tensor<[i: 4096, k/8: 512] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @tma_ring(%map: !Map, %bi: !spio.coord<i/128>, %kt: !spio.coord<k/64>,
                    %stage: !spio.coord<stage>, %slot: index) {
  // CHECK: %[[RING:.*]] = spio.alloc
  %ring = spio.alloc : !Ring
  // CHECK: %[[BARS:.*]] = spio.barrier_alloc
  %full = spio.barrier_alloc : !spio.barriers<4>
  // CHECK: spio.set_max_registers decrease 40
  spio.set_max_registers decrease 40
  // CHECK: spio.barrier_expect_tx %[[BARS]][%{{.*}}], bytes 16384 : !spio.barriers<4>
  spio.barrier_expect_tx %full[%slot], bytes 16384 : !spio.barriers<4>
  // CHECK: spio.tma_load %[[MAP]][%{{[a-z0-9]+}}, %{{[a-z0-9]+}}], %[[RING]][%{{[a-z0-9]+}}], %[[BARS]][%{{[a-z0-9]+}}] :
  // CHECK-SAME: [!spio.coord<i/128>, !spio.coord<k/64>]
  // CHECK-SAME: [!spio.coord<stage>], !spio.barriers<4>
  spio.tma_load %map[%bi, %kt], %ring[%stage], %full[%slot]
      : !Map[!spio.coord<i/128>, !spio.coord<k/64>], !Ring[!spio.coord<stage>], !spio.barriers<4>
  // CHECK: spio.set_max_registers increase 232
  spio.set_max_registers increase 232
  return
}

// A box straight into a single tile: no destination coordinates.
// CHECK-LABEL: func.func @tma_tile
// CHECK: spio.tma_load %{{[a-z0-9]+}}[%{{[a-z0-9]+}}, %{{[a-z0-9]+}}], %{{[a-z0-9]+}}[], %{{[a-z0-9]+}}[%{{[a-z0-9]+}}] :
func.func @tma_tile(%map: !Map, %i: !spio.coord<i>, %k: !spio.coord<k/8>) {
  %tile = spio.alloc : !Box
  %bars = spio.barrier_alloc : !spio.barriers<1>
  %c0 = arith.constant 0 : index
  spio.tma_load %map[%i, %k], %tile[], %bars[%c0]
      : !Map[!spio.coord<i>, !spio.coord<k/8>], !Box, !spio.barriers<1>
  return
}

// A cluster of two blocks shares a tile: each block copies half of it into
// both (multicast), and a consumer frees a stage in every block.
// CHECK-LABEL: func.func @tma_multicast
func.func @tma_multicast(%map: !Map, %bi: !spio.coord<i/128>, %kt: !spio.coord<k/64>,
                         %stage: !spio.coord<stage>, %slot: index) {
  %tiles = spio.alloc : !spio.tensor<[stage: 4, i/128: 2, i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
  %bars = spio.barrier_alloc : !spio.barriers<4>
  // CHECK: spio.fence_barrier_init
  spio.fence_barrier_init
  // CHECK: %[[RANK:.*]] = spio.linear_id cluster_block
  %rank = spio.linear_id cluster_block
  %part = spio.from_index %rank : !spio.coord<i/128>
  // CHECK: spio.tma_load {{.*}} multicast 2 :
  spio.tma_load %map[%bi, %kt], %tiles[%stage, %part], %bars[%slot] multicast 2
      : !Map[!spio.coord<i/128>, !spio.coord<k/64>],
        !spio.tensor<[stage: 4, i/128: 2, i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<stage>, !spio.coord<i/128>],
        !spio.barriers<4>
  // CHECK: spio.barrier_arrive %{{[a-z0-9]+}}[%{{[a-z0-9]+}}] block %[[RANK]] : !spio.barriers<4>
  spio.barrier_arrive %bars[%slot] block %rank : !spio.barriers<4>
  return
}
