// RUN: spio-opt %s -split-input-file --spio-pipeline | FileCheck %s
// RUN: spio-opt %s -split-input-file --spio-pipeline=stages=2 | FileCheck %s --check-prefix=TWO

!G = !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>
!S = !spio.tensor<[i: 32] x vector<8xf16>, shared>

// A single-stage loop: copy row t of G, wait, sync, read it back, sync.
// CHECK-LABEL: gpu.func @ring
// CHECK: %[[S:.*]] = spio.alloc : !spio.tensor<[stage: 3, i: 32] x vector<8xf16>, shared>
// Prologue: iterations 0 and 1, each guarded and committed.
// CHECK: scf.if
// CHECK: spio.async_copy {{.*}} to !spio.tensor<[stage: 3, i: 32] x vector<8xf16>, shared>
// CHECK: spio.async_commit
// CHECK: scf.if
// CHECK: spio.async_copy
// CHECK: spio.async_commit
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %[[UB:.*]] step
// CHECK: spio.async_wait 1
// CHECK-NEXT: gpu.barrier
// CHECK: %[[AHEAD:.*]] = arith.addi %[[IV]]
// CHECK: %[[OK:.*]] = arith.cmpi slt, %[[AHEAD]], %[[UB]]
// CHECK: scf.if %[[OK]] {
// CHECK: arith.remui {{.*}}, %{{.*}} : index
// CHECK: spio.async_copy
// CHECK: }
// CHECK: spio.async_commit
// CHECK: %[[STAGE:.*]] = spio.from_index %{{.*}} : !spio.coord<stage>
// CHECK: %[[CUR:.*]] = spio.subscript %[[S]][%[[STAGE]]]
// CHECK: spio.load %[[CUR]]
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK-NOT: spio.stages
// CHECK: spio.async_wait 0
// TWO: spio.alloc : !spio.tensor<[stage: 2, i: 32] x vector<8xf16>, shared>
// TWO-COUNT-1: spio.async_commit
// TWO: scf.for
// TWO: spio.async_wait 0
gpu.module @m {
  gpu.func @ring(%g: !G, %n: index, %acc: vector<8xf16>) kernel {
    %s = spio.alloc : !S
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %lane = spio.linear_id lane
    %i = spio.from_index %lane : !spio.coord<i>
    %r = scf.for %iv = %c0 to %n step %c1 iter_args(%sum = %acc) -> (vector<8xf16>) {
      %t = spio.from_index %iv : !spio.coord<t>
      %row = spio.subscript %g[%t] : !G[!spio.coord<t>]
      spio.async_copy %row[%i] to %s[%i] : !G[!spio.coord<i>] to !S[!spio.coord<i>]
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      %v = spio.load %s[%i] : !S[!spio.coord<i>]
      %next = arith.addf %sum, %v : vector<8xf16>
      gpu.barrier
      scf.yield %next : vector<8xf16>
    } {spio.stages = 3}
    gpu.return
  }
}

// -----

// One stage: nothing to overlap; the marker goes, the loop stays.
// CHECK-LABEL: gpu.func @single
// CHECK: spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
// CHECK: spio.async_wait 0
// CHECK-NOT: spio.stages
gpu.module @m {
  gpu.func @single(%g: !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>, %n: index) kernel {
    %s = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = spio.constant 0 : !spio.coord<i>
    scf.for %iv = %c0 to %n step %c1 {
      %t = spio.from_index %iv : !spio.coord<t>
      spio.async_copy %g[%t, %i] to %s[%i] : !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>] to !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      gpu.barrier
    } {spio.stages = 1}
    gpu.return
  }
}

// -----

// A copy in a conditional (a guarded round of a cooperative loop): the
// conditional and the values its region uses move ahead together, and the
// copy writes the stage of its iteration.
// CHECK-LABEL: gpu.func @guarded
// CHECK: %[[S:.*]] = spio.alloc : !spio.tensor<[stage: 2, i: 32] x vector<8xf16>, shared>
// CHECK: scf.if
// CHECK: %[[LANE:.*]] = spio.linear_id lane
// CHECK: scf.if
// CHECK: spio.async_copy {{.*}} to !spio.tensor<[stage: 2, i: 32] x vector<8xf16>, shared>
// CHECK: spio.async_commit
// CHECK: scf.for
// CHECK: spio.async_wait 0
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: spio.linear_id lane
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: spio.async_copy
// CHECK: spio.async_commit
// CHECK: spio.load
// CHECK: scf.yield
gpu.module @m {
  gpu.func @guarded(%g: !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>, %n: index, %acc: vector<8xf16>) kernel {
    %s = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c20 = arith.constant 20 : index
    %r = scf.for %iv = %c0 to %n step %c1 iter_args(%sum = %acc) -> (vector<8xf16>) {
      %t = spio.from_index %iv : !spio.coord<t>
      %lane = spio.linear_id lane
      %active = arith.cmpi ult, %lane, %c20 : index
      scf.if %active {
        %i = spio.from_index %lane : !spio.coord<i>
        spio.async_copy %g[%t, %i] to %s[%i] : !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>] to !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      }
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      %zero = spio.constant 0 : !spio.coord<i>
      %v = spio.load %s[%zero] : !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      %next = arith.addf %sum, %v : vector<8xf16>
      gpu.barrier
      scf.yield %next : vector<8xf16>
    } {spio.stages = 2}
    gpu.return
  }
}

// -----

!G = !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>
!S = !spio.tensor<[i: 32] x vector<8xf16>, shared>

// A view of a pipelined buffer (another shape and element of its storage)
// gets the stage dimension too, strided by a stage of the buffer in the
// view's own elements: 32 vectors of 8 x f16 are 256 scalars (the view
// covers the first 128 of them).
// CHECK-LABEL: gpu.func @viewed
// CHECK: %[[S:.*]] = spio.alloc : !spio.tensor<[stage: 2, i: 32] x vector<8xf16>, shared>
// CHECK: %[[V:.*]] = spio.view %[[S]] : !spio.tensor<[stage: 2, i: 32] x vector<8xf16>, shared> to !spio.tensor<[stage: 2:256, i: 16, j: 8] x f16, shared>
// CHECK: scf.for
// CHECK: spio.async_commit
// CHECK: %[[STAGE:.*]] = spio.from_index %{{.*}} : !spio.coord<stage>
// CHECK: %[[CUR:.*]] = spio.subscript %[[V]][%[[STAGE]]]
// CHECK: spio.load %[[CUR]]
gpu.module @m {
  gpu.func @viewed(%g: !G, %n: index, %acc: f16) kernel {
    %s = spio.alloc : !S
    %v = spio.view %s : !S to !spio.tensor<[i: 16, j: 8] x f16, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %lane = spio.linear_id lane
    %i = spio.from_index %lane : !spio.coord<i>
    %vi = spio.constant 5 : !spio.coord<i>
    %j = spio.constant 3 : !spio.coord<j>
    %r = scf.for %iv = %c0 to %n step %c1 iter_args(%sum = %acc) -> (f16) {
      %t = spio.from_index %iv : !spio.coord<t>
      spio.async_copy %g[%t, %i] to %s[%i] : !G[!spio.coord<t>, !spio.coord<i>] to !S[!spio.coord<i>]
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      %x = spio.load %v[%vi, %j] : !spio.tensor<[i: 16, j: 8] x f16, shared>[!spio.coord<i>, !spio.coord<j>]
      %next = arith.addf %sum, %x : f16
      gpu.barrier
      scf.yield %next : f16
    } {spio.stages = 2}
    gpu.return
  }
}

// -----

// A compute that syncs the block itself (an output tile written to shared
// memory, then read back): its barrier stays; the ring replaces only the
// wait's barrier and the last one. The output tile is not a copy's
// destination, so it keeps one stage. No iter_args: the loop only stores.
// CHECK-LABEL: gpu.func @synced_compute
// CHECK: %[[S:.*]] = spio.alloc : !spio.tensor<[stage: 2, i: 32] x vector<8xf16>, shared>
// CHECK: %[[OUT:.*]] = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
// CHECK: scf.for
// CHECK: spio.async_wait 0
// CHECK-NEXT: gpu.barrier
// CHECK: spio.async_copy
// CHECK: spio.async_commit
// CHECK: spio.load
// CHECK: spio.store %{{.*}}, %[[OUT]]
// CHECK-NEXT: gpu.barrier
// CHECK: spio.load %[[OUT]]
// CHECK: spio.store
// CHECK-NOT: gpu.barrier
// CHECK: }
// CHECK: spio.async_wait 0
gpu.module @m {
  gpu.func @synced_compute(%g: !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>, %y: !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>, %n: index) kernel {
    %s = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
    %out = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %lane = spio.linear_id lane
    %i = spio.from_index %lane : !spio.coord<i>
    scf.for %iv = %c0 to %n step %c1 {
      %t = spio.from_index %iv : !spio.coord<t>
      spio.async_copy %g[%t, %i] to %s[%i] : !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>] to !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      %v = spio.load %s[%i] : !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.store %v, %out[%i] : !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      gpu.barrier
      %w = spio.load %out[%i] : !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.store %w, %y[%t, %i] : !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>]
      gpu.barrier
    } {spio.stages = 2}
    gpu.return
  }
}

// -----

!G = !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>
!S = !spio.tensor<[i: 32] x vector<8xf16>, shared>

// Each iteration copies elements 8..31 of row t and hands elements 24..31
// to the next iteration as its 0..7 (a spio.store marked spio.next_stage
// writes stage (i + 1) mod 3, after the compute's barrier; the next
// iteration's wait and barrier order it before that iteration reads it);
// the first iteration copies 0..7 itself.
// CHECK-LABEL: gpu.func @handed_on
// CHECK: scf.for
// CHECK: spio.async_commit
// CHECK: %[[ITER:.*]] = arith.divui
// CHECK: %[[STAGE:.*]] = spio.from_index %{{.*}} : !spio.coord<stage>
// CHECK: %[[NEXT:.*]] = arith.addi %[[ITER]], %{{.*}} : index
// CHECK: %[[NEXTI:.*]] = arith.remui %[[NEXT]], %{{.*}} : index
// CHECK: %[[NEXTSTAGE:.*]] = spio.from_index %[[NEXTI]] : !spio.coord<stage>
// CHECK: spio.load %{{.*}}[%{{.*}}]
// CHECK: %[[HANDED:.*]] = spio.subscript %{{.*}}[%[[STAGE]]]
// CHECK: %[[TAIL:.*]] = spio.load %[[HANDED]]
// CHECK: %[[INTO:.*]] = spio.subscript %{{.*}}[%[[NEXTSTAGE]]]
// CHECK: spio.store %[[TAIL]], %[[INTO]][%{{.*}}] : !spio.tensor
// CHECK-NEXT: scf.yield
// TWO-LABEL: gpu.func @handed_on
// TWO-NOT: spio.next_stage
gpu.module @m {
  gpu.func @handed_on(%g: !G, %n: index, %acc: vector<8xf16>) kernel {
    %s = spio.alloc : !S
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %lane = spio.linear_id lane
    %i = spio.from_index %lane : !spio.coord<i>
    %c8 = spio.constant 8 : !spio.coord<i>
    %c24 = spio.constant 24 : !spio.coord<i>
    %r = scf.for %iv = %c0 to %n step %c1 iter_args(%sum = %acc) -> (vector<8xf16>) {
      %t = spio.from_index %iv : !spio.coord<t>
      %row = spio.subscript %g[%t] : !G[!spio.coord<t>]
      %first = arith.cmpi eq, %iv, %c0 : index
      scf.if %first {
        spio.async_copy %row[%i] to %s[%i] : !G[!spio.coord<i>] to !S[!spio.coord<i>]
      }
      %j = spio.add %i, %c8 : !spio.coord<i>, !spio.coord<i>
      spio.async_copy %row[%j] to %s[%j] : !G[!spio.coord<i>] to !S[!spio.coord<i>]
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      %v = spio.load %s[%i] : !S[!spio.coord<i>]
      %next = arith.addf %sum, %v : vector<8xf16>
      gpu.barrier
      %k = spio.add %i, %c24 : !spio.coord<i>, !spio.coord<i>
      %tail = spio.load %s[%k] : !S[!spio.coord<i>]
      spio.store %tail, %s[%i] {spio.next_stage} : !S[!spio.coord<i>]
      gpu.barrier
      scf.yield %next : vector<8xf16>
    } {spio.stages = 3}
    gpu.return
  }
}
