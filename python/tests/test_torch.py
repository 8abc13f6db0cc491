"""PyTorch face: operators against PyTorch float32 references (TF32 off),
gradients, torch.library.opcheck, torch.compile(fullgraph=True), module
swapping, bit-identical repeats, errors before launch. Skipped without
PyTorch; the GPU tests also without a GPU."""

import contextlib
import re

import pytest

import spio

torch = pytest.importorskip("torch")
from spio import _torch_ops  # noqa: E402  (needs torch)
gpu = pytest.mark.skipif(not (spio.gpu_available() and torch.cuda.is_available()),
                         reason="needs a GPU and PyTorch with CUDA")


@pytest.fixture(autouse=True)
def no_tf32():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def conv_inputs(n=2, c=64, h=20, w=20, r=3, s=3, dtype=torch.float16, seed=0, group_width=8):
    generator = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(n, c, h, w, device="cuda", dtype=dtype, generator=generator)
    weight = torch.randn(c, group_width, r, s, device="cuda", dtype=dtype,
                         generator=generator) / group_width
    bias = torch.randn(c, device="cuda", dtype=dtype, generator=generator)
    return x.to(memory_format=torch.channels_last), weight, bias


@contextlib.contextmanager
def counting_calls(module, name):
    """Counts the calls of module.name within the block (a list holding the
    count)."""
    function, calls = getattr(module, name), [0]

    def counted(*args):
        calls[0] += 1
        return function(*args)

    setattr(module, name, counted)
    try:
        yield calls
    finally:
        setattr(module, name, function)


def close(got, want, scale):
    """Within f16/bf16 rounding of the output plus f32 accumulation."""
    error = (got.float() - want).abs().max().item()
    assert error <= 2.0 ** -6 * scale, f"max error {error} (scale {scale})"


def gradients_close(y, y32, pairs):
    """Backpropagates one random dy through `y` and through its float32
    reference `y32`, then checks each (tensor, reference tensor) pair's
    gradient."""
    dy = torch.randn_like(y)
    y.backward(dy)
    y32.backward(dy.float())
    for t, t32 in pairs:
        close(t.grad, t32.grad, t32.grad.abs().max().item())


@gpu
@pytest.mark.parametrize("stride,padding,rs", [(1, (1, 1), (3, 3)), (2, (2, 1), (5, 3)),
                                               (1, (0, 0), (1, 1)), (1, (4, 3), (3, 3)),
                                               (2, (5, 6), (3, 5)), (1, (2, 1), (1, 1))])
def test_conv2d_gw8_forward_and_gradients(stride, padding, rs):
    x, weight, bias = conv_inputs(r=rs[0], s=rs[1])
    x.requires_grad_(), weight.requires_grad_(), bias.requires_grad_()
    y = spio.conv2d_gw8(x, weight, bias, stride, padding)
    x32, w32, b32 = (t.detach().float().requires_grad_() for t in (x, weight, bias))
    y32 = torch.nn.functional.conv2d(x32, w32, b32, stride, padding, groups=x.shape[1] // 8)
    close(y, y32, y32.abs().max().item())
    gradients_close(y, y32, [(x, x32), (weight, w32), (bias, b32)])


@gpu
@pytest.mark.parametrize("group_width,stride,padding,rs", [
    (1, 1, (1, 1), (3, 3)), (1, 2, (2, 2), (5, 5)), (1, 1, (3, 3), (7, 7)),
    (2, 2, (1, 2), (3, 5)), (4, 1, (0, 0), (1, 1)), (4, 1, (2, 1), (5, 3))])
def test_depthwise_and_narrow_groups_forward_and_gradients(group_width, stride, padding, rs):
    x, weight, bias = conv_inputs(n=3, c=48, h=23, w=18, r=rs[0], s=rs[1],
                                  group_width=group_width)
    x.requires_grad_(), weight.requires_grad_(), bias.requires_grad_()
    groups = x.shape[1] // group_width
    y = spio.conv2d(x, weight, bias, stride, padding, groups=groups)
    x32, w32, b32 = (t.detach().float().requires_grad_() for t in (x, weight, bias))
    y32 = torch.nn.functional.conv2d(x32, w32, b32, stride, padding, groups=groups)
    close(y, y32, y32.abs().max().item())
    gradients_close(y, y32, [(x, x32), (weight, w32), (bias, b32)])
    assert torch.equal(y, spio.conv2d(x, weight, bias, stride, padding, groups=groups))
    layer = spio.nn.Conv2dGw8.from_torch(torch.nn.Conv2d(
        48, 48, rs, stride, padding, groups=groups, device="cuda", dtype=torch.float16))
    assert layer.weight.shape == (48, group_width) + rs


@gpu
def test_dgrad_refuses_a_weight_of_another_group_width():
    dy = torch.randn(2, 48, 8, 8, device="cuda", dtype=torch.float16)
    weight = torch.randn(48, 3, 3, 3, device="cuda", dtype=torch.float16)
    with pytest.raises(spio.SpioError, match=r"dgrad takes weight \(C, g, R, S\) with g 1, 2, 4 "
                                             r"or 8, got \(48, 3, 3, 3\)"):
        torch.ops.spio.conv2d_gw8_dgrad(dy, weight, [2, 48, 8, 8], 1, [1, 1])


@gpu
def test_conv2d_gw8_in_the_heuristics_band_ring():
    """5x5 on 16x16 images: the heuristics loop each block over whole
    images (chunks), forward and for dx."""
    args = spio.Conv2dGw8Arguments(48, 512, 16, 16, 5, 5, 2, 2)
    assert len(spio.Conv2dGw8Family().chosen(args)[2]) == 4
    x, weight, bias = conv_inputs(n=48, c=512, h=16, w=16, r=5, s=5, seed=3)
    x.requires_grad_()
    y = spio.conv2d_gw8(x, weight, bias, 1, (2, 2))
    x32, w32, b32 = (t.detach().float() for t in (x, weight, bias))
    x32.requires_grad_()
    y32 = torch.nn.functional.conv2d(x32, w32, b32, 1, (2, 2), groups=64)
    close(y, y32, y32.abs().max().item())
    gradients_close(y, y32, [(x, x32)])


@gpu
def test_eager_autograd_matches_the_registered_operator():
    """spio.conv2d_gw8 runs eagerly through its own autograd node (C++ where
    spio._autograd is built, else an autograd.Function) over the operators'
    launchers; the registered operator (what torch.compile traces) computes
    the same bits, forward and backward."""
    x, weight, bias = conv_inputs(r=3, s=5, seed=5)
    dy = torch.randn(2, 64, 20, 18, device="cuda", dtype=torch.float16).to(
        memory_format=torch.channels_last)
    results = []
    for call in (lambda *inputs: spio.conv2d_gw8(*inputs, 1, (1, 1)),
                 lambda *inputs: torch.ops.spio.conv2d_gw8(*inputs, 1, [1, 1])):
        leaves = [t.detach().clone().requires_grad_() for t in (x, weight, bias)]
        y = call(*leaves)
        results.append(type(y.grad_fn).__name__)
        y.backward(dy)
        results.append([y.detach()] + [t.grad for t in leaves])
    assert not results[0].startswith("GeneratedBackwardFor"), results[0]
    assert results[2].startswith("GeneratedBackwardFor_spio_conv2d_gw8"), results[2]
    for eager, operator in zip(results[1], results[3]):
        assert torch.equal(eager, operator)


@gpu
def test_bias_gradient_with_and_without_the_weights():
    """With the weight's gradient, wgrad's kernels also sum dy into the
    bias's; without it, PyTorch's sum does. Both against float32, and the
    kernels' sums the same bits run to run."""
    x, weight, bias = conv_inputs(n=3, c=96, h=17, w=23, seed=7)
    dy = torch.randn(3, 96, 17, 23, device="cuda", dtype=torch.float16).to(
        memory_format=torch.channels_last)
    want = dy.float().sum((0, 2, 3))
    grads = []
    for weight_grad in (True, True, False):
        w = weight.detach().requires_grad_(weight_grad)
        b = bias.detach().requires_grad_()
        spio.conv2d_gw8(x, w, b, 1, (1, 1)).backward(dy)
        close(b.grad, want, want.abs().max().item())
        grads.append(b.grad)
    assert torch.equal(grads[0], grads[1])


@gpu
def test_linear_and_matmul_with_gradients():
    generator = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(96, 256, device="cuda", dtype=torch.bfloat16, generator=generator)
    layer = spio.nn.Linear(256, 128, device="cuda", dtype=torch.bfloat16)
    x.requires_grad_()
    y = layer(x)
    x32 = x.detach().float().requires_grad_()
    w32 = layer.weight.detach().float().requires_grad_()
    b32 = layer.bias.detach().float().requires_grad_()
    y32 = x32 @ w32.t() + b32
    close(y, y32, y32.abs().max().item())
    gradients_close(y, y32, [(x, x32), (layer.weight, w32), (layer.bias, b32)])
    a, b = x.detach(), layer.weight.detach().t().contiguous()
    close(spio.matmul(a, b), a.float() @ b.float(), 64)


@gpu
@pytest.mark.skipif(_torch_ops._native is None,
                    reason="spio._autograd is not built (python/setup.py build_ext)")
@pytest.mark.parametrize("dtype,bias,offset", [(torch.bfloat16, True, 0),
                                               (torch.float16, False, 0),
                                               (torch.bfloat16, True, 3),
                                               (torch.float32, True, 0)])
def test_linear_autograd_node_in_cpp_gives_the_python_nodes_bits(dtype, bias, offset):
    """spio.linear recording a gradient through the C++ node (spio._autograd)
    and through the Python one (_LinearFunction): the same y, dx, dw and db,
    bit for bit, for inputs starting off 16 bytes (`offset` elements into a
    buffer) and a dY that is a broadcast view; a graph of the backward is
    refused. Without a gradient, the extension's forward gives the Python
    forward's y."""
    generator = torch.Generator(device="cuda").manual_seed(7)
    m, n, k = 72, 96, 136
    x = torch.randn(m * k + offset, device="cuda", dtype=dtype, generator=generator)
    x = x[offset:].view(m, k)
    w = torch.randn(n, k, device="cuda", dtype=dtype, generator=generator) / 8
    b = torch.randn(n, device="cuda", dtype=dtype, generator=generator) if bias else None
    dy = torch.randn(1, n, device="cuda", dtype=dtype, generator=generator).expand(m, n)
    results = []
    for through in ("cpp", "python"):
        leaves = [t.detach().clone().requires_grad_() if t is not None else None
                  for t in (x, w, b)]
        if through == "cpp":
            y = spio.linear(*leaves)
            assert "_LinearFunction" not in type(y.grad_fn).__name__
        else:
            y = _torch_ops._LinearFunction.apply(*leaves)
        y.backward(dy)
        results.append([y.detach()] + [t.grad for t in leaves if t is not None])
    for ours, theirs in zip(*results):
        assert torch.equal(ours, theirs)
    want = x.double() @ w.double().t() + (b.double() if bias else 0)
    error = (results[0][0].double() - want).abs().max().item()
    assert error <= 2.0 ** -7 * want.abs().max().item() + 1e-3, error
    leaves = [t.detach().clone().requires_grad_() for t in (x, w)]
    y = spio.linear(*leaves)
    with pytest.raises(RuntimeError, match="create_graph"):
        torch.autograd.grad(y, leaves, dy, create_graph=True)
    with torch.no_grad(), counting_calls(_torch_ops._native, "linear_forward") as calls:
        y = spio.linear(x, w, b)
    assert calls == [1]
    assert y.grad_fn is None and torch.equal(y, _torch_ops._mm(x.contiguous(), w, b))


@gpu
@pytest.mark.skipif(_torch_ops._native is None,
                    reason="spio._autograd is not built (python/setup.py build_ext)")
@pytest.mark.parametrize("group_width,stride,bias,weight_channels_last",
                         [(8, 1, True, True), (8, 2, False, False), (1, 1, True, False),
                          (4, 2, True, True), (8, 1, "frozen", False)])
def test_conv2d_gw8_autograd_node_in_cpp_gives_the_python_nodes_bits(
        group_width, stride, bias, weight_channels_last):
    """spio.conv2d_gw8 recording a gradient through the C++ node and through
    the Python one (_Conv2dGw8Function): the same y, dx, dw and db, bit for
    bit, for weights stored either way, a bias wanting a gradient or not
    ("frozen") and a dY not channels_last; a graph of the backward is
    refused. Without a gradient, the extension's forward gives the Python
    forward's y."""
    x, w, b = conv_inputs(n=3, c=64, h=15, w=17, seed=8, group_width=group_width)
    if weight_channels_last:
        w = w.contiguous(memory_format=torch.channels_last)
    results = []
    for through in ("cpp", "python"):
        leaves = [t.detach().clone().requires_grad_(t is not b or bias is True)
                  if t is not None else None for t in (x, w, b if bias else None)]
        if through == "cpp":
            y = spio.conv2d_gw8(*leaves, stride, 1)
            assert "_Conv2dGw8Function" not in type(y.grad_fn).__name__
        else:
            y = _torch_ops._Conv2dGw8Function.apply(*leaves, stride, [1, 1])
        if not results:
            dy = torch.randn(y.shape, device="cuda", dtype=y.dtype)  # NCHW-contiguous
        y.backward(dy)
        results.append([y.detach()] + [t.grad for t in leaves
                                       if t is not None and t.requires_grad])
    for name, ours, theirs in zip(("y", "dx", "dw", "db"), *results):
        assert ours.shape == theirs.shape and torch.equal(ours, theirs), \
            (name, (ours.float() - theirs.float()).abs().max().item())
    assert len(results[0]) == (4 if bias is True else 3)
    leaves = [t.detach().clone().requires_grad_() for t in (x, w)]
    y = spio.conv2d_gw8(*leaves, None, stride, 1)
    with pytest.raises(RuntimeError, match="create_graph"):
        torch.autograd.grad(y, leaves, dy, create_graph=True)
    b = b if bias else None
    with torch.no_grad(), counting_calls(_torch_ops._native, "conv2d_gw8_forward") as calls:
        y = spio.conv2d_gw8(x, w, b, stride, 1)
    assert calls == [1]
    assert y.grad_fn is None and torch.equal(y, _torch_ops._conv2d_gw8(x, w, b, stride, [1, 1]))


@gpu
def test_matmul_shares_k_tiles_where_tiles_leave_rounds_idle():
    """A tall, narrow product whose tiles of no width fill 80% of one
    round: the chooser's stream-K kernel (the workspace holds its partial
    sums and flags, the flags cleared before each launch), against float64
    and bit-identical over reruns, with a fresh workspace each call."""
    sm90 = torch.cuda.get_device_capability()[0] == 9
    generator = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn(2328, 8192, device="cuda", dtype=torch.bfloat16, generator=generator)
    b = torch.randn(8192, 888, device="cuda", dtype=torch.bfloat16, generator=generator)
    chosen = spio.GemmFamily().chosen(spio.GemmArguments(2328, 888, 8192, "bf16"),
                                      spio.kernels.target())
    assert ("stream_k" in chosen[4]) == sm90
    y = spio.matmul(a, b)
    want = a.double() @ b.double()
    error = (y.double() - want).abs().max().item()
    assert error <= 2.0 ** -7 * want.abs().max().item() + 1e-2, error
    for _ in range(3):
        torch.cuda.empty_cache()
        assert torch.equal(spio.matmul(a, b), y)


@gpu
def test_linear_adds_dw_to_the_weights_f32_main_grad():
    """With weight.main_grad, each backward adds dW to it in place, the f32
    products and the running sum rounded once (within f32 accumulation of
    a float64 sum, far inside bf16's rounding), and sets no weight.grad;
    the same bits run to run and under torch.compile; the bias gradient
    and dx as without it."""
    generator = torch.Generator(device="cuda").manual_seed(5)
    layer = spio.nn.Linear(320, 192, device="cuda", dtype=torch.bfloat16, main_grad=True)
    assert layer.weight.main_grad.dtype == torch.float32
    xs = [torch.randn(136, 320, device="cuda", dtype=torch.bfloat16, generator=generator)
          for _ in range(3)]
    dys = [torch.randn(136, 192, device="cuda", dtype=torch.bfloat16, generator=generator)
           for _ in range(3)]

    def accumulate(forward):
        layer.weight.main_grad.zero_()
        layer.bias.grad = None
        dxs = []
        for x, dy in zip(xs, dys):
            x = x.clone().requires_grad_()
            forward(x).backward(dy)
            dxs.append(x.grad)
        return layer.weight.main_grad.clone(), layer.bias.grad.clone(), dxs

    main_grad, bias_grad, dxs = accumulate(layer)
    assert layer.weight.grad is None
    exact = sum(dy.double().t() @ x.double() for x, dy in zip(xs, dys))
    magnitude = sum(dy.double().abs().t() @ x.double().abs() for x, dy in zip(xs, dys))
    assert ((main_grad.double() - exact).abs() / magnitude).max().item() < 3e-5
    want_db = sum(dy.float().sum(0) for dy in dys)
    close(bias_grad, want_db, want_db.abs().max().item())
    for dx, dy in zip(dxs, dys):
        want = dy.float() @ layer.weight.detach().float()
        close(dx, want, want.abs().max().item())
    again = accumulate(layer)
    assert torch.equal(again[0], main_grad) and torch.equal(again[1], bias_grad)
    compiled = accumulate(torch.compile(layer))
    assert torch.equal(compiled[0], main_grad)
    assert layer.weight.grad is None
    # A main_grad of the wrong kind is refused before any launch.
    layer.weight.main_grad = torch.zeros_like(layer.weight)
    with pytest.raises(spio.SpioError, match="main_grad must be a contiguous float32"):
        layer(xs[0])


@gpu
def test_linear_with_an_activation_adds_its_gradient_to_main_grad():
    """An activation on a weight with main_grad: torch's activation on the
    linear output, whose gradient (dY times the activation's derivative)
    the backward's dW GEMM adds to main_grad in f32; no weight.grad; the
    same bits again."""
    F = torch.nn.functional
    generator = torch.Generator(device="cuda").manual_seed(17)
    layer = spio.nn.Linear(256, 136, device="cuda", dtype=torch.bfloat16, main_grad=True,
                           activation="gelu_tanh")
    x = torch.randn(200, 256, device="cuda", dtype=torch.bfloat16, generator=generator)
    dy = torch.randn(200, 136, device="cuda", dtype=torch.bfloat16, generator=generator)

    def step():
        layer.weight.main_grad.zero_()
        layer(x).backward(dy)
        return layer.weight.main_grad.clone()

    main_grad = step()
    assert layer.weight.grad is None
    w = layer.weight.detach().float().requires_grad_()
    z = F.linear(x.float(), w, layer.bias.detach().float())
    F.gelu(z, approximate="tanh").backward(dy.float())
    close(main_grad, w.grad, w.grad.abs().max().item())
    assert torch.equal(step(), main_grad)


def relative_error(got, a, b, bias=None):
    """The largest |got - exact| / sum|a*b| of a @ b.t() (+ bias), exact in
    float64."""
    exact = a.double() @ b.double().t() + (0 if bias is None else bias.double())
    magnitude = a.double().abs() @ b.double().abs().t() + (
        0 if bias is None else bias.double().abs())
    return ((got.double() - exact).abs() / magnitude).max().item()


# What each f32 precision's bf16 terms leave of a product (about 4 u^3,
# 3 u^2 and 2 u, u = 2^-8), with room for the f32 sums; "high" on sm_90 runs
# TF32 (truncated 10-bit mantissas: about 2^-9 a product).
F32_BOUNDS = {"highest": 2e-6, "high": 1e-4, "medium": 2e-2}
TF32_BOUND = 4e-3


@gpu
@pytest.mark.parametrize("precision", sorted(F32_BOUNDS))
@pytest.mark.parametrize("k", [333, 320])
def test_f32_linear_and_gradients_at_each_precision(precision, k):
    """f32 inputs at torch's matmul precision: within its bound of a
    float64 reference, forward and gradients (M = 201 is not a multiple of
    8; K = 333 is not one of 4 either, so TF32 packs every operand, K = 320
    has the forward read in place), bit-identical run to run."""
    generator = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn(201, k, device="cuda", generator=generator).requires_grad_()
    w = torch.randn(152, k, device="cuda", generator=generator).requires_grad_()
    b = torch.randn(152, device="cuda", generator=generator).requires_grad_()
    torch.set_float32_matmul_precision(precision)
    tf32 = precision == "high" and torch.cuda.get_device_capability()[0] == 9
    bound = TF32_BOUND if tf32 else F32_BOUNDS[precision]
    try:
        assert (spio._torch_ops._f32_precision(x) == "tf32") == tf32
        y = spio.linear(x, w, b)
        assert y.dtype == torch.float32
        error = relative_error(y, x.detach(), w.detach(), b.detach())
        assert error < bound
        if tf32:
            # Not the 2 bf16 terms' error: the tensor cores took TF32.
            assert error > F32_BOUNDS["high"]
        assert torch.equal(y, spio.linear(x, w, b))
        dy = torch.randn_like(y)
        y.backward(dy)
        assert relative_error(x.grad, dy, w.detach().t()) < bound
        assert relative_error(w.grad, dy.t(), x.detach().t()) < bound
    finally:
        torch.set_float32_matmul_precision("highest")


@gpu
def test_unaligned_and_misaligned_operands_run():
    """K = 999 (not a multiple of 8) is packed first; an operand starting
    inside a 16-byte vector is copied to an aligned one."""
    generator = torch.Generator(device="cuda").manual_seed(9)
    flat = torch.randn(7 * 999 + 1, device="cuda", dtype=torch.bfloat16, generator=generator)
    x = flat[1:].view(7, 999)
    assert x.data_ptr() % 16 != 0
    w = torch.randn(1000, 999, device="cuda", dtype=torch.bfloat16, generator=generator)
    y = spio.linear(x, w)
    close(y, x.float() @ w.float().t(), 64)


@gpu
@pytest.mark.parametrize("activation", ["relu", "gelu_tanh", "gelu_erf", "silu"])
def test_linear_fuses_its_activation_where_no_gradient_is_wanted(activation):
    """The activation in the GEMM's epilogue against float64, the same bits
    again, under torch.compile and where gradients are wanted (the epilogue
    then also stores the pre-activation, from which the backward's
    gradients come, checked against f32)."""
    F = torch.nn.functional
    generator = torch.Generator(device="cuda").manual_seed(13)
    x = torch.randn(300, 256, device="cuda", dtype=torch.bfloat16, generator=generator)
    w = torch.randn(520, 256, device="cuda", dtype=torch.bfloat16, generator=generator) / 16
    b = torch.randn(520, device="cuda", dtype=torch.bfloat16, generator=generator)
    function = {"relu": torch.relu, "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
                "gelu_erf": F.gelu, "silu": F.silu}[activation]
    want = function(x.double() @ w.double().t() + b.double())
    with torch.no_grad():
        y = spio.linear(x, w, b, activation=activation)
        close(y, want, want.abs().max().item())
        assert torch.equal(y, spio.linear(x, w, b, activation=activation))
        compiled = torch.compile(lambda p, q, r: spio.linear(p, q, r, activation=activation),
                                 fullgraph=True)
        assert torch.equal(compiled(x, w, b), y)
        torch.library.opcheck(torch.ops.spio.linear_activation.default, (x, w, b, activation),
                              test_utils=("test_schema", "test_faketensor"))
        y_pre, pre = torch.ops.spio.linear_activation_pre(x, w, b, activation)
        assert torch.equal(y_pre, y)
        want_pre = x.double() @ w.double().t() + b.double()
        close(pre, want_pre, want_pre.abs().max().item())
    torch.library.opcheck(torch.ops.spio.linear_activation_pre.default, (x, w, b, activation),
                          test_utils=("test_schema", "test_faketensor",
                                      "test_autograd_registration"))
    layer = spio.nn.Linear(256, 520, device="cuda", dtype=torch.bfloat16, activation=activation)
    with torch.no_grad():
        layer.weight.copy_(w)
        layer.bias.copy_(b)
    xs = x.clone().requires_grad_()
    x32 = x.float().requires_grad_()
    w32 = w.float().requires_grad_()
    b32 = b.float().requires_grad_()
    y = layer(xs)
    with torch.no_grad():
        assert torch.equal(y, spio.linear(x, w, b, activation=activation))
    gradients_close(y, function(x32 @ w32.t() + b32),
                    [(xs, x32), (layer.weight, w32), (layer.bias, b32)])
    with pytest.raises(spio.SpioError, match="activation is one of"):
        spio.linear(x, w, b, activation="tanh")


@gpu
@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0),
                    reason="grouped GEMMs run on Hopper")
def test_grouped_mm_takes_each_groups_matrix_and_reads_the_sizes_on_the_device():
    """Groups of random sizes, an empty one and a ragged last one: each
    group's rows times its matrix, bit-identical run to run."""
    generator = torch.Generator(device="cuda").manual_seed(11)
    a = torch.randn(1000, 256, device="cuda", dtype=torch.bfloat16, generator=generator)
    w = torch.randn(6, 384, 256, device="cuda", dtype=torch.bfloat16, generator=generator)
    ends = torch.tensor([100, 100, 357, 600, 999, 1000], device="cuda", dtype=torch.int32)
    with torch.no_grad():
        d = spio.grouped_mm(a, w.transpose(1, 2), ends)
        begin = 0
        for g, end in enumerate(ends.tolist()):
            if end > begin:
                want = a[begin:end].float() @ w[g].float().t()
                close(d[begin:end], want, want.abs().max().item())
            begin = end
        assert torch.equal(d, spio.grouped_mm(a, w.transpose(1, 2), ends))
        # The registered operator: traced by torch.compile, the same bits.
        compiled = torch.compile(lambda x, y, z: spio.grouped_mm(x, y, z), fullgraph=True)
        assert torch.equal(compiled(a, w.transpose(1, 2), ends), d)
        torch.library.opcheck(torch.ops.spio.grouped_mm.default, (a, w.transpose(1, 2), ends),
                              test_utils=("test_schema", "test_faketensor"))
        # b stored (G, K, N) (read in place: K is a multiple of 64), or
        # strided otherwise (copied): the same products.
        scale = d.float().abs().max().item()
        close(spio.grouped_mm(a, w.transpose(1, 2).contiguous(), ends), d.float(), scale)
        close(spio.grouped_mm(a, w.transpose(1, 2)[:, :, ::2], ends), d[:, ::2].float(), scale)
        with pytest.raises(spio.SpioError, match="offs"):
            spio.grouped_mm(a, w.transpose(1, 2), ends.long())


@gpu
@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0),
                    reason="grouped GEMMs run on Hopper")
@pytest.mark.parametrize("stored", ["(G, N, K)", "(G, K, N)"])
def test_grouped_mm_backward_gives_each_groups_gradients(stored):
    """dA and dB against float64 per group (an empty group, groups cut
    inside a k-tile, N not a multiple of 64), dB stored as b is, the same
    bits on a rerun; the gradient operators' schemas and fake tensors."""
    generator = torch.Generator(device="cuda").manual_seed(12)
    groups, m, k, n = 5, 700, 192, 200
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=generator)
    w = torch.randn(groups, n, k, device="cuda", dtype=torch.bfloat16, generator=generator)
    ends = torch.tensor([130, 130, 333, 650, 700], device="cuda", dtype=torch.int32)
    dd = torch.randn(m, n, device="cuda", dtype=torch.bfloat16, generator=generator)

    def gradients():
        x = a.clone().requires_grad_()
        leaf = (w.clone() if stored == "(G, N, K)" else w.transpose(1, 2).contiguous())
        leaf.requires_grad_()
        b = leaf.transpose(1, 2) if stored == "(G, N, K)" else leaf
        spio.grouped_mm(x, b, ends).backward(dd)
        db = leaf.grad.transpose(1, 2) if stored == "(G, N, K)" else leaf.grad
        return x.grad, db, b.detach()

    da, db, b = gradients()
    begin = 0
    for g, end in enumerate(ends.tolist()):
        rows = slice(begin, end)
        want_da = dd[rows].double() @ b[g].double().t()
        want_db = a[rows].double().t() @ dd[rows].double()
        if end > begin:
            close(da[rows], want_da, want_da.abs().max().item())
            close(db[g], want_db, want_db.abs().max().item())
        else:
            assert torch.count_nonzero(db[g]) == 0
        begin = end
    again = gradients()
    assert torch.equal(da, again[0]) and torch.equal(db, again[1])
    for op, args in ((torch.ops.spio.grouped_mm_dx.default, (dd, b, ends)),
                     (torch.ops.spio.grouped_mm_dw.default, (a, dd, ends, b))):
        torch.library.opcheck(op, args, test_utils=("test_schema", "test_faketensor"))


# Row counts across the chooser's regimes: swapped small M (8 to 64 wide),
# a block a tile under and over a wave, persistent, ping-pong and cluster
# grids, ragged edges.
BATCH_INVARIANT_ROWS = (1, 2, 3, 7, 8, 9, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129,
                        255, 256, 300, 511, 512, 777, 1000, 1024, 1500, 2047, 2048)


@gpu
@pytest.mark.parametrize("n,k,bias", [(4096, 4096, True), (1000, 2056, False),
                                      (6144, 4096, False), (4096, 14336, False)])
def test_batch_invariant_rows_have_the_same_bits_for_every_batch(n, k, bias):
    generator = torch.Generator(device="cuda").manual_seed(3)
    x = torch.randn(2048, k, device="cuda", dtype=torch.bfloat16, generator=generator)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=generator)
    b = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=generator) if bias else None
    spio.set_batch_invariant(True)
    try:
        full = spio.linear(x, w, b)
        for m in BATCH_INVARIANT_ROWS:
            rows = spio.linear(x[:m], w, b)
            assert torch.equal(rows.view(torch.int16), full[:m].view(torch.int16)), f"M = {m}"
    finally:
        spio.set_batch_invariant(False)
    want = x.float() @ w.float().t() + (b.float() if bias else 0)
    close(full, want, want.abs().max().item())


@gpu
@pytest.mark.parametrize("heads,m,n,k", [(6, 200, 136, 64), (4, 128, 256, 512)])
def test_bmm_with_gradients_and_transposed_views(heads, m, n, k):
    """q @ k.transpose(1, 2) reads k in place (wgmma on Hopper); the
    gradients take the other layouts."""
    generator = torch.Generator(device="cuda").manual_seed(5)
    q = torch.randn(heads, m, k, device="cuda", dtype=torch.bfloat16, generator=generator)
    keys = torch.randn(heads, n, k, device="cuda", dtype=torch.bfloat16, generator=generator)
    q.requires_grad_()
    keys.requires_grad_()
    scores = spio.bmm(q, keys.transpose(1, 2))
    q32 = q.detach().float().requires_grad_()
    k32 = keys.detach().float().requires_grad_()
    want = torch.bmm(q32, k32.transpose(1, 2))
    close(scores, want, want.abs().max().item())
    gradients_close(scores, want, [(q, q32), (keys, k32)])
    again = spio.bmm(q.detach(), keys.detach().transpose(1, 2))
    assert torch.equal(again.view(torch.int16), scores.detach().view(torch.int16))


@gpu
def test_opcheck():
    x, weight, bias = conv_inputs()
    torch.library.opcheck(torch.ops.spio.conv2d_gw8.default, (x, weight, bias, 1, [1, 1]))
    # With gradients, and the weight channels_last as a converted model's is.
    x, weight, bias = (t.requires_grad_() for t in conv_inputs(r=5, s=3))
    weight = weight.detach().to(memory_format=torch.channels_last).requires_grad_()
    torch.library.opcheck(torch.ops.spio.conv2d_gw8.default, (x, weight, bias, 2, [2, 1]))
    dy = torch.randn(2, 64, 10, 10, device="cuda", dtype=torch.float16).to(
        memory_format=torch.channels_last)
    torch.library.opcheck(torch.ops.spio.conv2d_gw8_dgrad.default,
                          (dy, weight.detach(), [2, 64, 20, 20], 2, [2, 1]))
    torch.library.opcheck(torch.ops.spio.conv2d_gw8_wgrad.default,
                          (x.detach(), dy, [5, 3], 2, [2, 1]))
    torch.library.opcheck(torch.ops.spio.conv2d_gw8_wgrad_bias.default,
                          (x.detach(), dy, [5, 3], 2, [2, 1]))
    # Depthwise: weight (C, 1, R, S), dw the same.
    x, weight, bias = (t.requires_grad_() for t in conv_inputs(group_width=1))
    torch.library.opcheck(torch.ops.spio.conv2d_gw8.default, (x, weight, bias, 1, [1, 1]))
    dy = torch.randn(2, 64, 20, 20, device="cuda", dtype=torch.float16).to(
        memory_format=torch.channels_last)
    torch.library.opcheck(torch.ops.spio.conv2d_gw8_wgrad.default,
                          (x.detach(), dy, [3, 3], 1, [1, 1], 1))
    a = torch.randn(64, 128, device="cuda", dtype=torch.float16)
    w = torch.randn(32, 128, device="cuda", dtype=torch.float16)
    torch.library.opcheck(torch.ops.spio.bmm.default,
                          (a.reshape(4, 16, 128), w.reshape(4, 8, 128).transpose(1, 2)))
    torch.library.opcheck(torch.ops.spio.linear.default, (a, w, None))
    torch.library.opcheck(torch.ops.spio.linear.default,
                          (a, w, torch.randn(32, device="cuda", dtype=torch.float16)))
    dy = torch.randn(64, 32, device="cuda", dtype=torch.float16)
    torch.library.opcheck(torch.ops.spio.mm_dw_accumulate.default,
                          (dy, a, torch.randn(32, 128, device="cuda")))


hopper = pytest.mark.skipif(
    not (spio.gpu_available() and torch.cuda.is_available() and
         torch.cuda.get_device_capability() == (9, 0)),
    reason="needs a Hopper GPU (the dense conv2d runs on wgmma)")


def dense_inputs(n, c, k, h, w, r, s, dtype=torch.bfloat16, seed=0, groups=1):
    generator = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(n, c, h, w, device="cuda", dtype=dtype, generator=generator)
    weight = torch.randn(k, c // groups, r, s, device="cuda", dtype=dtype,
                         generator=generator) / (r * s)
    bias = torch.randn(k, device="cuda", dtype=dtype, generator=generator)
    return x.to(memory_format=torch.channels_last), weight, bias


@gpu
@pytest.mark.parametrize("pass_", ["fprop", "dgrad", "wgrad"])
def test_dense_conv2d_on_the_mma_sync_kernel(pass_):
    """The configuration chosen for an sm_80 part (the mma.sync kernel,
    which later GPUs run too) through the C API's launcher, whose plan
    reads no tensor maps: each pass of a strided layer whose C and K are
    not multiples of 64, against float32 torch."""
    x, weight, _ = dense_inputs(2, 40, 72, 13, 11, 3, 3)
    args = spio.Conv2dArguments(2, 13, 11, 40, 72, 3, 3, (2, 2), (1, 1), (1, 1), "bf16",
                                pass_=pass_)
    family = spio.Conv2dFamily()
    kernel = spio.Kernel(family, family.chosen(args, spio.kernels.target("sm_80")))
    assert kernel.metadata.instruction == "mma.sync"
    assert kernel.metadata.min_compute_capability == (8, 0)
    launcher = kernel.launcher(args)
    dy = torch.randn(2, 72, 7, 6, device="cuda", dtype=torch.bfloat16).to(
        memory_format=torch.channels_last)
    x32, w32, dy32 = x.float(), weight.float(), dy.float()
    stream = _torch_ops._stream(x)
    if pass_ == "fprop":
        got = torch.empty_like(dy)
        _torch_ops._run(launcher, stream, (x, _torch_ops._krsc(weight), got, None, None, None))
        want = torch.nn.functional.conv2d(x32, w32, None, 2, 1)
    elif pass_ == "dgrad":
        got = torch.empty_like(x)
        _torch_ops._run(launcher, stream, (dy, _torch_ops._krsc(weight), got, None, None, None))
        want = torch.nn.grad.conv2d_input(x.shape, w32, dy32, 2, 1)
    else:
        got = torch.empty_like(weight).contiguous(memory_format=torch.channels_last)
        _torch_ops._run(launcher, stream, (x, dy, got, None, None, None))
        want = torch.nn.grad.conv2d_weight(x32, weight.shape, dy32, 2, 1)
    close(got, want, want.abs().max().item() * 4)


@hopper
@pytest.mark.parametrize("c,k,hw,rs,stride,padding,dilation,dtype", [
    (64, 64, (20, 20), (3, 3), 1, 1, 1, torch.bfloat16),
    (40, 72, (13, 11), (3, 3), 2, 1, 1, torch.float16),
    (24, 48, (17, 9), (5, 3), (2, 1), (2, 3), 2, torch.bfloat16),
    (256, 128, (14, 14), (1, 1), 2, 0, 1, torch.bfloat16),
    (16, 32, (20, 20), (7, 7), 2, 3, 1, torch.float16),
    (128, 40, (15, 19), (3, 5), (2, 1), (1, 2), (1, 2), torch.float16)])
def test_dense_conv2d_forward_and_gradients(c, k, hw, rs, stride, padding, dilation, dtype):
    x, weight, bias = dense_inputs(2, c, k, *hw, *rs, dtype)
    x.requires_grad_(), weight.requires_grad_(), bias.requires_grad_()
    y = spio.conv2d(x, weight, bias, stride, padding, dilation)
    assert y.is_contiguous(memory_format=torch.channels_last)
    x32, w32, b32 = (t.detach().float().requires_grad_() for t in (x, weight, bias))
    y32 = torch.nn.functional.conv2d(x32, w32, b32, stride, padding, dilation)
    assert y.shape == y32.shape
    close(y, y32, y32.abs().max().item() * (4 if dtype == torch.bfloat16 else 1))
    # dx on Spio's dgrad kernel where the taps read one phase of dx (at
    # stride 1, and the 5x3 stride-2 dilation-2 and 1x1 stride-2 layers,
    # whose other phases it zeroes), dw on its wgrad kernel (C not a
    # multiple of 64: each tap's columns padded); dbias on cuDNN, in the
    # inputs' dtype.
    dy = torch.randn_like(y)
    y.backward(dy)
    y32.backward(dy.float())
    for t, t32 in ((x, x32), (weight, w32), (bias, b32)):
        scale = t32.grad.abs().max().item() * (4 if dtype == torch.bfloat16 else 1)
        close(t.grad, t32.grad, scale)
    def launchers(kind):
        return [launcher for key, launcher in spio._torch_ops._launchers.items()
                if key[0] == kind and key[2] == x.shape and key[3] == weight.shape]
    dgrad, wgrad = launchers("dense_dgrad"), launchers("dense_wgrad")
    pair = spio._torch_ops._pair
    one_phase = spio._torch_ops._dgrad_phases(rs, pair(stride, "stride"),
                                              pair(padding, "padding"),
                                              pair(dilation, "dilation")) == 1
    assert len(dgrad) == int(one_phase) and all(launcher is not None for launcher in dgrad)
    assert len(wgrad) == 1 and wgrad[0] is not None
    # dw has the same bits every run.
    first = weight.grad.clone()
    weight.grad = None
    spio.conv2d(x, weight, bias, stride, padding, dilation).backward(dy, inputs=[weight])
    assert torch.equal(weight.grad, first)


@hopper
def test_dense_conv2d_bits_formats_and_operator():
    x, weight, bias = dense_inputs(4, 64, 96, 28, 28, 3, 3)
    first = spio.conv2d(x, weight, bias, 1, 1)
    for _ in range(5):
        assert torch.equal(spio.conv2d(x, weight, bias, 1, 1), first)
    # An NCHW input is copied into channels_last: the same bits.
    assert torch.equal(spio.conv2d(x.contiguous(), weight, bias, 1, 1), first)
    torch.library.opcheck(torch.ops.spio.conv2d.default,
                          (x, weight, bias, [1, 1], [1, 1], [1, 1]))
    compiled = torch.compile(lambda x: spio.conv2d(x, weight, bias, 1, 1), fullgraph=True)
    assert torch.equal(compiled(x), first)


@hopper
@pytest.mark.parametrize("c,k,stride", [(64, 64, 1), (3, 64, 1), (64, 128, 2)])
def test_dense_conv2d_backward_under_torch_compile(c, k, stride):
    # A training step traced by torch.compile reaches the backward's
    # operators (spio::conv2d_dgrad, spio::conv2d_wgrad) with fake tensors:
    # dx and dw are Spio's bits, as eager; the layers Spio's dgrad does not
    # take (a 3x3 stride-2 layer's phases, an RGB stem's input) leave dx to
    # cuDNN there too, as does dbias.
    x, weight, bias = dense_inputs(2, c, k, 16, 16, 3, 3, seed=c + k)
    dy = None
    grads = []
    for run in (lambda *a: spio.conv2d(*a, stride, 1),
                torch.compile(lambda *a: spio.conv2d(*a, stride, 1))):
        leaves = [t.detach().clone().requires_grad_() for t in (x, weight, bias)]
        y = run(*leaves)
        dy = torch.randn_like(y) if dy is None else dy
        y.backward(dy)
        grads.append([t.grad for t in leaves])
    (dx, dw, db), (dx_compiled, dw_compiled, db_compiled) = grads
    spio_dgrad = c % 8 == 0 and stride == 1
    assert torch.equal(dw_compiled, dw)
    if spio_dgrad:
        assert torch.equal(dx_compiled, dx)
    torch.testing.assert_close(dx_compiled, dx)
    torch.testing.assert_close(db_compiled, db)
    if spio_dgrad:
        torch.library.opcheck(torch.ops.spio.conv2d_dgrad.default,
                              (dy, weight, list(x.shape), [1, 1], [1, 1], [1, 1], 1))
    elif c % 8:
        # Called for a layer the kernels do not take, the operator says so.
        with pytest.raises(spio.SpioError, match="dgrad does not take"):
            torch.ops.spio.conv2d_dgrad(dy, weight, list(x.shape), [1, 1], [1, 1], [1, 1], 1)
    torch.library.opcheck(torch.ops.spio.conv2d_wgrad.default,
                          (dy, x, list(weight.shape), [stride] * 2, [1, 1], [1, 1], 1))
    # dw of 60 output channels (not a multiple of 8): the wgrad operator
    # refuses it with the reason.
    with pytest.raises(spio.SpioError, match="wgrad does not take"):
        torch.ops.spio.conv2d_wgrad(dy[:, :60], x, [60, c, 3, 3], [stride] * 2, [1, 1], [1, 1],
                                    1)


@hopper
def test_dense_conv2d_layers_and_transform():
    torch.manual_seed(3)
    net = torch.nn.Sequential(torch.nn.Conv2d(64, 128, 3, padding=1), torch.nn.ReLU(),
                              torch.nn.Conv2d(128, 128, 3, stride=2, padding=2, dilation=2,
                                              bias=False),
                              torch.nn.Conv2d(3, 8, 3)).cuda().to(torch.bfloat16)
    x = torch.randn(2, 64, 24, 24, device="cuda", dtype=torch.bfloat16)
    want = net[2](net[1](net[0](x)))
    image = torch.randn(2, 3, 20, 18, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    rgb_want = net[3](image)
    rgb_dw = torch.autograd.grad(rgb_want.float().sum(), net[3].weight)[0]
    weight = net[0].weight
    spio.transform(net)
    assert isinstance(net[0], spio.nn.Conv2d) and isinstance(net[2], spio.nn.Conv2d)
    # The shared parameter, made channels_last once: the kernels' KRSC
    # weights, read without a copy each call.
    assert net[0].weight is weight
    assert weight.is_contiguous(memory_format=torch.channels_last)
    assert spio._torch_ops._krsc(weight) is weight
    got = net[2](net[1](net[0](x)))
    close(got, want.float(), want.abs().max().item() * 4)
    # 3 input channels: the forward unfolds x into whole k-tiles first, and
    # so does the backward's dw (Spio's wgrad of the unfolded convolution,
    # folded back).
    assert isinstance(net[3], spio.nn.Conv2d)
    rgb = net[3](image)
    close(rgb, rgb_want.float(), rgb_want.abs().max().item() * 4)
    dw = torch.autograd.grad(rgb.float().sum(), net[3].weight)[0]
    close(dw, rgb_dw.float(), rgb_dw.abs().max().item() * 4)


def grouped_conv2d_matches_float32_every_run(x, weight, bias, stride, groups):
    """spio.conv2d of a grouped layer, its output and the gradients of x,
    weight and bias against float32's, then the same bits on a second run;
    returns the first run's (y, dx, dw) and the float32 input."""
    x.requires_grad_(), weight.requires_grad_(), bias.requires_grad_()
    y = spio.conv2d(x, weight, bias, stride, 1, groups=groups)
    x32, w32, b32 = (t.detach().float().requires_grad_() for t in (x, weight, bias))
    y32 = torch.nn.functional.conv2d(x32, w32, b32, stride, 1, groups=groups)
    close(y, y32, y32.abs().max().item() * 4)
    dy = torch.randn_like(y)
    y.backward(dy)
    y32.backward(dy.float())
    for t, t32 in ((x, x32), (weight, w32), (bias, b32)):
        close(t.grad, t32.grad, t32.grad.abs().max().item() * 4)
    assert weight.grad.shape == weight.shape
    first = (y.detach().clone(), x.grad.clone(), weight.grad.clone())
    x.grad = weight.grad = bias.grad = None
    again = spio.conv2d(x, weight, bias, stride, 1, groups=groups)
    again.backward(dy)
    assert torch.equal(again, first[0]) and torch.equal(x.grad, first[1]) and \
        torch.equal(weight.grad, first[2])
    return first, x32.detach()


@hopper
@pytest.mark.parametrize("c,k,groups,stride", [(256, 512, 2, 1), (512, 512, 8, 2),
                                               (256, 256, 4, (2, 1))])
def test_wide_groups_run_on_the_implicit_gemm(c, k, groups, stride):
    # Groups of a multiple of 64 channels (RegNet's, ResNeXt's wide ones):
    # forward, dx and dw on the implicit GEMM, against float32 and with the
    # same bits every run.
    x, weight, bias = dense_inputs(2, c, k, 14, 14, 3, 3, groups=groups, seed=groups)
    grouped_conv2d_matches_float32_every_run(x, weight, bias, stride, groups)
    kinds = {key[0] for key in spio._torch_ops._launchers
             if key[0].startswith("dense") and groups in key and key[2] == x.shape}
    # Grouped, dx is Spio's at any stride (a kernel a phase of dx).
    assert {"dense_dgrad", "dense_wgrad"} <= kinds
    torch.library.opcheck(torch.ops.spio.conv2d.default,
                          (x.detach(), weight.detach(), bias.detach(), list(spio._torch_ops._pair(
                              stride, "stride")), [1, 1], [1, 1], groups))


def test_routing_mirrors_the_librarys_blocks_of_narrow_groups():
    # spio.conv2d's routing mirrors conv2dBlockGroups (its gtest's table):
    # the most groups dividing G that fit 64 channels, or 128 where under
    # 32; tiles of 16 columns (11 groups of 16, no block) stay cuDNN's.
    from spio import _torch_ops
    for channels, groups, block in ((144, 9, 3), (784, 49, 7), (120, 5, 5), (512, 32, 4),
                                    (336, 14, 2), (176, 11, 1), (432, 9, 1)):
        assert _torch_ops._block_groups(channels, groups) == block
    assert _torch_ops.implicit_gemm_groups(176, 176, 11) is None
    assert _torch_ops.implicit_gemm_groups(144, 144, 9) == 9
    assert _torch_ops.implicit_gemm_groups(64, 128, 8) is None


@hopper
def test_wide_group_layers_and_transform():
    torch.manual_seed(9)
    net = torch.nn.Sequential(torch.nn.Conv2d(128, 128, 3, padding=1, groups=2),
                              torch.nn.Conv2d(128, 128, 3, padding=1, groups=4),
                              torch.nn.Conv2d(128, 96, 3, padding=1, groups=4),
                              torch.nn.Conv2d(96, 96, 3, padding=1, groups=8)
                              ).cuda().to(torch.bfloat16)
    x = torch.randn(2, 128, 16, 16, device="cuda", dtype=torch.bfloat16)
    want = net(x)
    twelve = net[3]
    spio.transform(net)
    # Groups of 64 and of 32 channels on the implicit GEMM, and of 32
    # inputs and 24 outputs (w's taps padded to 64 channels); of 12,
    # neither family.
    assert all(type(net[i]) is spio.nn.Conv2d for i in range(3))
    assert net[3] is twelve and net[0].stride == (1, 1)
    got = net(x)
    close(got, want.float(), want.abs().max().item() * 4)
    with pytest.raises(spio.SpioError, match="or of a multiple of 8 input and output channels"):
        spio.nn.Conv2d.from_torch(twelve)
    # Groups of 8 inputs and 16 outputs would take tiles of 16 columns:
    # cuDNN's. Groups of 16 on 144 channels are blocks of 3 (48 columns).
    assert not spio.nn.supports(torch.nn.Conv2d(64, 128, 3, padding=1, groups=8))
    assert spio.nn.supports(torch.nn.Conv2d(144, 144, 3, padding=1, groups=9))
    with pytest.raises(spio.SpioError, match="is not a conv2d with groups"):
        spio.nn.Conv2dGw8.from_torch(torch.nn.Conv2d(128, 128, 3, groups=2))


@hopper
@pytest.mark.parametrize("c,k,groups,stride", [(432, 432, 9, 1), (240, 240, 10, 2),
                                               (120, 120, 5, 1), (256, 192, 4, 1),
                                               (144, 144, 9, 2), (144, 144, 9, 1)])
def test_groups_of_other_widths_run_forward_on_padded_weights(c, k, groups, stride):
    # RegNet's groups of 48 and 24 channels, 64 inputs to 48 outputs, and
    # 9 groups of 16 (blocks of 3 groups' block-diagonal weights):
    # forward, dx and dw on the implicit GEMM (each tap of w padded to 64
    # channels in the workspace; dgrad's transposed; wgrad's dw' of groups'
    # rows and taps padded, reduced into dw); against float32 and the same
    # bits every run.
    x, weight, bias = dense_inputs(2, c, k, 14, 14, 3, 3, groups=groups, seed=c + groups)
    first = grouped_conv2d_matches_float32_every_run(x, weight, bias, stride, groups)[0]
    if c == 144 and stride == 1:
        # The routing's block rule (a C call) is a constant to torch.compile.
        compiled = torch.compile(lambda x: spio.conv2d(x, weight.detach(), bias.detach(), 1, 1,
                                                       groups=groups), fullgraph=True)
        with torch.no_grad():
            assert torch.equal(compiled(x.detach()), first[0])
    launchers = spio._torch_ops._launchers
    assert any(key[:2] == ("dense", x.shape) and groups in key for key in launchers)
    taken = {key[0]: launcher is not None for key, launcher in launchers.items()
             if key[0] in ("dense_dgrad", "dense_wgrad") and key[2] == x.shape and groups in key}
    assert taken == {"dense_dgrad": True, "dense_wgrad": True}
    torch.library.opcheck(torch.ops.spio.conv2d.default,
                          (x.detach(), weight.detach(), bias.detach(), [stride, stride], [1, 1],
                           [1, 1], groups))


@hopper
@pytest.mark.parametrize("c,groups,stride", [(512, 32, 1), (256, 8, 2), (128, 4, 1)])
def test_groups_of_16_and_32_channels_run_as_block_diagonal_groups_of_64(c, groups, stride):
    # ResNeXt's groups of 16 and 32 channels: the implicit GEMM on blocks of
    # 64 channels whose weights are block-diagonal, the gradients through
    # autograd (dw the blocks' diagonal), against float32, the same bits
    # every run.
    x, weight, bias = dense_inputs(2, c, c, 14, 14, 3, 3, groups=groups, seed=c)
    first, x32 = grouped_conv2d_matches_float32_every_run(x, weight, bias, stride, groups)
    # A weight of another group's width is refused before any launch.
    with pytest.raises(spio.SpioError, match="a conv2d's weight is"):
        spio.conv2d(x.detach(), weight.detach()[:, : c // groups // 2], None, stride, 1,
                    groups=groups)
    # The expanded weights' convolution is the grouped one: blocks of 64.
    expanded = spio._torch_ops._block_diagonal(weight.detach())
    assert expanded.shape == (c, 64, 3, 3)
    assert expanded.is_contiguous(memory_format=torch.channels_last)
    grouped = torch.nn.functional.conv2d(x32.detach(), weight.detach().float(), None, stride, 1,
                                         groups=groups)
    close(torch.nn.functional.conv2d(x32.detach(), expanded.float(), None, stride, 1,
                                     groups=c // 64), grouped, grouped.abs().max().item() / 64)
    compiled = torch.compile(lambda x: spio.conv2d(x, weight.detach(), bias.detach(), stride, 1,
                                                   groups=groups), fullgraph=True)
    with torch.no_grad():
        assert torch.equal(compiled(x.detach()), first[0])
    # Inference keeps a weight's expansion until the weight changes.
    frozen = weight.detach().clone()
    with torch.no_grad():
        kept = spio._torch_ops._block_diagonal_weights(frozen)
        assert spio._torch_ops._block_diagonal_weights(frozen) is kept
        assert torch.equal(spio.conv2d(x.detach(), frozen, bias.detach(), stride, 1,
                                       groups=groups), first[0])
        frozen.mul_(2)
        doubled = spio._torch_ops._block_diagonal_weights(frozen)
        assert doubled is not kept and torch.equal(doubled, kept * 2)
        # New storage under the same tensor: expanded again.
        frozen.data = weight.detach().clone()
        assert torch.equal(spio._torch_ops._block_diagonal_weights(frozen), kept)


@gpu
def test_conv2d_routes_by_groups_and_says_why_not():
    x, weight, bias = conv_inputs()
    # Groups of 8 channels: conv2d_gw8's kernels, the same bits.
    assert torch.equal(spio.conv2d(x, weight, bias, 1, 1, groups=8),
                       spio.conv2d_gw8(x, weight, bias, 1, (1, 1)))
    with pytest.raises(spio.SpioError, match="got groups=3"):
        spio.conv2d(x, torch.randn(63, 21, 3, 3, device="cuda", dtype=x.dtype), None, 1, 1,
                    groups=3)
    rgb = torch.randn(1, 6, 16, 16, device="cuda", dtype=torch.float16)
    with pytest.raises(spio.SpioError, match="got groups=2"):
        spio.conv2d(rgb, torch.randn(8, 3, 3, 3, device="cuda", dtype=torch.float16), groups=2)
    with pytest.raises(spio.SpioError, match="weight is"):
        spio.conv2d(x, weight.float()[:, :1].expand(64, 64, 3, 3).contiguous())


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(64, 64, 3, padding=1, groups=8)
        self.head = torch.nn.Linear(64, 16)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.head(y.mean((2, 3)))


def test_transform_swaps_matching_modules():
    net = spio.transform(Net())
    assert isinstance(net.conv, spio.nn.Conv2dGw8)
    depthwise = spio.transform(torch.nn.Sequential(torch.nn.Conv2d(96, 96, 5, 2, 2, groups=96)))
    assert isinstance(depthwise[0], spio.nn.Conv2dGw8) and depthwise[0].weight.shape[1] == 1
    assert isinstance(net.head, spio.nn.Linear)
    # Groups of 3 channels: no width of the grouped family, no multiple of 8.
    other = torch.nn.Conv2d(24, 24, 3, groups=8)
    with pytest.raises(spio.SpioError, match="groups of 1, 2, 4 or 8 channels"):
        spio.nn.Conv2dGw8.from_torch(other)
    with pytest.raises(spio.SpioError, match="is not a torch.nn.Linear"):
        spio.nn.Linear.from_torch(other)
    # Any sizes: operands whose rows are not 16-byte multiples are packed.
    mixed = torch.nn.Sequential(torch.nn.Linear(64, 10), other)
    spio.transform(mixed)
    assert isinstance(mixed[0], spio.nn.Linear) and mixed[1] is other


@gpu
@pytest.mark.parametrize("c,group_width,hw,rs,padding,dilation", [
    (64, 1, (20, 20), (3, 3), (2, 2), (2, 2)),
    (96, 1, (17, 13), (5, 5), (4, 4), (2, 2)),
    (64, 8, (15, 16), (3, 3), (1, 3), (2, 3)),
    (48, 2, (14, 14), (3, 5), (0, 0), (2, 2)),
    (32, 4, (13, 11), (3, 3), (4, 4), (4, 4)),
    (64, 1, (9, 9), (7, 7), (6, 6), (2, 2)),
])
def test_dilated_narrow_groups_run_on_the_phase_images(c, group_width, hw, rs, padding,
                                                       dilation):
    # DeepLab's and LR-ASPP's dilated depthwise layers: each phase image of
    # x convolved by conv2d_gw8's kernels (the phases as images of the
    # batch), forward and backward, against float32, the same bits every
    # run, and (one case: torch.compile is slow) the same bits compiled.
    groups = c // group_width
    x, weight, bias = dense_inputs(2, c, c, *hw, *rs, dtype=torch.float16, seed=c + rs[0],
                                   groups=groups)
    x, weight, bias = (t.detach().requires_grad_() for t in (x, weight, bias))
    y = spio.conv2d(x, weight, bias, 1, padding, dilation, groups)
    x32, w32, b32 = (t.detach().float().requires_grad_() for t in (x, weight, bias))
    y32 = torch.nn.functional.conv2d(x32, w32, b32, 1, padding, dilation, groups)
    assert y.shape == y32.shape and y.is_contiguous(memory_format=torch.channels_last)
    close(y, y32, y32.abs().max().item())
    gradients_close(y, y32, ((x, x32), (weight, w32), (bias, b32)))
    dy = torch.randn_like(y)

    def run():
        leaves = [t.detach().clone().requires_grad_() for t in (x, weight, bias)]
        out = spio.conv2d(*leaves, 1, padding, dilation, groups)
        out.backward(dy)
        return [out.detach()] + [t.grad for t in leaves]

    eager = run()
    for first, second in zip(eager, run()):
        assert torch.equal(first, second)
    if group_width == 8:
        with torch.no_grad():
            compiled = torch.compile(lambda x: spio.conv2d(x, weight, bias, 1, padding,
                                                           dilation, groups), fullgraph=True)
            assert torch.equal(compiled(x), y)
        # A compiled training step: the phases' copies and their transposes
        # traced, the kernels' operators opaque; the same bits.
        step = torch.compile(lambda *t: spio.conv2d(*t, 1, padding, dilation, groups),
                             fullgraph=True)
        leaves = [t.detach().clone().requires_grad_() for t in (x, weight, bias)]
        out = step(*leaves)
        out.backward(dy)
        for first, second in zip(eager, [out.detach()] + [t.grad for t in leaves]):
            assert torch.equal(first, second)
    # The layer and spio.transform take it.
    conv = torch.nn.Conv2d(c, c, rs, padding=padding, dilation=dilation, groups=groups).cuda()
    conv = conv.half()
    net = spio.transform(torch.nn.Sequential(conv))
    assert isinstance(net[0], spio.nn.Conv2d)
    with torch.no_grad():
        assert torch.equal(net(x), spio.conv2d(x, conv.weight, conv.bias, 1, padding, dilation,
                                               groups))


def test_dilated_narrow_groups_refuse_what_no_convolution_means():
    # Refused before any kernel is asked (CPU tensors do): dilation 0 would
    # divide by zero in the phases' geometry, negative padding has no phase
    # image, a kernel reaching past the padded input no output.
    x = torch.zeros(1, 8, 6, 6, dtype=torch.float16)
    w = torch.zeros(8, 1, 3, 3, dtype=torch.float16)
    for dilation, padding, why in ((0, 1, "dilation >= 1"), ((2, -1), 1, "dilation >= 1"),
                                   (2, -1, "padding >= 0"), (4, 0, "does not fit")):
        with pytest.raises(spio.SpioError, match=why):
            spio.conv2d(x, w, None, 1, padding, dilation, 8)


def test_supports_says_which_modules_transform_takes_and_why_not():
    assert spio.nn.supports(torch.nn.Linear(10, 3))
    assert spio.nn.supports(torch.nn.Conv2d(96, 96, 7, padding=3, groups=96))
    assert spio.nn.supports(torch.nn.Conv2d(96, 96, 3, padding=4, dilation=4, groups=96))
    assert spio.nn.supports(torch.nn.Conv2d(64, 64, 3, stride=2, padding=1, groups=16))
    # 3 groups of 16 channels: one block of block-diagonal weights.
    assert spio.nn.supports(torch.nn.Conv2d(48, 48, 3, groups=3))
    relu = spio.nn.supports(torch.nn.ReLU())
    assert not relu and relu.reason == "ReLU has no Spio layer"
    for conv, why in ((torch.nn.Conv2d(24, 24, 3, groups=8), "groups of 1, 2, 4 or 8 channels"),
                      (torch.nn.Conv2d(64, 128, 3, groups=8), "C in = C out"),
                      (torch.nn.Conv2d(64, 64, 3, stride=2, dilation=2, groups=8),
                       "dilated ones at stride 1"),
                      (torch.nn.Conv2d(64, 64, 9, groups=64), "1 to 7, got 9x9"),
                      (torch.nn.Conv2d(64, 64, 3, padding="same", groups=8), "zero padding")):
        support = spio.nn.supports(conv)
        assert not support and re.search(why, support.reason), (conv, support.reason)
        with pytest.raises(spio.SpioError, match=why):
            spio.nn.Conv2d.from_torch(conv)


def test_conv2d_layer_takes_groups():
    # spio.nn.Conv2d mirrors torch.nn.Conv2d's arguments, groups included.
    layer = spio.nn.Conv2d(64, 64, 5, stride=2, padding=2, groups=64, bias=False)
    assert layer.groups == 64 and layer.stride == 2 and layer.bias is None
    assert layer.weight.shape == (64, 1, 5, 5)
    assert layer.weight.is_contiguous(memory_format=torch.channels_last)
    grouped = spio.nn.Conv2dGw8(32, group_width=4)
    assert isinstance(grouped, spio.nn.Conv2d) and grouped.groups == 8
    with pytest.raises(spio.SpioError, match="groups of 1, 2, 4 or 8 channels"):
        spio.nn.Conv2d(96, 96, 3, groups=8)
    with pytest.raises(spio.SpioError, match="is not a conv2d with groups"):
        spio.nn.Conv2dGw8.from_torch(torch.nn.Conv2d(64, 64, 3))


@gpu
def test_conv2d_layer_with_groups_runs_the_grouped_kernels():
    torch.manual_seed(5)
    conv = torch.nn.Conv2d(64, 64, 3, padding=1, groups=16).cuda().half()
    layer = spio.nn.Conv2d.from_torch(conv)
    x = conv_inputs(h=12, w=12, group_width=4)[0].requires_grad_()
    y = layer(x)
    assert torch.equal(y, spio.conv2d_gw8(x.detach(), conv.weight, conv.bias, 1, (1, 1)))
    y32 = torch.nn.functional.conv2d(x.detach().float(), conv.weight.detach().float(),
                                     conv.bias.detach().float(), padding=1, groups=16)
    close(y, y32, y32.abs().max().item())
    y.float().square().mean().backward()
    assert x.grad is not None and conv.weight.grad is not None


def test_layers_the_kernels_refuse_are_not_swapped():
    # Grouped by 8 but outside what the kernels check (R and S from 1 to
    # 7, stride 1 or 2): refused when made, and left by transform rather
    # than failing at the first forward. Any padding is taken.
    wide = torch.nn.Conv2d(64, 64, 9, padding=4, groups=8)
    with pytest.raises(spio.SpioError, match="1 to 7, got 9x9"):
        spio.nn.Conv2dGw8.from_torch(wide)
    strided = torch.nn.Conv2d(64, 64, 3, stride=3, padding=1, groups=8)
    with pytest.raises(spio.SpioError, match="strides of 1 or 2"):
        spio.nn.Conv2dGw8.from_torch(strided)
    with pytest.raises(spio.SpioError, match="1 to 7"):
        spio.nn.Conv2dGw8(64, kernel_size=(3, 8), padding=1)
    padded = torch.nn.Conv2d(64, 64, 1, padding=1, groups=8)
    net = torch.nn.Sequential(wide, strided, padded,
                              torch.nn.Conv2d(64, 64, (5, 3), 2, (2, 1), groups=8))
    spio.transform(net)
    assert net[0] is wide and net[1] is strided
    assert isinstance(net[2], spio.nn.Conv2dGw8) and net[2].padding == (1, 1)
    assert isinstance(net[3], spio.nn.Conv2dGw8) and net[3].padding == (2, 1)


@gpu
def test_swapped_layer_takes_any_memory_format():
    # A converted model fed contiguous (NCHW) input, as most are: the layer
    # copies it into channels_last; values and gradients match PyTorch's.
    torch.manual_seed(2)
    conv = torch.nn.Conv2d(64, 64, 3, padding=1, groups=8).cuda().half()
    layer = spio.nn.Conv2dGw8.from_torch(conv)
    assert layer.weight is conv.weight
    assert conv.weight.is_contiguous(memory_format=torch.channels_last)
    x = conv_inputs(h=12, w=12)[0].contiguous().requires_grad_()
    assert not x.is_contiguous(memory_format=torch.channels_last)
    y = layer(x)
    y32 = torch.nn.functional.conv2d(x.detach().float(), conv.weight.detach().float(),
                                     conv.bias.detach().float(), padding=1, groups=8)
    close(y, y32, y32.abs().max().item())
    y.float().square().mean().backward()
    assert x.grad is not None and x.grad.shape == x.shape


@gpu
def test_torch_compile_fullgraph_matches_eager():
    net = spio.transform(Net()).cuda().half()
    x = conv_inputs(n=4, h=16, w=16)[0]
    eager = net(x)
    compiled = torch.compile(net, fullgraph=True)(x)
    # Spio's ops are opaque to the compiler; the ops around them may be
    # fused and rounded differently.
    torch.testing.assert_close(compiled, eager, rtol=2e-3, atol=2e-3)


@gpu
def test_bit_identical_training_steps():
    def step():
        torch.manual_seed(0)
        net = spio.transform(Net()).cuda().half()
        x = conv_inputs(n=4, h=16, w=16, seed=3)[0]
        net(x).float().square().mean().backward()
        return [p.grad.clone() for p in net.parameters()]
    for first, second in zip(step(), step()):
        assert torch.equal(first, second)


@gpu
def test_autotune_records_the_fastest_beside_the_ptx_cache(tmp_path, monkeypatch):
    """The library's autotuner keeps its result on disk, keyed by the device
    and the candidates' sources: a later tuning of the same candidates reads
    it (here an entry rewritten to name another candidate) without timing."""
    from spio import _capi
    monkeypatch.setenv("SPIO_CACHE_DIR", str(tmp_path))
    args = spio.Conv2dGw8Arguments(2, 192, 72, 72)
    family = spio.Conv2dGw8Family()
    configs = family.candidates(args)
    assert len(configs) > 1
    launchers = [spio.Kernel(family, c).launcher(args, 0) for c in configs]
    x, weight, bias = conv_inputs(n=2, c=192, h=72, w=72, seed=7)
    y = torch.empty_like(x)
    weight = weight.permute(0, 2, 3, 1).contiguous()  # KRSC
    tensors = {"x": x, "w": weight, "y": y}
    addresses = [tensors[name].data_ptr() if name in tensors else 0
                 for name in launchers[0].operands]
    key = "".join(family.source(args, c) + "\n" for c in configs)
    torch.cuda.synchronize()
    fastest = _capi.autotune(launchers, addresses, 0, key)
    assert 0 <= fastest < len(configs)
    (entry,) = (tmp_path / "autotune").glob("*.autotune")
    other = (fastest + 1) % len(configs)
    text = entry.read_text()
    assert text.endswith(f"\n{len(configs)} {fastest}\n")
    entry.write_text(text[:text.rindex("\n", 0, -1) + 1] + f"{len(configs)} {other}\n")
    assert _capi.autotune(launchers, addresses, 0, key) == other
    # Another candidate list is another key: timed again.
    assert 0 <= _capi.autotune(launchers[:2], addresses, 0, key + "x") < 2
    assert len(list((tmp_path / "autotune").glob("*.autotune"))) == 2


@gpu
def test_autotune_keeps_the_bits_of_the_chosen_kernel():
    """Autotuned fprop, dgrad (72x72 C192: 7 candidates) and wgrad (its
    stages and reduce lanes) against the heuristics' kernels: the same
    bits; the tuned shapes are kept."""
    from spio import _torch_ops
    x, weight, bias = conv_inputs(n=2, c=192, h=72, w=72, seed=5)
    x.requires_grad_()
    weight.requires_grad_()
    dy = None
    results = []
    for tune in (False, True):
        spio.set_autotune(tune)
        try:
            x.grad = weight.grad = None
            y = spio.conv2d_gw8(x, weight, bias)
            dy = torch.randn_like(y) if dy is None else dy
            y.backward(dy)
            results.append((y.detach().clone(), x.grad.clone(), weight.grad.clone()))
        finally:
            spio.set_autotune(False)
    assert spio.autotune_enabled() is False
    for untuned, tuned in zip(*results):
        assert torch.equal(untuned, tuned)
    # Keys start with the pass, then x's shape (dy's for dgrad).
    tuned = {key[0] for key in _torch_ops._tuned if tuple(key[1][1:3]) == (192, 72)}
    assert tuned == {"fprop", "dgrad", "wgrad"}


@gpu
def test_autotune_of_the_models_best_candidates(monkeypatch):
    """set_autotune(True, candidates=2) times the first two of the family's
    candidates (the model's two best) and keeps the bits of the untuned
    kernels; fewer than two is refused."""
    from spio import _capi
    timed = []
    autotune = _capi.autotune

    def recording(launchers, *rest):
        timed.append(len(launchers))
        return autotune(launchers, *rest)

    monkeypatch.setattr(_capi, "autotune", recording)
    x, weight, bias = conv_inputs(n=2, c=96, h=40, w=40, seed=9)
    results = []
    for tune in (False, True):
        spio.set_autotune(tune, candidates=2 if tune else None)
        try:
            results.append(spio.conv2d_gw8(x, weight, bias))
        finally:
            spio.set_autotune(False)
    assert timed == [2]
    assert torch.equal(*results)
    for wrong in (1, 0, True, 2.0):
        with pytest.raises(ValueError, match="2 or more"):
            spio.set_autotune(True, candidates=wrong)
    assert spio.autotune_enabled() is False


@gpu
def test_errors_before_launch():
    x, weight, bias = conv_inputs()
    with pytest.raises(spio.SpioError, match="channels_last"):
        spio.conv2d_gw8(x.contiguous(), weight, bias)
    with pytest.raises(spio.SpioError, match="f16 or bf16"):
        spio.conv2d_gw8(x.float(), weight.float(), None)
    with pytest.raises(spio.SpioError, match="x must be a CUDA tensor"):
        spio.conv2d_gw8(x.cpu(), weight.cpu(), None)
    with pytest.raises(spio.SpioError, match="multiple of 8"):
        spio.conv2d_gw8(x[:, :60].contiguous(memory_format=torch.channels_last),
                        weight[:60], None)
    # A launcher kept for a shape does not skip the checks its calls need.
    spio.conv2d_gw8(x, weight, bias)
    with pytest.raises(spio.SpioError, match="channels_last"):
        spio.conv2d_gw8(x.contiguous(), weight, bias)
    with pytest.raises(spio.SpioError, match="weight must be a CUDA tensor"):
        spio.conv2d_gw8(x, weight.cpu(), bias)
    a, w = torch.randn(32, 64, device="cuda", dtype=torch.half), \
        torch.randn(64, 64, device="cuda", dtype=torch.half)
    spio.linear(a, w)
    with pytest.raises(spio.SpioError, match="B must be contiguous"):
        spio.linear(a, w.t())


def train_step(net, optimizer, x, target):
    optimizer.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(net(x).float(), target)
    loss.backward()
    optimizer.step()
    return loss


@gpu
def test_cuda_graph_replays_a_training_step_with_the_bits_of_eager_steps():
    """A whole step (forward, backward, SGD) captured in a CUDA graph after
    warm-up steps on a side stream (the kernels compiled and loaded there),
    replayed: the same parameters, bit for bit, as the same eager steps."""
    x = conv_inputs(n=4, h=16, w=16, seed=4)[0]
    target = torch.randn(4, 16, device="cuda")
    nets = []
    for _ in range(2):
        torch.manual_seed(0)
        net = spio.transform(Net()).cuda().half().to(memory_format=torch.channels_last)
        nets.append((net, torch.optim.SGD(net.parameters(), lr=0.1)))
    (eager, eager_optimizer), (graphed, graphed_optimizer) = nets
    for _ in range(5):
        train_step(eager, eager_optimizer, x, target)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            train_step(graphed, graphed_optimizer, x, target)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        train_step(graphed, graphed_optimizer, x, target)
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    for ours, theirs in zip(graphed.parameters(), eager.parameters()):
        assert torch.equal(ours, theirs)



@pytest.mark.skipif(not (spio.gpu_available() and torch.cuda.is_available() and
                         torch.cuda.device_count() >= 2), reason="needs two GPUs")
def test_operators_run_on_the_tensors_device_and_leave_the_current_one():
    """The same layer on cuda:0 and cuda:1 in one process: the same bits on
    both, each launch on its tensors' device, torch's current device as it
    was."""
    torch.manual_seed(0)
    outputs, gradients = [], []
    for device in ("cuda:1", "cuda:0", "cuda:1"):
        x = conv_inputs(n=4, h=16, w=16, seed=6)[0].to(device)
        layer = spio.nn.Conv2dGw8(64, device=device, dtype=torch.half)
        head = spio.nn.Linear(64, 16, device=device, dtype=torch.half)
        torch.manual_seed(1)
        with torch.no_grad():
            for p in list(layer.parameters()) + list(head.parameters()):
                p.copy_(torch.randn(p.shape, dtype=p.dtype) / 8)
        before = torch.cuda.current_device()
        y = head(layer(x).mean((2, 3)))
        y.float().square().sum().backward()
        assert torch.cuda.current_device() == before
        assert y.device == torch.device(device)
        outputs.append(y.detach().cpu())
        gradients.append(layer.weight.grad.cpu())
    for got in outputs[1:]:
        assert torch.equal(got, outputs[0])
    for got in gradients[1:]:
        assert torch.equal(got, gradients[0])
