#!/usr/bin/env python3
"""Turns the measurements of `spio-jit --workload conv2d-gw8 --autotune --json`
into sweep records (set "autotune") that train.py learns from: the layer,
the pass, the target it ran on, each candidate's configuration and time,
and the hand rules' configuration (the library's, on that target).

  spio-jit --workload conv2d-gw8 --batch 32 --channels 384 --height 28 \\
      --width 28 --autotune --json > run.json
  SPIO_LIBRARY=build/lib/libspio_capi.so PYTHONPATH=python \\
      python3 benchmarks/model/from_autotune.py run.json --out data/autotune.jsonl

Each input holds spio-jit's JSON objects (one a run, or one a line). Runs
without autotune timings (one candidate, no GPU) are skipped and counted,
as are runs that timed part of the candidates (`--autotune-candidates N`:
the model's best alone, whose fastest need not be the layer's).
"""

import argparse
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import features as model_features  # noqa: E402
import shapes  # noqa: E402
from spio import _capi  # noqa: E402


def reports(path):
    """The JSON objects of a file: one, or one a line."""
    with open(path) as f:
        text = f.read()
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def skipped(report):
    """Why a spio-jit report gives no record: "untimed" (no autotune
    timings), "part" (timings of part of the candidates the library
    listed), or None."""
    if report.get("workload") != "conv2d-gw8" or "autotune" not in report:
        return "untimed"
    timed = report["autotune"]["candidates"]
    return "part" if report["autotune"].get("listed", len(timed)) > len(timed) else None


def record(report):
    """The sweep record of a spio-jit report that skipped() takes."""
    p, target = report["problem"], report["target"]
    shape = dict(n=p["n"], c=p["c"], h=p["h"], w=p["w"], ph=p["pad_h"], pw=p["pad_w"],
                 r=p["r"], s=p["s"], bias=p["bias"], stride=p["stride"], g=p["group_width"])
    rec = dict(device=report["device"]["name"], chip=target["chip"],
               multiprocessors=target["multiprocessors"], l2_bytes=target["l2_bytes"],
               shared_bytes_per_block=target["shared_bytes_per_block"],
               shared_bytes_per_multiprocessor=target["shared_bytes_per_multiprocessor"],
               set="autotune", shape=shape, name=shapes.shape_name(shape), dtype=p["dtype"],
               timing=report["autotune"]["timing"], **{"pass": p["pass"]},
               candidates=[dict(config=c["config"], ms=c["ms"])
                           for c in report["autotune"]["candidates"]])
    layer = model_features.arguments(shape, p["pass"])
    rules = _capi.lib.spio_conv2d_gw8_rule_config(model_features.problem(rec))
    rec["rules"] = model_features.tile(layer, rules)
    return rec


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", help="spio-jit --json outputs")
    parser.add_argument("--out", required=True, help="sweep records to append to")
    args = parser.parse_args()
    counts = collections.Counter()
    with open(args.out, "a") as out:
        for path in args.reports:
            for report in reports(path):
                reason = skipped(report)
                counts[reason or "written"] += 1
                if reason is None:
                    out.write(json.dumps(record(report)) + "\n")
    print(f"{counts['written']} autotune records written to {args.out}, {counts['untimed']} "
          f"runs without autotune timings skipped, {counts['part']} runs timing part of the "
          f"candidates skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
