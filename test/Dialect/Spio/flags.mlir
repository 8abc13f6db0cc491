// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

// A block sets its flag once its partial sums are written; another waits
// for it before reading them.
// CHECK-LABEL: gpu.func @hand_on
// CHECK: spio.signal %{{.*}}, %arg0[%{{.*}}] : !spio.tensor<[sk: 132] x i32, global>[!spio.coord<sk>]
// CHECK: spio.wait_signal %{{.*}}, %arg0[%{{.*}}] : !spio.tensor<[sk: 132] x i32, global>[!spio.coord<sk>]
gpu.module @kernels {
  gpu.func @hand_on(%flags: !spio.tensor<[sk: 132] x i32, global>, %block: !spio.coord<sk>,
                    %before: !spio.coord<sk>) kernel {
    %set = arith.constant 1 : i32
    spio.signal %set, %flags[%block] : !spio.tensor<[sk: 132] x i32, global>[!spio.coord<sk>]
    spio.wait_signal %set, %flags[%before] : !spio.tensor<[sk: 132] x i32, global>[!spio.coord<sk>]
    gpu.return
  }
}
