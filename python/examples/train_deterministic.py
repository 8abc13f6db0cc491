"""Trains a small network with Spio layers twice from one seed, asserts the
weights are bit-identical, and reports its step time beside the same network
on stock PyTorch (cuDNN, cuBLAS), run eagerly and, with --compile, under
torch.compile(mode="reduce-overhead") (CUDA graphs: no per-launch CPU cost).

    PYTHONPATH=python python3 python/examples/train_deterministic.py \
        [--steps 300] [--batch 64] [--size 32] [--channels 128] [--compile] [--profile]
"""

import argparse

import torch

import spio


class Net(torch.nn.Module):
    """Depthwise-like blocks (grouped 3x3 conv, 8 channels a group) and a
    linear head."""

    def __init__(self, channels, blocks=4, classes=16):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, channels, 3, padding=1)
        self.blocks = torch.nn.ModuleList(
            torch.nn.Conv2d(channels, channels, 3, padding=1, groups=channels // 8)
            for _ in range(blocks))
        self.head = torch.nn.Linear(channels, classes)

    def forward(self, x):
        x = torch.relu(self.stem(x)).contiguous(memory_format=torch.channels_last)
        for block in self.blocks:
            x = x + torch.relu(block(x))
        return self.head(x.mean((2, 3)))


def setup(options, use_spio, compiled, seed=0):
    """A function that runs one training step (and returns its loss) of the
    network with Spio's layers or stock ones, and the network."""
    torch.manual_seed(seed)
    net = Net(options.channels)
    if use_spio:
        spio.transform(net)
    net = net.cuda().half().to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-2)
    generator = torch.Generator(device="cuda").manual_seed(seed + 1)
    images = torch.randn(options.batch, 3, options.size, options.size, device="cuda",
                         dtype=torch.half, generator=generator)
    labels = torch.randint(0, 16, (options.batch,), device="cuda", generator=generator)
    forward = torch.compile(net, mode="reduce-overhead") if compiled else net

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(forward(images).float(), labels)
        loss.backward()
        optimizer.step()
        return loss

    return step, net


def train(options, use_spio, compiled):
    """(parameters after training, median step in ms, final loss)."""
    step, net = setup(options, use_spio, compiled)
    times = []
    for _ in range(options.steps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        loss = step()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return [p.detach().clone() for p in net.parameters()], times[len(times) // 2], loss.item()


def profile(options, use_spio, steps=20):
    """The CPU and GPU time of a few eager steps, by operator."""
    step, _ = setup(options, use_spio, False)
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    print(f"--- {'spio' if use_spio else 'torch'}: {steps} steps")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25))
    print(prof.key_averages().table(sort_by="self_device_time_total", row_limit=15))


def network_arguments(steps):
    """A parser of the run's size: --steps (default `steps`), --batch,
    --size and --channels."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--size", type=int, default=32, help="image height and width")
    parser.add_argument("--channels", type=int, default=128)
    return parser


def main():
    parser = network_arguments(300)
    parser.add_argument("--compile", action="store_true",
                        help="also train both networks under torch.compile(mode='reduce-overhead')")
    parser.add_argument("--profile", action="store_true",
                        help="print where each network's eager step time goes (torch.profiler)")
    options = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    if options.profile:
        profile(options, True)
        profile(options, False)
        return
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}; "
          f"{options.steps} steps of batch {options.batch}, {options.channels} channels, "
          f"{options.size}x{options.size} images")
    print("| network | mode | median step (ms) | final loss | two runs bit-identical |")
    print("|---|---|---|---|---|")
    differ = []
    for compiled in (False, True) if options.compile else (False,):
        mode = "torch.compile" if compiled else "eager"
        first, spio_ms, loss = train(options, True, compiled)
        second, _, _ = train(options, True, compiled)
        identical = all(torch.equal(a, b) for a, b in zip(first, second))
        if not identical:
            differ.append(mode)
        print(f"| spio | {mode} | {spio_ms:.3f} | {loss:.4f} | {identical} |")
        _, torch_ms, torch_loss = train(options, False, compiled)
        print(f"| stock PyTorch | {mode} | {torch_ms:.3f} | {torch_loss:.4f} | |", flush=True)
    assert not differ, f"two Spio runs differ ({', '.join(differ)})"


if __name__ == "__main__":
    main()
