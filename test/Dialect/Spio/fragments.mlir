// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

!SmemA = !spio.tensor<[i: 64, k/8: 2] x vector<8xf16>, shared>
!SmemAT = !spio.tensor<[k: 16, i/8: 8] x vector<8xf16>, shared>
!SmemB = !spio.tensor<[j: 64, k/8: 2] x vector<8xf16>, shared, #spio.checkerboard<8>>
!FragA = !spio.fragment<A, m16n8k16, f16, [i, k]>
!FragB = !spio.fragment<B, m16n8k16, f16, [k, j]>
!FragC = !spio.fragment<C, m16n8k16, f32, [i, j]>

// CHECK-LABEL: func.func @ldmatrix
func.func @ldmatrix(%a: !SmemA, %at: !SmemAT, %b: !SmemB, %i: !spio.coord<i>, %j: !spio.coord<j>)
    -> (!FragA, !FragA, !FragB) {
  // CHECK: spio.ldmatrix %{{.*}}[%{{.*}}] : !spio.tensor<[i: 64, k/8: 2] x vector<8xf16>, shared>[!spio.coord<i>] -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  %0 = spio.ldmatrix %a[%i] : !SmemA[!spio.coord<i>] -> !FragA
  // Transposed: rows of the tensor run along k, vectors along i.
  // CHECK: spio.ldmatrix %{{.*}}[] transpose : !spio.tensor<[k: 16, i/8: 8] x vector<8xf16>, shared> -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  %1 = spio.ldmatrix %at[] transpose : !SmemAT -> !FragA
  // CHECK: spio.ldmatrix %{{.*}}[%{{.*}}] : !spio.tensor<[j: 64, k/8: 2] x vector<8xf16>, shared, #spio.checkerboard<8>>[!spio.coord<j>] -> !spio.fragment<B, m16n8k16, f16, [k, j]>
  %2 = spio.ldmatrix %b[%j] : !SmemB[!spio.coord<j>] -> !FragB
  return %0, %1, %2 : !FragA, !FragA, !FragB
}

// CHECK-LABEL: func.func @mma
func.func @mma(%a: !FragA, %b: !FragB) -> !FragC {
  // CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
  %zero = arith.constant 0.0 : f32
  // CHECK: %[[C:.*]] = spio.fill %[[Z]] : !spio.fragment<C, m16n8k16, f32, [i, j]>
  %c = spio.fill %zero : !FragC
  // CHECK: spio.mma %{{.*}}, %{{.*}}, %[[C]] : !spio.fragment<A, m16n8k16, f16, [i, k]>, !spio.fragment<B, m16n8k16, f16, [k, j]>, !spio.fragment<C, m16n8k16, f32, [i, j]>
  %d = spio.mma %a, %b, %c : !FragA, !FragB, !FragC
  return %d : !FragC
}

// CHECK-LABEL: func.func @mma_m16n8k8_bf16
func.func @mma_m16n8k8_bf16(%a: !spio.fragment<A, m16n8k8, bf16, [m, r]>,
                            %b: !spio.fragment<B, m16n8k8, bf16, [r, n]>,
                            %c: !spio.fragment<C, m16n8k8, f32, [m, n]>)
    -> !spio.fragment<C, m16n8k8, f32, [m, n]> {
  // CHECK: spio.mma {{.*}} : !spio.fragment<A, m16n8k8, bf16, [m, r]>, !spio.fragment<B, m16n8k8, bf16, [r, n]>, !spio.fragment<C, m16n8k8, f32, [m, n]>
  %d = spio.mma %a, %b, %c : !spio.fragment<A, m16n8k8, bf16, [m, r]>, !spio.fragment<B, m16n8k8, bf16, [r, n]>, !spio.fragment<C, m16n8k8, f32, [m, n]>
  return %d : !spio.fragment<C, m16n8k8, f32, [m, n]>
}
