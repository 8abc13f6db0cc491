// Coordinate and cursor ops are pure, so CSE merges them; memory ops are not.
// RUN: spio-opt %s -split-input-file -cse | FileCheck %s

// CHECK-LABEL: func.func @pure_ops_merge
// CHECK: spio.decompose
// CHECK-NOT: spio.decompose
// CHECK: spio.fold
// CHECK-NOT: spio.fold
// CHECK: spio.subscript
// CHECK-NOT: spio.subscript
func.func @pure_ops_merge(%a: !spio.tensor<[i: 64] x f16, global>) -> (!spio.coord<i/8>, !spio.coord<i/8>, !spio.tensor<[i: 64] x f16, global>, !spio.tensor<[i: 64] x f16, global>) {
  %t = spio.linear_id thread
  %i0 = spio.decompose %t [64] : !spio.coord<i>
  %i1 = spio.decompose %t [64] : !spio.coord<i>
  %f0 = spio.fold %i0 : !spio.coord<i> to !spio.coord<i/8>
  %f1 = spio.fold %i1 : !spio.coord<i> to !spio.coord<i/8>
  %s0 = spio.subscript %a[%i0] : !spio.tensor<[i: 64] x f16, global>[!spio.coord<i>]
  %s1 = spio.subscript %a[%i1] : !spio.tensor<[i: 64] x f16, global>[!spio.coord<i>]
  return %f0, %f1, %s0, %s1 : !spio.coord<i/8>, !spio.coord<i/8>, !spio.tensor<[i: 64] x f16, global>, !spio.tensor<[i: 64] x f16, global>
}

// -----

// A store between two loads keeps both loads.
// CHECK-LABEL: func.func @loads_across_store
// CHECK: spio.load
// CHECK: spio.store
// CHECK: spio.load
func.func @loads_across_store(%a: !spio.tensor<[i: 64] x f16, global>, %i: !spio.coord<i>, %v: f16) -> (f16, f16) {
  %0 = spio.load %a[%i] : !spio.tensor<[i: 64] x f16, global>[!spio.coord<i>]
  spio.store %v, %a[%i] : !spio.tensor<[i: 64] x f16, global>[!spio.coord<i>]
  %1 = spio.load %a[%i] : !spio.tensor<[i: 64] x f16, global>[!spio.coord<i>]
  return %0, %1 : f16, f16
}

// -----

// Each alloc is its own buffer.
// CHECK-LABEL: func.func @allocs_stay_distinct
// CHECK-COUNT-2: spio.alloc
func.func @allocs_stay_distinct() -> (!spio.tensor<[i: 64] x f16, shared>, !spio.tensor<[i: 64] x f16, shared>) {
  %0 = spio.alloc : !spio.tensor<[i: 64] x f16, shared>
  %1 = spio.alloc : !spio.tensor<[i: 64] x f16, shared>
  return %0, %1 : !spio.tensor<[i: 64] x f16, shared>, !spio.tensor<[i: 64] x f16, shared>
}
