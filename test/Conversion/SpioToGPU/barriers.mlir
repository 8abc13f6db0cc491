// RUN: spio-opt %s --convert-spio-to-gpu | FileCheck %s

// A barrier group takes 8 bytes a barrier of the dynamic shared memory,
// after the tiles allocated before it (128-byte aligned), and each barrier
// op is NVVM's mbarrier instruction on its address: base + offset + 8 * i.
// A copy arrival is cp.async.mbarrier.arrive.noinc; a named barrier is
// bar.sync with its thread count.
// CHECK-LABEL: gpu.func @barriers
// CHECK-SAME: spio.shared_memory_bytes = 1152
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[SMEM]]
// CHECK: %[[I:.*]] = arith.constant 3 : index
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: %[[SLOT:.*]] = arith.muli %[[I]], %[[EIGHT]]
// CHECK: %[[AFTER_TILE:.*]] = arith.constant 1024 : index
// CHECK: %[[OFFSET:.*]] = arith.addi %[[SLOT]], %[[AFTER_TILE]]
// CHECK: %[[ADDR:.*]] = arith.addi %[[BASE]], %[[OFFSET]]
// CHECK: %[[ADDR64:.*]] = arith.index_castui %[[ADDR]] : index to i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[ADDR64]] : i64 to !llvm.ptr<3>
// CHECK: %[[COUNT:.*]] = arith.constant 32 : i32
// CHECK: nvvm.mbarrier.init %[[PTR]], %[[COUNT]] : !llvm.ptr<3>, i32
// CHECK: %[[PARITY:.*]] = arith.extui %arg0 : i1 to i32
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PARITY]], %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK: nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true} : !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3> -> i64
// CHECK: %[[ID:.*]] = arith.constant 1 : i32
// CHECK: %[[THREADS:.*]] = arith.constant 256 : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[THREADS]]
// A warp's barrier: bar.warp.sync with every lane in the mask.
// CHECK: %[[LANES:.*]] = arith.constant -1 : i32
// CHECK: nvvm.bar.warp.sync %[[LANES]] : i32
gpu.module @kernels {
  gpu.func @barriers(%phase: i1) kernel {
    %tile = spio.alloc : !spio.tensor<[i: 64] x vector<8xf16>, shared>
    %bars = spio.barrier_alloc : !spio.barriers<16>
    %i = arith.constant 3 : index
    spio.barrier_init %bars[%i], arrivals 32 : !spio.barriers<16>
    spio.barrier_wait %bars[%i], parity %phase : !spio.barriers<16>
    spio.async_arrive %bars[%i] : !spio.barriers<16>
    spio.barrier_arrive %bars[%i] : !spio.barriers<16>
    spio.named_barrier 1, threads 256
    spio.warp_sync
    gpu.return
  }
}
