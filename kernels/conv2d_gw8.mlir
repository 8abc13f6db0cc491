// The three passes of a grouped conv2d (8 channels a group) on a 56 x 56
// image with 64 channels, 3 x 3 taps, as spio workloads: each kernel's body
// is one spio.conv2d_gw8 on typed NHWC tensors. spio-tile expands it for
// its config and the rest of the pipeline lowers it to PTX:
//
//   spio-opt kernels/conv2d_gw8.mlir --spio-tile      # the tiled kernels
//   spio-jit kernels/conv2d_gw8.mlir                  # compile, load, report
//
// wgrad writes one block's f32 partial sums ([part, k, r, sc/8, sc], sc =
// 8 s + c, taps paired) for each of its 28 chunks of 2 bands (8 rows each),
// its 4 warps along q added in shared memory. spio-jit --workload
// conv2d-gw8 --pass wgrad adds the kernel that reduces them in a fixed
// order.
//
// The fourth kernel is a depthwise 7 x 7 convolution (ConvNeXt's) written
// as a grouped spio.conv2d (groups = C): spio-tile rewrites it into the
// spio.conv2d_gw8 of group width 1 and tiles that.

!X = !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 8, h: 56, w: 56, k/8: 8] x vector<8xf16>, global>
!DYW = !spio.tensor<[n: 8, p: 56, q: 56, k/8: 8] x vector<8xf16>, global>
!W = !spio.tensor<[k: 64, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Bias = !spio.tensor<[k: 64] x f16, global>
!Y = !spio.tensor<[n: 8, p: 56, q: 56, k: 64] x f16, global>
!DX = !spio.tensor<[n: 8, p: 56, q: 56, c: 64] x f16, global>
!Partials = !spio.tensor<[part: 28, k: 64, r: 3, sc/8: 4, sc: 8] x f32, global>
!DepthwiseX = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 24] x vector<8xbf16>, global>
!DepthwiseW = !spio.tensor<[k: 192, r: 7, s: 7, c: 1] x bf16, global>
!DepthwiseBias = !spio.tensor<[k: 192] x bf16, global>
!DepthwiseY = !spio.tensor<[n: 8, p: 28, q: 28, k: 192] x bf16, global>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fprop(%x: !X, %w: !W, %bias: !Bias, %y: !Y) kernel {
      spio.conv2d_gw8 fprop %x, %w bias %bias into %y {config = #spio.conv2d_gw8_config<warps = [4, 2], rows = 16>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W, !Bias -> !Y
      gpu.return
    }
    gpu.func @dgrad(%dy: !DY, %w: !W, %dx: !DX) kernel {
      spio.conv2d_gw8 dgrad %dy, %w into %dx {config = #spio.conv2d_gw8_config<warps = [4, 2], rows = 16>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !DY, !W -> !DX
      gpu.return
    }
    gpu.func @wgrad(%x: !X, %dy: !DYW, %partials: !Partials) kernel {
      spio.conv2d_gw8 wgrad %x, %dy into %partials {config = #spio.conv2d_gw8_config<warps = [4, 2], rows = 8, chunks = 28>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DYW -> !Partials
      gpu.return
    }
    gpu.func @depthwise(%x: !DepthwiseX, %w: !DepthwiseW, %bias: !DepthwiseBias, %y: !DepthwiseY) kernel {
      spio.conv2d %x, %w into %y bias %bias {stride = array<i64: 1, 1>, padding = array<i64: 3, 3>, dilation = array<i64: 1, 1>, groups = 192, epilogue = #spio.epilogue<bias>, config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 14>} : !DepthwiseX, !DepthwiseW -> !DepthwiseY bias !DepthwiseBias
      gpu.return
    }
  }
}
