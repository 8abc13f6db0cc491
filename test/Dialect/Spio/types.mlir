// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s
// RUN: spio-opt %s --emit-bytecode | spio-opt | FileCheck %s

// CHECK-LABEL: func.func private @coords
// CHECK-SAME: !spio.coord<i>, !spio.coord<k/8>, !spio.coord<block_i/128>
func.func private @coords(!spio.coord<i>, !spio.coord<k/8>, !spio.coord<block_i/128>)

// Strides default to row major and print only where they differ from it.
// CHECK-LABEL: func.func private @tensors
// CHECK-SAME: !spio.tensor<[i: 64, k: 32] x f16, global>
// CHECK-SAME: !spio.tensor<[i: 64:1, k: 32:64] x f16, global>
// CHECK-SAME: !spio.tensor<[k/16: 4, i: 128, k/8: 2] x vector<8xf16>, shared>
// CHECK-SAME: !spio.tensor<[i: 16:40, k/8: 4] x vector<8xbf16>, shared>
// CHECK-SAME: !spio.tensor<[n: 2, h: 8, w: 8, c: 16] x f32, global>
func.func private @tensors(
  !spio.tensor<[i: 64, k: 32] x f16, global>,
  !spio.tensor<[i: 64:1, k: 32:64] x f16, global>,
  !spio.tensor<[k/16: 4, i: 128, k/8: 2] x vector<8xf16>, shared>,
  !spio.tensor<[i: 16:40, k/8: 4:1] x vector<8xbf16>, shared>,
  !spio.tensor<[n: 2, h: 8, w: 8, c: 16] x f32, global>)

// CHECK-LABEL: func.func private @swizzled
// CHECK-SAME: !spio.tensor<[i: 16, c: 2] x vector<8xf16>, shared, #spio.checkerboard<8>>
// CHECK-SAME: !spio.tensor<[i: 64, k/8: 8] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>
func.func private @swizzled(
  !spio.tensor<[i: 16, c: 2] x vector<8xf16>, shared, #spio.checkerboard<8>>,
  !spio.tensor<[i: 64, k/8: 8] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>)

// CHECK-LABEL: func.func private @fragments
// CHECK-SAME: !spio.fragment<A, m16n8k16, f16, [i, k]>
// CHECK-SAME: !spio.fragment<B, m16n8k16, bf16, [k, j]>
// CHECK-SAME: !spio.fragment<C, m16n8k8, f32, [i, j]>
// CHECK-SAME: !spio.tensor<[i/16: 2, j/8: 4] x !spio.fragment<C, m16n8k16, f32, [i, j]>, register>
func.func private @fragments(
  !spio.fragment<A, m16n8k16, f16, [i, k]>,
  !spio.fragment<B, m16n8k16, bf16, [k, j]>,
  !spio.fragment<C, m16n8k8, f32, [i, j]>,
  !spio.tensor<[i/16: 2, j/8: 4] x !spio.fragment<C, m16n8k16, f32, [i, j]>, register>)
