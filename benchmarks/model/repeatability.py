#!/usr/bin/env python3
"""How far two sweeps of the same layers agree: the noise floor of "within
5% of the best candidate". For each layer and pass timed in both runs, the
fastest candidate of each run is timed by the other, over that run's
fastest; and the library's choice over the best of the two runs' mean
times (a less noisy judge than either run), where both runs timed it (a
chooser newer than the sweeps may take a candidate they lack: those
layers are counted apart).

  SPIO_LIBRARY=build/lib/libspio_capi.so PYTHONPATH=python \\
      python3 benchmarks/model/repeatability.py FIRST.jsonl SECOND.jsonl

Prints a markdown table, a row a set and pass.
"""

import argparse
import collections
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import features as model_features  # noqa: E402
from evaluate import geometric_mean  # noqa: E402


def key(record):
    return (record["set"], record["name"], record["pass"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    args = parser.parse_args()
    second = {key(r): r for r in model_features.load([args.second])}
    rows = collections.defaultdict(list)
    for record in model_features.load([args.first]):
        other = second.get(key(record))
        if other is None:
            continue
        a, b = model_features.times(record), model_features.times(other)
        shared = a.keys() & b.keys()
        if not shared:
            continue
        best_a = min(shared, key=a.get)
        best_b = min(shared, key=b.get)
        mean = {c: math.sqrt(a[c] * b[c]) for c in shared}
        chosen = model_features.chosen(record)
        rows[record["set"], record["pass"]].append(
            (b[best_a] / b[best_b], a[best_b] / a[best_a],
             mean[chosen] / min(mean.values()) if chosen in shared else None))
    print("| set | pass | layers | first's best within 5% in the second | second's best "
          "within 5% in the first | choice timed in both | chosen within 5% (mean of both) | "
          "chosen / best (mean) |")
    print("|---|---|---|---|---|---|---|---|")
    for (set_name, pass_), found in sorted(rows.items()):
        ab, ba, chosen = zip(*found)
        judged = [r for r in chosen if r is not None]
        within = [f"{sum(r <= 1.05 for r in column) / len(column):.0%}" for column in (ab, ba)]
        judged_within = f"{sum(r <= 1.05 for r in judged) / len(judged):.0%}" if judged else "-"
        judged_mean = f"{geometric_mean(judged):.3f}" if judged else "-"
        print(f"| {set_name} | {pass_} | {len(found)} | {' | '.join(within)} | {len(judged)} | "
              f"{judged_within} | {judged_mean} |")


if __name__ == "__main__":
    main()
