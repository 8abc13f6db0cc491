"""GPU tests of launching from Python: values against PyTorch float32
references (TF32 off), poisoned outputs, bit-identical repeats. Skipped
without a GPU or PyTorch."""

import pytest

import spio

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not (spio.gpu_available() and torch.cuda.is_available()),
                                reason="needs a GPU and PyTorch with CUDA")

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
UNIT_ROUNDOFF = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8, "f32": 2.0 ** -24}


@pytest.fixture(autouse=True)
def no_tf32():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def poisoned(shape, dtype):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


def within(got, reference, magnitude, depth, out_dtype):
    """|got - ref| <= u_out |ref| + 2 depth u_f32 sum|products|, elementwise."""
    tolerance = (UNIT_ROUNDOFF[out_dtype] * reference.abs() +
                 2 * depth * 2.0 ** -24 * magnitude + 1e-5)
    error = (got.float() - reference).abs()
    assert torch.isfinite(got.float()).all(), "outputs left unwritten"
    assert (error <= tolerance).all(), f"max error {error.max().item()}"


def run_twice_identical(run, output):
    run()
    torch.cuda.synchronize()
    first = output.clone()
    output.fill_(float("nan"))
    run()
    torch.cuda.synchronize()
    assert torch.equal(first.view(torch.uint8), output.view(torch.uint8))


@pytest.mark.parametrize("m,n,k,dtype,out", [(1000, 1000, 1000, "bf16", "bf16"),
                                             (17, 33, 72, "f16", "f32"),
                                             (256, 512, 128, "f16", "f16")])
def test_gemm(m, n, k, dtype, out):
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=DTYPES[dtype])
    b = torch.randn(n, k, device="cuda", dtype=DTYPES[dtype])  # B column major
    d = poisoned((m, n), DTYPES[out])
    args = spio.GemmArguments(m, n, k, dtype, out_dtype=out)
    kernel = spio.get_kernels(args)[0]
    run_twice_identical(lambda: kernel.run(args, {"A": a, "B": b, "D": d},
                                           stream=torch.cuda.current_stream()), d)
    within(d, a.float() @ b.float().t(), a.float().abs() @ b.float().abs().t(), k, out)


@pytest.mark.parametrize("activation", ["gelu_tanh", "gelu_erf", "silu"])
def test_activation_error_on_exact_inputs(activation):
    """Each activation of exact f32 inputs (bf16 x against the identity)
    against float64: gelu_tanh within 2^-12 |x| (PTX bounds tanh.approx.f32
    by 2^-11 of tanh, times x / 2), gelu_erf and silu within a few f32 ulp."""
    m = k = 256
    x = torch.linspace(-12, 12, m * k, device="cuda").to(torch.bfloat16).view(m, k)
    identity = torch.eye(k, device="cuda", dtype=torch.bfloat16)
    d = poisoned((m, k), torch.float32)
    args = spio.GemmArguments(m, k, k, "bf16", out_dtype="f32", epilogue=[activation])
    kernel = spio.get_kernels(args)[0]
    run_twice_identical(lambda: kernel.run(args, {"A": x, "B": identity, "D": d},
                                           stream=torch.cuda.current_stream()), d)
    F = torch.nn.functional
    want = {"gelu_tanh": lambda t: F.gelu(t, approximate="tanh"), "gelu_erf": F.gelu,
            "silu": F.silu}[activation](x.double())
    bound = {"gelu_tanh": 2.0 ** -12, "gelu_erf": 2.0 ** -21, "silu": 2.0 ** -21}[activation]
    error = (d.double() - want).abs()
    assert (error <= bound * x.double().abs() + 2.0 ** -24).all(), \
        f"max error {error.max().item()} at x = {x.view(-1)[error.argmax()].item()}"


@pytest.mark.parametrize("m,n,k,epilogue,bias_along,scale_along,out", [
    (1000, 1000, 1000, ("bias", "gelu_tanh"), "col", None, "bf16"),
    (300, 520, 200, ("scale", "bias", "gelu_erf", "residual"), "row", "col", "f32"),
    (17, 33, 72, ("residual", "silu"), None, None, "bf16"),
    (64, 4096, 4096, ("bias", "relu"), "col", None, "bf16")])
def test_gemm_epilogue(m, n, k, epilogue, bias_along, scale_along, out):
    """Each step, in order, against a float32 reference (activations from
    torch.nn.functional), through the kernels API's bias and scale operands."""
    torch.manual_seed(1)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    length = {"row": m, "col": n}
    bias = torch.randn(length[bias_along], device="cuda") if bias_along else None
    scale = torch.rand(length[scale_along], device="cuda") + 0.5 if scale_along else None
    c = torch.randn(m, n, device="cuda", dtype=DTYPES[out])
    d = poisoned((m, n), DTYPES[out])
    args = spio.GemmArguments(m, n, k, "bf16", out_dtype=out, reads_c="residual" in epilogue,
                              epilogue=epilogue, bias_along=bias_along, bias_dtype="f32",
                              scale_along=scale_along)
    kernel = spio.get_kernels(args)[0]
    operands = {"A": a, "B": b, "D": d, "C": c, "bias": bias, "scale": scale}
    operands = {name: t for name, t in operands.items()
                if name in kernel.family.operands(args, kernel.config)[0]}
    scalars = {"beta": 0.5} if args.reads_c else {}
    run_twice_identical(lambda: kernel.run(args, operands, stream=torch.cuda.current_stream(),
                                           **scalars), d)

    def along(vector, direction):
        return vector[:, None] if direction == "row" else vector[None, :]

    functions = {"relu": torch.relu, "silu": torch.nn.functional.silu,
                 "gelu_erf": torch.nn.functional.gelu,
                 "gelu_tanh": lambda y: torch.nn.functional.gelu(y, approximate="tanh")}
    reference = a.float() @ b.float().t()
    magnitude = a.float().abs() @ b.float().abs().t()
    for step in epilogue:
        if step == "scale":
            reference = reference * along(scale, scale_along)
            magnitude = magnitude * along(scale, scale_along)
        elif step == "bias":
            reference = reference + along(bias, bias_along)
            magnitude = magnitude + along(bias, bias_along).abs()
        elif step == "residual":
            reference = reference + 0.5 * c.float()
            magnitude = magnitude + 0.5 * c.float().abs()
        else:
            reference = functions[step](reference)
            magnitude = magnitude * 1.13
    within(d, reference, magnitude, k, out)


@pytest.mark.parametrize("batch,m,n,k,shared", [(3, 100, 60, 72, None), (4, 300, 200, 520, "b"),
                                                (5, 64, 4096, 256, "a"), (64, 128, 128, 64, None)])
def test_batched_gemm(batch, m, n, k, shared):
    torch.manual_seed(2)
    a = torch.randn(1 if shared == "a" else batch, m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(1 if shared == "b" else batch, n, k, device="cuda", dtype=torch.bfloat16)
    d = poisoned((batch, m, n), torch.bfloat16)
    args = spio.GemmArguments(m, n, k, "bf16", batch=batch, shared=shared)
    kernel = spio.get_kernels(args)[0]
    run_twice_identical(lambda: kernel.run(args, {"A": a, "B": b, "D": d},
                                           stream=torch.cuda.current_stream()), d)
    reference = a.float() @ b.float().transpose(1, 2)
    magnitude = a.float().abs() @ b.float().abs().transpose(1, 2)
    within(d, reference, magnitude, k, "bf16")


CONV_CASES = [(2, 64, 20, 20, 3, 3, 1, 1, 1), (1, 24, 17, 29, 5, 3, 2, 1, 1),
              (2, 32, 21, 20, 3, 3, 1, 1, 2), (2, 16, 9, 9, 7, 7, 3, 3, 1)]


# Depthwise and narrow groups (channels a group, then a CONV_CASES case).
NARROW_CASES = [(1, 2, 64, 20, 20, 3, 3, 1, 1, 1), (2, 1, 24, 17, 29, 5, 3, 2, 1, 1),
                (4, 2, 32, 21, 20, 3, 3, 1, 1, 2), (1, 2, 16, 9, 9, 7, 7, 3, 3, 1)]


def conv_tensors(n, c, h, w, r, s, dtype, group_width=8):
    x = torch.randn(n, h, w, c, device="cuda", dtype=DTYPES[dtype])  # NHWC
    weight = torch.randn(c, r, s, group_width, device="cuda", dtype=DTYPES[dtype])  # [k, r, s, c]
    return x, weight


def gradient_of_output(n, c, h, w, r, s, ph, pw, stride):
    """A random dy (NHWC) of the convolution's output size."""
    p, q = (h + 2 * ph - r) // stride + 1, (w + 2 * pw - s) // stride + 1
    return torch.randn(n, p, q, c, device="cuda", dtype=torch.float16)


def nchw(t):
    return t.permute(0, 3, 1, 2).float()


def torch_weight(weight):
    return weight.permute(0, 3, 1, 2).float()  # [k, c, r, s]


@pytest.mark.parametrize("g,n,c,h,w,r,s,ph,pw,stride",
                         [(8,) + case for case in CONV_CASES] + NARROW_CASES)
def test_conv_fprop(g, n, c, h, w, r, s, ph, pw, stride):
    torch.manual_seed(1)
    x, weight = conv_tensors(n, c, h, w, r, s, "f16", g)
    bias = torch.randn(c, device="cuda", dtype=torch.float16)
    args = spio.Conv2dGw8Arguments(n, c, h, w, r, s, ph, pw, stride, "fprop", bias=True,
                                   group_width=g)
    conv = lambda a, b, bb: torch.nn.functional.conv2d(a, b, bb, stride, (ph, pw),
                                                       groups=c // g)
    reference = conv(nchw(x), torch_weight(weight), bias.float())
    magnitude = conv(nchw(x).abs(), torch_weight(weight).abs(), bias.float().abs())
    y = poisoned((n, reference.shape[2], reference.shape[3], c), torch.float16)
    kernel = spio.get_kernels(args)[0]
    run_twice_identical(lambda: kernel.run(args, {"x": x, "w": weight, "bias": bias, "y": y}), y)
    within(nchw(y), reference, magnitude, r * s * g, "f16")


@pytest.mark.parametrize("g,n,c,h,w,r,s,ph,pw,stride",
                         [(8,) + case for case in CONV_CASES] + NARROW_CASES)
def test_conv_dgrad(g, n, c, h, w, r, s, ph, pw, stride):
    torch.manual_seed(2)
    _, weight = conv_tensors(n, c, h, w, r, s, "f16", g)
    dy = gradient_of_output(n, c, h, w, r, s, ph, pw, stride)
    grad = lambda d, b: torch.nn.grad.conv2d_input((n, c, h, w), b, d, stride, (ph, pw),
                                                   groups=c // g)
    reference = grad(nchw(dy), torch_weight(weight))
    magnitude = grad(nchw(dy).abs(), torch_weight(weight).abs())
    dx = poisoned((n, h, w, c), torch.float16)
    args = spio.Conv2dGw8Arguments(n, c, h, w, r, s, ph, pw, stride, "dgrad", group_width=g)
    kernel = spio.get_kernels(args)[0]
    run_twice_identical(lambda: kernel.run(args, {"dy": dy, "w": weight, "dx": dx}), dx)
    within(nchw(dx), reference, magnitude, r * s * g, "f16")


@pytest.mark.parametrize("g,n,c,h,w,r,s,ph,pw,stride",
                         [(8,) + case for case in CONV_CASES] + NARROW_CASES)
def test_conv_wgrad_deterministic(g, n, c, h, w, r, s, ph, pw, stride):
    torch.manual_seed(3)
    x, _ = conv_tensors(n, c, h, w, r, s, "f16")
    dy = gradient_of_output(n, c, h, w, r, s, ph, pw, stride)
    p, q = dy.shape[1], dy.shape[2]
    grad = lambda a, d: torch.nn.grad.conv2d_weight(a, (c, g, r, s), d, stride, (ph, pw),
                                                    groups=c // g)
    reference = grad(nchw(x), nchw(dy))
    magnitude = grad(nchw(x).abs(), nchw(dy).abs())
    dw = poisoned((c, r, s, g), torch.float32)
    args = spio.Conv2dGw8Arguments(n, c, h, w, r, s, ph, pw, stride, "wgrad", dw_dtype="f32",
                                   group_width=g)
    kernel = spio.get_kernels(args)[0]
    workspace = torch.empty(kernel.workspace_size(args), device="cuda", dtype=torch.uint8)
    run_twice_identical(lambda: kernel.run(args, {"x": x, "dy": dy, "dw": dw},
                                           workspace=workspace), dw)
    within(torch_weight(dw), reference, magnitude, n * p * q, "f32")


def test_launchers_refuse_operands_the_kernels_cannot_take():
    """A launcher (the library's launch plan, as PyTorch's operators launch)
    checks every address before it launches anything."""
    args = spio.GemmArguments(256, 256, 256, "bf16")
    kernel = spio.Kernel(spio.GemmFamily(), spio.GemmFamily().chosen(args, spio.kernels.target("sm_90")))
    launcher = kernel.launcher(args)
    assert launcher.operands == ("A", "B", "C", "D", "bias", "scale", "groups")
    assert launcher.optional == {"C", "bias", "scale", "groups"}
    assert launcher.scalars == {"alpha": 1.0, "beta": 0.0} and launcher.workspace == 0
    a = torch.zeros(256, 256, device="cuda", dtype=torch.bfloat16)
    d = a.clone()
    for addresses, reason in (((a.data_ptr() + 2, a.data_ptr(), 0, d.data_ptr(), 0, 0, 0),
                               "operand 'A' is not 16-byte aligned"),
                              ((a.data_ptr(), a.data_ptr(), 0, 0, 0, 0, 0),
                               "operand 'D' is missing"),
                              ((a.data_ptr(),) * 3, r"takes 7 operands \(A, B, C, D, bias, "
                                                    r"scale, groups\), got 3")):
        with pytest.raises(spio.SpioError, match=reason):
            launcher.run(None, addresses)
    wgrad = spio.Conv2dGw8Arguments(2, 64, 16, 16, pass_="wgrad")
    launcher = spio.get_kernels(wgrad)[0].launcher(wgrad)
    assert launcher.operands == ("x", "dy", "dw", "db") and launcher.workspace > 0
    with pytest.raises(spio.SpioError, match="aligned workspace of"):
        launcher.run(None, (a.data_ptr(), a.data_ptr(), d.data_ptr(), 0))
