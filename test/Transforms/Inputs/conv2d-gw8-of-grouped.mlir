// The spio.conv2d_gw8 ops that spio-tile-conv2d-grouped.mlir's grouped
// spio.conv2d ops are.

!X = !spio.tensor<[n: 2, h: 20, w: 48, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Bias = !spio.tensor<[k: 32] x f16, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 48, k: 32] x f16, global>
gpu.module @m {
  gpu.func @fprop(%x: !X, %w: !W, %b: !Bias, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w bias %b into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W, !Bias -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 14, w: 14, c/8: 12] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 96, r: 7, s: 7, c: 1] x bf16, global>
!Y = !spio.tensor<[n: 2, p: 14, q: 14, k: 96] x bf16, global>
gpu.module @m {
  gpu.func @depthwise(%x: !X, %w: !W, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 8>, group_width = 1, kernel = array<i64: 7, 7>, padding = array<i64: 3, 3>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!DY = !spio.tensor<[n: 2, h: 10, w: 10, k/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c: 4] x f16, global>
!DX = !spio.tensor<[n: 2, p: 20, q: 20, c: 32] x f16, global>
gpu.module @m {
  gpu.func @dgrad(%dy: !DY, %w: !W, %dx: !DX) kernel {
    spio.conv2d_gw8 dgrad %dy, %w into %dx {config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 8>, group_width = 4, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2} : !DY, !W -> !DX
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 20, k/8: 4] x vector<8xf16>, global>
!DW = !spio.tensor<[k: 32, r: 3, s: 3, c: 8] x f32, global>
gpu.module @m {
  gpu.func @wgrad(%x: !X, %dy: !DY, %dw: !DW) kernel {
    spio.conv2d_gw8 wgrad %x, %dy into %dw {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !DW
    gpu.return
  }
}
