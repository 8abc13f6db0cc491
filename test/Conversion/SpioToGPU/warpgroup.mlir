// RUN: spio-opt %s -split-input-file --convert-spio-to-gpu | FileCheck %s

!SA = !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!S = !spio.tensor<[i: 8, k/8: 2] x vector<8xbf16>, shared>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

// A wgmma's operands become shared-memory descriptors: the tile origin's
// address (bits 4-17) with the 128-byte swizzle's fixed fields; wgmma tiles
// start at multiples of 1024 bytes (A after a 256-byte tensor: 1024 + 16384
// + 8192 bytes); the accumulator is a vector of 32 f32 a thread, the
// instruction's struct, filled through an empty asm so that each register
// holds its own value before the first wgmma's fence.
// CHECK-LABEL: gpu.func @wgmma
// CHECK-SAME: spio.shared_memory_bytes = 25600 : i64
// CHECK: llvm.inline_asm "", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31" %{{.*}} : (f32, {{.*}}) -> !llvm.struct<(f32, {{.*}})>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK: %[[LOW:.*]] = arith.andi %[[ADDR]], %{{.*}} : i64
// CHECK: %[[SHIFTED:.*]] = arith.shrui %[[LOW]], %{{.*}} : i64
// CHECK: %[[DESC:.*]] = arith.ori %[[SHIFTED]], %{{.*}} : i64
// CHECK: nvvm.wgmma.mma_async %[[DESC]], %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [28], sizes = [4], strides = [1]} : vector<32xf32> to vector<4xf32>
gpu.module @m {
  gpu.func @wgmma(%out: !spio.tensor<[i: 16, j: 8] x f32, global>) kernel {
    %small = spio.alloc : !S
    %a = spio.alloc : !SA
    %b = spio.alloc : !SB
    %zero = arith.constant 0.0 : f32
    %acc = spio.warpgroup_fill %zero : !Acc
    %wg = spio.constant 1 : !spio.coord<i/64>
    %kk = spio.constant 2 : !spio.coord<k/16>
    spio.fence_proxy_async
    spio.wgmma_fence
    %d = spio.wgmma %a[%wg, %kk], %b[%kk], %acc : !SA[!spio.coord<i/64>, !spio.coord<k/16>], !SB[!spio.coord<k/16>], !Acc
    spio.wgmma_commit
    spio.wgmma_wait 0
    %c = spio.warpgroup_fragment %d[7] : !Acc -> !spio.fragment<C, m16n8k16, f32, [i, j]>
    spio.store_fragment %c, %out[] : !spio.fragment<C, m16n8k16, f32, [i, j]>, !spio.tensor<[i: 16, j: 8] x f32, global>
    gpu.return
  }
}

// -----

!SA = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

// `overwrite` is wgmma's scale-d of zero: D = A * B, the accumulator's
// registers written, not read; the next wgmma adds to them again.
// CHECK-LABEL: gpu.func @wgmma_overwrite
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
gpu.module @m {
  gpu.func @wgmma_overwrite(%out: !spio.tensor<[i: 16, j: 8] x f32, global>) kernel {
    %a = spio.alloc : !SA
    %b = spio.alloc : !SB
    %zero = arith.constant 0.0 : f32
    %done = spio.warpgroup_fill %zero : !Acc
    %k0 = spio.constant 0 : !spio.coord<k/16>
    %k1 = spio.constant 1 : !spio.coord<k/16>
    spio.wgmma_fence
    %d0 = spio.wgmma %a[%k0], %b[%k0], %done overwrite : !SA[!spio.coord<k/16>], !SB[!spio.coord<k/16>], !Acc
    %d1 = spio.wgmma %a[%k1], %b[%k1], %d0 : !SA[!spio.coord<k/16>], !SB[!spio.coord<k/16>], !Acc
    spio.wgmma_commit
    spio.wgmma_wait 0
    %c = spio.warpgroup_fragment %d1[0] : !Acc -> !spio.fragment<C, m16n8k16, f32, [i, j]>
    spio.store_fragment %c, %out[] : !spio.fragment<C, m16n8k16, f32, [i, j]>, !spio.tensor<[i: 16, j: 8] x f32, global>
    gpu.return
  }
}

// -----

!SA = !spio.tensor<[k: 64, i/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j/64: 2, k: 64, j/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n128, f32, [i, j]>

// MN-major operands (an M-major A, an N-major B of two blocks of 64
// columns) are wgmma's transposed ones: A column major, B row major. Their
// descriptors hold the stride between 64-row blocks as the leading offset:
// 16 bytes (unused) for A's one block, 8192 >> 4 at bit 16 for B's.
// CHECK-LABEL: gpu.func @wgmma_mn_major
// CHECK-DAG: arith.constant 4611686293305360384 : i64
// CHECK-DAG: arith.constant 4611686293338849280 : i64
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
gpu.module @m {
  gpu.func @wgmma_mn_major(%out: !spio.tensor<[i: 16, j: 8] x f32, global>) kernel {
    %a = spio.alloc : !SA
    %b = spio.alloc : !SB
    %zero = arith.constant 0.0 : f32
    %acc = spio.warpgroup_fill %zero : !Acc
    %kk = spio.constant 1 : !spio.coord<k/16>
    spio.wgmma_fence
    %d = spio.wgmma %a[%kk], %b[%kk], %acc : !SA[!spio.coord<k/16>], !SB[!spio.coord<k/16>], !Acc
    spio.wgmma_commit
    spio.wgmma_wait 0
    %c = spio.warpgroup_fragment %d[0] : !Acc -> !spio.fragment<C, m16n8k16, f32, [i, j]>
    spio.store_fragment %c, %out[] : !spio.fragment<C, m16n8k16, f32, [i, j]>, !spio.tensor<[i: 16, j: 8] x f32, global>
    gpu.return
  }
}

// -----

!SA = !spio.tensor<[i: 64, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

// f32 tiles are TF32 operands: 8 of the reduction (32 bytes of each row,
// as 16 of bf16) an instruction.
// CHECK-LABEL: gpu.func @wgmma_tf32
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
gpu.module @m {
  gpu.func @wgmma_tf32(%out: !spio.tensor<[i: 16, j: 8] x f32, global>) kernel {
    %a = spio.alloc : !SA
    %b = spio.alloc : !SB
    %zero = arith.constant 0.0 : f32
    %acc = spio.warpgroup_fill %zero : !Acc
    %kk = spio.constant 3 : !spio.coord<k/8>
    spio.wgmma_fence
    %d = spio.wgmma %a[%kk], %b[%kk], %acc : !SA[!spio.coord<k/8>], !SB[!spio.coord<k/8>], !Acc
    spio.wgmma_commit
    spio.wgmma_wait 0
    %c = spio.warpgroup_fragment %d[0] : !Acc -> !spio.fragment<C, m16n8k16, f32, [i, j]>
    spio.store_fragment %c, %out[] : !spio.fragment<C, m16n8k16, f32, [i, j]>, !spio.tensor<[i: 16, j: 8] x f32, global>
    gpu.return
  }
}
