// One warp's step of a tensor-core GEMM, written with typed dimensions:
// stage a 16 x 32 tile of A and a 8 x 32 tile of B from global to shared
// memory with cp.async, load them as fragments with ldmatrix, and
// multiply-accumulate over the two k/16 chunks of the tile.
//
// `scripts/bootstrap.sh run` verifies and simplifies it with spio-opt:
//   spio-opt kernels/examples/warp_tile_mma.mlir --canonicalize --cse

!GlobalA = !spio.tensor<[i: 256, k/8: 32] x vector<8xf16>, global>
!GlobalB = !spio.tensor<[j: 256, k/8: 32] x vector<8xf16>, global>
!SmemA = !spio.tensor<[i: 16, k/8: 4] x vector<8xf16>, shared, #spio.checkerboard<8>>
!SmemB = !spio.tensor<[j: 8, k/8: 4] x vector<8xf16>, shared, #spio.checkerboard<8>>
!FragA = !spio.fragment<A, m16n8k16, f16, [i, k]>
!FragB = !spio.fragment<B, m16n8k16, f16, [k, j]>
!FragC = !spio.fragment<C, m16n8k16, f32, [i, j]>

func.func @warp_tile_mma(%a: !GlobalA, %b: !GlobalB,
                         %tile_i: !spio.coord<i/16>, %tile_j: !spio.coord<j/8>,
                         %step: !spio.coord<k/32>) -> !FragC {
  %smem_a = spio.alloc : !SmemA
  %smem_b = spio.alloc : !SmemB

  // Each lane copies 16 bytes: A rows (i) by k/8 chunks, then B rows.
  %lane = spio.linear_id lane
  %row, %chunk = spio.decompose %lane [8, 4] : !spio.coord<i>, !spio.coord<k/8>
  %tile_a = spio.subscript %a[%tile_i, %step] : !GlobalA[!spio.coord<i/16>, !spio.coord<k/32>]
  %tile_b = spio.subscript %b[%tile_j, %step] : !GlobalB[!spio.coord<j/8>, !spio.coord<k/32>]
  %eight = spio.constant 8 : !spio.coord<i>
  %row_hi = spio.add %row, %eight : !spio.coord<i>, !spio.coord<i>
  spio.async_copy %tile_a[%row, %chunk] to %smem_a[%row, %chunk]
      : !GlobalA[!spio.coord<i>, !spio.coord<k/8>] to !SmemA[!spio.coord<i>, !spio.coord<k/8>]
  spio.async_copy %tile_a[%row_hi, %chunk] to %smem_a[%row_hi, %chunk]
      : !GlobalA[!spio.coord<i>, !spio.coord<k/8>] to !SmemA[!spio.coord<i>, !spio.coord<k/8>]
  %row_b = spio.cast %row : !spio.coord<i> to !spio.coord<j>
  spio.async_copy %tile_b[%row_b, %chunk] to %smem_b[%row_b, %chunk]
      : !GlobalB[!spio.coord<j>, !spio.coord<k/8>] to !SmemB[!spio.coord<j>, !spio.coord<k/8>]
  spio.async_commit
  spio.async_wait 0

  %zero = arith.constant 0.0 : f32
  %acc0 = spio.fill %zero : !FragC
  // Two k/16 steps; the ldmatrix origin is the k/8 chunk each starts at.
  %k0 = spio.constant 0 : !spio.coord<k/16>
  %k1 = spio.constant 1 : !spio.coord<k/16>
  %a0 = spio.ldmatrix %smem_a[%k0] : !SmemA[!spio.coord<k/16>] -> !FragA
  %b0 = spio.ldmatrix %smem_b[%k0] : !SmemB[!spio.coord<k/16>] -> !FragB
  %acc1 = spio.mma %a0, %b0, %acc0 : !FragA, !FragB, !FragC
  %a1 = spio.ldmatrix %smem_a[%k1] : !SmemA[!spio.coord<k/16>] -> !FragA
  %b1 = spio.ldmatrix %smem_b[%k1] : !SmemB[!spio.coord<k/16>] -> !FragB
  %acc2 = spio.mma %a1, %b1, %acc1 : !FragA, !FragB, !FragC
  return %acc2 : !FragC
}
