"""PyTorch operators over Spio's kernels (imported on first use of
spio.conv2d_gw8, spio.linear, spio.matmul or spio.nn).

Operators in the torch.library namespace `spio`, with fake (meta)
implementations and autograd:

- spio::conv2d_gw8 (fprop), spio::conv2d_gw8_dgrad, spio::conv2d_gw8_wgrad,
  spio::conv2d_gw8_wgrad_bias (dw and the bias gradient): grouped conv2d
  with groups of 8, 4, 2 or 1 (depthwise) channels on channels_last
  tensors; the backward uses dgrad and the deterministic wgrad (dw, and db
  with it, reduced in f32).
- spio::conv2d, spio::conv2d_dgrad, spio::conv2d_wgrad: dense conv2d
  (groups = 1, or groups of a multiple of 8 channels; spio.conv2d gives it
  groups of 16 or 32 on a multiple of 64 channels as groups of 64 with
  block-diagonal weights), forward on the implicit GEMM (Hopper's wgmma;
  dense layers on sm_80 to sm_89 on mma.sync); the backward's dx on
  Spio's dgrad kernel where the taps read one phase of dx (grouped: any
  stride), dw on its wgrad kernel, the bias gradient and what Spio's
  kernels do not take on cuDNN (aten.convolution_backward). spio.conv2d
  runs dilated groups of 8, 4, 2 or 1 channels on spio::conv2d_gw8 over
  x's phase images.
- spio::bmm (batched a @ b, transposed views read in place).
- spio::linear (x @ w.t() (+ b), the bias added in the GEMM's epilogue;
  spio.matmul's too); dX and dW are GEMMs too, dW accumulated in f32 and
  rounded once to the weight's dtype, or added in place to the weight's
  f32 `main_grad` where it has one (spio::mm_dw_accumulate); db is dY
  summed in f32.

Kernels specialize on shapes at first call and come from the PTX cache
after. The first call of a shape checks it, chooses a kernel and keeps
its launcher (the library's launch plan, loaded); later calls look the
launcher up and launch in one C call. Eager calls skip the dispatcher
and, where no gradient is wanted, autograd.
"""

import ctypes
import functools
import weakref

import torch

from . import _capi
from . import kernels as _kernels
from ._capi import SpioError
from ._phases import ceil_div, phase_copies, phase_extents

_DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32"}


def _check_tensor(name, t, dtypes=("f16", "bf16"), device=None):
    """A CUDA tensor (on cuda:`device` where given) of one of `dtypes`; the
    launch checks the alignment."""
    if not t.is_cuda:
        raise SpioError(f"{name} must be a CUDA tensor, got one on {t.device}")
    if device is not None and t.get_device() != device:
        raise SpioError(f"{name} is on {t.device}, the other operands on cuda:{device}")
    if _DTYPES.get(t.dtype) not in dtypes:
        raise SpioError(f"{name} must be {' or '.join(dtypes)}, got {t.dtype}")


def _needs_grad(*tensors):
    """Whether eager autograd records a call on `tensors` (None: absent)."""
    return torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


@functools.lru_cache(maxsize=None)
def _kernel(args, device):
    """The instance Spio's heuristics choose for `args` on cuda:`device`
    (as spio-jit does), or SpioError with the family's reason."""
    if isinstance(args, _kernels.GemmArguments):
        family = _kernels.GemmFamily()
        config = family.chosen(args, _capi.device_target(device))
    elif isinstance(args, _kernels.Conv2dArguments):
        family = _kernels.Conv2dFamily()
        config = family.chosen(args, _capi.device_target(device))
    else:
        family = _kernels.Conv2dGw8Family()
        config = family.chosen(args)
    kernel = _kernels.Kernel(family, config)
    support = kernel.supports(args)
    if not support:
        raise SpioError(f"Spio cannot run {args}: {support.reason}")
    return kernel


def _launcher(args, device):
    return _kernel(args, device).launcher(args, device)


# Launchers by what a call's checks depend on (shapes, dtypes, devices,
# options): an operator's call looks its launcher up and launches; the
# checks and choices behind a launcher run on its first call.
_launchers = {}

# spio.linear's and spio.conv2d_gw8's eager calls in C++ (csrc/autograd.cpp),
# where the package was built against the installed torch (python/setup.py):
# a call then costs a dict look-up and one C++ call, as torch's own do, a
# call that records a gradient makes a C++ autograd node, and the backward
# runs no Python. Else _mm, _conv2d_gw8, _LinearFunction and
# _Conv2dGw8Function.
try:
    from . import _autograd as _native
except ImportError as error:  # not built, or built against another torch
    _native = None
    _kernels.log.debug("spio._autograd not loaded (%s): autograd runs in Python", error)
else:
    _native.set_library(*(ctypes.cast(function, ctypes.c_void_p).value
                          for function in (_capi.lib.spio_launcher_run, _capi.lib.spio_free)))


def _plan_arguments(launchers):
    """What the C++ plans take of each launcher: its handle, operand count
    and workspace bytes (zeros for None: a pass the plan does not run)."""
    return [value for launcher in launchers
            for value in ((0, 0, 0) if launcher is None else
                          (launcher.handle, len(launcher.operands), launcher.workspace))]


_autotune = False
# How many of the performance model's best candidates autotuning times (None: all).
_autotune_candidates = None
# The keys of the launchers autotuning chose.
_tuned = set()


def set_autotune(enabled, candidates=None):
    """With autotuning on (off by default; as torch.backends.cudnn.benchmark),
    a conv2d_gw8 fprop, dgrad or wgrad of a shape not run before times
    candidate configurations on its own operands and keeps the fastest for
    that shape: every candidate, or with `candidates=N` the performance
    model's N best (its two best hold the fastest within 5% for nine
    layers in ten, at a fraction of the compile and timing). All of them
    write the same bits (wgrad's keep the chosen blocks, whose partial sums
    fix the order of its additions), so results do not depend on which
    wins. The first call of each shape then waits for the GPU; CUDA graph
    captures use the model's choice until a shape is tuned outside one."""
    global _autotune, _autotune_candidates
    if candidates is not None and (isinstance(candidates, bool) or not isinstance(candidates, int)
                                   or candidates < 2):
        raise ValueError("set_autotune(candidates=N) times the model's N best candidates: "
                         f"N must be an integer of 2 or more, got {candidates!r}")
    _autotune = bool(enabled)
    _autotune_candidates = candidates if _autotune else None
    if _autotune:
        # Shapes that ran on the heuristics' choice are tuned at their next call.
        for key in [key for key in _launchers if key[0] in _capi.PASSES and key not in _tuned]:
            del _launchers[key]


def autotune_enabled():
    return _autotune


_batch_invariant = False


def set_batch_invariant(enabled):
    """With batch invariance on (off by default), spio.linear and
    spio.matmul choose GEMM kernels whose order of additions does not depend
    on the number of rows (K split the same way for every row count: by
    blocks of a cluster for small batches, in ranges summed apart in one
    block for large ones): row i of the output has the same bits whatever
    the batch it is computed in, as inference servers that batch requests
    need."""
    global _batch_invariant
    _batch_invariant = bool(enabled)


def batch_invariant_enabled():
    return _batch_invariant


def _tune(args, operands, device):
    """The launcher of the fastest of conv2d_gw8's candidates for `args` (the
    model's N best where set_autotune names N) on `operands` (the library's
    autotuner: timed on the device's default stream, or the result recorded
    for these candidates on this device by an earlier process, or spio-jit
    --autotune)."""
    family = _kernels.Conv2dGw8Family()
    candidates = [_kernels.Kernel(family, config) for config in family.candidates(args)]
    candidates = [c for c in candidates if c.supports(args)] or [_kernel(args, device)]
    # The family lists the candidates in the model's order: its N best come first.
    candidates = candidates[:_autotune_candidates]
    launchers = [candidate.launcher(args, device) for candidate in candidates]
    if len(launchers) == 1:
        return launchers[0]
    size = max(launcher.workspace for launcher in launchers)
    scratch = operands[0].new_empty(size, dtype=torch.uint8) if size else None
    # The default stream's work must follow what the current stream queued.
    torch.cuda.synchronize(operands[0].device)
    key = "".join(family.source(args, c.config) + "\n" for c in candidates)
    fastest = _capi.autotune(launchers, [0 if t is None else t.data_ptr() for t in operands],
                             0 if scratch is None else scratch.data_ptr(), key)
    torch.cuda.synchronize(operands[0].device)
    _kernels.log.info("autotune %s: %s of %d candidates", args, candidates[fastest].config[2],
                      len(candidates))
    return launchers[fastest]


def _conv_launcher(key, args, operands):
    """The launcher of conv2d_gw8 `args` (looked up by `key`) on the
    operands' device: the one autotuning keeps (tuning first on `operands`,
    tensors in the launcher's order, where it is on, outside a CUDA graph
    capture), else the heuristics' choice."""
    device = operands[0].get_device()
    if _autotune and torch.cuda.is_current_stream_capturing():
        return _launcher(args, device)  # tuned once a call outside a capture comes
    if _autotune:
        launcher = _tune(args, operands, device)
        _tuned.add(key)
    else:
        launcher = _launcher(args, device)
    _launchers[key] = launcher
    return launcher


def _run(launcher, stream, operands, scalars=None):
    """Launches with `operands` (tensors or None, in the launcher's order),
    `scalars` (in the launcher's order; None: their defaults) and scratch
    memory where it needs some."""
    # Fresh scratch each call: memory kept across calls would escape the
    # pools of CUDA graph captures (torch.compile's cudagraph trees refuse it).
    workspace = operands[0].new_empty(launcher.workspace, dtype=torch.uint8) \
        if launcher.workspace else None
    launcher.run(stream, [0 if t is None else t.data_ptr() for t in operands],
                 0 if workspace is None else workspace.data_ptr(), scalars)


# The current stream's handle; torch.cuda.current_stream() builds a Stream
# object (about 25 us), the raw query does not.
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _stream(t):
    if _raw_stream is not None:
        return _raw_stream(t.get_device())
    return torch.cuda.current_stream(t.device).cuda_stream


# --- Grouped convolution ------------------------------------------------------

# Channels a group conv2d_gw8's kernels take.
_GROUP_WIDTHS = (1, 2, 4, 8)


# Groups this narrow (C in = C out a multiple of 64) run on the implicit
# GEMM as groups of 64 channels whose weights are block-diagonal.
_BLOCK_DIAGONAL_WIDTHS = (16, 32)


@functools.lru_cache(maxsize=None)
def _library_block_groups(channels, groups):
    problem = _capi.Conv2dProblem(c=channels, k=channels, groups=groups)
    return int(_capi.lib.spio_conv2d_block_groups(problem))


# A constant to torch.compile, which does not trace the C call (nor the
# marking through functools' cache).
@torch.compiler.assume_constant_result
def _block_groups(channels, groups):
    """The groups a block of the library's block-diagonal weights holds for
    C in = C out = `channels` (spio_conv2d_block_groups); 1 for none. Kept:
    spio.conv2d asks it every call."""
    return _library_block_groups(channels, groups)


def implicit_gemm_groups(in_channels, out_channels, groups):
    """The implicit GEMM's groups for a conv2d of these channels and groups,
    or None where it runs elsewhere (the grouped family) or nowhere: the
    groups themselves where dense or of a multiple of 64 input and output
    channels; C / 64 blocks of 64 channels where the groups are 16 or 32
    channels (C in = C out a multiple of 64), whose weights
    _block_diagonal expands; the groups themselves where they are of
    another multiple of 8 input and output channels (RegNet's 24, 48, 56,
    ...: the library pads each tap of w, and wgrad's dw, to 64 channels in
    the workspace, and gathers narrow groups of C in = C out into blocks of
    block-diagonal weights) whose tiles are 24 columns or more (a group's
    outputs, or a block's): tiles of 16 columns ran at half cuDNN's speed
    (an H200, groups of 16). Those stay cuDNN's, as do the grouped
    family's (C in = C out in groups of 1, 2, 4 or 8)."""
    if groups == 1:
        return 1
    if groups < 1 or in_channels % groups or out_channels % groups:
        return None
    inputs, outputs = in_channels // groups, out_channels // groups
    if inputs % 64 == 0 and outputs % 64 == 0:
        return groups
    if in_channels == out_channels and in_channels % 64 == 0 and \
            inputs in _BLOCK_DIAGONAL_WIDTHS:
        return in_channels // 64
    same = in_channels == out_channels
    if inputs % 8 or outputs % 8 or (same and inputs in _GROUP_WIDTHS):
        return None
    columns = outputs * (_block_groups(int(in_channels), int(groups)) if same else 1)
    return groups if columns >= 24 else None


def on_implicit_gemm(in_channels, out_channels, groups):
    """Whether a conv2d of these channels and groups runs on the implicit
    GEMM (implicit_gemm_groups), not the grouped family."""
    return implicit_gemm_groups(in_channels, out_channels, groups) is not None


# Block-diagonal weights of tensors no gradient is taken through, by the
# tensor's id: (a weak reference to it, its version and storage address,
# the expansion).
_expanded = {}


def _block_diagonal_weights(weight):
    """_block_diagonal(weight), kept for a weight no gradient is taken
    through (inference) until its next change."""
    if torch.is_grad_enabled() and weight.requires_grad or \
            type(weight) not in (torch.Tensor, torch.nn.Parameter) or \
            torch.compiler.is_compiling():
        return _block_diagonal(weight)
    kept = _expanded.get(id(weight))
    state = (weight._version, weight.data_ptr())
    if kept is not None and kept[0]() is weight and kept[1] == state:
        return kept[2]
    if kept is None or kept[0]() is not weight:
        # Dropped with the weight.
        weakref.finalize(weight, _expanded.pop, id(weight), None)
    expanded = _block_diagonal(weight)
    _expanded[id(weight)] = (weakref.ref(weight), state, expanded)
    return expanded


def _block_diagonal(weight):
    """`weight` (K, w, R, S) of groups of w = 16 or 32 channels (C in = C
    out = K) as the same convolution's (K, 64, R, S) weights of K / 64
    groups of 64: each output channel's w weights at its group's place among
    its block's 64 input channels, zeros elsewhere; channels_last. Made by
    torch.diag_embed, so that autograd takes the gradient's diagonal blocks
    back (exactly: no sums of products)."""
    k, w, r, s = weight.shape
    m = 64 // w
    # (block b, group j in it, output t, r, s, input u), as (b, t, r, s, u, j).
    blocks = weight.permute(0, 2, 3, 1).reshape(k // 64, m, w, r, s, w).permute(0, 2, 3, 4, 5, 1)
    # (b, t, r, s, u, j, l): nonzero where l = j; to (b, j, t, r, s, l, u).
    expanded = torch.diag_embed(blocks).permute(0, 5, 1, 2, 3, 6, 4)
    return expanded.reshape(k, r, s, 64).permute(0, 3, 1, 2)


def _conv_args(x_shape, c, r, s, stride, padding, pass_, bias, dtype, group_width):
    n, _, h, w = x_shape
    return _kernels.Conv2dGw8Arguments(n, c, h, w, r, s, padding[0], padding[1], stride,
                                       pass_, bias, dtype, group_width=group_width)


def _out_hw(h, w, r, s, stride, padding):
    return (h + 2 * padding[0] - r) // stride + 1, (w + 2 * padding[1] - s) // stride + 1


def _check_conv(x, weight, stride, padding, bias=None):
    if x.dim() != 4 or weight.dim() != 4:
        raise SpioError("conv2d_gw8 takes x (N, C, H, W) and weight (C, g, R, S)")
    c = x.shape[1]
    if c % 8 or weight.shape[0] != c or weight.shape[1] not in _GROUP_WIDTHS:
        raise SpioError(f"conv2d_gw8 needs C a multiple of 8 and weight (C, g, R, S) = "
                        f"({c}, g, R, S) with g (channels a group) 1, 2, 4 or 8, got x "
                        f"{tuple(x.shape)}, weight {tuple(weight.shape)}")
    if not x.is_contiguous(memory_format=torch.channels_last):
        raise SpioError("conv2d_gw8 takes a channels_last input "
                        "(x.to(memory_format=torch.channels_last))")
    if x.dtype != weight.dtype:
        raise SpioError(f"x is {x.dtype} but weight is {weight.dtype}")
    if stride not in (1, 2) or len(padding) != 2:
        raise SpioError(f"conv2d_gw8 takes stride 1 or 2 and padding (pH, pW), got {stride}, "
                        f"{padding}")
    _check_tensor("x", x)
    _check_tensor("weight", weight, device=x.get_device())
    if bias is not None:
        _check_tensor("bias", bias, device=x.get_device())
        if bias.dtype != x.dtype or bias.shape != (c,):
            raise SpioError(f"the bias must be ({c},) {x.dtype}, got "
                            f"{tuple(bias.shape)} {bias.dtype}")


def _krsc(weight):
    """A tensor whose memory holds the weight as Spio reads it, [k, r, s,
    c]: a channels_last weight itself (as spio.nn's and converted models'
    are), else a copy."""
    if weight.is_contiguous(memory_format=torch.channels_last):
        return weight
    return weight.permute(0, 2, 3, 1).contiguous()


# Operators are defined with torch.library.Library rather than
# torch.library.custom_op: the latter's per-call wrapping costs about 80 us
# of CPU time, which is longer than these kernels run on small layers.
_lib = torch.library.Library("spio", "DEF")


def _define(schema, implementation, fake):
    """Defines spio::<name> by `schema` with `implementation` for every
    device (it raises the errors for the wrong one) and `fake` for tracing."""
    name = schema.split("(")[0]
    _lib.define(schema)
    _lib.impl(name, implementation, "CompositeExplicitAutograd")
    torch.library.register_fake(f"spio::{name}", fake, lib=_lib)
    return getattr(torch.ops.spio, name).default


def _conv2d_gw8(x, weight, bias, stride, padding):
    n, c, h, w = x.shape
    r, s = weight.shape[2], weight.shape[3]
    key = ("fprop", x.shape, weight.shape, x.dtype, weight.dtype, x.get_device(),
           weight.get_device(), stride, *padding,
           None if bias is None else (bias.shape, bias.dtype, bias.get_device()))
    launcher = _launchers.get(key)
    if launcher is None or not x.is_contiguous(memory_format=torch.channels_last):
        _check_conv(x, weight, stride, padding, bias)
    p, q = _out_hw(h, w, r, s, stride, padding)
    y = torch.empty((n, c, p, q), device=x.device, dtype=x.dtype,
                    memory_format=torch.channels_last)
    operands = (x, _krsc(weight), None if bias is None else bias.contiguous(), y)
    stream = _stream(x)
    if launcher is None:
        args = _conv_args(x.shape, c, r, s, stride, padding, "fprop", bias is not None,
                          _DTYPES[x.dtype], weight.shape[1])
        launcher = _conv_launcher(key, args, operands)
    _run(launcher, stream, operands)
    return y


def _conv2d_gw8_fake(x, weight, bias, stride, padding):
    n, c, h, w = x.shape
    p, q = _out_hw(h, w, weight.shape[2], weight.shape[3], stride, padding)
    return torch.empty((n, c, p, q), device=x.device, dtype=x.dtype,
                       memory_format=torch.channels_last)


conv2d_gw8_op = _define(
    "conv2d_gw8(Tensor x, Tensor weight, Tensor? bias, int stride, int[] padding) -> Tensor",
    _conv2d_gw8, _conv2d_gw8_fake)


def _conv2d_gw8_dgrad(dy, weight, input_size, stride, padding):
    dy = dy.contiguous(memory_format=torch.channels_last)
    n, c, h, w = input_size
    key = ("dgrad", dy.shape, weight.shape, dy.dtype, weight.dtype, dy.get_device(),
           weight.get_device(), *input_size, stride, *padding)
    launcher = _launchers.get(key)
    if launcher is None:
        _check_tensor("dy", dy)
        _check_tensor("weight", weight, device=dy.get_device())
        if weight.dtype != dy.dtype:
            raise SpioError(f"dy is {dy.dtype} but weight is {weight.dtype}")
        if weight.dim() != 4 or weight.shape[1] not in _GROUP_WIDTHS:
            raise SpioError(f"dgrad takes weight (C, g, R, S) with g 1, 2, 4 or 8, got "
                            f"{tuple(weight.shape)}")
    dx = torch.empty((n, c, h, w), device=dy.device, dtype=dy.dtype,
                     memory_format=torch.channels_last)
    operands = (dy, _krsc(weight), dx)
    stream = _stream(dy)
    if launcher is None:
        args = _conv_args(input_size, c, weight.shape[2], weight.shape[3], stride, padding,
                          "dgrad", False, _DTYPES[dy.dtype], weight.shape[1])
        launcher = _conv_launcher(key, args, operands)
    _run(launcher, stream, operands)
    return dx


def _conv2d_gw8_dgrad_fake(dy, weight, input_size, stride, padding):
    return torch.empty(input_size, device=dy.device, dtype=dy.dtype,
                       memory_format=torch.channels_last)


conv2d_gw8_dgrad_op = _define(
    "conv2d_gw8_dgrad(Tensor dy, Tensor weight, int[] input_size, int stride, int[] padding) "
    "-> Tensor", _conv2d_gw8_dgrad, _conv2d_gw8_dgrad_fake)


def _wgrad(x, dy, kernel_size, stride, padding, group_width, bias):
    """dw (C, g, R, S), stored as (C, R, S, g): a channels_last weight's
    layout, and with `bias` db (C): the kernels sum in f32 and round once to
    x's dtype."""
    dy = dy.contiguous(memory_format=torch.channels_last)
    c, r, s = x.shape[1], kernel_size[0], kernel_size[1]
    key = ("wgrad", x.shape, dy.shape, x.dtype, dy.dtype, x.get_device(), dy.get_device(), r, s,
           stride, *padding, group_width, bias)
    launcher = _launchers.get(key)
    if launcher is None or not x.is_contiguous(memory_format=torch.channels_last):
        _check_tensor("x", x)
        _check_tensor("dy", dy, device=x.get_device())
        if not x.is_contiguous(memory_format=torch.channels_last) or dy.dtype != x.dtype:
            raise SpioError("wgrad takes channels_last x and dy of one dtype")
    dw = x.new_empty((c, r, s, group_width))
    db = x.new_empty(c) if bias else None
    operands = (x, dy, dw, db)
    stream = _stream(x)
    if launcher is None:
        args = _conv_args(x.shape, c, r, s, stride, padding, "wgrad", bias, _DTYPES[x.dtype],
                          group_width)
        launcher = _conv_launcher(key, args, operands)
    _run(launcher, stream, operands)
    return dw.permute(0, 3, 1, 2), db


def _conv2d_gw8_wgrad(x, dy, kernel_size, stride, padding, group_width=8):
    return _wgrad(x, dy, kernel_size, stride, padding, group_width, False)[0]


def _dw_fake(x, kernel_size, group_width):
    return x.new_empty((x.shape[1], kernel_size[0], kernel_size[1],
                        group_width)).permute(0, 3, 1, 2)


conv2d_gw8_wgrad_op = _define(
    "conv2d_gw8_wgrad(Tensor x, Tensor dy, int[] kernel_size, int stride, int[] padding, "
    "int group_width=8) -> Tensor", _conv2d_gw8_wgrad,
    lambda x, dy, kernel_size, stride, padding, group_width=8: _dw_fake(x, kernel_size,
                                                                        group_width))


def _conv2d_gw8_wgrad_bias(x, dy, kernel_size, stride, padding, group_width=8):
    return _wgrad(x, dy, kernel_size, stride, padding, group_width, True)


# dw and the bias gradient db from one run: two more kernels sum dy (in
# f32, in a fixed order) where PyTorch's sum reads it at a fraction of the
# bandwidth.
conv2d_gw8_wgrad_bias_op = _define(
    "conv2d_gw8_wgrad_bias(Tensor x, Tensor dy, int[] kernel_size, int stride, int[] padding, "
    "int group_width=8) -> (Tensor, Tensor)", _conv2d_gw8_wgrad_bias,
    lambda x, dy, kernel_size, stride, padding, group_width=8: (
        _dw_fake(x, kernel_size, group_width), x.new_empty((x.shape[1],))))


def _conv_setup(ctx, inputs, output):
    x, weight, bias, stride, padding = inputs
    ctx.save_for_backward(x, weight)
    ctx.has_bias = bias is not None
    ctx.stride, ctx.padding = stride, padding


def _conv_gradients(ctx, dy, dgrad, wgrad, wgrad_bias):
    """dx, dw and dbias as the inputs need them, from `dgrad`, `wgrad` and
    `wgrad_bias` (the operators, or their implementations)."""
    x, weight = ctx.saved_tensors
    dx = dw = dbias = None
    if ctx.needs_input_grad[0]:
        dx = dgrad(dy, weight, list(x.shape), ctx.stride, ctx.padding)
    kernel_size, group_width = [weight.shape[2], weight.shape[3]], weight.shape[1]
    needs_dbias = ctx.has_bias and ctx.needs_input_grad[2]
    if ctx.needs_input_grad[1] and needs_dbias:
        dw, dbias = wgrad_bias(x, dy, kernel_size, ctx.stride, ctx.padding, group_width)
    elif ctx.needs_input_grad[1]:
        dw = wgrad(x, dy, kernel_size, ctx.stride, ctx.padding, group_width)
    elif needs_dbias:
        # A half or bfloat16 sum adds in f32 and rounds once.
        dbias = dy.sum((0, 2, 3))
    return dx, dw, dbias, None, None


def _conv_backward(ctx, dy):
    return _conv_gradients(ctx, dy, conv2d_gw8_dgrad_op, conv2d_gw8_wgrad_op,
                           conv2d_gw8_wgrad_bias_op)


torch.library.register_autograd("spio::conv2d_gw8", _conv_backward, setup_context=_conv_setup,
                                lib=_lib)


class _Conv2dGw8Function(torch.autograd.Function):
    """conv2d_gw8's eager autograd straight over the operators'
    implementations: the same kernels, without torch.library's autograd
    wrapper and the dispatcher around each pass, which cost about 190 us of
    CPU a layer's forward and backward (711 against 519 us on an H100 host,
    N64 C128 32x32), more than the kernels run on small layers."""

    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding):
        y = _conv2d_gw8(x, weight, bias, stride, padding)
        _conv_setup(ctx, (x, weight, bias, stride, padding), y)
        return y

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, dy):
        return _conv_gradients(ctx, dy, _conv2d_gw8_dgrad, _conv2d_gw8_wgrad,
                               _conv2d_gw8_wgrad_bias)


def conv2d_gw8(x, weight, bias=None, stride=1, padding=(1, 1)):
    """y = conv2d(x, weight, bias, stride, padding, groups=C/g) on Spio's
    kernels: x (N, C, H, W) channels_last f16/bf16 on a CUDA device, weight
    (C, g, R, S) with g (channels a group) 8, or 1 (depthwise), 2 or 4, R
    and S from 1 to 7, stride 1 or 2."""
    if isinstance(padding, int):
        padding = (padding, padding)
    stride, padding = int(stride), list(padding)
    # Tracing (torch.compile, export) and tensor subclasses (fake tensors)
    # take the registered operator, which has a fake implementation.
    if type(x) is not torch.Tensor or torch.compiler.is_compiling():
        return conv2d_gw8_op(x, weight, bias, stride, padding)
    # The C++ extension's calls where it is built; the Python ones (the same
    # launchers) with autotuning on or an input not channels_last.
    native = (_native is not None and not _autotune
              and x.is_contiguous(memory_format=torch.channels_last))
    if _needs_grad(x, weight, bias):
        if not native:
            return _Conv2dGw8Function.apply(x, weight, bias, stride, padding)
        plan = _conv2d_gw8_plan(x, weight, bias, stride, padding,
                                wgrad_bias=bias is not None and bias.requires_grad)
        return _native.conv2d_gw8(plan, x, weight, bias)
    if native:
        plan = _conv2d_gw8_plan(x, weight, bias, stride, padding, wgrad_bias=None)
        return _native.conv2d_gw8_forward(plan, x, weight, bias)
    return _conv2d_gw8(x, weight, bias, stride, padding)


# The C++ extension's plans by conv2d_gw8's shapes: each the address of the
# fprop's launcher (and dgrad's and wgrad's, for a call recording a
# gradient), with the launchers.
_conv_plans = {}


def _conv2d_gw8_plan(x, weight, bias, stride, padding, wgrad_bias):
    """The plan of conv2d_gw8(x, weight, bias, stride, padding), built and
    checked at the shape's first call: the heuristics' configurations, the
    fprop's alone where `wgrad_bias` is None, else with dgrad's and wgrad's
    (summing the bias's gradient where `wgrad_bias`)."""
    key = (x.shape, weight.shape, x.dtype, weight.dtype, x.get_device(), weight.get_device(),
           stride, *padding, None if bias is None else (bias.shape, bias.dtype, bias.get_device()),
           wgrad_bias)
    plan = _conv_plans.get(key)
    if plan is None:
        _check_conv(x, weight, stride, padding, bias)
        n, c, h, w = x.shape
        g, r, s = weight.shape[1:]
        p, q = _out_hw(h, w, r, s, stride, padding)
        passes = [("fprop", bias is not None)]
        if wgrad_bias is not None:
            passes += [("dgrad", False), ("wgrad", wgrad_bias)]
        launchers = [_launcher(_conv_args(x.shape, c, r, s, stride, padding, pass_, with_bias,
                                          _DTYPES[x.dtype], g), x.get_device())
                     for pass_, with_bias in passes]
        launchers += [None] * (3 - len(launchers))
        address = _native.conv2d_gw8_plan(*_plan_arguments(launchers), [n, c, p, q], [c, r, s, g],
                                          bool(wgrad_bias))
        plan = _conv_plans[key] = (address, launchers)
    return plan[0]


class _PhaseImages(torch.autograd.Function):
    """x's pixels (N, H, W, C) as the phase images (N, dh, dw, rows,
    columns, C) of a dilated convolution, zeros where a phase image reaches
    past x; the backward copies the phase images' gradients back (x's pixels
    no phase image holds get zeros)."""

    @staticmethod
    def forward(ctx, pixels, padding, dilation, phase_size):
        n, _, _, c = pixels.shape
        ctx.copies = phase_copies(pixels.shape, padding, dilation, phase_size)
        ctx.x_shape = pixels.shape
        phases = pixels.new_zeros((n, *dilation, *phase_size, c))
        for (a, b), inside, source in ctx.copies:
            phases[:, a, b][inside] = pixels[source]
        return phases

    @staticmethod
    def backward(ctx, dphases):
        dpixels = dphases.new_zeros(ctx.x_shape)
        for (a, b), inside, source in ctx.copies:
            dpixels[source] = dphases[:, a, b][inside]
        return dpixels, None, None, None


class _Interleaved(torch.autograd.Function):
    """The phases' outputs (N, dh, dw, rows, columns, C) interleaved into the
    dilated convolution's output pixels (N, OH, OW, C): output (dh * i + a,
    dw * k + b) is phase (a, b)'s (i, k); the backward takes each phase's
    outputs' gradients back (zeros for the rows and columns past the
    output, which the longest phase's extent gave the shorter ones)."""

    @staticmethod
    def forward(ctx, outputs, out_size):
        n, dh, dw, _, _, c = outputs.shape
        ctx.phases = [((a, b), (slice(None), slice(0, ceil_div(out_size[0] - a, dh)),
                                slice(0, ceil_div(out_size[1] - b, dw))),
                       (slice(None), slice(a, None, dh), slice(b, None, dw)))
                      for a in range(dh) for b in range(dw)]
        ctx.outputs_shape = outputs.shape
        pixels = outputs.new_empty((n, *out_size, c))
        for (a, b), phase, interleaved in ctx.phases:
            pixels[interleaved] = outputs[:, a, b][phase]
        return pixels

    @staticmethod
    def backward(ctx, dpixels):
        doutputs = dpixels.new_zeros(ctx.outputs_shape)
        for (a, b), phase, interleaved in ctx.phases:
            doutputs[:, a, b][phase] = dpixels[interleaved]
        return doutputs, None


def _dilated_grouped_conv2d(x, weight, bias, padding, dilation):
    """A stride-1 conv2d of groups of 1, 2, 4 or 8 channels dilated by
    (dh, dw) on conv2d_gw8's kernels: output (dh * i + a, dw * k + b) is the
    undilated convolution of phase image (a, b) of x (its rows a - padH +
    dh * j, columns b - padW + dw * l, zeros past x), so the dh * dw phase
    images are copied side by side as images of the batch, convolved in one
    run without padding, and their outputs copied back interleaved (torch's
    copies); the gradients are conv2d_gw8's over the phases."""
    if min(dilation) < 1 or min(padding) < 0:
        raise SpioError(f"a dilated conv2d takes dilation >= 1 and padding >= 0, got dilation "
                        f"{tuple(dilation)} and padding {tuple(padding)}")
    n, c, h, w = x.shape
    r, s = weight.shape[2], weight.shape[3]
    oh, oh_phase, h_phase = phase_extents(h, r, padding[0], dilation[0])
    ow, ow_phase, w_phase = phase_extents(w, s, padding[1], dilation[1])
    if oh < 1 or ow < 1:
        raise SpioError(f"the {r}x{s} kernel dilated by {tuple(dilation)} does not fit the "
                        f"padded {h}x{w} input")
    phases = _PhaseImages.apply(x.permute(0, 2, 3, 1), tuple(padding), tuple(dilation),
                                (h_phase, w_phase))
    images = phases.view(-1, h_phase, w_phase, c).permute(0, 3, 1, 2)
    outputs = conv2d_gw8(images, weight, bias, 1, (0, 0)).permute(0, 2, 3, 1).reshape(
        n, *dilation, oh_phase, ow_phase, c)
    return _Interleaved.apply(outputs, (oh, ow)).permute(0, 3, 1, 2)


# --- Dense convolution ----------------------------------------------------------

def _pair(value, name):
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, int) for v in pair):
        raise SpioError(f"{name} is an int or a (height, width) pair of ints, got {value!r}")
    return pair


def _dense_out_hw(x_shape, w_shape, stride, padding, dilation):
    return tuple((size + 2 * pad - dil * (taps - 1) - 1) // step + 1
                 for size, taps, step, pad, dil in zip(x_shape[2:], w_shape[2:], stride,
                                                       padding, dilation))


def _check_dense(x, weight, bias, groups):
    if x.dim() != 4 or weight.dim() != 4:
        raise SpioError("conv2d takes x (N, C, H, W) and weight (K, C / groups, R, S)")
    if weight.shape[1] * groups != x.shape[1] or weight.shape[0] % groups:
        raise SpioError(f"a conv2d's weight is (K, C / groups, R, S) with x's C = {x.shape[1]} "
                        f"and groups = {groups}, got {tuple(weight.shape)}")
    if x.dtype != weight.dtype:
        raise SpioError(f"x is {x.dtype} but weight is {weight.dtype}")
    _check_tensor("x", x)
    _check_tensor("weight", weight, device=x.get_device())
    if bias is not None:
        _check_tensor("bias", bias, _GEMM_DTYPES, device=x.get_device())
        if bias.shape != (weight.shape[0],):
            raise SpioError(f"the bias must be ({weight.shape[0]},), got {tuple(bias.shape)}")


def _conv2d(x, weight, bias, stride, padding, dilation, groups=1):
    key = ("dense", x.shape, weight.shape, x.dtype, weight.dtype, x.get_device(),
           weight.get_device(), *stride, *padding, *dilation, groups,
           None if bias is None else (bias.shape, bias.dtype, bias.get_device()))
    launcher = _launchers.get(key)
    if launcher is None:
        _check_dense(x, weight, bias, groups)
    # The kernel reads NHWC: another memory format is copied (as cuDNN does
    # where formats differ); y is channels_last.
    x = x.contiguous(memory_format=torch.channels_last)
    n, k = x.shape[0], weight.shape[0]
    p, q = _dense_out_hw(x.shape, weight.shape, stride, padding, dilation)
    y = torch.empty((n, k, p, q), device=x.device, dtype=x.dtype,
                    memory_format=torch.channels_last)
    operands = (x, _krsc(weight), y, None, None if bias is None else bias.contiguous(), None)
    if launcher is None:
        args = _kernels.Conv2dArguments(
            n, x.shape[2], x.shape[3], x.shape[1], k, weight.shape[2], weight.shape[3],
            stride, padding, dilation, _DTYPES[x.dtype],
            epilogue=("bias",) if bias is not None else (),
            bias_dtype=None if bias is None else _DTYPES[bias.dtype], groups=groups)
        launcher = _launchers[key] = _launcher(args, x.get_device())
    _run(launcher, _stream(x), operands)
    return y


def _conv2d_fake(x, weight, bias, stride, padding, dilation, groups=1):
    p, q = _dense_out_hw(x.shape, weight.shape, stride, padding, dilation)
    return torch.empty((x.shape[0], weight.shape[0], p, q), device=x.device, dtype=x.dtype,
                       memory_format=torch.channels_last)


conv2d_op = _define(
    "conv2d(Tensor x, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
    "int[] dilation, int groups=1) -> Tensor", _conv2d, _conv2d_fake)


def _dense_setup(ctx, inputs, output):
    x, weight, bias, stride, padding, dilation = inputs[:6]
    ctx.save_for_backward(x, weight)
    ctx.has_bias = bias is not None
    ctx.stride, ctx.padding, ctx.dilation = stride, padding, dilation
    ctx.groups = inputs[6] if len(inputs) > 6 else 1


def _dense_gradient_launcher(pass_, dy, x_shape, w_shape, stride, padding, dilation, groups):
    """The launcher of Spio's dense `pass_` ("dgrad" or "wgrad", in dy's
    dtype) for the layer of x and w of `x_shape` and `w_shape`, or None
    where the kernel does not take it: the checks' verdict is kept with the
    launcher. It needs shapes, dtypes and devices alone, so the backward
    asks it while torch.compile traces (a symbolic size is specialized)."""
    x_shape, w_shape = tuple(map(int, x_shape)), tuple(map(int, w_shape))
    key = ("dense_" + pass_, tuple(map(int, dy.shape)), x_shape, w_shape, dy.dtype,
           dy.get_device(), *stride, *padding, *dilation, groups)
    if key not in _launchers:
        try:
            n, c, h, w = x_shape
            args = _kernels.Conv2dArguments(
                n, h, w, c, w_shape[0], w_shape[2], w_shape[3], stride, padding, dilation,
                _DTYPES[dy.dtype], pass_=pass_, groups=groups)
            _launchers[key] = _launcher(args, dy.get_device())
        except SpioError:
            _launchers[key] = None
    return _launchers[key]


def _dgrad_phases(kernel_size, stride, padding, dilation):
    """The phases of dx (positions h % stride, w % stride) the layer's taps
    read: Spio's dgrad runs a kernel each."""
    count = 1
    for taps, step, pad, dil in zip(kernel_size, stride, padding, dilation):
        count *= len({(r * dil - pad) % step for r in range(taps)})
    return count


def _spio_takes_dgrad(dy, x_shape, weight, stride, padding, dilation, groups):
    """Whether Spio's dgrad kernels compute the layer's dx: not where they do
    not take the layer (channels not multiples of 8) or, dense, need more
    than one kernel: several phases of dx, one kernel each, ran at
    0.92-0.98x cuDNN on an H200 (3x3 stride-2 ResNet layers;
    benchmarks/conv2d), so cuDNN computes those; grouped, Spio's phases ran
    at 1.8-3.4x cuDNN's grouped dgrad (RegNet layers)."""
    if groups == 1 and _dgrad_phases(weight.shape[2:], stride, padding, dilation) > 1:
        return False
    return _dense_gradient_launcher("dgrad", dy, x_shape, weight.shape, stride, padding,
                                    dilation, groups) is not None


def _spio_takes_wgrad(dy, x_shape, weight, stride, padding, dilation, groups):
    """Whether Spio's wgrad kernel computes the layer's dw (not where K is
    not a multiple of 8)."""
    return _dense_gradient_launcher("wgrad", dy, x_shape, weight.shape, stride, padding,
                                    dilation, groups) is not None


def _conv2d_dgrad(dy, weight, x_shape, stride, padding, dilation, groups):
    """dx (channels_last) from dy and w on Spio's dgrad kernels, where
    _spio_takes_dgrad says they take the layer."""
    launcher = _dense_gradient_launcher("dgrad", dy, x_shape, weight.shape, stride, padding,
                                        dilation, groups)
    if launcher is None:
        raise SpioError(f"Spio's dgrad does not take the conv2d of x {tuple(x_shape)} and "
                        f"weight {tuple(weight.shape)}")
    dy = dy.contiguous(memory_format=torch.channels_last)
    dx = torch.empty(x_shape, device=dy.device, dtype=dy.dtype,
                     memory_format=torch.channels_last)
    _run(launcher, _stream(dy), (dy, _krsc(weight), dx, None, None, None))
    return dx


conv2d_dgrad_op = _define(
    "conv2d_dgrad(Tensor dy, Tensor weight, int[] x_shape, int[] stride, int[] padding, "
    "int[] dilation, int groups) -> Tensor", _conv2d_dgrad,
    lambda dy, weight, x_shape, stride, padding, dilation, groups: torch.empty(
        x_shape, device=dy.device, dtype=dy.dtype, memory_format=torch.channels_last))


def _conv2d_wgrad(dy, x, weight_shape, stride, padding, dilation, groups):
    """dw (of `weight_shape` and x's dtype, channels_last storage) from x and
    dy on Spio's wgrad kernel, where _spio_takes_wgrad says it takes the
    layer."""
    launcher = _dense_gradient_launcher("wgrad", dy, x.shape, weight_shape, stride, padding,
                                        dilation, groups)
    if launcher is None:
        raise SpioError(f"Spio's wgrad does not take the conv2d of x {tuple(x.shape)} and "
                        f"weight {tuple(weight_shape)}")
    dy = dy.contiguous(memory_format=torch.channels_last)
    x = x.contiguous(memory_format=torch.channels_last)
    dw = torch.empty(weight_shape, device=dy.device, dtype=x.dtype,
                     memory_format=torch.channels_last)
    _run(launcher, _stream(dy), (x, dy, dw, None, None, None))
    return dw


conv2d_wgrad_op = _define(
    "conv2d_wgrad(Tensor dy, Tensor x, int[] weight_shape, int[] stride, int[] padding, "
    "int[] dilation, int groups) -> Tensor", _conv2d_wgrad,
    lambda dy, x, weight_shape, stride, padding, dilation, groups: torch.empty(
        weight_shape, device=dy.device, dtype=x.dtype, memory_format=torch.channels_last))


def _dense_gradients(ctx, dy, dgrad, wgrad):
    """dx on Spio's dgrad kernel and dw on its wgrad kernel where they take
    the layer, each else on cuDNN, and dbias on cuDNN
    (aten.convolution_backward); `dgrad` and `wgrad` are the operators
    (traced by torch.compile) or their implementations (eager)."""
    x, weight = ctx.saved_tensors
    needs = ctx.needs_input_grad
    layer = (ctx.stride, ctx.padding, ctx.dilation, ctx.groups)
    dx = dw = None
    if needs[0] and dy.dtype == weight.dtype and \
            _spio_takes_dgrad(dy, x.shape, weight, *layer):
        dx = dgrad(dy, weight, list(x.shape), *layer)
    if needs[1] and dy.dtype == weight.dtype == x.dtype and \
            _spio_takes_wgrad(dy, x.shape, weight, *layer):
        dw = wgrad(dy, x, list(weight.shape), *layer)
    wants = [needs[0] and dx is None, needs[1] and dw is None, ctx.has_bias and needs[2]]
    grads = (None, None, None)
    if any(wants):
        grads = torch.ops.aten.convolution_backward(
            dy, x, weight, [weight.shape[0]] if ctx.has_bias else None, ctx.stride,
            ctx.padding, ctx.dilation, False, [0, 0], ctx.groups, wants)
    return (dx if dx is not None else grads[0], dw if dw is not None else grads[1], grads[2],
            None, None, None, None)


def _dense_backward(ctx, dy):
    return _dense_gradients(ctx, dy, conv2d_dgrad_op, conv2d_wgrad_op)


torch.library.register_autograd("spio::conv2d", _dense_backward, setup_context=_dense_setup,
                                lib=_lib)


class _Conv2dFunction(torch.autograd.Function):
    """conv2d's eager autograd straight over the implementations (as
    _Conv2dGw8Function): torch.library's autograd wrapper and the
    dispatcher cost about 0.7 ms of CPU a layer's backward on an H200 host
    (its GeneratedBackward nodes), more than small layers' kernels run."""

    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, dilation, groups):
        y = _conv2d(x, weight, bias, stride, padding, dilation, groups)
        _dense_setup(ctx, (x, weight, bias, stride, padding, dilation, groups), y)
        return y

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, dy):
        return _dense_gradients(ctx, dy, _conv2d_dgrad, _conv2d_wgrad)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv2d on Spio's kernels, f16/bf16 on a CUDA
    device: dense layers (groups = 1; on Hopper's wgmma, or on sm_80 to
    sm_89 on mma.sync; any kernel size, stride, padding and dilation;
    input channels not a multiple of 8, as RGB stems have, in the
    forward and dw, x unfolded into a workspace first), layers
    of groups of a multiple of 64 input and output channels, layers of
    groups of 16 or 32 channels (C in = C out a multiple of 64, run as
    groups of 64 with block-diagonal weights, whose gradient autograd takes
    back), and layers of groups of other multiples of 8 input and output
    channels (RegNet's; each tap of w padded to 64 channels) as an
    implicit GEMM whose backward takes dx from Spio's dgrad
    where one kernel computes it (the taps read one phase of dx: stride 1,
    or 1x1 downsampling; grouped, at any stride), dw from its wgrad, and
    the bias gradient from cuDNN, and groups of 8, 4, 2 or 1
    (depthwise) channels (C in = C out a multiple of
    8, equal strides; dilated layers at stride 1 as the convolutions of x's
    phase images) on conv2d_gw8's kernels, forward and backward.
    SpioError says why a layer is not taken. The output is channels_last."""
    stride, padding = _pair(stride, "stride"), _pair(padding, "padding")
    dilation = _pair(dilation, "dilation")
    c = x.shape[1]
    gemm_groups = implicit_gemm_groups(c, weight.shape[0], groups)
    if gemm_groups is not None and gemm_groups != groups:
        if weight.dim() != 4 or weight.shape[1] * groups != c:
            raise SpioError(f"a conv2d's weight is (K, C / groups, R, S) with x's C = {c} and "
                            f"groups = {groups}, got {tuple(weight.shape)}")
        weight, groups = _block_diagonal_weights(weight), gemm_groups
    if gemm_groups is not None:
        # Tracing and tensor subclasses take the registered operator; eager
        # calls its implementation, through autograd only where a gradient
        # is wanted.
        if type(x) is not torch.Tensor or torch.compiler.is_compiling():
            return conv2d_op(x, weight, bias, list(stride), list(padding), list(dilation),
                             groups)
        if _needs_grad(x, weight, bias):
            return _Conv2dFunction.apply(x, weight, bias, list(stride), list(padding),
                                         list(dilation), groups)
        return _conv2d(x, weight, bias, stride, padding, dilation, groups)
    if groups > 0 and c % groups == 0 and c // groups in _GROUP_WIDTHS and \
            weight.shape[0] == c and (dilation == (1, 1) or stride == (1, 1)) and \
            stride[0] == stride[1]:
        x = x.contiguous(memory_format=torch.channels_last)
        if dilation != (1, 1):
            return _dilated_grouped_conv2d(x, weight, bias, padding, dilation)
        return conv2d_gw8(x, weight, bias, stride[0], padding)
    raise SpioError(f"Spio runs dense conv2d (groups = 1), groups of a multiple of 8 input and "
                    f"output channels (24 or more outputs a group, or a block of groups), and "
                    f"groups of 1, 2, 4 or 8 channels (C in = C out, equal strides, dilated "
                    f"at stride 1); got groups={groups} of "
                    f"{tuple(x.shape)} by {tuple(weight.shape)}, dilation {dilation}, stride "
                    f"{stride}")


# --- Matrix multiplication ----------------------------------------------------

# GEMM inputs: f32 ones are multiplied as torch.get_float32_matmul_precision()
# asks: "highest" and "medium" as sums of 3 and 1 bf16 terms; "high" (TF32
# allowed) as TF32 where the GPU's wgmma has it (sm_90), else 2 bf16 terms.
_GEMM_DTYPES = ("f16", "bf16", "f32")

# Whether each device (by index) runs wgmma's TF32.
_tf32_devices = {}


def _f32_precision(t):
    if t.dtype != torch.float32:
        return "highest"
    precision = torch.get_float32_matmul_precision()
    if precision != "high":
        return precision
    device = t.get_device()
    tf32 = _tf32_devices.get(device)
    if tf32 is None:
        chip = _capi.device_target(device).chip
        tf32 = _tf32_devices[device] = _capi.lib.spio_chip_has_wgmma(chip) != 0
    return "tf32" if tf32 else "high"


def _aligned(t):
    """`t`, or a copy where its address is not 16-byte aligned (a view
    starting inside a row), as the kernels' vector loads need."""
    return t.clone() if t.data_ptr() % _kernels.ALIGNMENT else t


def _gemm_arguments(a, b, out_dtype, a_layout, b_layout, m, n, k, bias=None, accumulate=None,
                    activation=None, pre=None):
    """The checked GemmArguments of _gemm's call (its tensors as it takes
    them)."""
    for name, t in (("A", a), ("B", b)):
        _check_tensor(name, t, _GEMM_DTYPES, a.get_device())
        if not t.is_contiguous():
            raise SpioError(f"{name} must be contiguous")
    epilogue = {}
    if bias is not None:
        _check_tensor("bias", bias, ("f16", "bf16", "f32"), a.get_device())
        if bias.shape != (n,):
            raise SpioError(f"the bias must have shape ({n},), got {tuple(bias.shape)}")
        epilogue = {"epilogue": ("bias",), "bias_along": "col",
                    "bias_dtype": _DTYPES[bias.dtype]}
    if activation is not None:
        epilogue["epilogue"] = epilogue.get("epilogue", ()) + (activation,)
    return _kernels.GemmArguments(m, n, k, _DTYPES[a.dtype], _DTYPES[out_dtype], a_layout,
                                  b_layout, reads_c=accumulate is not None,
                                  batch_invariant=_batch_invariant, precision=_f32_precision(a),
                                  stores_pre_activation=pre is not None, **epilogue)


def _gemm(a, b, out_dtype, a_layout, b_layout, m, n, k, bias=None, accumulate=None,
          activation=None, pre=None):
    """D (m x n) = A @ B (+ bias, one value a column; then `activation`, an
    epilogue step's name; both in f32 before the rounding to D) with A and B
    as stored (layouts as in GemmArguments). With `accumulate` (a contiguous
    m x n tensor of `out_dtype`), D is that tensor and the product is added
    to it in place (C = D, beta = 1: one rounding of the f32 sum). With
    `pre` (an m x n tensor of `out_dtype`), the value before the activation
    is stored there too."""
    precision = _f32_precision(a)
    key = ("gemm", a.dtype, b.dtype, a.get_device(), b.get_device(), out_dtype, a_layout,
           b_layout, m, n, k, _batch_invariant, precision,
           None if bias is None else (bias.shape, bias.dtype, bias.get_device()),
           None if accumulate is None else accumulate.get_device(), activation, pre is None)
    launcher = _launchers.get(key)
    if launcher is None or not (a.is_contiguous() and b.is_contiguous()):
        args = _gemm_arguments(a, b, out_dtype, a_layout, b_layout, m, n, k, bias, accumulate,
                               activation, pre)
        launcher = _launchers[key] = _launcher(args, a.get_device())
    d = a.new_empty((m, n), dtype=out_dtype) if accumulate is None else accumulate
    operands = (_aligned(a), _aligned(b), accumulate, d,
                None if bias is None else _aligned(bias.contiguous()), None, None)
    _run(launcher, _stream(a), operands if pre is None else operands + (pre,),
         None if accumulate is None else (1.0, 1.0))
    return d


def _check_mm(x, w, b):
    """linear's operands: x (M, K) and w (N, K) of one dtype, b of it."""
    if x.dim() != 2 or w.dim() != 2 or x.shape[1] != w.shape[1] or x.dtype != w.dtype:
        raise SpioError(f"spio.mm takes x (M, K) and w (N, K) of one dtype, got "
                        f"{tuple(x.shape)} {x.dtype} and {tuple(w.shape)} {w.dtype}")
    if b is not None and b.dtype != x.dtype:
        raise SpioError(f"the bias must have the input's dtype {x.dtype}, got {b.dtype}")


def _mm(x, w, b=None, activation=None):
    """x (M, K) @ w.t() (+ b, then `activation`, in the GEMM's epilogue) with
    w (N, K): linear's forward."""
    _check_mm(x, w, b)
    return _gemm(x, w, x.dtype, "row", "col", x.shape[0], w.shape[0], x.shape[1], bias=b,
                 activation=activation)


# spio.linear's activations (the GEMM epilogue's steps): torch's function,
# for a weight with a main_grad, and its gradient given the pre-activation.
_ACTIVATIONS = {
    "relu": torch.nn.functional.relu,
    "gelu_tanh": functools.partial(torch.nn.functional.gelu, approximate="tanh"),
    "gelu_erf": torch.nn.functional.gelu,
    "silu": torch.nn.functional.silu,
}
_ACTIVATION_GRADIENTS = {
    "relu": lambda dy, z: torch.ops.aten.threshold_backward(dy, z, 0),
    "gelu_tanh": lambda dy, z: torch.ops.aten.gelu_backward(dy, z, approximate="tanh"),
    "gelu_erf": lambda dy, z: torch.ops.aten.gelu_backward(dy, z),
    "silu": lambda dy, z: torch.ops.aten.silu_backward(dy, z),
}


def _mm_pre(x, w, b, activation):
    """linear's forward with its activation for training: (y, z), z the
    pre-activation (x @ w.t() + b) the GEMM's epilogue stores beside y."""
    _check_mm(x, w, b)
    pre = x.new_empty((x.shape[0], w.shape[0]))
    y = _gemm(x, w, x.dtype, "row", "col", x.shape[0], w.shape[0], x.shape[1], bias=b,
              activation=activation, pre=pre)
    return y, pre


def _mm_dx(dy, w):
    """dY (M, N) @ w (N, K)."""
    dy = dy.contiguous()
    return _gemm(dy, w, dy.dtype, "row", "row", dy.shape[0], w.shape[1], dy.shape[1])


mm_dx_op = _define("mm_dx(Tensor dy, Tensor w) -> Tensor", _mm_dx,
                   lambda dy, w: dy.new_empty((dy.shape[0], w.shape[1])))


def _mm_dw(dy, x):
    """dY.t() @ x (N, K): the weight gradient, accumulated in f32 and
    rounded once to dY's dtype."""
    dy = dy.contiguous()
    return _gemm(dy, x, dy.dtype, "col", "row", dy.shape[1], x.shape[1], dy.shape[0])


mm_dw_op = _define("mm_dw(Tensor dy, Tensor x) -> Tensor", _mm_dw,
                   lambda dy, x: dy.new_empty((dy.shape[1], x.shape[1])))


def _main_grad(weight):
    """weight.main_grad, the f32 buffer a weight's gradients are added to in
    place (Megatron-LM's convention for f32 master gradients), checked;
    None where the weight has none."""
    main_grad = getattr(weight, "main_grad", None)
    if main_grad is None:
        return None
    if not isinstance(main_grad, torch.Tensor) or main_grad.dtype != torch.float32 or \
            main_grad.shape != weight.shape or main_grad.device != weight.device or \
            not main_grad.is_contiguous():
        what = (f"a {main_grad.dtype} tensor of shape {tuple(main_grad.shape)} on "
                f"{main_grad.device}" if isinstance(main_grad, torch.Tensor)
                else type(main_grad).__name__)
        raise SpioError(f"weight.main_grad must be a contiguous float32 tensor of the weight's "
                        f"shape {tuple(weight.shape)} on {weight.device}, got {what}")
    return main_grad


def _mm_dw_accumulate(dy, x, main_grad):
    """main_grad (N, K) f32 += dY.t() @ x: the weight gradient added to the
    f32 master in the GEMM's epilogue, one rounding, no dW tensor."""
    dy = dy.contiguous()
    _gemm(dy, x, torch.float32, "col", "row", dy.shape[1], x.shape[1], dy.shape[0],
          accumulate=main_grad)


mm_dw_accumulate_op = _define("mm_dw_accumulate(Tensor dy, Tensor x, Tensor(a!) main_grad) -> ()",
                              _mm_dw_accumulate, lambda dy, x, main_grad: None)


linear_op = _define("linear(Tensor x, Tensor w, Tensor? b) -> Tensor", _mm,
                    lambda x, w, b: x.new_empty((x.shape[0], w.shape[0])))
linear_activation_op = _define(
    "linear_activation(Tensor x, Tensor w, Tensor? b, str activation) -> Tensor", _mm,
    lambda x, w, b, activation: x.new_empty((x.shape[0], w.shape[0])))
linear_activation_pre_op = _define(
    "linear_activation_pre(Tensor x, Tensor w, Tensor? b, str activation) -> (Tensor, Tensor)",
    _mm_pre, lambda x, w, b, activation: (x.new_empty((x.shape[0], w.shape[0])),
                                          x.new_empty((x.shape[0], w.shape[0]))))


def _linear_activation_setup(ctx, inputs, output):
    x, w, b, activation = inputs
    ctx.save_for_backward(x, w, output[1])
    ctx.has_bias = b is not None
    ctx.activation = activation


def _linear_activation_backward(ctx, dy, dpre):
    x, w, pre = ctx.saved_tensors
    # The gradient at the pre-activation (plus any the pre output got).
    dz = _ACTIVATION_GRADIENTS[ctx.activation](dy, pre)
    if dpre is not None:
        dz = dz + dpre
    dx = mm_dx_op(dz, w) if ctx.needs_input_grad[0] else None
    dw = mm_dw_op(dz, x) if ctx.needs_input_grad[1] else None
    db = dz.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
    return dx, dw, db, None


torch.library.register_autograd("spio::linear_activation_pre", _linear_activation_backward,
                                setup_context=_linear_activation_setup, lib=_lib)


def _linear_setup(ctx, inputs, output):
    x, w, b = inputs
    ctx.save_for_backward(x, w)
    ctx.has_bias = b is not None


def _linear_gradients(ctx, dy, mm_dx, mm_dw):
    """dx, dw and db as the inputs need them, from `mm_dx` and `mm_dw` (the
    operators, or their implementations); db is dy summed in f32."""
    x, w = ctx.saved_tensors
    dx = mm_dx(dy, w) if ctx.needs_input_grad[0] else None
    dw = mm_dw(dy, x) if ctx.needs_input_grad[1] else None
    # A half or bfloat16 sum adds in f32 and rounds once.
    db = dy.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
    return dx, dw, db


def _linear_backward(ctx, dy):
    return _linear_gradients(ctx, dy, mm_dx_op, mm_dw_op)


torch.library.register_autograd("spio::linear", _linear_backward, setup_context=_linear_setup,
                                lib=_lib)


class _LinearFunction(torch.autograd.Function):
    """linear's eager autograd straight over the implementations (as
    _Conv2dGw8Function), without torch.library's wrappers."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        y = _mm(x, weight, bias)
        _linear_setup(ctx, (x, weight, bias), y)
        return y

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, dy):
        return _linear_gradients(ctx, dy, _mm_dx, _mm_dw)


# The C++ extension's plans by linear's shapes: each the address of the
# forward's launcher (and dX's and dW's, for a call recording a gradient),
# with the launchers (kept alive: a pending backward may run them).
_linear_plans = {}


def _linear_plan(x, w, b, training):
    """The plan of linear(x, w, b), built and checked at the shape's first
    call: the forward's launcher, and dX's and dW's where `training`."""
    key = (x.dtype, w.dtype, x.get_device(), w.get_device(), x.shape, w.shape,
           None if b is None else (b.shape, b.dtype, b.get_device()), _batch_invariant,
           _f32_precision(x), training)
    plan = _linear_plans.get(key)
    if plan is None:
        _check_mm(x, w, b)
        (m, k), n, device = x.shape, w.shape[0], x.get_device()
        # dY has y's (x's) dtype and device: x stands for it in the checks.
        launchers = [_launcher(_gemm_arguments(x, w, x.dtype, "row", "col", m, n, k, bias=b),
                               device), None, None]
        if training:
            launchers[1:] = [_launcher(args, device) for args in (
                _gemm_arguments(x, w, x.dtype, "row", "row", m, k, n),
                _gemm_arguments(x, x, x.dtype, "col", "row", n, k, m))]
        address = _native.linear_plan(*_plan_arguments(launchers))
        plan = _linear_plans[key] = (address, launchers)
    return plan[0]


class _LinearMainGradFunction(torch.autograd.Function):
    """linear whose weight gradient is added in place to the weight's f32
    main_grad by the dW GEMM's epilogue (one rounding) rather than returned:
    the weight gets no .grad, as with Megatron-LM's gradient accumulation
    fusion. The registered operators under tracing, the implementations
    in eager mode."""

    @staticmethod
    def forward(ctx, x, weight, bias, main_grad):
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        # Not saved for backward: earlier backward calls add to it.
        ctx.main_grad = main_grad
        return linear_op(x, weight, bias) if torch.compiler.is_compiling() else \
            _mm(x, weight, bias)

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        tracing = torch.compiler.is_compiling()
        dx = None
        if ctx.needs_input_grad[0]:
            dx = mm_dx_op(dy, w) if tracing else _mm_dx(dy, w)
        if ctx.needs_input_grad[1]:
            (mm_dw_accumulate_op if tracing else _mm_dw_accumulate)(dy, x, ctx.main_grad)
        db = dy.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
        return dx, None, db, None


def linear(x, weight, bias=None, activation=None):
    """x @ weight.t() (+ bias, added in the GEMM's epilogue) on Spio's GEMM;
    x (..., K) f16/bf16/f32 on a CUDA device (f32 as
    torch.get_float32_matmul_precision() says). Where the weight has a
    `main_grad` (a float32 tensor of its shape), the backward adds dW to it
    in place instead of giving the weight a .grad.

    `activation` ("relu", "gelu_tanh", "gelu_erf" or "silu") is applied to
    the result in the GEMM's epilogue, on the f32 sum before its one
    rounding; where a gradient is wanted, the epilogue also stores the
    pre-activation (x @ weight.t() + bias) for the backward, which applies
    the activation's gradient (aten's) and runs dX and dW on it. A weight
    with a `main_grad` takes torch's activation on the linear output
    instead (which can differ in the last bit)."""
    if activation is not None:
        if activation not in _ACTIVATIONS:
            raise SpioError(f"activation is one of {', '.join(_ACTIVATIONS)}, not "
                            f"{activation!r}")
        training = _needs_grad(x, weight, bias)
        if training and _main_grad(weight) is not None:
            return _ACTIVATIONS[activation](linear(x, weight, bias))
        x2 = (x if x.dim() == 2 else x.reshape(-1, x.shape[-1])).contiguous()
        if training:
            y = linear_activation_pre_op(x2, weight, bias, activation)[0]
        elif type(x) is not torch.Tensor or torch.compiler.is_compiling():
            y = linear_activation_op(x2, weight, bias, activation)
        else:
            y = _mm(x2, weight, bias, activation)
        return y if x.dim() == 2 else y.reshape(*x.shape[:-1], weight.shape[0])
    x2 = x if x.dim() == 2 else x.reshape(-1, x.shape[-1])
    x2 = x2.contiguous()
    main_grad = _main_grad(weight)
    # Tracing (torch.compile, export) and tensor subclasses take the
    # registered operator; eager calls its implementation, through
    # autograd only where a gradient is wanted.
    if main_grad is not None and torch.is_grad_enabled() and weight.requires_grad:
        y = _LinearMainGradFunction.apply(x2, weight, bias, main_grad)
    elif type(x) is not torch.Tensor or torch.compiler.is_compiling():
        y = linear_op(x2, weight, bias)
    elif _native is None or not weight.is_contiguous():
        # Without the C++ extension (or for a weight it does not take).
        y = _LinearFunction.apply(x2, weight, bias) if _needs_grad(x, weight, bias) else \
            _mm(x2, weight, bias)
    elif _needs_grad(x, weight, bias):
        y = _native.linear(_linear_plan(x2, weight, bias, True), x2, weight, bias)
    else:
        y = _native.linear_forward(_linear_plan(x2, weight, bias, False), x2, weight, bias)
    return y if x.dim() == 2 else y.reshape(*x.shape[:-1], weight.shape[0])


def matmul(a, b):
    """a (M, K) @ b (K, N) on Spio's GEMM, differentiable."""
    return linear_op(a, b.t().contiguous(), None)


def _as_stored(t):
    """A batch of matrices (B, R, C) and the layout its memory holds them in
    without a copy: "row" when contiguous, "col" when it is the transposed
    view of a contiguous (B, C, R) tensor; else a contiguous copy."""
    if t.is_contiguous():
        return t, "row"
    if t.transpose(1, 2).is_contiguous():
        return t, "col"
    return t.contiguous(), "row"


def _bmm(a, b):
    """a (B, M, K) @ b (B, K, N), each operand as stored (a transposed view,
    e.g. k.transpose(1, 2), is read in place)."""
    if (a.dim() != 3 or b.dim() != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1] or
            a.dtype != b.dtype):
        raise SpioError(f"spio.bmm takes a (B, M, K) and b (B, K, N) of one dtype, got "
                        f"{tuple(a.shape)} {a.dtype} and {tuple(b.shape)} {b.dtype}")
    (a, a_layout), (b, b_layout) = _as_stored(a), _as_stored(b)
    batch, m, k = a.shape
    n = b.shape[2]
    precision = _f32_precision(a)
    key = ("bmm", a.dtype, a.get_device(), b.get_device(), a_layout, b_layout, batch, m, n, k,
           precision)
    launcher = _launchers.get(key)
    if launcher is None:
        for name, t in (("a", a), ("b", b)):
            _check_tensor(name, t, _GEMM_DTYPES, a.get_device())
        args = _kernels.GemmArguments(m, n, k, _DTYPES[a.dtype], _DTYPES[a.dtype], a_layout,
                                      b_layout, batch=batch, precision=precision)
        launcher = _launchers[key] = _launcher(args, a.get_device())
    d = a.new_empty((batch, m, n))
    _run(launcher, _stream(a), (_aligned(a), _aligned(b), None, d, None, None, None))
    return d


def _grouped_gemm(a, a_layout, b, b_layout, offs, out_shape, m, n, k, groups, along="rows"):
    """One grouped GEMM launch with A and B as stored (layouts as in
    GemmArguments) and `offs` the groups' ends (along the rows, or along k);
    D of `out_shape` in a's dtype."""
    key = ("grouped_mm", a.dtype, a.get_device(), b.get_device(), offs.get_device(), a_layout,
           b_layout, m, n, k, groups, along)
    launcher = _launchers.get(key)
    if launcher is None:
        _check_tensor("a", a, device=a.get_device())
        _check_tensor("b", b, device=a.get_device())
        if offs.get_device() != a.get_device():
            raise SpioError("offs must be on a's device")
        args = _kernels.GemmArguments(m, n, k, _DTYPES[a.dtype], _DTYPES[a.dtype], a_layout,
                                      b_layout, groups=groups, groups_along=along)
        launcher = _launchers[key] = _launcher(args, a.get_device())
    d = a.new_empty(out_shape)
    _run(launcher, _stream(a), (_aligned(a), _aligned(b), None, d, None, None, _aligned(offs)))
    return d


def _grouped_b(b, k):
    """b (G, K, N) and its layout as the grouped kernel reads it: stored (G,
    N, K) ("col"), or (G, K, N) ("row") where K is a multiple of 64; else a
    (G, N, K) copy."""
    if b.transpose(1, 2).is_contiguous():
        return b, "col"
    if b.is_contiguous() and k % 64 == 0:
        return b, "row"
    return b.transpose(1, 2).contiguous().transpose(1, 2), "col"


def _grouped_mm(a, b, offs):
    """spio.grouped_mm's implementation (checks, launcher, launch)."""
    if (a.dim() != 2 or b.dim() != 3 or a.shape[1] != b.shape[1] or a.dtype != b.dtype or
            offs.dim() != 1 or offs.shape[0] != b.shape[0] or offs.dtype != torch.int32):
        raise SpioError(f"spio.grouped_mm takes a (M, K), b (G, K, N) of one dtype and offs "
                        f"(G,) int32, got {tuple(a.shape)} {a.dtype}, {tuple(b.shape)} "
                        f"{b.dtype} and {tuple(offs.shape)} {offs.dtype}")
    m, k = a.shape
    groups, _, n = b.shape
    b, layout = _grouped_b(b, k)
    return _grouped_gemm(a.contiguous(), "row", b, layout, offs, (m, n), m, n, k, groups)


def _grouped_mm_dx(dy, b, offs):
    """dA (M, K) = each group's rows of dY times its b[g].t(): the grouped
    kernel with b read transposed (its K the reduction)."""
    m, n = dy.shape
    groups, k, _ = b.shape
    b, layout = _grouped_b(b, k)
    # b stored (G, N, K) is b.t() stored (G, N, K) row major, read in place
    # where N is a multiple of 64; stored (G, K, N) it is b.t() column major.
    if layout == "col" and n % 64 != 0:
        b, layout = b.contiguous(), "row"
    transposed = "row" if layout == "col" else "col"
    return _grouped_gemm(dy.contiguous(), "row", b, transposed, offs, (m, k), m, k, n, groups)


def _stored_transposed(b):
    """Whether b (G, K, N) is stored (G, N, K) (and not also (G, K, N))."""
    return b.transpose(1, 2).is_contiguous() and not b.is_contiguous()


def _grouped_mm_dw(a, dy, offs, b):
    """dB (G, K, N), stored as b is: each group's a rows' transpose times its
    dY rows, the groups splitting the reduction (one kernel, f32 sums, one
    rounding)."""
    m, k = a.shape
    n = dy.shape[1]
    groups = b.shape[0]
    a, dy = a.contiguous(), dy.contiguous()
    if _stored_transposed(b):
        # dB.t() (G, N, K) = dY.t() a: dY is its A (N contiguous), a its B.
        d = _grouped_gemm(dy, "col", a, "row", offs, (groups, n, k), n, k, m, groups, "k")
        return d.transpose(1, 2)
    return _grouped_gemm(a, "col", dy, "row", offs, (groups, k, n), k, n, m, groups, "k")


grouped_mm_op = _define("grouped_mm(Tensor a, Tensor b, Tensor offs) -> Tensor", _grouped_mm,
                        lambda a, b, offs: a.new_empty((a.shape[0], b.shape[2])))
grouped_mm_dx_op = _define("grouped_mm_dx(Tensor dy, Tensor b, Tensor offs) -> Tensor",
                           _grouped_mm_dx,
                           lambda dy, b, offs: dy.new_empty((dy.shape[0], b.shape[1])))
grouped_mm_dw_op = _define(
    "grouped_mm_dw(Tensor a, Tensor dy, Tensor offs, Tensor b) -> Tensor", _grouped_mm_dw,
    lambda a, dy, offs, b: b.new_empty((b.shape[0], b.shape[2], b.shape[1])).transpose(1, 2)
    if _stored_transposed(b) else b.new_empty(b.shape))


def _grouped_mm_setup(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _grouped_mm_backward(ctx, dd):
    a, b, offs = ctx.saved_tensors
    da = grouped_mm_dx_op(dd, b, offs) if ctx.needs_input_grad[0] else None
    db = grouped_mm_dw_op(a, dd, offs, b) if ctx.needs_input_grad[1] else None
    return da, db, None


torch.library.register_autograd("spio::grouped_mm", _grouped_mm_backward,
                                setup_context=_grouped_mm_setup, lib=_lib)


def grouped_mm(a, b, offs):
    """A grouped GEMM (a mixture of experts' layer), as torch._grouped_mm:
    a (M, K) holds G groups' rows one after the other, b (G, K, N) one
    matrix a group (stored (G, N, K), as linear layers' weights are, or (G,
    K, N) where K is a multiple of 64; other strides are copied), offs
    (G,) int32 on the device each group's end row; returns (M, N) in a's
    dtype, group g's rows a's times b[g]. One launch, whatever the groups'
    sizes (read on the device: no host synchronization). f16 or bf16, K
    and N multiples of 8, Hopper (sm_90). Differentiable: dA is one
    grouped launch over b transposed, dB one whose groups split the
    reduction (each group's rows), summed in f32 and rounded once, stored
    as b is."""
    # Tracing (torch.compile, export), tensor subclasses and autograd take
    # the registered operator; eager calls its implementation.
    if type(a) is not torch.Tensor or torch.compiler.is_compiling() or \
            (torch.is_grad_enabled() and (a.requires_grad or b.requires_grad)):
        return grouped_mm_op(a, b, offs)
    return _grouped_mm(a, b, offs)


bmm_op = _define("bmm(Tensor a, Tensor b) -> Tensor", _bmm,
                 lambda a, b: a.new_empty((a.shape[0], a.shape[1], b.shape[2])))


def _bmm_setup(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _bmm_backward(ctx, dd):
    a, b = ctx.saved_tensors
    da = bmm_op(dd, b.transpose(1, 2)) if ctx.needs_input_grad[0] else None
    db = bmm_op(a.transpose(1, 2), dd) if ctx.needs_input_grad[1] else None
    return da, db


torch.library.register_autograd("spio::bmm", _bmm_backward, setup_context=_bmm_setup, lib=_lib)


def bmm(a, b):
    """a (B, M, K) @ b (B, K, N) on Spio's batched GEMM, differentiable; b as
    the transposed view of a (B, N, K) tensor (attention's q @
    k.transpose(1, 2)) runs wgmma on Hopper without a copy."""
    return bmm_op(a, b)
