"""Layers on Spio's kernels, and swapping them into a model."""

import torch

from . import _capi, _torch_ops
from ._capi import SpioError
from .kernels import Conv2dFamily, Conv2dGw8Family, gpu_available


def _channels_last(parameter):
    """`parameter`, its storage made channels_last in place (as
    Module.to(memory_format=torch.channels_last) makes it): the kernels'
    (K, R, S, C) weights, which each call would otherwise copy."""
    if not parameter.is_contiguous(memory_format=torch.channels_last):
        with torch.no_grad():
            parameter.data = parameter.data.contiguous(memory_format=torch.channels_last)
    return parameter


class Conv2dGw8(torch.nn.Module):
    """torch.nn.Conv2d with groups = C / group_width (C in = C out), on Spio's
    kernels: groups of 8 channels, or of 1 (depthwise), 2 or 4."""

    def __init__(self, channels, kernel_size=3, stride=1, padding=1, bias=True, device=None,
                 dtype=None, group_width=8):
        super().__init__()
        r, s = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
        self.stride = stride
        self.padding = (padding, padding) if isinstance(padding, int) else tuple(padding)
        support = Conv2dGw8Family().layer_support(channels, (r, s), stride, self.padding, bias,
                                                  group_width)
        if not support:
            raise SpioError(f"Spio cannot run Conv2dGw8({channels}, kernel_size={(r, s)}, "
                            f"stride={stride}, padding={self.padding}, "
                            f"group_width={group_width}): {support.reason}")
        reference = torch.nn.Conv2d(channels, channels, (r, s), stride, self.padding,
                                    groups=channels // group_width, bias=bias, device=device,
                                    dtype=dtype)
        # channels_last weights are the kernels' (C, R, S, g) without a copy.
        self.weight = torch.nn.Parameter(
            reference.weight.detach().contiguous(memory_format=torch.channels_last))
        self.bias = reference.bias

    @classmethod
    def from_torch(cls, conv):
        """The same layer, sharing the parameters of `conv` (its weight made
        channels_last in place); SpioError when `conv` is not a grouped
        conv2d with groups of 1, 2, 4 or 8 channels Spio runs (C a multiple
        of 8; kernel sizes, padding and stride as its kernels check them)."""
        c = conv.in_channels
        if not isinstance(conv, torch.nn.Conv2d) or conv.out_channels != c or c % 8 or \
                c % conv.groups or c // conv.groups not in (1, 2, 4, 8):
            raise SpioError(f"{conv} is not a conv2d with groups of 1, 2, 4 or 8 channels (C in "
                            f"= C out, a multiple of 8)")
        if conv.dilation != (1, 1) or conv.padding_mode != "zeros" or \
                conv.stride[0] != conv.stride[1] or conv.stride[0] not in (1, 2) or \
                isinstance(conv.padding, str):
            raise SpioError(f"{conv}: Spio takes dilation 1, zero padding given as numbers, "
                            f"and equal strides of 1 or 2")
        support = Conv2dGw8Family().layer_support(c, conv.kernel_size, conv.stride[0],
                                                  conv.padding, conv.bias is not None,
                                                  c // conv.groups)
        if not support:
            raise SpioError(f"{conv}: {support.reason}")
        layer = cls.__new__(cls)
        torch.nn.Module.__init__(layer)
        layer.stride = conv.stride[0]
        layer.padding = tuple(conv.padding)
        layer.weight = _channels_last(conv.weight)
        layer.bias = conv.bias
        return layer

    def forward(self, x):
        """As torch.nn.Conv2d, for input in any memory format: one that is
        not channels_last is copied into it first (as cuDNN does where the
        formats differ), and the output is channels_last."""
        x = x.contiguous(memory_format=torch.channels_last)
        return _torch_ops.conv2d_gw8(x, self.weight, self.bias, self.stride, self.padding)


class Conv2d(torch.nn.Module):
    """A dense torch.nn.Conv2d (groups = 1) on Spio's implicit GEMM (Hopper,
    sm_90): the forward on Spio, the backward's dx on Spio where its taps
    read one phase of dx (stride 1, 1x1 downsampling), dw on Spio where C
    is a multiple of 64, the rest on cuDNN; input channels a
    multiple of 8, any kernel size, stride, zero padding and dilation the
    kernel's TMA copies take."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 bias=True, device=None, dtype=None):
        super().__init__()
        reference = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding,
                                    dilation, bias=bias, device=device, dtype=dtype)
        self._take(reference)

    @classmethod
    def from_torch(cls, conv):
        """The same layer, sharing the parameters of `conv` (its weight made
        channels_last in place); SpioError when `conv` is not a dense conv2d
        Spio runs."""
        if not isinstance(conv, torch.nn.Conv2d) or conv.groups != 1:
            raise SpioError(f"{conv} is not a dense conv2d (groups = 1)")
        layer = cls.__new__(cls)
        torch.nn.Module.__init__(layer)
        layer._take(conv)
        return layer

    def _take(self, conv):
        if conv.padding_mode != "zeros" or isinstance(conv.padding, str):
            raise SpioError(f"{conv}: Spio takes zero padding given as numbers")
        support = Conv2dFamily().layer_support(conv.in_channels, conv.out_channels,
                                               conv.kernel_size, conv.stride, conv.padding,
                                               conv.dilation)
        if not support:
            raise SpioError(f"{conv}: {support.reason}")
        self.stride, self.padding, self.dilation = conv.stride, conv.padding, conv.dilation
        self.weight = _channels_last(conv.weight)
        self.bias = conv.bias

    def forward(self, x):
        """As torch.nn.Conv2d; an input that is not channels_last is copied
        into it first, and the output is channels_last."""
        return _torch_ops.conv2d(x, self.weight, self.bias, self.stride, self.padding,
                                 self.dilation)


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


def _replacement(module):
    if type(module) is torch.nn.Linear:
        layers = (Linear,)
    elif type(module) is torch.nn.Conv2d:
        # Dense layers run on Hopper's wgmma only.
        layers = (Conv2dGw8,) + ((Conv2d,) if module.groups == 1 and _hopper() else ())
    else:
        return None
    for layer in layers:
        try:
            return layer.from_torch(module)
        except SpioError:
            pass
    return None


def transform(model):
    """Replaces, in place, every torch.nn.Linear, every Conv2d with groups
    of 1, 2, 4 or 8 channels whose kernel size, stride and padding Spio's
    kernels run, and, where device 0 is a Hopper GPU, every dense Conv2d
    Spio runs, by its Spio layer (sharing its parameters); leaves the rest;
    returns the model."""
    for name, child in list(model.named_children()):
        replacement = _replacement(child)
        if replacement is not None:
            setattr(model, name, replacement)
        else:
            transform(child)
    return model
