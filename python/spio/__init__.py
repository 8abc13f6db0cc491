"""Spio from Python: kernel discovery, compilation and launching over the C API,
and, with PyTorch, the operators spio.conv2d, spio.conv2d_gw8, spio.linear, spio.matmul,
spio.bmm and spio.grouped_mm, the layers spio.nn.Conv2d, spio.nn.Conv2dGw8 and spio.nn.Linear,
spio.transform(model), spio.set_autotune(True) (conv2d_gw8's configurations
timed per shape) and spio.set_batch_invariant(True) (GEMM rows with the same
bits in any batch).

Environment: SPIO_LIBRARY (path of libspio_capi.so), SPIO_CACHE_DIR (where
compiled PTX is cached), SPIO_LOG_LEVEL (level of the "spio" logger, e.g.
INFO to log each compilation), SPIO_DUMP_DIR (keep each compiled source and
its PTX there).
"""

from ._capi import SpioError, cache_directory, library_path
from .kernels import (CompiledKernel, Conv2dArguments, Conv2dFamily, Conv2dGw8Arguments,
                      Conv2dGw8Family, GemmArguments, GemmFamily, Kernel, KernelFamily, Metadata,
                      Support, families, get_kernels, gpu_available, register_family)

__all__ = [
    "CompiledKernel", "Conv2dArguments", "Conv2dFamily", "Conv2dGw8Arguments", "cache_directory",
    "Conv2dGw8Family", "GemmArguments", "GemmFamily",
    "Kernel", "KernelFamily", "Metadata", "SpioError", "Support", "families", "get_kernels",
    "gpu_available", "library_path", "register_family",
]

# The PyTorch face loads on first use, so that the package works without torch.
_TORCH = {"conv2d": "_torch_ops", "conv2d_gw8": "_torch_ops", "linear": "_torch_ops", "matmul": "_torch_ops",
          "bmm": "_torch_ops", "grouped_mm": "_torch_ops",
          "set_autotune": "_torch_ops", "autotune_enabled": "_torch_ops",
          "set_batch_invariant": "_torch_ops", "batch_invariant_enabled": "_torch_ops",
          "transform": "nn"}


def __getattr__(name):
    import importlib
    if name == "nn":
        value = importlib.import_module(".nn", __name__)
    elif name in _TORCH:
        value = getattr(importlib.import_module("." + _TORCH[name], __name__), name)
    else:
        raise AttributeError(f"module 'spio' has no attribute {name!r}")
    # Later look-ups find it without this function (an operator's every call
    # pays for one).
    globals()[name] = value
    return value
