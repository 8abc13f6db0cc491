#!/usr/bin/env python3
"""Grouped GEMM (a mixture of experts' layer): spio.grouped_mm against a
loop of torch.matmul over the groups and torch._grouped_mm (where this
PyTorch has it), in one run.

Each case: G experts of N x K weights (stored (G, N, K)), M tokens split
among them at random (seeded; some groups empty where M is small), bf16.
Correctness first: spio's output against a float32 reference, group by
group, and bit-identical over two runs. Times are CUDA-event medians of the
whole call (spio's one launch; the loop's G launches), TFLOP/s of 2 M N K.

`--backward` times the two gradients instead: dA = each group's dY rows
times w[g] (spio's grouped kernel reading b transposed) and dB = each
group's a rows transposed times its dY rows (spio's groups splitting the
reduction), against the same loop and torch._grouped_mm's forms of them.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import benchmark_arguments, geometric_mean, time_ms  # noqa: E402

# (tokens M, experts G, N, K): Mixtral-like (8 experts, 14336 x 4096 up,
# 4096 x 14336 down), DeepSeek-like fine-grained experts (64-128 of 2048 x
# 7168 / 7168 x 1024), small batches.
CASES = [(8192, 8, 14336, 4096), (8192, 8, 4096, 14336), (16384, 64, 2048, 7168),
         (16384, 128, 1024, 7168), (4096, 64, 7168, 1024), (512, 8, 14336, 4096),
         (2048, 32, 4096, 2048)]


def inputs(m, groups, n, k, seed):
    generator = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=generator)
    w = torch.randn(groups, n, k, device="cuda", dtype=torch.bfloat16, generator=generator) / 16
    cuts = torch.randint(0, m + 1, (groups - 1,), generator=torch.Generator().manual_seed(seed))
    ends = torch.cat([cuts.sort().values, torch.tensor([m])]).to(torch.int32).cuda()
    return a, w, ends


def loop_mm(a, w, ends):
    out = a.new_empty(a.shape[0], w.shape[1])
    begin = 0
    for g, end in enumerate(ends.tolist()):
        if end > begin:
            torch.matmul(a[begin:end], w[g].t(), out=out[begin:end])
        begin = end
    return out


def loop_dw(a, dy, ends, groups):
    """Each group's a rows transposed times its dY rows, (G, N, K) as the
    weights are stored."""
    out = a.new_zeros(groups, dy.shape[1], a.shape[1])
    begin = 0
    for g, end in enumerate(ends.tolist()):
        if end > begin:
            torch.matmul(dy[begin:end].t(), a[begin:end], out=out[g])
        begin = end
    return out


def check(got, want, label):
    error = (got.float() - want).abs().max().item()
    scale = want.abs().max().item()
    assert error <= 2.0 ** -6 * scale, f"{label}: error {error}"


def runs(m, groups, n, k, backward):
    """Each product a case times, by name: (spio, the loop, torch._grouped_mm,
    a float32 reference): the forward Y, or the gradients dA and dB."""
    import spio

    a, w, ends = inputs(m, groups, n, k, seed=m + groups)
    b = w.transpose(1, 2)
    grouped_mm = getattr(torch, "_grouped_mm", None)
    if not backward:
        return {"Y": (lambda: spio.grouped_mm(a, b, ends), lambda: loop_mm(a, w, ends),
                      lambda: grouped_mm(a, b, offs=ends),
                      lambda: loop_mm(a.float(), w.float(), ends))}
    # The gradients' operators (torch.ops.spio.grouped_mm_dx, _dw), which
    # the first use of spio's PyTorch operators registers.
    assert spio.grouped_mm is not None
    dy = torch.randn(m, n, device="cuda", dtype=torch.bfloat16,
                     generator=torch.Generator(device="cuda").manual_seed(m)) / 16
    return {
        "dA": (lambda: torch.ops.spio.grouped_mm_dx(dy, b, ends),
               lambda: loop_mm(dy, w.transpose(1, 2), ends),
               lambda: grouped_mm(dy, w, offs=ends),
               lambda: loop_mm(dy.float(), w.transpose(1, 2).float(), ends)),
        "dB": (lambda: torch.ops.spio.grouped_mm_dw(a, dy, ends, b).transpose(1, 2),
               lambda: loop_dw(a, dy, ends, groups),
               lambda: grouped_mm(dy.t(), a, offs=ends),
               lambda: loop_dw(a.float(), dy.float(), ends, groups)),
    }


def main():
    parser = benchmark_arguments(20, warmup=3, spio_jit=False)
    parser.add_argument("--backward", action="store_true",
                        help="time the gradients dA and dB instead of the forward")
    args = parser.parse_args()
    timed = (args.warmup, args.repeats, args.timing)
    has_grouped_mm = hasattr(torch, "_grouped_mm")
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{args.timing} timing")
    print("\n| tokens x experts x N x K | product | spio | torch loop | torch._grouped_mm | "
          "vs loop | vs _grouped_mm |")
    print("|---|---|---|---|---|---|---|")
    vs_loop, vs_grouped = [], []
    for m, groups, n, k in CASES:
        flops = 2.0 * m * n * k / 1e9
        label = f"{m}x{groups}x{n}x{k}"
        with torch.no_grad():
            for name, (ours_fn, loop_fn, theirs_fn, reference) in \
                    runs(m, groups, n, k, args.backward).items():
                got = ours_fn()
                check(got, reference(), f"{label} {name}")
                assert torch.equal(got, ours_fn()), "not bit-identical"
                ours = time_ms(ours_fn, *timed)
                # The loop reads the group ends on the host (a
                # synchronization a real MoE layer pays too); timed with
                # launch timing.
                loop = time_ms(loop_fn, args.warmup, args.repeats, "launch")
                theirs, ratio = "n/a", "n/a"
                if has_grouped_mm:
                    try:
                        grouped = time_ms(theirs_fn, *timed)
                        theirs, ratio = f"{flops / grouped:.1f}", f"{grouped / ours:.2f}"
                        vs_grouped.append(grouped / ours)
                    except RuntimeError as error:
                        theirs = f"n/a ({str(error).splitlines()[0][:40]})"
                vs_loop.append(loop / ours)
                print(f"| {label} | {name} | {flops / ours:.1f} | {flops / loop:.1f} | "
                      f"{theirs} | {loop / ours:.2f} | {ratio} |")
    print(f"\ngeometric mean: {geometric_mean(vs_loop):.2f} against the loop"
          + (f", {geometric_mean(vs_grouped):.2f} against torch._grouped_mm" if vs_grouped else ""))


if __name__ == "__main__":
    main()
