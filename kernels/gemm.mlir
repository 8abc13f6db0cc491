// A 1000 x 1000 x 1024 bf16 GEMM as a spio workload: the kernel body is one
// spio.gemm on typed tensors. spio-tile expands it for its config,
// spio-pipeline builds the cp.async ring, and the rest of the pipeline
// lowers it to PTX:
//
//   spio-opt kernels/gemm.mlir --spio-to-ptx
//   spio-jit kernels/gemm.mlir            # compile, load, report resources

!A = !spio.tensor<[i: 1000, k/8: 128] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 1000, k/8: 128] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 1000, j: 1000] x f32, global>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @gemm(%a: !A, %b: !B, %d: !D, %alpha: f32) kernel {
      spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [64, 64, 64], warps = [2, 2], stages = 4>} : !A, !B -> !D
      gpu.return
    }
  }
}
