#!/usr/bin/env python3
"""Fused GEMM epilogue benchmark: D = act(A @ B^T + bias) with the bias along
N, on transformer MLP shapes, in one run against

- spio's plain GEMM (the epilogue's cost: the target is >= 0.95x),
- torch eager, F.gelu(F.linear(x, w, b)) (cuBLAS, then a pointwise kernel),
- torch.compile of the same function (Inductor's choice of fusion),

and spio's fused kernel through PyTorch, spio.linear(x, w, b,
activation=...) without gradients (the same kernel, plus the call's host
work).

Fresh random inputs, CUDA events, the median of the timed repeats after
warm-up; spio-jit checks its fused output against a float64 reference first.
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import benchmark_arguments, geometric_mean, time_ms  # noqa: E402
from bench import spio_ms  # noqa: E402

# (tokens, hidden out, hidden in): the first MLP linear of BERT-large, GPT-3
# 6.7B and Llama-style 8B/13B models at prefill token counts.
SHAPES = [(4096, 4096, 1024), (8192, 16384, 4096), (2048, 14336, 4096),
          (8192, 14336, 4096), (512, 11008, 4096), (2048, 13824, 5120)]
ACTIVATIONS = {"gelu_tanh": lambda y: F.gelu(y, approximate="tanh"),
               "gelu_erf": F.gelu, "relu": F.relu, "silu": F.silu}


def main():
    parser = benchmark_arguments(30)
    parser.add_argument("--dtype", choices=["bf16", "f16"], default="bf16")
    parser.add_argument("--activation", choices=sorted(ACTIVATIONS), default="gelu_tanh")
    parser.add_argument("--no-compile", action="store_true",
                        help="leave out torch.compile (no Triton on the host)")
    args = parser.parse_args()
    timed = (args.warmup, args.repeats, args.timing)
    epilogue = f"bias,{args.activation}"
    # spio-jit first, before this process opens a CUDA context.
    ours = [(spio_ms(args.spio_jit, m, n, k, args.dtype, *timed),
             spio_ms(args.spio_jit, m, n, k, args.dtype, *timed,
                     ["--epilogue", epilogue, "--check"]))
            for m, n, k in SHAPES]
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    activation = ACTIVATIONS[args.activation]

    def mlp(x, w, b):
        return activation(F.linear(x, w, b))

    import spio

    compiled = None if args.no_compile else torch.compile(mlp)
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{args.timing} timing, {args.dtype}, epilogue {epilogue}")
    print("\n| shape (MxNxK) | spio plain | spio fused | fused / plain | torch eager | "
          "torch.compile | fused vs eager | fused vs compile | spio.linear | "
          "spio.linear vs eager |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    to_plain, to_eager, to_compiled, linear_to_eager = [], [], [], []
    for (m, n, k), (plain, fused) in zip(SHAPES, ours):
        x = torch.randn(m, k, device="cuda", dtype=dtype)
        w = torch.randn(n, k, device="cuda", dtype=dtype)
        b = torch.randn(n, device="cuda", dtype=dtype)
        eager = time_ms(lambda: mlp(x, w, b), *timed)
        inductor = time_ms(lambda: compiled(x, w, b), *timed) if compiled else float("nan")
        with torch.no_grad():
            through_torch = time_ms(
                lambda: spio.linear(x, w, b, activation=args.activation), *timed)
        linear_to_eager.append(eager / through_torch)
        tflops = lambda ms: 2.0 * m * n * k / (ms * 1e-3) / 1e12  # noqa: E731
        to_plain.append(plain / fused)
        to_eager.append(eager / fused)
        if compiled:
            to_compiled.append(inductor / fused)
        print(f"| {m}x{n}x{k} | {tflops(plain):.1f} | {tflops(fused):.1f} | {plain / fused:.2f} | "
              f"{tflops(eager):.1f} | {tflops(inductor):.1f} | {eager / fused:.2f} | "
              f"{inductor / fused:.2f} | {tflops(through_torch):.1f} | "
              f"{eager / through_torch:.2f} |")
    print(f"\nTFLOP/s; geometric means: fused / plain {geometric_mean(to_plain):.2f} (lowest "
          f"{min(to_plain):.2f}), fused vs eager {geometric_mean(to_eager):.2f}, fused vs compile "
          f"{geometric_mean(to_compiled):.2f}; spio.linear vs eager "
          f"{geometric_mean(linear_to_eager):.2f}")


if __name__ == "__main__":
    main()
