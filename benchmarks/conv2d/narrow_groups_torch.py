#!/usr/bin/env python3
"""ResNeXt's grouped 3x3 layers of 16 and 32 channels a group through
PyTorch: spio.conv2d (the implicit GEMM on blocks of 64 channels with
block-diagonal weights, the expansion of the weights included in every
call) against torch's conv2d (cuDNN, channels_last, cudnn.benchmark) in one
run, bf16: the forward alone, and forward + backward (dx, dw and the bias
gradient).

    PYTHONPATH=python python3 benchmarks/conv2d/narrow_groups_torch.py [--repeats 30]

Prints a table of milliseconds and the ratio, and the geometric means.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import (benchmark_arguments, cudnn_benchmark_header, geometric_mean,  # noqa: E402
                     time_ms)

import spio  # noqa: E402

# (model, N, H, W, C, stride, groups): ResNeXt-50 32x4d's stages 3 and 4
# (32 groups of 16 and 32 channels) and ResNeXt-101 32x8d's stages 2 and 3
# (of 16 and 32), each stage's strided first block and its others, batch 32.
LAYERS = [
    ("resnext50_32x4d", 32, 28, 28, 512, 2, 32),
    ("resnext50_32x4d", 32, 14, 14, 512, 1, 32),
    ("resnext50_32x4d", 32, 14, 14, 1024, 2, 32),
    ("resnext50_32x4d", 32, 7, 7, 1024, 1, 32),
    ("resnext101_32x8d", 32, 56, 56, 512, 2, 32),
    ("resnext101_32x8d", 32, 28, 28, 512, 1, 32),
    ("resnext101_32x8d", 32, 28, 28, 1024, 2, 32),
    ("resnext101_32x8d", 32, 14, 14, 1024, 1, 32),
]


def main():
    args = benchmark_arguments(30, spio_jit=False).parse_args()
    timed = (args.warmup, args.repeats, args.timing)
    print(cudnn_benchmark_header(args.timing, "bf16"))
    print("\n| model | N | HxW | C | stride | groups | fwd spio ms | fwd cuDNN ms | fwd ratio | "
          "fwd+bwd spio ms | fwd+bwd cuDNN ms | fwd+bwd ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = {"forward": [], "forward + backward": []}
    for model, n, h, w, c, stride, groups in LAYERS:
        x = torch.randn(n, c, h, w, device="cuda", dtype=torch.bfloat16).to(
            memory_format=torch.channels_last).requires_grad_()
        weight = (torch.randn(c, c // groups, 3, 3, device="cuda", dtype=torch.bfloat16) / 9).to(
            memory_format=torch.channels_last).requires_grad_()
        bias = torch.randn(c, device="cuda", dtype=torch.bfloat16).requires_grad_()
        y = torch.nn.functional.conv2d(x, weight, bias, stride, 1, groups=groups)
        dy = torch.randn_like(y)

        def forward(conv):
            with torch.no_grad():
                conv(x, weight, bias, stride, 1, groups=groups)

        def training(conv):
            conv(x, weight, bias, stride, 1, groups=groups).backward(dy)

        row = [model, n, f"{h}x{w}", c, stride, groups]
        for what, step in (("forward", forward), ("forward + backward", training)):
            ours = time_ms(lambda: step(spio.conv2d), *timed)
            theirs = time_ms(lambda: step(torch.nn.functional.conv2d), *timed)
            ratios[what].append(theirs / ours)
            row += [f"{ours:.4f}", f"{theirs:.4f}", f"{theirs / ours:.2f}"]
        print("| " + " | ".join(str(v) for v in row) + " |")
    print()
    for what, values in ratios.items():
        print(f"{what}: geometric mean {geometric_mean(values):.2f}x cuDNN over {len(values)} "
              f"layers, lowest {min(values):.2f}")


if __name__ == "__main__":
    main()
