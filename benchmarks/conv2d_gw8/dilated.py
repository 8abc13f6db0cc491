#!/usr/bin/env python3
"""Dilated depthwise layers (stride 1) through spio.conv2d against cuDNN
(torch.nn.functional.conv2d, cudnn.benchmark), in one run.

Spio runs a dilated layer of groups of 1, 2, 4 or 8 channels as the
undilated convolutions of x's phase images (conv2d_gw8's kernels over the
phases as images of the batch), with torch copying the phases out and the
outputs back. Correctness first (float64 reference, forward and both
gradients; the same bits twice), then CUDA-event medians of the forward and
of the forward + backward (dx and dw), bf16, channels_last.

    PYTHONPATH=python python3 benchmarks/conv2d_gw8/dilated.py [--repeats 20]
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import (benchmark_arguments, cudnn_benchmark_header, geometric_mean,  # noqa: E402
                     time_ms)

import spio  # noqa: E402

# (batch, channels, height = width, kernel, dilation, source): the dilated
# depthwise layers of torchvision's segmentation models on 520x520 images
# (LR-ASPP and DeepLabV3 on MobileNetV3-Large: its last stage at output
# stride 16, dilation 2) and of DeepLabV3+ on MobileNetV2 at output stride 8
# (dilation 2, then 4) on 512x512.
LAYERS = [
    (8, 672, 33, 5, 2, "MobileNetV3-L dilated 672 5x5"),
    (8, 960, 33, 5, 2, "MobileNetV3-L dilated 960 5x5"),
    (16, 960, 33, 5, 2, "MobileNetV3-L dilated 960 5x5, batch 16"),
    (8, 384, 64, 3, 2, "MobileNetV2 OS8 384 3x3"),
    (8, 576, 64, 3, 2, "MobileNetV2 OS8 576 3x3"),
    (8, 576, 64, 3, 4, "MobileNetV2 OS8 576 3x3 d4"),
    (8, 960, 64, 3, 4, "MobileNetV2 OS8 960 3x3 d4"),
    (16, 960, 32, 3, 4, "MobileNetV2 OS16 960 3x3 d4, batch 16"),
]


def layer(n, c, size, kernel, seed):
    generator = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(n, c, size, size, device="cuda", dtype=torch.bfloat16,
                    generator=generator).to(memory_format=torch.channels_last)
    w = torch.randn(c, 1, kernel, kernel, device="cuda", dtype=torch.bfloat16,
                    generator=generator) / kernel
    b = torch.randn(c, device="cuda", dtype=torch.bfloat16, generator=generator)
    return x, w.to(memory_format=torch.channels_last), b


def check(x, w, b, padding, dilation, groups):
    """Spio's y, dx and dw against float64, and the same bits on a second
    run. Each element may be off by bf16's rounding of the result plus f32
    rounding over its sum's terms (twice the terms times 2^-24 times the
    sum of the terms' magnitudes, as the C++ reference checks)."""
    dy = torch.randn(F.conv2d(x, w, b, 1, padding, dilation, groups).shape, device="cuda",
                     dtype=x.dtype)

    def run(conv, dtype, inputs=(x, w, b), gradient=dy):
        leaves = [t.detach().to(dtype).requires_grad_() for t in inputs]
        y = conv(*leaves, 1, padding, dilation, groups)
        y.backward(gradient.to(dtype))
        return [y.detach(), leaves[0].grad, leaves[1].grad]

    ours, again, exact = run(spio.conv2d, x.dtype), run(spio.conv2d, x.dtype), \
        run(F.conv2d, torch.float64)
    magnitudes = run(F.conv2d, torch.float64, [t.abs() for t in (x, w, b)], dy.abs())
    taps = x.shape[1] // groups * w.shape[2] * w.shape[3]
    terms = {"y": taps, "dx": taps, "dw": dy.numel() // dy.shape[1]}
    for name, got, second, want, magnitude in zip(("y", "dx", "dw"), ours, again, exact,
                                                  magnitudes):
        tolerance = 2.0 ** -8 * want.abs() + 2 * terms[name] * 2.0 ** -24 * magnitude + 1e-6
        error = (got.double() - want).abs()
        worst = (error - tolerance).argmax()
        assert (error <= tolerance).all(), \
            f"{name}: error {error.flatten()[worst]} over {tolerance.flatten()[worst]}"
        assert torch.equal(got, second), f"{name}: not bit-identical"


def main():
    args = benchmark_arguments(20, warmup=3, spio_jit=False).parse_args()
    timed = (args.warmup, args.repeats, args.timing)
    print(cudnn_benchmark_header(args.timing, "bf16") + "\n")
    print("| layer | N C HxW kernel dilation | forward spio (us) | cuDNN (us) | ratio | "
          "spio GB/s | fwd + bwd spio (us) | cuDNN (us) | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    forward_ratios, training_ratios = [], []
    for n, c, size, kernel, dilation, name in LAYERS:
        padding = dilation * (kernel - 1) // 2
        x, w, b = layer(n, c, size, kernel, seed=c + size)
        check(x, w, b, padding, dilation, c)
        xg, wg = x.detach().requires_grad_(), w.detach().requires_grad_()
        dy = torch.randn_like(F.conv2d(x, w, b, 1, padding, dilation, c))
        times = []
        for conv in (spio.conv2d, F.conv2d):
            times.append(time_ms(lambda: conv(x, w, b, 1, padding, dilation, c), *timed))
            times.append(time_ms(lambda: torch.autograd.grad(
                conv(xg, wg, b, 1, padding, dilation, c), (xg, wg), dy), *timed))
        ours, ours_training, theirs, theirs_training = times
        forward_ratios.append(theirs / ours)
        training_ratios.append(theirs_training / ours_training)
        moved = 2 * x.numel() * x.element_size() / 1e9  # x read, y written
        print(f"| {name} | {n} {c} {size}x{size} {kernel}x{kernel} {dilation} | "
              f"{ours * 1e3:.1f} | {theirs * 1e3:.1f} | {theirs / ours:.2f} | "
              f"{moved / (ours * 1e-3):.0f} | {ours_training * 1e3:.1f} | "
              f"{theirs_training * 1e3:.1f} | {theirs_training / ours_training:.2f} |")
    print(f"\ngeometric mean, cuDNN / spio: forward {geometric_mean(forward_ratios):.2f}, "
          f"forward + backward {geometric_mean(training_ratios):.2f}")


if __name__ == "__main__":
    main()
