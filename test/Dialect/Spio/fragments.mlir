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

// A gather: each lane names the row it addresses.
// CHECK-LABEL: func.func @ldmatrix_gather
func.func @ldmatrix_gather(%a: !SmemA, %row: !spio.coord<i>) -> !FragA {
  // CHECK: %[[R:.*]] = spio.ldmatrix_row : !spio.fragment<A, m16n8k16, f16, [i, k]> -> !spio.coord<i>
  %r = spio.ldmatrix_row : !FragA -> !spio.coord<i>
  // CHECK: spio.ldmatrix %{{.*}}[] gather(%[[R]] : !spio.coord<i>) : !spio.tensor<[i: 64, k/8: 2] x vector<8xf16>, shared> -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  %0 = spio.ldmatrix %a[] gather(%r : !spio.coord<i>) : !SmemA -> !FragA
  return %0 : !FragA
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

// An m16n8k8 step into an m16n8k16 sum: both accumulators are one layout.
// CHECK-LABEL: func.func @mma_k8_into_k16_sum
func.func @mma_k8_into_k16_sum(%a: !spio.fragment<A, m16n8k8, f16, [i, k]>,
                               %b: !spio.fragment<B, m16n8k8, f16, [k, j]>,
                               %c: !FragC) -> !FragC {
  // CHECK: spio.mma {{.*}} : !spio.fragment<A, m16n8k8, f16, [i, k]>, !spio.fragment<B, m16n8k8, f16, [k, j]>, !spio.fragment<C, m16n8k16, f32, [i, j]>
  %d = spio.mma %a, %b, %c : !spio.fragment<A, m16n8k8, f16, [i, k]>, !spio.fragment<B, m16n8k8, f16, [k, j]>, !FragC
  return %d : !FragC
}

!Out = !spio.tensor<[i: 100, j: 60] x bf16, global>

// Epilogue: D = alpha * acc + beta * C on a ragged 100 x 60 output.
// CHECK-LABEL: func.func @epilogue
func.func @epilogue(%acc: !FragC, %out: !Out, %i0: !spio.coord<i>, %j0: !spio.coord<j>,
                    %alpha: vector<4xf32>, %beta: vector<4xf32>) {
  %m = spio.constant 100 : !spio.coord<i>
  %n = spio.constant 60 : !spio.coord<j>
  // CHECK: %[[C:.*]] = spio.load_fragment %{{.*}}[%{{.*}}, %{{.*}}] bounds %{{.*}}, %{{.*}} : !spio.tensor<[i: 100, j: 60] x bf16, global>[!spio.coord<i>, !spio.coord<j>] bounds !spio.coord<i>, !spio.coord<j> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  %c = spio.load_fragment %out[%i0, %j0] bounds %m, %n : !Out[!spio.coord<i>, !spio.coord<j>] bounds !spio.coord<i>, !spio.coord<j> -> !FragC
  // CHECK: spio.fragment_to_vector %[[C]] : !spio.fragment<C, m16n8k16, f32, [i, j]> -> vector<4xf32>
  %cv = spio.fragment_to_vector %c : !FragC -> vector<4xf32>
  %av = spio.fragment_to_vector %acc : !FragC -> vector<4xf32>
  %x = arith.mulf %alpha, %av : vector<4xf32>
  %y = arith.mulf %beta, %cv : vector<4xf32>
  %d = arith.addf %x, %y : vector<4xf32>
  // CHECK: %[[D:.*]] = spio.vector_to_fragment %{{.*}} : vector<4xf32> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  %df = spio.vector_to_fragment %d : vector<4xf32> -> !FragC
  // CHECK: spio.store_fragment %[[D]], %{{.*}}[%{{.*}}, %{{.*}}] bounds %{{.*}}, %{{.*}} : !spio.fragment<C, m16n8k16, f32, [i, j]>, !spio.tensor<[i: 100, j: 60] x bf16, global>[!spio.coord<i>, !spio.coord<j>] bounds !spio.coord<i>, !spio.coord<j>
  spio.store_fragment %df, %out[%i0, %j0] bounds %m, %n : !FragC, !Out[!spio.coord<i>, !spio.coord<j>] bounds !spio.coord<i>, !spio.coord<j>
  // CHECK: spio.store_fragment %[[D]], %{{.*}}[] : !spio.fragment<C, m16n8k16, f32, [i, j]>, !spio.tensor<[i: 100, j: 60] x bf16, global>{{$}}
  spio.store_fragment %df, %out[] : !FragC, !Out
  return
}
