#!/usr/bin/env python3
"""conv2d-gw8 kernels under other configurations than the chooser's, on a GPU.

For each shape and pass (bench.py's selection: the layer table, --shapes
FILE, --stride2, --only, --passes), times the chosen configuration and
each --variant (spio-jit options such as `--rows-p 3 --warps-m 1`) with
`spio-jit --bench`, the variants interleaved round by round (--rounds) so
that drift hits all alike, and prints the median of the rounds:

| shape | pass | chosen | chosen ms | LABEL ms (chosen / LABEL) | ...

A ratio above 1 means the variant ran faster. A configuration spio-jit
refuses (over shared memory, groups that do not divide) shows its reason.
This is how the chooser's rules were fitted (RESULTS.md); confirm a winner
against cuDNN with bench.py.

  configs.py --spio-jit J --only '72x72 3x3' --passes wgrad --stride2 \\
      --variant 'r3=--rows-p 3' --variant '2x4=--warps-m 2 --warps-n 4'

What holds a wgrad kernel, its partial sums' band loop by parts:

  configs.py --spio-jit J --only '5x5' --passes wgrad \\
      --spio-options '--wgrad-kernels partial-sums' \\
      --variant 'copies=--wgrad-parts copies' \\
      --variant 'no-halo=--wgrad-parts copies-without-row-halo' \\
      --variant 'mma=--wgrad-parts mma'
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from bench import (add_shape_arguments, selected_cases, selected_shapes,  # noqa: E402
                   spio_options)
from harness import add_timing_argument  # noqa: E402


def variant(text):
    label, sep, options = text.partition("=")
    if not sep or not label or label == "chosen":
        raise argparse.ArgumentTypeError(f"expected LABEL=OPTIONS (LABEL not 'chosen'), "
                                         f"got '{text}'")
    return label, shlex.split(options)


class NoGpu(Exception):
    """spio-jit compiled but had no GPU to time on."""


def time_once(cmd):
    """(median ms, the configuration spio-jit ran) or (None, why it refused)."""
    run = subprocess.run(cmd + ["--json"], capture_output=True, text=True)
    try:
        report = json.loads(run.stdout)
    except ValueError:
        report = {}
    if "no_gpu" in report:
        raise NoGpu(report["no_gpu"])
    if run.returncode != 0 or "bench" not in report:
        lines = run.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"exit status {run.returncode}"
    return report["bench"]["median_ms"], report["config"].removeprefix("warps ")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spio-jit", required=True)
    parser.add_argument("--variant", type=variant, action="append", required=True,
                        metavar="LABEL=OPTIONS", help="spio-jit options of one configuration")
    add_shape_arguments(parser)
    parser.add_argument("--spio-options", type=shlex.split, default=[], metavar="OPTIONS",
                        help="more spio-jit options for every configuration, the chosen one's "
                             "too (--wgrad-kernels partial-sums: time the partial sums alone)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bench", type=int, default=30, help="timed runs a spio-jit call")
    add_timing_argument(parser)
    args = parser.parse_args()
    cases = selected_cases(selected_shapes(args), args)
    if not cases:
        sys.exit("configs.py: no shape matches")

    labels = [label for label, _ in args.variant]
    print("| shape | pass | chosen | chosen ms | "
          + " | ".join(f"{label} ms (chosen / {label})" for label in labels) + " |")
    print("|---|---|---|---|" + "---|" * len(labels), flush=True)
    timing = ["--bench", str(args.bench), "--warmup", "5", "--timing", args.timing]
    for sh, pass_, name in cases:
        base = [args.spio_jit] + spio_options(sh, pass_) + args.spio_options + timing
        runs = [("chosen", [])] + args.variant
        times = {label: [] for label, _ in runs}
        named = {}
        try:
            for _ in range(args.rounds):
                for label, options in runs:
                    ms, what = time_once(base + options)
                    named[label] = what
                    if ms is not None:
                        times[label].append(ms)
        except NoGpu as e:
            sys.exit(f"configs.py: spio-jit found no GPU to time on ({e})")
        chosen = statistics.median(times["chosen"]) if times["chosen"] else None
        cells = []
        for label in labels:
            if not times[label]:
                cells.append(f"refused: {named[label]}")
            elif chosen is None:
                cells.append(f"{statistics.median(times[label]):.4f}")
            else:
                ms = statistics.median(times[label])
                cells.append(f"{ms:.4f} ({chosen / ms:.3f}) {named[label]}")
        print(f"| {name} | {pass_} | {named['chosen']} | "
              f"{f'{chosen:.4f}' if chosen is not None else 'refused'} | "
              + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
