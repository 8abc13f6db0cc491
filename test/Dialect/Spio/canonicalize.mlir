// RUN: spio-opt %s -split-input-file -canonicalize | FileCheck %s

// Constant coordinates fold; folds round toward negative infinity.
// CHECK-LABEL: func.func @constant_folds
// CHECK-DAG: %[[A:.*]] = spio.constant 2 : !spio.coord<k/8>
// CHECK-DAG: %[[B:.*]] = spio.constant -1 : !spio.coord<k/8>
// CHECK-DAG: %[[C:.*]] = spio.constant 24 : !spio.coord<k>
// CHECK-DAG: %[[D:.*]] = spio.constant 3 : !spio.coord<i/8>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @constant_folds() -> (!spio.coord<k/8>, !spio.coord<k/8>, !spio.coord<k>, !spio.coord<i/8>) {
  %k20 = spio.constant 20 : !spio.coord<k>
  %a = spio.fold %k20 : !spio.coord<k> to !spio.coord<k/8>
  %km1 = spio.constant -1 : !spio.coord<k>
  %b = spio.fold %km1 : !spio.coord<k> to !spio.coord<k/8>
  %k3 = spio.constant 3 : !spio.coord<k/8>
  %c = spio.unfold %k3 : !spio.coord<k/8> to !spio.coord<k>
  %d = spio.cast %k3 : !spio.coord<k/8> to !spio.coord<i/8>
  return %a, %b, %c, %d : !spio.coord<k/8>, !spio.coord<k/8>, !spio.coord<k>, !spio.coord<i/8>
}

// -----

// k = 7 plus k = 5 is k = 12: k/8 = 1 and, modulo 8, k = 4.
// CHECK-LABEL: func.func @carry
// CHECK-DAG: %[[K8:.*]] = spio.constant 1 : !spio.coord<k/8>
// CHECK-DAG: %[[K:.*]] = spio.constant 4 : !spio.coord<k>
// CHECK: return %[[K8]], %[[K]]
func.func @carry() -> (!spio.coord<k/8>, !spio.coord<k>) {
  %a = spio.constant 7 : !spio.coord<k>
  %b = spio.constant 5 : !spio.coord<k>
  %sum = spio.add %a, %b : !spio.coord<k>, !spio.coord<k>
  %k8 = spio.fold %sum : !spio.coord<k> to !spio.coord<k/8>
  %k = spio.mod %sum, 8 : !spio.coord<k>
  return %k8, %k : !spio.coord<k/8>, !spio.coord<k>
}

// -----

// Mixed folds compute at the finer stride.
// CHECK-LABEL: func.func @mixed_fold_arithmetic
// CHECK-DAG: %[[S:.*]] = spio.constant 13 : !spio.coord<k/2>
// CHECK-DAG: %[[D:.*]] = spio.constant -3 : !spio.coord<k/4>
// CHECK-DAG: %[[M:.*]] = spio.constant 3 : !spio.coord<k/8>
// CHECK: return %[[S]], %[[D]], %[[M]]
func.func @mixed_fold_arithmetic() -> (!spio.coord<k/2>, !spio.coord<k/4>, !spio.coord<k/8>) {
  %a = spio.constant 3 : !spio.coord<k/8>
  %b = spio.constant 1 : !spio.coord<k/2>
  %c = spio.constant 3 : !spio.coord<k/12>
  %s = spio.add %a, %b : !spio.coord<k/8>, !spio.coord<k/2>
  %d = spio.sub %a, %c : !spio.coord<k/8>, !spio.coord<k/12>
  %neg = spio.constant -5 : !spio.coord<k/8>
  %m = spio.mod %neg, 4 : !spio.coord<k/8>
  return %s, %d, %m : !spio.coord<k/2>, !spio.coord<k/4>, !spio.coord<k/8>
}

// -----

// CHECK-LABEL: func.func @compare
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK: return %[[T]], %[[F]], %[[T]], %[[F]]
func.func @compare(%x: !spio.coord<i>) -> (i1, i1, i1, i1) {
  %a = spio.constant 15 : !spio.coord<i>
  %b = spio.constant 2 : !spio.coord<i/8>
  %lt = spio.cmp lt, %a, %b : !spio.coord<i>, !spio.coord<i/8>
  %ge = spio.cmp ge, %a, %b : !spio.coord<i>, !spio.coord<i/8>
  %le = spio.cmp le, %x, %x : !spio.coord<i>, !spio.coord<i>
  %ne = spio.cmp ne, %x, %x : !spio.coord<i>, !spio.coord<i>
  return %lt, %ge, %le, %ne : i1, i1, i1, i1
}

// -----

// fold(unfold(x)) returns to x exactly; unfold(fold(x)) does not fold (it
// truncates).
// CHECK-LABEL: func.func @fold_of_unfold
// CHECK-SAME: (%[[X:.*]]: !spio.coord<k/8>, %[[Y:.*]]: !spio.coord<k>)
// CHECK: %[[F:.*]] = spio.fold %[[Y]] : !spio.coord<k> to !spio.coord<k/8>
// CHECK: %[[U:.*]] = spio.unfold %[[F]] : !spio.coord<k/8> to !spio.coord<k>
// CHECK: return %[[X]], %[[U]]
func.func @fold_of_unfold(%x: !spio.coord<k/8>, %y: !spio.coord<k>) -> (!spio.coord<k/8>, !spio.coord<k>) {
  %0 = spio.unfold %x : !spio.coord<k/8> to !spio.coord<k>
  %1 = spio.fold %0 : !spio.coord<k> to !spio.coord<k/8>
  %2 = spio.fold %y : !spio.coord<k> to !spio.coord<k/8>
  %3 = spio.unfold %2 : !spio.coord<k/8> to !spio.coord<k>
  return %1, %3 : !spio.coord<k/8>, !spio.coord<k>
}

// -----

// Chains of folds and unfolds collapse to one op where that is exact.
// CHECK-LABEL: func.func @compose
// CHECK-SAME: (%[[X:.*]]: !spio.coord<k>, %[[Y:.*]]: !spio.coord<k/16>)
// CHECK-DAG: %[[A:.*]] = spio.fold %[[X]] : !spio.coord<k> to !spio.coord<k/32>
// CHECK-DAG: %[[B:.*]] = spio.unfold %[[Y]] : !spio.coord<k/16> to !spio.coord<k>
// CHECK-DAG: %[[C:.*]] = spio.unfold %[[Y]] : !spio.coord<k/16> to !spio.coord<k/4>
// CHECK-DAG: %[[D:.*]] = spio.fold %[[X]] : !spio.coord<k> to !spio.coord<k/8>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @compose(%x: !spio.coord<k>, %y: !spio.coord<k/16>)
    -> (!spio.coord<k/32>, !spio.coord<k>, !spio.coord<k/4>, !spio.coord<k/8>) {
  %0 = spio.fold %x : !spio.coord<k> to !spio.coord<k/4>
  %a = spio.fold %0 : !spio.coord<k/4> to !spio.coord<k/32>
  %1 = spio.unfold %y : !spio.coord<k/16> to !spio.coord<k/2>
  %b = spio.unfold %1 : !spio.coord<k/2> to !spio.coord<k>
  // unfold to k/2 then fold to k/4: exactly unfold to k/4.
  %c = spio.fold %1 : !spio.coord<k/2> to !spio.coord<k/4>
  // unfold x to k, but x is already k: then fold to k/8.
  %2 = spio.unfold %x : !spio.coord<k> to !spio.coord<k>
  %d = spio.fold %2 : !spio.coord<k> to !spio.coord<k/8>
  return %a, %b, %c, %d : !spio.coord<k/32>, !spio.coord<k>, !spio.coord<k/4>, !spio.coord<k/8>
}

// -----

// unfold(x : k/2 -> k) then fold to k/8 is fold(x : k/2 -> k/8).
// CHECK-LABEL: func.func @fold_of_finer_unfold
// CHECK-SAME: (%[[X:.*]]: !spio.coord<k/2>)
// CHECK: %[[F:.*]] = spio.fold %[[X]] : !spio.coord<k/2> to !spio.coord<k/8>
// CHECK: return %[[F]]
func.func @fold_of_finer_unfold(%x: !spio.coord<k/2>) -> !spio.coord<k/8> {
  %0 = spio.unfold %x : !spio.coord<k/2> to !spio.coord<k>
  %1 = spio.fold %0 : !spio.coord<k> to !spio.coord<k/8>
  return %1 : !spio.coord<k/8>
}

// -----

// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[X:.*]]: !spio.coord<x>)
// CHECK: %[[C:.*]] = spio.cast %[[X]] : !spio.coord<x> to !spio.coord<j>
// CHECK: return %[[X]], %[[C]]
func.func @casts(%x: !spio.coord<x>) -> (!spio.coord<x>, !spio.coord<j>) {
  %0 = spio.cast %x : !spio.coord<x> to !spio.coord<i>
  %1 = spio.cast %0 : !spio.coord<i> to !spio.coord<x>
  %2 = spio.cast %0 : !spio.coord<i> to !spio.coord<j>
  return %1, %2 : !spio.coord<x>, !spio.coord<j>
}

// -----

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: !spio.coord<k/8>, %[[Y:.*]]: !spio.coord<k>)
// CHECK-DAG: %[[Z:.*]] = spio.constant 0 : !spio.coord<k/8>
// CHECK-DAG: %[[M:.*]] = spio.mod %[[X]], 2 : !spio.coord<k/8>
// CHECK-DAG: %[[ADD:.*]] = spio.add %[[X]], %{{.*}} : !spio.coord<k/8>, !spio.coord<k>
// CHECK: return %[[X]], %[[X]], %[[Z]], %[[Z]], %[[M]], %[[ADD]]
func.func @identities(%x: !spio.coord<k/8>, %y: !spio.coord<k>)
    -> (!spio.coord<k/8>, !spio.coord<k/8>, !spio.coord<k/8>, !spio.coord<k/8>, !spio.coord<k/8>, !spio.coord<k>) {
  %zero = spio.constant 0 : !spio.coord<k/8>
  %a = spio.add %x, %zero : !spio.coord<k/8>, !spio.coord<k/8>
  %b = spio.sub %x, %zero : !spio.coord<k/8>, !spio.coord<k/8>
  %c = spio.sub %x, %x : !spio.coord<k/8>, !spio.coord<k/8>
  %d = spio.mod %x, 1 : !spio.coord<k/8>
  %m4 = spio.mod %x, 4 : !spio.coord<k/8>
  %e = spio.mod %m4, 2 : !spio.coord<k/8>
  // Adding a zero of a finer fold changes the type, so it stays.
  %zk = spio.constant 0 : !spio.coord<k>
  %f = spio.add %x, %zk : !spio.coord<k/8>, !spio.coord<k>
  return %a, %b, %c, %d, %e, %f : !spio.coord<k/8>, !spio.coord<k/8>, !spio.coord<k/8>, !spio.coord<k/8>, !spio.coord<k/8>, !spio.coord<k>
}

// -----

// CHECK-LABEL: func.func @index_bridge
// CHECK-SAME: (%[[I:.*]]: index, %[[C:.*]]: !spio.coord<k/8>)
// CHECK-DAG: %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK-DAG: %[[K:.*]] = spio.constant 5 : !spio.coord<k/8>
// CHECK: return %[[I]], %[[C]], %[[SEVEN]], %[[K]]
func.func @index_bridge(%i: index, %c: !spio.coord<k/8>) -> (index, !spio.coord<k/8>, index, !spio.coord<k/8>) {
  %0 = spio.from_index %i : !spio.coord<k/8>
  %1 = spio.to_index %0 : !spio.coord<k/8>
  %2 = spio.to_index %c : !spio.coord<k/8>
  %3 = spio.from_index %2 : !spio.coord<k/8>
  %seven = spio.constant 7 : !spio.coord<i>
  %4 = spio.to_index %seven : !spio.coord<i>
  %five = arith.constant 5 : index
  %5 = spio.from_index %five : !spio.coord<k/8>
  return %1, %3, %4, %5 : index, !spio.coord<k/8>, index, !spio.coord<k/8>
}

// -----

!A = !spio.tensor<[i: 64] x f16, global>

// CHECK-LABEL: func.func @empty_subscript
// CHECK-SAME: (%[[A:.*]]: !spio.tensor<[i: 64] x f16, global>)
// CHECK-NEXT: return %[[A]]
func.func @empty_subscript(%a: !A) -> !A {
  %0 = spio.subscript %a[] : !A
  return %0 : !A
}

// -----

// Coordinate arithmetic is pure: unused results disappear.
// CHECK-LABEL: func.func @pure
// CHECK-NEXT: %[[L:.*]] = spio.linear_id lane
// CHECK-NEXT: %[[D:.*]]:2 = spio.decompose %[[L]] [16, 2]
// CHECK-NEXT: return %[[D]]#0
func.func @pure() -> !spio.coord<i> {
  %l = spio.linear_id lane
  %i, %k = spio.decompose %l [16, 2] : !spio.coord<i>, !spio.coord<k/8>
  %w = spio.linear_id warp
  %unused = spio.fold %k : !spio.coord<k/8> to !spio.coord<k/16>
  return %i : !spio.coord<i>
}
