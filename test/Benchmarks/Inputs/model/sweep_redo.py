"""sweep.py --redo's parts without a GPU: the layers it selects from the
records of --out, whether a record lacks a listed candidate (--untimed),
and a new record written in place of the old one of the
same case and device (the other device's record of that case, and every
other line, left as they were), refused where there is none."""

import json
import os
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
import sweep  # noqa: E402


def record(device, set_name, stride, pass_, ms, rows=3):
    shape = dict(n=2, c=16, h=9, w=9, ph=1, pw=1, r=rows, s=3, bias=False, stride=stride, g=8)
    return dict(device=device, set=set_name, shape=shape, name=f"stride{stride}", **{
        "pass": pass_, "candidates": [dict(config=[1, 2, 3], ms=ms)]})


records = [record("GPU A", "train", 2, "fprop", 1.0), record("GPU B", "train", 2, "fprop", 2.0),
           record("GPU A", "train", 1, "fprop", 3.0), record("GPU A", "held-out", 2, "dgrad", 4.0),
           record("GPU A", "confirm", 2, "fprop", 5.0),
           record("GPU A", "held-out", 2, "wgrad", 6.0, rows=1)]
done = {sweep.case_key(r["set"], r["shape"], r["pass"]): r for r in records
        if r["device"] == "GPU A"}
for set_name, shape in sweep.swept_layers({"train", "held-out"}, {2}, done, True, 0, 0):
    print("redo layer:", set_name, "stride", shape["stride"], "rows", shape["r"])
for set_name, shape in sweep.swept_layers({"train", "held-out"}, {2}, done, True, 0, 0, {1}):
    print("redo layer of one kernel row:", set_name, "stride", shape["stride"], "rows", shape["r"])
# --untimed: a record lacking one of the instances the library lists.
instance = ("fprop", "f16", (1, 2, 3))
print("untimed:", sweep.untimed(records[0], [instance]),
      sweep.untimed(records[0], [instance, ("fprop", "f16", (1, 2, 3, 4))]))
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "sweep.jsonl")
    with open(path, "w") as out:
        out.writelines(json.dumps(r) + "\n" for r in records)
    new = record("GPU A", "train", 2, "fprop", 0.5)
    with open(path, "r+") as out:
        sweep.replace_record(out, sweep.case_key("train", new["shape"], "fprop"), "GPU A", new)
        try:
            sweep.replace_record(out, sweep.case_key("train", new["shape"], "dgrad"), "GPU A", new)
        except ValueError as error:
            print("missing:", str(error).replace(path, "OUT"))
    for line in open(path):
        r = json.loads(line)
        print("record:", r["device"], r["set"], "stride", r["shape"]["stride"], r["pass"],
              r["candidates"][0]["ms"])
