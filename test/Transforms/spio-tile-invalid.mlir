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
