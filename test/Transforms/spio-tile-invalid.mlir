// RUN: spio-opt %s -split-input-file --spio-tile -verify-diagnostics

!A = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 32, k/8: 8] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 64, j: 32] x bf16, global>

func.func @not_a_kernel(%a: !A, %b: !B, %d: !D, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op must be inside a gpu.func kernel to be tiled}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [64, 32, 32], warps = [2, 2], stages = 2>} : !A, !B -> !D
  return
}

// -----

!A = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 32, k/8: 8] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 64, j: 32] x bf16, global>

gpu.module @m {
  gpu.func @bad_tile(%a: !A, %b: !B, %d: !D, %alpha: f32) kernel {
    // expected-error @below {{'spio.gemm' op tile 48x32x32 does not divide into the warps' mma tiles}}
    spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [48, 32, 32], warps = [1, 1], stages = 2>} : !A, !B -> !D
    gpu.return
  }
}

// -----

!A = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 32, k/8: 8] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 64, j: 32] x bf16, global>

gpu.module @m {
  gpu.func @block_size(%a: !A, %b: !B, %d: !D, %alpha: f32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @below {{'spio.gemm' op needs 128 threads per block, but the kernel's known block size differs}}
    spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [64, 32, 32], warps = [2, 2], stages = 2>} : !A, !B -> !D
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 18, q: 18, k: 32] x f16, global>

// The output of a 3 x 3 convolution padded by 1 is 20 x 20, not 18 x 18.
gpu.module @m {
  gpu.func @conv_wrong_output(%x: !X, %w: !W, %y: !Y) kernel {
    // expected-error @below {{'spio.conv2d_gw8' op y must be '!spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>' for this problem, got '!spio.tensor<[n: 2, p: 18, q: 18, k: 32] x f16, global>'}}
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c: 1] x f16, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

// Groups of 2 channels hold 2 weights a row, not 1.
gpu.module @m {
  gpu.func @conv_narrow_weights(%x: !X, %w: !W, %y: !Y) kernel {
    // expected-error @below {{'spio.conv2d_gw8' op w must be '!spio.tensor<[k: 32, r: 3, s: 3, c: 2] x f16, global>' for this problem, got '!spio.tensor<[k: 32, r: 3, s: 3, c: 1] x f16, global>'}}
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, group_width = 2, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 5, s: 5, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

// The weights' taps disagree with the op's kernel size.
gpu.module @m {
  gpu.func @conv_wrong_weights(%x: !X, %w: !W, %y: !Y) kernel {
    // expected-error @below {{w must be '!spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>' for this problem}}
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 20, k/8: 4] x vector<8xf16>, global>
!WS = !spio.tensor<[part: 5, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>

// Three chunks make 3 partial sums (one a block, whatever its warps), not 5.
gpu.module @m {
  gpu.func @wgrad_wrong_partials(%x: !X, %dy: !DY, %ws: !WS) kernel {
    // expected-error @below {{the partial sums must be '!spio.tensor<[part: 3, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>' for this problem}}
    spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 3>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !WS
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!B = !spio.tensor<[k: 16] x f16, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

// A bias of 16 values for 32 output channels.
gpu.module @m {
  gpu.func @conv_wrong_bias(%x: !X, %w: !W, %b: !B, %y: !Y) kernel {
    // expected-error @below {{'spio.conv2d_gw8' op bias must be '!spio.tensor<[k: 32] x f16, global>' for this problem, got '!spio.tensor<[k: 16] x f16, global>'}}
    spio.conv2d_gw8 fprop %x, %w bias %b into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W, !B -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 20, k/8: 4] x vector<8xf16>, global>
!DW = !spio.tensor<[k: 32, r: 3, s: 5, c: 8] x f16, global>

// wgrad whose cluster adds the sums writes dw of the op's 3 x 3 kernel.
gpu.module @m {
  gpu.func @wgrad_wrong_dw(%x: !X, %dy: !DY, %dw: !DW) kernel {
    // expected-error @below {{'spio.conv2d_gw8' op dw must be '!spio.tensor<[k: 32, r: 3, s: 3, c: 8] x f16, global>' for this problem, got '!spio.tensor<[k: 32, r: 3, s: 5, c: 8] x f16, global>'}}
    spio.conv2d_gw8 wgrad %x, %dy into %dw {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !DW
    gpu.return
  }
}

// -----

!DY = !spio.tensor<[n: 2, h: 9, w: 9, k/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!DX = !spio.tensor<[n: 2, p: 20, q: 20, c: 32] x f16, global>

// With stride 2, dx of 20 x 20 comes from dy of 10 x 10.
gpu.module @m {
  gpu.func @dgrad_stride2(%dy: !DY, %w: !W, %dx: !DX) kernel {
    // expected-error @below {{dy must be '!spio.tensor<[n: 2, h: 10, w: 10, k/8: 4] x vector<8xf16>, global>' for this problem}}
    spio.conv2d_gw8 dgrad %dy, %w into %dx {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2} : !DY, !W -> !DX
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

gpu.module @m {
  gpu.func @conv_block_size(%x: !X, %w: !W, %y: !Y) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    // expected-error @below {{needs 256 threads per block, but the kernel's known block size differs}}
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

gpu.module @m {
  gpu.func @conv_bad_warps(%x: !X, %w: !W, %y: !Y) kernel {
    // expected-error @below {{warps along groups must be 1 to 9}}
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [1, 10], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

// Any padding verifies; spio-tile's problem check bounds it at 2^30.
gpu.module @m {
  gpu.func @conv_padding_past_the_bound(%x: !X, %w: !W, %y: !Y) kernel {
    // expected-error @below {{padding must be 0 to 2^30, got 5000000000, 1}}
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 5000000000, 1>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 21, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 11, q: 10, k: 32] x f16, global>

// A block's rows are unrolled: more than the output's 11 are refused
// before they are built (4096 took seconds to tile).
gpu.module @m {
  gpu.func @conv_too_many_rows(%x: !X, %w: !W, %y: !Y) kernel {
    // expected-error @below {{'spio.conv2d_gw8' op a block takes at most the output's 11 rows, got 4096}}
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 4096>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 18, q: 18, k: 32] x f16, global>

// A grouped spio.conv2d is tiled as the spio.conv2d_gw8 of its group
// width, whose checks report at the op.
gpu.module @m {
  gpu.func @grouped_wrong_output(%x: !X, %w: !W, %y: !Y) kernel {
    // expected-error @below {{'spio.conv2d_gw8' op y must be '!spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>' for this problem, got '!spio.tensor<[n: 2, p: 18, q: 18, k: 32] x f16, global>'}}
    spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
        dilation = array<i64: 1, 1>, groups = 4,
        config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>}
        : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c: 1] x f16, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 20, k: 32] x f16, global>

// A grouped spio.conv2d without a config: a problem the family refuses is
// reported at the op before any config is chosen.
gpu.module @m {
  gpu.func @grouped_unchosen(%x: !X, %w: !W, %y: !Y) kernel {
    // expected-error @below {{'spio.conv2d' op padding must be 0 to 2^30, got 2147483648, 1}}
    spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 2147483648, 1>,
        dilation = array<i64: 1, 1>, groups = 32} : !X, !W -> !Y
    gpu.return
  }
}
