// RUN: spio-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{an im2col map joins a global tensor and a shared box, got shared and shared}}
func.func private @spaces(!spio.im2col_map<!spio.tensor<[n: 1, h: 8, w: 8, c/8: 8] x vector<8xbf16>, shared>, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>)

// -----

// expected-error @below {{an im2col map's global tensor is a dense [images, rows, columns, channels/8] tensor of 16-byte vectors}}
func.func private @not_nhwc(!spio.im2col_map<!spio.tensor<[h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>)

// -----

// expected-error @below {{an im2col map's box is 1 to 256 rows of 8 vectors (128 bytes) in the 128-byte swizzle}}
func.func private @unswizzled(!spio.im2col_map<!spio.tensor<[n: 1, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared>>)

// -----

// expected-error @below {{an im2col map holds vector<8xf16> or vector<8xbf16>, got 'vector<4xf32>'}}
func.func private @element(!spio.im2col_map<!spio.tensor<[n: 1, h: 8, w: 8, c/4: 16] x vector<4xf32>, global>, !spio.tensor<[npq: 128, rsc/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>>)

// -----

!XMap = !spio.im2col_map<!spio.tensor<[n: 1, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @copy_destination(%map: !XMap, %i: index) {
  %tile = spio.alloc : !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
  %bars = spio.barrier_alloc : !spio.barriers<1>
  // expected-error @below {{'spio.tma_load_im2col' op the destination's coordinates must select a tile of the box's type}}
  spio.tma_load_im2col %map[%i, %i, %i, %i] offsets [%i, %i], %tile[], %bars[%i]
      : !XMap, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>, !spio.barriers<1>
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @output_size(%x: !X, %w: !W, %y: !spio.tensor<[n: 2, p: 8, q: 7, k: 64] x bf16, global>, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{y has 7 columns, but the convolution gives 8}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !spio.tensor<[n: 2, p: 8, q: 7, k: 64] x bf16, global> tma !XMap, !WMap
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 4] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 36] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @channels(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{w's last entry must be x's channels 'c/8: 8', got 'c/8: 4'}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @mma_sync_with_maps(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{on the mma.sync kernel (wgmma = false) gathers x and w with cp.async: it takes no tensor maps}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [2, 2], stages = 4>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
func.func @mma_sync_block_k(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{on the mma.sync kernel (wgmma = false) takes groups = 1 and a config whose block K is 64, got groups = 1 and #spio.gemm_config<block = [128, 64, 32], warps = [2, 2], stages = 4>}}
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 32], warps = [2, 2], stages = 4>}
      : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 16] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 128, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 128] x bf16, global>
func.func @mma_sync_grouped(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{on the mma.sync kernel (wgmma = false) takes groups = 1}}
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 2,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [2, 2], stages = 4>}
      : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!DW = !spio.tensor<[k: 64, r: 3, s: 3, c: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 128, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @mma_sync_wgrad_with_maps(%x: !X, %dy: !DY, %dw: !DW, %xm: !XMap, %dym: !DYMap) {
  // expected-error @below {{on the mma.sync kernel (wgmma = false) gathers x and w with cp.async: it takes no tensor maps}}
  spio.conv2d wgrad %x, %dy into %dw tma %xm, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [64, 64, 64], warps = [2, 2], stages = 4>}
      : !X, !DY -> !DW tma !XMap, !DYMap
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @stream_k(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{a tile's reduction in one block: its config needs no swap and no stream_k}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, stream_k = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @bias_without_step(%x: !X, %w: !W, %y: !Y, %b: !spio.tensor<[k: 64] x f32, global>, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{takes a bias only with a 'bias' epilogue step}}
  spio.conv2d %x, %w into %y bias %b tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y bias !spio.tensor<[k: 64] x f32, global> tma !XMap, !WMap
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @map_rows(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{x's im2col map must read x in boxes of the config's 128 rows}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 64] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @weight_map(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{w's tensor map must read w as a 64 x 576 matrix in boxes of 64 rows}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @dilation(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{dilation must be two positive values [dH, dW]}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 0, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @huge_dilation(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{padding and the dilated filter span at most 2^40 positions}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 4611686018427387904>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 2, h: 8, w: 8, c: 64] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[rsk: 64, c/8: 72] x vector<8xbf16>, global>, !spio.tensor<[rsk: 64, c/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @dgrad_epilogue(%dy: !DY, %w: !W, %dx: !DX, %b: !spio.tensor<[c: 64] x bf16, global>, %m: !DYMap, %wm: !WMap) {
  // expected-error @below {{computes dgrad without an epilogue}}
  spio.conv2d dgrad %dy, %w into %dx bias %b tma %m, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, epilogue = #spio.epilogue<bias>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !DX bias !spio.tensor<[c: 64] x bf16, global> tma !DYMap, !WMap
  return
}

// -----

!DY = !spio.tensor<[n: 2, p: 6, q: 8, k/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 2, h: 8, w: 8, c: 64] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[rsk: 64, c/8: 72] x vector<8xbf16>, global>, !spio.tensor<[rsk: 64, c/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @dgrad_size(%dy: !DY, %w: !W, %dx: !DX, %m: !DYMap, %wm: !WMap) {
  // expected-error @below {{dy has 6 rows, but the convolution of dx gives 8}}
  spio.conv2d dgrad %dy, %w into %dx tma %m, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !DX tma !DYMap, !WMap
  return
}

// -----

// wgrad writes dw [k, r, s, c], not a forward output.
!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 128, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @wgrad_into_an_output(%x: !X, %dy: !DY, %y: !Y, %m: !XMap, %dym: !DYMap) {
  // expected-error @below {{dw be [dy's channels, r, s, x's channels]}}
  spio.conv2d wgrad %x, %dy into %y tma %m, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [64, 64, 64], warps = [4, 1], stages = 4, wgmma = true>}
      : !X, !DY -> !Y tma !XMap, !DYMap
  return
}

// -----

// wgrad's dy is the convolution's output: 8 x 8 here, not 4 x 4.
!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 2, p: 4, q: 4, k/8: 8] x vector<8xbf16>, global>
!DW = !spio.tensor<[k: 64, r: 3, s: 3, c: 64] x f32, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 32, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @wgrad_wrong_dy(%x: !X, %dy: !DY, %dw: !DW, %m: !XMap, %dym: !DYMap) {
  // expected-error @below {{dy has 4 rows, but the convolution gives 8}}
  spio.conv2d wgrad %x, %dy into %dw tma %m, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [64, 64, 64], warps = [4, 1], stages = 4, wgmma = true>}
      : !X, !DY -> !DW tma !XMap, !DYMap
  return
}

// -----

// wgrad's dy map reads all N * P * Q = 128 positions.
!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!DW = !spio.tensor<[k: 64, r: 3, s: 3, c: 64] x f32, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @wgrad_short_dy_map(%x: !X, %dy: !DY, %dw: !DW, %m: !XMap, %dym: !DYMap) {
  // expected-error @below {{dy's tensor map must read dy as a 128 x 64 matrix in boxes of 64 rows}}
  spio.conv2d wgrad %x, %dy into %dw tma %m, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [64, 64, 64], warps = [4, 1], stages = 4, wgmma = true>}
      : !X, !DY -> !DW tma !XMap, !DYMap
  return
}

// -----

// wgrad reads x through a tensor map only where it is a matrix (1x1 at
// stride 1, no padding): a 3x3 filter gathers it through an im2col map.
!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!DW = !spio.tensor<[k: 64, r: 3, s: 3, c: 64] x f32, global>
!XMap = !spio.tensor_map<!spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 128, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @wgrad_matrix_of_3x3(%x: !X, %dy: !DY, %dw: !DW, %m: !XMap, %dym: !DYMap) {
  // expected-error @below {{reads x through a tensor map as a matrix where the filter is 1x1 at stride 1 with no padding and one group, else through an im2col map}}
  spio.conv2d wgrad %x, %dy into %dw tma %m, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [64, 64, 64], warps = [4, 1], stages = 4, wgmma = true>}
      : !X, !DY -> !DW tma !XMap, !DYMap
  return
}

// -----

// A 1x1 wgrad at stride 1 without padding reads x as a matrix, not
// through an im2col map.
!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!DW = !spio.tensor<[k: 64, r: 1, s: 1, c: 64] x f32, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 128, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @wgrad_pointwise_im2col(%x: !X, %dy: !DY, %dw: !DW, %m: !XMap, %dym: !DYMap) {
  // expected-error @below {{else through an im2col map, got '!spio.im2col_map}}
  spio.conv2d wgrad %x, %dy into %dw tma %m, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [64, 64, 64], warps = [4, 1], stages = 4, wgmma = true>}
      : !X, !DY -> !DW tma !XMap, !DYMap
  return
}

// -----

// The matrix's rows are x's N * H * W = 128 positions.
!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!DW = !spio.tensor<[k: 64, r: 1, s: 1, c: 64] x f32, global>
!XMap = !spio.tensor_map<!spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 128, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @wgrad_short_matrix(%x: !X, %dy: !DY, %dw: !DW, %m: !XMap, %dym: !DYMap) {
  // expected-error @below {{x's tensor map must read x as a 128 x 64 matrix in boxes of 64 rows}}
  spio.conv2d wgrad %x, %dy into %dw tma %m, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [64, 64, 64], warps = [4, 1], stages = 4, wgmma = true>}
      : !X, !DY -> !DW tma !XMap, !DYMap
  return
}

// -----

// The forward gathers x through an im2col map, never a tensor map.
!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 1, s: 1, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>
!XMap = !spio.tensor_map<!spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @fprop_matrix(%x: !X, %w: !W, %y: !Y, %m: !XMap, %wm: !WMap) {
  // expected-error @below {{gathers x's tiles through an im2col map, got}}
  spio.conv2d %x, %w into %y tma %m, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [64, 64, 64], warps = [4, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

// The im2col copies of wgrad's x are not multicast.
!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!DW = !spio.tensor<[k: 64, r: 3, s: 3, c: 64] x f32, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 128, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @wgrad_cluster(%x: !X, %dy: !DY, %dw: !DW, %m: !XMap, %dym: !DYMap) {
  // expected-error @below {{its config needs no swap, cluster 1 and no stream_k}}
  spio.conv2d wgrad %x, %dy into %dw tma %m, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [64, 128, 64], warps = [4, 1], stages = 4, wgmma = true, persistent = 132, cluster = 2>}
      : !X, !DY -> !DW tma !XMap, !DYMap
  return
}

// -----

!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 2, h: 8, w: 8, c: 64] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[c: 64, rsk/8: 72] x vector<8xbf16>, global>, !spio.tensor<[c: 64, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

// dgrad reads w's K rows N-major: the forward's map (reducing along its
// columns) is refused.
func.func @dgrad_forward_map(%dy: !DY, %w: !W, %dx: !DX, %m: !DYMap, %wm: !WMap) {
  // expected-error @below {{w's tensor map must read w as a 64 x 576 matrix in boxes of 64 rows, reducing along its rows}}
  spio.conv2d dgrad %dy, %w into %dx tma %m, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !DX tma !DYMap, !WMap
  return
}

// -----

!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 2, h: 8, w: 8, c: 32] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[rsk: 64, c/8: 72] x vector<8xbf16>, global>, !spio.tensor<[rsk: 64, c/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

// dx has 32 channels, w 64.
func.func @dgrad_channels(%dy: !DY, %w: !W, %dx: !DX, %m: !DYMap, %wm: !WMap) {
  // expected-error @below {{w's last entry must be dx's channels 'c/8: 4', got 'c/8: 8'}}
  spio.conv2d dgrad %dy, %w into %dx tma %m, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !DX tma !DYMap, !WMap
  return
}

// -----

// wgrad's parts hold f32 sums.
!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!Parts = !spio.tensor<[part: 2, k: 64, r: 3, s: 3, c: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 128, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @wgrad_parts_not_f32(%x: !X, %dy: !DY, %parts: !Parts, %m: !XMap, %dym: !DYMap) {
  // expected-error @below {{wgrad's parts must be a dense global [part, k, r, s, c] f32 tensor}}
  spio.conv2d wgrad %x, %dy into %parts tma %m, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [64, 64, 64], warps = [4, 1], stages = 4, wgmma = true>}
      : !X, !DY -> !Parts tma !XMap, !DYMap
  return
}

// -----

!DY = !spio.tensor<[n: 2, p: 4, q: 4, k/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 2, h: 8, w: 8, c: 64] x bf16, global>
!PX = !spio.tensor<[n: 2:4096, h: 4:1024, w: 4:128, c: 64] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[rsk: 64, c/8: 72] x vector<8xbf16>, global>, !spio.tensor<[rsk: 64, c/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

// A strided dgrad computes one phase of dx.
func.func @dgrad_strided_without_phase(%dy: !DY, %w: !W, %dx: !DX, %m: !DYMap, %wm: !WMap) {
  // expected-error @below {{computes one phase of a strided dgrad: phase = [a, b] with 0 <= a < 2 and 0 <= b < 2}}
  spio.conv2d dgrad %dy, %w into %dx tma %m, %wm {stride = array<i64: 2, 2>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !DX tma !DYMap, !WMap
  return
}

// The phase's dx is its strided view, not dx.
func.func @dgrad_phase_of_dense_dx(%dy: !DY, %w: !W, %dx: !DX, %m: !DYMap, %wm: !WMap) {
  // expected-error @below {{dx (y) must be phase [0, 1] of dx: [n: N : H*W*C, h: ceil((H - 0) / 2) : 2*W*C, w: ceil((W - 1) / 2) : 2*C, c: C] in global memory}}
  spio.conv2d dgrad %dy, %w into %dx tma %m, %wm {stride = array<i64: 2, 2>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, phase = array<i64: 0, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !DX tma !DYMap, !WMap
  return
}

func.func @dgrad_phase_out_of_range(%dy: !DY, %w: !W, %dx: !PX, %m: !DYMap, %wm: !WMap) {
  // expected-error @below {{computes one phase of a strided dgrad}}
  spio.conv2d dgrad %dy, %w into %dx tma %m, %wm {stride = array<i64: 2, 2>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, phase = array<i64: 2, 0>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !PX tma !DYMap, !WMap
  return
}

func.func @fprop_phase(%x: !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>, %w: !W, %y: !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global>, %m: !spio.im2col_map<!spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>, %wm: !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>) {
  // expected-error @below {{takes a phase only in dgrad}}
  spio.conv2d %x, %w into %y tma %m, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, phase = array<i64: 0, 0>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>, !W -> !spio.tensor<[n: 2, p: 8, q: 8, k: 64] x bf16, global> tma !spio.im2col_map<!spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>, !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
  return
}

// -----

// 1x1 at stride 2: dx's odd rows are read by no tap (zero, no kernel's).
!DY = !spio.tensor<[n: 2, p: 4, q: 4, k/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 1, s: 1, c/8: 8] x vector<8xbf16>, global>
!PX = !spio.tensor<[n: 2:4096, h: 4:1024, w: 4:128, c: 64] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[rsk: 64, c/8: 8] x vector<8xbf16>, global>, !spio.tensor<[rsk: 64, c/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @dgrad_phase_without_taps(%dy: !DY, %w: !W, %dx: !PX, %m: !DYMap, %wm: !WMap) {
  // expected-error @below {{phase [1, 0] is read by no tap: it is zero, computed by no conv2d}}
  spio.conv2d dgrad %dy, %w into %dx tma %m, %wm {stride = array<i64: 2, 2>,
      padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, phase = array<i64: 1, 0>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !PX tma !DYMap, !WMap
  return
}

// -----

!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 2, h: 8, w: 8, c: 64] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[rsk: 64, c/8: 72] x vector<8xbf16>, global>, !spio.tensor<[rsk: 64, c/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

// At stride 1 every position of dx is phase [0, 0].
func.func @dgrad_stride1_phase(%dy: !DY, %w: !W, %dx: !DX, %m: !DYMap, %wm: !WMap) {
  // expected-error @below {{at stride 1 dx is one phase, [0, 0]}}
  spio.conv2d dgrad %dy, %w into %dx tma %m, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, phase = array<i64: 1, 0>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !DX tma !DYMap, !WMap
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 128, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 128] x bf16, global>
func.func @dense_without_maps(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{'spio.conv2d' op a dense conv2d (groups = 1) on the wgmma kernel reads x and w through tensor maps: it needs `tma %xMap, %wMap`}}
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 128, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 128] x bf16, global>
func.func @dense_grouped_config(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{'spio.conv2d' op a dense conv2d (groups = 1) runs on the GEMM kernel: its config must be a #spio.gemm_config, got #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}}
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
      : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 1] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 64] x bf16, global>
func.func @groups_zero(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{'spio.conv2d' op groups must be positive, got 0}}
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 0, config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
      : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 1] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 64] x bf16, global>
func.func @grouped_gemm_config(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{'spio.conv2d' op a grouped conv2d on the implicit GEMM (a #spio.gemm_config) on the wgmma kernel reads x and w through tensor maps: it needs `tma %xMap, %wMap`}}
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 8,
      config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y
  return
}

// -----

// wgrad of groups of 8 channels on the implicit GEMM computes dw' of each
// group's rows and each tap's channels padded to 64 (the reduce kernel
// takes dw from it), not dw.
!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 8, p: 56, q: 56, k/8: 8] x vector<8xbf16>, global>
!DW = !spio.tensor<[k: 64, r: 3, s: 3, c: 8] x f32, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 25088, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @unpadded_wgrad_of_narrow_groups(%x: !X, %dy: !DY, %dw: !DW, %xm: !XMap, %dym: !DYMap) {
  // expected-error @below {{'spio.conv2d' op dy must lead with x's images and dw be [dy's channels of each group padded to 64, r, s, x's channels of a group padded to 64] = [512, r, s, 64], got}}
  spio.conv2d wgrad %x, %dy into %dw tma %xm, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 8,
      config = #spio.gemm_config<block = [64, 64, 64], warps = [4, 1], stages = 4, wgmma = true>}
      : !X, !DY -> !DW tma !XMap, !DYMap
  return
}

// -----

// dgrad of groups of 48 channels reads w transposed ([c, r, s, k'], each
// tap's 48 outputs padded to 64), not as KRSC.
!DY = !spio.tensor<[n: 8, p: 28, q: 28, k/8: 54] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 432, r: 3, s: 3, c/8: 6] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 8, h: 28, w: 28, c: 432] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[rsk: 432, c/8: 54] x vector<8xbf16>, global>, !spio.tensor<[rsk: 64, c/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @padded_dgrad_weights_not_transposed(%dy: !DY, %w: !W, %dx: !DX, %dym: !DYMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op dgrad of groups not of a multiple of 64 channels reads w transposed, each tap's K / G channels padded to a multiple of 64: w must be [c: 432, r, s, k/8: 8]}}
  spio.conv2d dgrad %dy, %w into %dx tma %dym, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 9,
      config = #spio.gemm_config<block = [128, 48, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !DX tma !DYMap, !WMap
  return
}

// -----

// The forward's groups are of a multiple of 8 channels (16-byte vectors):
// 12 are not.
!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 12] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 96, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 96] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 96, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 24, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @groups_of_twelve(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op a grouped conv2d on the implicit GEMM (a #spio.gemm_config) takes groups of a multiple of 8 input and output channels, got groups = 8 of 96 inputs and 96 outputs}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 8,
      config = #spio.gemm_config<block = [128, 24, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

// Groups of 48 channels: w holds each tap's 48 padded to 64, not 48.
!X = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 54] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 432, r: 3, s: 3, c/8: 6] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 28, q: 28, k: 432] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 432, rsc/8: 54] x vector<8xbf16>, global>, !spio.tensor<[k: 48, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @unpadded_group_weights(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op w's last entry must be x's channels of a group (padded to a multiple of 64) 'c/8: 8', got 'c/8: 6'}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 9,
      config = #spio.gemm_config<block = [128, 48, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

// A tile's columns are one group's output channels (128 a group here).
!X = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 32] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 256, r: 3, s: 3, c/8: 16] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 28, q: 28, k: 256] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 256, rsc/8: 144] x vector<8xbf16>, global>, !spio.tensor<[k: 256, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @tile_across_groups(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op a grouped conv2d's tiles take one group's columns: the config's 256 columns must divide the group's 128 output channels}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 2,
      config = #spio.gemm_config<block = [128, 256, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

// w holds a group's channels: 128 of x's 256 in 2 groups.
!X = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 32] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 256, r: 3, s: 3, c/8: 32] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 28, q: 28, k: 256] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 256, rsc/8: 288] x vector<8xbf16>, global>, !spio.tensor<[k: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @weights_of_every_channel(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op w's last entry must be x's channels of a group (padded to a multiple of 64) 'c/8: 16', got 'c/8: 32'}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 2,
      config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

// wgrad's tile rows are one group's output channels (64 a group here).
!X = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 32] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 8, p: 28, q: 28, k/8: 32] x vector<8xbf16>, global>
!DW = !spio.tensor<[k: 256, r: 3, s: 3, c: 64] x f32, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!DYMap = !spio.tensor_map<!spio.tensor<[npq: 6272, k/8: 32] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @wgrad_tile_across_groups(%x: !X, %dy: !DY, %dw: !DW, %xm: !XMap, %dym: !DYMap) {
  // expected-error @below {{'spio.conv2d' op a grouped conv2d's tiles take one group's rows: the config's 128 rows must divide the group's 64 output channels}}
  spio.conv2d wgrad %x, %dy into %dw tma %xm, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4,
      config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !DY -> !DW tma !XMap, !DYMap
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 1] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 64] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 64, rsc/8: 9] x vector<8xbf16>, global>, !spio.tensor<[k: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @grouped_maps(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op a grouped conv2d (groups > 1) reads no tensor maps}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 8, config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 1] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 64] x bf16, global>
func.func @grouped_residual(%x: !X, %w: !W, %y: !Y, %c: !Y) {
  // expected-error @below {{'spio.conv2d' op a grouped conv2d (groups > 1) takes no residual, scale or phase}}
  spio.conv2d %x, %w into %y residual %c {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 8, epilogue = #spio.epilogue<residual>,
      config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
      : !X, !W -> !Y residual !Y
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 1] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 54, q: 54, k: 64] x bf16, global>
func.func @grouped_dilated(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{'spio.conv2d' op a grouped conv2d (groups > 1) takes equal strides and dilation 1, got stride [1, 1] and dilation [2, 2]}}
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 2, 2>, groups = 8, config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
      : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 1] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 64] x bf16, global>
func.func @grouped_activation(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{'spio.conv2d' op a grouped conv2d (groups > 1) adds at most a bias: epilogue = #spio.epilogue<bias> with a bias operand, or neither}}
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 8, epilogue = #spio.epilogue<relu>,
      config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
      : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c: 16] x bf16, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 64] x bf16, global>
func.func @groups_of_16(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{'spio.conv2d' op groups must split the 64 channels into groups of 1, 2, 4 or 8, got groups = 4}}
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 4, config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
      : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 8, p: 56, q: 56, k/8: 8] x vector<8xbf16>, global>
!WS = !spio.tensor<[part: 6, k: 64, r: 3, sc/8: 4, sc: 8] x f32, global>
func.func @grouped_wgrad_partials(%x: !X, %dy: !DY, %ws: !WS) {
  // expected-error @below {{'spio.conv2d' op a grouped conv2d's wgrad writes dw [k, r, s, c] (the family's partial sums are spio.conv2d_gw8's), got '!spio.tensor<[part: 6, k: 64, r: 3, sc/8: 4, sc: 8] x f32, global>'}}
  spio.conv2d wgrad %x, %dy into %ws {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 8, config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
      : !X, !DY -> !WS
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 9, s: 9, c/8: 1] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 64] x bf16, global>
func.func @grouped_kernel_9x9(%x: !X, %w: !W, %y: !Y) {
  // expected-error @below {{'spio.conv2d' op kernel must be two sizes [R, S] from 1 to 7}}
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 4, 4>,
      dilation = array<i64: 1, 1>, groups = 8, config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
      : !X, !W -> !Y
  return
}

// -----

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 128, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 128] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 128, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @dense_without_config(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op a dense conv2d (groups = 1) takes its #spio.gemm_config: its tensor maps' boxes are the config's tile}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>} : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

// A stride past a tensor's extent is refused before any size arithmetic
// (2^62 overflowed a strided dgrad's phase checks).
!DY = !spio.tensor<[n: 2, p: 8, q: 8, k/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 2, h: 8, w: 8, c: 64] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[rsk: 64, c/8: 72] x vector<8xbf16>, global>, !spio.tensor<[rsk: 64, c/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @huge_stride(%dy: !DY, %w: !W, %dx: !DX, %m: !DYMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op stride must be two values [sH, sW] from 1 to 2^40}}
  spio.conv2d dgrad %dy, %w into %dx tma %m, %wm {stride = array<i64: 4611686018427387904, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, phase = array<i64: 1, 0>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !DX tma !DYMap, !WMap
  return
}

// -----

// A bias along anything but y's channels: the message names them alone
// (it read a GEMM's columns entry past them, found by spio-fuzz).
!X = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 16] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 128, r: 3, s: 3, c/8: 16] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 28, q: 28, k: 128] x bf16, global>
!V = !spio.tensor<[relu: 128] x f32, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 128, rsc/8: 144] x vector<8xbf16>, global>, !spio.tensor<[k: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @bias_along_other(%x: !X, %w: !W, %y: !Y, %shift: !V, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op bias must run along y's channels ('k'), got 'relu'}}
  spio.conv2d %x, %w into %y bias %shift tma %xm, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, epilogue = #spio.epilogue<bias>,
      config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y bias !V tma !XMap, !WMap
  return
}

// -----

// y's channels are w's rows: 432 outputs, not w's 216.
!X = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 54] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 216, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 28, q: 28, k: 432] x bf16, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 216, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 48, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @outputs_not_w_rows(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op y must end with w's output channels 'k: 216'}}
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 9,
      config = #spio.gemm_config<block = [128, 48, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// -----

// dgrad's transposed w pads each tap's 48 outputs to 64, not 96.
!DY = !spio.tensor<[n: 2, p: 14, q: 14, k/8: 54] x vector<8xbf16>, global>
!W = !spio.tensor<[c: 432, r: 3, s: 3, k/8: 12] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 2, h: 14, w: 14, c: 432] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[c: 432, rsk/8: 108] x vector<8xbf16>, global>, !spio.tensor<[c: 48, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @transposed_weights_overpadded(%dy: !DY, %w: !W, %dx: !DX, %dym: !DYMap, %wm: !WMap) {
  // expected-error @below {{'spio.conv2d' op dgrad of groups not of a multiple of 64 channels reads w transposed, each tap's K / G channels padded to a multiple of 64: w must be [c: 432, r, s, k/8: 8]}}
  spio.conv2d dgrad %dy, %w into %dx tma %dym, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 9,
      config = #spio.gemm_config<block = [128, 48, 64], warps = [8, 1], stages = 8, wgmma = true>}
      : !DY, !W -> !DX tma !DYMap, !WMap
  return
}
