#!/usr/bin/env python3
"""GPU tests of the dense conv2d (implicit GEMM on the wgmma kernel, sm_90a,
and on the mma.sync kernel, sm_80 to sm_89, for dense layers):
every case runs spio-jit --workload conv2d --check (float64 CPU reference,
poisoned output, 10 bit-identical runs) and must pass.

Edge cases: padding at every border, strides 1 and 2, dilation, 1x1 and 7x7
filters, channels that are not a multiple of the 64 a k-tile takes, output
channels that are not a multiple of the tile (or of 8), output positions
that run across images and past the last tile, f16 and f32 outputs, the
epilogue (folded batch norm, residual, activations), and the GEMM chooser's
configurations: split K, persistent grids, clusters sharing weight tiles,
ping-pong warpgroups; grouped layers of 64 channels a group or more
(fprop: of any multiple of 8); input
channels that are not a multiple of 8 (x unfolded first).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check_arguments, run_check_cases  # noqa: E402

CASES = [
    # N, H, W, C, K, R, S, stride, padding, extra flags
    (2, 8, 8, 64, 64, 3, 3, 1, 1, ""),
    (1, 5, 7, 8, 8, 3, 3, 1, 1, ""),
    (3, 13, 11, 40, 72, 3, 3, 1, 1, ""),
    (3, 13, 11, 40, 70, 3, 3, 2, 1, ""),
    (2, 17, 9, 24, 48, 5, 3, 2, 2, "--dilation 2"),
    (2, 20, 20, 16, 32, 7, 7, 2, 3, ""),
    (4, 28, 28, 96, 200, 1, 1, 1, 0, ""),
    (4, 28, 28, 256, 128, 1, 1, 2, 0, ""),
    (2, 9, 9, 64, 64, 3, 3, 1, 0, ""),
    (2, 9, 9, 64, 64, 3, 3, 1, 4, ""),
    (2, 14, 14, 128, 128, 3, 3, 1, 1, "--dtype f16 --out-dtype f32"),
    (2, 14, 14, 128, 128, 3, 3, 1, 1, "--epilogue scale,bias,residual,relu"),
    (2, 14, 14, 128, 96, 3, 3, 1, 1, "--dtype f16 --epilogue bias,gelu_erf"),
    # C not a multiple of 8: x and w unfolded first (RGB stems: 7x7 stride
    # 2, 3 filter rows a pixel of x'; 3x3 with an epilogue, all 27 taps in
    # one; 5 channels, dilation 2 and unequal padding through the extra
    # flags; 7 channels in f16; 12 channels of 7 taps, two k-tiles a filter
    # row; stride 3; 9 channels, 2 filter rows a pixel, dilation 3; a row of
    # 2050 pixels unfolded in 3 runs of staged x).
    (4, 36, 40, 3, 64, 7, 7, 2, 3, ""),
    (2, 33, 30, 3, 64, 3, 3, 1, 1, "--epilogue bias,relu"),
    (3, 17, 19, 5, 24, 3, 5, 2, 2, "--dilation 2 --pad-w 1"),
    (2, 16, 16, 7, 40, 3, 3, 1, 1, "--dtype f16 --out-dtype f32"),
    (8, 224, 224, 3, 64, 7, 7, 2, 3, ""),
    (2, 23, 21, 12, 40, 3, 7, 1, 3, "--stride 3 --pad-h 0"),
    (2, 11, 13, 9, 32, 5, 3, 1, 2, "--dilation 3"),
    (1, 9, 2050, 3, 16, 3, 3, 1, 1, ""),
    # Their wgrad: dw' of the unfolded convolution (in parts, or in one
    # with --parts 1), folded back into dw by the reduce kernel.
    (4, 36, 40, 3, 64, 7, 7, 2, 3, "--pass wgrad"),
    (3, 17, 19, 5, 24, 3, 5, 2, 2, "--dilation 2 --pad-w 1 --pass wgrad"),
    (2, 16, 16, 7, 40, 3, 3, 1, 1, "--dtype f16 --out-dtype f32 --pass wgrad"),
    (2, 23, 21, 12, 40, 3, 7, 1, 3, "--stride 3 --pad-h 0 --pass wgrad"),
    (2, 11, 13, 9, 32, 5, 3, 1, 2, "--dilation 3 --pass wgrad"),
    (2, 16, 16, 3, 64, 3, 3, 1, 1, "--pass wgrad --parts 1"),
    (4, 64, 64, 3, 64, 3, 3, 1, 1, "--pass wgrad"),
    (8, 224, 224, 3, 64, 7, 7, 2, 3, "--pass wgrad"),
    # ResNet-50 layers at batch 8 (sampled check) under the chooser's
    # configurations, and the tile options.
    (8, 56, 56, 64, 64, 3, 3, 1, 1, ""),
    (8, 56, 56, 256, 64, 1, 1, 1, 0, ""),
    (8, 28, 28, 128, 128, 3, 3, 1, 1, ""),
    (8, 14, 14, 256, 256, 3, 3, 1, 1, ""),
    (8, 7, 7, 512, 512, 3, 3, 1, 1, ""),
    (8, 14, 14, 1024, 2048, 1, 1, 2, 0, ""),
    (8, 28, 28, 128, 128, 3, 3, 1, 1,
     "--block-m 128 --warps-m 8 --block-n 128 --stages 4 --persistent 9"),
    (8, 28, 28, 128, 256, 3, 3, 1, 1,
     "--block-m 128 --warps-m 8 --block-n 256 --stages 4 --persistent 10 --cluster 2"),
    (8, 28, 28, 128, 128, 3, 3, 1, 1,
     "--block-m 128 --warps-m 8 --block-n 128 --persistent 12 --pingpong"),
    (2, 14, 14, 256, 128, 3, 3, 1, 1, "--block-m 128 --warps-m 8 --block-n 128 --split-k 3"),
    (2, 7, 7, 64, 64, 3, 3, 1, 1, "--block-m 64 --warps-m 4 --block-n 64"),
    # Batch 1: 49 output positions, the reduction split among 8 blocks.
    (1, 7, 7, 512, 512, 3, 3, 1, 1, ""),
    (1, 14, 14, 256, 256, 3, 3, 1, 1, ""),
    (1, 56, 56, 64, 256, 1, 1, 1, 0, ""),
    # dgrad (stride 1): dy gathered with the taps flipped, w's rows read
    # N-major; every border, padding 0 to R - 1, dilation, 1x1 to 7x7, C and
    # K not multiples of 64, f16 -> f32, the chooser's configurations
    # (split K, persistent, clusters, ping-pong) and batch 1.
    (2, 8, 8, 64, 64, 3, 3, 1, 1, "--pass dgrad"),
    (1, 5, 7, 8, 8, 3, 3, 1, 1, "--pass dgrad"),
    (3, 13, 11, 40, 72, 3, 3, 1, 1, "--pass dgrad"),
    (2, 17, 9, 24, 48, 5, 3, 1, 2, "--pass dgrad --dilation 2"),
    (2, 20, 20, 16, 32, 7, 7, 1, 3, "--pass dgrad"),
    (2, 9, 9, 64, 64, 3, 3, 1, 0, "--pass dgrad"),
    (2, 12, 10, 64, 64, 5, 5, 1, 1, "--pass dgrad"),
    (4, 28, 28, 96, 200, 1, 1, 1, 0, "--pass dgrad"),
    (2, 14, 14, 128, 128, 3, 3, 1, 1, "--pass dgrad --dtype f16 --out-dtype f32"),
    (8, 56, 56, 64, 64, 3, 3, 1, 1, "--pass dgrad"),
    (8, 56, 56, 256, 64, 1, 1, 1, 0, "--pass dgrad"),
    (8, 28, 28, 128, 128, 3, 3, 1, 1, "--pass dgrad"),
    (8, 14, 14, 256, 256, 3, 3, 1, 1, "--pass dgrad"),
    (8, 7, 7, 512, 512, 3, 3, 1, 1, "--pass dgrad"),
    (8, 28, 28, 256, 128, 3, 3, 1, 1,
     "--pass dgrad --block-m 128 --warps-m 8 --block-n 256 --stages 4 --persistent 10 "
     "--cluster 2"),
    (8, 28, 28, 128, 128, 3, 3, 1, 1,
     "--pass dgrad --block-m 128 --warps-m 8 --block-n 128 --persistent 12 --pingpong"),
    (1, 7, 7, 512, 512, 3, 3, 1, 1, "--pass dgrad"),
    # Padding past the filter: dy's window starts inside it.
    (2, 9, 9, 64, 64, 1, 1, 1, 1, "--pass dgrad"),
    (2, 9, 9, 64, 64, 3, 3, 1, 3, "--pass dgrad"),
    # dx's rows (C of 72, 200, 104) off the L2's 32-byte sectors: the
    # chooser's pairs of blocks sharing w (ping-pong for the 1x1).
    (16, 56, 56, 72, 72, 3, 3, 1, 1, "--pass dgrad"),
    (32, 28, 28, 200, 136, 3, 3, 1, 1, "--pass dgrad"),
    (64, 28, 28, 104, 208, 1, 1, 1, 0, "--pass dgrad"),
    # Strided dgrad: a kernel a phase of dx (odd and even sizes, phases of
    # 1 to 4 taps, padding 0 to 3, dilation sharing the stride's factor,
    # stride 3, 1x1 layers whose other phases a kernel zeroes, f32 dx), and
    # ResNet-50's strided layers.
    (3, 13, 11, 40, 72, 3, 3, 2, 1, "--pass dgrad"),
    (2, 8, 8, 64, 64, 3, 3, 2, 0, "--pass dgrad"),
    (2, 20, 20, 16, 32, 7, 7, 2, 3, "--pass dgrad"),
    (2, 17, 9, 24, 48, 5, 3, 2, 2, "--pass dgrad --dilation 2"),
    (2, 15, 16, 32, 64, 3, 3, 3, 1, "--pass dgrad"),
    (4, 28, 28, 256, 128, 1, 1, 2, 0, "--pass dgrad"),
    (2, 15, 15, 64, 96, 1, 1, 2, 0, "--pass dgrad --dtype f16 --out-dtype f32"),
    (8, 56, 56, 128, 128, 3, 3, 2, 1, "--pass dgrad"),
    (8, 56, 56, 256, 512, 1, 1, 2, 0, "--pass dgrad"),
    (8, 14, 14, 1024, 2048, 1, 1, 2, 0, "--pass dgrad"),
    (1, 14, 14, 512, 512, 3, 3, 2, 1, "--pass dgrad"),
    # One row no tap reads: dx is zero, the zeroing kernel alone runs.
    (2, 1, 8, 64, 64, 1, 1, 2, 1, "--pass dgrad"),
    # wgrad: dy read M-major, x gathered by im2col boxes of 64 positions by
    # a tap's 64 channels, the positions split among a cluster's blocks:
    # strides, padding, dilation, 1x1 and 7x7, K short of a tile (72, 200,
    # 32), positions short of a k-tile, f32 dw, f16, one block alone, and
    # the tile options.
    (2, 8, 8, 64, 72, 3, 3, 1, 1, "--pass wgrad"),
    (4, 16, 16, 64, 72, 3, 3, 2, 1, "--pass wgrad"),
    (3, 13, 11, 64, 32, 3, 3, 1, 1, "--pass wgrad"),
    (2, 17, 9, 128, 48, 5, 3, 1, 2, "--pass wgrad --dilation 2"),
    (2, 20, 20, 64, 64, 7, 7, 2, 3, "--pass wgrad"),
    (4, 28, 28, 64, 200, 1, 1, 1, 0, "--pass wgrad --out-dtype f32"),
    (8, 56, 56, 64, 64, 3, 3, 1, 1, "--pass wgrad"),
    (8, 56, 56, 256, 64, 1, 1, 1, 0, "--pass wgrad --dtype f16"),
    (8, 28, 28, 128, 128, 3, 3, 1, 1, "--pass wgrad --out-dtype f32"),
    (8, 14, 14, 256, 256, 3, 3, 1, 1, "--pass wgrad"),
    (8, 7, 7, 512, 512, 3, 3, 1, 1, "--pass wgrad"),
    # 1x1 at stride 1 without padding: x read as the matrix of positions by
    # C by tiled copies (positions short of a k-tile, one part or three).
    (8, 7, 7, 2048, 512, 1, 1, 1, 0, "--pass wgrad"),
    (3, 5, 7, 64, 96, 1, 1, 1, 0, "--pass wgrad --parts 1"),
    (2, 9, 11, 128, 64, 1, 1, 1, 0, "--pass wgrad --parts 3 --out-dtype f32"),
    # 128 x 192 tiles (tiles past a round of the SMs), K short of a tile,
    # and 128 x 256 ones.
    (4, 9, 9, 512, 520, 3, 3, 1, 1, "--pass wgrad --out-dtype f32"),
    (4, 9, 9, 512, 520, 3, 3, 1, 1, "--pass wgrad --block-n 256 --stages 4"),
    (1, 3, 3, 64, 64, 3, 3, 1, 1, "--pass wgrad"),
    (8, 28, 28, 128, 256, 3, 3, 2, 1,
     "--pass wgrad --block-m 128 --warps-m 8 --block-n 128 --stages 4 --split-k 3"),
    # Groups of a multiple of 64 channels on the implicit GEMM (--groups):
    # a tile's k-tiles gather its group's channels of x (dy) and w holds a
    # group's; every pass, inputs and outputs of different group widths,
    # strided dgrad's phases, dilation, the epilogue, clusters sharing w's
    # boxes, wgrad in parts, and RegNet/ResNeXt-like layers.
    (2, 14, 14, 256, 512, 3, 3, 1, 1, "--groups 2"),
    (3, 13, 11, 256, 256, 3, 3, 2, 1, "--groups 4 --epilogue scale,bias,residual,relu"),
    (2, 17, 9, 128, 256, 5, 3, 1, 2, "--groups 2 --dilation 2 --dtype f16 --out-dtype f32"),
    (8, 28, 28, 1024, 1024, 3, 3, 1, 1, "--groups 8"),
    (8, 14, 14, 512, 512, 3, 3, 2, 1, "--groups 8"),
    (8, 28, 28, 512, 512, 3, 3, 1, 1,
     "--groups 2 --block-m 128 --warps-m 8 --block-n 256 --stages 4 --persistent 10 "
     "--cluster 2"),
    (2, 14, 14, 256, 512, 3, 3, 1, 1, "--groups 2 --pass dgrad"),
    (3, 13, 11, 256, 256, 3, 3, 2, 1, "--groups 4 --pass dgrad"),
    (2, 17, 9, 128, 256, 5, 3, 2, 2, "--groups 2 --pass dgrad --dilation 2"),
    (8, 28, 28, 1024, 1024, 3, 3, 1, 1, "--groups 8 --pass dgrad"),
    (8, 14, 14, 512, 512, 3, 3, 2, 1, "--groups 8 --pass dgrad --dtype f16 --out-dtype f32"),
    (2, 14, 14, 256, 512, 3, 3, 1, 1, "--groups 2 --pass wgrad"),
    (3, 13, 11, 256, 256, 3, 3, 2, 1, "--groups 4 --pass wgrad --out-dtype f32"),
    (2, 17, 9, 128, 256, 5, 3, 1, 2, "--groups 2 --pass wgrad --dilation 2"),
    (8, 28, 28, 1024, 1024, 3, 3, 1, 1, "--groups 8 --pass wgrad"),
    (8, 14, 14, 512, 512, 3, 3, 2, 1, "--groups 8 --pass wgrad --parts 3"),
    # Groups of 16 and 32 channels: groups of 64 with block-diagonal weights
    # (expanded into the workspace; wgrad's diagonal blocks reduced into dw).
    (2, 14, 14, 512, 512, 3, 3, 1, 1, "--groups 32"),
    (3, 13, 11, 256, 256, 3, 3, 2, 1, "--groups 8 --epilogue bias,relu"),
    (8, 14, 14, 1024, 1024, 3, 3, 1, 1, "--groups 32"),
    (2, 14, 14, 512, 512, 3, 3, 1, 1, "--groups 32 --pass dgrad"),
    (3, 13, 11, 256, 256, 3, 3, 2, 1, "--groups 8 --pass dgrad"),
    (2, 14, 14, 512, 512, 3, 3, 1, 1, "--groups 32 --pass wgrad"),
    (3, 13, 11, 256, 256, 3, 3, 2, 1, "--groups 8 --pass wgrad --out-dtype f32"),
    (8, 14, 14, 1024, 1024, 3, 3, 1, 1, "--groups 32 --pass wgrad --parts 3"),
    # Groups of other multiples of 8 channels (RegNet's 24, 48, 56,
    # 112, 232; 16 where C is not a multiple of 64; inputs and outputs of
    # different widths): each tap of w padded to 64 channels in the
    # workspace, k-tiles reading past the group into the next one's (past
    # C, zeros), tiles of 8-column steps dividing the group's outputs.
    (2, 14, 14, 96, 96, 3, 3, 1, 1, "--groups 2"),
    (3, 13, 11, 432, 432, 3, 3, 2, 1, "--groups 9 --epilogue scale,bias,residual,relu"),
    (2, 9, 9, 120, 120, 3, 3, 1, 1, "--groups 5 --dtype f16 --out-dtype f32"),
    (4, 14, 14, 448, 448, 3, 3, 1, 1, "--groups 8"),
    (2, 7, 7, 3024, 3024, 3, 3, 1, 1, "--groups 27"),
    (2, 13, 13, 1392, 1392, 3, 3, 2, 1, "--groups 6 --epilogue bias"),
    (2, 14, 14, 144, 144, 3, 3, 1, 1, "--groups 9"),
    (2, 17, 9, 128, 96, 5, 3, 1, 2, "--groups 4 --dilation 2"),
    (2, 14, 14, 64, 128, 1, 1, 1, 0, "--groups 8"),
    # Their dgrad: w transposed into [C, R, S, K'] (each tap's K / G padded
    # to 64), read K-major; strided phases, dilation, the zeroing kernel.
    (2, 14, 14, 96, 96, 3, 3, 1, 1, "--groups 2 --pass dgrad"),
    (3, 13, 11, 432, 432, 3, 3, 2, 1, "--groups 9 --pass dgrad"),
    (2, 9, 9, 120, 120, 3, 3, 1, 1, "--groups 5 --pass dgrad --dtype f16 --out-dtype f32"),
    (2, 7, 7, 3024, 3024, 3, 3, 1, 1, "--groups 27 --pass dgrad"),
    (2, 17, 9, 128, 96, 5, 3, 2, 2, "--groups 4 --pass dgrad --dilation 2"),
    (2, 14, 14, 256, 192, 3, 3, 1, 1, "--groups 4 --pass dgrad"),
    (2, 14, 14, 64, 128, 1, 1, 2, 0, "--groups 8 --pass dgrad"),
    # Their wgrad: dw' of each group's rows and each tap's columns padded
    # to 64 in the workspace (in parts or not), the reduce kernel taking dw
    # from it; a dense layer's of C not a multiple of 64 alike (an im2col
    # and a matrix-read 1x1).
    (2, 14, 14, 96, 96, 3, 3, 1, 1, "--groups 2 --pass wgrad"),
    (3, 13, 11, 432, 432, 3, 3, 2, 1, "--groups 9 --pass wgrad --out-dtype f32"),
    (2, 9, 9, 120, 120, 3, 3, 1, 1, "--groups 5 --pass wgrad --parts 3"),
    (2, 7, 7, 3024, 3024, 3, 3, 1, 1, "--groups 27 --pass wgrad"),
    (2, 17, 9, 128, 96, 5, 3, 1, 2, "--groups 4 --pass wgrad --dilation 2"),
    (2, 14, 14, 256, 192, 3, 3, 1, 1, "--groups 4 --pass wgrad --parts 1"),
    (4, 14, 14, 72, 128, 3, 3, 1, 1, "--pass wgrad"),
    (8, 14, 14, 200, 64, 1, 1, 1, 0, "--pass wgrad"),
    (2, 14, 14, 40, 40, 3, 3, 2, 1, "--pass wgrad --parts 1"),
    (4, 14, 14, 1232, 1232, 3, 3, 1, 1,
     "--groups 11 --pass wgrad --block-m 128 --warps-m 8 --block-n 128 --stages 4"),
    # Narrow groups (C = K) gathered into blocks of block-diagonal weights
    # that are not 64 channels: 9 groups of 16 in blocks of 48 (padded to
    # 64; the forward's case is above), 49 in blocks of 112 (two k-tiles),
    # 2 groups of 24 in one block of 48 (a dense kernel problem), every
    # pass.
    (2, 14, 14, 144, 144, 3, 3, 2, 1, "--groups 9 --pass dgrad"),
    (2, 14, 14, 144, 144, 3, 3, 1, 1, "--groups 9 --pass wgrad"),
    (2, 7, 7, 784, 784, 3, 3, 1, 1, "--groups 49 --epilogue bias"),
    (2, 7, 7, 784, 784, 3, 3, 1, 1, "--groups 49 --pass dgrad"),
    (2, 7, 7, 784, 784, 3, 3, 1, 1, "--groups 49 --pass wgrad --out-dtype f32"),
    (2, 14, 14, 48, 48, 3, 3, 1, 1, "--groups 2"),
    (2, 14, 14, 48, 48, 3, 3, 2, 1, "--groups 2 --pass dgrad"),
    (2, 14, 14, 48, 48, 3, 3, 1, 1, "--groups 2 --pass wgrad"),
    # The mma.sync kernel (sm_80 to sm_89; PTX for sm_80 or sm_86 runs on
    # later GPUs): every thread gathers A's rows with cp.async (zeros in the
    # padding, past C and past the last position) and copies the tap's
    # weights; fprop and dgrad, every border, strides, dilation, 1x1 to 7x7,
    # C and K not multiples of 64, the epilogue, f16 -> f32, x unfolded
    # (RGB), strided dgrad's phases and its zeroing kernel, under the
    # chooser's tiles and stages for sm_80's and sm_86's shared memory.
    (2, 8, 8, 64, 64, 3, 3, 1, 1, "--chip sm_80"),
    (3, 13, 11, 40, 72, 3, 3, 1, 1, "--chip sm_80"),
    (3, 13, 11, 40, 70, 3, 3, 2, 1, "--chip sm_86"),
    (2, 17, 9, 24, 48, 5, 3, 2, 2, "--dilation 2 --chip sm_80"),
    (2, 9, 9, 64, 64, 3, 3, 1, 4, "--chip sm_80"),
    (2, 14, 14, 128, 96, 3, 3, 1, 1, "--dtype f16 --epilogue bias,gelu_erf --chip sm_80"),
    (2, 14, 14, 128, 128, 3, 3, 1, 1,
     "--dtype f16 --out-dtype f32 --epilogue scale,bias,residual,relu --chip sm_86"),
    (4, 36, 40, 3, 64, 7, 7, 2, 3, "--chip sm_80"),
    (8, 56, 56, 64, 256, 1, 1, 1, 0, "--chip sm_80"),
    (8, 28, 28, 128, 128, 3, 3, 1, 1, "--chip sm_86"),
    (3, 13, 11, 40, 72, 3, 3, 1, 1, "--pass dgrad --chip sm_80"),
    (2, 9, 9, 64, 64, 3, 3, 1, 4, "--pass dgrad --chip sm_80"),
    (2, 17, 9, 24, 48, 5, 3, 1, 2, "--dilation 2 --pass dgrad --chip sm_86"),
    (2, 14, 14, 128, 128, 3, 3, 1, 1, "--dtype f16 --out-dtype f32 --pass dgrad --chip sm_80"),
    (3, 13, 11, 40, 72, 3, 3, 2, 1, "--pass dgrad --chip sm_80"),
    (2, 15, 16, 64, 96, 3, 3, 3, 2, "--pass dgrad --chip sm_80"),
    (4, 28, 28, 256, 128, 1, 1, 2, 0, "--pass dgrad --chip sm_86"),
    (8, 56, 56, 128, 128, 3, 3, 2, 1, "--pass dgrad --chip sm_80"),
    # wgrad on mma.sync: dy's rows copied as an M-major A, x gathered a
    # k-tile's positions by each thread's column of dw (its tap worked out
    # once); in parts, strides, padding, dilation, 1x1 and 7x7, K short of
    # a tile, C not a multiple of 64 (dw's taps padded), f32 dw, x unfolded.
    (3, 13, 11, 40, 72, 3, 3, 1, 1, "--pass wgrad --chip sm_80"),
    (3, 13, 11, 64, 64, 3, 3, 2, 1, "--pass wgrad --chip sm_86 --out-dtype f32"),
    (2, 17, 9, 24, 48, 5, 3, 1, 2, "--dilation 2 --pass wgrad --chip sm_80"),
    (2, 9, 9, 64, 64, 3, 3, 1, 4, "--pass wgrad --chip sm_80 --parts 1"),
    (2, 20, 20, 16, 32, 7, 7, 2, 3, "--pass wgrad --chip sm_80"),
    (8, 14, 14, 256, 128, 1, 1, 1, 0, "--pass wgrad --chip sm_80"),
    (8, 28, 28, 128, 128, 3, 3, 1, 1, "--pass wgrad --chip sm_80"),
    (4, 36, 40, 3, 64, 7, 7, 2, 3, "--pass wgrad --chip sm_86"),
]


def main():
    args = check_arguments()

    def command(n, h, w, c, k, r, s, stride, pad, extra):
        return [args.spio_jit, "--workload", "conv2d", "--batch", str(n), "--height", str(h),
                "--width", str(w), "--channels", str(c), "--out-channels", str(k), "--r",
                str(r), "--s", str(s), "--stride", str(stride), "--pad-h", str(pad),
                "--pad-w", str(pad), "--check", "--seed", str(n * 7 + h * 3 + c + k)] + \
            extra.split()
    run_check_cases([
        (f"N{n} {h}x{w} C{c} K{k} {r}x{s} s{stride} p{pad} {extra}".strip(),
         command(n, h, w, c, k, r, s, stride, pad, extra))
        for n, h, w, c, k, r, s, stride, pad, extra in CASES], args.only, args.compile_only,
        args.jobs)


if __name__ == "__main__":
    main()
