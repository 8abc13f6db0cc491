// RUN: spio-opt %s --convert-spio-to-gpu | FileCheck %s

// A signal is one release store at GPU scope to the flag's global address
// (the root's address plus the element's bytes); a wait reads the flag as
// an acquire at GPU scope until it holds the value.
// CHECK-LABEL: gpu.func @hand_on
// CHECK: %[[SET:.*]] = arith.constant 1 : i32
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: %[[BYTES:.*]] = arith.muli %{{.*}}, %[[FOUR]]
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: %[[ADDR:.*]] = arith.addi %[[BASE]], %[[BYTES]]
// CHECK: %[[ADDR64:.*]] = arith.index_castui %[[ADDR]] : index to i64
// CHECK: %[[FLAG:.*]] = llvm.inttoptr %[[ADDR64]] : i64 to !llvm.ptr<1>
// CHECK: llvm.store %[[SET]], %[[FLAG]] atomic syncscope("device") release {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK: %[[OTHER:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: scf.while : () -> () {
// CHECK-NEXT: %[[SEEN:.*]] = llvm.load %[[OTHER]] atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-NEXT: %[[UNSET:.*]] = arith.cmpi ne, %[[SEEN]], %[[SET]] : i32
// CHECK-NEXT: scf.condition(%[[UNSET]])
// CHECK: } do {
// CHECK-NEXT: scf.yield
// CHECK: gpu.return
gpu.module @kernels {
  gpu.func @hand_on(%flags: !spio.tensor<[sk: 132] x i32, global>) kernel {
    %tid = spio.linear_id block_x
    %block = spio.from_index %tid : !spio.coord<sk>
    %before = spio.constant 3 : !spio.coord<sk>
    %set = arith.constant 1 : i32
    spio.signal %set, %flags[%block] : !spio.tensor<[sk: 132] x i32, global>[!spio.coord<sk>]
    spio.wait_signal %set, %flags[%before] : !spio.tensor<[sk: 132] x i32, global>[!spio.coord<sk>]
    gpu.return
  }
}
