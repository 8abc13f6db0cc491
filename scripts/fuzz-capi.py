#!/usr/bin/env python3
"""Calls the C API's choosers, checks, sources, launch shapes, workspaces
and features with random problem and configuration structs (each field
mostly from values that make sense, else from 0, negatives, 2^31, 2^40 and
2^62): each call must return, soon, whatever it is given. The calls run in a
child process, which names each call before making it, so a crash names
the call and its arguments.

    SPIO_LIBRARY=build/lib/libspio_capi.so PYTHONPATH=python \\
        scripts/fuzz-capi.py [--seed 1] [--count 20000]

Deterministic for a seed; prints the count of calls, or the call that
crashed or hung (--timeout) and exits 1. No GPU needed.
"""

import argparse
import ctypes
import random
import subprocess
import sys

ODD = [0, 1, 2, 3, 7, 8, 16, 64, 4096, -1, -7, 2**31, 2**40, 2**62]
# Values that make sense, by field.
FLAGS = [0, 1]
GEMM = dict(m=[1, 64, 128, 1000], n=[8, 64, 128, 1000], k=[16, 64, 1024], input_dtype=[0, 1, 2],
            output_dtype=[0, 1, 2], batch=[1, 2], groups=[0, 1, 2], a_col_major=FLAGS,
            b_col_major=FLAGS, reads_c=FLAGS, epilogue_steps=[0], bias_along=[0, 1, 2],
            bias_dtype=[0, 1], scale_along=[0], scale_dtype=[2], batch_invariant=FLAGS,
            a_shared=FLAGS, b_shared=FLAGS, f32_precision=[0, 1], pack_layouts=FLAGS,
            groups_along_k=FLAGS, stores_pre_activation=FLAGS)
GEMM_CONFIG = dict(block_m=[64, 128], block_n=[64, 128, 256], block_k=[64], warps_m=[4, 8],
                   warps_n=[1], stages=[2, 4], raster=[1, 8], wgmma=[0, 1], persistent=[0, 132],
                   cluster=[1, 2], split_k=[1, 2], k_ranges=[1, 2])
CONV2D = dict(n=[1, 8], h=[8, 32], w=[8, 32], c=[8, 64], k=[8, 64], r=[1, 3], s=[1, 3],
              stride_h=[1, 2], stride_w=[1, 2], pad_h=[0, 1], pad_w=[0, 1], dilation_h=[1, 2],
              dilation_w=[1, 2], groups=[1, 2], input_dtype=[0, 1], output_dtype=[0, 1],
              epilogue_steps=[0], bias_dtype=[0, 1], scale_dtype=[2], pass_=[0, 1, 2],
              parts=[0, 1, 2])
GW8 = dict(pass_=[0, 1, 2], n=[1, 8], c=[8, 64], h=[8, 32], w=[8, 32], r=[1, 3], s=[1, 3],
           pad_h=[0, 1], pad_w=[0, 1], stride=[1, 2], group_width=[1, 8], bias=FLAGS,
           dtype=[0, 1], wgrad_f32=FLAGS)
GW8_CONFIG = dict(warps_q=[1, 2], warps_g=[1, 4, 8], rows_p=[1, 4, 8], chunks=[0, 1],
                  copy_warps=[0, 1], stages=[0, 2], row_ring=[0, 1],
                  reduce_lane_elements=[0, 1, 2])


def child(seed, count):
    import spio.kernels as kernels
    from spio import _capi
    lib, rng = _capi.lib, random.Random(seed)

    def fill(struct, sensible):
        value = struct()
        for name, kind in struct._fields_:
            if name not in sensible and not issubclass(kind, (ctypes.c_int32, ctypes.c_int64)):
                continue  # the target's chip and facts stay the reference part's
            field = rng.choice(sensible[name]) if name in sensible and rng.random() < 0.7 \
                else rng.choice(ODD)
            if kind is ctypes.c_int32:
                field = max(-2**31, min(2**31 - 1, field))
            setattr(value, name, field)
        return value

    target = kernels.target("sm_90")
    features = (ctypes.c_double * 64)()

    def gemm():
        return fill(_capi.GemmProblem, GEMM), fill(_capi.GemmConfig, GEMM_CONFIG)

    def conv2d():
        return fill(_capi.Conv2dProblem, CONV2D), fill(_capi.GemmConfig, GEMM_CONFIG)

    def gw8():
        problem = fill(_capi.Conv2dGw8Problem, GW8)
        if rng.random() < 0.9:
            problem.target = target  # else no target: the checks refuse it
        return problem, fill(_capi.Conv2dGw8Config, GW8_CONFIG)

    def text(pointer):
        return _capi.take_string(pointer)

    calls = {
        "spio_gemm_check": (gemm, lambda p, c: text(lib.spio_gemm_check(p, c, target))),
        "spio_gemm_choose_config": (gemm, lambda p, c: lib.spio_gemm_choose_config(p, target)),
        "spio_gemm_source": (gemm, lambda p, c: text(lib.spio_gemm_source(p, c))),
        "spio_gemm_launch_shape": (gemm, lambda p, c: lib.spio_gemm_launch_shape(p, c)),
        "spio_gemm_pack_launch_shape": (gemm, lambda p, c: lib.spio_gemm_pack_launch_shape(p, 1)),
        "spio_gemm_workspace_size": (gemm, lambda p, c: lib.spio_gemm_workspace_size(p, c)),
        "spio_conv2d_check": (conv2d, lambda p, c: text(lib.spio_conv2d_check(p, c, target))),
        "spio_conv2d_choose_config": (conv2d,
                                      lambda p, c: lib.spio_conv2d_choose_config(p, target)),
        "spio_conv2d_wgrad_parts": (conv2d,
                                    lambda p, c: lib.spio_conv2d_wgrad_parts(p, c, target)),
        "spio_conv2d_workspace_bytes": (conv2d, lambda p, c: lib.spio_conv2d_workspace_bytes(p)),
        "spio_conv2d_block_groups": (conv2d, lambda p, c: lib.spio_conv2d_block_groups(p)),
        "spio_conv2d_source": (conv2d, lambda p, c: text(lib.spio_conv2d_source(p, c))),
        "spio_conv2d_launch_shapes": (conv2d,
                                      lambda p, c: lib.spio_conv2d_launch_shapes(p, c, None, 0)),
        "spio_conv2d_gw8_check": (gw8, lambda p, c: text(lib.spio_conv2d_gw8_check(p, c))),
        "spio_conv2d_gw8_choose_config": (gw8, lambda p, c: lib.spio_conv2d_gw8_choose_config(p)),
        "spio_conv2d_gw8_rule_config": (gw8, lambda p, c: lib.spio_conv2d_gw8_rule_config(p)),
        "spio_conv2d_gw8_candidates": (gw8,
                                       lambda p, c: lib.spio_conv2d_gw8_candidates(p, None, 0)),
        "spio_conv2d_gw8_features": (gw8, lambda p, c: lib.spio_conv2d_gw8_features(
            p, c, features, len(features))),
        "spio_conv2d_gw8_source": (gw8, lambda p, c: text(lib.spio_conv2d_gw8_source(p, c))),
        "spio_conv2d_gw8_launch_shape": (gw8,
                                         lambda p, c: lib.spio_conv2d_gw8_launch_shape(p, c)),
        "spio_conv2d_gw8_workspace_bytes": (
            gw8, lambda p, c: lib.spio_conv2d_gw8_workspace_bytes(p, c)),
        "spio_conv2d_gw8_reduce_launch_shape": (
            gw8, lambda p, c: lib.spio_conv2d_gw8_reduce_launch_shape(p, c)),
        "spio_conv2d_gw8_bias_launch_shape": (
            gw8, lambda p, c: lib.spio_conv2d_gw8_bias_launch_shape(p)),
        "spio_conv2d_gw8_bias_reduce_launch_shape": (
            gw8, lambda p, c: lib.spio_conv2d_gw8_bias_reduce_launch_shape(p)),
    }
    names = sorted(calls)
    for _ in range(count):
        name = rng.choice(names)
        make, call = calls[name]
        problem, config = make()
        fields = lambda s: ", ".join(f"{n}={getattr(s, n)}" for n, _ in s._fields_)  # noqa: E731
        print(f"{name}(problem: {fields(problem)}; config: {fields(config)})", flush=True)
        call(problem, config)
    print(f"{count} calls", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds the calls may take in all before they count as hung")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.seed, args.count)
    command = [sys.executable, __file__, "--child", "--seed", str(args.seed), "--count",
               str(args.count)]
    try:
        run = subprocess.run(command, capture_output=True, timeout=args.timeout)
        status, out, err = f"status {run.returncode}", run.stdout, run.stderr
        if run.returncode == 0 and out.decode().endswith(f"{args.count} calls\n"):
            print(f"{args.count} calls (seed {args.seed}): none crashed")
            return
    except subprocess.TimeoutExpired as hung:
        status, out, err = f"no answer in {args.timeout} s", hung.stdout or b"", hung.stderr or b""
    lines = out.decode().splitlines()
    last = lines[-1] if lines else "(before the first call)"
    print(f"FAILED ({status}) in call {len(lines)}: {last}\n{err.decode().strip()[-500:]}")
    sys.exit(1)


if __name__ == "__main__":
    main()
