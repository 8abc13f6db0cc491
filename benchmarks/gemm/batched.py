#!/usr/bin/env python3
"""Batched GEMM benchmark: spio (spio-jit --gemm-batch) against cuBLAS
through torch.bmm(a, b.transpose(1, 2)) (each problem its own B, N x K in
memory) or torch.matmul(a, w.t()) (one weight shared by the batch), in one
run: fresh random inputs, CUDA events, the median of the timed repeats after
warm-up; spio-jit checks its output against a float64 reference first.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import benchmark_arguments, geometric_mean, time_ms  # noqa: E402
from bench import spio_ms  # noqa: E402

# (batch, M, N, K, shared): attention scores (Q K^T of 64 and 96 heads of
# 1024 and 2048 tokens), experts of equal sizes, many small problems, and
# a weight shared by a batch of sequences.
SHAPES = [(64, 1024, 1024, 128, None), (96, 2048, 2048, 64, None),
          (8, 1024, 14336, 4096, None), (512, 64, 64, 64, None), (1024, 128, 128, 128, None),
          (16, 512, 4096, 4096, "b")]


def main():
    parser = benchmark_arguments(30)
    parser.add_argument("--dtype", choices=["bf16", "f16"], default="bf16")
    args = parser.parse_args()
    timed = (args.warmup, args.repeats, args.timing)
    # spio-jit first, before this process opens a CUDA context.
    ours = [spio_ms(args.spio_jit, m, n, k, args.dtype, *timed,
                    ["--gemm-batch", str(batch), "--check"] +
                    (["--broadcast", shared] if shared else []))
            for batch, m, n, k, shared in SHAPES]
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    torch.backends.cuda.matmul.allow_tf32 = False
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{args.timing} timing, {args.dtype}")
    print("\n| batch x M x N x K | shared | spio TFLOP/s | cuBLAS TFLOP/s | torch call | ratio |")
    print("|---|---|---|---|---|---|")
    ratios = []
    for (batch, m, n, k, shared), spio in zip(SHAPES, ours):
        a = torch.randn(batch, m, k, device="cuda", dtype=dtype)
        if shared == "b":
            w = torch.randn(n, k, device="cuda", dtype=dtype)
            call, fn = "matmul(a, w.t())", lambda: torch.matmul(a, w.t())
        else:
            b = torch.randn(batch, n, k, device="cuda", dtype=dtype)
            call, fn = "bmm(a, b.transpose(1, 2))", lambda: torch.bmm(a, b.transpose(1, 2))
        theirs = time_ms(fn, *timed)
        flops = 2.0 * batch * m * n * k
        ratios.append(theirs / spio)
        print(f"| {batch}x{m}x{n}x{k} | {shared or '-'} | {flops / spio / 1e9:.1f} | "
              f"{flops / theirs / 1e9:.1f} | {call} | {theirs / spio:.2f} |")
    print(f"\ngeometric mean of the ratios: {geometric_mean(ratios):.2f}; "
          f"lowest {min(ratios):.2f}")


if __name__ == "__main__":
    main()
