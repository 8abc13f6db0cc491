// RUN: spio-opt %s --convert-spio-to-gpu | FileCheck %s
// RUN: spio-opt %s --convert-spio-to-gpu=dependent-grids=false | FileCheck %s --check-prefix=NONE

// sm_90 and later: griddepcontrol. Before (dependent-grids=false, which
// spio-to-ptx sets for those chips) nothing: a stream's grids already run
// one after the other.
// CHECK-LABEL: gpu.func @partial_sums
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-LABEL: gpu.func @reduce
// CHECK-NEXT: nvvm.griddepcontrol wait
// NONE-LABEL: gpu.func @partial_sums
// NONE-NEXT: gpu.return
// NONE-LABEL: gpu.func @reduce
// NONE-NEXT: gpu.return
// NONE-NOT: griddepcontrol
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
