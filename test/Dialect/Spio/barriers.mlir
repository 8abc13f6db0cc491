// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

!Global = !spio.tensor<[i: 256, k/8: 64] x vector<8xf16>, global>
!Smem = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared>

// A copy warp fills a slot and signals it full; a compute warp waits for
// it, reads it and signals it empty.
// CHECK-LABEL: func.func @producer_consumer
func.func @producer_consumer(%g: !Global, %i: !spio.coord<i>, %k8: !spio.coord<k/8>,
                             %phase: i1) {
  %s = spio.alloc : !Smem
  // CHECK: %[[BARS:.*]] = spio.barrier_alloc : !spio.barriers<16>
  %bars = spio.barrier_alloc : !spio.barriers<16>
  %full = arith.constant 0 : index
  %empty = arith.constant 8 : index
  // CHECK: spio.barrier_init %[[BARS]][%{{.*}}], arrivals 32 : !spio.barriers<16>
  spio.barrier_init %bars[%full], arrivals 32 : !spio.barriers<16>
  // CHECK: spio.barrier_init %[[BARS]][%{{.*}}], arrivals 256 : !spio.barriers<16>
  spio.barrier_init %bars[%empty], arrivals 256 : !spio.barriers<16>
  // CHECK: spio.barrier_wait %[[BARS]][%{{.*}}], parity %{{.*}} : !spio.barriers<16>
  spio.barrier_wait %bars[%empty], parity %phase : !spio.barriers<16>
  spio.async_copy %g[%i, %k8] to %s[%i, %k8]
      : !Global[!spio.coord<i>, !spio.coord<k/8>] to !Smem[!spio.coord<i>, !spio.coord<k/8>]
  // CHECK: spio.async_arrive %[[BARS]][%{{.*}}] : !spio.barriers<16>
  spio.async_arrive %bars[%full] : !spio.barriers<16>
  // CHECK: spio.barrier_arrive %[[BARS]][%{{.*}}] : !spio.barriers<16>
  spio.barrier_arrive %bars[%empty] : !spio.barriers<16>
  // CHECK: spio.named_barrier 1, threads 256
  spio.named_barrier 1, threads 256
  // CHECK: spio.warp_sync
  spio.warp_sync
  return
}
