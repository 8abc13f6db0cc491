// RUN: spio-opt %s -split-input-file --convert-spio-to-gpu | FileCheck %s

// An overlay first used after a barrier that follows the last use of the
// tile before it takes the tile's bytes: offset 0, and the kernel needs
// the larger of the two.
// CHECK-LABEL: gpu.func @reuses_dead_tile
// CHECK-SAME: spio.shared_memory_bytes = 1024
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK-DAG: memref.view %[[SMEM]][%c0{{.*}}][] {{.*}} to memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.view %[[SMEM]][%c0{{.*}}][] {{.*}} to memref<128xf32, #gpu.address_space<workgroup>>
gpu.module @kernels {
  gpu.func @reuses_dead_tile(%out: !spio.tensor<[i: 128] x f32, global>) kernel {
    %tile = spio.alloc : !spio.tensor<[i: 256] x f32, shared>
    %sums = spio.alloc overlay : !spio.tensor<[i: 128] x f32, shared>
    %tid = spio.linear_id thread
    %i = spio.from_index %tid : !spio.coord<i>
    %zero = arith.constant 0.0 : f32
    spio.store %zero, %tile[%i] : !spio.tensor<[i: 256] x f32, shared>[!spio.coord<i>]
    %v = spio.load %tile[%i] : !spio.tensor<[i: 256] x f32, shared>[!spio.coord<i>]
    gpu.barrier
    spio.store %v, %sums[%i] : !spio.tensor<[i: 128] x f32, shared>[!spio.coord<i>]
    %w = spio.load %sums[%i] : !spio.tensor<[i: 128] x f32, shared>[!spio.coord<i>]
    spio.store %w, %out[%i] : !spio.tensor<[i: 128] x f32, global>[!spio.coord<i>]
    gpu.return
  }
}

// -----

// Without a barrier between, another thread may still read the tile: the
// overlay goes after it.
// CHECK-LABEL: gpu.func @no_barrier
// CHECK-SAME: spio.shared_memory_bytes = 1536
// CHECK: memref.view %{{.*}}[%c1024{{.*}}][] {{.*}} to memref<128xf32, #gpu.address_space<workgroup>>
gpu.module @kernels {
  gpu.func @no_barrier(%out: !spio.tensor<[i: 128] x f32, global>) kernel {
    %tile = spio.alloc : !spio.tensor<[i: 256] x f32, shared>
    %sums = spio.alloc overlay : !spio.tensor<[i: 128] x f32, shared>
    %tid = spio.linear_id thread
    %i = spio.from_index %tid : !spio.coord<i>
    %v = spio.load %tile[%i] : !spio.tensor<[i: 256] x f32, shared>[!spio.coord<i>]
    spio.store %v, %sums[%i] : !spio.tensor<[i: 128] x f32, shared>[!spio.coord<i>]
    gpu.return
  }
}

// -----

// A tile used inside a loop that ends before the barrier, and one used
// alongside the overlay (a scratch after the loop): the overlay takes the
// loop's tile's bytes, not the scratch's.
// CHECK-LABEL: gpu.func @beside_live_scratch
// CHECK-SAME: spio.shared_memory_bytes = 1536
// CHECK: memref.view %{{.*}}[%c0{{.*}}][] {{.*}} to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view %{{.*}}[%c1024{{.*}}][] {{.*}} to memref<128xf32, #gpu.address_space<workgroup>>
gpu.module @kernels {
  gpu.func @beside_live_scratch(%n: index) kernel {
    %tile = spio.alloc : !spio.tensor<[i: 256] x f32, shared>
    %sums = spio.alloc overlay : !spio.tensor<[i: 64] x f32, shared>
    %tid = spio.linear_id thread
    %i = spio.from_index %tid : !spio.coord<i>
    %zero = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %n step %c1 {
      spio.store %zero, %tile[%i] : !spio.tensor<[i: 256] x f32, shared>[!spio.coord<i>]
    }
    gpu.barrier
    %scratch = spio.alloc : !spio.tensor<[i: 128] x f32, shared>
    spio.store %zero, %scratch[%i] : !spio.tensor<[i: 128] x f32, shared>[!spio.coord<i>]
    spio.store %zero, %sums[%i] : !spio.tensor<[i: 64] x f32, shared>[!spio.coord<i>]
    %v = spio.load %scratch[%i] : !spio.tensor<[i: 128] x f32, shared>[!spio.coord<i>]
    gpu.return
  }
}
