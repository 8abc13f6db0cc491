#!/usr/bin/env python3
"""How the library's chooser does on sweep.py's measurements: for each set
(confirm, held-out, train, table, narrow) and pass, the configuration the library chooses
(spio_conv2d_gw8_choose_config on the record's target: the performance
model's pick) against the fastest measured candidate and against the hand
rules' choice (conv2dGw8RuleConfig), and cuDNN's time over the chosen one's
(where the sweep timed cuDNN: not spio-jit's autotune records); and what
timing the library's first two candidates (the model's two best) would
pick, where the sweep timed both.

  SPIO_LIBRARY=build/lib/libspio_capi.so PYTHONPATH=python \\
      python3 benchmarks/model/evaluate.py benchmarks/model/data/h200.jsonl

Prints a markdown table; --worst N lists the N layers farthest from the
best.
"""

import argparse
import collections
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import features as model_features  # noqa: E402


def geometric_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--worst", type=int, default=0)
    args = parser.parse_args()
    rows = collections.defaultdict(list)
    for record in model_features.load(args.data):
        times = model_features.times(record)
        chosen = model_features.chosen(record)
        rules = tuple(record["candidates"][0]["config"] if "rules" not in record
                      else record["rules"])
        if chosen not in times:
            sys.exit(f"evaluate.py: the library chooses {list(chosen)} for {record['name']} "
                     f"{record['pass']}, which the sweep did not time (another build's "
                     f"candidates?)")
        best = min(times.values())
        vendor = record.get("cudnn_ms")
        # What timing the model's two best would pick, where the sweep timed both.
        two = model_features.ranked(record)[:2]
        timed_two = min(times[t] for t in two) / best if all(t in times for t in two) else None
        rows[record["set"], record["pass"]].append(
            (times[chosen] / best, times[rules] / best, vendor and vendor / times[chosen],
             vendor and vendor / times[rules], record["name"], record["pass"], timed_two))
    print(f"{model_features.load(args.data)[0]['device']}: the chosen configuration's time "
          "over the best candidate's, the model's pick (model) and the hand rules' (rules)\n")
    print("| set | pass | layers | model within 5% | rules within 5% | model / best | "
          "rules / best | model worst | rules worst | cuDNN / model | cuDNN / rules | "
          "model below cuDNN | model's 2 best timed: within 5% (layers) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    def vendor_mean(ratios):
        return f"{geometric_mean(ratios):.2f}" if None not in ratios else "-"

    for set_name in ("confirm", "held-out", "train", "table", "narrow", "autotune"):
        for pass_ in ("fprop", "dgrad", "wgrad"):
            found = rows.get((set_name, pass_))
            if not found:
                continue
            model, rule, vendor_model, vendor_rule = (list(c) for c in list(zip(*found))[:4])
            two = [row[6] for row in found if row[6] is not None]
            two_column = f"{sum(r <= 1.05 for r in two) / len(two):.0%} ({len(two)})" if two else "-"
            print(f"| {set_name} | {pass_} | {len(found)} | "
                  f"{sum(r <= 1.05 for r in model) / len(found):.0%} | "
                  f"{sum(r <= 1.05 for r in rule) / len(found):.0%} | "
                  f"{geometric_mean(model):.3f} | {geometric_mean(rule):.3f} | "
                  f"{max(model):.2f} | {max(rule):.2f} | {vendor_mean(vendor_model)} | "
                  f"{vendor_mean(vendor_rule)} | "
                  f"{sum(v < 1 for v in vendor_model if v is not None)} | {two_column} |")
    if args.worst:
        every = [row + (set_name,) for (set_name, _), found in rows.items() for row in found]
        print(f"\nThe {args.worst} layers farthest from their best candidate (model's pick):\n")
        for row in sorted(every, key=lambda row: row[:2], reverse=True)[:args.worst]:
            vendor = "" if row[2] is None else f", cuDNN / model {row[2]:.2f}"
            print(f"- {row[-1]} {row[4]} {row[5]}: model {row[0]:.2f}x the best, rules "
                  f"{row[1]:.2f}x{vendor}")


if __name__ == "__main__":
    main()
