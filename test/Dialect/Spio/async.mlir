// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

!Global = !spio.tensor<[i: 256, k/8: 64] x vector<8xf16>, global>
!Smem = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared, #spio.checkerboard<8>>

// CHECK-LABEL: func.func @copy_tile
func.func @copy_tile(%g: !Global, %block_i: !spio.coord<i/64>, %i: !spio.coord<i>,
                     %k8: !spio.coord<k/8>, %ok: i1) {
  %s = spio.alloc : !Smem
  %tile = spio.subscript %g[%block_i] : !Global[!spio.coord<i/64>]
  // CHECK: spio.async_copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}] : !spio.tensor<[i: 256, k/8: 64] x vector<8xf16>, global>[!spio.coord<i>, !spio.coord<k/8>] to !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared, #spio.checkerboard<8>>[!spio.coord<i>, !spio.coord<k/8>]
  spio.async_copy %tile[%i, %k8] to %s[%i, %k8]
      : !Global[!spio.coord<i>, !spio.coord<k/8>] to !Smem[!spio.coord<i>, !spio.coord<k/8>]
  // A false predicate reads nothing and zero-fills the destination.
  // CHECK: spio.async_copy %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}] in_bounds %{{.*}} : !spio.tensor<[i: 256, k/8: 64] x vector<8xf16>, global>[!spio.coord<i>] to !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared, #spio.checkerboard<8>>[!spio.coord<i>]
  spio.async_copy %tile[%i] to %s[%i] in_bounds %ok
      : !Global[!spio.coord<i>] to !Smem[!spio.coord<i>]
  // CHECK: spio.async_commit
  spio.async_commit
  // CHECK: spio.async_wait 1
  spio.async_wait 1
  // CHECK: spio.async_wait 0
  spio.async_wait 0
  return
}

// 16-byte elements of other types copy as well.
// CHECK-LABEL: func.func @copy_f32x4
func.func @copy_f32x4(%g: !spio.tensor<[n: 8] x vector<4xf32>, global>,
                      %s: !spio.tensor<[n: 8] x vector<4xf32>, shared>, %n: !spio.coord<n>) {
  // CHECK: spio.async_copy {{.*}} : !spio.tensor<[n: 8] x vector<4xf32>, global>[!spio.coord<n>] to !spio.tensor<[n: 8] x vector<4xf32>, shared>[!spio.coord<n>]
  spio.async_copy %g[%n] to %s[%n] : !spio.tensor<[n: 8] x vector<4xf32>, global>[!spio.coord<n>] to !spio.tensor<[n: 8] x vector<4xf32>, shared>[!spio.coord<n>]
  return
}
