"""ctypes bindings of the Spio C API (include/spio-c/Spio.h)."""

import ctypes
import os
from pathlib import Path


class SpioError(ValueError):
    """Raised when Spio cannot build, compile or run what was asked, with the reason."""


def _candidates():
    if os.environ.get("SPIO_LIBRARY"):
        yield Path(os.environ["SPIO_LIBRARY"])
        return
    here = Path(__file__).resolve().parent
    # A source checkout: python/spio next to build/lib.
    yield here.parent.parent / "build" / "lib" / "libspio_capi.so"
    yield here / "libspio_capi.so"
    yield Path("libspio_capi.so")


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(str(path)), str(path)
        except OSError as error:
            tried.append(f"{path}: {error}")
    raise SpioError("cannot load the Spio C API library (set SPIO_LIBRARY to libspio_capi.so); "
                    "tried " + "; ".join(tried))


class LaunchShape(ctypes.Structure):
    _fields_ = [("grid_x", ctypes.c_int64), ("grid_y", ctypes.c_int64),
                ("block", ctypes.c_int64), ("grid_z", ctypes.c_int64)]


class GemmProblem(ctypes.Structure):
    _fields_ = [("m", ctypes.c_int64), ("n", ctypes.c_int64), ("k", ctypes.c_int64),
                ("input_dtype", ctypes.c_int32), ("output_dtype", ctypes.c_int32),
                ("a_col_major", ctypes.c_int32), ("b_col_major", ctypes.c_int32),
                ("reads_c", ctypes.c_int32), ("epilogue_steps", ctypes.c_int32),
                ("epilogue", ctypes.c_int32 * 8), ("bias_along", ctypes.c_int32),
                ("bias_dtype", ctypes.c_int32), ("scale_along", ctypes.c_int32),
                ("scale_dtype", ctypes.c_int32), ("batch_invariant", ctypes.c_int32),
                ("batch", ctypes.c_int64), ("a_shared", ctypes.c_int32),
                ("b_shared", ctypes.c_int32)]


class GemmParameters(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int32) for name in
                ("a", "b", "c", "d", "alpha", "beta", "bias", "scale", "a_map", "b_map",
                 "count")]


class GemmConfig(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in
                ("block_m", "block_n", "block_k", "warps_m", "warps_n", "stages", "raster",
                 "wgmma", "persistent", "cluster", "swap", "split_k", "pingpong")]


class Conv2dGw8Problem(ctypes.Structure):
    _fields_ = [("pass_", ctypes.c_int32)] + \
        [(name, ctypes.c_int64) for name in
         ("n", "c", "h", "w", "r", "s", "pad_h", "pad_w", "stride")] + \
        [("bias", ctypes.c_int32), ("dtype", ctypes.c_int32), ("wgrad_f32", ctypes.c_int32),
         ("multiprocessors", ctypes.c_int64), ("l2_bytes", ctypes.c_int64)]


class Conv2dGw8Config(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64)
                for name in ("warps_q", "warps_g", "rows_p", "chunks", "copy_warps", "stages",
                             "row_ring", "reduce_lane_elements")]


class DeviceInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 256), ("compute_major", ctypes.c_int32),
                ("compute_minor", ctypes.c_int32), ("multiprocessors", ctypes.c_int32),
                ("max_shared_bytes_per_block", ctypes.c_int64), ("l2_bytes", ctypes.c_int64)]


DTYPES = {"f16": 0, "bf16": 1, "f32": 2}
PASSES = {"fprop": 0, "dgrad": 1, "wgrad": 2}

lib, library_path = _load()

_P = ctypes.POINTER
_owned = ctypes.c_void_p  # malloc'ed char *, released with spio_free
_SIGNATURES = {
    "spio_free": (None, [ctypes.c_void_p]),
    "spio_version": (ctypes.c_char_p, []),
    "spio_gemm_check": (_owned, [_P(GemmProblem), _P(GemmConfig)]),
    "spio_gemm_choose_config": (GemmConfig, [_P(GemmProblem), ctypes.c_int64, ctypes.c_int32]),
    "spio_gemm_source": (_owned, [_P(GemmProblem), _P(GemmConfig)]),
    "spio_gemm_parameters_of": (GemmParameters, [_P(GemmProblem), _P(GemmConfig)]),
    "spio_gemm_launch_shape": (LaunchShape, [_P(GemmProblem), _P(GemmConfig)]),
    "spio_gemm_tensor_maps": (ctypes.c_int32, [_P(GemmProblem), _P(GemmConfig), ctypes.c_uint64,
                                               ctypes.c_uint64, ctypes.c_void_p,
                                               _P(ctypes.c_void_p)]),
    "spio_conv2d_gw8_check": (_owned, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config)]),
    "spio_conv2d_gw8_choose_config": (Conv2dGw8Config, [_P(Conv2dGw8Problem)]),
    "spio_conv2d_gw8_candidates": (ctypes.c_int64, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config),
                                                    ctypes.c_int64]),
    "spio_conv2d_gw8_source": (_owned, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config)]),
    "spio_conv2d_gw8_launch_shape": (LaunchShape, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config)]),
    "spio_conv2d_gw8_workspace_bytes": (ctypes.c_int64,
                                        [_P(Conv2dGw8Problem), _P(Conv2dGw8Config)]),
    "spio_conv2d_gw8_reduce_launch_shape": (LaunchShape, [_P(Conv2dGw8Problem),
                                                          _P(Conv2dGw8Config)]),
    "spio_conv2d_gw8_bias_launch_shape": (LaunchShape, [_P(Conv2dGw8Problem)]),
    "spio_conv2d_gw8_bias_reduce_launch_shape": (LaunchShape, [_P(Conv2dGw8Problem)]),
    "spio_compile": (ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p, _P(ctypes.c_void_p)]),
    "spio_compiled_destroy": (None, [ctypes.c_void_p]),
    "spio_compiled_ptx": (ctypes.c_char_p, [ctypes.c_void_p]),
    "spio_compiled_cache_outcome": (ctypes.c_char_p, [ctypes.c_void_p]),
    "spio_compiled_num_kernels": (ctypes.c_int32, [ctypes.c_void_p]),
    "spio_compiled_kernel_name": (ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_int32]),
    "spio_compiled_kernel_shared_bytes": (ctypes.c_int64, [ctypes.c_void_p, ctypes.c_int32]),
    "spio_compiled_kernel_block_size": (ctypes.c_int64, [ctypes.c_void_p, ctypes.c_int32]),
    "spio_cache_directory": (_owned, []),
    "spio_device": (ctypes.c_int32, [_P(DeviceInfo), _P(ctypes.c_void_p)]),
    "spio_load": (ctypes.c_void_p, [ctypes.c_char_p, _P(ctypes.c_void_p)]),
    "spio_loaded_destroy": (None, [ctypes.c_void_p]),
    "spio_launch": (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, LaunchShape,
                                     ctypes.c_int64, ctypes.c_void_p,
                                     _P(ctypes.c_void_p), ctypes.c_int32, _P(ctypes.c_void_p)]),
}
for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes


def take_string(pointer):
    """The text of a malloc'ed C string (None for NULL), released."""
    if not pointer:
        return None
    try:
        return ctypes.string_at(pointer).decode()
    finally:
        lib.spio_free(pointer)


def compile_source(source, chip):
    """(ptx, [(name, shared bytes, block size)], cache outcome) of spio-dialect source."""
    # C strings end at the first NUL: text after it would be dropped unseen.
    for name, value in (("source", source), ("chip", chip)):
        if not isinstance(value, str) or "\0" in value:
            raise SpioError(f"{name} must be a str without NUL characters, got {value!r:.60}")
    error = ctypes.c_void_p()
    handle = lib.spio_compile(source.encode(), chip.encode(), ctypes.byref(error))
    if not handle:
        raise SpioError("compiling spio source failed:\n" + (take_string(error) or ""))
    try:
        kernels = [(lib.spio_compiled_kernel_name(handle, i).decode(),
                    lib.spio_compiled_kernel_shared_bytes(handle, i),
                    lib.spio_compiled_kernel_block_size(handle, i))
                   for i in range(lib.spio_compiled_num_kernels(handle))]
        return (lib.spio_compiled_ptx(handle).decode(), kernels,
                lib.spio_compiled_cache_outcome(handle).decode())
    finally:
        lib.spio_compiled_destroy(handle)


def cache_directory():
    """Where compiled PTX is cached on disk ($SPIO_CACHE_DIR, else the user's
    cache directory)."""
    return take_string(lib.spio_cache_directory())


def device():
    """Device 0 (DeviceInfo), or SpioError saying why there is none."""
    info, error = DeviceInfo(), ctypes.c_void_p()
    if lib.spio_device(ctypes.byref(info), ctypes.byref(error)) != 0:
        raise SpioError(take_string(error))
    return info


class Loaded:
    """PTX loaded on the device; unloaded when collected."""

    def __init__(self, ptx):
        error = ctypes.c_void_p()
        self.handle = lib.spio_load(ptx.encode(), ctypes.byref(error))
        if not self.handle:
            raise SpioError(take_string(error))

    def __del__(self):
        if getattr(self, "handle", None):
            lib.spio_loaded_destroy(self.handle)

    def launch(self, name, shape, shared_bytes, stream, parameters):
        """Launches kernel `name` (bytes) on `shape` (a LaunchShape) with
        `parameters` (ctypes values, in order)."""
        pointers = (ctypes.c_void_p * len(parameters))(*map(ctypes.addressof, parameters))
        error = ctypes.c_void_p()
        if lib.spio_launch(self.handle, name, shape, shared_bytes, stream, pointers,
                           len(parameters), ctypes.byref(error)) != 0:
            raise SpioError(take_string(error))

