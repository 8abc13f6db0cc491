#!/usr/bin/env python3
"""f16/bf16 GEMMs with M- or N-major operands (A column major, B row major),
the layouts of training's backward products, against torch.matmul in one run.

On Hopper the wgmma kernel reads such operands in place as its transposed
operands (a batched one whose K leaves a partial k-tile is packed K-major
first where that beats mma.sync); --wgmma=false runs mma.sync reading them
in place. The table gives mma.sync, spio-jit's default (its kernel named)
and torch.matmul on operands of the same layout, in TFLOP/s from median
times. The geometric means are the default's against torch.matmul and
against mma.sync alone.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import benchmark_arguments, geometric_mean, spio_report  # noqa: E402
from packed import torch_ms  # noqa: E402

SHAPES = [(512, 512, 512), (1024, 1024, 1024), (1536, 1536, 1536), (2048, 2048, 2048),
          (4096, 4096, 4096), (8192, 8192, 8192), (2048, 3072, 768), (16384, 1024, 1024),
          (1024, 16384, 1024), (128, 4096, 4096), (4096, 4096, 512)]
LAYOUTS = [("col", "col"), ("row", "row"), ("col", "row")]


def main():
    parser = benchmark_arguments(20)
    parser.add_argument("--dtype", default="bf16", choices=["bf16", "f16"])
    args = parser.parse_args()
    timed = (args.warmup, args.repeats, args.timing)
    cases = [(m, n, k, a, b) for m, n, k in SHAPES for a, b in LAYOUTS]
    # spio-jit first, before this process opens a CUDA context.
    rows = []
    for m, n, k, a, b in cases:
        command = [args.spio_jit, "--workload", "gemm", "--m", str(m), "--n", str(n), "--k",
                   str(k), "--dtype", args.dtype, "--a-layout", a, "--b-layout", b, "--bench",
                   str(args.repeats), "--warmup", str(args.warmup), "--timing", args.timing]
        chosen = spio_report(command)
        kind = chosen["config"]["kind"]
        rows.append((spio_report(command + ["--wgmma=false"])["bench"]["median_ms"],
                     chosen["bench"]["median_ms"],
                     "mma.sync" if kind.startswith("mma.sync")
                     else "packed wgmma" if "packed" in kind else "wgmma"))
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, {args.dtype}, "
          f"{args.timing} timing")
    print("\n| shape (MxNxK) | A, B | mma.sync | default | torch.matmul | default / torch | "
          "default / mma.sync |")
    print("|---|---|---|---|---|---|---|")
    versus_torch, versus_mma = [], []
    for (m, n, k, a, b), (mma_ms, ours, kind) in zip(cases, rows):
        theirs = torch_ms(m, n, k, args.dtype, a, b, "highest", timed)
        tflops = lambda ms: 2.0 * m * n * k / (ms * 1e-3) / 1e12  # noqa: E731
        versus_torch.append(theirs / ours)
        versus_mma.append(mma_ms / ours)
        print(f"| {m}x{n}x{k} | {a}, {b} | {tflops(mma_ms):.1f} | {tflops(ours):.1f} ({kind}) | "
              f"{tflops(theirs):.1f} | {theirs / ours:.2f} | {mma_ms / ours:.2f} |")
    print(f"| geometric mean | | | | | {geometric_mean(versus_torch):.2f} | "
          f"{geometric_mean(versus_mma):.2f} |")


if __name__ == "__main__":
    main()
