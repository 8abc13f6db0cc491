#!/usr/bin/env python3
"""GEMM benchmark: spio (spio-jit) against cuBLAS (torch.matmul) in one run.

Both on fresh random inputs, timed with CUDA events, median of the timed
repeats after warm-up. Layout: A row major (M x K), B column major (N x K
in memory), as torch.matmul(a, b.t()); D in the input dtype.
"""

import os
import shlex
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import (benchmark_arguments, geometric_mean, spio_report,  # noqa: E402
                     time_ms)

SHAPES = [
    (8192, 8192, 8192),
    (4096, 4096, 4096),
    (2048, 3072, 768),
    (128, 4096, 4096),
    (16384, 1024, 1024),
    (1000, 1000, 1000),
    (4097, 4095, 4096),
]

# --sweep llm: the projections of Llama-style models (N x K of the weight:
# Llama 3 8B's fused QKV, attention output, fused gate/up and down; 70B's
# QKV and down) for token counts M from decoding (1, 16) to prefill.
LLM_WEIGHTS = [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336), (10240, 8192),
               (8192, 28672)]
LLM_TOKENS = [1, 16, 128, 512, 2048, 8192]
LLM_SHAPES = [(m, n, k) for m in LLM_TOKENS for n, k in LLM_WEIGHTS]


def torch_tflops(m, n, k, dtype, warmup, repeats, timing):
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(n, k, device="cuda", dtype=dtype)
    median = time_ms(lambda: torch.matmul(a, b.t()), warmup, repeats, timing)
    return 2.0 * m * n * k / (median * 1e-3) / 1e12


def spio_ms(jit, m, n, k, dtype, warmup, repeats, timing, extra=()):
    """spio-jit's median time of the GEMM, with `extra` options."""
    cmd = [jit, "--workload", "gemm", "--m", str(m), "--n", str(n), "--k", str(k),
           "--dtype", dtype, "--bench", str(repeats), "--warmup", str(warmup),
           "--timing", timing] + list(extra)
    return spio_report(cmd)["bench"]["median_ms"]


def spio_tflops(jit, m, n, k, dtype, warmup, repeats, timing, extra=()):
    # From the median time: spio-jit's TFLOP/s has one decimal, too coarse
    # for decoding shapes.
    median_ms = spio_ms(jit, m, n, k, dtype, warmup, repeats, timing, extra)
    return 2.0 * m * n * k / (median_ms * 1e-3) / 1e12


def main():
    parser = benchmark_arguments(50)
    parser.add_argument("--dtypes", default="bf16,f16")
    parser.add_argument("--sweep", choices=["default", "llm"], default="default",
                        help="the shapes: benchmarks/gemm's, or Llama-style projections")
    parser.add_argument("--spio-options", type=shlex.split, default=[], metavar="OPTIONS",
                        help="more spio-jit options, e.g. --wgmma")
    args = parser.parse_args()
    # spio-jit first, before this process opens a CUDA context (another
    # process's context slows some kernels: conv2d_gw8/bench.py), then cuBLAS.
    timed = (args.warmup, args.repeats, args.timing)
    shapes = LLM_SHAPES if args.sweep == "llm" else SHAPES
    cases = [(name, m, n, k) for name in args.dtypes.split(",") for m, n, k in shapes]
    ours = [spio_tflops(args.spio_jit, m, n, k, name, *timed, args.spio_options)
            for name, m, n, k in cases]
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{args.timing} timing, spio-jit {' '.join(args.spio_options) or '(defaults)'}")
    rows = []
    for (name, m, n, k), spio in zip(cases, ours):
        dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[name]
        rows.append((f"{m}x{n}x{k}", name, spio, torch_tflops(m, n, k, dtype, *timed)))
    # Decoding shapes (M <= 16) move the weights: GB/s of A, B and D.
    print("\n| shape (MxNxK) | dtype | spio | cuBLAS | unit | ratio |")
    print("|---|---|---|---|---|---|")
    ratios = []
    for (shape, name, ours, theirs), (_, m, n, k) in zip(rows, cases):
        unit = "TFLOP/s"
        if m <= 16:
            unit = "GB/s"
            scale = 2.0 * (m * k + n * k + m * n) / (2.0 * m * n * k) * 1e3
            ours, theirs = ours * scale, theirs * scale
        ratios.append(ours / theirs)
        print(f"| {shape} | {name} | {ours:.1f} | {theirs:.1f} | {unit} | {ours / theirs:.2f} |")
    print(f"\ngeometric mean of the ratios: {geometric_mean(ratios):.2f}; "
          f"lowest {min(ratios):.2f}")


if __name__ == "__main__":
    main()
