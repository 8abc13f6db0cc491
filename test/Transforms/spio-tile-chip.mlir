// RUN: spio-opt %s --spio-tile | FileCheck %s
// RUN: spio-opt %s --spio-tile=chip=sm_80 | FileCheck %s
// RUN: spio-opt %s --spio-tile=chip=sm_86 -verify-diagnostics
// RUN: not spio-opt %s --spio-tile=chip=sm_75 2>&1 | FileCheck %s --check-prefix=CHIP

// spio-tile checks a config against its chip's shared memory: 4 stages of
// 128 x 128 x 64 bf16 tiles take 128 KiB, which an sm_80 or sm_90 block
// may use and an sm_86 block (99 KiB) may not.

!A = !spio.tensor<[i: 256, k/8: 32] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 256, k/8: 32] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 256] x bf16, global>

// CHECK-LABEL: gpu.func @large_stages
// CHECK-NOT: spio.gemm
// CHECK: spio.mma
gpu.module @m {
  gpu.func @large_stages(%a: !A, %b: !B, %d: !D, %alpha: f32) kernel {
    // expected-error @below {{'spio.gemm' op 4 stages of 128x128x64 tiles need 131072 bytes of shared memory, over the 101376 a block of sm_86 may use: take fewer stages or a smaller tile}}
    spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 64], warps = [2, 2], stages = 4>} : !A, !B -> !D
    gpu.return
  }
}

// CHIP: error: unsupported target chip 'sm_75'
