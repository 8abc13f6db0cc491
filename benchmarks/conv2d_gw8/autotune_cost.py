#!/usr/bin/env python3
"""What autotuning costs and gives in PyTorch: a training step (forward and
backward) over depthwise and narrow-group layers, run with autotuning off
(the performance model's pick), on the model's two best
(`spio.set_autotune(True, candidates=2)`) and on every candidate
(`spio.set_autotune(True)`), each mode in a fresh process with an empty
cache directory, so that its first step compiles (and times) everything.
Prints, a mode a row: the first step's wall time and the median GPU time
of a step after it (CUDA events, 20 steps).

  SPIO_LIBRARY=... PYTHONPATH=python python3 benchmarks/conv2d_gw8/autotune_cost.py
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

# (N, C, H, W, kernel size, channels a group): MobileNet, EfficientNet,
# ConvNeXt and ResNeXt layers.
LAYERS = [(64, 96, 56, 56, 7, 1), (64, 192, 28, 28, 7, 1), (64, 144, 56, 56, 3, 1),
          (64, 240, 28, 28, 5, 1), (64, 480, 14, 14, 3, 1), (64, 256, 56, 56, 3, 4),
          (64, 128, 56, 56, 3, 8)]
MODES = {"off": "autotuning off (the model's pick)",
         "two": "set_autotune(True, candidates=2)",
         "all": "set_autotune(True)"}


def run_mode(mode, steps):
    import logging
    import torch
    import spio
    logging.basicConfig()  # SPIO_LOG_LEVEL=INFO: autotuning's winners on stderr
    if mode == "two":
        spio.set_autotune(True, candidates=2)
    elif mode == "all":
        spio.set_autotune(True)
    generator = torch.Generator(device="cuda").manual_seed(0)
    layers = []
    for n, c, h, w, k, g in LAYERS:
        x = torch.randn(n, c, h, w, device="cuda", dtype=torch.float16, generator=generator)
        weight = torch.randn(c, g, k, k, device="cuda", dtype=torch.float16,
                             generator=generator) / (g * k)
        bias = torch.randn(c, device="cuda", dtype=torch.float16, generator=generator)
        layers.append([t.requires_grad_() for t in
                       (x.to(memory_format=torch.channels_last), weight, bias)] + [k // 2])

    def step(chosen=None):
        for x, weight, bias, pad in layers if chosen is None else [chosen]:
            y = spio.conv2d_gw8(x, weight, bias, padding=pad)
            y.backward(torch.ones_like(y))

    def median_ms(chosen=None):
        times = []
        for _ in range(steps):
            begin, end = (torch.cuda.Event(enable_timing=True),
                          torch.cuda.Event(enable_timing=True))
            begin.record()
            step(chosen)
            end.record()
            end.synchronize()
            times.append(begin.elapsed_time(end))
        return statistics.median(times)

    torch.cuda.synchronize()
    started = time.perf_counter()
    step()
    torch.cuda.synchronize()
    first = time.perf_counter() - started
    print(f"{first:.3f} {median_ms():.4f}", *(f"{median_ms(layer):.4f}" for layer in layers))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mode:
        return run_mode(args.mode, args.steps)
    names = [f"N{n} C{c} {h}x{w} {k}x{k} g{g}" for n, c, h, w, k, g in LAYERS]
    print(f"{len(LAYERS)} layers, forward and backward a step; ms of GPU time, medians")
    print(f"| mode | first step (compiling, timing) s | a step after it | {' | '.join(names)} |")
    print("|---|---|---|" + "---|" * len(LAYERS))
    for mode, name in MODES.items():
        with tempfile.TemporaryDirectory() as cache:
            found = subprocess.run(
                [sys.executable, __file__, "--mode", mode, "--steps", str(args.steps)],
                env=dict(os.environ, SPIO_CACHE_DIR=cache), capture_output=True, text=True)
        if found.returncode != 0:
            sys.exit(f"autotune_cost.py: mode {mode} failed:\n{found.stderr}")
        first, *steps = (float(value) for value in found.stdout.split())
        print(f"| {name} | {first:.2f} | {' | '.join(f'{ms:.3f}' for ms in steps)} |")
        if os.environ.get("SPIO_LOG_LEVEL"):
            print(found.stderr, file=sys.stderr)


if __name__ == "__main__":
    main()
