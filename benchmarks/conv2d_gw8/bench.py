#!/usr/bin/env python3
"""Grouped conv2d (group width 8, or 1, 2, 4) fprop, dgrad and wgrad: spio against cuDNN in one run.

Shapes: the 81 layers of layer-shapes.dat (collected by spio from public
models) and the ConvFirst layer; narrow-shapes.dat holds depthwise and
narrow-group layers (`--shapes`). cuDNN through torch.nn.functional.conv2d
on channels_last fp16 with cudnn.benchmark=True, and
aten.convolution_backward for dgrad (dx only) and wgrad (dw only). Both timed with CUDA
events, median of the timed runs after warm-up, on fresh random inputs,
each with the GPU to itself: every spio-jit case first, then cuDNN and the
copies in this process.
Effective bandwidth = ideal bytes (input, weights and bias read once, output
written once) / time; also as a fraction of the measured copy bandwidth
(a 1 GiB device-to-device copy) and of that of a copy moving the layer's
own bytes (half read, half written): on an H200 a copy of 67 MB in all ran
at 67% of the large copy's rate, 134 MB at 83%, 268 MB at 91%, so the
second fraction says how far a layer is from what moving its bytes takes.
Means over the layers larger than the L2 cache close the table.

A table over all the shapes can take longer than one command may run on a
lent GPU: run it in parts (--skip, --limit), each with --save PART.json,
and `bench.py --merge PART.json ...` prints the whole table and its means,
each row against the copy of its own run.
"""

import argparse
import json
import math
import os
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from harness import add_timing_argument, spio_report, time_ms  # noqa: E402


def load_shapes(path):
    shapes = []
    for line in open(path):
        m = re.search(r"n=(\d+), c=(\d+), h=(\d+), w=(\d+), padding=\((\d+), (\d+)\), "
                      r"r=(\d+), s=(\d+), has_bias=(\w+)", line)
        if not m:
            continue
        stride = re.search(r"stride=(\d+)", line)
        width = re.search(r"group_width=(\d+)", line)
        n, c, h, w, ph, pw, r, s = (int(v) for v in m.groups()[:8])
        shapes.append(dict(n=n, c=c, h=h, w=w, ph=ph, pw=pw, r=r, s=s,
                           bias=m.group(9) == "True",
                           stride=int(stride.group(1)) if stride else 1,
                           g=int(width.group(1)) if width else 8))
    return shapes


def ideal_bytes(sh, pass_, dtype_bytes=2):
    p = (sh["h"] + 2 * sh["ph"] - sh["r"]) // sh["stride"] + 1
    q = (sh["w"] + 2 * sh["pw"] - sh["s"]) // sh["stride"] + 1
    elems = (sh["n"] * sh["h"] * sh["w"] * sh["c"] + sh["c"] * sh["r"] * sh["s"] * sh["g"] +
             sh["n"] * p * q * sh["c"] + (sh["c"] if sh["bias"] and pass_ == "fprop" else 0))
    return elems * dtype_bytes


def cudnn_ms(sh, pass_, warmup, repeats, timing):
    import torch

    torch.backends.cudnn.benchmark = True
    x = torch.randn(sh["n"], sh["c"], sh["h"], sh["w"], device="cuda", dtype=torch.float16)
    x = x.to(memory_format=torch.channels_last)
    w = torch.randn(sh["c"], sh["g"], sh["r"], sh["s"], device="cuda", dtype=torch.float16)
    w = w.to(memory_format=torch.channels_last)
    b = torch.randn(sh["c"], device="cuda", dtype=torch.float16) if sh["bias"] else None
    groups = sh["c"] // sh["g"]
    if pass_ == "fprop":
        fn = lambda: torch.nn.functional.conv2d(x, w, b, stride=sh["stride"],
                                                padding=(sh["ph"], sh["pw"]), groups=groups)
    else:
        y = torch.nn.functional.conv2d(x, w, None, stride=sh["stride"],
                                       padding=(sh["ph"], sh["pw"]), groups=groups)
        dy = torch.randn_like(y).contiguous(memory_format=torch.channels_last)
        mask = [pass_ == "dgrad", pass_ == "wgrad", False]
        fn = lambda: torch.ops.aten.convolution_backward(
            dy, x, w, None, [sh["stride"]] * 2, [sh["ph"], sh["pw"]], [1, 1], False, [0, 0],
            groups, mask)
    return time_ms(fn, warmup, repeats, timing)


def spio_options(sh, pass_):
    """spio-jit's options for one shape and pass (f16)."""
    options = ["--workload", "conv2d-gw8", "--pass", pass_, "--batch", str(sh["n"]),
               "--channels", str(sh["c"]), "--height", str(sh["h"]), "--width", str(sh["w"]),
               "--r", str(sh["r"]), "--s", str(sh["s"]), "--pad-h", str(sh["ph"]),
               "--pad-w", str(sh["pw"]), "--stride", str(sh["stride"]), "--dtype", "f16"]
    if sh["g"] != 8:
        options += ["--group-width", str(sh["g"])]
    return options + (["--bias"] if sh["bias"] and pass_ == "fprop" else [])


def spio_ms(jit, sh, pass_, warmup, repeats, timing, autotune=False, extra=()):
    """spio-jit's median milliseconds and the configuration it ran (with
    --autotune, the fastest candidate's); `extra`: more spio-jit options."""
    cmd = [jit] + spio_options(sh, pass_) + ["--bench", str(repeats), "--warmup", str(warmup),
                                             "--timing", timing] + list(extra)
    report = spio_report(cmd + (["--autotune"] if autotune else []))
    return report["bench"]["median_ms"], report["config"].removeprefix("warps ")


def copy_bandwidth(timing, total_bytes=1 << 31, warmup=3, repeats=20):
    """GB/s of a device-to-device copy moving total_bytes (half read, half written)."""
    import torch

    a = torch.empty(total_bytes // 2, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ms = time_ms(lambda: b.copy_(a), warmup, repeats, timing)
    return 2 * a.numel() / (ms * 1e-3) / 1e9


def add_shape_arguments(parser):
    """The options that pick shapes and passes (bench.py's and configs.py's)."""
    parser.add_argument("--shapes", metavar="FILE",
                        help="the shapes of FILE (layer-shapes.dat's lines, with an optional "
                             "stride=) instead of ConvFirst and the layer table; "
                             "kernel-sizes.dat holds kernels of 1x1 to 7x7 and stride 2")
    parser.add_argument("--stride2", action="store_true",
                        help="also stride-2 copies of the stride-1 shapes of 28x28 and up")
    parser.add_argument("--only", help="shapes whose name (N.. C.. HxW RxS) matches this regex")
    parser.add_argument("--passes", default="fprop,dgrad,wgrad")


def selected_shapes(args):
    """ConvFirst and the layer table, or --shapes FILE's; with --stride2 copies."""
    tool = os.path.basename(sys.argv[0])
    if args.shapes:
        try:
            shapes = load_shapes(args.shapes)
        except OSError as e:
            sys.exit(f"{tool}: cannot read --shapes {args.shapes}: {e.strerror}")
        if not shapes:
            sys.exit(f"{tool}: no shapes in {args.shapes}")
    else:
        shapes = [dict(n=128, c=64, h=64, w=64, ph=1, pw=1, r=3, s=3, bias=True, stride=1, g=8)]
        shapes += load_shapes(os.path.join(HERE, "layer-shapes.dat"))
    if args.stride2:
        shapes += [dict(sh, stride=2) for sh in shapes if sh["stride"] == 1 and sh["h"] >= 28]
    return shapes


def selected_cases(shapes, args):
    """(shape, pass, name) for each of --passes whose name matches --only."""
    cases = []
    for sh in shapes:
        for pass_ in args.passes.split(","):
            name = (f"N{sh['n']} C{sh['c']} {sh['h']}x{sh['w']} {sh['r']}x{sh['s']} "
                    f"pad{sh['ph']},{sh['pw']}{' stride2' if sh['stride'] == 2 else ''}"
                    f"{'' if sh['g'] == 8 else ' gw%d' % sh['g']}"
                    f"{' bias' if sh['bias'] and pass_ == 'fprop' else ''}")
            if not args.only or re.search(args.only, name):
                cases.append((sh, pass_, name))
    return cases


def geomean(pairs):
    """The geometric mean of a / b over `pairs`."""
    return math.exp(sum(math.log(a / b) for a, b in pairs) / len(pairs))


def summary(rows, passes, l2, baseline):
    """Each pass's geometric mean spio / cuDNN (stride 1 and 2 apart), and
    over the shapes larger than L2 its mean against the large copy (how
    many reach 75%), against a copy of each shape's own bytes, what the
    mean would be were each shape as fast as that copy, and the same means
    by kernel size. `rows`: (name, pass, spio GB/s, cuDNN GB/s, baseline
    GB/s or None, bytes, same-size copy GB/s, "RxS", the large copy's GB/s
    in the run that measured the row)."""
    def means(large):
        return (sum(o / c for o, _, c in large) / len(large),
                sum(o / s for o, s, _ in large) / len(large))

    lines = []
    for pass_ in passes:
        for label, strided in (("", False), (" (stride 2)", True)):
            mine = [(o, t, b) for name, p, o, t, b, *_ in rows
                    if p == pass_ and ("stride2" in name) == strided]
            if not mine:
                continue
            lines.append(f"{pass_}{label}: geometric mean ratio spio / cuDNN over {len(mine)} "
                         f"shapes: {geomean([(o, t) for o, t, _ in mine]):.2f}"
                         + (f"; spio / baseline {geomean([(o, b) for o, _, b in mine]):.3f}"
                            if baseline else ""))
        large = [(o, sized, copy, kernel) for _, p, o, _, _, nbytes, sized, kernel, copy in rows
                 if p == pass_ and nbytes > l2]
        if not large:
            continue
        of_copy, of_sized = means([(o, s, c) for o, s, c, _ in large])
        reaching = sum(o >= 0.75 * c for o, _, c, _ in large)
        as_copies = sum(s / c for _, s, c, _ in large) / len(large)
        lines.append(f"{pass_}: over the {len(large)} shapes larger than L2, mean spio / copy "
                     f"{of_copy:.1%} ({reaching} at 75% or more), mean spio / same-size copy "
                     f"{of_sized:.1%}; each as fast as a copy of its bytes: {as_copies:.1%}")
        for kernel in sorted({k for *_, k in large}):
            some = [(o, s, c) for o, s, c, k in large if k == kernel]
            of_copy, of_sized = means(some)
            lines.append(f"{pass_}:   {kernel}, {len(some)} shapes: mean spio / copy "
                         f"{of_copy:.1%}, mean spio / same-size copy {of_sized:.1%}")
    return lines


def table_header(baseline):
    """The cuDNN table's header and rule (with a baseline's columns)."""
    return ("| shape | pass | MB | spio GB/s | cuDNN GB/s | ratio | spio / copy | "
            "spio / same-size copy |" + (" baseline GB/s | spio / baseline |" if baseline else "")
            + "\n|---|---|---|---|---|---|---|---|" + ("---|---|" if baseline else ""))


def table_row(row):
    """A summary row (see summary) as a line of the cuDNN table."""
    name, pass_, ours, theirs, base, nbytes, sized, _, copy = row
    return (f"| {name} | {pass_} | {nbytes / 1e6:.0f} | {ours:.0f} | {theirs:.0f} | "
            f"{ours / theirs:.2f} | {ours / copy:.0%} | {ours / sized:.0%} |"
            + (f" {base:.0f} | {ours / base:.2f} |" if base else ""))


def save_run(path, run):
    """Writes a run (its device, copy, L2, timing, passes and rows so far)
    as JSON for --merge; rewritten after each row, so that a run cut short
    keeps the rows it measured."""
    with open(path + ".tmp", "w") as f:
        json.dump(run, f)
    os.replace(path + ".tmp", path)


def merge_runs(paths):
    """The table and means of runs saved with --save: one device, L2 and
    timing, all with a baseline or none; each shape and pass at most once."""
    runs = []
    for path in paths:
        try:
            with open(path) as f:
                run = json.load(f)
            rows = [tuple(row) for row in run["rows"]]
            if any(len(row) != 9 for row in rows):
                raise ValueError("rows of 9 fields expected")
            runs.append((path, run, rows))
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"bench.py: --merge {path}: not a run bench.py --save wrote ({e})")
    first_path, first, _ = runs[0]
    for path, run, _ in runs[1:]:
        for key in ("device", "l2", "timing"):
            if run[key] != first[key]:
                sys.exit(f"bench.py: --merge: {path} ran with {key} {run[key]!r} but "
                         f"{first_path} with {first[key]!r}; merge runs of one device")
    rows, seen, passes = [], set(), []
    for path, run, some in runs:
        for row in some:
            if row[:2] in seen:
                sys.exit(f"bench.py: --merge: {row[0]} {row[1]} is in more than one run "
                         f"(again in {path})")
            seen.add(row[:2])
            rows.append(row)
        passes += [p for p in run["passes"] if p not in passes]
    baseline = any(row[4] for row in rows)
    if baseline and not all(row[4] for row in rows):
        sys.exit("bench.py: --merge: some runs timed a --baseline-jit and some did not")
    copies = sorted(run["copy"] for _, run, _ in runs)
    print(f"device: {first['device']}, {len(runs)} runs merged, copy bandwidth "
          f"{copies[0]:.0f}-{copies[-1]:.0f} GB/s, L2 {first['l2'] / 1e6:.0f} MB, "
          f"{first['timing']} timing\n")
    print(table_header(baseline))
    for row in rows:
        print(table_row(row))
    for line in summary(rows, passes, first["l2"], baseline):
        print(line)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--spio-jit", help="the spio-jit to time (not with --merge)")
    parser.add_argument("--baseline-jit",
                        help="another spio-jit build to time in the same run (A/B of a change)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--limit", type=int, default=0, help="first N shapes only")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N shapes")
    parser.add_argument("--autotune", action="store_true",
                        help="spio-jit --autotune: time the chooser's configuration and its "
                             "neighbours, run the fastest (not the baseline's)")
    parser.add_argument("--baseline-autotune", action="store_true",
                        help="the baseline runs --autotune too (A/B of two builds' tuning)")
    parser.add_argument("--spio-options", type=shlex.split, default=[], metavar="OPTIONS",
                        help="more spio-jit options for the spio-jit under test")
    parser.add_argument("--baseline-options", type=shlex.split, default=[], metavar="OPTIONS",
                        help="more spio-jit options for the baseline (an A/B of an option: "
                             "the same build as --spio-jit and --baseline-jit)")
    parser.add_argument("--spio-only", action="store_true",
                        help="time spio-jit (and --baseline-jit) alone: no cuDNN, whose wgrad "
                             "autotuning takes seconds a shape, and no copies")
    add_shape_arguments(parser)
    add_timing_argument(parser)
    parser.add_argument("--list", action="store_true",
                        help="print the shapes and passes the options select, with their "
                             "ideal bytes, and stop (no GPU)")
    parser.add_argument("--save", metavar="FILE.json",
                        help="also write the cuDNN table's run as JSON, for --merge")
    parser.add_argument("--merge", metavar="FILE.json", nargs="+",
                        help="print the table and means of runs saved with --save (no GPU)")
    args = parser.parse_args()
    if args.merge:
        merge_runs(args.merge)
        return
    if not args.spio_jit and not args.list:
        parser.error("--spio-jit is required (but for --list and --merge)")
    if args.baseline_options and not args.baseline_jit:
        parser.error("--baseline-options needs --baseline-jit")
    if args.save and (args.spio_only or args.list):
        parser.error("--save keeps the cuDNN table's run; --spio-only and --list have none")
    shapes = selected_shapes(args)[args.skip:]
    if args.limit:
        shapes = shapes[:args.limit]
    passes = args.passes.split(",")
    cases = selected_cases(shapes, args)
    if args.list:
        print("| shape | pass | MB |\n|---|---|---|")
        for sh, pass_, name in cases:
            print(f"| {name} | {pass_} | {ideal_bytes(sh, pass_) / 1e6:.0f} |")
        print(f"{len(cases)} cases")
        return

    # spio-jit first, before this process opens a CUDA context: with another
    # process's context on the GPU, even an idle one, some kernels run
    # slower (on an H200, 128x144x144 C40 0.885x, 56x56 C80 5x5 0.97x;
    # most unchanged), and cuDNN, in this process, would not pay it. So
    # each runs with the GPU to itself.
    # Each case's line, the baseline's too, as it comes: a run cut short
    # by a device's time limit keeps what it measured.
    timed = (args.warmup, args.repeats, args.timing)
    spio_gbs = []
    for sh, pass_, name in cases:
        gb = ideal_bytes(sh, pass_) / 1e9
        ms, config = spio_ms(args.spio_jit, sh, pass_, *timed, args.autotune,
                             args.spio_options)
        spio_gbs.append((gb / (ms * 1e-3),
                         gb / (spio_ms(args.baseline_jit, sh, pass_, *timed,
                                       args.baseline_autotune, args.baseline_options)[0] * 1e-3)
                         if args.baseline_jit else None))
        ours, base = spio_gbs[-1]
        print(f"spio-jit: {name} {pass_}: {ours:.0f} GB/s (warps {config})"
              + (f", baseline {base:.0f} GB/s ({ours / base:.3f})" if base else ""),
              file=sys.stderr, flush=True)

    if args.spio_only:
        print("| shape | pass | MB | spio GB/s |"
              + (" baseline GB/s | spio / baseline |\n|---|---|---|---|---|---|"
                 if args.baseline_jit else "\n|---|---|---|---|"))
        for (sh, pass_, name), (ours, base) in zip(cases, spio_gbs):
            print(f"| {name} | {pass_} | {ideal_bytes(sh, pass_) / 1e6:.0f} | {ours:.0f} |"
                  + (f" {base:.0f} | {ours / base:.3f} |" if base else ""))
        if args.baseline_jit:
            for pass_ in passes:
                pairs = [(o, b) for (_, p, _), (o, b) in zip(cases, spio_gbs) if p == pass_]
                if pairs:
                    print(f"{pass_}: geometric mean spio / baseline over {len(pairs)} shapes: "
                          f"{geomean(pairs):.3f}")
        return

    import torch

    copy = copy_bandwidth(args.timing)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    device = (f"{torch.cuda.get_device_name()}, torch {torch.__version__}, "
              f"cuDNN {torch.backends.cudnn.version()}")
    print(f"device: {device}, copy bandwidth {copy:.0f} GB/s, "
          f"L2 {l2 / 1e6:.0f} MB, {args.timing} timing\n")
    print(table_header(bool(args.baseline_jit)), flush=True)
    sized_copies = {}
    rows = []
    run = dict(device=device, copy=copy, l2=l2, timing=args.timing, passes=passes, rows=rows)
    for (sh, pass_, name), (ours, base) in zip(cases, spio_gbs):
        nbytes = ideal_bytes(sh, pass_)
        theirs = nbytes / 1e9 / (cudnn_ms(sh, pass_, *timed) * 1e-3)
        if nbytes not in sized_copies:
            sized_copies[nbytes] = copy_bandwidth(args.timing, nbytes, args.warmup, args.repeats)
        sized = sized_copies[nbytes]
        rows.append((name, pass_, ours, theirs, base, nbytes, sized, f"{sh['r']}x{sh['s']}",
                     copy))
        print(table_row(rows[-1]), flush=True)
        if args.save:
            save_run(args.save, run)

    for line in summary(rows, passes, l2, bool(args.baseline_jit)):
        print(line)


if __name__ == "__main__":
    main()
