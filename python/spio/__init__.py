"""Spio from Python: kernel discovery, compilation and launching over the C API.

Environment: SPIO_LIBRARY (path of libspio_capi.so), SPIO_CACHE_DIR (where
compiled PTX is cached), SPIO_LOG_LEVEL (level of the "spio" logger, e.g.
INFO to log each compilation), SPIO_DUMP_DIR (keep each compiled source and
its PTX there).
"""

from ._capi import SpioError, library_path
from .kernels import (CompiledKernel, Conv2dGw8Arguments, Conv2dGw8Family, GemmArguments,
                      GemmFamily, Kernel, KernelFamily, Metadata, Support, families,
                      get_kernels, gpu_available, register_family)

__all__ = [
    "CompiledKernel", "Conv2dGw8Arguments", "Conv2dGw8Family", "GemmArguments", "GemmFamily",
    "Kernel", "KernelFamily", "Metadata", "SpioError", "Support", "families", "get_kernels",
    "gpu_available", "library_path", "register_family",
]
