"""ctypes bindings of the Spio C API (include/spio-c/Spio.h)."""

import ctypes
import os
from pathlib import Path


class SpioError(ValueError):
    """Raised when Spio cannot build, compile or run what was asked, with the reason."""


# The C API's interface version (SPIO_ABI_VERSION in include/spio-c/Spio.h)
# that these bindings are written against.
ABI_VERSION = 17

_REBUILD = ("rebuild Spio (scripts/bootstrap.sh run) and reinstall the package "
            "(pip install --no-build-isolation ./python), or set SPIO_LIBRARY to a "
            "libspio_capi.so of this version")


def _candidates():
    if os.environ.get("SPIO_LIBRARY"):
        yield Path(os.environ["SPIO_LIBRARY"])
        return
    here = Path(__file__).resolve().parent
    # An installed package carries the library; a source checkout has it in
    # build/lib beside python/spio.
    yield here / "libspio_capi.so"
    yield here.parent.parent / "build" / "lib" / "libspio_capi.so"


def _checked(library, path):
    """`library` (loaded from `path`) if it is Spio's C API of the version
    these bindings are written against, else SpioError saying what to do."""
    if not hasattr(library, "spio_abi_version"):
        raise SpioError(f"{path} is not Spio's C API library (it has no spio_abi_version); "
                        + _REBUILD)
    library.spio_abi_version.restype = ctypes.c_int32
    version = library.spio_abi_version()
    if version != ABI_VERSION:
        raise SpioError(f"{path} has C API version {version}, this package needs "
                        f"{ABI_VERSION}: " + _REBUILD)
    return library


def _load():
    tried = []
    for path in _candidates():
        try:
            library = ctypes.CDLL(str(path))
        except OSError as error:
            tried.append(f"{path}: {error}")
            continue
        return _checked(library, path), str(path)
    raise SpioError("cannot load the Spio C API library: " + _REBUILD + "; tried " +
                    "; ".join(tried))


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
                ("b_shared", ctypes.c_int32), ("f32_precision", ctypes.c_int32),
                ("groups", ctypes.c_int64), ("pack_layouts", ctypes.c_int32),
                ("groups_along_k", ctypes.c_int32), ("stores_pre_activation", ctypes.c_int32)]


class GemmConfig(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in
                ("block_m", "block_n", "block_k", "warps_m", "warps_n", "stages", "raster",
                 "wgmma", "persistent", "cluster", "swap", "split_k", "pingpong",
                  "promote", "k_ranges", "stream_k")]


class Conv2dProblem(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in
                ("n", "h", "w", "c", "k", "r", "s", "stride_h", "stride_w", "pad_h", "pad_w",
                 "dilation_h", "dilation_w")] + \
        [("input_dtype", ctypes.c_int32), ("output_dtype", ctypes.c_int32),
         ("epilogue_steps", ctypes.c_int32), ("epilogue", ctypes.c_int32 * 8),
         ("bias_dtype", ctypes.c_int32), ("scale_dtype", ctypes.c_int32),
         ("pass_", ctypes.c_int32), ("parts", ctypes.c_int64), ("groups", ctypes.c_int64)]


class Target(ctypes.Structure):
    """The GPU kernels are chosen and sized for (spio_target)."""
    _fields_ = [("chip", ctypes.c_char * 16), ("multiprocessors", ctypes.c_int64),
                ("l2_bytes", ctypes.c_int64), ("shared_bytes_per_block", ctypes.c_int64),
                ("shared_bytes_per_multiprocessor", ctypes.c_int64),
                ("memory_bytes_per_second", ctypes.c_double),
                ("clusters_at_once", ctypes.c_int64 * 3)]


class Conv2dGw8Problem(ctypes.Structure):
    _fields_ = [("pass_", ctypes.c_int32)] + \
        [(name, ctypes.c_int64) for name in
         ("n", "c", "h", "w", "r", "s", "pad_h", "pad_w", "stride", "group_width")] + \
        [("bias", ctypes.c_int32), ("dtype", ctypes.c_int32), ("wgrad_f32", ctypes.c_int32),
         ("target", Target)]


class Conv2dGw8Config(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64)
                for name in ("warps_q", "warps_g", "rows_p", "chunks", "copy_warps", "stages",
                             "row_ring", "reduce_lane_elements")]


class DeviceInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 256), ("compute_major", ctypes.c_int32),
                ("compute_minor", ctypes.c_int32), ("multiprocessors", ctypes.c_int32),
                ("max_shared_bytes_per_block", ctypes.c_int64), ("l2_bytes", ctypes.c_int64),
                ("shared_bytes_per_multiprocessor", ctypes.c_int64)]


DTYPES = {"f16": 0, "bf16": 1, "f32": 2}
PASSES = {"fprop": 0, "dgrad": 1, "wgrad": 2}

lib, library_path = _load()

_P = ctypes.POINTER
_owned = ctypes.c_void_p  # malloc'ed char *, released with spio_free
_SIGNATURES = {
    "spio_free": (None, [ctypes.c_void_p]),
    "spio_version": (ctypes.c_char_p, []),
    "spio_chip_target": (ctypes.c_int32, [ctypes.c_char_p, _P(Target), _P(ctypes.c_void_p)]),
    "spio_chip_has_wgmma": (ctypes.c_int32, [ctypes.c_char_p]),
    "spio_gemm_check": (_owned, [_P(GemmProblem), _P(GemmConfig), _P(Target)]),
    "spio_gemm_choose_config": (GemmConfig, [_P(GemmProblem), _P(Target)]),
    "spio_gemm_source": (_owned, [_P(GemmProblem), _P(GemmConfig)]),
    "spio_gemm_launch_shape": (LaunchShape, [_P(GemmProblem), _P(GemmConfig)]),
    "spio_gemm_pack_launch_shape": (LaunchShape, [_P(GemmProblem), ctypes.c_int32]),
    "spio_gemm_workspace_size": (ctypes.c_int64, [_P(GemmProblem), _P(GemmConfig)]),
    "spio_gemm_tensor_maps": (ctypes.c_int32, [_P(GemmProblem), _P(GemmConfig), ctypes.c_uint64,
                                               ctypes.c_uint64, ctypes.c_void_p,
                                               _P(ctypes.c_void_p)]),
    "spio_conv2d_check": (_owned, [_P(Conv2dProblem), _P(GemmConfig), _P(Target)]),
    "spio_conv2d_choose_config": (GemmConfig, [_P(Conv2dProblem), _P(Target)]),
    "spio_conv2d_wgrad_parts": (ctypes.c_int64, [_P(Conv2dProblem), _P(GemmConfig),
                                                 _P(Target)]),
    "spio_conv2d_workspace_bytes": (ctypes.c_int64, [_P(Conv2dProblem)]),
    "spio_conv2d_block_groups": (ctypes.c_int64, [_P(Conv2dProblem)]),
    "spio_conv2d_source": (_owned, [_P(Conv2dProblem), _P(GemmConfig)]),
    "spio_conv2d_launch_shapes": (ctypes.c_int64, [_P(Conv2dProblem), _P(GemmConfig),
                                                   _P(LaunchShape), ctypes.c_int64]),
    "spio_conv2d_launcher": (ctypes.c_void_p, [_P(Conv2dProblem), _P(GemmConfig),
                                               ctypes.c_void_p, _P(ctypes.c_void_p)]),
    "spio_conv2d_gw8_check": (_owned, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config)]),
    "spio_conv2d_gw8_choose_config": (Conv2dGw8Config, [_P(Conv2dGw8Problem)]),
    "spio_conv2d_gw8_rule_config": (Conv2dGw8Config, [_P(Conv2dGw8Problem)]),
    "spio_conv2d_gw8_candidates": (ctypes.c_int64, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config),
                                                    ctypes.c_int64]),
    "spio_conv2d_gw8_features": (ctypes.c_int64, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config),
                                                  _P(ctypes.c_double), ctypes.c_int64]),
    "spio_conv2d_gw8_feature_name": (ctypes.c_char_p, [ctypes.c_int64]),
    "spio_conv2d_gw8_source": (_owned, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config)]),
    "spio_conv2d_gw8_launch_shape": (LaunchShape, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config)]),
    "spio_conv2d_gw8_workspace_bytes": (ctypes.c_int64,
                                        [_P(Conv2dGw8Problem), _P(Conv2dGw8Config)]),
    "spio_conv2d_gw8_reduce_launch_shape": (LaunchShape, [_P(Conv2dGw8Problem),
                                                          _P(Conv2dGw8Config)]),
    "spio_conv2d_gw8_bias_launch_shape": (LaunchShape, [_P(Conv2dGw8Problem)]),
    "spio_conv2d_gw8_bias_reduce_launch_shape": (LaunchShape, [_P(Conv2dGw8Problem)]),
    "spio_compile": (ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p, _P(ctypes.c_void_p)]),
    "spio_gemm_compile": (ctypes.c_void_p, [_P(GemmProblem), _P(GemmConfig), ctypes.c_char_p,
                                            _P(ctypes.c_void_p)]),
    "spio_conv2d_compile": (ctypes.c_void_p, [_P(Conv2dProblem), _P(GemmConfig), ctypes.c_char_p,
                                              _P(ctypes.c_void_p)]),
    "spio_conv2d_gw8_compile": (ctypes.c_void_p, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config),
                                                  ctypes.c_char_p, _P(ctypes.c_void_p)]),
    "spio_compiled_source": (ctypes.c_char_p, [ctypes.c_void_p]),
    "spio_compiled_destroy": (None, [ctypes.c_void_p]),
    "spio_compiled_ptx": (ctypes.c_char_p, [ctypes.c_void_p]),
    "spio_compiled_cache_outcome": (ctypes.c_char_p, [ctypes.c_void_p]),
    "spio_compiled_num_kernels": (ctypes.c_int32, [ctypes.c_void_p]),
    "spio_compiled_kernel_name": (ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_int32]),
    "spio_compiled_kernel_shared_bytes": (ctypes.c_int64, [ctypes.c_void_p, ctypes.c_int32]),
    "spio_compiled_kernel_block_size": (ctypes.c_int64, [ctypes.c_void_p, ctypes.c_int32]),
    "spio_cache_directory": (_owned, []),
    "spio_device": (ctypes.c_int32, [ctypes.c_int32, _P(DeviceInfo), _P(ctypes.c_void_p)]),
    "spio_device_target": (ctypes.c_int32, [ctypes.c_int32, _P(Target), _P(ctypes.c_void_p)]),
    "spio_loaded_destroy": (None, [ctypes.c_void_p]),
    "spio_launch": (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, LaunchShape,
                                     ctypes.c_int64, ctypes.c_void_p,
                                     _P(ctypes.c_void_p), ctypes.c_int32, _P(ctypes.c_void_p)]),
    "spio_load_compiled": (ctypes.c_void_p, [ctypes.c_int32, ctypes.c_void_p,
                                             _P(ctypes.c_void_p)]),
    "spio_gemm_launcher": (ctypes.c_void_p, [_P(GemmProblem), _P(GemmConfig), ctypes.c_void_p,
                                             _P(ctypes.c_void_p)]),
    "spio_conv2d_gw8_launcher": (ctypes.c_void_p, [_P(Conv2dGw8Problem), _P(Conv2dGw8Config),
                                                   ctypes.c_void_p, _P(ctypes.c_void_p)]),
    "spio_launcher_destroy": (None, [ctypes.c_void_p]),
    "spio_launcher_num_operands": (ctypes.c_int32, [ctypes.c_void_p]),
    "spio_launcher_operand_name": (ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_int32]),
    "spio_launcher_operand_optional": (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_int32]),
    "spio_launcher_num_scalars": (ctypes.c_int32, [ctypes.c_void_p]),
    "spio_launcher_scalar_name": (ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_int32]),
    "spio_launcher_scalar_default": (ctypes.c_float, [ctypes.c_void_p, ctypes.c_int32]),
    "spio_launcher_workspace_bytes": (ctypes.c_int64, [ctypes.c_void_p]),
    "spio_autotune": (ctypes.c_int32, [_P(ctypes.c_void_p), ctypes.c_int32, _P(ctypes.c_uint64),
                                       ctypes.c_int32, ctypes.c_uint64, ctypes.c_char_p,
                                       _P(ctypes.c_int32), _P(ctypes.c_void_p)]),
}
for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes

# Launching holds the GIL (a PyDLL function): it takes microseconds, and a
# launcher's error slot is then used by one thread at a time.
_run_launcher = ctypes.PyDLL(library_path).spio_launcher_run
_run_launcher.restype = ctypes.c_int32
_run_launcher.argtypes = [ctypes.c_void_p, ctypes.c_void_p, _P(ctypes.c_uint64), ctypes.c_int32,
                          ctypes.c_uint64, _P(ctypes.c_float), _P(ctypes.c_void_p)]


def take_string(pointer):
    """The text of a malloc'ed C string (None for NULL), released."""
    if not pointer:
        return None
    try:
        return ctypes.string_at(pointer).decode()
    finally:
        lib.spio_free(pointer)


def _c_text(name, value):
    """`value` encoded for C, whose strings end at the first NUL: text after
    it would be dropped unseen."""
    if not isinstance(value, str) or "\0" in value:
        raise SpioError(f"{name} must be a str without NUL characters, got {value!r:.60}")
    return value.encode()


class Compiled:
    """spio-dialect source compiled to PTX: `source` (the text compiled),
    `ptx`, `kernels` [(name, dynamic shared bytes, block size)] and `cache`
    (where the PTX came from)."""

    def __init__(self, source, chip):
        source, chip = _c_text("source", source), _c_text("chip", chip)
        error = ctypes.c_void_p()
        self._take(lib.spio_compile(source, chip, ctypes.byref(error)), error)

    @classmethod
    def built(cls, compile_workload, structs, chip):
        """A family's workload compiled as the library builds it
        (`compile_workload`: spio_gemm_compile, spio_conv2d_compile or
        spio_conv2d_gw8_compile, of the family's problem and config
        `structs`), not printed and parsed back."""
        compiled = cls.__new__(cls)
        error = ctypes.c_void_p()
        compiled._take(compile_workload(*structs, _c_text("chip", chip), ctypes.byref(error)),
                       error)
        return compiled

    def _take(self, handle, error):
        self.handle = handle
        if not self.handle:
            raise SpioError("compiling spio source failed:\n" + (take_string(error) or ""))
        self.source = lib.spio_compiled_source(self.handle).decode()
        self.ptx = lib.spio_compiled_ptx(self.handle).decode()
        self.kernels = [(lib.spio_compiled_kernel_name(self.handle, i).decode(),
                         lib.spio_compiled_kernel_shared_bytes(self.handle, i),
                         lib.spio_compiled_kernel_block_size(self.handle, i))
                        for i in range(lib.spio_compiled_num_kernels(self.handle))]
        self.cache = lib.spio_compiled_cache_outcome(self.handle).decode()

    def __del__(self):
        if getattr(self, "handle", None):
            lib.spio_compiled_destroy(self.handle)

    def load(self, device=0):
        """The kernels loaded on device `device`, with their launch
        resources."""
        error = ctypes.c_void_p()
        handle = lib.spio_load_compiled(device, self.handle, ctypes.byref(error))
        if not handle:
            raise SpioError(take_string(error))
        return Loaded(handle)


def cache_directory():
    """Where compiled PTX is cached on disk ($SPIO_CACHE_DIR, else the user's
    cache directory)."""
    return take_string(lib.spio_cache_directory())


def device(index=0):
    """Device `index` (DeviceInfo), or SpioError saying why there is none."""
    info, error = DeviceInfo(), ctypes.c_void_p()
    if lib.spio_device(index, ctypes.byref(info), ctypes.byref(error)) != 0:
        raise SpioError(take_string(error))
    return info


def device_target(index=0):
    """Device `index` as a Target, or SpioError saying why there is none."""
    target, error = Target(), ctypes.c_void_p()
    if lib.spio_device_target(index, ctypes.byref(target), ctypes.byref(error)) != 0:
        raise SpioError(take_string(error))
    return target


def chip_target(chip):
    """`chip`'s reference part as a Target (choosing without the device),
    or SpioError for a chip Spio does not compile for."""
    target, error = Target(), ctypes.c_void_p()
    if lib.spio_chip_target(chip.encode(), ctypes.byref(target), ctypes.byref(error)) != 0:
        raise SpioError(take_string(error))
    return target


class Loaded:
    """Kernels loaded on a device (Compiled.load()); unloaded when
    collected."""

    def __init__(self, handle):
        self.handle = handle

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


class Launcher:
    """A problem's launch plan on loaded kernels (spio_gemm_launcher,
    spio_conv2d_gw8_launcher): `operands` (names, in the order run takes
    their addresses), `optional` (those that may be 0), `scalars` (name ->
    default) and `workspace` (scratch bytes a run needs)."""

    def __init__(self, handle, loaded):
        self.handle = handle
        self.loaded = loaded  # the launcher uses it
        count = lib.spio_launcher_num_operands(handle)
        self.operands = tuple(lib.spio_launcher_operand_name(handle, i).decode()
                              for i in range(count))
        self.optional = frozenset(name for i, name in enumerate(self.operands)
                                  if lib.spio_launcher_operand_optional(handle, i))
        self.scalars = {lib.spio_launcher_scalar_name(handle, i).decode():
                        lib.spio_launcher_scalar_default(handle, i)
                        for i in range(lib.spio_launcher_num_scalars(handle))}
        self.workspace = lib.spio_launcher_workspace_bytes(handle)
        self._addresses = ctypes.c_uint64 * count
        self._count = count
        self._scalars = ctypes.c_float * len(self.scalars)
        self._error = ctypes.c_void_p()
        self._error_slot = ctypes.byref(self._error)

    @classmethod
    def create(cls, make, problem, config, loaded):
        """The launcher `make` (spio_gemm_launcher or
        spio_conv2d_gw8_launcher) builds for the problem and config structs
        on `loaded`, or SpioError with the reason."""
        error = ctypes.c_void_p()
        handle = make(problem, config, loaded.handle, ctypes.byref(error))
        if not handle:
            raise SpioError(take_string(error))
        return cls(handle, loaded)

    def __del__(self):
        if getattr(self, "handle", None):
            lib.spio_launcher_destroy(self.handle)

    def run(self, stream, addresses, workspace=0, scalars=None):
        """Launches on `stream` (a CUstream handle, None or 0: the default
        stream) with the operands' device addresses in `operands` order (0
        for an absent optional one), the workspace's and the scalars' values
        in order (None: the defaults)."""
        if len(addresses) != self._count:
            raise SpioError(f"the launcher takes {self._count} operands "
                            f"({', '.join(self.operands)}), got {len(addresses)}")
        if _run_launcher(self.handle, stream, self._addresses(*addresses), self._count, workspace,
                         None if scalars is None else self._scalars(*scalars),
                         self._error_slot):
            raise SpioError(take_string(self._error))


def autotune(launchers, addresses, workspace, key):
    """The index of the fastest of `launchers` (candidates of one problem
    on one device) on the operands at `addresses` and `workspace`, timed by
    the library on the device's default stream, or recorded for `key` (the
    candidates' sources) on this device beside the PTX cache (None: timed,
    and not recorded)."""
    handles = (ctypes.c_void_p * len(launchers))(*(launcher.handle for launcher in launchers))
    array = (ctypes.c_uint64 * len(addresses))(*addresses)
    fastest, error = ctypes.c_int32(), ctypes.c_void_p()
    if lib.spio_autotune(handles, len(launchers), array, len(addresses), workspace,
                         None if key is None else key.encode(), ctypes.byref(fastest),
                         ctypes.byref(error)) != 0:
        raise SpioError(take_string(error))
    return fastest.value
