// RUN: spio-opt %s -split-input-file -verify-diagnostics

!A = !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>

func.func @alloc_global() {
  // expected-error @below {{'spio.alloc' op makes shared or register tensors; global tensors are kernel arguments}}
  %0 = spio.alloc : !A
  return
}

// -----

!A = !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>

func.func @subscript_missing_dimension(%a: !A, %j: !spio.coord<j>) {
  // expected-error @below {{'spio.subscript' op subscript: tensor has no dimension 'j' (it has i, k/8, k); project it explicitly to ignore it}}
  %0 = spio.subscript %a[%j] : !A[!spio.coord<j>]
  return
}

// -----

!A = !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>

func.func @subscript_projects_present_dimension(%a: !A, %i: !spio.coord<i>) {
  // expected-error @below {{'spio.subscript' op subscript: dimension 'i' is projected away but the tensor has it}}
  %0 = spio.subscript %a[%i] project ["i"] : !A[!spio.coord<i>]
  return
}

// -----

!S = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared>

func.func @subscript_finer_than_tensor(%s: !S, %k: !spio.coord<k>) {
  // A vector element covers 8 k: a plain k coordinate would be truncated.
  // expected-error @below {{'spio.subscript' op subscript: coordinate 'k' is finer than the tensor's finest entry 'k/8' and would be truncated; fold it explicitly}}
  %0 = spio.subscript %s[%k] : !S[!spio.coord<k>]
  return
}

// -----

!A = !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>

func.func @subscript_result_type(%a: !A, %i: !spio.coord<i>) {
  // expected-error @below {{'spio.subscript' op failed to verify that all of {tensor, result} have same type}}
  %0 = "spio.subscript"(%a, %i) : (!A, !spio.coord<i>) -> !spio.tensor<[i: 64] x f16, global>
  return
}

// -----

!S = !spio.tensor<[i: 16, c: 2] x vector<8xf16>, shared, #spio.checkerboard<8>>

func.func @rebase_swizzled(%s: !S) {
  // expected-error @below {{'spio.rebase' op cannot rebase a swizzled tensor: the swizzle applies to offsets from the allocation}}
  %0 = spio.rebase %s : !S
  return
}

// -----

!A = !spio.tensor<[i: 64, k: 16] x f16, global>

func.func @load_missing_dimension(%a: !A, %i: !spio.coord<i>, %n: !spio.coord<n>) {
  // expected-error @below {{'spio.load' op load: tensor has no dimension 'n' (it has i, k); project it explicitly to ignore it}}
  %0 = spio.load %a[%i, %n] : !A[!spio.coord<i>, !spio.coord<n>]
  return
}

// -----

!A = !spio.tensor<[i: 64, k: 16] x f16, global>

func.func @store_missing_dimension(%a: !A, %v: f16, %j: !spio.coord<j>) {
  // expected-error @below {{'spio.store' op store: tensor has no dimension 'j' (it has i, k); project it explicitly to ignore it}}
  spio.store %v, %a[%j] : !A[!spio.coord<j>]
  return
}

// -----

!A = !spio.tensor<[i: 64, k: 16] x f16, global>

func.func @store_wrong_element(%a: !A, %v: f32, %i: !spio.coord<i>) {
  // expected-error @below {{'spio.store' op failed to verify that value is the tensor's element}}
  "spio.store"(%v, %a, %i) : (f32, !A, !spio.coord<i>) -> ()
  return
}

// -----

func.func @subscript_not_a_tensor(%m: memref<4xf16>, %i: !spio.coord<i>) {
  // expected-error @below {{'spio.subscript' op operand #0 must be spio tensor, but got 'memref<4xf16>'}}
  %0 = "spio.subscript"(%m, %i) : (memref<4xf16>, !spio.coord<i>) -> memref<4xf16>
  return
}

// -----

!A = !spio.tensor<[i: 64, k: 16] x f16, global>

func.func @subscript_by_index(%a: !A, %x: index) {
  // expected-error @below {{'spio.subscript' op operand #1 must be variadic of typed coordinate, but got 'index'}}
  %0 = "spio.subscript"(%a, %x) : (!A, index) -> !A
  return
}

// -----

func.func @view_across_memories(%y: !spio.tensor<[p: 4, k: 16] x f16, global>) {
  // expected-error @below {{'spio.view' op keeps the memory space, but global would become shared}}
  %v = spio.view %y : !spio.tensor<[p: 4, k: 16] x f16, global> to !spio.tensor<[p: 4, k: 16] x f16, shared>
  return
}

// -----

func.func @view_past_the_end(%y: !spio.tensor<[p: 4, k: 16] x f16, global>) {
  // expected-error @below {{'spio.view' op reaches 256 bytes, past the 128 bytes of the viewed tensor}}
  %v = spio.view %y : !spio.tensor<[p: 4, k: 16] x f16, global> to !spio.tensor<[p: 4, k/8: 4] x vector<8xf16>, global>
  return
}

// -----

func.func @view_changes_swizzle() {
  %s = spio.alloc : !spio.tensor<[q: 8, k/8: 2] x vector<8xf16>, shared, #spio.xor_swizzle<1, 0, 3>>
  // expected-error @below {{'spio.view' op must keep the swizzle and the element size of a swizzled tensor}}
  %v = spio.view %s : !spio.tensor<[q: 8, k/8: 2] x vector<8xf16>, shared, #spio.xor_swizzle<1, 0, 3>> to !spio.tensor<[q: 8, k: 16] x f16, shared>
  return
}

// -----

!S = !spio.tensor<[i: 64, k: 16] x f16, shared>

func.func @discard_shared(%i: !spio.coord<i>) {
  %s = spio.alloc : !S
  // expected-error @below {{'spio.discard' op drops global memory from L2, but the tensor is in shared memory}}
  spio.discard %s[%i] : !S[!spio.coord<i>]
  return
}

// -----

!A = !spio.tensor<[i: 64, k: 16] x f16, global>

func.func @discard_missing_dimension(%a: !A, %j: !spio.coord<j>) {
  // expected-error @below {{'spio.discard' op discard: tensor has no dimension 'j' (it has i, k); project it explicitly to ignore it}}
  spio.discard %a[%j] : !A[!spio.coord<j>]
  return
}
