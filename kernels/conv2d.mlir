// A dense 3x3 convolution (ResNet's 28x28, 128 -> 128 channels, batch 8,
// stride 1, padding 1) with a folded batch norm and a ReLU as a spio
// workload: the kernel body is one spio.conv2d on typed NHWC and KRSC
// tensors. spio-tile expands it into the wgmma GEMM kernel's implicit GEMM
// (TMA im2col copies of x, one filter tap's 64 channels a k-tile); the
// host encodes the two tensor maps.
//
//   spio-opt kernels/conv2d.mlir --spio-to-ptx=chip=sm_90a   # wgmma is sm_90a's
//   spio-jit kernels/conv2d.mlir --check   # on a Hopper GPU: run, check against float64

!X = !spio.tensor<[n: 8, h: 28, w: 28, c/8: 16] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 128, r: 3, s: 3, c/8: 16] x vector<8xbf16>, global>
!Y = !spio.tensor<[n: 8, p: 28, q: 28, k: 128] x bf16, global>
!V = !spio.tensor<[k: 128] x f32, global>
!XMap = !spio.im2col_map<!X, !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!WMap = !spio.tensor_map<!spio.tensor<[k: 128, rsc/8: 144] x vector<8xbf16>, global>, !spio.tensor<[k: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @conv_bn_relu(%x: !X, %w: !W, %y: !Y, %scale: !V, %shift: !V, %xm: !XMap, %wm: !WMap) kernel {
      spio.conv2d %x, %w into %y bias %shift scale %scale tma %xm, %wm {
          stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
          config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, pingpong = true>,
          epilogue = #spio.epilogue<scale, bias, relu>}
          : !X, !W -> !Y bias !V scale !V tma !XMap, !WMap
      gpu.return
    }
  }
}
