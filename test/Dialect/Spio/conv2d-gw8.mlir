// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Bias = !spio.tensor<[k: 32] x f16, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

// CHECK-LABEL: func.func @fprop
// CHECK: spio.conv2d_gw8 fprop %{{.*}}, %{{.*}} bias %{{.*}} into %{{.*}} {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1 : i64} : !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>, !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>, !spio.tensor<[k: 32] x f16, global> -> !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>
// CHECK: spio.conv2d_gw8 fprop %{{.*}}, %{{.*}} into %{{.*}} {{.*}} : {{.*}}, !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global> -> !spio.tensor
func.func @fprop(%x: !X, %w: !W, %b: !Bias, %y: !Y) {
  spio.conv2d_gw8 fprop %x, %w bias %b into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1 : i64} : !X, !W, !Bias -> !Y
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1 : i64} : !X, !W -> !Y
  return
}

// Copy warps: the streamed bands' kernel (keys in any order print as
// chunks, then copy_warps).
// CHECK-LABEL: func.func @fprop_copy_warps
// CHECK: config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 20, chunks = 3, copy_warps = 2>
func.func @fprop_copy_warps(%x: !X, %w: !W, %y: !Y) {
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 20, copy_warps = 2, chunks = 3>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1 : i64} : !X, !W -> !Y
  return
}

// CHECK-LABEL: func.func @dgrad
// CHECK: spio.conv2d_gw8 dgrad
func.func @dgrad(%dy: !spio.tensor<[n: 2, h: 18, w: 18, k/8: 4] x vector<8xbf16>, global>,
                 %w: !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xbf16>, global>,
                 %dx: !spio.tensor<[n: 2, p: 20, q: 20, c: 32] x bf16, global>) {
  spio.conv2d_gw8 dgrad %dy, %w into %dx {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, stride = 1 : i64} : !spio.tensor<[n: 2, h: 18, w: 18, k/8: 4] x vector<8xbf16>, global>, !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xbf16>, global> -> !spio.tensor<[n: 2, p: 20, q: 20, c: 32] x bf16, global>
  return
}

// CHECK-LABEL: func.func @wgrad
// CHECK: spio.conv2d_gw8 wgrad {{.*}} {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 3>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2 : i64}
func.func @wgrad(%x: !X, %dy: !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global>,
                 %ws: !spio.tensor<[part: 6, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>) {
  spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 3>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2} : !X, !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global> -> !spio.tensor<[part: 6, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>
  return
}

// Depthwise: a group's one channel a weight row; the default width 8 is
// not printed.
// CHECK-LABEL: func.func @depthwise
// CHECK: spio.conv2d_gw8 fprop {{.*}} group_width = 1 : i64{{.*}} : {{.*}}, !spio.tensor<[k: 32, r: 3, s: 3, c: 1] x f16, global> -> !spio.tensor
// CHECK: spio.conv2d_gw8 dgrad {{.*}} group_width = 4 : i64{{.*}} : {{.*}}, !spio.tensor<[k: 32, r: 3, s: 3, c: 4] x f16, global> -> !spio.tensor
func.func @depthwise(%x: !X, %w: !spio.tensor<[k: 32, r: 3, s: 3, c: 1] x f16, global>, %y: !Y,
                     %w4: !spio.tensor<[k: 32, r: 3, s: 3, c: 4] x f16, global>) {
  spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, group_width = 1, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !spio.tensor<[k: 32, r: 3, s: 3, c: 1] x f16, global> -> !Y
  spio.conv2d_gw8 dgrad %x, %w4 into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, group_width = 4, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !spio.tensor<[k: 32, r: 3, s: 3, c: 4] x f16, global> -> !Y
  return
}

// A row ring in 3 stages: the flag prints last.
// CHECK-LABEL: func.func @wgrad_row_ring
// CHECK: config = #spio.conv2d_gw8_config<warps = [1, 8], rows = 8, chunks = 3, multiprocessors = 114, stages = 3, row_ring>
func.func @wgrad_row_ring(%x: !X, %dy: !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global>,
                          %ws: !spio.tensor<[part: 3, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>) {
  spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [1, 8], rows = 8, row_ring, stages = 3, chunks = 3, multiprocessors = 114>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global> -> !spio.tensor<[part: 3, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>
  return
}

// One part of wgrad's band loop alone, for timing it.
// CHECK-LABEL: func.func @wgrad_copies_alone
// CHECK: spio.conv2d_gw8 wgrad %{{.*}}, %{{.*}} into %{{.*}} parts copies_without_row_halo {config
func.func @wgrad_copies_alone(%x: !X, %dy: !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global>,
                              %ws: !spio.tensor<[part: 6, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>) {
  spio.conv2d_gw8 wgrad %x, %dy into %ws parts copies_without_row_halo {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 3>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2} : !X, !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global> -> !spio.tensor<[part: 6, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>
  return
}

// wgrad into dw itself, as f32 (its blocks add their sums in a cluster).
// CHECK-LABEL: func.func @wgrad_into_dw
// CHECK: spio.conv2d_gw8 wgrad %{{.*}}, %{{.*}} into %{{.*}} {{.*}} -> !spio.tensor<[k: 32, r: 3, s: 3, c: 8] x f32, global>
func.func @wgrad_into_dw(%x: !X, %dy: !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global>,
                         %dw: !spio.tensor<[k: 32, r: 3, s: 3, c: 8] x f32, global>) {
  spio.conv2d_gw8 wgrad %x, %dy into %dw {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 3>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2} : !X, !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global> -> !spio.tensor<[k: 32, r: 3, s: 3, c: 8] x f32, global>
  return
}

// A GPU of 114 multiprocessors: the attribute keeps the count (0, the
// default, spio-tile's chip's reference part's, is not printed).
// CHECK-LABEL: func.func @wgrad_114
// CHECK: config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, multiprocessors = 114>
// CHECK-LABEL: func.func @wgrad_0
// CHECK: config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>,
func.func @wgrad_114(%x: !X, %dy: !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global>,
                     %ws: !spio.tensor<[part: 4, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>) {
  spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, multiprocessors = 114>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2} : !X, !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global> -> !spio.tensor<[part: 4, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>
  return
}
func.func @wgrad_0(%x: !X, %dy: !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global>,
                     %ws: !spio.tensor<[part: 4, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>) {
  spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, multiprocessors = 0>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2} : !X, !spio.tensor<[n: 2, p: 10, q: 10, k/8: 4] x vector<8xf16>, global> -> !spio.tensor<[part: 4, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>
  return
}
