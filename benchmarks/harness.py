"""Helpers shared by the benchmark and GPU-test scripts under benchmarks/."""

import argparse
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys


def check_arguments():
    """The GPU tests' arguments: the spio-jit to check, --only,
    run_check_cases' selection, --compile-only and --jobs."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--spio-jit", required=True)
    parser.add_argument("--only", help="the cases whose label matches this regex")
    parser.add_argument("--compile-only", action="store_true",
                        help="compile each case to PTX (--emit-ptx, no --autotune), no GPU "
                             "needed: every case's configuration still compiles")
    parser.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 1),
                        help="cases run at once, each its own spio-jit (default: the CPUs, "
                             "up to 8)")
    return parser.parse_args()


def without_autotune(args):
    """spio-jit arguments without --autotune and --autotune-candidates N
    (which time kernels on the device): those of the chosen kernel."""
    kept = []
    for arg in args:
        if kept and kept[-1] == "--autotune-candidates":
            kept.pop()
        elif arg != "--autotune" and not arg.startswith("--autotune-candidates="):
            kept.append(arg)
    return kept


def _compile_only(cmd):
    """A --check command as one that compiles the chosen kernel to PTX
    instead."""
    return ["--emit-ptx" if arg == "--check" else arg for arg in without_autotune(cmd)]


def _report(run):
    """The JSON report of a spio-jit --json run, or {} where it printed none."""
    try:
        return json.loads(run.stdout)
    except ValueError:
        return {}


def _digest(report):
    """The output digests of a report's checks (wgrad's dw and db: both),
    or None."""
    digests = [check["digest"] for _, check in sorted(report.get("check", {}).items())]
    return ", ".join(digests) or None


def run_check_cases(cases, only=None, compile_only=False, jobs=1):
    """Runs each (label, spio-jit --check command[, reference command]), or
    those whose label matches the regex `only`, `jobs` at once, and prints
    a PASS/FAIL table in the cases' order. A case with a reference command
    passes only where that command passes its check too and both print the
    same output digest (the same bits). With `compile_only`, each case
    passes where its kernels compile to PTX (no GPU, no reference).

    Cases run at once share the GPU: a process's checks (a float64
    reference, 10 runs compared bit for bit) do not depend on what else
    runs, and most of a case's time is the host's (start-up, compiling,
    the reference).

    Exits with status 1 when any case fails or `only` matches none; a
    failing case's full output goes to stderr.
    """
    if only:
        cases = [case for case in cases if re.search(only, case[0])]
        if not cases:
            sys.exit(f"error: no case matches {only!r}")

    def run_case(case):
        """(label, passed, detail, output to show where it failed)."""
        label, cmd, *reference = case
        run = subprocess.run(_compile_only(cmd) if compile_only else cmd + ["--json"],
                             capture_output=True, text=True)
        last_error = (run.stderr.strip().splitlines() or ["?"])[-1]
        if compile_only:
            ok = run.returncode == 0 and ".entry" in run.stdout
            detail = "compiled" if ok else last_error
        else:
            report = _report(run)
            ok = run.returncode == 0 and "check" in report
            # The text report (stderr under --json) says what was checked.
            detail = [l for l in run.stderr.splitlines() if l.startswith("check:")]
            detail = detail[0] if detail else last_error
        shown = run.stderr if compile_only else run.stdout + run.stderr
        if ok and reference and not compile_only:
            other = subprocess.run(reference[0] + ["--json"], capture_output=True, text=True)
            mine, theirs = _digest(report), _digest(_report(other))
            if other.returncode == 0 and mine is not None and mine == theirs:
                detail += "; the reference's bits"
            else:
                ok = False
                detail = f"output digest {mine}, the reference's {theirs}"
                shown += other.stdout + other.stderr
        return label, ok, detail, shown

    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        results = list(pool.map(run_case, cases))
    passed = sum(ok for _, ok, _, _ in results)
    for _, ok, _, shown in results:
        if not ok:
            print(shown, file=sys.stderr)
    print("\n| case | result | detail |\n|---|---|---|")
    for label, ok, detail, _ in results:
        print(f"| {label} | {'PASS' if ok else 'FAIL'} | {detail} |")
    print(f"\n{passed} passed, {len(results) - passed} failed")
    sys.exit(1 if passed < len(results) else 0)


def spio_report(cmd):
    """Runs a spio-jit --bench command with --json and returns its report (a
    dict: problem, config, compile, device, check, bench)."""
    run = subprocess.run(list(cmd) + ["--json"], capture_output=True, text=True)
    report = _report(run)
    if run.returncode != 0 or "bench" not in report:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{run.stderr}")
    return report


def driver_version(device=0):
    """The NVIDIA driver's version as nvidia-smi reports it ("" without
    nvidia-smi)."""
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                               "--format=csv,noheader", "-i", str(device)], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return ""


TIMINGS = ("queued", "launch")


def benchmark_arguments(repeats, warmup=5, spio_jit=True):
    """A parser of what every benchmark takes: --spio-jit (unless
    `spio_jit` is false: a benchmark timing the Python package alone),
    --warmup, --repeats (defaults `warmup`, `repeats`) and --timing."""
    parser = argparse.ArgumentParser()
    if spio_jit:
        parser.add_argument("--spio-jit", required=True)
    parser.add_argument("--warmup", type=int, default=warmup)
    parser.add_argument("--repeats", type=int, default=repeats)
    add_timing_argument(parser)
    return parser


def cudnn_benchmark_header(timing, dtype):
    """Turns cudnn.benchmark on (cuDNN then runs its fastest algorithm for
    each layer, as the vendor figures assume) and returns the header line
    naming the device, torch, cuDNN, `dtype` and the `timing`."""
    import torch
    torch.backends.cudnn.benchmark = True
    return (f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
            f"cuDNN {torch.backends.cudnn.version()}, {dtype}, {timing} timing")


def geometric_mean(values):
    """The geometric mean of positive `values` (NaN for none)."""
    values = list(values)
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def add_timing_argument(parser):
    """--timing, shared by the benchmarks: how spio-jit and time_ms time."""
    parser.add_argument(
        "--timing", choices=TIMINGS, default="queued",
        help="queued: each run's events and launches wait behind a hold kernel until all "
             "are queued, timing the GPU alone; launch: the first event runs before the "
             "launch calls, so host launch latency counts")


def time_ms(fn, warmup, repeats, timing="queued"):
    """Median CUDA-event time of fn() in milliseconds, after warm-up calls.

    With queued timing each run waits behind torch.cuda._sleep, held longer
    whenever it ended before fn's launches were all queued (as spio-jit's
    --timing queued does with its own hold kernel).
    """
    import torch

    for _ in range(warmup):
        fn()
    times = []
    hold_cycles = 100_000
    while len(times) < repeats:
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if timing == "queued":
            torch.cuda._sleep(hold_cycles)
        start.record()
        fn()
        stop.record()
        late = timing == "queued" and start.query()
        stop.synchronize()
        if late:
            if hold_cycles > 1 << 32:
                raise RuntimeError("queued timing: fn() waits for the GPU or takes seconds "
                                   "to queue; use --timing launch")
            hold_cycles *= 4
            continue
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]
