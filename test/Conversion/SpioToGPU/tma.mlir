// RUN: spio-opt %s --convert-spio-to-gpu --canonicalize | FileCheck %s

!A = !spio.tensor<[i: 4096, k/8: 512] x vector<8xbf16>, global>
!Box = !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Ring = !spio.tensor<[stage: 4, i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Map = !spio.tensor_map<!A, !Box>

// A tensor map becomes a 64-byte aligned pointer parameter listed for
// spio-grid-constant-params; a TMA load copies to the stage's shared address
// (stage 3 of 16 KiB tiles: 49152) in the cluster window, at element
// coordinates innermost first (k = 5 * 64, i = 2 * 128), completing on the
// barrier's address (barrier 3 after the 64 KiB ring: 65536 + 24).
// CHECK-LABEL: gpu.func @tma
// CHECK-SAME: %[[MAP:[a-z0-9]+]]: !llvm.ptr {llvm.align = 64 : i64}) kernel
// CHECK-SAME: spio.grid_constant_params = array<i64: 1>
// CHECK-SAME: spio.shared_memory_bytes = 65568
// CHECK-DAG: %[[K:[a-z0-9_]+]] = arith.constant 320 : i32
// CHECK-DAG: %[[I:[a-z0-9_]+]] = arith.constant 256 : i32
// CHECK-DAG: %[[STAGE:[a-z0-9_]+]] = arith.constant 49152 : index
// CHECK-DAG: %[[BAR:[a-z0-9_]+]] = arith.constant 65560 : index
// CHECK-DAG: %[[BYTES:[a-z0-9_]+]] = arith.constant 16384 : i32
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: %[[FULL:[a-z0-9_]+]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[FULL]], %[[BYTES]] : !llvm.ptr<3>, i32
// CHECK: arith.addi %{{.*}}, %[[STAGE]] : index
// CHECK: %[[TILE:[a-z0-9_]+]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: arith.addi %{{.*}}, %[[BAR]] : index
// CHECK: %[[BARPTR:[a-z0-9_]+]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[TILE]], %[[MAP]], %[[BARPTR]], box[%[[K]], %[[I]]] : !llvm.ptr<7>, !llvm.ptr
gpu.module @m {
  gpu.func @tma(%a: !A, %map: !Map) kernel {
    %ring = spio.alloc : !Ring
    %full = spio.barrier_alloc : !spio.barriers<4>
    %slot = arith.constant 3 : index
    %bi = spio.constant 2 : !spio.coord<i/128>
    %kt = spio.constant 5 : !spio.coord<k/64>
    %stage = spio.constant 3 : !spio.coord<stage>
    spio.set_max_registers decrease 40
    spio.barrier_expect_tx %full[%slot], bytes 16384 : !spio.barriers<4>
    spio.tma_load %map[%bi, %kt], %ring[%stage], %full[%slot]
        : !Map[!spio.coord<i/128>, !spio.coord<k/64>], !Ring[!spio.coord<stage>], !spio.barriers<4>
    gpu.return
  }
}
