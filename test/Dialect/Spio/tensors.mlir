// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

!A = !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>
!Smem = !spio.tensor<[k/16: 4, i: 128, k/8: 2] x vector<8xf16>, shared>
!Acc = !spio.tensor<[i/16: 2, j/8: 4] x !spio.fragment<C, m16n8k16, f32, [i, j]>, register>

// CHECK-LABEL: func.func @alloc
func.func @alloc() -> (!Smem, !Acc) {
  // CHECK: spio.alloc : !spio.tensor<[k/16: 4, i: 128, k/8: 2] x vector<8xf16>, shared>
  %s = spio.alloc : !Smem
  // CHECK: spio.alloc : !spio.tensor<[i/16: 2, j/8: 4] x !spio.fragment<C, m16n8k16, f32, [i, j]>, register>
  %r = spio.alloc : !Acc
  return %s, %r : !Smem, !Acc
}

// Coordinates come in any order; two of one dimension add (and carry).
// CHECK-LABEL: func.func @subscript
func.func @subscript(%a: !A, %i: !spio.coord<i>, %k: !spio.coord<k>, %k8: !spio.coord<k/8>) -> !A {
  // CHECK: %[[C:.*]] = spio.subscript %{{.*}}[%{{.*}}, %{{.*}}] : !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>[!spio.coord<k>, !spio.coord<i>]
  %0 = spio.subscript %a[%k, %i] : !A[!spio.coord<k>, !spio.coord<i>]
  // CHECK: spio.subscript %[[C]][%{{.*}}, %{{.*}}] : !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>[!spio.coord<k/8>, !spio.coord<k>]
  %1 = spio.subscript %0[%k8, %k] : !A[!spio.coord<k/8>, !spio.coord<k>]
  return %1 : !A
}

// Coordinates of dimensions the tensor lacks are dropped only when projected.
// CHECK-LABEL: func.func @projected
func.func @projected(%a: !A, %i: !spio.coord<i>, %j: !spio.coord<j>) -> !A {
  // CHECK: spio.subscript %{{.*}}[%{{.*}}, %{{.*}}] project ["j"] : !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>[!spio.coord<i>, !spio.coord<j>]
  %0 = spio.subscript %a[%i, %j] project ["j"] : !A[!spio.coord<i>, !spio.coord<j>]
  return %0 : !A
}

// CHECK-LABEL: func.func @rebase
func.func @rebase(%a: !A, %i: !spio.coord<i>) -> !A {
  %0 = spio.subscript %a[%i] : !A[!spio.coord<i>]
  // CHECK: spio.rebase %{{.*}} : !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>
  %1 = spio.rebase %0 : !A
  return %1 : !A
}

// CHECK-LABEL: func.func @load_store
func.func @load_store(%a: !A, %i: !spio.coord<i>, %k: !spio.coord<k>) {
  // CHECK: %[[V:.*]] = spio.load %{{.*}}[%{{.*}}, %{{.*}}] : !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>[!spio.coord<i>, !spio.coord<k>]
  %v = spio.load %a[%i, %k] : !A[!spio.coord<i>, !spio.coord<k>]
  // CHECK: spio.store %[[V]], %{{.*}}[%{{.*}}] : !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>[!spio.coord<i>]
  spio.store %v, %a[%i] : !A[!spio.coord<i>]
  return
}

// Scratch read for the last time leaves L2 without a write back, 128
// bytes (here rows i and i + 1) from the element on.
// CHECK-LABEL: func.func @discard
func.func @discard(%a: !A, %i: !spio.coord<i>) {
  // CHECK: spio.discard %{{.*}}[%{{.*}}] : !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>[!spio.coord<i>]
  spio.discard %a[%i] : !A[!spio.coord<i>]
  return
}

// Register tensors hold fragments.
// CHECK-LABEL: func.func @fragment_tensor
func.func @fragment_tensor(%acc: !Acc, %i16: !spio.coord<i/16>, %j8: !spio.coord<j/8>) {
  // CHECK: %[[F:.*]] = spio.load %{{.*}}[%{{.*}}, %{{.*}}] : !spio.tensor<[i/16: 2, j/8: 4] x !spio.fragment<C, m16n8k16, f32, [i, j]>, register>[!spio.coord<i/16>, !spio.coord<j/8>]
  // CHECK: spio.store %[[F]], %{{.*}}[%{{.*}}, %{{.*}}] : {{.*}}[!spio.coord<j/8>, !spio.coord<i/16>]
  %f = spio.load %acc[%i16, %j8] : !Acc[!spio.coord<i/16>, !spio.coord<j/8>]
  spio.store %f, %acc[%j8, %i16] : !Acc[!spio.coord<j/8>, !spio.coord<i/16>]
  return
}

// CHECK-LABEL: func.func @view
// CHECK: spio.view %{{.*}} : !spio.tensor<[p: 4, k: 16] x f16, global> to !spio.tensor<[p: 4, k/8: 2] x vector<8xf16>, global>
// CHECK: spio.view %{{.*}} : !spio.tensor<[q: 8, k/8: 2] x vector<8xf16>, shared> to !spio.tensor<[j: 2:4, q: 4, k/8: 2] x vector<8xf16>, shared>
func.func @view(%y: !spio.tensor<[p: 4, k: 16] x f16, global>) {
  %v = spio.view %y : !spio.tensor<[p: 4, k: 16] x f16, global> to !spio.tensor<[p: 4, k/8: 2] x vector<8xf16>, global>
  %s = spio.alloc : !spio.tensor<[q: 8, k/8: 2] x vector<8xf16>, shared>
  %w = spio.view %s : !spio.tensor<[q: 8, k/8: 2] x vector<8xf16>, shared> to !spio.tensor<[j: 2:4, q: 4:2, k/8: 2] x vector<8xf16>, shared>
  return
}
