#!/usr/bin/env python3
"""Times every Hopper configuration worth timing of GEMM shapes (spio-jit
--list-candidates: the chooser's first, then its neighbours), and cuBLAS
on the same shapes: where the chooser's pick is short of the best, by
how much, and which configuration won (data for the chooser's rules and a
GEMM performance model).

    benchmarks/gemm/candidates.py --spio-jit J [--sweep sectors|other|llm|default]
        [--shapes 3000x1000x3000,...] [--out data.jsonl] [--deadline SECONDS]

The candidates of a shape are compiled in parallel first (spio-jit's PTX
cache), then timed one after the other (spio-jit --bench, queued timing,
median). Once every shape's candidates are timed, and cuBLAS after them
(this process opens its CUDA context last: bench.py), one JSON line a
shape is appended to --out, with the device, its driver, multiprocessors
and L2 bytes; shapes already in --out are skipped, so a sweep stopped by
--deadline (which stops starting shapes) goes on where it stopped. A run
killed before its end writes nothing: keep --deadline well under the time
a lent GPU allows (112 candidates took about 80 s a shape on an H200).
Prints a table: the chooser's TFLOP/s, the best candidate's and its
options, cuBLAS's.
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from bench import LLM_SHAPES, SHAPES, spio_ms, torch_tflops  # noqa: E402
from compare_builds import OTHER_SHAPES, SECTOR_SHAPES  # noqa: E402
from harness import benchmark_arguments, driver_version  # noqa: E402


def candidates(jit, m, n, k, dtype):
    """spio-jit's candidate configurations of the shape, as option lists."""
    run = subprocess.run([jit, "--workload", "gemm", "--m", str(m), "--n", str(n), "--k", str(k),
                          "--dtype", dtype, "--list-candidates"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"candidates.py: spio-jit refused {m}x{n}x{k}: {run.stderr.strip()}")
    return [line.split() for line in run.stdout.splitlines() if line.strip()]


def compile_all(jit, m, n, k, dtype, options):
    """Fills the PTX cache with every candidate's kernels, in parallel."""
    def one(extra):
        subprocess.run([jit, "--workload", "gemm", "--m", str(m), "--n", str(n), "--k", str(k),
                        "--dtype", dtype, "--emit-ptx"] + extra, capture_output=True)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(one, options))


def device_facts():
    import torch
    props = torch.cuda.get_device_properties(0)
    return dict(device=props.name, driver=driver_version(), torch=torch.__version__,
                multiprocessors=props.multi_processor_count,
                l2_bytes=getattr(props, "L2_cache_size", 0))


def main():
    parser = benchmark_arguments(10)
    parser.add_argument("--dtype", default="bf16")
    parser.add_argument("--sweep", choices=["default", "llm", "other", "sectors"],
                        default="sectors")
    parser.add_argument("--shapes", default="", help="MxNxK,... instead of a sweep")
    parser.add_argument("--out", help="a JSON-lines file to append each shape's times to")
    parser.add_argument("--deadline", type=float, default=0,
                        help="stop starting shapes after this many seconds")
    parser.add_argument("--no-cublas", action="store_true",
                        help="time the candidates alone, not torch.matmul")
    args = parser.parse_args()
    shapes = ([tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
              if args.shapes else
              {"default": SHAPES, "llm": [s for s in LLM_SHAPES if s[0] > 64],
               "other": OTHER_SHAPES, "sectors": SECTOR_SHAPES}[args.sweep])
    done = set()
    if args.out and os.path.exists(args.out):
        with open(args.out) as f:
            done = {(r["m"], r["n"], r["k"], r["dtype"]) for r in map(json.loads, f)}
    start = time.time()
    measured = []
    for m, n, k in shapes:
        if (m, n, k, args.dtype) in done:
            continue
        if args.deadline and time.time() - start > args.deadline:
            print(f"deadline: stopped before {m}x{n}x{k}")
            break
        options = candidates(args.spio_jit, m, n, k, args.dtype)
        compile_all(args.spio_jit, m, n, k, args.dtype, options)
        times = [spio_ms(args.spio_jit, m, n, k, args.dtype, args.warmup, args.repeats,
                         args.timing, extra) for extra in options]
        measured.append((m, n, k, options, times))
    # cuBLAS after spio-jit, once this process opens its CUDA context
    # (bench.py).
    if not measured:
        return
    import torch
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    facts = device_facts()
    print(f"device: {facts['device']}, driver {facts['driver']}, {args.timing} timing; TFLOP/s")
    print("\n| shape (MxNxK) | candidates | chosen | best | best / chosen | cuBLAS | "
          "best configuration |")
    print("|---|---|---|---|---|---|---|")
    for m, n, k, options, times in measured:
        flops = 2.0 * m * n * k
        vendor = None if args.no_cublas else torch_tflops(m, n, k, dtype, args.warmup,
                                                         args.repeats, args.timing)
        best = min(range(len(times)), key=times.__getitem__)
        chosen_tflops = flops / (times[0] * 1e-3) / 1e12
        best_tflops = flops / (times[best] * 1e-3) / 1e12
        print(f"| {m}x{n}x{k} | {len(times)} | {chosen_tflops:.1f} | {best_tflops:.1f} | "
              f"{best_tflops / chosen_tflops:.2f} | "
              f"{'-' if vendor is None else f'{vendor:.1f}'} | {' '.join(options[best])} |")
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(dict(facts, m=m, n=n, k=k, dtype=args.dtype,
                                        timing=args.timing, cublas_tflops=vendor,
                                        candidates=[dict(options=o, ms=t)
                                                    for o, t in zip(options, times)])) + "\n")


if __name__ == "__main__":
    main()
