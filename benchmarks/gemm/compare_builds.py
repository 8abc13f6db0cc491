#!/usr/bin/env python3
"""Two spio-jit builds and cuBLAS (torch.matmul) on the same GEMM shapes in
one run: what a change to the kernels or the chooser did, shape by shape.

    benchmarks/gemm/compare_builds.py --old OLD/spio-jit --spio-jit NEW/spio-jit \\
        [--sweep default|llm|other|sectors] [--shapes 1000x1000x1000,...] [--dtypes bf16] \\
        [--old-options "..."] [--new-options "..."]

Prints the TFLOP/s of both builds' default configurations (or of one build
under two sets of spio-jit options), cuBLAS's, the ratios to cuBLAS and the
geometric means.
"""

import os
import shlex
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import LLM_SHAPES, SHAPES, spio_tflops, torch_tflops  # noqa: E402
from harness import benchmark_arguments, geometric_mean  # noqa: E402

# Shapes no chooser rule was written from: cubes from 512 to 3072, ragged
# and odd sizes, mid-sized token counts.
OTHER_SHAPES = [(512, 512, 512), (768, 768, 768), (1024, 1024, 1024), (1536, 1536, 1536),
                (2048, 2048, 2048), (3072, 3072, 3072), (1000, 3000, 2000), (384, 5120, 5120),
                (640, 7168, 2048), (768, 3072, 12288), (2560, 2560, 2560), (320, 12288, 4096),
                (3000, 1000, 6000), (256, 11008, 4096), (1536, 8960, 1536)]

# Rows off the L2's 32-byte sectors (K of 16-bit elements not a multiple of
# 16): long and short reductions, one round and many, odd tile rows.
SECTOR_SHAPES = [(6000, 2000, 3000), (1200, 5000, 3000), (2000, 3000, 3000), (4000, 4000, 4008),
                 (8000, 8000, 1000), (16384, 1024, 1000), (7000, 3000, 1000), (3000, 3000, 1000),
                 (5000, 5000, 760), (2048, 2048, 1000), (1000, 1000, 1000), (1500, 2500, 3000)]


def main():
    parser = benchmark_arguments(20)
    parser.add_argument("--old", required=True, help="the spio-jit built before the change")
    parser.add_argument("--dtypes", default="bf16")
    parser.add_argument("--sweep", choices=["default", "llm", "other", "sectors"],
                        default="default")
    parser.add_argument("--shapes", default="", help="MxNxK,... instead of a sweep")
    for side in ("old", "new"):
        parser.add_argument(f"--{side}-options", type=shlex.split, default=[],
                            metavar="OPTIONS", help=f"spio-jit options of the {side} runs")
    args = parser.parse_args()
    shapes = ([tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
              if args.shapes else
              {"default": SHAPES, "llm": LLM_SHAPES, "other": OTHER_SHAPES,
               "sectors": SECTOR_SHAPES}[args.sweep])
    timed = (args.warmup, args.repeats, args.timing)
    cases = [(name, m, n, k) for name in args.dtypes.split(",") for m, n, k in shapes]
    # Both builds before this process opens a CUDA context (bench.py).
    old = [spio_tflops(args.old, m, n, k, name, *timed, args.old_options)
           for name, m, n, k in cases]
    new = [spio_tflops(args.spio_jit, m, n, k, name, *timed, args.new_options)
           for name, m, n, k in cases]
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{args.timing} timing; TFLOP/s")
    print("\n| shape (MxNxK) | dtype | old | new | cuBLAS | old ratio | new ratio |")
    print("|---|---|---|---|---|---|---|")
    old_ratios, new_ratios = [], []
    for (name, m, n, k), before, after in zip(cases, old, new):
        dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[name]
        vendor = torch_tflops(m, n, k, dtype, *timed)
        old_ratios.append(before / vendor)
        new_ratios.append(after / vendor)
        print(f"| {m}x{n}x{k} | {name} | {before:.1f} | {after:.1f} | {vendor:.1f} | "
              f"{before / vendor:.2f} | {after / vendor:.2f} |")
    print(f"\ngeometric mean: old {geometric_mean(old_ratios):.2f} (lowest "
          f"{min(old_ratios):.2f}), new {geometric_mean(new_ratios):.2f} (lowest "
          f"{min(new_ratios):.2f})")


if __name__ == "__main__":
    main()
