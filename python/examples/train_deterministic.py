"""Trains a small network with Spio layers twice from one seed, asserts the
weights are bit-identical, and reports its step time beside the same network
on stock PyTorch (cuDNN, cuBLAS).

    PYTHONPATH=python python3 python/examples/train_deterministic.py [--steps 300]
"""

import argparse

import torch

import spio


class Net(torch.nn.Module):
    """Depthwise-like blocks (grouped 3x3 conv, 8 channels a group) and a
    linear head, on 32x32 inputs."""

    def __init__(self, channels=128, blocks=4, classes=16):
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


def train(steps, use_spio, seed=0):
    torch.manual_seed(seed)
    net = Net()
    if use_spio:
        spio.transform(net)
    net = net.cuda().half().to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-2)
    generator = torch.Generator(device="cuda").manual_seed(seed + 1)
    images = torch.randn(64, 3, 32, 32, device="cuda", dtype=torch.half, generator=generator)
    labels = torch.randint(0, 16, (64,), device="cuda", generator=generator)
    times = []
    for _ in range(steps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(net(images).float(), labels)
        loss.backward()
        optimizer.step()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return [p.detach().clone() for p in net.parameters()], times[len(times) // 2], loss.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    first, spio_ms, loss = train(args.steps, True)
    second, _, _ = train(args.steps, True)
    identical = all(torch.equal(a, b) for a, b in zip(first, second))
    _, torch_ms, torch_loss = train(args.steps, False)
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"spio:  {args.steps} steps, final loss {loss:.4f}, median step {spio_ms:.3f} ms; "
          f"two runs bit-identical: {identical}")
    print(f"torch: {args.steps} steps, final loss {torch_loss:.4f}, median step {torch_ms:.3f} ms")
    assert identical, "the two Spio runs differ"


if __name__ == "__main__":
    main()
