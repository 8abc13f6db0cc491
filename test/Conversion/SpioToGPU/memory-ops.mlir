// RUN: spio-opt %s -split-input-file --convert-spio-to-gpu | FileCheck %s
// RUN: spio-opt %s -split-input-file --convert-spio-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=CANON

!G = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, global>
!S = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared>

// cp.async of one 16-byte element; a predicate zero-fills through the
// source size; commit and wait are the nvvm group ops.
// CHECK-LABEL: gpu.func @async_copy
// CHECK-DAG: %[[SRC:.*]] = memref.view %{{.*}} to memref<2048xf16, #gpu.address_space<global>>
// CHECK-DAG: %[[DST:.*]] = memref.view %{{.*}} to memref<2048xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %[[SRC]][%{{.*}}], %[[DST]][%{{.*}}], 8 {bypassL1}
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK: nvgpu.device_async_copy %[[SRC]][%{{.*}}], %[[DST]][%{{.*}}], 8, %[[N]] {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
gpu.module @m {
  gpu.func @async_copy(%g: !G, %ok: i1) kernel {
    %s = spio.alloc : !S
    %i = spio.constant 5 : !spio.coord<i>
    spio.async_copy %g[%i] to %s[%i] : !G[!spio.coord<i>] to !S[!spio.coord<i>]
    spio.async_copy %g[%i] to %s[%i] in_bounds %ok : !G[!spio.coord<i>] to !S[!spio.coord<i>]
    spio.async_commit
    spio.async_wait 1
    gpu.return
  }
}

// -----

!S = !spio.tensor<[i: 16, k/8: 2] x vector<8xbf16>, shared>
!ST = !spio.tensor<[k: 16, i/8: 2] x vector<8xbf16>, shared>

// ldmatrix x4 for an A m16n8k16 fragment, plain and transposed, and a bf16
// mma.sync on i32 registers.
// CHECK-LABEL: gpu.func @ldmatrix_mma
// CHECK: gpu.lane_id
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<256xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<256xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-COUNT-6: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
gpu.module @m {
  gpu.func @ldmatrix_mma(%b: vector<4xbf16>, %c: vector<4xf32>) kernel {
    %s = spio.alloc : !S
    %st = spio.alloc : !ST
    %a0 = spio.ldmatrix %s[] : !S -> !spio.fragment<A, m16n8k16, bf16, [i, k]>
    %a1 = spio.ldmatrix %st[] transpose : !ST -> !spio.fragment<A, m16n8k16, bf16, [i, k]>
    %bf = spio.vector_to_fragment %b : vector<4xbf16> -> !spio.fragment<B, m16n8k16, bf16, [k, j]>
    %cf = spio.vector_to_fragment %c : vector<4xf32> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
    %d = spio.mma %a0, %bf, %cf : !spio.fragment<A, m16n8k16, bf16, [i, k]>, !spio.fragment<B, m16n8k16, bf16, [k, j]>, !spio.fragment<C, m16n8k16, f32, [i, j]>
    gpu.return
  }
}

// -----

!SG = !spio.tensor<[i: 64, k/8: 2] x vector<8xf16>, shared>
!FragG = !spio.fragment<A, m16n8k16, f16, [i, k]>

// A gathering ldmatrix: the lane's row is the coordinate it passes
// (spio.ldmatrix_row plus %i), not also its place in the tile; the k half
// of its matrix still comes from the lane (after canonicalize and cse).
// CANON-LABEL: gpu.func @ldmatrix_gather
// CANON: %[[LANE:.*]] = gpu.lane_id
// CANON: %[[MATRIX:.*]] = arith.select
// CANON: %[[R:.*]] = arith.select
// CANON: %[[HALF:.*]] = arith.select
// CANON: %[[CORNER:.*]] = arith.muli %[[HALF]], %c8
// CANON: %[[ROW:.*]] = arith.addi %[[CORNER]], %[[R]]
// CANON: %[[GATHERED:.*]] = arith.addi %[[ROW]], %arg0
// CANON: %[[K:.*]] = arith.floordivsi %[[MATRIX]], %c2
// CANON: %[[KCOL:.*]] = arith.muli %[[K]], %c8
// CANON: %[[ROWOFF:.*]] = arith.muli %[[GATHERED]], %c2
// CANON: %[[KOFF:.*]] = arith.floordivsi %[[KCOL]], %c8
// CANON: %[[VEC:.*]] = arith.addi %[[ROWOFF]], %[[KOFF]]
// CANON: %[[OFF:.*]] = arith.muli %[[VEC]], %c8
// CANON: nvgpu.ldmatrix %{{.*}}[%[[OFF]]] {numTiles = 4 : i32, transpose = false}
gpu.module @m {
  gpu.func @ldmatrix_gather(%i: !spio.coord<i>, %out: memref<8xf16>) kernel {
    %s = spio.alloc : !SG
    %r = spio.ldmatrix_row : !FragG -> !spio.coord<i>
    %g = spio.add %r, %i : !spio.coord<i>, !spio.coord<i>
    %a = spio.ldmatrix %s[] gather(%g : !spio.coord<i>) : !SG -> !FragG
    %v = spio.fragment_to_vector %a : !FragG -> vector<8xf16>
    %c0 = arith.constant 0 : index
    vector.store %v, %out[%c0] : memref<8xf16>, vector<8xf16>
    gpu.return
  }
}

// -----

!S8 = !spio.tensor<[i: 16, k/8: 1] x vector<8xf16>, shared>

// The instruction's k is the A and B fragments': an m16n8k8 step into an
// m16n8k16 accumulator (one layout) is an m16n8k8 mma.sync.
// CHECK-LABEL: gpu.func @mma_k8_into_k16_sum
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = false}
// CHECK: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 8>
gpu.module @m {
  gpu.func @mma_k8_into_k16_sum(%b: vector<2xf16>, %c: vector<4xf32>) kernel {
    %s = spio.alloc : !S8
    %a = spio.ldmatrix %s[] : !S8 -> !spio.fragment<A, m16n8k8, f16, [i, k]>
    %bf = spio.vector_to_fragment %b : vector<2xf16> -> !spio.fragment<B, m16n8k8, f16, [k, j]>
    %cf = spio.vector_to_fragment %c : vector<4xf32> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
    %d = spio.mma %a, %bf, %cf : !spio.fragment<A, m16n8k8, f16, [i, k]>, !spio.fragment<B, m16n8k8, f16, [k, j]>, !spio.fragment<C, m16n8k16, f32, [i, j]>
    gpu.return
  }
}

// -----

!O = !spio.tensor<[i: 20, j: 8] x f16, global>

// Fragment stores convert f32 to the tensor's type and skip elements beyond
// the bounds. Here the types prove each lane's two columns adjacent and
// 4-byte aligned (contiguous j of even size, even strides, even bound), so
// they go out as pairs.
// CHECK-LABEL: func.func @store_fragment_pairs
// CHECK-COUNT-4: arith.truncf %{{.*}} : f32 to f16
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<80xvector<2xf16>, #gpu.address_space<global>>
func.func @store_fragment_pairs(%o: !O, %v: vector<4xf32>) {
  %c = spio.vector_to_fragment %v : vector<4xf32> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  %i0 = spio.constant 16 : !spio.coord<i>
  %m = spio.constant 20 : !spio.coord<i>
  %n = spio.constant 8 : !spio.coord<j>
  %t = spio.subscript %o[%i0] : !O[!spio.coord<i>]
  spio.store_fragment %c, %t[] bounds %m, %n : !spio.fragment<C, m16n8k16, f32, [i, j]>, !O bounds !spio.coord<i>, !spio.coord<j>
  return
}

// -----

!O = !spio.tensor<[i: 20, j: 7] x f16, global>

// An odd row length (7): pairs could straddle rows, so one element a store.
// CHECK-LABEL: func.func @store_fragment_odd
// CHECK-NOT: vector<2xf16>
// CHECK: memref.store %{{.*}} : memref<140xf16, #gpu.address_space<global>>
func.func @store_fragment_odd(%o: !O, %v: vector<4xf32>) {
  %c = spio.vector_to_fragment %v : vector<4xf32> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  %m = spio.constant 20 : !spio.coord<i>
  %n = spio.constant 7 : !spio.coord<j>
  spio.store_fragment %c, %o[] bounds %m, %n : !spio.fragment<C, m16n8k16, f32, [i, j]>, !O bounds !spio.coord<i>, !spio.coord<j>
  return
}

// -----

!O = !spio.tensor<[i: 20, j: 8] x f32, global>

// A column coordinate of odd fold (j = 3) may start a pair at an odd
// offset: element stores.
// CHECK-LABEL: func.func @store_fragment_odd_offset
// CHECK-NOT: vector<2xf32>
// CHECK: memref.store %{{.*}} : memref<160xf32, #gpu.address_space<global>>
func.func @store_fragment_odd_offset(%o: !O, %v: vector<4xf32>, %j: !spio.coord<j>) {
  %c = spio.vector_to_fragment %v : vector<4xf32> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  spio.store_fragment %c, %o[%j] : !spio.fragment<C, m16n8k16, f32, [i, j]>, !O[!spio.coord<j>]
  return
}

// -----

!O = !spio.tensor<[i: 20, j: 8] x bf16, global>

// Fragment loads read a lane's elements one by one, zero beyond the bounds.
// CHECK-LABEL: func.func @load_fragment_elements
// CHECK-COUNT-4: memref.load %{{.*}} : memref<160xbf16, #gpu.address_space<global>>
// CHECK-NOT: memref.load
// CHECK: return
func.func @load_fragment_elements(%o: !O) -> !spio.fragment<C, m16n8k16, f32, [i, j]> {
  %m = spio.constant 20 : !spio.coord<i>
  %n = spio.constant 8 : !spio.coord<j>
  %c = spio.load_fragment %o[] bounds %m, %n : !O bounds !spio.coord<i>, !spio.coord<j> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  return %c : !spio.fragment<C, m16n8k16, f32, [i, j]>
}

// -----

!B = !spio.tensor<[i: 20:0, j: 8] x bf16, global>

// A vector broadcast along the rows (stride 0, a bias along the columns)
// has no row to bound: the lane's two rows read the same pair, loaded once,
// bounded by the columns alone.
// CHECK-LABEL: func.func @load_fragment_broadcast_rows
// CHECK: memref.view %{{.*}} to memref<4xvector<2xbf16>, #gpu.address_space<global>>
// CHECK: scf.if
// CHECK: memref.load %{{.*}} : memref<4xvector<2xbf16>, #gpu.address_space<global>>
// CHECK-NOT: scf.if
// CHECK-NOT: memref.load
// CHECK: vector.from_elements
// CHECK: return
func.func @load_fragment_broadcast_rows(%o: !B) -> !spio.fragment<C, m16n8k16, f32, [i, j]> {
  %m = spio.constant 20 : !spio.coord<i>
  %n = spio.constant 8 : !spio.coord<j>
  %c = spio.load_fragment %o[] bounds %m, %n : !B bounds !spio.coord<i>, !spio.coord<j> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  return %c : !spio.fragment<C, m16n8k16, f32, [i, j]>
}

// -----

!B = !spio.tensor<[i: 20:0, j: 7] x f16, global>

// A broadcast of odd length (7): pairs could start at odd offsets, so the
// first row's two elements are loaded one by one.
// CHECK-LABEL: func.func @load_fragment_broadcast_odd
// CHECK-COUNT-2: memref.load %{{.*}} : memref<7xf16, #gpu.address_space<global>>
// CHECK-NOT: memref.load
// CHECK: return
func.func @load_fragment_broadcast_odd(%o: !B) -> !spio.fragment<C, m16n8k16, f32, [i, j]> {
  %m = spio.constant 20 : !spio.coord<i>
  %n = spio.constant 7 : !spio.coord<j>
  %c = spio.load_fragment %o[] bounds %m, %n : !B bounds !spio.coord<i>, !spio.coord<j> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  return %c : !spio.fragment<C, m16n8k16, f32, [i, j]>
}

// -----

!Y = !spio.tensor<[p: 4, k: 16] x f16, global>
!YV = !spio.tensor<[p: 4, k/8: 2] x vector<8xf16>, global>
!T = !spio.tensor<[q: 4, k: 16] x f16, shared>
!TV = !spio.tensor<[q: 4, k/8: 2] x vector<8xf16>, shared>

// A view reads the same bytes under another layout: scalars stored into a
// shared tile come back as one 16-byte vector, stored to the global tensor
// through its vector view, from the same base.
// CHECK-LABEL: gpu.func @views
// CHECK-NOT: spio.view
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<{{[0-9]+}}xvector<8xf16>, #gpu.address_space<workgroup>>
// CHECK: memref.store %[[V]], %{{.*}}[%{{.*}}] : memref<{{[0-9]+}}xvector<8xf16>, #gpu.address_space<global>>
gpu.module @m {
  gpu.func @views(%y: !Y, %x: f16) kernel {
    %t = spio.alloc : !T
    %tv = spio.view %t : !T to !TV
    %yv = spio.view %y : !Y to !YV
    %q = spio.constant 1 : !spio.coord<q>
    %k = spio.constant 3 : !spio.coord<k>
    %p = spio.constant 2 : !spio.coord<p>
    %k8 = spio.constant 1 : !spio.coord<k/8>
    spio.store %x, %t[%q, %k] : !T[!spio.coord<q>, !spio.coord<k>]
    gpu.barrier
    %v = spio.load %tv[%q, %k8] : !TV[!spio.coord<q>, !spio.coord<k/8>]
    spio.store %v, %yv[%p, %k8] : !YV[!spio.coord<p>, !spio.coord<k/8>]
    gpu.return
  }
}

// -----

!W = !spio.tensor<[part: 2, k: 8, t: 32] x f32, global>
!Tiny = !spio.tensor<[t: 16] x f32, global>

// discard.global.L2 of the 128 bytes from (part 1, k 3) on: byte 1408 of
// the tensor, under a guard that its address is a multiple of 128 and the
// line ends inside the tensor's 2048 bytes (at most 1920 from its start).
// A tensor smaller than a line discards nothing.
// CHECK-LABEL: gpu.func @discard
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: %[[ADDRESS:.*]] = arith.addi %[[BASE]], %[[BYTES:.*]] : index
// CHECK: %[[LOW:.*]] = arith.andi %[[ADDRESS]], %{{.*}} : index
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[LOW]], %{{.*}} : index
// CHECK: %[[INSIDE:.*]] = arith.cmpi ule, %[[BYTES]], %{{.*}} : index
// CHECK: %[[BOTH:.*]] = arith.andi %[[ALIGNED]], %[[INSIDE]] : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK: %[[LINE:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: llvm.call_intrinsic "llvm.nvvm.discard.global.L2"(%[[LINE]], %{{.*}}) : (!llvm.ptr<1>, i64) -> ()
// CHECK-NOT: discard
// CHECK: gpu.return
// Canonicalized, the constant line ends inside: only the alignment is
// checked.
// CANON-LABEL: gpu.func @discard
// CANON: %[[C1408:.*]] = arith.constant 1408 : index
// CANON: %[[ADDRESS:.*]] = arith.addi %{{.*}}, %[[C1408]] : index
// CANON: %[[LOW:.*]] = arith.andi %[[ADDRESS]], %{{.*}} : index
// CANON: %[[ALIGNED:.*]] = arith.cmpi eq, %[[LOW]], %{{.*}} : index
// CANON-NEXT: scf.if %[[ALIGNED]] {
// CANON: llvm.call_intrinsic "llvm.nvvm.discard.global.L2"
// CANON-NEXT: }
// CANON-NEXT: gpu.return
gpu.module @m {
  gpu.func @discard(%w: !W, %tiny: !Tiny) kernel {
    %part = spio.constant 1 : !spio.coord<part>
    %k = spio.constant 3 : !spio.coord<k>
    %t = spio.constant 0 : !spio.coord<t>
    spio.discard %w[%part, %k] : !W[!spio.coord<part>, !spio.coord<k>]
    spio.discard %tiny[%t] : !Tiny[!spio.coord<t>]
    gpu.return
  }
}
