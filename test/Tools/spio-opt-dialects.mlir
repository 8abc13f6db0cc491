// spio-opt knows the upstream dialects Spio's pipelines produce, next to spio.
// RUN: spio-opt %s | spio-opt | FileCheck %s

// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels {
  // CHECK: gpu.func @k
  gpu.func @k(%p: memref<128xf16>, %a: vector<4x2xf16>, %b: vector<2x2xf16>,
              %c: vector<2x2xf32>) kernel {
    %tid = gpu.thread_id x
    %lane = spio.linear_id lane
    %i = spio.from_index %lane : !spio.coord<i>
    // CHECK: nvgpu.mma.sync
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]}
        : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // CHECK: nvvm.barrier0
    nvvm.barrier0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: scf.for
    scf.for %iv = %c0 to %tid step %c1 {
      %v = memref.load %p[%iv] : memref<128xf16>
      memref.store %v, %p[%c0] : memref<128xf16>
    }
    // CHECK: llvm.mlir.constant
    %x = llvm.mlir.constant(1 : i32) : i32
    gpu.return
  }
}
