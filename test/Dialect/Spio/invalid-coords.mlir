// RUN: spio-opt %s -split-input-file -verify-diagnostics

func.func @fold_changes_dimension(%k: !spio.coord<k>) {
  // expected-error @below {{'spio.fold' op keeps the dimension, but 'k' would become 'j/8'; rename it with spio.cast}}
  %0 = spio.fold %k : !spio.coord<k> to !spio.coord<j/8>
  return
}

// -----

func.func @fold_does_not_divide(%k: !spio.coord<k/8>) {
  // expected-error @below {{'spio.fold' op from 'k/8' to 'k/12' does not divide: 12 is not a multiple of 8}}
  %0 = spio.fold %k : !spio.coord<k/8> to !spio.coord<k/12>
  return
}

// -----

func.func @fold_to_finer(%k: !spio.coord<k/8>) {
  // expected-error @below {{'spio.fold' op from 'k/8' to 'k/2' does not divide: 2 is not a multiple of 8}}
  %0 = spio.fold %k : !spio.coord<k/8> to !spio.coord<k/2>
  return
}

// -----

func.func @unfold_changes_dimension(%k: !spio.coord<k/8>) {
  // expected-error @below {{'spio.unfold' op keeps the dimension, but 'k/8' would become 'i'; rename it with spio.cast}}
  %0 = spio.unfold %k : !spio.coord<k/8> to !spio.coord<i>
  return
}

// -----

func.func @unfold_does_not_divide(%k: !spio.coord<k/8>) {
  // expected-error @below {{'spio.unfold' op from 'k/8' to 'k/3' does not divide: 3 does not divide 8}}
  %0 = spio.unfold %k : !spio.coord<k/8> to !spio.coord<k/3>
  return
}

// -----

func.func @cast_changes_fold(%x: !spio.coord<x/2>) {
  // expected-error @below {{'spio.cast' op renames a dimension and keeps its fold, but 'x/2' and 'i' have different folds; use spio.fold or spio.unfold first}}
  %0 = spio.cast %x : !spio.coord<x/2> to !spio.coord<i>
  return
}

// -----

func.func @add_across_dimensions(%i: !spio.coord<i>, %j: !spio.coord<j>) {
  // expected-error @below {{cannot add coordinates of different dimensions 'i' and 'j'; rename one with spio.cast}}
  %0 = spio.add %i, %j : !spio.coord<i>, !spio.coord<j>
  return
}

// -----

func.func @sub_across_dimensions(%i: !spio.coord<i/8>, %j: !spio.coord<k/8>) {
  // expected-error @below {{cannot subtract coordinates of different dimensions 'i/8' and 'k/8'; rename one with spio.cast}}
  %0 = spio.sub %i, %j : !spio.coord<i/8>, !spio.coord<k/8>
  return
}

// -----

func.func @add_wrong_result(%a: !spio.coord<k/8>, %b: !spio.coord<k/2>) {
  // The result type is inferred; a generic op that claims another is rejected.
  // expected-error @below {{'spio.add' op inferred type(s) '!spio.coord<k/2>' are incompatible with return type(s) of operation '!spio.coord<k/8>'}}
  // expected-error @below {{'spio.add' op failed to infer returned types}}
  %0 = "spio.add"(%a, %b) : (!spio.coord<k/8>, !spio.coord<k/2>) -> !spio.coord<k/8>
  return
}

// -----

func.func @add_index(%a: index, %b: !spio.coord<k>) {
  // expected-error @below {{'spio.add' op operand #0 must be typed coordinate, but got 'index'}}
  %0 = "spio.add"(%a, %b) : (index, !spio.coord<k>) -> !spio.coord<k>
  return
}

// -----

func.func @mod_zero(%k: !spio.coord<k/8>) {
  // expected-error @below {{'spio.mod' op modulus of 'k/8' must be positive, got 0}}
  %0 = spio.mod %k, 0 : !spio.coord<k/8>
  return
}

// -----

func.func @cmp_across_dimensions(%i: !spio.coord<i>, %j: !spio.coord<j>) {
  // expected-error @below {{'spio.cmp' op cannot compare coordinates of different dimensions 'i' and 'j'}}
  %0 = spio.cmp lt, %i, %j : !spio.coord<i>, !spio.coord<j>
  return
}

// -----

func.func @cmp_unknown_predicate(%i: !spio.coord<i>) {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = spio.cmp slt, %i, %i : !spio.coord<i>, !spio.coord<i>
  return
}

// -----

func.func @unknown_linear_id() {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'id' [thread, lane, warp, block_x, block_y, block_z, cluster_block]}}
  %0 = spio.linear_id grid
  return
}

// -----

func.func @decompose_size_count(%t: index) {
  // expected-error @below {{'spio.decompose' op has 1 sizes for 2 coordinates}}
  %0, %1 = spio.decompose %t [4] : !spio.coord<warp>, !spio.coord<lane>
  return
}

// -----

func.func @decompose_nonpositive(%t: index) {
  // expected-error @below {{'spio.decompose' op size of 'lane' must be positive, got 0}}
  %0, %1 = spio.decompose %t [4, 0] : !spio.coord<warp>, !spio.coord<lane>
  return
}

// -----

func.func @decompose_duplicate(%t: index) {
  // expected-error @below {{'spio.decompose' op 'i/8' appears twice}}
  %0, %1 = spio.decompose %t [4, 8] : !spio.coord<i/8>, !spio.coord<i/8>
  return
}

// -----

func.func @decompose_lane_too_many() {
  %lane = spio.linear_id lane
  // expected-error @below {{'spio.decompose' op covers 64 ids, but a lane id is below 32}}
  %0, %1 = spio.decompose %lane [16, 4] : !spio.coord<i>, !spio.coord<k/8>
  return
}
