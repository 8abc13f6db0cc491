#!/usr/bin/env python3
"""GPU tests of the GEMM: every case runs spio-jit --check (float64 CPU
reference, poisoned output, 10 bit-identical runs) and must pass.

Edge cases: ragged M and N, K not a multiple of the tile, tiny problems,
every operand layout, every output dtype, beta != 0; the mma.sync kernels
and the wgmma ones (sm_90a).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check_arguments, run_check_cases  # noqa: E402

CASES = [
    # m, n, k, extra flags; the mma.sync kernels (the layouts wgmma does
    # not take run them by default)
    (64, 64, 64, "--wgmma=false"),
    (17, 33, 72, "--wgmma=false"),
    (1, 1, 8, "--wgmma=false"),
    (1000, 1000, 1000, "--wgmma=false"),
    (1000, 1000, 1000, "--dtype f16 --wgmma=false"),
    (1000, 1000, 1000, "--out-dtype f32 --wgmma=false"),
    (1000, 1000, 1000, "--dtype f16 --out-dtype f16 --beta 0.5 --alpha 2 --wgmma=false"),
    (1000, 1000, 1000, "--out-dtype f32 --beta -1 --wgmma=false"),
    (1000, 1000, 1000, "--a-layout col --b-layout col --wgmma=false"),
    (1000, 1000, 1000, "--a-layout row --b-layout row --wgmma=false"),
    (1000, 1000, 1000, "--a-layout col --b-layout row --dtype f16 --wgmma=false"),
    (336, 520, 200, "--a-layout col --b-layout row --wgmma=false"),
    # M- and N-major f16/bf16 operands read in place by wgmma (transposed):
    # split K, persistent 128 x 256 tiles, clusters sharing an N-major B,
    # ping-pong, small M swapped (A M-major along wgmma's N), ragged edges,
    # an epilogue, beta and batches.
    (1000, 1000, 1000, "--a-layout col --b-layout col"),
    (1000, 1000, 1000, "--a-layout row --b-layout row"),
    (1000, 1000, 1000, "--a-layout col --b-layout row --dtype f16"),
    (336, 520, 200, "--a-layout col --b-layout row"),
    (2048, 2048, 2048, "--a-layout col --b-layout row"),
    (4096, 1024, 2048, "--a-layout col --b-layout col --dtype f16"),
    (4096, 4096, 4096, "--a-layout col --b-layout row"),
    # One row of tiles swapped, an M-major A in two boxes of 64 rows.
    (112, 3000, 8192, "--a-layout col --b-layout row"),
    (1024, 1024, 8192, "--a-layout col --b-layout row --block-m 128 --warps-m 8 --block-n 256 "
                       "--stages 4 --persistent 8 --cluster 2"),
    (2048, 3072, 768, "--a-layout row --b-layout row"),
    (16, 4096, 4096, "--a-layout col --b-layout row"),
    (40, 1000, 1000, "--a-layout col --b-layout col --dtype f16"),
    (1000, 1000, 1000, "--a-layout row --b-layout row --wgmma --epilogue bias,relu "
                       "--bias-along col"),
    (333, 520, 200, "--a-layout col --b-layout row --wgmma --beta 0.5 --out-dtype f32"),
    (64, 4096, 512, "--a-layout col --b-layout col --wgmma"),
    (256, 384, 512, "--gemm-batch 3 --a-layout col --b-layout row --wgmma"),
    # A batched M-major operand whose K leaves a partial k-tile: packed
    # K-major for wgmma (by the chooser where that beats mma.sync, forced
    # where not), the N-major partner too where K is not a multiple of 8.
    (2048, 2048, 1000, "--gemm-batch 4 --a-layout col"),
    (256, 384, 500, "--gemm-batch 3 --a-layout col --b-layout row --wgmma"),
    (256, 384, 504, "--gemm-batch 2 --a-layout col --wgmma"),
    (128, 4096, 4096, "--wgmma=false"),
    (2048, 3072, 768, "--dtype f16 --wgmma=false"),
    (4097, 4095, 4096, "--wgmma=false"),
    (4096, 4096, 4096, "--wgmma=false"),
    (256, 256, 256, "--block-m 128 --block-n 128 --block-k 32 --stages 3 --wgmma=false"),
    (300, 300, 4000, "--stages 2 --wgmma=false"),
    # Hopper's warpgroup wgmma (sm_90a).
    (64, 64, 64, "--wgmma"),
    (17, 33, 72, "--wgmma"),
    (1000, 1000, 1000, "--wgmma"),
    (1000, 1000, 1000, "--wgmma --dtype f16 --out-dtype f32 --beta -1"),
    (1000, 1000, 1000, "--wgmma --dtype f16 --out-dtype f16 --beta 0.5 --alpha 2"),
    (4097, 4095, 4096, "--wgmma"),
    (4096, 4096, 4096, "--wgmma"),
    (128, 4096, 4096, "--wgmma"),
    (300, 300, 4000, "--wgmma --stages 2"),
    (256, 512, 256, "--wgmma --block-n 256 --stages 3"),
    (192, 200, 128, "--wgmma --warps-m 4 --block-m 64"),
    (1000, 1000, 1000, "--wgmma --block-m 128 --warps-m 8 --block-n 128 --stages 4"),
    (2048, 3072, 768, "--dtype f16"),
    # Persistent grids: blocks taking several tiles each, ragged edges, a
    # block count that divides nothing, beta and f32 out, a ring of 2.
    (1000, 1000, 1000, "--wgmma --block-m 128 --warps-m 8 --block-n 128 --stages 4 --persistent 7"),
    (777, 1500, 1032, "--wgmma --block-m 128 --warps-m 8 --block-n 256 --stages 4 --persistent 5 "
                      "--out-dtype f32 --beta 0.5"),
    (640, 384, 200, "--wgmma --block-m 128 --warps-m 8 --block-n 128 --persistent 3 --stages 2"),
    # Clusters of 2 sharing B tiles by multicast: an odd count of tile rows
    # (the last cluster's second tile past M), ragged edges, beta.
    (1000, 1000, 1000, "--wgmma --block-m 128 --warps-m 8 --block-n 128 --stages 4 "
                       "--persistent 10 --cluster 2"),
    (4097, 4095, 4096, "--wgmma --block-m 128 --warps-m 8 --block-n 256 --stages 4 "
                       "--persistent 132 --cluster 2 --beta 0.5 --out-dtype f32"),
    (4096, 4096, 4096, "--wgmma --block-m 128 --warps-m 8 --block-n 256 --stages 4 "
                       "--persistent 132 --cluster 2 --dtype f16"),
    # A and B swapped (M along wgmma's N): M under the tile, ragged N and
    # K, one and two compute warpgroups, beta, f32 out.
    (1, 4096, 4096, "--wgmma --swap --block-m 8 --block-n 128 --warps-m 8 --stages 8"),
    (5, 24, 8, "--wgmma --swap --block-m 8 --block-n 64 --warps-m 4"),
    (37, 1000, 1032, "--wgmma --swap --block-m 64 --block-n 128 --warps-m 8 --beta 0.5 "
                     "--out-dtype f32"),
    (300, 200, 520, "--wgmma --swap --block-m 128 --block-n 128 --warps-m 8 --stages 4 "
                    "--dtype f16"),
    # Split reductions added in a cluster: swapped and not, a split count
    # that divides neither K's tiles nor the fragments, beta, f16.
    (1, 4096, 4096, "--wgmma --swap --block-m 8 --block-n 128 --warps-m 8 --split-k 4"),
    (16, 4096, 14336, "--wgmma --swap --block-m 16 --block-n 64 --warps-m 4 --split-k 3 "
                      "--dtype f16"),
    (37, 1000, 1032, "--wgmma --swap --block-m 64 --block-n 128 --warps-m 8 --split-k 5 "
                     "--beta 0.5"),
    (100, 300, 1000, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --stages 4 --split-k 3 "
                     "--beta 0.5 --out-dtype f32"),
    (128, 4096, 4096, "--wgmma --block-m 64 --block-n 128 --warps-m 4 --split-k 8"),
    (3, 50, 200, "--wgmma --swap --block-m 8 --block-n 64 --warps-m 4 --split-k 4"),
    # The chooser's decoding picks of 128-row swapped tiles: split by 3, by 2
    # (ragged N and K), unsplit.
    (16, 4608, 4096, "--wgmma"),
    (24, 6000, 3000, "--wgmma"),
    (64, 9216, 4096, "--wgmma"),
    # Ping-pong compute warpgroups: blocks with an odd count of tiles, a
    # cluster of 2 sharing B, beta, f32 out, a ring of 2, the chooser's.
    (1000, 1000, 1000, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --stages 4 --pingpong "
                       "--persistent 7"),
    (777, 1500, 1032, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --stages 4 --pingpong "
                      "--persistent 5 --beta 0.5 --out-dtype f32"),
    (1000, 1000, 1000, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --stages 4 --pingpong "
                       "--persistent 10 --cluster 2"),
    (640, 384, 200, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --stages 2 --pingpong "
                    "--persistent 3"),
    (2048, 3072, 768, "--dtype f16 --wgmma"),
    # Widths that are not powers of 2: 192 (a block a tile and persistent,
    # beta, f32 out), 24, 40 split 3 ways, and M = 40 swapped.
    (512, 6144, 4096, "--wgmma --block-m 128 --block-n 192 --warps-m 8 --stages 4"),
    (777, 1500, 1032, "--wgmma --block-m 128 --block-n 192 --warps-m 8 --stages 4 "
                      "--persistent 5 --beta 0.5 --out-dtype f32"),
    (300, 1000, 200, "--wgmma --block-m 128 --block-n 24 --warps-m 8 --stages 4"),
    (100, 1000, 1000, "--wgmma --block-m 128 --block-n 40 --warps-m 8 --stages 4 --split-k 3"),
    (37, 1000, 512, "--wgmma --swap --block-m 40 --block-n 64 --warps-m 4"),
    # The chooser's widths of 16 columns filling the waves (128 x 160 pairs
    # on a persistent grid, 128 x 224 a block a tile and persistent, ragged)
    # and its 64-row tiles over short reductions.
    (512, 10240, 8192, ""),
    (128, 28672, 4096, ""),
    (512, 28672, 4096, "--beta 0.5 --out-dtype f32"),
    (1000, 3000, 2024, "--wgmma --block-m 128 --block-n 176 --warps-m 8 --stages 4 "
                       "--persistent 10 --cluster 2"),
    (1000, 1000, 1000, ""),
    (1000, 1000, 1000, "--wgmma --block-m 64 --block-n 64 --warps-m 4 --stages 4 --beta 0.5"),
    (512, 512, 512, ""),
    # Fused epilogues: bias along columns or rows, scale, residual and each
    # activation, in several orders, on mma.sync and on wgmma (a block a
    # tile, persistent, ping-pong, swapped, split K, cluster), ragged edges.
    (1000, 1000, 1000, "--wgmma=false --epilogue bias,gelu_tanh"),
    (336, 520, 200, "--wgmma=false --a-layout col --b-layout row --epilogue "
                    "scale,bias,relu,residual --bias-along row --beta 0.5 --out-dtype f32"),
    (1000, 1000, 1000, "--wgmma=false --dtype f16 --epilogue gelu_erf"),
    (17, 33, 72, "--wgmma=false --epilogue bias,silu --bias-along row"),
    (1000, 1000, 1000, "--wgmma --epilogue bias,gelu_tanh"),
    (1000, 1000, 1000, "--wgmma --epilogue bias,gelu_erf --bias-along row --out-dtype f32"),
    (777, 1500, 1032, "--wgmma --block-m 128 --block-n 256 --warps-m 8 --stages 4 "
                      "--persistent 5 --epilogue residual,bias,silu --beta -1"),
    (777, 1500, 1032, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --stages 4 --pingpong "
                      "--persistent 5 --epilogue scale,bias,gelu_tanh --scale-along row"),
    (37, 1000, 1032, "--wgmma --swap --block-m 64 --block-n 128 --warps-m 8 --epilogue "
                     "bias,relu --bias-along row --dtype f16"),
    (37, 1000, 1032, "--wgmma --swap --block-m 64 --block-n 128 --warps-m 8 --split-k 3 "
                     "--epilogue scale,bias,gelu_erf"),
    (4097, 4095, 4096, "--wgmma --block-m 128 --warps-m 8 --block-n 256 --stages 4 "
                       "--persistent 132 --cluster 2 --epilogue bias,gelu_tanh,residual "
                       "--beta 0.5"),
    (8192, 8192, 8192, "--epilogue bias,gelu_tanh"),
    # The pre-activation stored beside D (poisoned first): mma.sync, wgmma
    # staged and ping-pong tiles, swapped, after scale/residual steps.
    (1000, 1000, 1000, "--wgmma=false --epilogue bias,gelu_tanh --store-pre-activation"),
    (1000, 1000, 1000, "--wgmma --epilogue bias,gelu_erf --bias-along row --out-dtype f32 "
                       "--store-pre-activation"),
    (777, 1500, 1032, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --stages 4 --pingpong "
                      "--persistent 5 --epilogue scale,bias,silu --scale-along row "
                      "--store-pre-activation"),
    (37, 1000, 1032, "--wgmma --swap --block-m 64 --block-n 128 --warps-m 8 --epilogue "
                     "residual,relu --beta 0.5 --dtype f16 --store-pre-activation"),
    (4096, 4096, 4096, "--epilogue bias,gelu_tanh --store-pre-activation"),
    (128, 4096, 4096, "--epilogue bias,silu"),
    # Operands packed first into a K-major workspace: a contiguous dimension
    # that is not a multiple of 8 (K, or M and N), on wgmma and mma.sync;
    # f32 inputs at each precision, M- and N-major, with an epilogue, a
    # batch sharing B, bf16 out, beta.
    (7, 1000, 999, ""),
    (7, 1000, 999, "--wgmma=false"),
    (257, 257, 257, "--a-layout col --b-layout row"),
    (1001, 999, 1003, "--dtype f16 --a-layout col --b-layout col --beta 0.5 --out-dtype f32"),
    (4095, 4095, 4095, ""),
    (1000, 1000, 1000, "--dtype f32"),
    (1000, 1000, 1000, "--dtype f32 --precision high"),
    (1000, 1000, 1000, "--dtype f32 --precision medium --out-dtype bf16"),
    (1000, 1000, 1000, "--dtype f32 --wgmma=false"),
    (300, 200, 100, "--dtype f32 --a-layout col --b-layout row --epilogue bias,gelu_tanh "
                    "--bias-along col"),
    (333, 130, 77, "--dtype f32 --gemm-batch 3 --broadcast b --beta -1"),
    (5, 4096, 4096, "--dtype f32"),
    (4096, 4096, 4096, "--dtype f32"),
    # f32 on TF32 tensor cores: read in place (a partial k-tile), packed
    # where K is not a multiple of 4 or an operand is M- or N-major, a batch
    # sharing B, small M swapped, split K, an epilogue, each output dtype.
    (1000, 1000, 1000, "--dtype f32 --precision tf32"),
    (1001, 999, 1003, "--dtype f32 --precision tf32 --beta 0.5"),
    (512, 300, 260, "--dtype f32 --precision tf32 --a-layout col --b-layout row "
                    "--out-dtype bf16"),
    (333, 130, 64, "--dtype f32 --precision tf32 --gemm-batch 3 --broadcast b --beta -1"),
    (5, 4096, 4096, "--dtype f32 --precision tf32"),
    (128, 4096, 4096, "--dtype f32 --precision tf32 --out-dtype f16"),
    (4096, 4096, 4096, "--dtype f32 --precision tf32 --epilogue bias,gelu_tanh "
                       "--bias-along col"),
    (2048, 2048, 8192, "--dtype f32 --precision tf32"),
    # Grouped GEMMs: random group sizes (empty groups too) read on the
    # device, ragged groups, 1 and 64 groups, ping-pong (short K) and wide
    # tiles, an epilogue with a bias along columns, beta, f16 and f32 out.
    (1000, 512, 256, "--groups 5"),
    (8192, 4096, 4096, "--groups 8"),
    (3000, 1000, 1032, "--groups 64 --dtype f16 --out-dtype f32"),
    (777, 384, 520, "--groups 1"),
    (2048, 768, 512, "--groups 16 --beta 0.5 --epilogue residual,bias,silu"),
    (100, 200, 64, "--groups 7 --wgmma --block-m 128 --block-n 128 --warps-m 8 --persistent 3"),
    # B N-major (a (G, K, N) weight; a grouped GEMM's backward reads the
    # forward's B so): ragged N, ping-pong and wide tiles.
    (1000, 520, 256, "--groups 5 --b-layout row"),
    (4096, 2048, 1024, "--groups 8 --b-layout row --dtype f16"),
    (3000, 1000, 4096, "--groups 12 --b-layout row --beta 0.5 --out-dtype f32"),
    (8192, 4096, 2048, "--groups 8 --b-layout row"),
    # Groups splitting K (a grouped GEMM's weight gradient: each group's
    # rows of K into its own matrix of D): random cuts, empty groups, the
    # last k-tile of a group cut at its end, wide tiles, beta, f32 out.
    (1024, 512, 3000, "--groups 5 --groups-along k --a-layout col --b-layout row"),
    (1000, 520, 777, "--groups 3 --groups-along k --a-layout col --b-layout row --beta 0.5 "
                     "--dtype f16"),
    (200, 136, 100, "--groups 20 --groups-along k --a-layout col --b-layout row"),
    (512, 256, 1000, "--groups 1 --groups-along k --a-layout col --b-layout row --out-dtype f32"),
    (4096, 4096, 8192, "--groups 8 --groups-along k --a-layout col --b-layout row "
                       "--out-dtype f32"),
    # Batches (grid z, or among a persistent grid's tiles): ragged problems,
    # A or B shared by the batch, every kernel kind, an epilogue, beta.
    (100, 60, 72, "--gemm-batch 3 --wgmma=false"),
    (104, 64, 72, "--gemm-batch 3 --wgmma=false --a-layout col --b-layout row --dtype f16 "
                  "--broadcast a --beta 0.5 --out-dtype f32"),
    (100, 60, 72, "--gemm-batch 5 --wgmma"),
    (300, 200, 520, "--gemm-batch 4 --wgmma --broadcast b --epilogue bias,gelu_tanh"),
    (300, 200, 520, "--gemm-batch 4 --wgmma --broadcast a --beta 0.5"),
    (777, 1500, 1032, "--gemm-batch 3 --wgmma --block-m 128 --block-n 256 --warps-m 8 "
                      "--stages 4 --persistent 7"),
    (1000, 1000, 1000, "--gemm-batch 3 --wgmma --block-m 128 --block-n 128 --warps-m 8 "
                       "--stages 4 --pingpong --persistent 10"),
    (1000, 1000, 2048, "--gemm-batch 2 --wgmma --block-m 128 --block-n 128 --warps-m 8 "
                       "--stages 4 --persistent 10 --cluster 2 --broadcast b"),
    (5, 1000, 1032, "--gemm-batch 6 --wgmma --swap --block-m 8 --block-n 64 --warps-m 4 "
                    "--split-k 3"),
    (16, 4096, 4096, "--gemm-batch 8"),
    (512, 512, 64, "--gemm-batch 64"),
    (2048, 2048, 128, "--gemm-batch 16 --broadcast b --epilogue bias"),
    # A block summing ranges of K apart (k_ranges) writes the bits of the
    # blocks of a cluster splitting K the same way (the reference's digest):
    # a block a tile and persistent, ragged, beta, swapped; and the
    # batch-invariant chooser's kernels for small and large M.
    (300, 500, 1000, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --k-ranges 3",
     "--wgmma --block-m 128 --block-n 128 --warps-m 8 --split-k 3"),
    (777, 1500, 1032, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --persistent 5 "
                      "--k-ranges 2 --beta 0.5", "--wgmma --block-m 128 --block-n 128 "
                      "--warps-m 8 --split-k 2 --beta 0.5"),
    (37, 1000, 1032, "--wgmma --swap --block-m 64 --block-n 128 --warps-m 8 --k-ranges 5",
     "--wgmma --swap --block-m 64 --block-n 128 --warps-m 8 --split-k 5"),
    (2048, 4096, 4096, "--batch-invariant", "--wgmma --block-m 128 --block-n 128 --warps-m 8 "
                                            "--persistent -1 --split-k 2"),
    (128, 4096, 4096, "--batch-invariant", "--wgmma --block-m 128 --block-n 128 --warps-m 8 "
                                           "--split-k 2"),
    (1000, 3000, 1032, "--wgmma --block-m 128 --block-n 192 --warps-m 8 --persistent 8 "
                       "--cluster 2 --k-ranges 2", "--wgmma --block-m 128 --block-n 192 "
                       "--warps-m 8 --split-k 2 --stages 2"),
    (100, 6144, 4096, "--batch-invariant", "--wgmma --swap --block-m 104 --block-n 64 "
                                           "--warps-m 4"),
    # Tiles wider than 192 columns keep the sums of the ranges before the
    # last in the workspace: pairs, ragged with beta and f32 out, four
    # ranges with an epilogue, the batch-invariant chooser's at M = 2048.
    (1000, 3000, 1032, "--wgmma --block-m 128 --block-n 256 --warps-m 8 --persistent 8 "
                       "--cluster 2 --k-ranges 3", "--wgmma --block-m 128 --block-n 128 "
                       "--warps-m 8 --split-k 3"),
    (777, 1500, 1032, "--wgmma --block-m 128 --block-n 256 --warps-m 8 --persistent 5 "
                      "--k-ranges 2 --beta 0.5 --out-dtype f32", "--wgmma --block-m 128 "
                      "--block-n 128 --warps-m 8 --split-k 2 --beta 0.5 --out-dtype f32"),
    (300, 700, 2000, "--wgmma --block-m 128 --block-n 240 --warps-m 8 --persistent 3 "
                     "--k-ranges 4 --epilogue bias,gelu_tanh", "--wgmma --block-m 128 "
                     "--block-n 128 --warps-m 8 --split-k 4 --epilogue bias,gelu_tanh"),
    (2048, 4096, 14336, "--batch-invariant", "--wgmma --block-m 128 --block-n 128 --warps-m 8 "
                                             "--persistent -1 --split-k 2"),
    # Stream-K: whole rounds of tiles then the last tiles' k-tiles shared,
    # partial sums handed on through the workspace: under one round (tiles
    # split between two blocks, or among four), ragged edges with rounds
    # before, beta and f32 out, an epilogue with its pre-activation, a
    # batch, M-major A, TF32, f16, two k-tiles a tile; clusters of two
    # sharing B (an odd count of tile rows: the last cluster's second tile
    # past M).
    (1024, 1536, 8192, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --persistent 132 "
                       "--stream-k"),
    (256, 256, 4096, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --persistent 16 "
                     "--stream-k"),
    (1000, 1000, 1000, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --persistent 10 "
                       "--stream-k --beta 0.5 --out-dtype f32"),
    (777, 1500, 1032, "--wgmma --block-m 128 --block-n 256 --warps-m 8 --persistent 7 "
                      "--stream-k --epilogue bias,gelu_tanh --bias-along col "
                      "--store-pre-activation"),
    (256, 384, 512, "--gemm-batch 3 --wgmma --block-m 128 --block-n 128 --warps-m 8 "
                    "--persistent 5 --stream-k"),
    (1000, 1000, 1000, "--a-layout col --wgmma --block-m 128 --block-n 128 --warps-m 8 "
                       "--persistent 9 --stream-k"),
    (500, 700, 900, "--dtype f32 --precision tf32 --wgmma --block-m 128 --block-n 128 "
                    "--warps-m 8 --persistent 11 --stream-k"),
    (4097, 4095, 4096, "--dtype f16 --wgmma --block-m 128 --block-n 256 --warps-m 8 "
                       "--persistent 132 --stream-k"),
    (1000, 1000, 100, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --persistent 60 "
                      "--stream-k"),
    (1024, 1536, 8192, "--wgmma --block-m 128 --block-n 256 --warps-m 8 --persistent 132 "
                       "--cluster 2 --stream-k"),
    (777, 1500, 1032, "--wgmma --block-m 128 --block-n 128 --warps-m 8 --persistent 10 "
                      "--cluster 2 --stream-k --beta 0.5 --out-dtype f32"),
    # The chooser's pairs sharing B where B's rows lie off the L2's sectors
    # (K = 3000, 1000): 47 tile rows (the last pair's second tile past M),
    # a short reduction in 128 x 192 tiles with beta and f32 out, f16, one
    # round of pairs (128 x 240, 64 x 128, 128 x 256); and its
    # deeper rings for blocks of one round (6 stages of 128 x 128, 5 of
    # 128 x 176).
    (6000, 2000, 3000, ""),
    (3000, 3000, 1000, "--beta 0.5 --out-dtype f32"),
    (1500, 2500, 3000, ""),
    (1000, 1000, 1000, "--beta 0.5 --out-dtype f32"),
    (2048, 2048, 1000, "--dtype f16"),
    (1200, 5000, 3000, "--dtype f16"),
    (384, 5120, 5120, ""),
    (256, 11008, 4096, ""),
    # Tiles narrower than 256 where those pad fewer columns: the chooser's
    # 128 x 160 at N = 640, and 240 columns in pairs with an epilogue.
    (3500, 640, 8192, ""),
    (1300, 900, 3000, "--wgmma --block-m 128 --block-n 240 --warps-m 8 --persistent 20 "
                      "--cluster 2 --stream-k --epilogue bias,relu --bias-along col"),
    # The chooser's 64 x 128 tiles in 8 stages for one row over long
    # reductions (M = 96: the second tile row half past M), swapped where
    # those would fill under half the SMs (M = 100 along wgmma's N of 104,
    # K split in 3; M = 96 with beta and f32 out), 64-row tiles
    # where 128-row ones pad M (64 x 144 in 8 stages; 64 x 176 pairs over a
    # short reduction off the sectors; ragged M, N and K), one round 80%
    # full instead of stream-K (128 x 208 pairs, a block a tile; 128 x 160
    # with beta), and stream-K where no round fills (128 x 224 pairs).
    (128, 6144, 4096, ""),
    (96, 5120, 4096, "--out-dtype f32"),
    (100, 1000, 14336, ""),
    (96, 2048, 8192, "--beta 0.5 --out-dtype f32"),
    (192, 6144, 4096, ""),
    (96, 11008, 1000, "--dtype f16"),
    (200, 6100, 4040, ""),
    (3000, 1000, 3000, ""),
    (3000, 1000, 6000, "--beta 0.5"),
    (3500, 640, 4096, "--beta 0.5 --out-dtype f32"),
    (2328, 888, 8192, ""),
]


def main():
    args = check_arguments()
    def command(m, n, k, extra):
        return [args.spio_jit, "--workload", "gemm", "--m", str(m), "--n", str(n), "--k", str(k),
                "--check", "--seed", str(m * 7 + n * 3 + k)] + extra.split()
    # A fifth entry: the flags of a reference run whose output must have the
    # same bits.
    run_check_cases([
        (f"{m}x{n}x{k} {extra}".strip(), command(m, n, k, extra),
         *[command(m, n, k, reference) for reference in rest])
        for m, n, k, extra, *rest in CASES], args.only, args.compile_only, args.jobs)


if __name__ == "__main__":
    main()
