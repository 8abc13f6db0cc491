"""A stand-in for the torch that bench.py's cuDNN table uses, without a
GPU (conv2d-gw8-bench-merge.test): each convolution takes 2 ms and each
copy 1 ms of a clock that CUDA events read, on an 'H0' with 50 MB of L2."""

import types

__version__ = "0.test"
float16, uint8 = "float16", "uint8"
channels_last = "channels_last"
clock = {"ms": 0.0}


class Tensor:
    def __init__(self, count):
        self.count = count

    def to(self, memory_format=None):
        return self

    contiguous = to

    def numel(self):
        return self.count

    def copy_(self, other):
        clock["ms"] += 1.0
        return self


def _tensor(*sizes, **_):
    count = 1
    for size in sizes:
        count *= size
    return Tensor(count)


def _convolution(*_, **__):
    clock["ms"] += 2.0
    return Tensor(1)


class Event:
    def __init__(self, enable_timing):
        pass

    def record(self):
        self.at = clock["ms"]

    def query(self):
        return False

    def synchronize(self):
        pass

    def elapsed_time(self, stop):
        return stop.at - self.at


randn = empty = _tensor
randn_like = empty_like = lambda t, **_: Tensor(t.count)
nn = types.SimpleNamespace(functional=types.SimpleNamespace(conv2d=_convolution))
ops = types.SimpleNamespace(aten=types.SimpleNamespace(convolution_backward=_convolution))
backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(benchmark=False, version=lambda: 1))
cuda = types.SimpleNamespace(
    Event=Event, _sleep=lambda cycles: None, get_device_name=lambda: "H0",
    get_device_properties=lambda index: types.SimpleNamespace(L2_cache_size=50_000_000))
