// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 128, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 128] x bf16, global>
!XBox = !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!XMap = !spio.im2col_map<!X, !XBox>
!WMap = !spio.tensor_map<!spio.tensor<[k: 128, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!Ring = !spio.tensor<[stage: 4, npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>

// A dense 3x3 convolution as the wgmma kernel's implicit GEMM.
// CHECK-LABEL: func.func @conv
// CHECK: spio.conv2d %{{.*}}, %{{.*}} into %{{.*}} tma %{{.*}}, %{{.*}} {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
// CHECK-SAME: tma !spio.im2col_map<
func.func @conv(%x: !X, %w: !W, %y: !Y, %xm: !XMap, %wm: !WMap) {
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !X, !W -> !Y tma !XMap, !WMap
  return
}

// The same convolution on the mma.sync kernel (sm_80 to sm_89), which
// gathers x and w itself: no tensor maps.
// CHECK-LABEL: func.func @conv_mma_sync
// CHECK: spio.conv2d %{{.*}}, %{{.*}} into %{{.*}} {config = #spio.gemm_config<block = [128, 128, 64], warps = [2, 2], stages = 4>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>, !spio.tensor<[k: 128, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global> -> !spio.tensor<[n: 8, p: 56, q: 56, k: 128] x bf16, global>{{$}}
func.func @conv_mma_sync(%x: !X, %w: !W, %y: !Y) {
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 128, 64], warps = [2, 2], stages = 4>}
      : !X, !W -> !Y
  return
}

// A strided, dilated convolution with a folded batch norm (scale, bias), a
// residual and an activation: y has 28 x 28 positions.
!Y2 = !spio.tensor<[n: 8, p: 27, q: 27, k: 128] x f32, global>
// CHECK-LABEL: func.func @conv_epilogue
// CHECK: spio.conv2d %{{[a-z0-9]+}}, %{{[a-z0-9]+}} into %{{[a-z0-9]+}} residual %{{[a-z0-9]+}} bias %{{[a-z0-9]+}} scale %{{[a-z0-9]+}} tma
// CHECK-SAME: epilogue = #spio.epilogue<scale, bias, residual, relu>
// CHECK-SAME: residual !spio.tensor<[n: 8, p: 27, q: 27, k: 128] x f32, global> bias !spio.tensor<[k: 128] x bf16, global> scale !spio.tensor<[k: 128] x f32, global>
func.func @conv_epilogue(%x: !X, %w: !W, %y: !Y2, %c: !Y2, %b: !spio.tensor<[k: 128] x bf16, global>,
                         %s: !spio.tensor<[k: 128] x f32, global>, %xm: !XMap, %wm: !WMap) {
  spio.conv2d %x, %w into %y residual %c bias %b scale %s tma %xm, %wm {stride = array<i64: 2, 2>,
      padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>,
      config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>,
      epilogue = #spio.epilogue<scale, bias, residual, relu>}
      : !X, !W -> !Y2 residual !Y2 bias !spio.tensor<[k: 128] x bf16, global>
        scale !spio.tensor<[k: 128] x f32, global> tma !XMap, !WMap
  return
}

// One thread copies a tile's output positions by one tap's channels.
// CHECK-LABEL: func.func @im2col_copy
// CHECK: spio.tma_load_im2col %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] offsets[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : !spio.im2col_map<
// CHECK-SAME: [!spio.coord<stage>], !spio.barriers<4>
func.func @im2col_copy(%map: !XMap, %n: index, %h: index, %w: index, %c: index, %r: index,
                       %s: index, %stage: !spio.coord<stage>, %slot: index) {
  %ring = spio.alloc : !Ring
  %full = spio.barrier_alloc : !spio.barriers<4>
  spio.tma_load_im2col %map[%n, %h, %w, %c] offsets [%r, %s], %ring[%stage], %full[%slot]
      : !XMap, !Ring [!spio.coord<stage>], !spio.barriers<4>
  return
}

// dgrad: dx from dy and w (the forward's stride, padding and dilation),
// dy gathered by the im2col map, w's K rows read in boxes of 64 rows by
// 64 input channels.
!DY = !spio.tensor<[n: 8, p: 56, q: 56, k/8: 16] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 8, h: 56, w: 56, c: 64] x bf16, global>
!DYMap = !spio.im2col_map<!DY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WTMap = !spio.tensor_map<!spio.tensor<[rsk: 128, c/8: 72] x vector<8xbf16>, global>, !spio.tensor<[rsk: 64, c/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
// CHECK-LABEL: func.func @dgrad
// CHECK: spio.conv2d dgrad %{{.*}}, %{{.*}} into %{{.*}} tma %{{.*}}, %{{.*}} {config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
func.func @dgrad(%dy: !DY, %w: !W, %dx: !DX, %dym: !DYMap, %wm: !WTMap) {
  spio.conv2d dgrad %dy, %w into %dx tma %dym, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !DY, !W -> !DX tma !DYMap, !WTMap
  return
}

// A strided dgrad's phase (1, 0): dx's odd rows and even columns, a
// strided view of dx [n: 8, h: 56, w: 56, c: 64] from its (1, 0).
!SDY = !spio.tensor<[n: 8, p: 28, q: 28, k/8: 16] x vector<8xbf16>, global>
!SDX = !spio.tensor<[n: 8:200704, h: 28:7168, w: 28:128, c: 64] x bf16, global>
!SDYMap = !spio.im2col_map<!SDY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
// CHECK-LABEL: func.func @dgrad_phase
// CHECK: spio.conv2d dgrad %{{.*}}, %{{.*}} into %{{.*}} tma %{{.*}}, %{{.*}} {config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, phase = array<i64: 1, 0>, stride = array<i64: 2, 2>}
// CHECK-SAME: -> !spio.tensor<[n: 8:200704, h: 28:7168, w: 28:128, c: 64] x bf16, global>
func.func @dgrad_phase(%dy: !SDY, %w: !W, %dx: !SDX, %dym: !SDYMap, %wm: !WTMap) {
  spio.conv2d dgrad %dy, %w into %dx tma %dym, %wm {stride = array<i64: 2, 2>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, phase = array<i64: 1, 0>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !SDY, !W -> !SDX tma !SDYMap, !WTMap
  return
}

// wgrad: dw from x and dy, dy read as positions x K (an M-major A) and x
// gathered by its im2col map in boxes of a k-tile's positions by one
// tap's 64 channels (an N-major B).
!WX = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 8] x vector<8xbf16>, global>
!WDY = !spio.tensor<[n: 8, p: 14, q: 14, k/8: 16] x vector<8xbf16>, global>
!WDW = !spio.tensor<[k: 128, r: 3, s: 3, c: 64] x f32, global>
!WXMap = !spio.im2col_map<!WX, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WDYMap = !spio.tensor_map<!spio.tensor<[npq: 1568, k/8: 16] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
// CHECK-LABEL: func.func @wgrad
// CHECK: spio.conv2d wgrad %{{.*}}, %{{.*}} into %{{.*}} tma %{{.*}}, %{{.*}} {config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true, split_k = 4>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : {{.*}} -> !spio.tensor<[k: 128, r: 3, s: 3, c: 64] x f32, global>
func.func @wgrad(%x: !WX, %dy: !WDY, %dw: !WDW, %xm: !WXMap, %dym: !WDYMap) {
  spio.conv2d wgrad %x, %dy into %dw tma %xm, %dym {stride = array<i64: 2, 2>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true, split_k = 4>}
      : !WX, !WDY -> !WDW tma !WXMap, !WDYMap
  return
}

// wgrad on the mma.sync kernel: no tensor maps.
// CHECK-LABEL: func.func @wgrad_mma_sync
// CHECK: spio.conv2d wgrad %{{.*}}, %{{.*}} into %{{.*}} {config = #spio.gemm_config<block = [128, 64, 64], warps = [2, 2], stages = 3>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : {{.*}} -> !spio.tensor<[k: 128, r: 3, s: 3, c: 64] x f32, global>{{$}}
func.func @wgrad_mma_sync(%x: !WX, %dy: !WDY, %dw: !WDW) {
  spio.conv2d wgrad %x, %dy into %dw {stride = array<i64: 2, 2>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [2, 2], stages = 3>}
      : !WX, !WDY -> !WDW
  return
}

// wgrad in parts: their f32 sums, [part, k, r, s, c].
!WParts = !spio.tensor<[part: 3, k: 128, r: 3, s: 3, c: 64] x f32, global>
// CHECK-LABEL: func.func @wgrad_parts
// CHECK: spio.conv2d wgrad {{.*}} -> !spio.tensor<[part: 3, k: 128, r: 3, s: 3, c: 64] x f32, global>
func.func @wgrad_parts(%x: !WX, %dy: !WDY, %dw: !WParts, %xm: !WXMap, %dym: !WDYMap) {
  spio.conv2d wgrad %x, %dy into %dw tma %xm, %dym {stride = array<i64: 2, 2>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !WX, !WDY -> !WParts tma !WXMap, !WDYMap
  return
}

// A 1x1 wgrad at stride 1 without padding: x is the matrix of positions by
// C, read through a tensor map in boxes of a k-tile's positions.
!MX = !spio.tensor<[n: 8, h: 14, w: 14, c/8: 8] x vector<8xbf16>, global>
!MDW = !spio.tensor<[k: 128, r: 1, s: 1, c: 64] x bf16, global>
!MXMap = !spio.tensor_map<!spio.tensor<[npq: 1568, rsc/8: 8] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
// CHECK-LABEL: func.func @wgrad_matrix
// CHECK: spio.conv2d wgrad {{.*}} tma !spio.tensor_map<!spio.tensor<[npq: 1568, rsc/8: 8] x vector<8xbf16>, global>
func.func @wgrad_matrix(%x: !MX, %dy: !WDY, %dw: !MDW, %xm: !MXMap, %dym: !WDYMap) {
  spio.conv2d wgrad %x, %dy into %dw tma %xm, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>,
      config = #spio.gemm_config<block = [128, 64, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !MX, !WDY -> !MDW tma !MXMap, !WDYMap
  return
}

// Grouped (groups > 1): the grouped family's config, no tensor maps.
!GX = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 12] x vector<8xf16>, global>
!GW = !spio.tensor<[k: 96, r: 7, s: 7, c: 1] x f16, global>
!GY = !spio.tensor<[n: 8, p: 56, q: 56, k: 96] x f16, global>
!GB = !spio.tensor<[k: 96] x f16, global>
!GDW = !spio.tensor<[k: 96, r: 7, s: 7, c: 1] x f32, global>
// CHECK-LABEL: func.func @grouped
// CHECK: spio.conv2d %{{[a-z0-9]+}}, %{{[a-z0-9]+}} into %{{[a-z0-9]+}} bias %{{[a-z0-9]+}} {config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 8>, dilation = array<i64: 1, 1>, epilogue = #spio.epilogue<bias>, groups = 96 : i64, padding = array<i64: 3, 3>, stride = array<i64: 1, 1>}
// CHECK-SAME: -> !spio.tensor<[n: 8, p: 56, q: 56, k: 96] x f16, global> bias !spio.tensor<[k: 96] x f16, global>{{$}}
// CHECK: spio.conv2d dgrad {{.*}} groups = 96 : i64
// CHECK: spio.conv2d wgrad {{.*}} groups = 96 : i64
// CHECK-SAME: -> !spio.tensor<[k: 96, r: 7, s: 7, c: 1] x f32, global>{{$}}
// Without a config (spio-tile takes the family's chooser's).
// CHECK: spio.conv2d %{{[a-z0-9]+}}, %{{[a-z0-9]+}} into %{{[a-z0-9]+}} {dilation = array<i64: 1, 1>, groups = 96 : i64, padding = array<i64: 3, 3>, stride = array<i64: 1, 1>} :
func.func @grouped(%x: !GX, %w: !GW, %b: !GB, %y: !GY, %dy: !GX, %dx: !GY, %dw: !GDW) {
  spio.conv2d %x, %w into %y bias %b {stride = array<i64: 1, 1>, padding = array<i64: 3, 3>,
      dilation = array<i64: 1, 1>, groups = 96, epilogue = #spio.epilogue<bias>,
      config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 8>}
      : !GX, !GW -> !GY bias !GB
  spio.conv2d dgrad %dy, %w into %dx {stride = array<i64: 1, 1>, padding = array<i64: 3, 3>,
      dilation = array<i64: 1, 1>, groups = 96,
      config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 8>}
      : !GX, !GW -> !GY
  spio.conv2d wgrad %x, %dy into %dw {stride = array<i64: 1, 1>, padding = array<i64: 3, 3>,
      dilation = array<i64: 1, 1>, groups = 96,
      config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 8>}
      : !GX, !GX -> !GDW
  spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 3, 3>,
      dilation = array<i64: 1, 1>, groups = 96} : !GX, !GW -> !GY
  return
}

// Grouped with a #spio.gemm_config: the implicit GEMM a group at a time,
// for groups of a multiple of 64 channels (here 2 of 128 inputs and 256
// outputs); w holds a group's channels, read as 512 x (3 * 3 * 128).
!WGX = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 32] x vector<8xbf16>, global>
!WGW = !spio.tensor<[k: 512, r: 3, s: 3, c/8: 16] x vector<8xbf16>, global>
!WGY = !spio.tensor<[n: 8, p: 28, q: 28, k: 512] x bf16, global>
!WGXMap = !spio.im2col_map<!WGX, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WGWMap = !spio.tensor_map<!spio.tensor<[k: 512, rsc/8: 144] x vector<8xbf16>, global>, !spio.tensor<[k: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
// CHECK-LABEL: func.func @wide_groups
// CHECK: spio.conv2d %{{.*}}, %{{.*}} into %{{.*}} tma %{{.*}}, %{{.*}} {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>, dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
// CHECK-SAME: !spio.tensor<[k: 512, r: 3, s: 3, c/8: 16] x vector<8xbf16>, global>
func.func @wide_groups(%x: !WGX, %w: !WGW, %y: !WGY, %xm: !WGXMap, %wm: !WGWMap) {
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 2,
      config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>}
      : !WGX, !WGW -> !WGY tma !WGXMap, !WGWMap
  return
}

// The forward of groups of 48 channels (RegNetX-3.2GF's 9 of 432): w holds
// each tap's 48 padded to 64, read as 432 x (3 * 3 * 64); tiles of 48
// columns, a group's outputs.
!PGX = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 54] x vector<8xbf16>, global>
!PGW = !spio.tensor<[k: 432, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
!PGY = !spio.tensor<[n: 8, p: 28, q: 28, k: 432] x bf16, global>
!PGXMap = !spio.im2col_map<!PGX, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!PGWMap = !spio.tensor_map<!spio.tensor<[k: 432, rsc/8: 72] x vector<8xbf16>, global>, !spio.tensor<[k: 48, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
// CHECK-LABEL: func.func @padded_groups
// CHECK: spio.conv2d %{{.*}}, %{{.*}} into %{{.*}} tma %{{.*}}, %{{.*}} {config = #spio.gemm_config<block = [128, 48, 64], warps = [8, 1], stages = 8, wgmma = true>, dilation = array<i64: 1, 1>, groups = 9 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}
// CHECK-SAME: !spio.tensor<[k: 432, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
func.func @padded_groups(%x: !PGX, %w: !PGW, %y: !PGY, %xm: !PGXMap, %wm: !PGWMap) {
  spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 9,
      config = #spio.gemm_config<block = [128, 48, 64], warps = [8, 1], stages = 8, wgmma = true>}
      : !PGX, !PGW -> !PGY tma !PGXMap, !PGWMap
  return
}

// dgrad of groups of 48 channels: w transposed, [c: 432, r, s, k/8] of
// each tap's 48 outputs of c's group padded to 64, read K-major as
// 432 x (3 * 3 * 64) in boxes of the tile's 48 dx channels.
!PDY = !spio.tensor<[n: 2, p: 14, q: 14, k/8: 54] x vector<8xbf16>, global>
!PDW = !spio.tensor<[c: 432, r: 3, s: 3, k/8: 8] x vector<8xbf16>, global>
!PDX = !spio.tensor<[n: 2, h: 14, w: 14, c: 432] x bf16, global>
!PDYMap = !spio.im2col_map<!PDY, !spio.tensor<[nhw: 128, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!PDWMap = !spio.tensor_map<!spio.tensor<[c: 432, rsk/8: 72] x vector<8xbf16>, global>, !spio.tensor<[c: 48, rsk/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
// CHECK-LABEL: func.func @padded_groups_dgrad
// CHECK: spio.conv2d dgrad %{{.*}}, %{{.*}} into %{{.*}} tma %{{.*}}, %{{.*}} {{{.*}}groups = 9 : i64
// CHECK-SAME: !spio.tensor<[c: 432, r: 3, s: 3, k/8: 8] x vector<8xbf16>, global>
func.func @padded_groups_dgrad(%dy: !PDY, %w: !PDW, %dx: !PDX, %dym: !PDYMap, %wm: !PDWMap) {
  spio.conv2d dgrad %dy, %w into %dx tma %dym, %wm {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 9,
      config = #spio.gemm_config<block = [128, 48, 64], warps = [8, 1], stages = 8, wgmma = true>}
      : !PDY, !PDW -> !PDX tma !PDYMap, !PDWMap
  return
}

// wgrad of groups of 48 channels: dw' [k: 9 * 64, r, s, c: 64], each
// group's 48 rows and each tap's 48 columns padded to 64.
!PWX = !spio.tensor<[n: 2, h: 14, w: 14, c/8: 54] x vector<8xbf16>, global>
!PWDY = !spio.tensor<[n: 2, p: 14, q: 14, k/8: 54] x vector<8xbf16>, global>
!PWDW = !spio.tensor<[k: 576, r: 3, s: 3, c: 64] x bf16, global>
!PWXMap = !spio.im2col_map<!PWX, !spio.tensor<[npq: 64, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!PWDYMap = !spio.tensor_map<!spio.tensor<[npq: 392, k/8: 54] x vector<8xbf16>, global>, !spio.tensor<[npq: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
// CHECK-LABEL: func.func @padded_groups_wgrad
// CHECK: spio.conv2d wgrad %{{.*}}, %{{.*}} into %{{.*}} tma %{{.*}}, %{{.*}} {{{.*}}groups = 9 : i64
// CHECK-SAME: -> !spio.tensor<[k: 576, r: 3, s: 3, c: 64] x bf16, global>
func.func @padded_groups_wgrad(%x: !PWX, %dy: !PWDY, %dw: !PWDW, %xm: !PWXMap, %dym: !PWDYMap) {
  spio.conv2d wgrad %x, %dy into %dw tma %xm, %dym {stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 9,
      config = #spio.gemm_config<block = [64, 128, 64], warps = [4, 1], stages = 8, wgmma = true>}
      : !PWX, !PWDY -> !PWDW tma !PWXMap, !PWDYMap
  return
}
