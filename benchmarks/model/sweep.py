#!/usr/bin/env python3
"""Times every candidate configuration of conv2d-gw8 layers on the GPU, and
cuDNN on the same layers, for the performance model (train.py).

For each layer of shapes.py's sets and each pass, the candidates the C API
lists (spio.kernels.Conv2dGw8Family.candidates: the chooser's first, then
its neighbours, all writing the same bits) are compiled in parallel (the
PTX cache), then timed in this process: CUDA events around k launches
(k sized so that a timing spans about 0.3 ms) queued behind a sleep
kernel, the candidates interleaved over rounds so that drift hits all
alike, each candidate's median over the rounds. cuDNN: bench.py's
cudnn_ms (channels_last f16, cudnn.benchmark). One JSON line a layer and
pass is appended to --out as it is measured, with the device, its driver
and its multiprocessors and L2 bytes:

  sweep.py --sets table --out data/h200.jsonl
  sweep.py --sets train,held-out --count 209 --out data/h200.jsonl --deadline 540
  sweep.py --sets confirm --out data/h200.jsonl

Cases already in --out are skipped, so a sweep cut short by --deadline
(or by the lent GPU's time limit) goes on where it stopped. After a kernel
change, --redo times the cases of --out that --sets, --passes, --strides
and --kernel-rows select again, each new record replacing its old one in place:

  sweep.py --sets train,held-out,confirm --passes fprop --strides 2 --redo \
      --out data/h200.jsonl

and after the candidates change, --redo --untimed times again the cases
for which the library lists a candidate their record lacks.
"""

import argparse
import concurrent.futures
import json
import math
import multiprocessing
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "conv2d_gw8"))
import shapes  # noqa: E402
from features import arguments  # noqa: E402
from bench import cudnn_ms  # noqa: E402
from harness import driver_version, time_ms  # noqa: E402

PASSES = ("fprop", "dgrad", "wgrad")


def case_key(set_name, sh, pass_):
    return f"{set_name}|{shapes.shape_name(sh)}|{pass_}"


def compile_case(sh, pass_, configs, chip):
    """Compiles each configuration (a worker process): fills the PTX cache."""
    import spio.kernels as kernels
    family = kernels.Conv2dGw8Family()
    args = arguments(sh, pass_)
    failures = []
    for config in configs:
        try:
            kernels.Kernel(family, config).compile(args, chip)
        except kernels.SpioError as error:
            failures.append(f"{config}: {error}")
    return failures


def operands(sh, pass_, args):
    import torch
    p, q = ((sh["h"] + 2 * sh["ph"] - sh["r"]) // sh["stride"] + 1,
            (sh["w"] + 2 * sh["pw"] - sh["s"]) // sh["stride"] + 1)
    image = torch.randn(sh["n"], sh["h"], sh["w"], sh["c"], device="cuda", dtype=torch.float16)
    grad = torch.randn(sh["n"], p, q, sh["c"], device="cuda", dtype=torch.float16)
    weights = torch.randn(sh["c"], sh["r"], sh["s"], sh["g"], device="cuda",
                          dtype=torch.float16)
    if pass_ == "fprop":
        found = {"x": image, "w": weights, "y": grad}
        if args.bias:
            found["bias"] = torch.randn(sh["c"], device="cuda", dtype=torch.float16)
        return found
    if pass_ == "dgrad":
        return {"dy": grad, "w": weights, "dx": image}
    return {"x": image, "dy": grad, "dw": weights}


def time_candidates(sh, pass_, configs, rounds, check_bits=False):
    """Each configuration's median milliseconds a launch, and k; with
    check_bits, first that all write the same output bits."""
    import torch
    import spio.kernels as kernels
    family = kernels.Conv2dGw8Family()
    args = arguments(sh, pass_)
    found = operands(sh, pass_, args)
    candidates = [kernels.Kernel(family, config) for config in configs]
    size = max(k.workspace_size(args) for k in candidates)
    workspace = torch.empty(max(size, 1), dtype=torch.uint8, device="cuda")

    def launch(kernel):
        return lambda: kernel.run(args, found, workspace=workspace if size else None)

    fns = [launch(k) for k in candidates]
    if check_bits:
        # Every candidate adds each output's terms in the same order: the
        # same bits, whichever the chooser takes.
        output = found[{"fprop": "y", "dgrad": "dx", "wgrad": "dw"}[pass_]]
        written = []
        for fn in fns:
            output.fill_(float("nan"))
            fn()
            written.append(output.clone())
        for config, bits in zip(configs[1:], written[1:]):
            if not torch.equal(bits.view(torch.int16), written[0].view(torch.int16)):
                raise SystemExit(f"sweep.py: {config} wrote other bits than {configs[0]} on "
                                 f"{shapes.shape_name(sh)} {pass_}")
    first = min(time_ms(fn, 2, 3) for fn in fns)
    k = max(1, min(64, math.ceil(0.3 / max(first, 1e-3))))
    repeated = [(lambda fn=fn: [fn() for _ in range(k)]) for fn in fns]
    times = [[] for _ in fns]
    for _ in range(rounds):
        for fn, measured in zip(repeated, times):
            measured.append(time_ms(fn, 0, 1) / k)
    return [sorted(t)[len(t) // 2] for t in times], k


def swept_layers(wanted, strides, done, redo, count, confirm_count, kernel_rows=None):
    """(set, shape) of the layers of the sets `wanted`, of `strides` and
    (unless None) of kernels `kernel_rows` tall: with `redo`, those of the
    records `done` (case_key -> record), else shapes.py's."""
    if redo:
        layers = list({case_key(r["set"], r["shape"], ""): (r["set"], r["shape"])
                       for r in done.values() if r["set"] in wanted}.values())
    else:
        layers = [("table", sh) for sh in shapes.table_shapes()] if "table" in wanted else []
        layers += [("narrow", sh) for sh in shapes.narrow_shapes()] if "narrow" in wanted else []
        layers += [(s, sh) for s, sh in shapes.drawn_shapes(count) if s in wanted]
        if "confirm" in wanted:
            layers += shapes.confirm_shapes(confirm_count)
    return [(s, sh) for s, sh in layers
            if sh["stride"] in strides and (kernel_rows is None or sh["r"] in kernel_rows)]


def untimed(record, configs):
    """Whether the library lists a candidate (of `configs`, the family's
    instances) that `record` did not time: after the candidates change,
    evaluate.py needs the chosen one's time."""
    timed = {tuple(c["config"]) for c in record["candidates"]}
    return any(tuple(config[2]) not in timed for config in configs)


def replace_record(out, key, device, record):
    """Rewrites the open file `out` with `record` in place of the line of
    the same case and device (which it must hold)."""
    out.seek(0)
    lines = out.readlines()
    found = [i for i, line in enumerate(lines)
             if (old := json.loads(line))["device"] == device and
             case_key(old["set"], old["shape"], old["pass"]) == key]
    if not found:
        raise ValueError(f"sweep.py: {out.name} holds no record of {key} on {device} to replace")
    for i in found:
        lines[i] = json.dumps(record) + "\n"
    out.seek(0)
    out.writelines(lines)
    out.truncate()
    out.flush()


def device_facts():
    import torch
    import spio.kernels as kernels
    facts = kernels._capi.device(0)
    return dict(device=torch.cuda.get_device_name(0), driver=driver_version(),
                torch=torch.__version__,
                multiprocessors=facts.multiprocessors, l2_bytes=facts.l2_bytes,
                shared_bytes_per_block=facts.max_shared_bytes_per_block,
                shared_bytes_per_multiprocessor=facts.shared_bytes_per_multiprocessor,
                chip=f"sm_{facts.compute_major}{facts.compute_minor}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="table,train,held-out")
    parser.add_argument("--count", type=int, default=209, help="layers drawn (train and held-out)")
    parser.add_argument("--confirm-count", type=int, default=40,
                        help="layers of the confirm set")
    parser.add_argument("--passes", default=",".join(PASSES))
    parser.add_argument("--strides", default="1,2", help="the layers' strides swept")
    parser.add_argument("--kernel-rows", default="",
                        help="the layers' kernel heights R swept (default: all)")
    parser.add_argument("--redo", action="store_true",
                        help="time the selected cases already in --out again, each new record "
                             "replacing the old (no new layers)")
    parser.add_argument("--untimed", action="store_true",
                        help="with --redo, only the cases whose candidates the library lists now "
                             "include one the record did not time")
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--check-bits", action="store_true",
                        help="first check that every candidate writes the same output bits")
    parser.add_argument("--deadline", type=float, default=float("inf"),
                        help="seconds after which no new layer is started")
    args = parser.parse_args()
    if args.untimed and not args.redo:
        parser.error("--untimed selects records to time again: it goes with --redo")
    started = time.time()
    import torch
    import spio.kernels as kernels
    from spio import _capi
    if not torch.cuda.is_available():
        sys.exit("sweep.py: no GPU found (torch.cuda.is_available() is False)")
    facts = device_facts()
    wanted = args.sets.split(",")
    done = {}
    if os.path.exists(args.out):
        for line in open(args.out):
            record = json.loads(line)
            if record["device"] == facts["device"]:
                done[case_key(record["set"], record["shape"], record["pass"])] = record
    strides = {int(stride) for stride in args.strides.split(",")}
    kernel_rows = {int(r) for r in args.kernel_rows.split(",")} if args.kernel_rows else None
    layers = swept_layers(wanted, strides, done, args.redo, args.count, args.confirm_count,
                          kernel_rows)
    family = kernels.Conv2dGw8Family()
    cases = []
    for set_name, sh in layers:
        for pass_ in args.passes.split(","):
            if (case_key(set_name, sh, pass_) in done) != args.redo:
                continue
            try:
                configs = family.candidates(arguments(sh, pass_))
            except kernels.SpioError as error:
                print(f"skip {shapes.shape_name(sh)} {pass_}: {error}", file=sys.stderr)
                continue
            if args.untimed and not untimed(done[case_key(set_name, sh, pass_)], configs):
                continue
            cases.append((set_name, sh, pass_, configs))
    print(f"{len(cases)} cases, {sum(len(c[3]) for c in cases)} candidates on "
          f"{facts['device']}", file=sys.stderr)
    pool = concurrent.futures.ProcessPoolExecutor(
        args.jobs, mp_context=multiprocessing.get_context("spawn"))
    compiled = [pool.submit(compile_case, sh, pass_, configs, facts["chip"])
                for _, sh, pass_, configs in cases]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "r+" if args.redo else "a") as out:
        for (set_name, sh, pass_, configs), future in zip(cases, compiled):
            if time.time() - started > args.deadline:
                print("deadline: stopping", file=sys.stderr)
                break
            failures = future.result()
            if failures:
                print(f"skip {shapes.shape_name(sh)} {pass_}: {failures[0]}", file=sys.stderr)
                continue
            ms, k = time_candidates(sh, pass_, configs, args.rounds, args.check_bits)
            vendor = cudnn_ms(sh, pass_, 3, 10, "queued")
            torch.cuda.empty_cache()
            layer = arguments(sh, pass_)
            rules = family._instance(layer, _capi.lib.spio_conv2d_gw8_rule_config(
                family._checked_problem(layer)))
            record = dict(facts, set=set_name, shape=sh, name=shapes.shape_name(sh), **{
                "pass": pass_, "chosen": list(configs[0][2]), "rules": list(rules[2]),
                "candidates": [dict(config=list(c[2]), ms=t) for c, t in zip(configs, ms)],
                "launches_a_timing": k, "cudnn_ms": vendor})
            if args.redo:
                replace_record(out, case_key(set_name, sh, pass_), facts["device"], record)
            else:
                out.write(json.dumps(record) + "\n")
                out.flush()
            best = min(ms)
            print(f"{set_name:8} {shapes.shape_name(sh):48} {pass_:5} {len(ms):2} candidates "
                  f"chosen/best {ms[0] / best:.3f} cuDNN/best {vendor / best:.2f}",
                  file=sys.stderr)
    pool.shutdown(cancel_futures=True)


if __name__ == "__main__":
    main()
