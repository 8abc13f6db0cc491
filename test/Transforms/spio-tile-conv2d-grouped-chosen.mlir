// A grouped spio.conv2d without a config takes the family's chooser's, for
// the pass's chip: the same tiled kernels as spio-jit's workloads of the
// same layers (a depthwise 7x7 fprop, and wgrad into dw, its blocks adding
// their sums in a cluster).
// RUN: spio-opt %s -split-input-file --spio-tile > %t.chosen
// RUN: spio-jit --workload conv2d --groups 96 --channels 96 --batch 2 --height 14 --width 14 -r 7 -s 7 --pad-h 3 --pad-w 3 --emit-spio > %t.fprop
// RUN: echo "//" "-----" > %t.split
// RUN: spio-jit --workload conv2d --groups 96 --channels 96 --batch 2 --height 14 --width 14 -r 7 -s 7 --pad-h 3 --pad-w 3 --pass wgrad --wgrad-cluster-reduce --emit-spio > %t.wgrad
// RUN: cat %t.fprop %t.split %t.wgrad | spio-opt -split-input-file --spio-tile > %t.jit
// RUN: diff %t.chosen %t.jit
// RUN: FileCheck %s --input-file %t.chosen

// CHECK-LABEL: gpu.func @conv2d_gw8_fprop
// CHECK-SAME: known_block_size
// CHECK-NOT: spio.conv2d
// CHECK: spio.mma
// CHECK-LABEL: gpu.func @conv2d_gw8_wgrad
// CHECK-NOT: spio.conv2d
// CHECK: spio.mma

!X = !spio.tensor<[n: 2, h: 14, w: 14, c/8: 12] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 96, r: 7, s: 7, c: 1] x bf16, global>
!Bias = !spio.tensor<[k: 96] x bf16, global>
!Y = !spio.tensor<[n: 2, p: 14, q: 14, k: 96] x bf16, global>
module attributes {gpu.container_module} {
  gpu.module @spio_conv {
    gpu.func @conv2d_gw8_fprop(%x: !X, %w: !W, %b: !Bias, %y: !Y) kernel {
      spio.conv2d %x, %w into %y {stride = array<i64: 1, 1>, padding = array<i64: 3, 3>,
          dilation = array<i64: 1, 1>, groups = 96} : !X, !W -> !Y
      gpu.return
    }
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 14, w: 14, c/8: 12] x vector<8xbf16>, global>
!DY = !spio.tensor<[n: 2, p: 14, q: 14, k/8: 12] x vector<8xbf16>, global>
!DW = !spio.tensor<[k: 96, r: 7, s: 7, c: 1] x bf16, global>
module attributes {gpu.container_module} {
  gpu.module @spio_conv {
    gpu.func @conv2d_gw8_wgrad(%x: !X, %dy: !DY, %dw: !DW) kernel {
      spio.conv2d wgrad %x, %dy into %dw {stride = array<i64: 1, 1>, padding = array<i64: 3, 3>,
          dilation = array<i64: 1, 1>, groups = 96} : !X, !DY -> !DW
      gpu.return
    }
  }
}
