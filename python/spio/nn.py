"""Layers on Spio's kernels, and swapping them into a model."""

import torch

from . import _torch_ops
from ._capi import SpioError
from .kernels import Conv2dGw8Family


class Conv2dGw8(torch.nn.Module):
    """torch.nn.Conv2d with groups = C / 8 (C in = C out), on Spio's kernels."""

    def __init__(self, channels, kernel_size=3, stride=1, padding=1, bias=True, device=None,
                 dtype=None):
        super().__init__()
        r, s = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
        self.stride = stride
        self.padding = (padding, padding) if isinstance(padding, int) else tuple(padding)
        support = Conv2dGw8Family().layer_support(channels, (r, s), stride, self.padding, bias)
        if not support:
            raise SpioError(f"Spio cannot run Conv2dGw8({channels}, kernel_size={(r, s)}, "
                            f"stride={stride}, padding={self.padding}): {support.reason}")
        reference = torch.nn.Conv2d(channels, channels, (r, s), stride, self.padding,
                                    groups=channels // 8, bias=bias, device=device, dtype=dtype)
        # channels_last weights are the kernels' (C, R, S, 8) without a copy.
        self.weight = torch.nn.Parameter(
            reference.weight.detach().contiguous(memory_format=torch.channels_last))
        self.bias = reference.bias

    @classmethod
    def from_torch(cls, conv):
        """The same layer, sharing the parameters of `conv`; SpioError when
        `conv` is not a grouped conv2d with groups of 8 channels Spio runs
        (kernel sizes, padding and stride as its kernels check them)."""
        c = conv.in_channels
        if not isinstance(conv, torch.nn.Conv2d) or conv.out_channels != c or c % 8 or \
                conv.groups != c // 8:
            raise SpioError(f"{conv} is not a conv2d with groups of 8 channels (C in = C out)")
        if conv.dilation != (1, 1) or conv.padding_mode != "zeros" or \
                conv.stride[0] != conv.stride[1] or conv.stride[0] not in (1, 2) or \
                isinstance(conv.padding, str):
            raise SpioError(f"{conv}: Spio takes dilation 1, zero padding given as numbers, "
                            f"and equal strides of 1 or 2")
        support = Conv2dGw8Family().layer_support(c, conv.kernel_size, conv.stride[0],
                                                  conv.padding, conv.bias is not None)
        if not support:
            raise SpioError(f"{conv}: {support.reason}")
        layer = cls.__new__(cls)
        torch.nn.Module.__init__(layer)
        layer.stride = conv.stride[0]
        layer.padding = tuple(conv.padding)
        layer.weight = conv.weight
        layer.bias = conv.bias
        return layer

    def forward(self, x):
        """As torch.nn.Conv2d, for input in any memory format: one that is
        not channels_last is copied into it first (as cuDNN does where the
        formats differ), and the output is channels_last."""
        x = x.contiguous(memory_format=torch.channels_last)
        return _torch_ops.conv2d_gw8(x, self.weight, self.bias, self.stride, self.padding)


class Linear(torch.nn.Module):
    """torch.nn.Linear on Spio's GEMM (dW accumulated in f32; f32 layers as
    torch.get_float32_matmul_precision() says)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        reference = torch.nn.Linear(in_features, out_features, bias, device, dtype)
        self.weight = reference.weight
        self.bias = reference.bias

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
        return layer

    def forward(self, x):
        return _torch_ops.linear(x, self.weight, self.bias)


def _replacement(module):
    layer = {torch.nn.Linear: Linear, torch.nn.Conv2d: Conv2dGw8}.get(type(module))
    if layer is None:
        return None
    try:
        return layer.from_torch(module)
    except SpioError:
        return None


def transform(model):
    """Replaces, in place, every torch.nn.Linear and every Conv2d with
    groups of 8 channels whose kernel
    size, stride and padding Spio's kernels run by its Spio layer (sharing
    its parameters); leaves the rest; returns the model."""
    for name, child in list(model.named_children()):
        replacement = _replacement(child)
        if replacement is not None:
            setattr(model, name, replacement)
        else:
            transform(child)
    return model
