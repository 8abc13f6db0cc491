// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

// Blocks of a cluster meet at a cluster barrier and read one another's
// shared tensors by rank.
// CHECK-LABEL: gpu.func @cluster_sums
// CHECK: spio.cluster_barrier
// CHECK: %{{.*}} = spio.load_remote %{{.*}}[%{{.*}}, %{{.*}}] block %arg0 : !spio.tensor<[k: 8, i: 64] x f32, shared>[!spio.coord<k>, !spio.coord<i>]
gpu.module @kernels {
  gpu.func @cluster_sums(%rank: index, %k: !spio.coord<k>, %i: !spio.coord<i>) kernel {
    %sums = spio.alloc : !spio.tensor<[k: 8, i: 64] x f32, shared>
    spio.cluster_barrier
    %v = spio.load_remote %sums[%k, %i] block %rank : !spio.tensor<[k: 8, i: 64] x f32, shared>[!spio.coord<k>, !spio.coord<i>]
    gpu.return
  }
}

// An overlay allocation prints its keyword.
// CHECK-LABEL: gpu.func @overlay_alloc
// CHECK: spio.alloc overlay : !spio.tensor<[i: 64] x f32, shared>
gpu.module @overlays {
  gpu.func @overlay_alloc() kernel {
    %sums = spio.alloc overlay : !spio.tensor<[i: 64] x f32, shared>
    gpu.return
  }
}
