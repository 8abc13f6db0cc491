#!/usr/bin/env python3
"""Random spio-jit problems, compiled to PTX: each must compile (and, with
--ptxas, assemble for sm_90a) or be refused by spio-jit's checks with a one-line
`spio-jit: error:`; a crash, an error without that line, a problem the
checks pass and the compiler refuses (a block over the chip's shared
memory), or PTX ptxas rejects is a failure.

    scripts/fuzz-spio-jit.py --spio-jit build/bin/spio-jit [--ptxas PTXAS]
        [--seed 1] [--count 200] [--workload conv2d-gw8|gemm|conv2d|both|all]

conv2d-gw8: any pass, stride, dtype and bias; kernels of 1 to 7, padding
mostly under the kernel size, else up to 3 times it (or negative, or past
2^30); images of 1 to 300 rows and columns (kernels taller than the padded
image included); now and then the chooser's warps, rows or chunks
overridden, wgrad's partial sums discarded or kept, and its reduce launched
early. gemm: sizes from 1 to 5000 and past 2^40, every layout and dtype
(f32 at each precision), batches, beta, epilogues, batch invariance, and
now and then tiles, stages, persistent grids, clusters, ping-pong,
stream-K, swaps and splits given by hand. conv2d: dense and grouped (wide
groups, groups of 16 or 32, the grouped family's widths) layers of every
pass, kernels of 1 to 7, stride 1 to 3, dilation, f32 out, bias, tiles
and chips without wgmma (the mma.sync kernel) now and then. In one case in ten of each, one of the sizes, strides,
kernel sides or dilations is 0 or negative. both: conv2d-gw8 and gemm;
all: the three.
Deterministic for a seed; prints each failure's command, then the counts,
and exits 1 where any failed. No GPU needed.
"""

import argparse
import concurrent.futures
import random
import subprocess
import sys


def out_of_range(rng, options, names):
    """Now and then one of `names` (options given with a value) set to 0
    or a negative value, which spio-jit must refuse, not divide by."""
    given = [i for i, option in enumerate(options[:-1]) if option in names]
    if given and rng.random() < 0.1:
        options[rng.choice(given) + 1] = rng.choice(["0", "-1", "-7"])
    return options


def conv_options(rng):
    r, s = rng.randint(1, 7), rng.randint(1, 7)

    def extent():
        return rng.choice([rng.randint(1, 10), rng.randint(1, 80), rng.randint(80, 300)])

    def padding(size):
        return rng.choice([rng.randint(0, size - 1)] * 6 +
                          [rng.randint(size, 3 * size + 2), rng.choice([-1, 2**30 + 1])])

    options = ["--workload", "conv2d-gw8", "--pass", rng.choice(["fprop", "dgrad", "wgrad"]),
               "--batch", str(rng.choice([1, 2, 3, 17])),
               "--channels", str(8 * rng.choice([1, 2, 3, 5, 6, 7, 8, 12, 16, 40, 96])),
               "--height", str(extent()), "--width", str(extent()), "--r", str(r), "--s", str(s),
               "--pad-h", str(padding(r)), "--pad-w", str(padding(s)),
               "--stride", str(rng.choice([1, 2])), "--dtype", rng.choice(["f16", "bf16"])]
    if rng.random() < 0.3:
        options.append("--bias")
    if rng.random() < 0.3:
        options += ["--warps-m", str(rng.choice([1, 2, 3, 4, 5, 8, 16])),
                    "--warps-n", str(rng.choice([1, 2, 3, 4, 5, 6, 7, 8]))]
    if rng.random() < 0.3:
        options += ["--rows-p", str(rng.choice([rng.randint(1, 20), rng.randint(20, 400)]))]
    if rng.random() < 0.15:
        options += ["--chunks", str(rng.choice([rng.randint(1, 9), rng.randint(10, 100000)]))]
    if rng.random() < 0.15:
        options.append("--wgrad-discard-partials=" + rng.choice(["always", "never"]))
    if rng.random() < 0.1:
        options.append("--wgrad-early-launch")
    if rng.random() < 0.2:
        options.append("--wgrad-row-ring")
    if rng.random() < 0.15:
        options += ["--wgrad-reduce-lane-elements", str(rng.choice([1, 2, 3, 4]))]
    return out_of_range(rng, options, {"--batch", "--channels", "--height", "--width", "--r",
                                       "--s", "--stride"})


def gemm_options(rng):
    def size():
        return rng.choice([1, 7, 8, 16, 24, 64, 100, 128, 136, 1000, 4096, rng.randint(1, 5000),
                           2**40, 2**63 - 1])

    options = ["--workload", "gemm", "-m", str(size()), "-n", str(size()), "-k", str(size()),
               "--dtype", rng.choice(["f16", "bf16", "bf16", "f32"])]
    if rng.random() < 0.3:
        options += ["--a-layout", rng.choice(["row", "col"]),
                    "--b-layout", rng.choice(["row", "col"])]
    if rng.random() < 0.2:
        options += ["--out-dtype", rng.choice(["f16", "bf16", "f32"])]
    if rng.random() < 0.15:
        options += ["--precision", rng.choice(["highest", "high", "medium", "tf32"])]
    if rng.random() < 0.15:
        options += ["--gemm-batch", str(rng.choice([2, 3, 8]))]
    if rng.random() < 0.15:
        options += ["--beta", "0.5"]
    if rng.random() < 0.15:
        options += ["--epilogue", rng.choice(["bias", "bias,relu", "bias,gelu_tanh", "silu"])]
    if rng.random() < 0.1:
        options.append("--batch-invariant")
    if rng.random() < 0.4:
        options += ["--block-m", str(rng.choice([0, 16, 32, 48, 64, 128, 256])),
                    "--block-n", str(rng.choice([0, 16, 24, 32, 64, 128, 256])),
                    "--block-k", str(rng.choice([0, 8, 16, 32, 64])),
                    "--stages", str(rng.choice([0, 2, 3, 4, 6, 8, 12]))]
    if rng.random() < 0.2:
        options += ["--warps-m", str(rng.choice([2, 4, 8, 12])),
                    "--persistent", str(rng.choice([1, 7, 132, 133])),
                    "--cluster", str(rng.choice([1, 2, 3]))]
    if rng.random() < 0.1:
        options.append(rng.choice(["--pingpong", "--stream-k", "--swap", "--split-k=2"]))
    return out_of_range(rng, options, {"-m", "-n", "-k", "--gemm-batch"})


def conv2d_options(rng):
    """The conv2d workload: dense (input channels of any count: 3, 5 and
    12 unfolded first in the forward and wgrad), wide groups (multiples of
    64 channels), groups of other multiples of 8 (padded, or in blocks of
    block-diagonal weights), and the grouped family's widths."""
    r, s = rng.randint(1, 7), rng.randint(1, 7)
    c = rng.choice([3, 5, 12, 8, 24, 64, 72, 128, 144, 256, 432, 512, 784])
    k = rng.choice([c, c, 8, 64, 136, 256])
    groups = rng.choice([1, 1, 2, 3, 4, 9, c // 8 or 1, c // 16 or 1, c // 24 or 1, c // 32 or 1,
                         c // 48 or 1, c // 64 or 1])
    options = ["--workload", "conv2d", "--pass", rng.choice(["fprop", "dgrad", "wgrad"]),
               "--batch", str(rng.choice([1, 2, 5, 32])),
               "--channels", str(c), "--out-channels", str(k), "--groups", str(groups),
               "--height", str(rng.randint(1, 60)), "--width", str(rng.randint(1, 60)),
               "--r", str(r), "--s", str(s),
               "--pad-h", str(rng.randint(0, r)), "--pad-w", str(rng.randint(0, s)),
               "--stride", str(rng.choice([1, 1, 2, 3])),
               "--dilation", str(rng.choice([1, 1, 1, 2]))]
    if rng.random() < 0.2:
        options += ["--out-dtype", "f32"]
    if rng.random() < 0.2:
        options += ["--epilogue", rng.choice(["bias", "bias,relu"])]
    if rng.random() < 0.15:
        options += ["--block-m", str(rng.choice([64, 128])), "--warps-m",
                    str(rng.choice([4, 8])), "--block-n", str(rng.choice([64, 128, 256]))]
    if rng.random() < 0.3:
        options += ["--chip", rng.choice(["sm_80", "sm_86", "sm_89"])]
    return out_of_range(rng, options, {"--batch", "--channels", "--out-channels", "--groups",
                                       "--height", "--width", "--r", "--s", "--stride",
                                       "--dilation"})


def outcome(jit, ptxas, options):
    """'compiled', 'refused', or a failure's description."""
    try:
        run = subprocess.run([jit] + options + ["--emit-ptx", "--no-disk-cache"],
                             capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "took over 300 s"
    crashed = run.returncode < 0 or any(
        sign in run.stderr for sign in ("Stack dump", "LLVM ERROR", "Assertion", "UNREACHABLE"))
    if crashed:
        return f"crashed (status {run.returncode}): {run.stderr.strip()[-300:]}"
    if run.returncode != 0:
        if run.stderr.startswith("spio-jit: error: compiling"):
            return f"passed the checks but not the compiler: {run.stderr.strip()[-300:]}"
        if run.returncode == 1 and run.stderr.startswith("spio-jit: error:"):
            return "refused"
        return f"failed without a spio-jit error (status {run.returncode}): " \
               f"{run.stderr.strip()[-300:]}"
    if ptxas:
        # The wgmma kernels' PTX targets sm_90a (its architecture-specific
        # instructions); sm_90a's ptxas takes plain sm_90 PTX too.
        assembled = subprocess.run([ptxas, "-arch=sm_90a", "-", "-o", "/dev/null"],
                                   input=run.stdout, capture_output=True, text=True)
        if assembled.returncode != 0:
            return f"ptxas rejected the PTX: {assembled.stderr.strip()[-300:]}"
    return "compiled"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spio-jit", required=True)
    parser.add_argument("--ptxas", help="also assemble each PTX for sm_90a")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--workload", choices=["conv2d-gw8", "gemm", "conv2d", "both", "all"],
                        default="both")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    makers = {"conv2d-gw8": [conv_options], "gemm": [gemm_options], "conv2d": [conv2d_options],
              "both": [conv_options, conv_options, conv_options, gemm_options],
              "all": [conv_options, gemm_options, conv2d_options]}[args.workload]
    cases = [rng.choice(makers)(rng) for _ in range(args.count)]
    counts = {"compiled": 0, "refused": 0, "failed": 0}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for options, result in zip(cases, pool.map(
                lambda o: outcome(args.spio_jit, args.ptxas, o), cases)):
            if result in counts:
                counts[result] += 1
                continue
            counts["failed"] += 1
            print(f"FAILED: spio-jit {' '.join(options)}\n  {result}")
    print(f"{args.count} cases: {counts['compiled']} compiled, {counts['refused']} refused with "
          f"a reason, {counts['failed']} failed")
    sys.exit(1 if counts["failed"] else 0)


if __name__ == "__main__":
    main()
