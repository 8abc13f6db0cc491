"""A stand-in for torch in candidates.py's test without a GPU: the dtypes
it names and the device's properties (no CUDA context, no matmul)."""

import types

__version__ = "stand-in"
bfloat16, float16, float32 = "bfloat16", "float16", "float32"


def _properties(index):
    return types.SimpleNamespace(name="Stand-in GPU", multi_processor_count=132,
                                 L2_cache_size=50 * 1024 * 1024)


cuda = types.SimpleNamespace(get_device_properties=_properties)
