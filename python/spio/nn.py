"""Layers on Spio's kernels, and swapping them into a model."""

import torch

from . import _capi, _torch_ops
from ._capi import SpioError
from .kernels import Conv2dFamily, Conv2dGw8Family, Support, gpu_available


def _channels_last(parameter):
    """`parameter`, its storage made channels_last in place (as
    Module.to(memory_format=torch.channels_last) makes it): the kernels'
    (K, R, S, C) weights, which each call would otherwise copy."""
    if not parameter.is_contiguous(memory_format=torch.channels_last):
        with torch.no_grad():
            parameter.data = parameter.data.contiguous(memory_format=torch.channels_last)
    return parameter


def _on_implicit_gemm(conv):
    """Whether the torch.nn.Conv2d `conv` would run on the implicit GEMM
    (_torch_ops.implicit_gemm_groups), not the grouped family."""
    return _torch_ops.on_implicit_gemm(conv.in_channels, conv.out_channels, conv.groups)


def _grouped_support(conv):
    """Whether the grouped family runs the torch.nn.Conv2d `conv` (groups >
    1), and if not, why."""
    c = conv.in_channels
    if conv.out_channels != c or c % 8 or c // conv.groups not in _torch_ops._GROUP_WIDTHS:
        return Support(False, f"{conv} is not a conv2d with groups of 1, 2, 4 or 8 channels "
                              f"(C in = C out, a multiple of 8) or of a multiple of 8 input "
                              f"and output channels (24 or more outputs a group, or a block "
                              f"of groups)")
    dilated = conv.dilation != (1, 1)
    if conv.stride[0] != conv.stride[1] or conv.stride[0] not in (1, 2) or \
            (dilated and conv.stride[0] != 1):
        return Support(False, f"{conv}: Spio takes grouped layers of equal strides of 1 or 2, "
                              f"dilated ones at stride 1")
    # A dilated layer runs as the unpadded convolutions of x's phase images.
    support = Conv2dGw8Family().layer_support(c, conv.kernel_size, conv.stride[0],
                                              (0, 0) if dilated else conv.padding,
                                              conv.bias is not None, c // conv.groups)
    return support if support else Support(False, f"{conv}: {support.reason}")


def _layer_support(conv):
    """Whether Spio's kernels run the torch.nn.Conv2d `conv`, and if not,
    why (the input's own sizes are checked when the layer runs)."""
    if not isinstance(conv, torch.nn.Conv2d):
        return Support(False, f"{conv} is not a torch.nn.Conv2d")
    if conv.padding_mode != "zeros" or isinstance(conv.padding, str):
        return Support(False, f"{conv}: Spio takes zero padding given as numbers")
    if not _on_implicit_gemm(conv):
        return _grouped_support(conv)
    groups = _torch_ops.implicit_gemm_groups(conv.in_channels, conv.out_channels, conv.groups)
    support = Conv2dFamily().layer_support(conv.in_channels, conv.out_channels, conv.kernel_size,
                                           conv.stride, conv.padding, conv.dilation,
                                           groups=groups)
    return support if support else Support(False, f"{conv}: {support.reason}")


class Conv2d(torch.nn.Module):
    """torch.nn.Conv2d on Spio's kernels, forward and backward: dense layers
    (groups = 1), those of groups of a multiple of 64 input and output
    channels, those of groups of 16 or 32 channels (C in = C out a
    multiple of 64, as groups of 64 with block-diagonal weights) and those
    of groups of other multiples of 8 channels (RegNet's: each tap of w
    padded to 64 channels) on the implicit GEMM (Hopper, sm_90; dense
    layers also on sm_80 to sm_89, on the mma.sync kernel; any input
    channels, those not a multiple of 8 (RGB stems) unfolded into a
    workspace first, any kernel size, stride, zero padding and dilation
    the kernel's TMA copies take), the backward's dx on Spio where its
    taps read one phase of dx (stride 1, 1x1 downsampling; grouped, any
    stride), dw on Spio, the bias gradient on cuDNN; grouped layers with
    groups of 1 (depthwise), 2, 4 or 8 channels (C in = C out, equal
    strides of 1 or 2, kernels of 1 to 7; dilated at stride 1, as the
    convolutions of x's phase images) on the grouped family's kernels.
    `spio.nn.supports(conv)` says whether a torch.nn.Conv2d is one, and why
    not."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, device=None, dtype=None):
        super().__init__()
        reference = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding,
                                    dilation, groups, bias, device=device, dtype=dtype)
        support = _layer_support(reference)
        if not support:
            raise SpioError(support.reason)
        self._take(reference, copy=True)

    @classmethod
    def from_torch(cls, conv):
        """The same layer, sharing the parameters of `conv` (its weight made
        channels_last in place); SpioError, with the reason, when Spio's
        kernels do not run it."""
        support = _layer_support(conv)
        if not support:
            raise SpioError(support.reason)
        layer = cls.__new__(cls)
        torch.nn.Module.__init__(layer)
        layer._take(conv, copy=False)
        return layer

    def _take(self, conv, copy):
        self.groups = conv.groups
        self._grouped_family = not _on_implicit_gemm(conv)
        self.padding, self.dilation = tuple(conv.padding), tuple(conv.dilation)
        # The grouped family's kernels take one stride.
        self.stride = conv.stride[0] if self._grouped_family else tuple(conv.stride)
        # channels_last weights are the kernels' (K, R, S, C / groups)
        # without a copy.
        if copy:
            self.weight = torch.nn.Parameter(
                conv.weight.detach().contiguous(memory_format=torch.channels_last))
        else:
            self.weight = _channels_last(conv.weight)
        self.bias = conv.bias

    def forward(self, x):
        """As torch.nn.Conv2d, for input in any memory format: one that is
        not channels_last is copied into it first (as cuDNN does where the
        formats differ), and the output is channels_last."""
        if self._grouped_family and self.dilation == (1, 1):
            x = x.contiguous(memory_format=torch.channels_last)
            return _torch_ops.conv2d_gw8(x, self.weight, self.bias, self.stride, self.padding)
        return _torch_ops.conv2d(x, self.weight, self.bias, self.stride, self.padding,
                                 self.dilation, self.groups)


class Conv2dGw8(Conv2d):
    """spio.nn.Conv2d of C channels in groups of `group_width` (8, or 1
    (depthwise), 2 or 4): torch.nn.Conv2d(C, C, kernel_size, stride,
    padding, groups=C / group_width)."""

    def __init__(self, channels, kernel_size=3, stride=1, padding=1, bias=True, device=None,
                 dtype=None, group_width=8):
        if group_width not in _torch_ops._GROUP_WIDTHS or channels % group_width:
            raise SpioError(f"Spio cannot run Conv2dGw8({channels}, group_width={group_width}): "
                            f"its groups are 1, 2, 4 or 8 channels, dividing the channels")
        super().__init__(channels, channels, kernel_size, stride, padding,
                         groups=channels // group_width, bias=bias, device=device, dtype=dtype)

    @classmethod
    def from_torch(cls, conv):
        """The same layer, sharing the parameters of `conv` (its weight made
        channels_last in place); SpioError when `conv` is not a grouped
        conv2d with groups of 1, 2, 4 or 8 channels Spio runs (C a multiple
        of 8; kernel sizes, padding and stride as its kernels check them)."""
        if not isinstance(conv, torch.nn.Conv2d) or _on_implicit_gemm(conv):
            raise SpioError(f"{conv} is not a conv2d with groups of 1, 2, 4 or 8 channels (C in "
                            f"= C out, a multiple of 8)")
        return super().from_torch(conv)


def _hopper():
    """Whether device 0 is a Hopper GPU (the dense conv2d's wgmma kernel)."""
    if not gpu_available():
        return False
    facts = _capi.device(0)
    return (facts.compute_major, facts.compute_minor) == (9, 0)


class Linear(torch.nn.Module):
    """torch.nn.Linear on Spio's GEMM (dW accumulated in f32; f32 layers as
    torch.get_float32_matmul_precision() says). With `main_grad`, the weight
    carries a float32 `main_grad` of its shape, zeroed, to which every
    backward adds dW in place (one rounding, in the GEMM's epilogue) instead
    of setting weight.grad: f32 master gradients for f16/bf16 weights.
    `activation` ("relu", "gelu_tanh", "gelu_erf", "silu") follows the
    product, fused into the GEMM's epilogue where no gradient is wanted (as
    spio.linear's)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None,
                 main_grad=False, activation=None):
        super().__init__()
        reference = torch.nn.Linear(in_features, out_features, bias, device, dtype)
        self.weight = reference.weight
        self.bias = reference.bias
        self.activation = activation
        if main_grad:
            self.weight.main_grad = torch.zeros_like(self.weight, dtype=torch.float32)

    @classmethod
    def from_torch(cls, linear):
        """The same layer, sharing the parameters of `linear` (any sizes: the
        GEMM packs operands whose rows are not 16-byte multiples first)."""
        if not isinstance(linear, torch.nn.Linear):
            raise SpioError(f"{linear} is not a torch.nn.Linear")
        layer = cls.__new__(cls)
        torch.nn.Module.__init__(layer)
        layer.weight = linear.weight
        layer.bias = linear.bias
        layer.activation = None
        return layer

    def forward(self, x):
        return _torch_ops.linear(x, self.weight, self.bias, self.activation)


def supports(module):
    """A Support: whether spio.transform swaps `module` for a Spio layer on
    device 0, and if not, why."""
    if type(module) is torch.nn.Linear:
        return Support(True)
    if type(module) is not torch.nn.Conv2d:
        return Support(False, f"{type(module).__name__} has no Spio layer")
    support = _layer_support(module)
    if support and _on_implicit_gemm(module) and not _hopper():
        return Support(False, f"{module}: device 0 is not a Hopper GPU, and spio.transform "
                              f"takes layers on the implicit GEMM on Hopper's wgmma alone (on "
                              f"sm_80 to sm_89 spio.nn.Conv2d runs dense ones on mma.sync, "
                              f"not measured against cuDNN there)")
    return support


def _replacement(module):
    if not supports(module):
        return None
    if type(module) is torch.nn.Linear:
        return Linear.from_torch(module)
    return (Conv2d if _on_implicit_gemm(module) else Conv2dGw8).from_torch(module)


def transform(model):
    """Replaces, in place, every module `supports` takes (every
    torch.nn.Linear; every Conv2d with groups of 1, 2, 4 or 8 channels
    whose kernel size, stride and padding Spio's kernels run, and, where
    device 0 is a Hopper GPU, every dense or otherwise grouped Conv2d the
    implicit GEMM runs) by its Spio
    layer (sharing its parameters); leaves the rest; returns the model."""
    for name, child in list(model.named_children()):
        replacement = _replacement(child)
        if replacement is not None:
            setattr(model, name, replacement)
        else:
            transform(child)
    return model
