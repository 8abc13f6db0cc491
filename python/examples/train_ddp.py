"""Trains the network of train_deterministic.py with Spio layers under
DistributedDataParallel (NCCL), one process a GPU, each rank on its own
batches; trains twice from one seed and asserts that the weights are
bit-identical across the two runs and across the ranks.

    torchrun --nproc_per_node=2 python/examples/train_ddp.py [--steps 50]
        [--batch 64] [--size 32] [--channels 128]

(PYTHONPATH=python in a source checkout.) Every rank compiles the same
kernels at once on first use: the PTX cache is shared among them.
"""

import hashlib
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

import spio
from train_deterministic import Net, network_arguments


def train(options, rank):
    """(a digest of the weights after training, median step in ms)."""
    torch.manual_seed(0)
    net = spio.transform(Net(options.channels))
    net = net.cuda().half().to(memory_format=torch.channels_last)
    model = DistributedDataParallel(net, device_ids=[torch.cuda.current_device()])
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    generator = torch.Generator(device="cuda").manual_seed(1 + rank)
    images = torch.randn(options.batch, 3, options.size, options.size, device="cuda",
                         dtype=torch.half, generator=generator)
    labels = torch.randint(0, 16, (options.batch,), device="cuda", generator=generator)
    times = []
    for _ in range(options.steps):
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(images).float(), labels)
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    digest = hashlib.sha256()
    for parameter in net.parameters():
        digest.update(parameter.detach().contiguous().view(-1).view(torch.uint8).cpu()
                      .numpy().tobytes())
    return digest.hexdigest()[:16], sorted(times)[len(times) // 2]


def main():
    options = network_arguments(50).parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    # The stem (cuDNN) too adds in a fixed order.
    torch.backends.cudnn.deterministic = True
    runs = [train(options, rank) for _ in range(2)]
    results = [None] * world
    dist.all_gather_object(results, (torch.cuda.get_device_name(), runs))
    if rank == 0:
        print(f"{world} ranks, torch {torch.__version__}; {options.steps} steps of batch "
              f"{options.batch} a rank, {options.channels} channels, "
              f"{options.size}x{options.size} images")
        print("| rank | device | weights, first run | weights, second run | median step (ms) |")
        print("|---|---|---|---|---|")
        for r, (device, ((first, ms), (second, _))) in enumerate(results):
            print(f"| {r} | {device} | {first} | {second} | {ms:.3f} |")
    digests = {digest for _, runs in results for digest, _ in runs}
    dist.destroy_process_group()
    assert len(digests) == 1, f"weights differ across runs or ranks: {sorted(digests)}"


if __name__ == "__main__":
    main()
