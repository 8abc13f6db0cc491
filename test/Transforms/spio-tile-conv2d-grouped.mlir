// RUN: spio-opt %s -split-input-file --spio-tile | FileCheck %s
// A grouped spio.conv2d tiles into exactly the code of the spio.conv2d_gw8
// of its group width:
// RUN: spio-opt %s -split-input-file --spio-tile > %t.grouped
// RUN: spio-opt %S/Inputs/conv2d-gw8-of-grouped.mlir -split-input-file --spio-tile > %t.gw8
// RUN: diff %t.grouped %t.gw8

// groups = C / 8 with a bias: the width-8 kernel's fprop.
!X = !spio.tensor<[n: 2, h: 20, w: 48, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Bias = !spio.tensor<[k: 32] x f16, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 48, k: 32] x f16, global>
// CHECK-LABEL: gpu.func @fprop
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-NOT: spio.conv2d
// CHECK: spio.mma
// CHECK: gpu.return
gpu.module @m {
  gpu.func @fprop(%x: !X, %w: !W, %b: !Bias, %y: !Y) kernel {
    spio.conv2d %x, %w into %y bias %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
        dilation = array<i64: 1, 1>, groups = 4, epilogue = #spio.epilogue<bias>,
        config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
        : !X, !W -> !Y bias !Bias
    gpu.return
  }
}

// -----

// Depthwise (groups = C) 7 x 7, ConvNeXt's: one scalar weight a channel
// and tap, staged as block-diagonal 8 x 8 matrices.
!X = !spio.tensor<[n: 2, h: 14, w: 14, c/8: 12] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 96, r: 7, s: 7, c: 1] x bf16, global>
!Y = !spio.tensor<[n: 2, p: 14, q: 14, k: 96] x bf16, global>
// CHECK-LABEL: gpu.func @depthwise
// CHECK-NOT: spio.conv2d
// CHECK: spio.mma
gpu.module @m {
  gpu.func @depthwise(%x: !X, %w: !W, %y: !Y) kernel {
    spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 3, 3>,
        dilation = array<i64: 1, 1>, groups = 96,
        config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 8>}
        : !X, !W -> !Y
    gpu.return
  }
}

// -----

// dgrad of groups of 4 channels at stride 2.
!DY = !spio.tensor<[n: 2, h: 10, w: 10, k/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c: 4] x f16, global>
!DX = !spio.tensor<[n: 2, p: 20, q: 20, c: 32] x f16, global>
// CHECK-LABEL: gpu.func @dgrad
// CHECK-NOT: spio.conv2d
// CHECK: spio.mma
gpu.module @m {
  gpu.func @dgrad(%dy: !DY, %w: !W, %dx: !DX) kernel {
    spio.conv2d dgrad %dy, %w into %dx {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>,
        dilation = array<i64: 1, 1>, groups = 8,
        config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 8>}
        : !DY, !W -> !DX
    gpu.return
  }
}

// -----

// wgrad into dw, its blocks adding their sums in a cluster.
!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 20, k/8: 4] x vector<8xf16>, global>
!DW = !spio.tensor<[k: 32, r: 3, s: 3, c: 8] x f32, global>
// CHECK-LABEL: gpu.func @wgrad
// CHECK-NOT: spio.conv2d
// CHECK: spio.mma
gpu.module @m {
  gpu.func @wgrad(%x: !X, %dy: !DY, %dw: !DW) kernel {
    spio.conv2d wgrad %x, %dy into %dw {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
        dilation = array<i64: 1, 1>, groups = 4,
        config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
        : !X, !DY -> !DW
    gpu.return
  }
}
