#!/usr/bin/env python3
"""Compiles every kernel of the benchmark tables and GPU test cases with two
spio-jit builds (--emit-ptx, no GPU needed) and compares the PTX: proof that
a change to how kernels are built leaves what they compile to unchanged, or
the list of kernels that differ (to run on a GPU).

  scripts/compare-ptx.py --old OLD/spio-jit --new NEW/spio-jit [--families gemm,conv,conv2d]

(conv: conv2d-gw8; conv2d: the dense implicit GEMM.)

Prints one line per kernel that differs or fails and a count; exits with 1
when any does.
"""

import argparse
import ast
import hashlib
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "conv2d_gw8"))
import harness  # noqa: E402


def constant(path, name):
    """A module-level literal of a script, read without running it."""
    with open(path) as f:
        for node in ast.parse(f.read()).body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return ast.literal_eval(node.value)
    sys.exit(f"compare-ptx.py: no {name} in {path}")


def gemm_cases():
    """(label, spio-jit options) of the GEMM GPU tests and benchmark."""
    cases = []
    for m, n, k, extra, *_ in constant(os.path.join(ROOT, "benchmarks/gemm/gpu_tests.py"),
                                       "CASES"):
        cases.append((f"gemm test {m}x{n}x{k} {extra}".strip(),
                      ["--workload", "gemm", "--m", str(m), "--n", str(n), "--k", str(k)]
                      + extra.split()))
    for m, n, k in constant(os.path.join(ROOT, "benchmarks/gemm/bench.py"), "SHAPES"):
        for dtype in ("bf16", "f16"):
            cases.append((f"gemm bench {m}x{n}x{k} {dtype}",
                          ["--workload", "gemm", "--m", str(m), "--n", str(n), "--k", str(k),
                           "--dtype", dtype]))
    cases.append(("kernels/gemm.mlir", [os.path.join(ROOT, "kernels/gemm.mlir")]))
    return cases


def conv_cases():
    """(label, spio-jit options) of the conv2d-gw8 benchmark table (with its
    stride-2 copies) and GPU tests."""
    import bench

    args = argparse.Namespace(shapes=None, stride2=True, only=None, passes="fprop,dgrad,wgrad")
    cases = [(f"conv bench {name} {pass_}", bench.spio_options(sh, pass_))
             for sh, pass_, name in bench.selected_cases(bench.selected_shapes(args), args)]
    tests = os.path.join(ROOT, "benchmarks/conv2d_gw8/gpu_tests.py")
    for n, c, h, w, r, s, ph, pw, extra in constant(tests, "CASES"):
        options = ["--workload", "conv2d-gw8", "--batch", str(n), "--channels", str(c),
                   "--height", str(h), "--width", str(w), "--r", str(r), "--s", str(s),
                   "--pad-h", str(ph), "--pad-w", str(pw)]
        options += harness.without_autotune(extra.split())
        cases.append((f"conv test N{n} C{c} {h}x{w} {r}x{s} pad{ph},{pw} {extra}".strip(),
                       options))
    return cases


def conv2d_cases():
    """(label, spio-jit options) of the dense conv2d GPU tests."""
    cases = []
    for n, h, w, c, k, r, s, stride, pad, extra in constant(
            os.path.join(ROOT, "benchmarks/conv2d/gpu_tests.py"), "CASES"):
        cases.append((f"conv2d test N{n} {h}x{w} C{c} K{k} {r}x{s} s{stride} p{pad} {extra}"
                      .strip(),
                      ["--workload", "conv2d", "--batch", str(n), "--height", str(h), "--width",
                       str(w), "--channels", str(c), "--out-channels", str(k), "--r", str(r),
                       "--s", str(s), "--stride", str(stride), "--pad-h", str(pad), "--pad-w",
                       str(pad)] + extra.split()))
    return cases


def ptx(jit, options, cache):
    env = dict(os.environ, SPIO_CACHE_DIR=cache)
    run = subprocess.run([jit] + options + ["--emit-ptx"], capture_output=True, text=True,
                         env=env)
    if run.returncode != 0 or ".entry" not in run.stdout:
        return None, (run.stderr.strip().splitlines() or ["?"])[-1]
    return run.stdout, None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", required=True, help="the spio-jit built before the change")
    parser.add_argument("--new", required=True, help="the spio-jit built after it")
    parser.add_argument("--families", default="gemm,conv,conv2d")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    cases = []
    for family in args.families.split(","):
        cases += {"gemm": gemm_cases, "conv": conv_cases, "conv2d": conv2d_cases}[family]()
    # Each build its own empty PTX cache: what it compiles, not what it kept.
    caches = tempfile.TemporaryDirectory()

    def compare(case):
        label, options = case
        old, old_error = ptx(args.old, options, os.path.join(caches.name, "old"))
        new, new_error = ptx(args.new, options, os.path.join(caches.name, "new"))
        if old_error or new_error:
            return f"{label}: FAILED ({old_error or ''} | {new_error or ''})"
        if old != new:
            digest = lambda text: hashlib.sha256(text.encode()).hexdigest()[:12]
            return f"{label}: DIFFERS ({digest(old)} -> {digest(new)})"
        return None

    with ThreadPoolExecutor(args.jobs) as pool:
        problems = [p for p in pool.map(compare, cases) if p]
    for line in problems:
        print(line)
    print(f"{len(cases) - len(problems)} of {len(cases)} kernels compile to identical PTX")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
