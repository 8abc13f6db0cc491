"""Runs benchmarks/harness.py's time_ms against a stand-in for torch.cuda,
without a GPU: a hold (torch.cuda._sleep) of fewer than `--late-below`
cycles ends before fn()'s launches are queued, which the start event's
query() reports; fn() takes the times of `--runs` in turn.

    harness_timing.py BENCHMARKS_DIR --timing queued|launch --runs 3,1,2 [--late-below N]
"""

import argparse
import sys
import types

parser = argparse.ArgumentParser()
parser.add_argument("benchmarks")
parser.add_argument("--timing", required=True)
parser.add_argument("--runs", required=True)
parser.add_argument("--late-below", type=int, default=0)
args = parser.parse_args()
durations = [float(t) for t in args.runs.split(",")]
holds = []
clock = {"now": 0.0, "run": 0}


class Event:
    def __init__(self, enable_timing):
        assert enable_timing

    def record(self):
        self.at = clock["now"]
        self.hold = holds[-1] if holds and args.timing == "queued" else None

    def query(self):
        # The stream has reached this event: the hold ran out early.
        return self.hold is not None and self.hold < args.late_below

    def synchronize(self):
        pass

    def elapsed_time(self, stop):
        return stop.at - self.at


def fn():
    clock["now"] += durations[clock["run"] % len(durations)]
    clock["run"] += 1
    if clock["run"] > 100:
        sys.exit("time_ms ran fn() 100 times without refusing it")


torch = types.ModuleType("torch")
torch.cuda = types.SimpleNamespace(Event=Event, _sleep=holds.append)
sys.modules["torch"] = torch
sys.path.insert(0, args.benchmarks)
import harness  # noqa: E402

try:
    median = harness.time_ms(fn, warmup=0, repeats=len(durations), timing=args.timing)
    print(f"median {median} ms after {clock['run']} runs")
except RuntimeError as error:
    print(f"refused after {clock['run']} runs: {error}")
print("holds:" + "".join(f" {h}" for h in holds))
