// RUN: spio-opt %s --convert-spio-to-gpu --canonicalize | FileCheck %s

!X = !spio.tensor<[n: 2, h: 8, w: 8, c/8: 8] x vector<8xbf16>, global>
!Box = !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Ring = !spio.tensor<[stage: 4, npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!XMap = !spio.im2col_map<!X, !Box>

// An im2col map is a 64-byte aligned by-value pointer parameter like a
// tiled one; the copy takes i32 element coordinates innermost first
// (channel 64, column -1, row -1, image 1) and i16 tap offsets (column 2,
// row 1), into stage 2 (32768 bytes in) of the cluster window.
// CHECK-LABEL: gpu.func @im2col
// CHECK-SAME: %[[MAP:[a-z0-9]+]]: !llvm.ptr {llvm.align = 64 : i64}) kernel
// CHECK-SAME: spio.grid_constant_params = array<i64: 1>
// CHECK-DAG: %[[C:[a-z0-9_]+]] = arith.constant 64 : i32
// CHECK-DAG: %[[PAD:[a-z0-9_-]+]] = arith.constant -1 : i32
// CHECK-DAG: %[[N:[a-z0-9_]+]] = arith.constant 1 : i32
// CHECK-DAG: %[[S:[a-z0-9_]+]] = arith.constant 2 : i16
// CHECK-DAG: %[[R:[a-z0-9_]+]] = arith.constant 1 : i16
// CHECK-DAG: %[[STAGE:[a-z0-9_]+]] = arith.constant 32768 : index
// CHECK: arith.addi %{{.*}}, %[[STAGE]] : index
// CHECK: %[[TILE:[a-z0-9_]+]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[TILE]], %[[MAP]], %{{.*}}, box[%[[C]], %[[PAD]], %[[PAD]], %[[N]]] im2col[%[[S]], %[[R]]] {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<7>, !llvm.ptr
gpu.module @m {
  gpu.func @im2col(%x: !X, %map: !XMap) kernel {
    %ring = spio.alloc : !Ring
    %full = spio.barrier_alloc : !spio.barriers<4>
    %slot = arith.constant 2 : index
    %n = arith.constant 1 : index
    %pad = arith.constant -1 : index
    %c = arith.constant 64 : index
    %r = arith.constant 1 : index
    %s = arith.constant 2 : index
    %stage = spio.constant 2 : !spio.coord<stage>
    spio.tma_load_im2col %map[%n, %pad, %pad, %c] offsets [%r, %s], %ring[%stage], %full[%slot]
        : !XMap, !Ring [!spio.coord<stage>], !spio.barriers<4>
    gpu.return
  }
}
