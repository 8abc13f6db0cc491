// RUN: spio-opt %s -split-input-file --convert-spio-to-gpu | FileCheck %s

// Coordinates become index values in steps of their fold.
// CHECK-LABEL: func.func @folds
// CHECK-SAME: (%[[K:.*]]: index, %[[K8:.*]]: index) -> (index, index, index)
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[F:.*]] = arith.floordivsi %[[K]], %[[C8]]
// CHECK-DAG: %[[U:.*]] = arith.muli %[[K8]], %[[C8]]
// CHECK: return %[[F]], %[[U]], %[[K8]]
func.func @folds(%k: !spio.coord<k>, %k8: !spio.coord<k/8>) -> (!spio.coord<k/8>, !spio.coord<k>, !spio.coord<i/8>) {
  %0 = spio.fold %k : !spio.coord<k> to !spio.coord<k/8>
  %1 = spio.unfold %k8 : !spio.coord<k/8> to !spio.coord<k>
  %2 = spio.cast %k8 : !spio.coord<k/8> to !spio.coord<i/8>
  return %0, %1, %2 : !spio.coord<k/8>, !spio.coord<k>, !spio.coord<i/8>
}

// -----

// Mixed folds are brought to the finer fold first; comparisons use positions.
// CHECK-LABEL: func.func @arithmetic
// CHECK-SAME: (%[[A:.*]]: index, %[[B:.*]]: index)
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[A4:.*]] = arith.muli %[[A]], %[[C4]]
// CHECK: %[[S:.*]] = arith.addi %[[A4]], %[[B]]
// CHECK: %[[AB:.*]] = arith.muli %[[A]], %{{.*}}
// CHECK: %[[BB:.*]] = arith.muli %[[B]], %{{.*}}
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[AB]], %[[BB]]
// CHECK: return %[[S]], %[[LT]]
func.func @arithmetic(%a: !spio.coord<k/8>, %b: !spio.coord<k/2>) -> (!spio.coord<k/2>, i1) {
  %0 = spio.add %a, %b : !spio.coord<k/8>, !spio.coord<k/2>
  %1 = spio.cmp lt, %a, %b : !spio.coord<k/8>, !spio.coord<k/2>
  return %0, %1 : !spio.coord<k/2>, i1
}

// -----

// mod never returns a negative value.
// CHECK-LABEL: func.func @mod
// CHECK: %[[R:.*]] = arith.remsi
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[R]]
// CHECK: %[[UP:.*]] = arith.addi %[[R]]
// CHECK: arith.select %[[NEG]], %[[UP]], %[[R]]
func.func @mod(%k: !spio.coord<k>) -> !spio.coord<k> {
  %0 = spio.mod %k, 8 : !spio.coord<k>
  return %0 : !spio.coord<k>
}

// -----

// Hardware ids; decomposition is mixed radix, last digit fastest.
// CHECK-LABEL: gpu.func @ids
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: arith.remsi %[[LANE]], %{{.*}}
// CHECK: arith.floordivsi %[[LANE]], %{{.*}}
// CHECK: gpu.thread_id x
// CHECK: gpu.block_dim x
// CHECK: arith.divui
// CHECK: gpu.block_id y
gpu.module @m {
  gpu.func @ids() kernel {
    %lane = spio.linear_id lane
    %i, %k8 = spio.decompose %lane [16, 2] : !spio.coord<i>, !spio.coord<k/8>
    %w = spio.linear_id warp
    %b = spio.linear_id block_y
    gpu.return
  }
}

// -----

// Coordinates flow through loops.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index)
func.func @loop(%n: index, %start: !spio.coord<k/8>) -> !spio.coord<k/8> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = spio.constant 1 : !spio.coord<k/8>
  %r = scf.for %iv = %c0 to %n step %c1 iter_args(%acc = %start) -> (!spio.coord<k/8>) {
    %next = spio.add %acc, %one : !spio.coord<k/8>, !spio.coord<k/8>
    scf.yield %next : !spio.coord<k/8>
  }
  return %r : !spio.coord<k/8>
}
