#!/usr/bin/env python3
"""The choosers run on the device, on layers the model never saw: the
model's pick alone, and autotuning its N best (the library's autotuner,
as `spio.set_autotune(True, candidates=N)` and `spio-jit
--autotune-candidates N` run it), against the fastest candidate of the
exhaustive sweep (a record of data/*.jsonl), all timed again in this run.

For each record of --sets and --passes measured on this GPU, the pick,
the model's N best and the sweep's fastest are compiled (in parallel),
the autotuner chooses among the N best on fresh operands (no disk cache:
timed every time), then the pick, the tuned choice and the sweep's
fastest are timed interleaved (sweep.py's timing); "best" is the fastest
of them in this run. Prints a markdown table, a row a set and pass:

  SPIO_LIBRARY=... PYTHONPATH=python python3 benchmarks/model/chooser.py \\
      benchmarks/model/data/h200.jsonl --sets held-out,confirm
"""

import argparse
import collections
import concurrent.futures
import multiprocessing
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import features as model_features  # noqa: E402
import sweep  # noqa: E402
from evaluate import geometric_mean  # noqa: E402


def tuned_choice(sh, pass_, configs):
    """The index among `configs` (family instances) that the library's
    autotuner picks on fresh operands, and the seconds it took."""
    import torch
    import spio.kernels as kernels
    from spio import _capi
    family = kernels.Conv2dGw8Family()
    args = model_features.arguments(sh, pass_)
    found = sweep.operands(sh, pass_, args)
    launchers = [kernels.Kernel(family, config).launcher(args, 0) for config in configs]
    size = max(launcher.workspace for launcher in launchers)
    workspace = torch.empty(max(size, 1), dtype=torch.uint8, device="cuda")
    addresses = [found[name].data_ptr() if name in found else 0
                 for name in launchers[0].operands]
    torch.cuda.synchronize()
    started = time.perf_counter()
    fastest = _capi.autotune(launchers, addresses, workspace.data_ptr() if size else 0, None)
    return fastest, time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="a sweep's records (sweep.py --out)")
    parser.add_argument("--sets", default="held-out,confirm")
    parser.add_argument("--passes", default=",".join(sweep.PASSES))
    parser.add_argument("--candidates", type=int, default=2,
                        help="how many of the model's best the autotuner times")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--limit", type=int, default=0,
                        help="at most this many records a set and pass (0: all)")
    parser.add_argument("--deadline", type=float, default=float("inf"),
                        help="seconds after which no new case is started")
    args = parser.parse_args()
    started = time.time()
    import torch
    import spio.kernels as kernels
    if not torch.cuda.is_available():
        sys.exit("chooser.py: no GPU found (torch.cuda.is_available() is False)")
    facts = sweep.device_facts()
    sets, passes = args.sets.split(","), args.passes.split(",")
    taken = collections.Counter()
    cases = []
    for record in model_features.load([args.data]):
        if (record["device"] != facts["device"] or record["set"] not in sets
                or record["pass"] not in passes):
            continue
        if args.limit and taken[record["set"], record["pass"]] >= args.limit:
            continue
        taken[record["set"], record["pass"]] += 1
        instances = kernels.Conv2dGw8Family().candidates(
            model_features.arguments(record["shape"], record["pass"]))
        times = model_features.times(record)
        swept = min((i for i in instances if tuple(i[2]) in times),
                    key=lambda i: times[tuple(i[2])], default=None)
        if swept is None:
            continue  # the sweep timed none of today's candidates
        cases.append((record, instances[:args.candidates], swept))
    print(f"{len(cases)} cases on {facts['device']}", file=sys.stderr)
    pool = concurrent.futures.ProcessPoolExecutor(
        args.jobs, mp_context=multiprocessing.get_context("spawn"))
    compiled = [pool.submit(sweep.compile_case, r["shape"], r["pass"], best + [swept],
                            facts["chip"]) for r, best, swept in cases]
    rows = collections.defaultdict(list)
    for (record, best, swept), future in zip(cases, compiled):
        if time.time() - started > args.deadline:
            print("deadline: stopping", file=sys.stderr)
            break
        sh, pass_ = record["shape"], record["pass"]
        if failures := future.result():
            print(f"skip {record['name']} {pass_}: {failures[0]}", file=sys.stderr)
            continue
        chosen, seconds = tuned_choice(sh, pass_, best)
        timed = [best[0], best[chosen], swept]
        ms, _ = sweep.time_candidates(sh, pass_, timed, args.rounds)
        torch.cuda.empty_cache()
        fastest = min(ms)
        pick, tuned = ms[0] / fastest, ms[1] / fastest
        rows[record["set"], pass_].append((pick, tuned, seconds))
        print(f"{record['set']:8} {record['name']:48} {pass_:5} pick {pick:.3f} "
              f"tuned {tuned:.3f} ({chosen + 1} of {len(best)}, {seconds * 1e3:.1f} ms)",
              file=sys.stderr)
    pool.shutdown(cancel_futures=True)
    n = args.candidates
    print(f"| set | pass | layers | pick within 5% | {n} best timed: within 5% | pick / best | "
          f"{n} best timed / best | worst pick | worst timed | timing ms (median) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (set_name, pass_), found in sorted(rows.items()):
        pick, tuned, seconds = zip(*found)
        print(f"| {set_name} | {pass_} | {len(found)} | "
              f"{sum(r <= 1.05 for r in pick) / len(pick):.0%} | "
              f"{sum(r <= 1.05 for r in tuned) / len(tuned):.0%} | "
              f"{geometric_mean(pick):.3f} | {geometric_mean(tuned):.3f} | {max(pick):.2f} | "
              f"{max(tuned):.2f} | {sorted(seconds)[len(seconds) // 2] * 1e3:.1f} |")


if __name__ == "__main__":
    main()
