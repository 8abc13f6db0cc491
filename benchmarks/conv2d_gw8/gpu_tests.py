#!/usr/bin/env python3
"""GPU tests of conv2d-gw8 fprop, dgrad and wgrad, stride 1 and 2:
spio-jit --check (float64 reference on a poisoned output, 10 bit-identical runs) over edge cases."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check_arguments, run_check_cases  # noqa: E402

CASES = [
    # n, c, h, w, r, s, pad_h, pad_w, extra
    (1, 8, 5, 5, 3, 3, 1, 1, ""),
    (2, 64, 56, 56, 3, 3, 1, 1, "--bias"),
    (3, 24, 17, 29, 5, 5, 2, 2, "--bias"),
    (2, 16, 9, 9, 7, 7, 3, 3, ""),
    (2, 32, 12, 12, 1, 1, 0, 0, "--bias"),
    (2, 40, 15, 20, 3, 5, 0, 2, ""),
    (1, 48, 33, 70, 3, 3, 0, 0, "--dtype bf16 --bias"),
    (4, 1248, 8, 8, 5, 5, 2, 2, ""),
    (2, 16, 100, 130, 3, 3, 2, 1, "--dtype bf16"),
    (1, 8, 5, 5, 3, 3, 1, 1, "--pass dgrad"),
    (2, 64, 56, 56, 3, 3, 1, 1, "--pass dgrad"),
    (3, 24, 17, 29, 5, 3, 2, 1, "--pass dgrad"),
    (2, 16, 9, 9, 7, 7, 3, 3, "--pass dgrad --dtype bf16"),
    (2, 32, 12, 12, 1, 1, 0, 0, "--pass dgrad"),
    (4, 1248, 8, 8, 5, 5, 2, 2, "--pass dgrad"),
    (2, 40, 15, 20, 3, 5, 0, 2, "--pass dgrad"),
    (2, 32, 21, 20, 3, 3, 1, 1, "--stride 2"),
    (2, 64, 56, 56, 3, 3, 1, 1, "--stride 2 --bias"),
    (1, 24, 17, 33, 5, 5, 2, 2, "--stride 2 --dtype bf16"),
    (2, 16, 14, 14, 7, 7, 3, 3, "--stride 2"),
    (2, 16, 9, 9, 1, 1, 0, 0, "--stride 2"),
    (2, 40, 15, 20, 3, 5, 0, 2, "--stride 2"),
    (8, 1248, 16, 16, 5, 5, 2, 2, "--stride 2 --bias"),
    (2, 32, 21, 20, 3, 3, 1, 1, "--pass dgrad --stride 2"),
    (2, 64, 56, 56, 3, 3, 1, 1, "--pass dgrad --stride 2"),
    (1, 24, 17, 33, 5, 5, 2, 2, "--pass dgrad --stride 2 --dtype bf16"),
    (2, 16, 14, 14, 7, 7, 3, 3, "--pass dgrad --stride 2"),
    (2, 16, 9, 9, 1, 1, 0, 0, "--pass dgrad --stride 2"),
    (2, 40, 15, 20, 3, 5, 0, 2, "--pass dgrad --stride 2"),
    (8, 1248, 16, 16, 5, 5, 2, 2, "--pass dgrad --stride 2"),
    # Flattened rows (one image) in a loop of bands per block: chunks that
    # split the bands unevenly, rows that do not divide the height.
    (1, 40, 13, 7, 3, 3, 1, 1, "--rows-p 5 --chunks 2 --bias"),
    # Stride-2 dgrad of images of 7 columns: rows of fragments (flattened,
    # this case ran wrong), in a band ring.
    (5, 40, 7, 7, 3, 3, 1, 1, "--pass dgrad --stride 2 --chunks 2"),
    (3, 24, 20, 20, 5, 5, 2, 2, "--pass dgrad --rows-p 7 --chunks 4 --dtype bf16"),
    # 5x5 on 18x18: 3 images side by side in one 64-column tile of 2
    # groups, the last row of images short of one (N = 5).
    (5, 32, 18, 18, 5, 5, 2, 2, "--bias"),
    (5, 40, 18, 18, 5, 5, 2, 2, "--pass dgrad --dtype bf16"),
    # One bias fragment starts every row's sums in every band of a ring.
    (3, 24, 20, 20, 5, 5, 2, 2, "--rows-p 7 --chunks 4 --bias"),
    # Even S: tap pairs without a zero tap.
    (2, 24, 13, 18, 2, 4, 1, 2, "--bias"),
    (2, 24, 11, 21, 6, 2, 3, 1, "--pass dgrad"),
    (2, 16, 19, 23, 4, 6, 1, 3, "--stride 2"),
    # Stride-2 dgrad skips the upsampled dy's zero rows where blocks start at
    # even rows: even R, odd padding, and odd rows-p (no skipping) too.
    (2, 16, 19, 23, 4, 6, 1, 3, "--pass dgrad --stride 2"),
    (2, 32, 21, 20, 3, 3, 1, 1, "--pass dgrad --stride 2 --rows-p 7"),
    (1, 24, 30, 17, 2, 3, 0, 1, "--pass dgrad --stride 2 --rows-p 6"),
    (2, 16, 12, 10, 1, 1, 0, 0, "--pass dgrad --stride 2 --rows-p 4"),
    (1, 8, 5, 5, 3, 3, 1, 1, "--pass wgrad"),
    (2, 64, 56, 56, 3, 3, 1, 1, "--pass wgrad"),
    (3, 24, 17, 29, 5, 3, 2, 1, "--pass wgrad --dtype bf16"),
    (2, 16, 9, 9, 7, 7, 3, 3, "--pass wgrad"),
    (2, 32, 12, 12, 1, 1, 0, 0, "--pass wgrad --out-dtype f32"),
    (4, 1248, 8, 8, 5, 5, 2, 2, "--pass wgrad"),
    (2, 40, 15, 20, 3, 5, 0, 2, "--pass wgrad"),
    (2, 16, 100, 130, 3, 3, 2, 1, "--pass wgrad --out-dtype f32"),
    (32, 64, 56, 56, 3, 3, 1, 1, "--pass wgrad --chunks 7"),
    # The chooser's refitted blocks: 3x3 of 9 groups as 1 x 8 (7 of
    # the 16 groups of its second group tile past C), 5x5 of one image a
    # column tile as 1 x 4, and 10 groups as 1 x 4 (2 of 12 past C).
    (3, 72, 32, 30, 3, 3, 1, 1, "--pass wgrad"),
    (4, 160, 28, 28, 5, 5, 2, 2, "--pass wgrad --dtype bf16"),
    (2, 80, 56, 56, 5, 5, 2, 2, "--pass wgrad"),
    # Warps along the pixels add their partial sums in shared memory: 8
    # along q (13 sums), 2 along flattened rows (bf16), and 32 along q,
    # whose sums go through shared memory one a round.
    (2, 16, 40, 128, 5, 5, 2, 2, "--pass wgrad --warps-m 8 --warps-n 1"),
    (16, 32, 10, 10, 3, 3, 1, 1, "--pass wgrad --warps-m 2 --warps-n 4 --dtype bf16"),
    (1, 8, 20, 512, 5, 5, 2, 2, "--pass wgrad --warps-m 32 --warps-n 1 --rows-p 2 --out-dtype f32"),
    # The reduce as a plain grid after the partial sums (as where the
    # driver lacks cuLaunchKernelEx): the same sums.
    (2, 64, 56, 56, 3, 3, 1, 1, "--pass wgrad --dependent-launch=false"),
    # wgrad in one kernel, its blocks adding their partial sums in a
    # cluster: flattened rows, 2 warps along the pixels (sums added in
    # shared memory first), row pairs, f32 dw, stride 2.
    (4, 2112, 8, 8, 3, 3, 1, 1, "--pass wgrad --wgrad-cluster-reduce"),
    (2, 768, 28, 28, 5, 5, 2, 2, "--pass wgrad --wgrad-cluster-reduce --warps-m 2 --warps-n 2"),
    (3, 64, 20, 17, 5, 5, 2, 1, "--pass wgrad --wgrad-cluster-reduce --dtype bf16"),
    (2, 256, 9, 9, 3, 3, 1, 1, "--pass wgrad --wgrad-cluster-reduce --out-dtype f32"),
    (2, 96, 28, 28, 5, 5, 2, 2, "--pass wgrad --wgrad-cluster-reduce --stride 2"),
    # The reduce in blocks of whole channels drops the partial sums it read
    # from L2 unwritten: the same sums (flattened rows of many partials, 2
    # splits a channel, 5x5 one channel a block, 5x3, 1x1, and 7x7, whose
    # channels span blocks); and a layer over 3/4 of the L2, which discards
    # by default, without.
    (16, 768, 8, 8, 3, 3, 1, 1, "--pass wgrad --wgrad-discard-partials=always"),
    (4, 64, 30, 30, 3, 3, 1, 1, "--pass wgrad --wgrad-discard-partials=always"),
    (4, 64, 20, 20, 5, 5, 2, 2, "--pass wgrad --wgrad-discard-partials=always --dtype bf16"),
    (4, 48, 30, 30, 5, 3, 2, 1, "--pass wgrad --wgrad-discard-partials=always --dtype bf16"),
    (2, 32, 64, 64, 1, 1, 0, 0, "--pass wgrad --wgrad-discard-partials=always --out-dtype f32"),
    (2, 32, 24, 24, 7, 7, 3, 3, "--pass wgrad --wgrad-discard-partials=always"),
    (128, 1248, 8, 8, 3, 3, 1, 1, "--pass wgrad --wgrad-discard-partials=never"),
    # The row ring: a band that continues its column tile takes its first
    # R - 1 rows of x from the band before in shared memory (5x5 in 4
    # row tiles, 3x3 of 8 groups, 7x7, bf16 and chunks that end inside a
    # column tile, 3 stages, images side by side in 2 x 2 blocks, 3 stages
    # where the chooser takes 2).
    (4, 160, 28, 28, 5, 5, 2, 2, "--pass wgrad --wgrad-row-ring"),
    (2, 64, 56, 56, 3, 3, 1, 1, "--pass wgrad --wgrad-row-ring"),
    (2, 32, 24, 24, 7, 7, 3, 3, "--pass wgrad --wgrad-row-ring"),
    (3, 64, 30, 40, 5, 3, 2, 1, "--pass wgrad --wgrad-row-ring --dtype bf16 --chunks 5"),
    (4, 32, 112, 112, 3, 3, 1, 1, "--pass wgrad --wgrad-row-ring --chunks 4"),
    (6, 640, 14, 7, 5, 5, 2, 2, "--pass wgrad --wgrad-row-ring"),
    (4, 160, 28, 28, 5, 5, 2, 2, "--pass wgrad --wgrad-row-ring --wgrad-stages 3"),
    # The chooser's ring: 5x5 whose column tiles take two bands (18x18's
    # three images side by side in 9-row bands, 14x14 with f32 dw and
    # chunks that split a column tile), and one turned off.
    (5, 96, 18, 18, 5, 5, 2, 2, "--pass wgrad"),
    (7, 64, 14, 14, 5, 5, 2, 2, "--pass wgrad --out-dtype f32 --chunks 3"),
    (5, 96, 18, 18, 5, 5, 2, 2, "--pass wgrad --wgrad-row-ring=false"),
    # The reduce adds 4 channels a lane where its grid still fills the
    # multiprocessors (5x5): 12 partials in one split, f16 and f32 dw; 39
    # partials in 2 splits whose blocks of whole channels discard.
    (8, 1024, 14, 14, 5, 5, 2, 2, "--pass wgrad"),
    (8, 1024, 14, 14, 5, 5, 2, 2, "--pass wgrad --out-dtype f32"),
    (96, 320, 14, 14, 5, 5, 2, 2, "--pass wgrad --wgrad-discard-partials=always --dtype bf16"),
    # ... and as many as --wgrad-reduce-lane-elements says (2 and 4 on 3x3,
    # in splits and in blocks of whole channels; 4 on 7x7).
    (16, 32, 20, 40, 3, 3, 1, 1, "--pass wgrad --chunks 72 --wgrad-reduce-lane-elements 2"),
    (4, 96, 20, 20, 3, 3, 1, 1,
     "--pass wgrad --wgrad-reduce-lane-elements 4 --wgrad-discard-partials=always --out-dtype f32"),
    (2, 64, 24, 24, 7, 7, 3, 3, "--pass wgrad --wgrad-reduce-lane-elements 4 --dtype bf16"),
    # wgrad with a bias: db from two more kernels. One channel vector a
    # step of 256 pixels (C8), a block's pixels over several slots (C64),
    # 288 vectors 144 a step (C2304), one pixel, stride 2 with bf16 and an
    # f32 dw and db, autotuned (every candidate's dw and db the same).
    (4, 8, 9, 9, 3, 3, 1, 1, "--pass wgrad --bias"),
    (32, 64, 56, 56, 3, 3, 1, 1, "--pass wgrad --bias"),
    (16, 2304, 7, 7, 3, 3, 1, 1, "--pass wgrad --bias --dtype bf16"),
    (1, 64, 1, 1, 1, 1, 0, 0, "--pass wgrad --bias"),
    (3, 96, 57, 41, 5, 5, 2, 2, "--pass wgrad --bias --stride 2 --dtype bf16 --out-dtype f32"),
    (8, 160, 28, 28, 5, 5, 2, 2, "--pass wgrad --bias --autotune"),
    # The reduce launched as the partial sums' blocks start: the same sums.
    (16, 768, 8, 8, 3, 3, 1, 1, "--pass wgrad --wgrad-early-launch"),
    (3, 64, 20, 17, 5, 5, 2, 1, "--pass wgrad --wgrad-early-launch --dtype bf16"),
    # Flattened rows (narrow images): odd warps along the pixels, rows that
    # do not divide the height, S = 1, many groups, few chunks.
    (1, 40, 7, 7, 3, 3, 1, 1, "--pass wgrad --warps-m 3"),
    (2, 64, 20, 20, 3, 3, 1, 1, "--pass wgrad --rows-p 7"),
    (3, 24, 10, 13, 3, 1, 1, 0, "--pass wgrad --dtype bf16"),
    (4, 2688, 10, 10, 3, 3, 1, 1, "--pass wgrad --chunks 5"),
    (2, 32, 21, 20, 3, 3, 1, 1, "--pass wgrad --stride 2"),
    (1, 24, 17, 33, 5, 5, 2, 2, "--pass wgrad --stride 2 --dtype bf16"),
    (2, 16, 14, 14, 7, 7, 3, 3, "--pass wgrad --stride 2"),
    (2, 40, 15, 20, 3, 5, 0, 2, "--pass wgrad --stride 2 --out-dtype f32"),
    # Stride-2 3x3 in 8-warp blocks: bands of 3 dy rows (12 rows in 4
    # bands; 19 columns in two tiles, the second short).
    (2, 64, 23, 37, 3, 3, 1, 1, "--pass wgrad --stride 2"),
    # Stride-2 5x5 in 8-warp blocks: bands of 2 dy rows (12 rows in 6).
    (2, 64, 23, 29, 5, 5, 2, 2, "--pass wgrad --stride 2 --dtype bf16"),
    # Stride-2 5x5 and 7x4 fprop in the tallest block that fits the block
    # limit (14 rows; 6 rows).
    (2, 64, 28, 28, 5, 5, 2, 2, "--stride 2 --bias"),
    (2, 128, 33, 47, 7, 4, 3, 1, "--stride 2"),
    # Stride-2 fprop of 4 or more columns in a ring of staged rows
    # (16, 28 and 12 rows; 23 rows in two blocks, the second short).
    (2, 64, 32, 32, 5, 5, 2, 2, "--stride 2"),
    (2, 32, 56, 56, 7, 7, 3, 3, "--stride 2 --bias"),
    (3, 40, 45, 37, 5, 4, 2, 1, "--stride 2 --dtype bf16"),
    # Stride-2 fprop and wgrad of narrow images side by side (an image's
    # padded input columns in pairs, odd and even widths, the last row of
    # images short, bias, 7x1 and 2x4 kernels, bf16, group width 1, f32
    # dw), and stride-2 kernels one column wide, which stage x's even
    # columns alone (fprop and wgrad).
    (9, 64, 5, 5, 3, 3, 1, 1, "--stride 2 --bias"),
    (7, 40, 6, 11, 3, 3, 2, 2, "--stride 2"),
    (5, 24, 9, 7, 5, 5, 2, 2, "--stride 2 --dtype bf16 --bias"),
    (11, 16, 8, 6, 7, 1, 3, 0, "--stride 2"),
    (6, 32, 7, 9, 2, 4, 1, 1, "--stride 2"),
    (10, 64, 4, 4, 3, 3, 1, 1, "--stride 2 --group-width 1"),
    (9, 64, 5, 5, 3, 3, 1, 1, "--pass wgrad --stride 2"),
    (7, 40, 6, 11, 5, 5, 2, 2, "--pass wgrad --stride 2 --out-dtype f32"),
    (11, 16, 8, 6, 7, 7, 3, 3, "--pass wgrad --stride 2 --dtype bf16"),
    (10, 64, 4, 4, 3, 3, 1, 1, "--pass wgrad --stride 2 --group-width 1"),
    (3, 32, 17, 17, 7, 1, 3, 0, "--pass wgrad --stride 2"),
    (2, 48, 12, 14, 1, 1, 0, 0, "--pass wgrad --stride 2 --out-dtype f32"),
    (2, 64, 30, 34, 1, 1, 0, 0, "--stride 2 --bias"),
    # Stride-2 kernels one row tall, which stage x's even rows alone (with
    # padding 1, the odd rows of x): 1x1 and 1x5, fprop (14 rows in a ring
    # of staged rows) and wgrad, group widths 8, 4 and 1.
    (2, 64, 29, 30, 1, 1, 1, 1, "--stride 2"),
    (4, 64, 56, 56, 1, 1, 0, 0, "--stride 2 --rows-p 14 --warps-m 2 --warps-n 8"),
    (3, 40, 20, 37, 1, 5, 0, 2, "--stride 2 --bias --dtype bf16 --group-width 4"),
    (2, 48, 29, 30, 1, 1, 1, 1, "--pass wgrad --stride 2"),
    (3, 40, 20, 37, 1, 5, 0, 2, "--pass wgrad --stride 2 --group-width 1"),
    # Stride-2 fprop and wgrad in 3 and 5 groups a block: staged columns of
    # an odd pitch (7 and 11 vectors: two input columns and one unused).
    (2, 24, 21, 20, 3, 3, 1, 1, "--stride 2 --bias --warps-m 2 --warps-n 3"),
    (3, 40, 17, 33, 5, 5, 2, 2, "--stride 2 --warps-m 2 --warps-n 5"),
    (2, 24, 33, 47, 7, 4, 3, 1, "--stride 2 --dtype bf16"),
    (2, 24, 21, 20, 3, 3, 1, 1, "--pass wgrad --stride 2 --warps-m 2 --warps-n 3"),
    (3, 40, 17, 33, 5, 5, 2, 2, "--pass wgrad --stride 2 --warps-m 1 --warps-n 5"),
    (2, 24, 33, 47, 7, 4, 3, 1, "--pass wgrad --stride 2 --dtype bf16 --out-dtype f32"),
    # Stride-2 3x3 fprop in the tallest block that fits the block limit
    # (16 rows in a ring of 11 staged rows; 5 rows, no ring), not the
    # staged budget (4 and 2 rows).
    (1, 24, 224, 224, 3, 3, 1, 1, "--stride 2 --bias"),
    (2, 40, 100, 144, 3, 3, 1, 1, "--stride 2"),
    # Padding of the kernel size or more: output rows and columns that read
    # only zeros (the bias); dgrad's kernel padding negative (odd and even,
    # stride-2 zero rows skipped); images that would otherwise flatten
    # (N = 1, 7 columns) or go side by side (20x20 5x5, 18x18 wgrad).
    (2, 24, 13, 18, 3, 3, 4, 3, "--bias"),
    (1, 32, 7, 7, 3, 3, 4, 3, "--bias"),
    (2, 16, 19, 23, 5, 3, 6, 4, "--stride 2 --bias --dtype bf16"),
    (2, 16, 9, 9, 1, 1, 2, 1, "--bias"),
    (7, 64, 20, 20, 5, 5, 6, 5, "--pass dgrad"),
    (1, 32, 7, 7, 3, 3, 3, 4, "--pass dgrad"),
    (2, 16, 20, 20, 3, 3, 5, 3, "--pass dgrad --stride 2 --rows-p 4"),
    (2, 24, 17, 29, 5, 5, 7, 6, "--pass dgrad --stride 2 --dtype bf16"),
    (2, 16, 9, 9, 1, 1, 2, 1, "--pass dgrad --stride 2"),
    (2, 32, 20, 20, 3, 3, 4, 3, "--pass wgrad"),
    (1, 16, 7, 7, 3, 3, 3, 5, "--pass wgrad"),
    (5, 32, 18, 18, 5, 5, 5, 7, "--pass wgrad --out-dtype f32"),
    (2, 40, 23, 29, 5, 5, 6, 5, "--pass wgrad --stride 2"),
    (2, 16, 9, 9, 1, 1, 2, 1, "--pass wgrad"),
    # 140000 (image, row tile) bands, over the 65535 a grid holds along y:
    # blocks of 3 bands (a band ring the chooser takes).
    (70000, 8, 17, 30, 3, 3, 1, 1, "--bias"),
    # 5x5 kernels in blocks of up to 20 rows: 40 rows as 2 x 20, 36 as 2 x 18.
    (2, 64, 40, 40, 5, 5, 2, 2, "--bias"),
    (1, 32, 36, 36, 5, 5, 2, 2, "--pass dgrad"),
    # 3 or 5 warps along groups (odd pitches, staged unswizzled): two group
    # tiles, a partial one, flattened rows, images of 7 columns side by
    # side, dgrad's upsampled stride 2.
    (2, 80, 23, 30, 3, 3, 1, 1, "--warps-n 5 --bias"),
    (2, 72, 20, 20, 5, 5, 2, 2, "--pass dgrad --warps-n 5"),
    (1, 40, 7, 7, 5, 5, 2, 2, "--bias"),
    (3, 40, 7, 7, 5, 5, 2, 2, "--bias"),
    (2, 24, 9, 9, 3, 3, 1, 1, "--pass dgrad --stride 2 --warps-n 3"),
    (2, 72, 10, 10, 3, 3, 1, 1, "--pass wgrad --warps-n 3"),
    (2, 40, 12, 31, 3, 3, 1, 1, "--pass wgrad --warps-n 5"),
    # Tiles of 4 and 8 groups over 9 and 25 (the last tile part-filled,
    # every other pixel 16 bytes into a sector), as the model chooses for
    # depthwise C72 (2 x 4 warps on this image).
    (2, 72, 30, 30, 3, 3, 1, 1, "--group-width 1"),
    (2, 72, 30, 30, 3, 3, 1, 1, "--group-width 1 --pass dgrad --dtype bf16"),
    (3, 200, 14, 14, 3, 3, 1, 1, "--group-width 1 --warps-m 1 --warps-n 8 --bias"),
    (3, 200, 14, 14, 3, 3, 1, 1, "--group-width 1 --pass dgrad --warps-m 2 --warps-n 4"),
    # 6 or 7 warps along groups (pitches padded to 7 and 13 vectors,
    # staged unswizzled): C48 rows as the chooser takes them, stride-2
    # staging, flattened rows, images side by side, 5x5, wgrad's tiles,
    # tiles of 5 x 6 warps over rows wider than one tile.
    (3, 48, 37, 29, 3, 3, 1, 1, "--bias"),
    (3, 48, 37, 29, 3, 3, 1, 1, "--pass dgrad --dtype bf16"),
    (2, 48, 38, 30, 3, 3, 1, 1, "--pass dgrad --stride 2"),
    (3, 48, 61, 57, 3, 3, 1, 2, "--stride 2 --bias"),
    (2, 48, 40, 37, 5, 5, 2, 2, "--stride 2 --dtype bf16"),
    (2, 48, 101, 90, 3, 3, 1, 1, "--bias --warps-m 5 --warps-n 6 --rows-p 13"),
    (2, 48, 70, 85, 3, 3, 1, 1, "--pass dgrad --dtype bf16 --warps-m 5 --warps-n 6 --rows-p 14"),
    (2, 48, 97, 99, 3, 3, 1, 1, "--pass dgrad --stride 2 --warps-m 5 --warps-n 6 --rows-p 14"),
    (2, 96, 33, 31, 3, 3, 1, 1, "--stride 2 --warps-m 2 --warps-n 6"),
    (2, 56, 30, 41, 3, 3, 1, 1, "--pass dgrad --stride 2 --warps-m 1 --warps-n 7"),
    (1, 48, 9, 9, 3, 3, 1, 1, "--warps-m 1 --warps-n 6"),
    (8, 96, 8, 8, 3, 3, 1, 1, "--pass dgrad --warps-m 2 --warps-n 6"),
    (2, 96, 20, 20, 5, 5, 2, 2, "--warps-m 2 --warps-n 6 --dtype bf16"),
    (3, 48, 37, 29, 3, 3, 1, 1, "--pass wgrad --warps-m 2 --warps-n 6 --rows-p 8"),
    (4, 48, 10, 10, 3, 3, 1, 1, "--pass wgrad --warps-m 1 --warps-n 6"),
    (2, 56, 30, 41, 5, 5, 2, 2, "--pass wgrad --stride 2 --warps-m 1 --warps-n 7"),
    (4, 96, 28, 28, 5, 5, 2, 2, "--pass wgrad --warps-m 1 --warps-n 6 --out-dtype f32"),
    # wgrad in bands of 10 rows (blocks of 4 warps, one column tile): one
    # band an image, the last band short, f32 dw, 3x7.
    (3, 64, 10, 10, 5, 5, 2, 2, "--pass wgrad"),
    (2, 64, 19, 23, 5, 5, 2, 2, "--pass wgrad --dtype bf16 --out-dtype f32"),
    (2, 64, 30, 17, 3, 7, 1, 3, "--pass wgrad"),
    # 4 groups a block of 4 warps where the score chose 2 x 4; the same
    # layer as the chooser takes it, 2 x 2 warps in 7-row bands, and 3
    # 7x7 (bf16) or 8x8 images side by side in 2 x 2 warps (the last of 7
    # images alone).
    (2, 32, 28, 28, 5, 5, 2, 2, "--pass wgrad --warps-m 1 --warps-n 4 --out-dtype f32"),
    (2, 32, 28, 28, 5, 5, 2, 2, "--pass wgrad --out-dtype f32"),
    (5, 64, 7, 7, 5, 5, 2, 2, "--pass wgrad --dtype bf16"),
    (7, 64, 8, 8, 5, 5, 2, 2, "--pass wgrad"),
    # 10 groups: 2 x 2 warps where the score chose 4 x 2.
    (4, 80, 56, 56, 5, 5, 2, 2, "--pass wgrad"),
    # Rows of fragments in a band ring (chunks): uneven chunks, a partial
    # last row tile, two column tiles, stride 2, dgrad's upsampling, 5x5.
    (5, 64, 30, 40, 3, 3, 1, 1, "--rows-p 8 --chunks 3 --bias"),
    (3, 32, 33, 70, 3, 3, 1, 1, "--stride 2 --rows-p 5 --chunks 2 --dtype bf16"),
    (4, 24, 21, 26, 3, 3, 1, 1, "--pass dgrad --stride 2 --rows-p 8 --chunks 5"),
    (2, 96, 36, 36, 5, 5, 2, 2, "--pass dgrad --rows-p 9 --chunks 3"),
    # Images side by side in rows of 2 to 4 (the last row short of
    # images): 5x5 and 3x3, wgrad's 9-row bands, padding different in H and
    # W, a band ring.
    (5, 24, 18, 18, 5, 5, 2, 2, "--bias"),
    (5, 24, 17, 18, 5, 5, 1, 2, "--dtype bf16 --bias"),
    (7, 24, 18, 18, 5, 5, 2, 2, "--chunks 2"),
    (7, 64, 20, 20, 5, 5, 2, 2, "--pass dgrad --dtype bf16"),
    (5, 32, 9, 9, 5, 5, 2, 2, "--pass dgrad"),
    (5, 16, 9, 9, 3, 3, 1, 1, "--bias"),
    (7, 24, 18, 18, 3, 3, 1, 1, "--pass dgrad"),
    (5, 24, 18, 18, 5, 5, 2, 2, "--pass wgrad"),
    (7, 64, 20, 20, 5, 5, 2, 2, "--pass wgrad --dtype bf16"),
    (5, 24, 17, 18, 5, 5, 1, 2, "--pass wgrad --out-dtype f32"),
    (4, 32, 7, 7, 5, 5, 2, 2, "--pass wgrad"),
    # Images of up to 8 columns side by side: 5 of 8x8 in 48 columns (the
    # last row 2 images), 7x7 in 16 and 32, columns and rows padded
    # differently.
    (7, 64, 8, 8, 3, 3, 1, 1, "--bias"),
    (7, 64, 8, 8, 3, 3, 1, 1, "--pass dgrad --dtype bf16"),
    (3, 32, 7, 7, 3, 3, 1, 1, "--pass dgrad --warps-m 1"),
    (5, 16, 8, 7, 5, 3, 2, 1, "--bias"),
    # 5x5 kernels copy out 4 output rows between barriers: the last group
    # short (26 rows a block, 6 groups and 2 rows; 7 rows, 4 and 3),
    # stride-2 dgrad's skipped zero rows, a band ring; stride-2 fprop
    # copies out every row.
    (2, 32, 26, 26, 5, 5, 2, 2, "--bias"),
    (3, 40, 23, 19, 5, 5, 2, 2, "--pass dgrad --rows-p 7 --dtype bf16"),
    (2, 24, 30, 30, 5, 5, 2, 2, "--stride 2"),
    (2, 16, 26, 22, 5, 5, 2, 2, "--pass dgrad --stride 2"),
    (4, 32, 28, 28, 5, 5, 2, 2, "--rows-p 9 --chunks 3"),
    # Odd S with even R (R = 2 too), one and two output rows a block, a
    # band ring, flattened rows with an even R.
    (2, 24, 14, 19, 4, 5, 1, 2, "--bias"),
    (2, 16, 13, 21, 2, 7, 0, 3, "--pass dgrad --dtype bf16"),
    (2, 16, 11, 12, 5, 5, 2, 2, "--rows-p 1 --bias"),
    (3, 24, 12, 12, 7, 5, 3, 2, "--pass dgrad --rows-p 2 --chunks 2"),
    (1, 32, 9, 9, 6, 5, 2, 2, "--bias"),
    # 36 taps or more: two blocks of 8 warps a multiprocessor, not three;
    # wgrad's 18 partial sums or more: one.
    (4, 64, 20, 20, 6, 6, 3, 3, "--bias"),
    (3, 48, 9, 9, 7, 7, 3, 3, "--pass dgrad --dtype bf16"),
    (2, 32, 30, 30, 7, 5, 3, 2, "--pass wgrad"),
    (2, 24, 36, 36, 7, 7, 3, 3, "--pass wgrad --out-dtype f32"),
    # wgrad bands of 3 or more column tiles: each thread copies one element
    # of a row from every row; stride 2's rows of 136 vectors take a second
    # element for 8 of the 128 threads; the 5x5 one (3 images side by side,
    # rows of 111 vectors) leaves 81 of its 192 threads spare.
    (3, 32, 41, 75, 3, 3, 1, 1, "--pass wgrad --stride 2"),
    (3, 24, 40, 40, 5, 5, 2, 1, "--pass wgrad --dtype bf16 --out-dtype f32"),
    # More than 9 taps or 6 rows or more: held to 80 registers, not 40.
    (2, 32, 33, 47, 7, 4, 3, 2, "--pass dgrad --stride 2"),
    (4, 48, 7, 7, 5, 4, 2, 1, "--pass dgrad --dtype bf16"),
    (4, 48, 7, 7, 7, 1, 3, 0, "--bias"),
    # --autotune: the chosen configuration and its neighbours timed, the
    # fastest checked, and every other's output compared with its bits.
    (2, 192, 72, 72, 3, 3, 1, 1, "--autotune --bias"),
    (3, 192, 36, 36, 3, 3, 1, 1, "--pass dgrad --autotune --dtype bf16"),
    (4, 160, 28, 28, 5, 5, 2, 2, "--autotune --bias"),
    (2, 48, 64, 64, 3, 3, 1, 1, "--pass dgrad --autotune"),
    (2, 64, 33, 47, 3, 3, 1, 1, "--stride 2 --autotune --dtype bf16"),
    (2, 32, 20, 20, 5, 5, 2, 2, "--pass dgrad --stride 2 --autotune"),
    (2, 64, 20, 20, 3, 3, 1, 1, "--pass wgrad --autotune"),
    # The model's two best alone timed.
    (2, 96, 40, 40, 3, 3, 1, 1, "--autotune-candidates 2 --bias"),
    (2, 96, 40, 40, 5, 5, 2, 2, "--pass wgrad --autotune-candidates 2"),
    # 3x3 wgrad in blocks of 8 groups, one a multiprocessor, in 3 stages
    # (6 blocks on 6 multiprocessors), alone and against its 2-stage
    # candidate.
    (4, 192, 72, 72, 3, 3, 1, 1, "--pass wgrad --multiprocessors 6"),
    (4, 192, 72, 72, 3, 3, 1, 1, "--pass wgrad --multiprocessors 6 --autotune --dtype bf16"),
    # wgrad's candidates keep the chosen blocks: 3 stages, the ring toggled
    # (one column tile), the reduce's other lanes; f32 dw and bf16.
    (8, 320, 14, 14, 5, 5, 2, 2, "--pass wgrad --autotune"),
    (16, 96, 16, 16, 3, 3, 1, 1, "--pass wgrad --autotune --dtype bf16 --out-dtype f32"),
    # 5x5 on small images, 4 or more groups a block: the chooser's band
    # ring (each block loops over whole images), alone and against its
    # neighbours of one band a block.
    (48, 512, 16, 16, 5, 5, 2, 2, "--bias --dtype bf16"),
    (64, 480, 14, 14, 5, 5, 2, 2, "--pass dgrad --autotune"),
    # Copy warps: blocks streaming their bands (4 each, the last ragged)
    # through one staged tile, rows signalled through arrive/wait barriers.
    (13, 160, 28, 28, 5, 5, 2, 2, "--copy-warps 2 --chunks 4 --bias"),
    (13, 160, 28, 28, 5, 5, 2, 2, "--pass dgrad --copy-warps 1 --chunks 4 --dtype bf16"),
    (5, 64, 30, 19, 3, 5, 1, 2, "--rows-p 10 --copy-warps 1 --chunks 2"),
    (9, 288, 36, 36, 5, 5, 2, 2, "--copy-warps 2 --chunks 3"),
    # Gapless images (kernels of 5 or more columns): the output columns of
    # images side by side run on without the columns between them, and
    # each lane's A-fragment row is gathered from its image's staged
    # columns; bands short enough to leave 8 or more. 8 images of 28
    # columns in 7 tiles of 32 (the second row of images one image), tiles
    # of 16 on 13x13 crossing two image boundaries, asymmetric padding,
    # 7x7, copy warps, a band ring, 3x5 and 1x5, 36x36, 10x10 and 14x14
    # (6 groups).
    (9, 32, 28, 28, 5, 5, 2, 2, "--bias --rows-p 7"),
    (9, 32, 13, 13, 5, 5, 2, 2, "--warps-m 1 --warps-n 4 --rows-p 4"),
    (9, 24, 21, 26, 5, 5, 1, 3, "--pass dgrad --dtype bf16 --rows-p 5"),
    (9, 16, 25, 25, 7, 7, 3, 3, "--bias --rows-p 5"),
    (9, 32, 28, 28, 5, 5, 2, 2, "--copy-warps 2 --chunks 3 --rows-p 7"),
    (9, 32, 28, 28, 5, 5, 2, 2, "--pass dgrad --chunks 2 --rows-p 7"),
    (16, 24, 15, 22, 3, 5, 1, 2, "--pass dgrad --rows-p 5"),
    (24, 16, 6, 20, 1, 5, 0, 2, "--bias --warps-m 2 --warps-n 2 --rows-p 2"),
    (7, 40, 36, 36, 5, 5, 2, 2, "--pass dgrad --warps-m 1 --rows-p 9"),
    (16, 24, 10, 10, 5, 5, 2, 2, "--warps-m 1 --rows-p 2"),
    (10, 48, 14, 14, 5, 5, 2, 2, "--warps-m 1 --warps-n 6 --dtype bf16 --bias --rows-p 4"),
    (16, 160, 28, 28, 5, 5, 2, 2, "--bias --rows-p 7"),
    # Depthwise and narrow groups on the same kernels (block-diagonal
    # weights; wgrad's reduce stores a group's sums): each pass at stride 1
    # and 2, 3x3, 5x5 and 7x7 (ConvNeXt's, with a bias), flattened rows,
    # images side by side, copy warps, a band ring, bf16, f32 dw, the
    # reduce's lanes of 2 and 4 (a group's), its discard, the cluster's one
    # kernel and wgrad's bias.
    (2, 96, 28, 28, 3, 3, 1, 1, "--group-width 1"),
    (2, 96, 28, 28, 3, 3, 1, 1, "--group-width 1 --pass dgrad"),
    (2, 96, 28, 28, 3, 3, 1, 1, "--group-width 1 --pass wgrad"),
    (2, 144, 56, 56, 3, 3, 1, 1, "--group-width 1 --stride 2"),
    (2, 144, 56, 56, 3, 3, 1, 1, "--group-width 1 --stride 2 --pass dgrad"),
    (2, 144, 56, 56, 3, 3, 1, 1, "--group-width 1 --stride 2 --pass wgrad"),
    (3, 72, 29, 31, 5, 5, 2, 2, "--group-width 1 --stride 2 --dtype bf16"),
    (3, 72, 29, 31, 5, 5, 2, 2, "--group-width 1 --stride 2 --pass dgrad --dtype bf16"),
    (3, 72, 29, 31, 5, 5, 2, 2, "--group-width 1 --stride 2 --pass wgrad --out-dtype f32"),
    # 9 groups (C = 72: every other pixel starts inside a 32-byte sector),
    # each pass.
    (3, 72, 30, 30, 3, 3, 1, 1, "--group-width 1 --bias"),
    (3, 72, 30, 30, 3, 3, 1, 1, "--group-width 1 --pass dgrad --dtype bf16"),
    (3, 72, 30, 30, 3, 3, 1, 1, "--group-width 1 --pass wgrad"),
    (2, 96, 56, 56, 7, 7, 3, 3, "--group-width 1 --bias"),
    (2, 96, 56, 56, 7, 7, 3, 3, "--group-width 1 --pass dgrad"),
    (2, 96, 56, 56, 7, 7, 3, 3, "--group-width 1 --pass wgrad --bias"),
    (4, 768, 7, 7, 7, 7, 3, 3, "--group-width 1 --bias"),
    (4, 768, 7, 7, 7, 7, 3, 3, "--group-width 1 --pass wgrad"),
    (1, 40, 7, 7, 3, 3, 1, 1, "--group-width 1 --bias"),
    (1, 40, 7, 7, 3, 3, 1, 1, "--group-width 2 --pass dgrad"),
    (5, 32, 18, 18, 5, 5, 2, 2, "--group-width 2 --bias"),
    (5, 40, 18, 18, 5, 5, 2, 2, "--group-width 2 --pass wgrad"),
    (2, 64, 56, 56, 3, 3, 1, 1, "--group-width 4 --copy-warps 2 --chunks 8"),
    (3, 24, 20, 20, 5, 5, 2, 2, "--group-width 4 --pass dgrad --rows-p 7 --chunks 4"),
    (2, 128, 56, 56, 3, 3, 1, 1, "--group-width 4 --pass wgrad --dtype bf16"),
    (4, 96, 20, 20, 3, 3, 1, 1,
     "--group-width 2 --pass wgrad --wgrad-reduce-lane-elements 2 --out-dtype f32"),
    (8, 1024, 14, 14, 5, 5, 2, 2, "--group-width 4 --pass wgrad --wgrad-reduce-lane-elements 4"),
    (4, 64, 20, 20, 5, 5, 2, 2, "--group-width 1 --pass wgrad --wgrad-discard-partials=always"),
    (2, 768, 28, 28, 5, 5, 2, 2,
     "--group-width 1 --pass wgrad --wgrad-cluster-reduce --warps-m 2 --warps-n 2"),
    (2, 256, 9, 9, 3, 3, 1, 1,
     "--group-width 2 --pass wgrad --wgrad-cluster-reduce --out-dtype f32"),
]


# A case run with one of these flags must write the bits of the same case
# without it.
SAME_BITS_WITHOUT = ("--wgrad-cluster-reduce", "--wgrad-discard-partials=always",
                     "--wgrad-discard-partials=never", "--wgrad-early-launch")


def main():
    args = check_arguments()
    cases = []
    for n, c, h, w, r, s, ph, pw, extra in CASES:
        cmd = [args.spio_jit, "--workload", "conv2d-gw8", "--batch", str(n), "--channels",
               str(c), "--height", str(h), "--width", str(w), "--r", str(r), "--s", str(s),
               "--pad-h", str(ph), "--pad-w", str(pw), "--check"] + extra.split()
        case = (f"N{n} C{c} {h}x{w} {r}x{s} pad{ph},{pw} {extra}".strip(), cmd)
        if any(flag in cmd for flag in SAME_BITS_WITHOUT):
            case += ([arg for arg in cmd if arg not in SAME_BITS_WITHOUT],)
        cases.append(case)
    run_check_cases(cases, args.only, args.compile_only, args.jobs)


if __name__ == "__main__":
    main()
