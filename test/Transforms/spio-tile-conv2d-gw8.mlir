// RUN: spio-opt %s -split-input-file --spio-tile | FileCheck %s

!X = !spio.tensor<[n: 2, h: 20, w: 48, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Bias = !spio.tensor<[k: 32] x f16, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 48, k: 32] x f16, global>

// fprop: blocks stage rows + R - 1 input rows (zero-filled halo) and the
// group's 3 x 3 taps of weights; each warp multiplies 16 output columns by
// its group's B fragments (S = 3: an m16n8k16 over taps 0 and 1, an
// m16n8k8 over tap 2, into the same sums), on input columns shifted by the
// tap: the cast from q to w is where the convolution's index arithmetic
// lives. The mma reduce over `sc`, taps times channels. The kernel keeps
// the template's hint to ptxas: 6 blocks a multiprocessor (35 KB of shared
// memory each; 6 of 256 threads leave 42 registers a thread).
// CHECK-LABEL: gpu.func @fprop
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 6 : i32}
// CHECK-NOT: spio.conv2d_gw8
// CHECK: spio.alloc : !spio.tensor<[r: 10:160, q: 40:4, sc/8: 2, c/8: 4] x vector<8xf16>, shared, #spio.xor_swizzle<2, 0, 3>>
// CHECK: spio.alloc : !spio.tensor<[r: 3, s: 3, k: 32, c/8: 1] x vector<8xf16>, shared>
// CHECK: %[[TILE:.*]] = spio.alloc : !spio.tensor<[slot: 2:1280, q: 32:40, k: 32] x f16, shared>
// CHECK: %[[TILEV:.*]] = spio.view %[[TILE]] {{.*}} to !spio.tensor<[slot: 2:160, q: 32:5, k/8: 4] x vector<8xf16>, shared>
// CHECK: %[[YV:.*]] = spio.view %{{.*}} to !spio.tensor<[n: 2, p: 20, q: 48, k/8: 4] x vector<8xf16>, global>
// CHECK: spio.decompose %{{.*}} [1, 2] : !spio.coord<c/32>, !spio.coord<q/32>
// The output tile's copy-out spreads each 16-byte access phase (8
// threads) over 8 bank slots: in every run of 32 threads, thread
// 8j + 4k + g takes pixel j + 4k and group g, so a phase reads pixels 4
// apart, 20 vectors at the tile's pitch of 5 (adjacent pixels' vectors
// 0-3 and 5-8 would share slot 0).
// CHECK: %[[TID:.*]] = spio.linear_id thread
// CHECK: %[[SPAN:.*]] = arith.andi %[[TID]], %c31 : index
// CHECK-NEXT: %[[J:.*]] = arith.shrui %[[SPAN]], %c3 : index
// CHECK-NEXT: %[[LOW:.*]] = arith.andi %[[SPAN]], %c7 : index
// CHECK-NEXT: %[[K:.*]] = arith.shrui %[[LOW]], %c2 : index
// CHECK-NEXT: %[[G:.*]] = arith.andi %[[SPAN]], %c3 : index
// CHECK-NEXT: %[[JW:.*]] = arith.shli %[[J]], %c2 : index
// CHECK-NEXT: %[[KW:.*]] = arith.shli %[[K]], %c4 : index
// CHECK-NEXT: %[[PIXEL:.*]] = arith.addi %[[JW]], %[[KW]] : index
// CHECK-NEXT: %[[MOVED:.*]] = arith.addi %[[PIXEL]], %[[G]] : index
// CHECK-NEXT: %[[BASE:.*]] = arith.subi %[[TID]], %[[SPAN]] : index
// CHECK-NEXT: %[[OTID:.*]] = arith.addi %[[BASE]], %[[MOVED]] : index
// CHECK: spio.decompose %{{.*}} [2, 3] : !spio.coord<n>, !spio.coord<p/8>
// CHECK: spio.cast %{{.*}} : !spio.coord<q> to !spio.coord<w>
// One commit group per output row (the first also holds the weights), so
// that row j's mma overlap the copies of the rows after it. Copies fill the
// 34 staged columns the taps read (32 + S - 1), not the 40 of whole swizzle
// periods.
// CHECK: spio.decompose %{{.*}} [3, 34, 4] : !spio.coord<r>, !spio.coord<q>, !spio.coord<c/8>
// CHECK: spio.async_copy {{.*}} in_bounds
// CHECK-COUNT-8: spio.async_commit
// The bias fragment every row's sums start from loads once, ahead of the
// first wait.
// CHECK: spio.load_fragment
// CHECK-NEXT: spio.async_wait 7
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: spio.load_fragment
// CHECK: spio.view %{{.*}} to !spio.tensor<[r: 3, sc/8: 3, k: 32] x vector<8xf16>, shared>
// CHECK: spio.ldmatrix {{.*}} -> !spio.fragment<B, m16n8k16, f16, [sc, k]>
// CHECK-NEXT: spio.constant
// CHECK-NEXT: spio.constant
// CHECK-NEXT: spio.ldmatrix {{.*}} -> !spio.fragment<B, m16n8k8, f16, [sc, k]>
// CHECK: spio.mma {{.*}} : !spio.fragment<A, m16n8k16, f16, [q, sc]>, !spio.fragment<B, m16n8k16, f16, [sc, k]>, !spio.fragment<C, m16n8k16, f32, [q, k]>
// CHECK: spio.mma {{.*}} : !spio.fragment<A, m16n8k8, f16, [q, sc]>, !spio.fragment<B, m16n8k8, f16, [sc, k]>, !spio.fragment<C, m16n8k16, f32, [q, k]>
// Each row's outputs go through a shared tile (rows padded by one vector
// against bank conflicts), fragment stores in, 16-byte vectors out to y.
// Every staged row is committed up front, so the next staged row's A
// fragments load before this row's mma, and one barrier covers the
// fragment stores and the commit group of the staged row after the next.
// CHECK: spio.store_fragment %{{.*}}, %[[TILE]][{{.*}}] : !spio.fragment<C, m16n8k16, f32, [q, k]>, !spio.tensor<[slot: 2:1280, q: 32:40, k: 32] x f16, shared>
// CHECK-NEXT: }
// CHECK-NEXT: spio.async_wait 5
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: spio.ldmatrix
// CHECK: arith.addi %[[OTID]], %c0
// CHECK: spio.load %[[TILEV]]
// CHECK: spio.store %{{.*}}, %[[YV]]
// CHECK-NOT: gpu.barrier
// CHECK: spio.ldmatrix {{.*}} -> !spio.fragment<A, m16n8k16, f16, [q, sc]>
// CHECK-NOT: gpu.barrier
// CHECK: spio.mma
gpu.module @m {
  gpu.func @fprop(%x: !X, %w: !W, %b: !Bias, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w bias %b into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W, !Bias -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 48, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 48, k: 32] x f16, global>

// fprop with a copy warp: 8 compute warps and one that copies, 288
// threads. Thread 0 sets up a full and an empty barrier for each of the 6
// staged rows; after the block's one barrier the
// copy warp loops over the chunk's bands, waiting for each row's slot to
// be read (empty barrier 6 + i) before copying the band's row into it and
// arriving at its full barrier as the copies land; the compute warps wait
// for each row's full barrier, load its fragments, arrive at its empty
// barrier, and synchronize among themselves (256 threads) for the output
// tile.
// CHECK-LABEL: gpu.func @fprop_copy_warps
// CHECK-SAME: known_block_size = array<i32: 288, 1, 1>
// CHECK: %[[BARS:.*]] = spio.barrier_alloc : !spio.barriers<12>
// CHECK: scf.if
// CHECK: spio.barrier_init %[[BARS]][%{{.*}}], arrivals 32
// CHECK: spio.barrier_init %[[BARS]][%{{.*}}], arrivals 256
// CHECK: spio.async_wait 0
// CHECK-NEXT: gpu.barrier
// CHECK: %[[COPIES:.*]] = arith.cmpi uge, %{{.*}}, %{{.*}} : index
// CHECK: scf.if %[[COPIES]] {
// CHECK: scf.for
// CHECK: %[[EMPTY:.*]] = arith.constant 6 : index
// CHECK: spio.barrier_wait %[[BARS]][%[[EMPTY]]], parity
// CHECK: spio.async_copy
// CHECK: spio.async_arrive %[[BARS]]
// CHECK: } else {
// CHECK: scf.for
// CHECK: spio.barrier_wait %[[BARS]]
// CHECK: spio.ldmatrix
// CHECK: spio.barrier_arrive %[[BARS]]
// CHECK: spio.mma
// CHECK: spio.named_barrier 1, threads 256
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @fprop_copy_warps(%x: !X, %w: !W, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 4, chunks = 2, copy_warps = 1>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 48, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 48, k: 32] x f16, global>

// fprop with chunks: 2 blocks along the 6 (image, row tile) bands, each a
// loop over 3 of them marked for a 2-stage ring (spio-pipeline), so the
// next band's rows copy in while this one computes. The weights load once,
// before the loop; the rows stage one at a time and are all awaited. The
// ring's two stages of the staged tile leave 3 blocks a multiprocessor
// (@fprop's one stage: 4).
// CHECK-LABEL: gpu.func @fprop_band_ring
// CHECK-SAME: nvvm.minctasm = 3 : i32
// CHECK: spio.async_commit
// CHECK: spio.async_wait 0
// CHECK: spio.ldmatrix {{.*}} -> !spio.fragment<B, m16n8k8, f16, [sc, k]>
// CHECK: %[[PER:.*]] = arith.constant 3 : index
// CHECK: %[[BAND0:.*]] = arith.muli %{{.*}}, %[[PER]] : index
// CHECK: scf.for %[[BAND:.*]] = %[[BAND0]] to
// CHECK: spio.decompose %[[BAND]] [2, 3] : !spio.coord<n>, !spio.coord<p/8>
// CHECK-COUNT-10: spio.async_copy
// CHECK-NOT: spio.async_copy
// CHECK: spio.async_commit
// CHECK-NEXT: spio.async_wait 0
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: spio.async_wait
// CHECK: spio.store_fragment
// CHECK: } {spio.stages = 2 : i64}
gpu.module @m {
  gpu.func @fprop_band_ring(%x: !X, %w: !W, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 2>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!DY = !spio.tensor<[n: 1, h: 18, w: 16, k/8: 2] x vector<8xbf16>, global>
!W = !spio.tensor<[k: 16, r: 3, s: 1, c/8: 1] x vector<8xbf16>, global>
!DX = !spio.tensor<[n: 1, p: 20, q: 16, c: 16] x bf16, global>

// dgrad: the same kernel on dy (channels k) writing dx (channels c), the
// weights staged with the taps flipped (w[k, R - 1 - r, S - 1 - s] as tap
// r, s) and read transposed: a B fragment's rows are a tap's 8 k. No bias.
// CHECK-LABEL: gpu.func @dgrad
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK: spio.alloc : !spio.tensor<[r: 3, s: 1, k: 16, c/8: 1] x vector<8xbf16>, shared>
// CHECK: spio.sub %{{.*}}, %{{.*}} : !spio.coord<r>, !spio.coord<r>
// CHECK-NOT: spio.load_fragment
// CHECK: spio.fill
// CHECK: spio.view %{{.*}} to !spio.tensor<[r: 3, sk/8: 1, k/8: 2, sk: 8, c/8: 1] x vector<8xbf16>, shared>
// CHECK-COUNT-3: spio.ldmatrix {{.*}} transpose {{.*}} -> !spio.fragment<B, m16n8k8, bf16, [sk, c]>
// CHECK-NOT: spio.load_fragment
// CHECK: spio.mma {{.*}} !spio.fragment<C, m16n8k8, f32, [q, c]>
gpu.module @m {
  gpu.func @dgrad(%dy: !DY, %w: !W, %dx: !DX) kernel {
    spio.conv2d_gw8 dgrad %dy, %w into %dx {config = #spio.conv2d_gw8_config<warps = [1, 2], rows = 8>, kernel = array<i64: 3, 1>, padding = array<i64: 0, 0>, stride = 1} : !DY, !W -> !DX
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 21, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 11, q: 10, k: 32] x f16, global>

// Stride 2: staged columns are (q, parity) pairs, so a fragment's 16 rows
// step two input columns through the layout alone. 17 of the 24 staged
// columns are copied: 16 output columns and tap 2's one more.
// CHECK-LABEL: gpu.func @fprop_stride2
// CHECK: spio.alloc : !spio.tensor<[r: 17:192, q: 24:8, wp: 2:4, sc/8: 2, c/8: 4] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>
// CHECK: spio.decompose %{{.*}} [3, 17, 2, 4] : !spio.coord<r>, !spio.coord<q>, !spio.coord<wp>, !spio.coord<c/8>
// CHECK: spio.ldmatrix {{.*}}[!spio.coord<r>, !spio.coord<r>, !spio.coord<q/16>, !spio.coord<q>, !spio.coord<wp>, !spio.coord<c/8>] -> !spio.fragment<A, m16n8k16, f16, [q, sc]>
gpu.module @m {
  gpu.func @fprop_stride2(%x: !X, %w: !W, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 21, w: 20, c/8: 3] x vector<8xf16>, global>
!W = !spio.tensor<[k: 24, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 11, q: 10, k: 24] x f16, global>

// Stride 2, 3 groups: a staged column's two input columns of 3 vectors and
// one unused, an odd pitch of 7 whose 8 ldmatrix rows hit distinct bank
// slots without a swizzle (6 would need one).
// CHECK-LABEL: gpu.func @fprop_stride2_odd_groups
// CHECK: spio.alloc : !spio.tensor<[r: 17:168, q: 24:7, wp: 2:3, sc/8: 2, c/8: 3] x vector<8xf16>, shared>
gpu.module @m {
  gpu.func @fprop_stride2_odd_groups(%x: !X, %w: !W, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [1, 3], rows = 8>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 2} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 20, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 1, s: 1, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 10, q: 10, k: 32] x f16, global>

// Stride 2, a kernel one row and one column wide: its 8 output rows read
// the even input rows alone, so 8 rows are staged (not 15), staged row i
// holding input row 2 (p0 + i), and of each staged column only the even
// input column is copied.
// CHECK-LABEL: gpu.func @fprop_stride2_one_row
// CHECK: spio.alloc : !spio.tensor<[r: 8, q: 16, wp: 2, sc/8: 1, c/8: 4] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>
// CHECK: %[[P0:.*]] = spio.from_index %{{.*}} : !spio.coord<h/2>
// CHECK: spio.decompose %{{.*}} [1, 16, 1, 4] : !spio.coord<r>, !spio.coord<q>, !spio.coord<wp>, !spio.coord<c/8>
// CHECK: %[[ROW:.*]] = spio.from_index %{{.*}} : !spio.coord<h/2>
// CHECK: spio.add %[[P0]], %[[ROW]] : !spio.coord<h/2>, !spio.coord<h/2>
gpu.module @m {
  gpu.func @fprop_stride2_one_row(%x: !X, %w: !W, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 8>, kernel = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = 2} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 30, c/8: 6] x vector<8xf16>, global>
!W = !spio.tensor<[k: 48, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 2, p: 20, q: 30, k: 48] x f16, global>

// 6 groups: a staged column of 6 vectors padded to 7, which needs no
// swizzle; the tap pair's sc/8 entry is the next column, 7 vectors on. The
// output tile's pixels too are 7 vectors apart (56 halves).
// CHECK-LABEL: gpu.func @fprop_six_groups
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK: spio.alloc : !spio.tensor<[r: 12:280, q: 40:7, sc/8: 2:7, c/8: 6] x vector<8xf16>, shared>
// CHECK: spio.alloc : !spio.tensor<[r: 3, s: 3, k: 48, c/8: 1] x vector<8xf16>, shared>
// CHECK: spio.alloc : !spio.tensor<[slot: 2:1792, q: 32:56, k: 48] x f16, shared>
// Six groups a pixel: the copy-out takes the threads as they come (no
// permutation of the thread index).
// CHECK: spio.linear_id thread
// CHECK-NOT: arith.shrui
// CHECK: gpu.return
gpu.module @m {
  gpu.func @fprop_six_groups(%x: !X, %w: !W, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 6], rows = 10>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 1, h: 12, w: 40, c/8: 2] x vector<8xf16>, global>
!W = !spio.tensor<[k: 16, r: 5, s: 5, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 1, p: 12, q: 40, k: 16] x f16, global>

// S = 5: an m16n8k16 reduces over a tap pair times 8 channels, then an
// m16n8k8 over tap 4 into the same sums (no zero tap). The weights are
// viewed with the tap as sc/8; the staged input's sc/8 entry aliases the
// next column, so one ldmatrix reads A for taps s and s + 1. 8 staged
// rows x 3 steps of A; 4 output rows x 5 x 3 mma.
// CHECK-LABEL: gpu.func @fprop_paired_taps
// CHECK: spio.alloc : !spio.tensor<[r: 8:80, q: 40:2, sc/8: 2, c/8: 2] x vector<8xf16>, shared, #spio.xor_swizzle<1, 0, 3>>
// CHECK: spio.alloc : !spio.tensor<[r: 5, s: 5, k: 16, c/8: 1] x vector<8xf16>, shared>
// Two groups a pixel (the output tile's pitch 3): in runs of 16 threads,
// thread 8j + 2k + g takes pixel j + 2k, so a phase reads pixels 2 apart.
// CHECK: %[[TID:.*]] = spio.linear_id thread
// CHECK: %[[SPAN:.*]] = arith.andi %[[TID]], %c15 : index
// CHECK-NEXT: arith.shrui %[[SPAN]], %c3 : index
// CHECK-NEXT: %[[LOW:.*]] = arith.andi %[[SPAN]], %c7 : index
// CHECK-NEXT: arith.shrui %[[LOW]], %[[ONE:.*]] : index
// CHECK-NEXT: arith.andi %[[SPAN]], %[[ONE]] : index
// CHECK: spio.async_copy {{.*}} : !spio.tensor<[k: 16, r: 5, s: 5, c/8: 1] x vector<8xf16>, global>[!spio.coord<k>, !spio.coord<r>, !spio.coord<s>] to !spio.tensor<[r: 5, s: 5, k: 16, c/8: 1] x vector<8xf16>, shared>
// CHECK: spio.view %{{.*}} to !spio.tensor<[r: 5, sc/8: 5, k: 16] x vector<8xf16>, shared>
// CHECK-COUNT-15: spio.ldmatrix {{.*}} -> !spio.fragment<B, m16n8k{{16|8}}, f16, [sc, k]>
// CHECK-COUNT-24: spio.ldmatrix {{.*}} -> !spio.fragment<A, m16n8k{{16|8}}, f16, [q, sc]>
// CHECK-NOT: spio.ldmatrix
// CHECK: spio.mma {{.*}} : !spio.fragment<A, m16n8k8, f16, [q, sc]>, !spio.fragment<B, m16n8k8, f16, [sc, k]>, !spio.fragment<C, m16n8k16, f32, [q, k]>
gpu.module @m {
  gpu.func @fprop_paired_taps(%x: !X, %w: !W, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 2], rows = 4>, kernel = array<i64: 5, 5>, padding = array<i64: 2, 2>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 40, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 40, k/8: 4] x vector<8xf16>, global>
!WS = !spio.tensor<[part: 3, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>

// wgrad: each block reduces a contiguous range of bands of dy (8 rows by
// 32 columns) in a loop that carries one [sc, k] accumulator per (r, tap
// pair); the staged x has an sc/8 entry aliasing the next tap's column, so
// one transposed ldmatrix reads taps s and s + 1 as A's 16 rows. Each warp
// writes its partial sums, part = chunk * warps along q + its q.
// CHECK-LABEL: gpu.func @wgrad
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>}
// CHECK: spio.alloc : !spio.tensor<[r: 10:160, q: 40:4, sc/8: 2, c/8: 4] x vector<8xf16>, shared, #spio.xor_swizzle<2, 0, 3>>
// CHECK: spio.alloc : !spio.tensor<[p: 8, q: 32, k/8: 4] x vector<8xf16>, shared, #spio.xor_swizzle<2, 0, 3>>
// CHECK: arith.minui
// CHECK: %[[SUMS:.*]]:6 = scf.for {{.*}} -> (!spio.fragment<C, m16n8k16, f32, [sc, k]>,
// CHECK: spio.decompose %{{.*}} [2, 3, 2] : !spio.coord<n>, !spio.coord<p/8>, !spio.coord<q/32>
// x's copies fill 35 of the 40 staged columns: 32 and the tap pairs' 3
// more (S = 3 pairs tap 2 with a phantom tap 3).
// CHECK: spio.decompose %{{.*}} [10, 35, 4] : !spio.coord<r>, !spio.coord<q>, !spio.coord<c/8>
// CHECK: spio.async_copy
// CHECK: spio.async_wait 0
// CHECK: spio.ldmatrix {{.*}} transpose {{.*}} -> !spio.fragment<B, m16n8k16, f16, [q, k]>
// CHECK: spio.ldmatrix {{.*}} transpose {{.*}} -> !spio.fragment<A, m16n8k16, f16, [sc, q]>
// CHECK: spio.mma {{.*}} : !spio.fragment<A, m16n8k16, f16, [sc, q]>, !spio.fragment<B, m16n8k16, f16, [q, k]>, !spio.fragment<C, m16n8k16, f32, [sc, k]>
// CHECK: scf.yield
// The two warps along q add their sums in shared memory, each of the six
// by one warp, in warp order; the block stores one partial, part = chunk.
// CHECK: %[[SCRATCH:.*]] = spio.alloc : !spio.tensor<[q/16: 2, k/8: 4, sum: 6, sc: 16, k: 8] x f32, shared>
// CHECK: %[[W0:.*]] = spio.constant 0 : !spio.coord<q/16>
// CHECK: %[[W1:.*]] = spio.constant 1 : !spio.coord<q/16>
// CHECK-COUNT-6: spio.store_fragment %[[SUMS]]#{{[0-5]}}, %[[SCRATCH]][
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: spio.load_fragment %[[SCRATCH]][%[[W0]],
// CHECK: spio.load_fragment %[[SCRATCH]][%[[W1]],
// CHECK: arith.addf {{.*}} : vector<4xf32>
// CHECK: spio.store_fragment {{.*}}, %arg2[%[[PART:[^,]*]], {{.*}} bounds
// CHECK-COUNT-5: spio.store_fragment {{.*}}, %arg2[%[[PART]], {{.*}} bounds
gpu.module @m {
  gpu.func @wgrad(%x: !X, %dy: !DY, %ws: !WS) kernel {
    spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 3>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !WS
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 16, w: 32, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 8, q: 16, k/8: 4] x vector<8xf16>, global>
!WS = !spio.tensor<[part: 2, k: 32, r: 1, sc/8: 2, sc: 8] x f32, global>

// Stride-2 wgrad of a 1x1 kernel: a band of 4 rows of dy stages x's 4
// even rows it meets (not 7), each of their even columns alone.
// CHECK-LABEL: gpu.func @wgrad_stride2_one_row
// CHECK: spio.alloc : !spio.tensor<[r: 4:128, q: 16:8, wp: 2:4, sc/8: 2, c/8: 4] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>
// CHECK: spio.alloc : !spio.tensor<[p: 4, q: 16, k/8: 4] x vector<8xf16>, shared, #spio.xor_swizzle<2, 0, 3>>
// CHECK: spio.decompose %{{.*}} [4, 16, 1, 4] : !spio.coord<r>, !spio.coord<q>, !spio.coord<wp>, !spio.coord<c/8>
// CHECK: spio.add %{{.*}}, %{{.*}} : !spio.coord<h/2>, !spio.coord<h/2>
gpu.module @m {
  gpu.func @wgrad_stride2_one_row(%x: !X, %dy: !DY, %ws: !WS) kernel {
    spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [1, 4], rows = 4, chunks = 2>, kernel = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = 2} : !X, !DY -> !WS
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 40, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 40, k/8: 4] x vector<8xf16>, global>
!WS = !spio.tensor<[part: 3, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>

// wgrad's band loop in parts, for timing: its copies alone, of x's 8 rows
// of dy's band (no halo rows), still pipelined; or its fragment loads and
// mma alone, with no copies and so no stages to overlap.
// CHECK-LABEL: gpu.func @wgrad_copies_without_row_halo
// CHECK: scf.for
// CHECK: spio.decompose %{{.*}} [8, 35, 4] : !spio.coord<r>, !spio.coord<q>, !spio.coord<c/8>
// CHECK: spio.async_copy
// CHECK-NOT: spio.mma
// CHECK: {spio.stages = 2 : i64}
// CHECK-LABEL: gpu.func @wgrad_mma
// CHECK: scf.for
// CHECK-NOT: spio.async_copy
// CHECK: spio.mma
// CHECK-NOT: spio.stages
// CHECK: spio.store_fragment
gpu.module @m {
  gpu.func @wgrad_copies_without_row_halo(%x: !X, %dy: !DY, %ws: !WS) kernel {
    spio.conv2d_gw8 wgrad %x, %dy into %ws parts copies_without_row_halo {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 3>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !WS
    gpu.return
  }
  gpu.func @wgrad_mma(%x: !X, %dy: !DY, %ws: !WS) kernel {
    spio.conv2d_gw8 wgrad %x, %dy into %ws parts mma {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 3>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !WS
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 40, c/8: 4] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 40, k/8: 4] x vector<8xf16>, global>
!WS = !spio.tensor<[part: 3, k: 32, r: 3, sc/8: 4, sc: 8] x f32, global>

// wgrad's row ring: bands go row tiles fastest ([n, q/32, p/8]); a band
// copies its first 2 (R - 1) staged rows only where it starts its column
// tile or the chunk, and its other 8 always; after its compute, where the
// next band continues the column tile, it stores its rows 8 and 9 as the
// next band's 0 and 1 (spio.next_stage), before the loop's last barrier.
// CHECK-LABEL: gpu.func @wgrad_row_ring
// CHECK: scf.for %[[BAND:[^ ]*]] = %[[BAND0:[^ ]*]] to %[[BAND1:[^ ]*]] step
// CHECK: %[[TILES:.*]]:3 = spio.decompose %[[BAND]] [2, 2, 3] : !spio.coord<n>, !spio.coord<q/32>, !spio.coord<p/8>
// CHECK: %[[PT:.*]] = spio.to_index %[[TILES]]#2
// CHECK: %[[TOP:.*]] = arith.cmpi eq, %[[PT]], %{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[BAND]], %[[BAND0]] : index
// CHECK: %[[STARTS:.*]] = arith.ori %[[TOP]], %[[FIRST]] : i1
// CHECK: scf.if %[[STARTS]] {
// CHECK: spio.decompose %{{.*}} [2, 35, 4] : !spio.coord<r>, !spio.coord<q>, !spio.coord<c/8>
// CHECK: spio.async_copy
// CHECK: spio.decompose %{{.*}} [8, 35, 4] : !spio.coord<r>, !spio.coord<q>, !spio.coord<c/8>
// CHECK: spio.async_copy
// CHECK: spio.async_wait 0
// CHECK: spio.mma
// CHECK: %[[NEXT:.*]] = arith.addi %[[BAND]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[NEXT]], %[[BAND1]] : index
// CHECK: %[[NOTLAST:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: %[[ON:.*]] = arith.andi %[[IN]], %[[NOTLAST]] : i1
// CHECK: scf.if %[[ON]] {
// CHECK: %[[ROW:.*]]:3 = spio.decompose %{{.*}} [2, 35, 4] : !spio.coord<r>, !spio.coord<q>, !spio.coord<c/8>
// CHECK: %[[BELOW:.*]] = spio.add %[[ROW]]#0, %{{.*}} : !spio.coord<r>, !spio.coord<r>
// CHECK: %[[V:.*]] = spio.load %{{.*}}[%[[BELOW]], %[[ROW]]#1, %[[ROW]]#2]
// CHECK: spio.store %[[V]], %{{.*}}[%[[ROW]]#0, %[[ROW]]#1, %[[ROW]]#2] {spio.next_stage}
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK: {spio.stages = 2 : i64}
gpu.module @m {
  gpu.func @wgrad_row_ring(%x: !X, %dy: !DY, %ws: !WS) kernel {
    spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 8, chunks = 3, row_ring>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !WS
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 2, h: 20, w: 40, c/8: 6] x vector<8xf16>, global>
!DY = !spio.tensor<[n: 2, p: 20, q: 40, k/8: 6] x vector<8xf16>, global>
!WS = !spio.tensor<[part: 2, k: 48, r: 3, sc/8: 4, sc: 8] x f32, global>

// wgrad, 6 groups: x's staged columns and dy's pixels 7 vectors apart.
// CHECK-LABEL: gpu.func @wgrad_six_groups
// CHECK-SAME: known_block_size = array<i32: 192, 1, 1>
// CHECK: spio.alloc : !spio.tensor<[r: 10:168, q: 24:7, sc/8: 2:7, c/8: 6] x vector<8xf16>, shared>
// CHECK: spio.alloc : !spio.tensor<[p: 8:112, q: 16:7, k/8: 6] x vector<8xf16>, shared>
gpu.module @m {
  gpu.func @wgrad_six_groups(%x: !X, %dy: !DY, %ws: !WS) kernel {
    spio.conv2d_gw8 wgrad %x, %dy into %ws {config = #spio.conv2d_gw8_config<warps = [1, 6], rows = 8, chunks = 2>, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = 1} : !X, !DY -> !WS
    gpu.return
  }
}

// -----

!X = !spio.tensor<[n: 16, h: 28, w: 28, c/8: 4] x vector<8xf16>, global>
!W = !spio.tensor<[k: 32, r: 5, s: 5, c/8: 1] x vector<8xf16>, global>
!Y = !spio.tensor<[n: 16, p: 28, q: 28, k: 32] x f16, global>

// 5x5 on 28x28 in column tiles of 32: 8 images side by side gaplessly,
// 224 output columns in 7 tiles, not 8 (one image a band rounds 28 up to
// 32). A tile's first pixel %d0 is column d0 % 28 of image d0 / 28,
// staged at (d0 / 28) * 32 + d0 % 28 (the images' staged pitch: 28 + 4);
// each lane gathers its A-fragment row from the staged column of its
// pixel; the staged tile holds 40 columns (32, the taps' 4 and one image
// boundary's 4 zeros).
// CHECK-LABEL: gpu.func @fprop_gapless
// CHECK: spio.alloc : !spio.tensor<[r: 11:160, q: 40:4, sc/8: 2, c/8: 4]
// CHECK: spio.decompose %{{.*}} [1, 7] : !spio.coord<c/32>, !spio.coord<q/32>
// CHECK-DAG: %[[PITCH:.*]] = arith.constant 32 : i32
// CHECK-DAG: %[[Q:.*]] = arith.constant 28 : i32
// CHECK: %[[IMG:.*]] = arith.divui %{{.*}}, %[[Q]] : i32
// CHECK: %[[ROW:.*]] = spio.ldmatrix_row : !spio.fragment<A, m16n8k16, f16, [q, sc]> -> !spio.coord<q>
// CHECK: spio.to_index %[[ROW]]
// CHECK: %[[LANEIMG:.*]] = arith.divui %{{.*}}, %[[Q]] : i32
// CHECK: arith.muli %[[LANEIMG]], %[[PITCH]] : i32
// CHECK: %[[GQ:.*]] = spio.from_index %{{.*}} : !spio.coord<q>
// CHECK: spio.ldmatrix %{{.*}} gather(%[[GQ]] : !spio.coord<q>) {{.*}} -> !spio.fragment<A, m16n8k16, f16, [q, sc]>
// CHECK: spio.ldmatrix %{{.*}} gather(%[[GQ]] : !spio.coord<q>) {{.*}} -> !spio.fragment<A, m16n8k8, f16, [q, sc]>
gpu.module @m {
  gpu.func @fprop_gapless(%x: !X, %w: !W, %y: !Y) kernel {
    spio.conv2d_gw8 fprop %x, %w into %y {config = #spio.conv2d_gw8_config<warps = [2, 4], rows = 7>, kernel = array<i64: 5, 5>, padding = array<i64: 2, 2>, stride = 1} : !X, !W -> !Y
    gpu.return
  }
}
