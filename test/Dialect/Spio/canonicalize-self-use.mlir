// RUN: spio-opt %s -split-input-file -canonicalize="region-simplify=disabled" | FileCheck %s

// A graph region (a module's body) lets an op use its own result, directly
// or around a cycle. Canonicalization ends on such IR: a folder that would
// replace an op by its own result, or rewrite it in place to the same
// operands, leaves it as it is. (Region simplification would erase these
// unused cycles before they are folded.)

// CHECK-LABEL: module
// CHECK: %[[M:.*]] = spio.mod %[[M]], 9 : !spio.coord<k/8>
%m = spio.mod %m, 9 : !spio.coord<k/8>

// -----

// (x mod 9) mod 3 takes x mod 3 once; around a cycle that leaves the op on
// its own result, and the other unused.
// CHECK-LABEL: module
// CHECK-NEXT: %[[B:.*]] = spio.mod %[[B]], 3 : !spio.coord<k/8>
// CHECK-NEXT: }
%a = spio.mod %b, 9 : !spio.coord<k/8>
%b = spio.mod %a, 3 : !spio.coord<k/8>

// -----

// CHECK-LABEL: module
// CHECK: %[[S:.*]] = spio.add %[[S]], %{{.*}} : !spio.coord<k>, !spio.coord<k>
// CHECK: %[[D:.*]] = spio.sub %[[D]], %{{.*}} : !spio.coord<k>, !spio.coord<k>
%zero = spio.constant 0 : !spio.coord<k>
%s = spio.add %s, %zero : !spio.coord<k>, !spio.coord<k>
%d = spio.sub %d, %zero : !spio.coord<k>, !spio.coord<k>

// -----

// CHECK-LABEL: module
// CHECK: %[[F:.*]] = spio.fold %[[F]] : !spio.coord<k/8> to !spio.coord<k/8>
// CHECK: %[[U:.*]] = spio.unfold %[[U]] : !spio.coord<k/8> to !spio.coord<k/8>
// CHECK: %[[C:.*]] = spio.cast %[[C]] : !spio.coord<k/8> to !spio.coord<k/8>
%f = spio.fold %f : !spio.coord<k/8> to !spio.coord<k/8>
%u = spio.unfold %u : !spio.coord<k/8> to !spio.coord<k/8>
%c = spio.cast %c : !spio.coord<k/8> to !spio.coord<k/8>

// -----

// fold(unfold(x)) -> fold(x) around a cycle: x is the fold itself.
// CHECK-LABEL: module
// CHECK-NEXT: %[[X:.*]] = spio.fold %[[X]] : !spio.coord<k/8> to !spio.coord<k/8>
// CHECK-NEXT: }
%x8 = spio.fold %x2 : !spio.coord<k/2> to !spio.coord<k/8>
%x2 = spio.unfold %x8 : !spio.coord<k/8> to !spio.coord<k/2>

// -----

// CHECK-LABEL: module
// CHECK: %[[Q:.*]] = spio.unfold %[[Q]] : !spio.coord<k/2> to !spio.coord<k/2>
%p = spio.unfold %q : !spio.coord<k/2> to !spio.coord<k/2>
%q = spio.unfold %p : !spio.coord<k/2> to !spio.coord<k/2>

// -----

// CHECK-LABEL: module
// CHECK-NEXT: %[[I:.*]] = spio.cast %[[J:.*]] : !spio.coord<j/8> to !spio.coord<i/8>
// CHECK-NEXT: %[[J]] = spio.cast %[[I]] : !spio.coord<i/8> to !spio.coord<j/8>
%i = spio.cast %j : !spio.coord<j/8> to !spio.coord<i/8>
%j = spio.cast %i : !spio.coord<i/8> to !spio.coord<j/8>

// -----

// CHECK-LABEL: module
// CHECK-NEXT: %[[C:.*]] = spio.from_index %[[X:.*]] : !spio.coord<k/8>
// CHECK-NEXT: %[[X]] = spio.to_index %[[C]] : !spio.coord<k/8>
%coord = spio.from_index %index : !spio.coord<k/8>
%index = spio.to_index %coord : !spio.coord<k/8>

// -----

!T = !spio.tensor<[i: 16] x f32, shared>
// CHECK-LABEL: module
// CHECK-NEXT: %[[T:.*]] = spio.subscript %[[T]][] : !spio.tensor<[i: 16] x f32, shared>
%t = spio.subscript %t[] : !T
