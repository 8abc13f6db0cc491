#!/usr/bin/env python3
"""GEMMs whose operands Spio packs first, against torch.matmul in one run.

f32 inputs at each of torch's matmul precisions (spio: sums of 3, 2 or 1
bf16 terms on bf16 tensor cores, or TF32 tensor cores, which spio.linear
takes at "high" on sm_90; torch: cuBLAS's f32 SGEMM at "highest", TF32 at
"high" and "medium"), and f16/bf16 problems whose contiguous dimension is
not a multiple of 8 or whose operands are M- or N-major.
Times are spio-jit's (the packing kernels and the GEMM) and CUDA-event
medians of torch.matmul on operands of the same layout. With --accuracy
(needs the Python package), both multiply the same f32 inputs and their
largest error relative to sum|a*b| of a float64 reference is printed.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import benchmark_arguments, geometric_mean, time_ms  # noqa: E402
from bench import spio_ms  # noqa: E402

F32_SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (2048, 3072, 768), (1000, 1000, 1000),
              (128, 4096, 4096)]
# (spio's precision, torch's): spio's bf16 terms and TF32 against torch's
# setting of the same name and the one that runs TF32.
PRECISIONS = (("highest", "highest"), ("high", "high"), ("tf32", "high"), ("medium", "medium"))
# TF32 on operands it packs (M- or N-major, K not a multiple of 4) or reads
# at other sizes: (m, n, k, A layout, B layout).
TF32_SHAPES = [(4096, 4096, 4096, "col", "col"), (4096, 4096, 4096, "row", "row"),
               (4095, 4095, 4095, "row", "col"), (512, 11008, 4096, "row", "col"),
               (16384, 1024, 1024, "row", "col")]
# (m, n, k, dtype, A layout, B layout): a contiguous dimension that is not
# a multiple of 8 (7 x 1000 x 999 and 257^3 were refused before packing).
UNALIGNED = [(7, 1000, 999, "bf16", "row", "col"), (4095, 4095, 4095, "bf16", "row", "col"),
             (257, 257, 257, "bf16", "col", "row"), (8191, 8191, 8191, "bf16", "row", "col"),
             (4096, 4096, 4090, "f16", "row", "col")]
TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def operands(m, n, k, dtype, a_layout, b_layout):
    """A (m x k) and B (k x n) as views of tensors stored in the layouts."""
    a = torch.randn(m, k, device="cuda", dtype=dtype) if a_layout == "row" else \
        torch.randn(k, m, device="cuda", dtype=dtype).t()
    b = torch.randn(k, n, device="cuda", dtype=dtype) if b_layout == "row" else \
        torch.randn(n, k, device="cuda", dtype=dtype).t()
    return a, b


def torch_ms(m, n, k, name, a_layout, b_layout, precision, timed):
    torch.set_float32_matmul_precision(precision)
    a, b = operands(m, n, k, TORCH_DTYPES[name], a_layout, b_layout)
    return time_ms(lambda: torch.matmul(a, b), *timed)


def relative_errors(m, n, k, precision):
    """The largest |error| / sum|a*b| of spio.linear and torch.matmul on the
    same f32 inputs, against float64."""
    import spio

    a = torch.randn(m, k, device="cuda")
    w = torch.randn(n, k, device="cuda")
    exact = a.double() @ w.double().t()
    magnitude = a.double().abs() @ w.double().abs().t()
    torch.set_float32_matmul_precision(precision)
    errors = []
    for result in (spio.linear(a, w), torch.matmul(a, w.t())):
        errors.append(((result.double() - exact).abs() / magnitude).max().item())
    return errors


def main():
    parser = benchmark_arguments(20)
    parser.add_argument("--accuracy", action="store_true",
                        help="also compare spio's and torch's f32 errors (Python package)")
    args = parser.parse_args()
    timed = (args.warmup, args.repeats, args.timing)
    # spio-jit first, before this process opens a CUDA context.
    f32_cases = [(m, n, k, "row", "col", ours, theirs) for ours, theirs in PRECISIONS
                 for m, n, k in F32_SHAPES]
    f32_cases += [(m, n, k, a, b, "tf32", "high") for m, n, k, a, b in TF32_SHAPES]
    f32_spio = [spio_ms(args.spio_jit, m, n, k, "f32", *timed,
                        ["--precision", ours, "--a-layout", a, "--b-layout", b])
                for m, n, k, a, b, ours, _ in f32_cases]
    unaligned_spio = [spio_ms(args.spio_jit, m, n, k, name, *timed,
                              ["--a-layout", a, "--b-layout", b])
                      for m, n, k, name, a, b in UNALIGNED]
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{args.timing} timing")
    print("\nf32 inputs, TFLOP/s (of the f32 problem's 2mnk):")
    print("| shape (MxNxK) | A, B | spio precision | torch precision | spio | torch.matmul | "
          "ratio |")
    print("|---|---|---|---|---|---|---|")
    for precision, torch_precision in PRECISIONS:
        ratios = []
        for (m, n, k, a, b, p, _), ours in zip(f32_cases, f32_spio):
            if p != precision:
                continue
            theirs = torch_ms(m, n, k, "f32", a, b, torch_precision, timed)
            flops = 2.0 * m * n * k / 1e9
            ratios.append(theirs / ours)
            print(f"| {m}x{n}x{k} | {a}, {b} | {precision} | {torch_precision} | "
                  f"{flops / ours:.1f} | {flops / theirs:.1f} | {theirs / ours:.2f} |")
        print(f"| geometric mean | | {precision} | {torch_precision} | | | "
              f"{geometric_mean(ratios):.2f} |")
    torch.set_float32_matmul_precision("highest")
    print("\nUnaligned or M/N-major f16/bf16 operands, TFLOP/s:")
    print("| shape (MxNxK) | dtype | A, B | spio | torch.matmul | ratio |")
    print("|---|---|---|---|---|---|")
    for (m, n, k, name, a, b), ours in zip(UNALIGNED, unaligned_spio):
        theirs = torch_ms(m, n, k, name, a, b, "highest", timed)
        flops = 2.0 * m * n * k / 1e9
        print(f"| {m}x{n}x{k} | {name} | {a}, {b} | {flops / ours:.1f} | {flops / theirs:.1f} | "
              f"{theirs / ours:.2f} |")
    if args.accuracy:
        print("\nf32 error, max |D - exact| / sum|a*b| (same inputs, float64 reference; "
              "spio.linear follows torch's precision, \"high\" running TF32 on sm_90):")
        print("| shape (MxNxK) | precision | spio | torch.matmul |")
        print("|---|---|---|---|")
        for precision in ("highest", "high", "medium"):
            for m, n, k in [(1000, 1000, 1000), (512, 512, 8192)]:
                ours, theirs = relative_errors(m, n, k, precision)
                print(f"| {m}x{n}x{k} | {precision} | {ours:.2e} | {theirs:.2e} |")


if __name__ == "__main__":
    main()
