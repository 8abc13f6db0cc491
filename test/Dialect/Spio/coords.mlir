// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (!spio.coord<k>, !spio.coord<k/8>) {
  // CHECK: spio.constant 7 : !spio.coord<k>
  %0 = spio.constant 7 : !spio.coord<k>
  // CHECK: spio.constant -3 : !spio.coord<k/8>
  %1 = spio.constant -3 : !spio.coord<k/8>
  return %0, %1 : !spio.coord<k>, !spio.coord<k/8>
}

// CHECK-LABEL: func.func @fold_unfold_cast
func.func @fold_unfold_cast(%k: !spio.coord<k>, %x: !spio.coord<x/2>)
    -> (!spio.coord<k/8>, !spio.coord<k/2>, !spio.coord<i/2>) {
  // CHECK: spio.fold %{{.*}} : !spio.coord<k> to !spio.coord<k/8>
  %0 = spio.fold %k : !spio.coord<k> to !spio.coord<k/8>
  // CHECK: spio.unfold %{{.*}} : !spio.coord<k/8> to !spio.coord<k/2>
  %1 = spio.unfold %0 : !spio.coord<k/8> to !spio.coord<k/2>
  // CHECK: spio.cast %{{.*}} : !spio.coord<x/2> to !spio.coord<i/2>
  %2 = spio.cast %x : !spio.coord<x/2> to !spio.coord<i/2>
  return %0, %1, %2 : !spio.coord<k/8>, !spio.coord<k/2>, !spio.coord<i/2>
}

// Mixed folds compute at the finer stride: the gcd of the folds.
// CHECK-LABEL: func.func @arithmetic
func.func @arithmetic(%a: !spio.coord<k/8>, %b: !spio.coord<k/2>, %c: !spio.coord<k/12>)
    -> (!spio.coord<k/2>, !spio.coord<k/4>, !spio.coord<k/8>, i1) {
  // CHECK: %[[SUM:.*]] = spio.add %{{.*}}, %{{.*}} : !spio.coord<k/8>, !spio.coord<k/2>
  %0 = spio.add %a, %b : !spio.coord<k/8>, !spio.coord<k/2>
  // CHECK: spio.sub %{{.*}}, %{{.*}} : !spio.coord<k/8>, !spio.coord<k/12>
  %1 = spio.sub %a, %c : !spio.coord<k/8>, !spio.coord<k/12>
  // CHECK: spio.mod %{{.*}}, 4 : !spio.coord<k/8>
  %2 = spio.mod %a, 4 : !spio.coord<k/8>
  // CHECK: spio.cmp lt, %[[SUM]], %{{.*}} : !spio.coord<k/2>, !spio.coord<k/12>
  %3 = spio.cmp lt, %0, %c : !spio.coord<k/2>, !spio.coord<k/12>
  return %0, %1, %2, %3 : !spio.coord<k/2>, !spio.coord<k/4>, !spio.coord<k/8>, i1
}

// CHECK-LABEL: func.func @index_bridge
func.func @index_bridge(%i: index) -> index {
  // CHECK: %[[C:.*]] = spio.from_index %{{.*}} : !spio.coord<k/8>
  %0 = spio.from_index %i : !spio.coord<k/8>
  // CHECK: spio.to_index %[[C]] : !spio.coord<k/8>
  %1 = spio.to_index %0 : !spio.coord<k/8>
  return %1 : index
}

// CHECK-LABEL: func.func @linear_ids
func.func @linear_ids() -> (!spio.coord<warp>, !spio.coord<i>, !spio.coord<k/8>, !spio.coord<block_i>) {
  // CHECK: %[[T:.*]] = spio.linear_id thread
  %t = spio.linear_id thread
  // CHECK: %[[L:.*]] = spio.linear_id lane
  %l = spio.linear_id lane
  // CHECK: spio.linear_id warp
  %w = spio.linear_id warp
  // CHECK: %[[B:.*]] = spio.linear_id block_x
  %b = spio.linear_id block_x
  // CHECK: spio.linear_id block_y
  %by = spio.linear_id block_y
  // CHECK: spio.linear_id block_z
  %bz = spio.linear_id block_z
  // CHECK: spio.decompose %[[T]] [4, 32] : !spio.coord<warp>, !spio.coord<lane>
  %warp, %lane = spio.decompose %t [4, 32] : !spio.coord<warp>, !spio.coord<lane>
  // CHECK: spio.decompose %[[L]] [16, 2] : !spio.coord<i>, !spio.coord<k/8>
  %i, %k8 = spio.decompose %l [16, 2] : !spio.coord<i>, !spio.coord<k/8>
  // CHECK: spio.decompose %[[B]] [1024] : !spio.coord<block_i>
  %bi = spio.decompose %b [1024] : !spio.coord<block_i>
  return %warp, %i, %k8, %bi : !spio.coord<warp>, !spio.coord<i>, !spio.coord<k/8>, !spio.coord<block_i>
}
