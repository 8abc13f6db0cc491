// RUN: spio-opt %s -split-input-file -verify-diagnostics

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

func.func @kernel_too_large(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{'spio.conv2d_gw8' op kernel must be two sizes [R, S] from 1 to 7}}
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 9, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

func.func @negative_padding(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{padding must be two values [pH, pW], neither negative}}
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, -1>, stride = 1} : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

func.func @stride_three(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{stride must be 1 or 2, got 3}}
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 3} : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, k/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!B = !spio.tensor<[c: 32] x f16, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, c: 32] x f16, global>

func.func @dgrad_with_bias(%dy: !X, %w: !W, %b: !B, %dx: !Y) {
  // expected-error @below {{takes a bias in fprop only}}
  spio.conv2d_gw8 dgrad %dy, %w bias %b into %dx {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W, !B -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c: 32] x f16, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

func.func @scalar_input(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{first input must hold vector<8xf16> or vector<8xbf16> (8 channels of a group), got 'f16'}}
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

func.func @mixed_dtypes(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{inputs must hold the same element, got 'vector<8xf16>' and 'vector<8xbf16>'}}
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 20, k/8: 4] x vector<8xf16>, global>
!WS = !spio.tensor<[part: 6, k: 32, r: 3, sc/8: 4, sc: 8] x f16, global>

func.func @wgrad_partials_are_f32(%x: !X, %dy: !DY, %ws: !WS) {
  // expected-error @below {{wgrad writes 'f32' partial sums, got 'f16'}}
  spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !WS
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 20, k/8: 4] x vector<8xf16>, global>
!WS = !spio.tensor<[k: 32, r: 3, s: 3, c: 8] x bf16, global>

func.func @wgrad_weights_as_another_type(%x: !X, %dy: !DY, %ws: !WS) {
  // expected-error @below {{wgrad writes dw as 'f16' or f32, got 'bf16'}}
  spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !WS
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, shared>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

func.func @shared_input(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{first input must be in global memory}}
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
  return
}

// -----

// expected-error @below {{conv2d_gw8_config warps must be two positive counts [Q, groups]}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [0, 4], rows = 8>}

// -----

// Counts past what a block or a grid can hold overflowed the rules'
// arithmetic (warps = [2^62, 4] crashed spio-tile).
// expected-error @below {{conv2d_gw8_config warps must be two positive counts [Q, groups] of at most 32 warps in all}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [4611686018427387904, 4], rows = 8>}

// -----

// expected-error @below {{conv2d_gw8_config warps must be two positive counts [Q, groups] of at most 32 warps in all}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [8, 8], rows = 8>}

// -----

// expected-error @below {{conv2d_gw8_config rows must be 1 to 2^30, got 4611686018427387904}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [2, 4], rows = 4611686018427387904>}

// -----

// expected-error @below {{conv2d_gw8_config chunks must be 0 (choose) to 2^31 - 1, got 4294967296}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 4294967296>}

// -----

// expected-error @below {{conv2d_gw8_config copy_warps must be 0 (none) to 32, got 33}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, copy_warps = 33>}

// -----

// expected-error @below {{conv2d_gw8_config rows must be 1 to 2^30, got 0}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [2, 4], rows = 0>}

// -----

// expected-error @below {{conv2d_gw8_config chunks must be 0 (choose) to 2^31 - 1, got -2}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = -2>}

// -----

// expected-error @below {{conv2d_gw8_config multiprocessors must be 0 to 2^31 - 1, got -1}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, multiprocessors = -1>}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!B = !spio.tensor<[k: 32] x f32, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

func.func @bias_dtype(%x: !X, %w: !W, %b: !B, %y: !Y) {
  // expected-error @below {{bias must hold 'f16', got 'f32'}}
  spio.conv2d_gw8 fprop %x, %w bias %b into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W, !B -> !Y
  return
}

// -----

// expected-error @below {{expected 'chunks', 'copy_warps', 'multiprocessors', 'stages' or 'row_ring', once each}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 2, chunks = 3>}

// -----

// expected-error @below {{expected 'chunks', 'copy_warps', 'multiprocessors', 'stages' or 'row_ring', once each}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [1, 8], rows = 8, row_ring, row_ring>}

// -----

// expected-error @below {{conv2d_gw8_config copy_warps must be 0 (none) to 32, got -1}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, copy_warps = -1>}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 20, k/8: 4] x vector<8xf16>, global>
!WS = !spio.tensor<[k: 32, r: 3, s: 24] x f32, global>

func.func @wgrad_into_three_entries(%x: !X, %dy: !DY, %ws: !WS) {
  // expected-error @below {{takes 4-entry inputs and a 4-entry (dw) or 5-entry (partial sums) output}}
  spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !WS
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

func.func @parts_of_fprop(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{'spio.conv2d_gw8' op runs parts of wgrad's band loop only, not of fprop}}
  spio.conv2d_gw8 fprop %x, %w into %y parts mma {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 20, k/8: 4] x vector<8xf16>, global>
!WS = !spio.tensor<[part: 6, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>

func.func @unknown_part(%x: !X, %dy: !DY, %ws: !WS) {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'parts' [copies, copies_without_row_halo, mma]}}
  spio.conv2d_gw8 wgrad %x, %dy into %ws parts reduce {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !WS
  return
}

// -----

// expected-error @below {{conv2d_gw8_config stages must be 0 (choose) or positive, got -2}}
func.func private @f() attributes {c = #spio.conv2d_gw8_config<warps = [1, 8], rows = 8, stages = -2>}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c: 3] x f16, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

func.func @group_width_three(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{group_width must be 1, 2, 4 or 8, got 3}}
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, group_width = 3, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

func.func @depthwise_vector_weights(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{w of group width 1 must hold 'f16', a group's channels a row, got 'vector<8xf16>'}}
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, group_width = 1, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
  return
}
