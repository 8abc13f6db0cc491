#!/usr/bin/env python3
"""Conv2d layers on the implicit GEMM: the dense ones of ResNet-50 and a
UNet, and the grouped 3x3 ones of RegNets and ResNeXts (`--models`
picks): spio-jit against cuDNN (channels_last, cudnn.benchmark) in one
run, bf16 in and out: the forward pass (torch.nn.functional.conv2d) or,
with --pass dgrad, the input gradient (aten.convolution_backward for dx
alone), with --pass wgrad the weight gradient (dw alone).

Layers spio-jit refuses (the RGB stems) are listed with its reason. Prints
a table of milliseconds, TFLOP/s and the ratio, and the geometric mean per
model.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import subprocess  # noqa: E402

from harness import benchmark_arguments, geometric_mean, spio_report, time_ms  # noqa: E402

# (model, N, H, W, C, K, R, S, stride, padding[, groups]); ResNet-50 v1.5
# at batch 32 (the stride on the 3x3 of a stage's first block), a UNet at
# batch 4 on 256 x 256 images (3x3 convolutions, 1x1 head); the grouped 3x3
# convolutions of torchvision's RegNetY-4GF (groups of 64 channels) and
# RegNetX-16GF (of 128), each stage's strided first block and its others,
# ResNeXt-50 32x4d's stages 3 and 4 (32 groups of 16 and 32: groups of 64
# with block-diagonal weights) and ResNeXt-101 32x8d's last two stages (32
# groups of 32 and 64) at batch 32; the forward of RegNets whose groups
# are not multiples of 64 channels (RegNetX-3.2GF: 48, RegNetY-1.6GF: 24,
# RegNetY-8GF: 56, RegNetY-16GF: 112, RegNetY-800MF: 16 on 144 and 784
# channels), each stage's strided first block and its others, batch 32.
LAYERS = [
    ("resnet50", 32, 224, 224, 3, 64, 7, 7, 2, 3),
    ("resnet50", 32, 56, 56, 64, 64, 1, 1, 1, 0),
    ("resnet50", 32, 56, 56, 64, 64, 3, 3, 1, 1),
    ("resnet50", 32, 56, 56, 64, 256, 1, 1, 1, 0),
    ("resnet50", 32, 56, 56, 256, 64, 1, 1, 1, 0),
    ("resnet50", 32, 56, 56, 256, 128, 1, 1, 1, 0),
    ("resnet50", 32, 56, 56, 128, 128, 3, 3, 2, 1),
    ("resnet50", 32, 28, 28, 128, 512, 1, 1, 1, 0),
    ("resnet50", 32, 56, 56, 256, 512, 1, 1, 2, 0),
    ("resnet50", 32, 28, 28, 512, 128, 1, 1, 1, 0),
    ("resnet50", 32, 28, 28, 128, 128, 3, 3, 1, 1),
    ("resnet50", 32, 28, 28, 512, 256, 1, 1, 1, 0),
    ("resnet50", 32, 28, 28, 256, 256, 3, 3, 2, 1),
    ("resnet50", 32, 14, 14, 256, 1024, 1, 1, 1, 0),
    ("resnet50", 32, 28, 28, 512, 1024, 1, 1, 2, 0),
    ("resnet50", 32, 14, 14, 1024, 256, 1, 1, 1, 0),
    ("resnet50", 32, 14, 14, 256, 256, 3, 3, 1, 1),
    ("resnet50", 32, 14, 14, 1024, 512, 1, 1, 1, 0),
    ("resnet50", 32, 14, 14, 512, 512, 3, 3, 2, 1),
    ("resnet50", 32, 7, 7, 512, 2048, 1, 1, 1, 0),
    ("resnet50", 32, 14, 14, 1024, 2048, 1, 1, 2, 0),
    ("resnet50", 32, 7, 7, 2048, 512, 1, 1, 1, 0),
    ("resnet50", 32, 7, 7, 512, 512, 3, 3, 1, 1),
    ("unet", 4, 256, 256, 3, 64, 3, 3, 1, 1),
    ("unet", 4, 256, 256, 64, 64, 3, 3, 1, 1),
    ("unet", 4, 128, 128, 64, 128, 3, 3, 1, 1),
    ("unet", 4, 128, 128, 128, 128, 3, 3, 1, 1),
    ("unet", 4, 64, 64, 128, 256, 3, 3, 1, 1),
    ("unet", 4, 64, 64, 256, 256, 3, 3, 1, 1),
    ("unet", 4, 32, 32, 256, 512, 3, 3, 1, 1),
    ("unet", 4, 32, 32, 512, 512, 3, 3, 1, 1),
    ("unet", 4, 16, 16, 512, 1024, 3, 3, 1, 1),
    ("unet", 4, 16, 16, 1024, 1024, 3, 3, 1, 1),
    ("unet", 4, 32, 32, 1024, 512, 3, 3, 1, 1),
    ("unet", 4, 64, 64, 512, 256, 3, 3, 1, 1),
    ("unet", 4, 128, 128, 256, 128, 3, 3, 1, 1),
    ("unet", 4, 256, 256, 128, 64, 3, 3, 1, 1),
    ("unet", 4, 256, 256, 64, 2, 1, 1, 1, 0),
    ("regnety_4gf", 32, 112, 112, 128, 128, 3, 3, 2, 1, 2),
    ("regnety_4gf", 32, 56, 56, 128, 128, 3, 3, 1, 1, 2),
    ("regnety_4gf", 32, 56, 56, 192, 192, 3, 3, 2, 1, 3),
    ("regnety_4gf", 32, 28, 28, 192, 192, 3, 3, 1, 1, 3),
    ("regnety_4gf", 32, 28, 28, 512, 512, 3, 3, 2, 1, 8),
    ("regnety_4gf", 32, 14, 14, 512, 512, 3, 3, 1, 1, 8),
    ("regnety_4gf", 32, 14, 14, 1088, 1088, 3, 3, 2, 1, 17),
    ("regnety_4gf", 32, 7, 7, 1088, 1088, 3, 3, 1, 1, 17),
    ("regnetx_16gf", 32, 112, 112, 256, 256, 3, 3, 2, 1, 2),
    ("regnetx_16gf", 32, 56, 56, 256, 256, 3, 3, 1, 1, 2),
    ("regnetx_16gf", 32, 56, 56, 512, 512, 3, 3, 2, 1, 4),
    ("regnetx_16gf", 32, 28, 28, 512, 512, 3, 3, 1, 1, 4),
    ("regnetx_16gf", 32, 28, 28, 896, 896, 3, 3, 2, 1, 7),
    ("regnetx_16gf", 32, 14, 14, 896, 896, 3, 3, 1, 1, 7),
    ("regnetx_16gf", 32, 14, 14, 2048, 2048, 3, 3, 2, 1, 16),
    ("regnetx_16gf", 32, 7, 7, 2048, 2048, 3, 3, 1, 1, 16),
    ("resnext50_32x4d", 32, 28, 28, 512, 512, 3, 3, 2, 1, 32),
    ("resnext50_32x4d", 32, 14, 14, 512, 512, 3, 3, 1, 1, 32),
    ("resnext50_32x4d", 32, 14, 14, 1024, 1024, 3, 3, 2, 1, 32),
    ("resnext50_32x4d", 32, 7, 7, 1024, 1024, 3, 3, 1, 1, 32),
    ("resnext101_32x8d", 32, 28, 28, 1024, 1024, 3, 3, 2, 1, 32),
    ("resnext101_32x8d", 32, 14, 14, 1024, 1024, 3, 3, 1, 1, 32),
    ("resnext101_32x8d", 32, 14, 14, 2048, 2048, 3, 3, 2, 1, 32),
    ("resnext101_32x8d", 32, 7, 7, 2048, 2048, 3, 3, 1, 1, 32),
    ("regnetx_3_2gf", 32, 112, 112, 96, 96, 3, 3, 2, 1, 2),
    ("regnetx_3_2gf", 32, 56, 56, 96, 96, 3, 3, 1, 1, 2),
    ("regnetx_3_2gf", 32, 56, 56, 192, 192, 3, 3, 2, 1, 4),
    ("regnetx_3_2gf", 32, 28, 28, 192, 192, 3, 3, 1, 1, 4),
    ("regnetx_3_2gf", 32, 28, 28, 432, 432, 3, 3, 2, 1, 9),
    ("regnetx_3_2gf", 32, 14, 14, 432, 432, 3, 3, 1, 1, 9),
    ("regnetx_3_2gf", 32, 14, 14, 1008, 1008, 3, 3, 2, 1, 21),
    ("regnetx_3_2gf", 32, 7, 7, 1008, 1008, 3, 3, 1, 1, 21),
    ("regnety_1_6gf", 32, 112, 112, 48, 48, 3, 3, 2, 1, 2),
    ("regnety_1_6gf", 32, 56, 56, 48, 48, 3, 3, 1, 1, 2),
    ("regnety_1_6gf", 32, 56, 56, 120, 120, 3, 3, 2, 1, 5),
    ("regnety_1_6gf", 32, 28, 28, 120, 120, 3, 3, 1, 1, 5),
    ("regnety_1_6gf", 32, 28, 28, 336, 336, 3, 3, 2, 1, 14),
    ("regnety_1_6gf", 32, 14, 14, 336, 336, 3, 3, 1, 1, 14),
    ("regnety_1_6gf", 32, 14, 14, 888, 888, 3, 3, 2, 1, 37),
    ("regnety_1_6gf", 32, 7, 7, 888, 888, 3, 3, 1, 1, 37),
    ("regnety_8gf", 32, 112, 112, 224, 224, 3, 3, 2, 1, 4),
    ("regnety_8gf", 32, 56, 56, 224, 224, 3, 3, 1, 1, 4),
    ("regnety_8gf", 32, 56, 56, 448, 448, 3, 3, 2, 1, 8),
    ("regnety_8gf", 32, 28, 28, 448, 448, 3, 3, 1, 1, 8),
    ("regnety_8gf", 32, 28, 28, 896, 896, 3, 3, 2, 1, 16),
    ("regnety_8gf", 32, 14, 14, 896, 896, 3, 3, 1, 1, 16),
    ("regnety_8gf", 32, 14, 14, 2016, 2016, 3, 3, 2, 1, 36),
    ("regnety_8gf", 32, 7, 7, 2016, 2016, 3, 3, 1, 1, 36),
    ("regnety_16gf", 32, 112, 112, 224, 224, 3, 3, 2, 1, 2),
    ("regnety_16gf", 32, 56, 56, 224, 224, 3, 3, 1, 1, 2),
    ("regnety_16gf", 32, 56, 56, 448, 448, 3, 3, 2, 1, 4),
    ("regnety_16gf", 32, 28, 28, 448, 448, 3, 3, 1, 1, 4),
    ("regnety_16gf", 32, 28, 28, 1232, 1232, 3, 3, 2, 1, 11),
    ("regnety_16gf", 32, 14, 14, 1232, 1232, 3, 3, 1, 1, 11),
    ("regnety_16gf", 32, 14, 14, 3024, 3024, 3, 3, 2, 1, 27),
    ("regnety_16gf", 32, 7, 7, 3024, 3024, 3, 3, 1, 1, 27),
    ("regnety_800mf", 32, 56, 56, 144, 144, 3, 3, 2, 1, 9),
    ("regnety_800mf", 32, 28, 28, 144, 144, 3, 3, 1, 1, 9),
    ("regnety_800mf", 32, 14, 14, 784, 784, 3, 3, 2, 1, 49),
    ("regnety_800mf", 32, 7, 7, 784, 784, 3, 3, 1, 1, 49),
]


def unpack(layer):
    """(model, N, H, W, C, K, R, S, stride, padding, groups)."""
    return layer + (1,) * (11 - len(layer))


def output_size(size, taps, stride, pad):
    return (size + 2 * pad - taps) // stride + 1


def flops(n, h, w, c, k, r, s, stride, pad, groups):
    return 2.0 * n * output_size(h, r, stride, pad) * output_size(w, s, stride, pad) * k * r * s * \
        c // groups


def spio_ms(jit, layer, timed, pass_, chip=None):
    """spio-jit's median milliseconds for the layer's pass (its kernels
    compiled for `chip`, else the GPU's), or (a string) its reason for
    refusing the layer, as its checks give it before compiling."""
    _, n, h, w, c, k, r, s, stride, pad, groups = unpack(layer)
    warmup, repeats, timing = timed
    cmd = [jit, "--workload", "conv2d", "--pass", pass_, "--batch", str(n), "--height", str(h),
           "--width", str(w), "--channels", str(c), "--out-channels", str(k), "--r", str(r),
           "--s", str(s), "--stride", str(stride), "--pad-h", str(pad), "--pad-w", str(pad),
           "--groups", str(groups)] + (["--chip", chip] if chip else [])
    checked = subprocess.run(cmd + ["--emit-spio"], capture_output=True, text=True)
    if checked.returncode != 0:
        return checked.stderr.strip().splitlines()[-1].split("error: ", 1)[-1]
    bench = ["--bench", str(repeats), "--warmup", str(warmup), "--timing", timing]
    return spio_report(cmd + bench)["bench"]["median_ms"]


def cudnn_ms(layer, timed, pass_):
    _, n, h, w, c, k, r, s, stride, pad, groups = unpack(layer)
    x = torch.randn(n, c, h, w, device="cuda", dtype=torch.bfloat16).to(
        memory_format=torch.channels_last)
    weight = torch.randn(k, c // groups, r, s, device="cuda", dtype=torch.bfloat16).to(
        memory_format=torch.channels_last)
    if pass_ in ("dgrad", "wgrad"):
        p, q = output_size(h, r, stride, pad), output_size(w, s, stride, pad)
        dy = torch.randn(n, k, p, q, device="cuda", dtype=torch.bfloat16).to(
            memory_format=torch.channels_last)
        return time_ms(lambda: torch.ops.aten.convolution_backward(
            dy, x, weight, None, [stride, stride], [pad, pad], [1, 1], False, [0, 0], groups,
            [pass_ == "dgrad", pass_ == "wgrad", False]), *timed)
    return time_ms(lambda: torch.nn.functional.conv2d(x, weight, stride=stride, padding=pad,
                                                      groups=groups), *timed)


def main():
    parser = benchmark_arguments(30)
    parser.add_argument("--batch", type=int, help="every layer's N (default: the model's)")
    parser.add_argument("--pass", dest="pass_", default="fprop", choices=["fprop", "dgrad", "wgrad"])
    models = sorted({layer[0] for layer in LAYERS})
    parser.add_argument("--chip", help="compile spio's kernels for this chip (sm_80: the "
                        "mma.sync kernel, whose PTX later GPUs run), not the GPU's")
    parser.add_argument("--models", default="resnet50,unet",
                        help=f"comma-separated, of {', '.join(models)} (default: the dense ones)")
    args = parser.parse_args()
    timed = (args.warmup, args.repeats, args.timing)
    chosen = args.models.split(",")
    if unknown := [m for m in chosen if m not in models]:
        parser.error(f"unknown models {', '.join(unknown)}; known: {', '.join(models)}")
    layers = [unpack(layer) for layer in LAYERS if layer[0] in chosen]
    if args.batch:
        layers = [(layer[0], args.batch) + layer[2:] for layer in layers]
    # spio-jit first, before this process opens a CUDA context.
    ours = [spio_ms(args.spio_jit, layer, timed, args.pass_, args.chip) for layer in layers]
    torch.backends.cudnn.benchmark = True
    # A throwaway measurement: the process's first one pays for cuDNN's and
    # the GPU's first use.
    cudnn_ms(layers[0], timed, args.pass_)
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, cuDNN "
          f"{torch.backends.cudnn.version()}, {args.timing} timing, bf16, {args.pass_}"
          + (f", spio compiled for {args.chip}" if args.chip else ""))
    print("\n| model | N | HxW | C | K | RxS | stride | groups | spio ms | cuDNN ms | "
          "spio TFLOP/s | cuDNN TFLOP/s | spio / cuDNN |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = {}
    for layer, mine in zip(layers, ours):
        model, n, h, w, c, k, r, s, stride, pad, groups = layer
        theirs = cudnn_ms(layer, timed, args.pass_)
        work = flops(*layer[1:]) / 1e9
        head = f"| {model} | {n} | {h}x{w} | {c} | {k} | {r}x{s} | {stride} | {groups} |"
        if isinstance(mine, str):
            print(f"{head} refused: {mine} | {theirs:.4f} | - | {work / theirs:.1f} | - |")
            continue
        ratio = theirs / mine
        ratios.setdefault(model, []).append(ratio)
        print(f"{head} {mine:.4f} | {theirs:.4f} | {work / mine:.1f} | {work / theirs:.1f} | "
              f"{ratio:.2f} |")
    print()
    for model, values in ratios.items():
        print(f"{model}: geometric mean {geometric_mean(values):.2f}x cuDNN over {len(values)} "
              f"layers, lowest {min(values):.2f}")


if __name__ == "__main__":
    main()
