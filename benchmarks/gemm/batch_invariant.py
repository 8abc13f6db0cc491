#!/usr/bin/env python3
"""The cost of batch invariance: spio's GEMM in its default mode against
`--batch-invariant` (K split as N and K alone say, so that row i of D has
the same bits for every M) on the Llama-style projections of bench.py's LLM
sweep, both timed by spio-jit (CUDA events, median) in one run. Only the
shapes whose default split differs from that one run other kernels; the
others print a ratio of 1.00 within noise.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import benchmark_arguments, geometric_mean  # noqa: E402
from bench import LLM_SHAPES, spio_tflops  # noqa: E402


def main():
    parser = benchmark_arguments(20)
    parser.add_argument("--dtype", choices=["bf16", "f16"], default="bf16")
    parser.add_argument("--max-m", type=int, default=2048,
                        help="leave out the sweep's shapes with more rows")
    args = parser.parse_args()
    timed = (args.warmup, args.repeats, args.timing)
    print(f"{args.dtype}, {args.timing} timing; TFLOP/s (GB/s of A, B and D for M <= 16)")
    print("\n| shape (MxNxK) | default | batch invariant | invariant / default |")
    print("|---|---|---|---|")
    ratios = []
    for m, n, k in LLM_SHAPES:
        if m > args.max_m:
            continue
        default = spio_tflops(args.spio_jit, m, n, k, args.dtype, *timed)
        invariant = spio_tflops(args.spio_jit, m, n, k, args.dtype, *timed,
                                ["--batch-invariant"])
        scale = 2.0 * (m * k + n * k + m * n) / (2.0 * m * n * k) * 1e3 if m <= 16 else 1.0
        ratios.append(invariant / default)
        print(f"| {m}x{n}x{k} | {default * scale:.1f} | {invariant * scale:.1f} | "
              f"{invariant / default:.2f} |")
    print(f"\ngeometric mean invariant / default: {geometric_mean(ratios):.2f}; "
          f"lowest {min(ratios):.2f}")


if __name__ == "__main__":
    main()
