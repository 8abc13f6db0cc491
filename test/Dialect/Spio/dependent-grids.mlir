// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

// A grid that lets its dependent start early, and the dependent that waits
// for its results before reading them.
// CHECK-LABEL: gpu.func @partial_sums
// CHECK-NEXT: spio.launch_dependents
// CHECK-LABEL: gpu.func @reduce
// CHECK-NEXT: spio.wait_prerequisites
gpu.module @kernels {
  gpu.func @partial_sums() kernel {
    spio.launch_dependents
    gpu.return
  }
  gpu.func @reduce() kernel {
    spio.wait_prerequisites
    gpu.return
  }
}
