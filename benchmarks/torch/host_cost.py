"""CPU time per call of Spio's PyTorch operators beside torch's own, in one run.

    PYTHONPATH=python python3 benchmarks/torch/host_cost.py [--calls 64] [--repeats 9]

Each case runs on tiny tensors, so that what a call costs is its host work:
checks, dispatch, autograd, allocation and launches. A measurement queues
`--calls` calls behind a GPU sleep long enough to hold every launch, so the
GPU's own time does not count (the queue never fills: at most about 600
launches), times them with the host clock, then waits for the GPU; the
table gives the median over `--repeats` measurements, in microseconds a
call, and Spio's against torch's (cuDNN, cuBLAS) with the target.
"""

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import spio

# The host cost each case may reach (microseconds a call).
TARGETS = {"linear forward": 15, "linear forward, weights needing grad": 15,
           "conv2d_gw8 forward": 15, "conv2d_gw8 forward, weights needing grad": 15,
           "conv2d_gw8 forward + backward": 40}


def host_us(call, calls, repeats):
    """Median microseconds of host time per call of `call`."""
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        torch.cuda._sleep(200_000_000)  # about 0.1 s at the H100's and H200's clocks
        start = time.perf_counter()
        for _ in range(calls):
            call()
        times.append((time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(times)


def cases(dtype):
    """(name, spio's call, torch's call) on tiny tensors."""
    device = "cuda"
    x = torch.randn(16, 64, device=device, dtype=dtype)
    w = torch.randn(64, 64, device=device, dtype=dtype)
    b = torch.randn(64, device=device, dtype=dtype)
    wg, bg = w.clone().requires_grad_(), b.clone().requires_grad_()
    xg = x.clone().requires_grad_()
    dy = torch.randn(16, 64, device=device, dtype=dtype)

    def linear_backward(linear):
        def call():
            linear(xg, wg, bg).backward(dy)
        return call

    image = torch.randn(2, 64, 8, 8, device=device, dtype=dtype).to(
        memory_format=torch.channels_last)
    weight = torch.randn(64, 8, 3, 3, device=device, dtype=dtype).to(
        memory_format=torch.channels_last)
    bias = torch.randn(64, device=device, dtype=dtype)
    weight_g, bias_g = weight.clone().requires_grad_(), bias.clone().requires_grad_()
    image_g = image.clone().requires_grad_()
    dimage = torch.randn_like(image)

    def torch_conv(x, w, b):
        return F.conv2d(x, w, b, 1, 1, 1, 8)

    def conv_backward(conv):
        def call():
            conv(image_g, weight_g, bias_g).backward(dimage)
        return call

    return [
        ("linear forward", lambda: spio.linear(x, w, b), lambda: F.linear(x, w, b)),
        ("linear forward, weights needing grad", lambda: spio.linear(x, wg, bg),
         lambda: F.linear(x, wg, bg)),
        ("linear forward + backward", linear_backward(spio.linear), linear_backward(F.linear)),
        ("conv2d_gw8 forward", lambda: spio.conv2d_gw8(image, weight, bias),
         lambda: torch_conv(image, weight, bias)),
        ("conv2d_gw8 forward, weights needing grad",
         lambda: spio.conv2d_gw8(image, weight_g, bias_g),
         lambda: torch_conv(image, weight_g, bias_g)),
        ("conv2d_gw8 forward + backward", conv_backward(spio.conv2d_gw8),
         conv_backward(torch_conv)),
    ]


def breakdown(dtype, calls, repeats):
    """What the parts of a spio.linear forward (no gradient) cost."""
    from spio import _capi, _torch_ops
    x = torch.randn(16, 64, device="cuda", dtype=dtype)
    w = torch.randn(64, 64, device="cuda", dtype=dtype)
    _torch_ops._mm(x, w)
    launcher = next(v for k, v in _torch_ops._launchers.items() if k[0] == "gemm")
    d = x.new_empty((16, 64))
    # A, B, C, D, then the optional operands (bias, scale, ...) absent.
    addresses = (x.data_ptr(), w.data_ptr(), 0, d.data_ptr()) + (0,) * (launcher._count - 4)
    array = launcher._addresses(*addresses)
    stream = torch._C._cuda_getCurrentRawStream(0)
    b = torch.randn(64, device="cuda", dtype=dtype)
    parts = [
        ("spio.linear", lambda: spio.linear(x, w)),
        ("spio.linear with bias", lambda: spio.linear(x, w, b)),
        ("_torch_ops._mm with bias", lambda: _torch_ops._mm(x, w, b)),
        ("F.linear with bias", lambda: F.linear(x, w, b)),
        ("_torch_ops._mm", lambda: _torch_ops._mm(x, w)),
        ("x.new_empty((16, 64))", lambda: x.new_empty((16, 64))),
        ("torch.empty((16, 64), device, dtype)",
         lambda: torch.empty((16, 64), device=x.device, dtype=dtype)),
        ("Launcher.run", lambda: launcher.run(stream, addresses)),
        ("the addresses' ctypes array", lambda: launcher._addresses(*addresses)),
        ("the C call alone", lambda: _capi._run_launcher(launcher.handle, stream, array,
                                                          len(addresses), 0, None,
                                                          launcher._error_slot)),
        ("three data_ptr()", lambda: (x.data_ptr(), w.data_ptr(), d.data_ptr())),
        ("x.get_device(), x.dtype", lambda: (x.get_device(), x.dtype)),
        ("torch.compiler.is_compiling()", torch.compiler.is_compiling),
        ("F.linear", lambda: F.linear(x, w)),
    ]
    # A gradient recorded by the Python node (_LinearFunction) and by the
    # C++ one (spio._autograd, where it is built).
    wg, bg = w.clone().requires_grad_(), b.clone().requires_grad_()
    dy_linear = torch.randn(16, 64, device="cuda", dtype=dtype)
    nodes = [("Python node", _torch_ops._LinearFunction.apply)]
    if _torch_ops._native is not None:
        nodes.insert(0, ("C++ node", spio.linear))
    for node, linear in nodes:
        parts += [(f"linear with grad, {node}", lambda linear=linear: linear(x, wg, bg)),
                  (f"linear forward + backward, {node}",
                   lambda linear=linear: linear(x, wg, bg).backward(dy_linear))]
    image = torch.randn(2, 64, 8, 8, device="cuda", dtype=dtype).to(
        memory_format=torch.channels_last)
    weight = torch.randn(64, 8, 3, 3, device="cuda", dtype=dtype).to(
        memory_format=torch.channels_last)
    bias = torch.randn(64, device="cuda", dtype=dtype)
    weight_g, bias_g = weight.clone().requires_grad_(), bias.clone().requires_grad_()
    image_g = image.clone().requires_grad_()
    dy = torch.randn_like(image)
    y = spio.conv2d_gw8(image_g, weight_g, bias_g)
    parts += [
        ("conv: _conv2d_gw8 (fprop)", lambda: _torch_ops._conv2d_gw8(image, weight, bias, 1,
                                                                      [1, 1])),
        ("conv: _conv2d_gw8_dgrad", lambda: _torch_ops._conv2d_gw8_dgrad(
            dy, weight, list(image.shape), 1, [1, 1])),
        ("conv: _conv2d_gw8_wgrad_bias", lambda: _torch_ops._conv2d_gw8_wgrad_bias(
            image, dy, [3, 3], 1, [1, 1])),
        ("conv: forward with grad", lambda: spio.conv2d_gw8(image_g, weight_g, bias_g)),
        ("conv: y.backward(dy, retain_graph=True)", lambda: y.backward(dy, retain_graph=True)),
    ]
    print("| part | us |")
    print("|---|---|")
    for name, call in parts:
        print(f"| {name} | {host_us(call, calls, repeats):.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--dtype", choices=("f16", "bf16"), default="bf16")
    parser.add_argument("--breakdown", action="store_true",
                        help="what the parts of a spio.linear forward cost")
    options = parser.parse_args()
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[options.dtype]
    if options.breakdown:
        breakdown(dtype, options.calls, options.repeats)
        return
    from spio import _torch_ops
    node = "C++ (spio._autograd)" if _torch_ops._native is not None else "Python"
    print(f"device: {torch.cuda.get_device_name()}; torch {torch.__version__}; "
          f"{options.dtype}; median of {options.repeats} x {options.calls} calls; "
          f"spio's autograd nodes: {node}")
    print("| call | spio (us) | torch (us) | spio / torch | target (us) |")
    print("|---|---|---|---|---|")
    public = host_us(lambda: torch.cuda.current_stream(0).cuda_stream, options.calls,
                     options.repeats)
    private = host_us(lambda: torch._C._cuda_getCurrentRawStream(0), options.calls,
                      options.repeats)
    print(f"the current stream: torch.cuda.current_stream(0).cuda_stream {public:.2f} us, "
          f"torch._C._cuda_getCurrentRawStream(0) {private:.2f} us (Spio's operators use "
          f"the latter where torch has it)")
    for name, spio_call, torch_call in cases(dtype):
        ours = host_us(spio_call, options.calls, options.repeats)
        theirs = host_us(torch_call, options.calls, options.repeats)
        target = TARGETS.get(name)
        print(f"| {name} | {ours:.1f} | {theirs:.1f} | {ours / theirs:.2f} | "
              f"{'' if target is None else target} |")


if __name__ == "__main__":
    main()
