// RUN: spio-opt %s -split-input-file --convert-spio-to-gpu --canonicalize | FileCheck %s

// k = 7 then k = 5 on [k/8: 2, k: 8] lands at k/8 = 1, k = 4: offset 12.
// CHECK-LABEL: func.func @carry
// CHECK-SAME: (%[[T:.*]]: memref<64xi8, #gpu.address_space<global>>)
// CHECK: %[[C12:.*]] = arith.constant 12 : index
// CHECK: %[[V:.*]] = memref.view %[[T]][%{{.*}}][] : memref<64xi8, #gpu.address_space<global>> to memref<16xf32, #gpu.address_space<global>>
// CHECK: memref.load %[[V]][%[[C12]]]
func.func @carry(%t: !spio.tensor<[k/8: 2, k: 8] x f32, global>) -> f32 {
  %seven = spio.constant 7 : !spio.coord<k>
  %five = spio.constant 5 : !spio.coord<k>
  %c = spio.subscript %t[%seven] : !spio.tensor<[k/8: 2, k: 8] x f32, global>[!spio.coord<k>]
  %v = spio.load %c[%five] : !spio.tensor<[k/8: 2, k: 8] x f32, global>[!spio.coord<k>]
  return %v : f32
}

// -----

// Coordinates resolve by dimension: i = 3, j = 2 on a column-major [j, i].
// CHECK-LABEL: func.func @by_dimension
// CHECK: %[[C11:.*]] = arith.constant 11 : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[C11]]]
func.func @by_dimension(%t: !spio.tensor<[j: 4, i: 4] x f16, global>, %v: f16) {
  %i = spio.constant 3 : !spio.coord<i>
  %j = spio.constant 2 : !spio.coord<j>
  spio.store %v, %t[%i, %j] : !spio.tensor<[j: 4, i: 4] x f16, global>[!spio.coord<i>, !spio.coord<j>]
  return
}

// -----

// The checkerboard XORs bit 3 of the offset into bit 0: (4, 0) -> 9.
// CHECK-LABEL: func.func @swizzle
// CHECK: %[[C9:.*]] = arith.constant 9 : index
// CHECK: memref.load %{{.*}}[%[[C9]]] : memref<32xvector<8xf16>, #gpu.address_space<workgroup>>
func.func @swizzle() -> vector<8xf16> {
  %s = spio.alloc : !spio.tensor<[i: 16, c: 2] x vector<8xf16>, shared, #spio.checkerboard<8>>
  %i = spio.constant 4 : !spio.coord<i>
  %v = spio.load %s[%i] : !spio.tensor<[i: 16, c: 2] x vector<8xf16>, shared, #spio.checkerboard<8>>[!spio.coord<i>]
  return %v : vector<8xf16>
}

// -----

// Shared buffers are views into dynamic shared memory at 128-byte aligned
// offsets; the function records how much to launch with.
// CHECK-LABEL: gpu.func @shared
// CHECK-SAME: spio.shared_memory_bytes = 384 : i64
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory
// CHECK: memref.view %[[DYN]][%{{.*}}][] : {{.*}} to memref<100xf16, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[DYN]][%[[C256]]][] : {{.*}} to memref<32xf32, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @shared(%x: f16, %y: f32) kernel {
    %a = spio.alloc : !spio.tensor<[i: 100] x f16, shared>
    %b = spio.alloc : !spio.tensor<[i: 32] x f32, shared>
    %i = spio.constant 1 : !spio.coord<i>
    spio.store %x, %a[%i] : !spio.tensor<[i: 100] x f16, shared>[!spio.coord<i>]
    spio.store %y, %b[%i] : !spio.tensor<[i: 32] x f32, shared>[!spio.coord<i>]
    gpu.return
  }
}

// -----

// Register tensors of fragments are allocas of the lane's element vectors.
// CHECK-LABEL: func.func @registers
// CHECK: %[[R:.*]] = memref.alloca() : memref<8xvector<4xf32>, #gpu.address_space<private>>
// CHECK: memref.store %{{.*}}, %[[R]][%{{.*}}] : memref<8xvector<4xf32>, #gpu.address_space<private>>
// CHECK: memref.load %[[R]]
func.func @registers(%c: !spio.fragment<C, m16n8k16, f32, [i, j]>) -> !spio.fragment<C, m16n8k16, f32, [i, j]> {
  %acc = spio.alloc : !spio.tensor<[i/16: 2, j/8: 4] x !spio.fragment<C, m16n8k16, f32, [i, j]>, register>
  %i = spio.constant 1 : !spio.coord<i/16>
  %j = spio.constant 3 : !spio.coord<j/8>
  spio.store %c, %acc[%i, %j] : !spio.tensor<[i/16: 2, j/8: 4] x !spio.fragment<C, m16n8k16, f32, [i, j]>, register>[!spio.coord<i/16>, !spio.coord<j/8>]
  %d = spio.load %acc[%j, %i] : !spio.tensor<[i/16: 2, j/8: 4] x !spio.fragment<C, m16n8k16, f32, [i, j]>, register>[!spio.coord<j/8>, !spio.coord<i/16>]
  return %d : !spio.fragment<C, m16n8k16, f32, [i, j]>
}

// -----

// Rebase fixes the offset: later subscripts no longer carry into it.
// CHECK-LABEL: func.func @rebase
// CHECK: %[[C15:.*]] = arith.constant 15 : index
// CHECK: memref.load %{{.*}}[%[[C15]]]
func.func @rebase(%t: !spio.tensor<[k/8: 2, k: 8] x f32, global>) -> f32 {
  %seven = spio.constant 7 : !spio.coord<k>
  %c = spio.subscript %t[%seven] : !spio.tensor<[k/8: 2, k: 8] x f32, global>[!spio.coord<k>]
  %r = spio.rebase %c : !spio.tensor<[k/8: 2, k: 8] x f32, global>
  // k = 8 from the rebased cursor: offset 7 + 8 = 15 (no carry from 7).
  %eight = spio.constant 1 : !spio.coord<k/8>
  %v = spio.load %r[%eight] : !spio.tensor<[k/8: 2, k: 8] x f32, global>[!spio.coord<k/8>]
  return %v : f32
}

// -----

// On [m: 64:4, c/8: 4] with a 32-element XOR period, a coordinate of
// m/8 moves 32 elements a step: it is added after the swizzle, which then
// sees only m (here, a loop's steps leave the swizzled part invariant).
// CHECK-LABEL: func.func @swizzle_aligned_steps
// CHECK-SAME: (%[[STEP:.*]]: index, %[[M:.*]]: index)
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[STEPS:.*]] = arith.muli %[[STEP]], %[[C32]] : index
// CHECK-DAG: %[[MX4:.*]] = arith.muli %[[M]], %{{.*}} : index
// CHECK: %[[BITS:.*]] = arith.andi %[[MX4]]
// CHECK: %[[MOVED:.*]] = arith.shrui %[[BITS]]
// CHECK: %[[SWZ:.*]] = arith.xori %[[MX4]], %[[MOVED]] : index
// CHECK: %[[OFF:.*]] = arith.addi %[[SWZ]], %[[STEPS]] : index
// CHECK: memref.load %{{.*}}[%[[OFF]]]
func.func @swizzle_aligned_steps(%step: index, %m: index) -> vector<8xf16> {
  %s = spio.alloc : !spio.tensor<[m: 64:4, c/8: 4:1] x vector<8xf16>, shared, #spio.xor_swizzle<2, 0, 3>>
  %j = spio.from_index %step : !spio.coord<m/8>
  %r = spio.from_index %m : !spio.coord<m>
  %v = spio.load %s[%j, %r] : !spio.tensor<[m: 64:4, c/8: 4:1] x vector<8xf16>, shared, #spio.xor_swizzle<2, 0, 3>>[!spio.coord<m/8>, !spio.coord<m>]
  return %v : vector<8xf16>
}

// -----

// Under spio.offset_bits = 32, a global tensor of fewer than 2^31
// elements takes its offset in i32 (multiplies and adds that do not
// overflow), sign-extended to an index once; one of 2^31 elements or more
// keeps index arithmetic throughout.
// CHECK-LABEL: func.func @offsets_32
// CHECK-SAME: (%{{.*}}: memref<{{.*}}>, %{{.*}}: memref<{{.*}}>, %[[N:.*]]: index, %[[H:.*]]: index)
// CHECK-DAG: %[[N32:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK-DAG: %[[H32:.*]] = arith.index_cast %[[H]] : index to i32
// CHECK-DAG: %[[NOFF:.*]] = arith.muli %[[N32]], %{{.*}} overflow<nsw> : i32
// CHECK-DAG: %[[HOFF:.*]] = arith.muli %[[H32]], %{{.*}} overflow<nsw> : i32
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK: %[[OFF:.*]] = arith.index_cast %[[SUM]] : i32 to index
// CHECK: memref.load %{{.*}}[%[[OFF]]] : memref<{{.*}}xvector<8xf16>, #gpu.address_space<global>>
// CHECK-NOT: i32
// CHECK: arith.muli %[[N]], %{{.*}} : index
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<{{.*}}xvector<8xf16>, #gpu.address_space<global>>
func.func @offsets_32(%x: !spio.tensor<[n: 128, h: 56, w: 56, c/8: 8] x vector<8xf16>, global>,
                      %big: !spio.tensor<[n: 65536, h: 256, w: 256, c/8: 8] x vector<8xf16>, global>,
                      %ni: index, %hi: index) -> (vector<8xf16>, vector<8xf16>)
    attributes {spio.offset_bits = 32} {
  %n = spio.from_index %ni : !spio.coord<n>
  %h = spio.from_index %hi : !spio.coord<h>
  %v = spio.load %x[%n, %h] : !spio.tensor<[n: 128, h: 56, w: 56, c/8: 8] x vector<8xf16>, global>[!spio.coord<n>, !spio.coord<h>]
  %w = spio.load %big[%n, %h] : !spio.tensor<[n: 65536, h: 256, w: 256, c/8: 8] x vector<8xf16>, global>[!spio.coord<n>, !spio.coord<h>]
  return %v, %w : vector<8xf16>, vector<8xf16>
}

// -----

// Without the attribute (or with spio.offset_bits = 64), index arithmetic.
// CHECK-LABEL: func.func @offsets_64
// CHECK-NOT: i32
// CHECK: memref.load
func.func @offsets_64(%x: !spio.tensor<[n: 128, h: 56, w: 56, c/8: 8] x vector<8xf16>, global>,
                      %ni: index, %hi: index) -> vector<8xf16> attributes {spio.offset_bits = 64} {
  %n = spio.from_index %ni : !spio.coord<n>
  %h = spio.from_index %hi : !spio.coord<h>
  %v = spio.load %x[%n, %h] : !spio.tensor<[n: 128, h: 56, w: 56, c/8: 8] x vector<8xf16>, global>[!spio.coord<n>, !spio.coord<h>]
  return %v : vector<8xf16>
}

// -----

// Fragment stores under spio.offset_bits = 32: the lane's row and column
// (the extras) join the 32-bit offset; the bounds stay index compares.
// CHECK-LABEL: func.func @fragment_offsets_32
// CHECK-SAME: %[[ROW:[^:]*]]: index)
// CHECK: %[[R32:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK: %[[L32:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[ABS:.*]] = arith.addi %[[R32]], %[[L32]] overflow<nsw> : i32
// CHECK: arith.muli %[[ABS]], %{{.*}} overflow<nsw> : i32
// CHECK: %[[OFF:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[ABSROW:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK: arith.cmpi slt, %[[ABSROW]], %{{.*}} : index
// CHECK: arith.divui %[[OFF]], %{{.*}} : index
// CHECK: memref.store
!O = !spio.tensor<[i: 64, j: 8] x f32, global>
func.func @fragment_offsets_32(%o: !O, %v: vector<4xf32>, %row: index)
    attributes {spio.offset_bits = 32} {
  %c = spio.vector_to_fragment %v : vector<4xf32> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  %i0 = spio.from_index %row : !spio.coord<i>
  %m = spio.constant 60 : !spio.coord<i>
  %n = spio.constant 8 : !spio.coord<j>
  %t = spio.subscript %o[%i0] : !O[!spio.coord<i>]
  spio.store_fragment %c, %t[] bounds %m, %n : !spio.fragment<C, m16n8k16, f32, [i, j]>, !O bounds !spio.coord<i>, !spio.coord<j>
  return
}
