// The kernel of docs/first-kernel.md: D[m, n] = A[m, r] @ B[r, n] in f16
// with an f32 output, B stored n-major (column major), 64 x 64 tiles.
!A = !spio.tensor<[m: 256, r/8: 32] x vector<8xf16>, global>
!B = !spio.tensor<[n: 128, r/8: 32] x vector<8xf16>, global>
!D = !spio.tensor<[m: 256, n: 128] x f32, global>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @gemm(%a: !A, %b: !B, %d: !D, %alpha: f32) kernel {
      spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [64, 64, 32], warps = [2, 2], stages = 3>} : !A, !B -> !D
      gpu.return
    }
  }
}
