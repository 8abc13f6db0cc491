// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

!SA = !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[k/64: 2, j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n128, f32, [i, j]>

// A batch of wgmma: fence, two k16 steps into one accumulator, commit, wait;
// then one of its C fragments.
// CHECK-LABEL: func.func @wgmma
func.func @wgmma(%a: !SA, %b: !SB, %wg: !spio.coord<i/64>) -> !spio.fragment<C, m16n8k16, f32, [i, j]> {
  %zero = arith.constant 0.0 : f32
  // CHECK: spio.warpgroup_fill %{{.*}} : !spio.warpgroup_acc<m64n128, f32, [i, j]>
  %acc = spio.warpgroup_fill %zero : !Acc
  %k0 = spio.constant 0 : !spio.coord<k/16>
  %k1 = spio.constant 1 : !spio.coord<k/16>
  // CHECK: spio.fence_proxy_async
  spio.fence_proxy_async
  // CHECK: spio.wgmma_fence
  spio.wgmma_fence
  // CHECK: spio.wgmma %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} : !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<i/64>, !spio.coord<k/16>], !spio.tensor<[k/64: 2, j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<k/16>], !spio.warpgroup_acc<m64n128, f32, [i, j]>
  %d0 = spio.wgmma %a[%wg, %k0], %b[%k0], %acc : !SA[!spio.coord<i/64>, !spio.coord<k/16>], !SB[!spio.coord<k/16>], !Acc
  %d1 = spio.wgmma %a[%wg, %k1], %b[%k1], %d0 : !SA[!spio.coord<i/64>, !spio.coord<k/16>], !SB[!spio.coord<k/16>], !Acc
  // CHECK: spio.wgmma_commit
  spio.wgmma_commit
  // CHECK: spio.wgmma_wait 0
  spio.wgmma_wait 0
  // CHECK: spio.warpgroup_fragment %{{.*}}[15] : !spio.warpgroup_acc<m64n128, f32, [i, j]> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  %c = spio.warpgroup_fragment %d1[15] : !Acc -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  return %c : !spio.fragment<C, m16n8k16, f32, [i, j]>
}

// MN-major operands: an M-major A (vectors along i, steps of k 128 bytes
// apart) and an N-major B in two blocks of 64 columns.
// CHECK-LABEL: func.func @mn_major
// CHECK: spio.wgmma %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} : !spio.tensor<[k: 64, i/8: 8] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<k/16>], !spio.tensor<[j/64: 2, k: 64, j/8: 8] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<k/16>], !spio.warpgroup_acc<m64n128, f32, [i, j]>
func.func @mn_major(%a: !spio.tensor<[k: 64, i/8: 8] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>,
                    %b: !spio.tensor<[j/64: 2, k: 64, j/8: 8] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>,
                    %acc: !Acc) -> !Acc {
  %k1 = spio.constant 1 : !spio.coord<k/16>
  %d = spio.wgmma %a[%k1], %b[%k1], %acc : !spio.tensor<[k: 64, i/8: 8] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<k/16>], !spio.tensor<[j/64: 2, k: 64, j/8: 8] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<k/16>], !Acc
  return %d : !Acc
}

// `overwrite`: A * B into the accumulator's registers, its values not read.
// CHECK-LABEL: func.func @overwrite
// CHECK: spio.wgmma %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} overwrite :
func.func @overwrite(%a: !SA, %b: !SB, %wg: !spio.coord<i/64>, %done: !Acc) -> !Acc {
  %k0 = spio.constant 0 : !spio.coord<k/16>
  %d = spio.wgmma %a[%wg, %k0], %b[%k0], %done overwrite : !SA[!spio.coord<i/64>, !spio.coord<k/16>], !SB[!spio.coord<k/16>], !Acc
  return %d : !Acc
}

// f32 (TF32) operands: K-major tiles of vector<4xf32>, the reduction in
// steps of 8.
// CHECK-LABEL: func.func @tf32
// CHECK: spio.wgmma %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} : !spio.tensor<[i: 128, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<i/64>, !spio.coord<k/8>], !spio.tensor<[j: 128, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<k/8>], !spio.warpgroup_acc<m64n128, f32, [i, j]>
func.func @tf32(%a: !spio.tensor<[i: 128, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>,
                %b: !spio.tensor<[j: 128, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>,
                %wg: !spio.coord<i/64>, %acc: !Acc) -> !Acc {
  %k3 = spio.constant 3 : !spio.coord<k/8>
  %d = spio.wgmma %a[%wg, %k3], %b[%k3], %acc : !spio.tensor<[i: 128, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<i/64>, !spio.coord<k/8>], !spio.tensor<[j: 128, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<k/8>], !Acc
  return %d : !Acc
}

// The narrowest and widest accumulators.
// CHECK-LABEL: func.func @shapes
// CHECK-SAME: !spio.warpgroup_acc<m64n8, f32, [m, n]>
// CHECK-SAME: !spio.warpgroup_acc<m64n256, f32, [m, n]>
func.func @shapes(%a: !spio.warpgroup_acc<m64n8, f32, [m, n]>,
                  %b: !spio.warpgroup_acc<m64n256, f32, [m, n]>) {
  return
}
