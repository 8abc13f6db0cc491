// The whole pipeline, in process: spio to PTX text in a gpu.binary.
// RUN: spio-opt %s --spio-to-ptx | FileCheck %s
// RUN: spio-opt %s --spio-to-ptx="chip=sm_80 features=+ptx70" | FileCheck %s --check-prefix=SM80
// A chip spio cannot compile for is refused before any pass runs.
// RUN: not spio-opt %s --spio-to-ptx=chip=sm_75 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not spio-opt %s "--spio-to-ptx=chip=" 2>&1 | FileCheck %s --check-prefix=NOCHIP
// CHIP: error: unsupported target chip 'sm_75': spio compiles for sm_80, sm_86, sm_89, sm_90 and sm_90a
// NOCHIP: error: unsupported target chip '': spio compiles for

// CHECK: gpu.binary @kernels
// CHECK-SAME: .target sm_90
// CHECK-SAME: .entry tile(
// Global tensors are bare pointers.
// CHECK-SAME: .param .u64 .ptr .global .align 1 tile_param_2
// CHECK-SAME: .maxntid 32, 1, 1
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: cp.async.commit_group
// CHECK-SAME: cp.async.wait_group
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// Each lane's two adjacent f32 outputs in one store.
// CHECK-SAME: st.global.v2.b32
// SM80: .target sm_80

!GA = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, global>
!GB = !spio.tensor<[j: 64, k/8: 4] x vector<8xf16>, global>
!SA = !spio.tensor<[i: 16, k/8: 4] x vector<8xf16>, shared, #spio.checkerboard<8>>
!SB = !spio.tensor<[j: 8, k/8: 4] x vector<8xf16>, shared, #spio.checkerboard<8>>
!FA = !spio.fragment<A, m16n8k16, f16, [i, k]>
!FB = !spio.fragment<B, m16n8k16, f16, [k, j]>
!FC = !spio.fragment<C, m16n8k16, f32, [i, j]>
!Out = !spio.tensor<[i: 64, j: 64] x f32, global>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @tile(%a: !GA, %b: !GB, %out: !Out) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %sa = spio.alloc : !SA
    %sb = spio.alloc : !SB
    %lane = spio.linear_id lane
    %row, %chunk = spio.decompose %lane [8, 4] : !spio.coord<i>, !spio.coord<k/8>
    %eight = spio.constant 8 : !spio.coord<i>
    %row_hi = spio.add %row, %eight : !spio.coord<i>, !spio.coord<i>
    spio.async_copy %a[%row, %chunk] to %sa[%row, %chunk] : !GA[!spio.coord<i>, !spio.coord<k/8>] to !SA[!spio.coord<i>, !spio.coord<k/8>]
    spio.async_copy %a[%row_hi, %chunk] to %sa[%row_hi, %chunk] : !GA[!spio.coord<i>, !spio.coord<k/8>] to !SA[!spio.coord<i>, !spio.coord<k/8>]
    %row_b = spio.cast %row : !spio.coord<i> to !spio.coord<j>
    spio.async_copy %b[%row_b, %chunk] to %sb[%row_b, %chunk] : !GB[!spio.coord<j>, !spio.coord<k/8>] to !SB[!spio.coord<j>, !spio.coord<k/8>]
    spio.async_commit
    spio.async_wait 0
    gpu.barrier
    %zero = arith.constant 0.0 : f32
    %acc0 = spio.fill %zero : !FC
    %k0 = spio.constant 0 : !spio.coord<k/16>
    %k1 = spio.constant 1 : !spio.coord<k/16>
    %a0 = spio.ldmatrix %sa[%k0] : !SA[!spio.coord<k/16>] -> !FA
    %b0 = spio.ldmatrix %sb[%k0] : !SB[!spio.coord<k/16>] -> !FB
    %acc1 = spio.mma %a0, %b0, %acc0 : !FA, !FB, !FC
    %a1 = spio.ldmatrix %sa[%k1] : !SA[!spio.coord<k/16>] -> !FA
    %b1 = spio.ldmatrix %sb[%k1] : !SB[!spio.coord<k/16>] -> !FB
    %acc2 = spio.mma %a1, %b1, %acc1 : !FA, !FB, !FC
    %m = spio.constant 10 : !spio.coord<i>
    %n = spio.constant 64 : !spio.coord<j>
    spio.store_fragment %acc2, %out[] bounds %m, %n : !FC, !Out bounds !spio.coord<i>, !spio.coord<j>
    gpu.return
  }
}
}
