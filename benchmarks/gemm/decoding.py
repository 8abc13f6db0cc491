#!/usr/bin/env python3
"""Decoding GEMMs (M <= 64) on the chooser's configuration and on swapped
variants: tiles of 64 or 128 rows of N, K split by 1-3 blocks of a cluster,
cuBLAS (torch.matmul) in the same run. Microseconds, the fastest variant
starred; a variant spio-jit refuses prints "-".

    benchmarks/gemm/decoding.py --spio-jit J --shapes 16x4608x4096,64x9216x4096 \\
        [--repeats 40] [--dtype bf16]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import spio_ms  # noqa: E402
from harness import benchmark_arguments, time_ms  # noqa: E402

# spio-jit's options of each swapped variant: the rows of N a tile takes
# (wgmma's M: one warpgroup a 64 rows) and the blocks splitting K.
VARIANTS = {f"{rows}/s{split}": ["--swap", "--block-n", str(rows), "--warps-m", str(rows // 16),
                                 "--split-k", str(split), "--stages", "8"]
            for rows in (64, 128) for split in (1, 2, 3)}


def token_width(m):
    """wgmma's N that holds M tokens: the power of 2 from 8."""
    return max(8, 1 << (m - 1).bit_length())


def main():
    parser = benchmark_arguments(40, warmup=10)
    parser.add_argument("--shapes", required=True, help="MxNxK,... with M <= 64")
    parser.add_argument("--dtype", choices=("bf16", "f16"), default="bf16")
    args = parser.parse_args()
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    if any(m > 64 for m, _, _ in shapes):
        sys.exit("decoding.py: M is at most 64 (decoding's swapped tiles)")
    timed = (args.warmup, args.repeats, args.timing)
    # spio-jit first, before this process opens a CUDA context (bench.py).
    ours = {}
    for m, n, k in shapes:
        ours[m, n, k, "default"] = spio_ms(args.spio_jit, m, n, k, args.dtype, *timed)
        for name, options in VARIANTS.items():
            try:
                ours[m, n, k, name] = spio_ms(args.spio_jit, m, n, k, args.dtype, *timed,
                                              options + ["--block-m", str(token_width(m))])
            except RuntimeError as error:  # spio-jit refused the variant
                print(f"{m}x{n}x{k} {name}: {error}", file=sys.stderr)
                ours[m, n, k, name] = None
    import torch
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, {args.dtype}, "
          f"{args.timing} timing; us")
    names = ["default"] + list(VARIANTS)
    print("\n| shape (MxNxK) | cuBLAS | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(n, k, device="cuda", dtype=dtype)
        vendor = time_ms(lambda: torch.matmul(a, b.t()), *timed) * 1e3
        row = [ours[m, n, k, name] for name in names]
        best = min(t for t in row[1:] if t is not None)
        cells = ["-" if t is None else f"{t * 1e3:.1f}{'*' if t == best else ''}" for t in row]
        print(f"| {m}x{n}x{k} | {vendor:.1f} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
