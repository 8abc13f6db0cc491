#!/usr/bin/env python3
"""GPU tests of the GEMM: every case runs spio-jit --check (float64 CPU
reference, poisoned output, 10 bit-identical runs) and must pass.

Edge cases: ragged M and N, K not a multiple of the tile, tiny problems,
every operand layout, every output dtype, beta != 0.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check_arguments, run_check_cases  # noqa: E402

CASES = [
    # m, n, k, extra flags
    (64, 64, 64, ""),
    (17, 33, 72, ""),
    (1, 1, 8, ""),
    (1000, 1000, 1000, ""),
    (1000, 1000, 1000, "--dtype f16"),
    (1000, 1000, 1000, "--out-dtype f32"),
    (1000, 1000, 1000, "--dtype f16 --out-dtype f16 --beta 0.5 --alpha 2"),
    (1000, 1000, 1000, "--out-dtype f32 --beta -1"),
    (1000, 1000, 1000, "--a-layout col --b-layout col"),
    (1000, 1000, 1000, "--a-layout row --b-layout row"),
    (1000, 1000, 1000, "--a-layout col --b-layout row --dtype f16"),
    (336, 520, 200, "--a-layout col --b-layout row"),
    (128, 4096, 4096, ""),
    (2048, 3072, 768, "--dtype f16"),
    (4097, 4095, 4096, ""),
    (4096, 4096, 4096, ""),
    (256, 256, 256, "--block-m 128 --block-n 128 --block-k 32 --stages 3"),
    (300, 300, 4000, "--stages 2"),
]


def main():
    args = check_arguments()
    run_check_cases([
        (f"{m}x{n}x{k} {extra}".strip(),
         [args.spio_jit, "--workload", "gemm", "--m", str(m), "--n", str(n), "--k", str(k),
          "--check", "--seed", str(m * 7 + n * 3 + k)] + extra.split())
        for m, n, k, extra in CASES], args.only, args.compile_only)


if __name__ == "__main__":
    main()
