// RUN: spio-opt %s --convert-spio-to-gpu | FileCheck %s

// A cluster barrier is barrier.cluster's aligned arrive (release) and wait
// (acquire). A remote load takes the element's address in this block's
// shared memory (the tile's offset in the dynamic shared memory plus the
// element's bytes), maps it to block %rank of the cluster (mapa) and
// loads from the cluster's shared window.
// CHECK-LABEL: gpu.func @remote_sums
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[SMEM]]
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: %[[BYTES:.*]] = arith.muli %{{.*}}, %[[FOUR]]
// CHECK: %[[AFTER_FIRST:.*]] = arith.constant 256 : index
// CHECK: %[[OFFSET:.*]] = arith.addi %[[BYTES]], %[[AFTER_FIRST]]
// CHECK: %[[ADDR:.*]] = arith.addi %[[BASE]], %[[OFFSET]]
// CHECK: %[[ADDR64:.*]] = arith.index_castui %[[ADDR]] : index to i64
// CHECK: %[[LOCAL:.*]] = llvm.inttoptr %[[ADDR64]] : i64 to !llvm.ptr<3>
// CHECK: %[[RANK:.*]] = arith.index_castui %arg1 : index to i32
// CHECK: %[[REMOTE:.*]] = nvvm.mapa %[[LOCAL]], %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: %[[V:.*]] = llvm.load %[[REMOTE]] : !llvm.ptr<7> -> f32
// CHECK: memref.store %[[V]]
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
gpu.module @kernels {
  gpu.func @remote_sums(%out: !spio.tensor<[i: 64] x f32, global>, %rank: index) kernel {
    %first = spio.alloc : !spio.tensor<[i: 64] x f32, shared>
    %sums = spio.alloc : !spio.tensor<[k: 8, i: 64] x f32, shared>
    %tid = spio.linear_id thread
    %i = spio.from_index %tid : !spio.coord<i>
    %k = spio.constant 3 : !spio.coord<k>
    %zero = arith.constant 0.0 : f32
    spio.store %zero, %first[%i] : !spio.tensor<[i: 64] x f32, shared>[!spio.coord<i>]
    spio.store %zero, %sums[%k, %i] : !spio.tensor<[k: 8, i: 64] x f32, shared>[!spio.coord<k>, !spio.coord<i>]
    spio.cluster_barrier
    %v = spio.load_remote %sums[%k, %i] block %rank : !spio.tensor<[k: 8, i: 64] x f32, shared>[!spio.coord<k>, !spio.coord<i>]
    spio.store %v, %out[%i] : !spio.tensor<[i: 64] x f32, global>[!spio.coord<i>]
    spio.cluster_barrier
    gpu.return
  }
}

// A remote load of a 16-byte vector is one load of the vector.
// CHECK-LABEL: gpu.func @remote_vector
// CHECK: %[[REMOTE:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: llvm.load %[[REMOTE]] : !llvm.ptr<7> -> vector<4xf32>
gpu.module @vectors {
  gpu.func @remote_vector(%rank: index, %i: !spio.coord<i>) kernel {
    %sums = spio.alloc : !spio.tensor<[i: 64] x vector<4xf32>, shared>
    spio.cluster_barrier
    %v = spio.load_remote %sums[%i] block %rank : !spio.tensor<[i: 64] x vector<4xf32>, shared>[!spio.coord<i>]
    gpu.return
  }
}
