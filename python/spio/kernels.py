"""Kernel discovery in the manner of the CUTLASS API.

`get_kernels(args)` lists the kernel instances of every registered family
that support `args`, each with its metadata; `kernel.supports(args)` says
yes or no with the reason, `kernel.compile(args)` compiles the instance
specialized for the shapes to PTX (through the cache), and
`kernel.workspace_size(args)` is the scratch memory it needs. Families
are the built-in GEMM and grouped-convolution ones plus any a user
registers with `register_family` (spio-dialect source and metadata).
"""

import abc
import ctypes
import dataclasses
import functools
import hashlib
import itertools
import logging
import numbers
import os
from pathlib import Path
from typing import Callable, Optional, Tuple

from . import _capi
from ._capi import SpioError

log = logging.getLogger("spio")
if os.environ.get("SPIO_LOG_LEVEL"):
    log.setLevel(os.environ["SPIO_LOG_LEVEL"].upper())

LAYOUTS = ("row", "col")


def _check_sizes(args, names):
    """SpioError unless each of `names` is an integer a C int64 holds (ctypes
    would wrap 2**64 + 8 to 8, or refuse 2.5 with a TypeError)."""
    for name in names:
        value = getattr(args, name)
        # Plain ints first: the ABC check costs about a microsecond a field,
        # which every operator call from PyTorch pays.
        integral = type(value) is int or (not isinstance(value, bool) and
                                          isinstance(value, numbers.Integral))
        if not integral or not -2**63 <= value < 2**63:
            raise SpioError(f"{type(args).__name__}.{name} must be an integer that fits "
                            f"int64, got {value!r}")


# The chip kernels compile for where none is given (Kernel.compile).
DEFAULT_CHIP = "sm_90"


@functools.lru_cache(maxsize=None)
def _default_target():
    try:
        return _capi.device_target(0)
    except SpioError:
        return _capi.chip_target(DEFAULT_CHIP)


def target(chip=None, **facts):
    """The GPU (a _capi.Target) kernels are chosen and sized for: device 0's
    where `chip` is None and there is a GPU, else `chip`'s reference part
    (DEFAULT_CHIP's, an H100 SXM, without either); `facts` (multiprocessors,
    l2_bytes, shared_bytes_per_block, shared_bytes_per_multiprocessor,
    memory_bytes_per_second, clusters_at_once: of 2, 3 and 4 blocks)
    override its own. Another count of multiprocessors makes the part's
    clusters unknown (as many as the multiprocessors hold) unless given."""
    chosen = _default_target() if chip is None else _capi.chip_target(chip)
    result = _capi.Target.from_buffer_copy(chosen)
    if "multiprocessors" in facts:
        result.clusters_at_once[:] = [0, 0, 0]
    for name, value in facts.items():
        if name not in dict(_capi.Target._fields_) or name == "chip":
            raise SpioError(f"a target has no fact {name!r}")
        setattr(result, name, value)
    return result


# The GEMM epilogue's steps, in the C API's numbering.
EPILOGUE_STEPS = ("scale", "bias", "residual", "relu", "gelu_tanh", "gelu_erf", "silu")
_ALONG = {None: 0, "row": 1, "col": 2}
# How f32 inputs are multiplied, in the C API's numbering.
F32_PRECISIONS = ("highest", "high", "medium", "tf32")


def _dtype_code(name, allowed):
    if name not in allowed:
        raise SpioError(f"unsupported dtype {name!r}; expected one of {', '.join(allowed)}")
    return _capi.DTYPES[name]


@dataclasses.dataclass(frozen=True)
class GemmArguments:
    """D (m x n) = epilogue(alpha * A @ B). `a_layout` 'row': A stored m x k,
    'col': k x m; `b_layout` 'row': B stored k x n, 'col': n x k.

    `epilogue` lists the steps applied in order before the store (empty:
    beta * C added where `reads_c`): "scale" and "bias" multiply by and add
    the vectors of those names, running along `scale_along` and `bias_along`
    ("row": m values, "col": n values) in `scale_dtype` and `bias_dtype`
    (default: D's); "residual" adds beta * C (with `reads_c`); "relu",
    "gelu_tanh", "gelu_erf" and "silu" apply that activation.

    With `batch_invariant`, the chosen kernel adds each element's products
    in an order that does not depend on m (K split, or summed in ranges in
    one block, the same way for every m): row i of D has the same bits for
    every m.

    With `batch` > 1, D (and C) hold that many m x n problems one after
    the other, and so do A and B unless `shared` names the one ("a" or
    "b") that serves every problem.

    f32 inputs are multiplied on bf16 tensor cores as sums of bf16 terms:
    `precision` "highest" (3 terms, about f32's accuracy), "high" (2, about
    16 bits) or "medium" (1), as torch.set_float32_matmul_precision names
    them; or, with "tf32" (sm_90 only), as they are on TF32 tensor cores
    (10 mantissa bits; what torch's "high" runs on cuBLAS). Operands split
    into terms, whose contiguous dimension is not a multiple of a 16-byte
    vector or, under "tf32", M- or N-major are packed into the workspace
    first, by a kernel each.

    With `groups` = G > 0 (a grouped GEMM, e.g. a mixture of experts), A's
    and D's m rows are G groups' one after the other, B holds G matrices
    (k x n each, stored n x k: b_layout "col"), and the operand "groups" is
    a device array of G int32, each group's end row (sizes known only on
    the device; a persistent wgmma grid walks them, sm_90). B may also be
    stored k x n (b_layout "row") where k is a multiple of 64. With
    `groups_along="k"` the groups split the reduction instead (a grouped
    GEMM's weight gradient): A stored k x m (a_layout "col"), B k x n
    (b_layout "row"), each group's rows of k one after the other, "groups"
    each group's end along k, and D (and C) G matrices of m x n.
    `stores_pre_activation` (with an activation in the epilogue) also
    stores the value before the activation, D's shape and dtype, into the
    last operand, "pre"."""
    m: int
    n: int
    k: int
    dtype: str = "bf16"
    out_dtype: Optional[str] = None
    a_layout: str = "row"
    b_layout: str = "col"
    reads_c: bool = False
    epilogue: Tuple[str, ...] = ()
    bias_along: Optional[str] = None
    bias_dtype: Optional[str] = None
    scale_along: Optional[str] = None
    scale_dtype: str = "f32"
    batch_invariant: bool = False
    batch: int = 1
    shared: Optional[str] = None
    precision: str = "highest"
    groups: int = 0
    groups_along: str = "rows"
    stores_pre_activation: bool = False

    def __post_init__(self):
        _check_sizes(self, ("m", "n", "k", "batch", "groups"))
        if self.groups_along not in ("rows", "k"):
            raise SpioError(f"groups_along is 'rows' or 'k', not {self.groups_along!r}")
        if self.precision not in F32_PRECISIONS:
            raise SpioError(f"precision is one of {', '.join(F32_PRECISIONS)}, not "
                            f"{self.precision!r}")
        object.__setattr__(self, "epilogue", tuple(self.epilogue))
        unknown = [step for step in self.epilogue if step not in EPILOGUE_STEPS]
        if unknown:
            raise SpioError(f"unknown epilogue step {unknown[0]!r}; expected one of "
                            f"{', '.join(EPILOGUE_STEPS)}")
        if self.shared not in (None, "a", "b"):
            raise SpioError(f"shared is 'a' or 'b', not {self.shared!r}")
        for name in ("bias_along", "scale_along"):
            if getattr(self, name) not in (None, "row", "col"):
                raise SpioError(f"{name} is 'row' or 'col', not {getattr(self, name)!r}")

    @property
    def output_dtype(self):
        return self.out_dtype or self.dtype


# A dense conv2d's passes, in the C API's order (SPIO_FPROP, SPIO_DGRAD,
# SPIO_WGRAD).
CONV_PASSES = ("fprop", "dgrad", "wgrad")


@dataclasses.dataclass(frozen=True)
class Conv2dArguments:
    """Conv2d on the implicit GEMM, forward: y (n, p, q, k) NHWC from x (n, h,
    w, c) NHWC and w (k, r, s, c), f16 or bf16 in, f32 accumulation, f16,
    bf16 or f32 out (`out_dtype`, default the input's). `epilogue` lists
    the steps applied in order before the store: "scale" and "bias" (one
    value an output channel, in `scale_dtype` and `bias_dtype`, default
    y's), "residual" (adds operand C, of y's shape) and the activations
    "relu", "gelu_tanh", "gelu_erf" and "silu". It runs on Hopper (sm_90a)
    as an implicit GEMM: TMA gathers each filter tap's channels of x (on
    sm_80 to sm_89, dense, the mma.sync kernel's threads gather them).
    `pass_="dgrad"` (no epilogue) computes dx (n, h, w, c) from dy (n, p,
    q, k) and w instead, the sizes the forward's (at a stride over 1 a
    kernel a phase of dx, after one zeroing the positions no tap reads);
    `pass_="wgrad"` (no epilogue) dw (k, r, s, c) from
    x and dy (its output dtype dw's), its reduction over the output
    positions split among a thread-block cluster's blocks (a fixed order:
    the same bits every run). `groups` = G > 1 makes it grouped, each group
    of k / G outputs reading its c / G inputs (w and dw then (k, r, s,
    c / G)), for groups of a multiple of 8 input and output channels (those
    not of 64 with each tap of w, and wgrad's dw, padded to 64 channels in
    the workspace)."""
    n: int
    h: int
    w: int
    c: int
    k: int
    r: int = 3
    s: int = 3
    stride: Tuple[int, int] = (1, 1)
    padding: Tuple[int, int] = (1, 1)
    dilation: Tuple[int, int] = (1, 1)
    dtype: str = "bf16"
    out_dtype: Optional[str] = None
    epilogue: Tuple[str, ...] = ()
    bias_dtype: Optional[str] = None
    scale_dtype: str = "f32"
    pass_: str = "fprop"
    groups: int = 1

    def __post_init__(self):
        _check_sizes(self, ("n", "h", "w", "c", "k", "r", "s", "groups"))
        if self.pass_ not in CONV_PASSES:
            raise SpioError(f"a dense conv2d pass is 'fprop', 'dgrad' or 'wgrad', got "
                            f"{self.pass_!r}")
        for name in ("stride", "padding", "dilation"):
            pair = tuple(getattr(self, name))
            if len(pair) != 2 or not all(isinstance(v, int) and v >= 0 for v in pair):
                raise SpioError(f"{name} is a (height, width) pair of non-negative ints, got "
                                f"{getattr(self, name)!r}")
            object.__setattr__(self, name, pair)
        object.__setattr__(self, "epilogue", tuple(self.epilogue))
        unknown = [step for step in self.epilogue if step not in EPILOGUE_STEPS]
        if unknown:
            raise SpioError(f"unknown epilogue step {unknown[0]!r}; expected one of "
                            f"{', '.join(EPILOGUE_STEPS)}")

    @property
    def output_dtype(self):
        return self.out_dtype or self.dtype

    def output_size(self):
        """(p, q): the output's rows and columns."""
        return tuple((size + 2 * pad - dilation * (taps - 1) - 1) // stride + 1
                     for size, taps, stride, pad, dilation in
                     zip((self.h, self.w), (self.r, self.s), self.stride, self.padding,
                         self.dilation))


@dataclasses.dataclass(frozen=True)
class Conv2dGw8Arguments:
    """Grouped conv2d with groups of `group_width` channels (8, or 1 for
    depthwise, 2 or 4, which run on the width-8 kernels), NHWC, C = K: `pass_`
    'fprop' (y from x, plus a bias with `bias`), 'dgrad' (dx from dy) or
    'wgrad' (dw from x and dy, and with `bias` db, dy summed over its
    pixels). w and dw are (C, R, S, group_width)."""
    n: int
    c: int
    h: int
    w: int
    r: int = 3
    s: int = 3
    pad_h: int = 1
    pad_w: int = 1
    stride: int = 1
    pass_: str = "fprop"
    bias: bool = False
    dtype: str = "f16"
    dw_dtype: Optional[str] = None
    group_width: int = 8

    def __post_init__(self):
        _check_sizes(self, ("n", "c", "h", "w", "r", "s", "pad_h", "pad_w", "stride",
                            "group_width"))


@dataclasses.dataclass(frozen=True)
class Metadata:
    """What a kernel instance is, for filtering: the operation, operand dtypes
    and layouts, the alignment its contiguous dimensions need (bytes), its
    tile shape, pipeline stages, the minimum compute capability and the
    tensor-core instruction (mma.sync, or Hopper's wgmma)."""
    operation: str
    dtypes: Tuple[Tuple[str, str], ...]
    layouts: Tuple[Tuple[str, str], ...]
    alignment: int
    tile_shape: Tuple[int, ...]
    stages: int
    min_compute_capability: Tuple[int, int] = (8, 0)
    instruction: str = "mma.sync"

    def dtype(self, operand):
        return dict(self.dtypes)[operand]

    def layout(self, operand):
        return dict(self.layouts)[operand]


@dataclasses.dataclass(frozen=True)
class Support:
    """Whether a kernel supports some arguments; `reason` says why not."""
    ok: bool
    reason: str = ""

    def __bool__(self):
        return self.ok


@dataclasses.dataclass(frozen=True)
class CompiledKernel:
    """A kernel instance compiled for one problem: its spio source, PTX, the
    kernels to launch in order (name, dynamic shared bytes, block size) and
    their grids, and where the PTX came from (compiled or a cache hit)."""
    source: str
    ptx: str
    kernels: Tuple[Tuple[str, int, int], ...]
    launch_shapes: Tuple[Tuple[int, ...], ...]
    cache: str


class KernelFamily(abc.ABC):
    """A family of kernel instances: `name`, the `arguments_type` it takes,
    its instances (configs), their metadata, the spio-dialect source of an
    instance for some arguments and its launch shapes. `check` (None or why
    not) and `workspace_size` (scratch bytes) have defaults."""
    name = "family"
    arguments_type: type = object

    @abc.abstractmethod
    def instances(self):
        """The configs of the family's instances."""

    @abc.abstractmethod
    def metadata(self, config):
        """The Metadata of the instance `config`."""

    def check(self, args, config):
        """None when the instance can run `args`, else the reason."""
        return None

    @abc.abstractmethod
    def source(self, args, config):
        """Spio-dialect source (a module with one gpu.module) for `args`."""

    def compiled(self, args, config, chip):
        """source(args, config) compiled for `chip` (a _capi.Compiled); the
        library's families compile their modules as built instead."""
        return _capi.Compiled(self.source(args, config), chip)

    @abc.abstractmethod
    def launch_shapes(self, args, config):
        """(grid x, grid y, block[, grid z]) of each kernel of the source, in
        order."""

    def workspace_size(self, args, config):
        """Bytes of scratch memory the kernels need."""
        return 0

    def operands(self, args, config):
        """The operand names run() takes: (required, optional)."""
        return (), ()

    def parameters(self, args, config, pointers, scalars):
        """Each kernel's parameters, in launch order, as ctypes values, from
        the operands' device pointers (missing optional ones: 0), the
        workspace's (`pointers["workspace"]`) and the scalar options; for
        families without a launcher."""
        raise SpioError(f"{self.name} kernels cannot be run from Python")

    def launcher(self, args, config, loaded):
        """A _capi.Launcher of the library's launch plan for `args` on the
        `loaded` kernels (Compiled.load()), or None where run() launches
        from launch_shapes and parameters (families written in Python)."""
        return None

    def check_scalars(self, args, scalars):
        """None when run() may take the scalar options `scalars` (a dict)
        for `args`, else the reason."""
        return f"{self.name} takes no scalars, got {sorted(scalars)}" if scalars else None


# Device pointers are 16-byte aligned for the 16-byte vector accesses.
ALIGNMENT = 16


def _pointer(name, operand):
    """The device address of an operand: an int, or anything with data_ptr()."""
    address = operand.data_ptr() if hasattr(operand, "data_ptr") else operand
    if not isinstance(address, int) or address <= 0:
        raise SpioError(f"operand {name!r} must be a device pointer (an int or an object "
                        f"with data_ptr()), got {operand!r}")
    if address % ALIGNMENT:
        raise SpioError(f"operand {name!r} at {address:#x} is not {ALIGNMENT}-byte aligned")
    return address


def _stream(stream):
    if stream is None:
        return None
    handle = getattr(stream, "cuda_stream", stream)
    if not isinstance(handle, int):
        raise SpioError(f"stream must be a CUstream handle or have .cuda_stream, got {stream!r}")
    return handle or None


# Loaded PTX, by its text and device: instances that compile to the same
# share it.
_loaded = {}


class _LibraryFamily(KernelFamily):
    """A family the C library builds: its source is spio_<name>_source's
    text, and it compiles its module as built (spio_<name>_compile) rather
    than printed and parsed back; `_structs` gives both their C problem and
    configuration, `_C_NAME` the functions' prefix."""

    _C_NAME = None

    def source(self, args, config):
        function = getattr(_capi.lib, self._C_NAME + "_source")
        return _capi.take_string(function(*self._structs(args, config)))

    def compiled(self, args, config, chip):
        return _capi.Compiled.built(getattr(_capi.lib, self._C_NAME + "_compile"),
                                    self._structs(args, config), chip)


@dataclasses.dataclass
class _Loaded:
    """An instance's kernels for some arguments, loaded on one device: the
    launcher (or, for families without one, each kernel's (name,
    LaunchShape, dynamic shared bytes), ready for Loaded.launch)."""
    loaded: _capi.Loaded
    launcher: Optional[_capi.Launcher]
    launches: Tuple[Tuple[bytes, _capi.LaunchShape, int], ...]


@dataclasses.dataclass
class _Prepared:
    """What run() settles once per arguments: the operand names, the
    workspace size, and from the first launch on a device, what it loaded
    there (by device index)."""
    required: Tuple[str, ...]
    optional: Tuple[str, ...]
    workspace: int
    devices: dict = dataclasses.field(default_factory=dict)


def _device_of(operands):
    """The device index of the first operand that is a CUDA tensor, else 0."""
    for operand in operands.values():
        index = getattr(operand, "get_device", lambda: -1)()
        if index >= 0:
            return index
    return 0


class Kernel:
    """One instance of a family: a fixed configuration, shapes left open."""

    def __init__(self, family, config):
        self.family = family
        self.config = config
        self.metadata = family.metadata(config)
        # What run() has settled, by arguments.
        self._prepared = {}

    def __repr__(self):
        return f"<spio.Kernel {self.family.name} {self.metadata}>"

    def supports(self, args):
        """A Support: whether the instance runs `args`, and if not, why."""
        if not isinstance(args, self.family.arguments_type):
            return Support(False, f"{self.family.name} takes "
                                  f"{self.family.arguments_type.__name__}, "
                                  f"not {type(args).__name__}")
        try:
            reason = self.family.check(args, self.config)
        except SpioError as error:
            reason = str(error)
        return Support(reason is None, reason or "")

    def _require(self, args):
        support = self.supports(args)
        if not support:
            raise SpioError(f"{self.family.name} kernel {self.metadata.tile_shape} does not "
                            f"support {args}: {support.reason}")

    def workspace_size(self, args):
        """Scratch bytes the instance needs for `args`."""
        return self._prepare(args).workspace

    def _prepare(self, args):
        """What run() settles once for `args`: its checks, operands and
        workspace."""
        prepared = self._prepared.get(args)
        if prepared is None:
            self._require(args)
            prepared = _Prepared(*self.family.operands(args, self.config),
                                 self.family.workspace_size(args, self.config))
            self._prepared[args] = prepared
        return prepared

    def run(self, args, operands, stream=None, workspace=None, device=None, **scalars):
        """Runs the instance on `args` with `operands` (name -> device
        pointer or tensor; kernel.family.operands(args, config) lists the
        names), on `stream` (CUstream handle or torch.cuda.Stream; None: the
        default stream) of device `device` (None: the tensors', else 0).
        Kernels that need scratch memory take a `workspace` of at least
        workspace_size(args) bytes. Everything is checked before anything is
        compiled or launched; nothing is synchronized."""
        prepared = self._prepare(args)
        unknown = set(operands) - set(prepared.required) - set(prepared.optional)
        if unknown:
            raise SpioError(f"unknown operand(s) {sorted(unknown)}; {self.family.name} takes "
                            f"{list(prepared.required)} and optionally "
                            f"{list(prepared.optional)}")
        missing = [name for name in prepared.required if operands.get(name) is None]
        if missing:
            raise SpioError(f"missing operand(s) {missing} for {self.family.name}")
        pointers = {name: _pointer(name, operand) for name, operand in operands.items()
                    if operand is not None}
        if prepared.workspace:
            if workspace is None:
                raise SpioError(f"{self.family.name} needs a workspace of "
                                f"{prepared.workspace} bytes")
            pointers["workspace"] = _pointer("workspace", workspace)
        handle = _stream(stream)
        reason = self.family.check_scalars(args, scalars)
        if reason:
            raise SpioError(reason)
        loaded = self._loaded(args, _device_of(operands) if device is None else device)
        if loaded.launcher is not None:
            launcher = loaded.launcher
            launcher.run(handle, [pointers.get(name, 0) for name in launcher.operands],
                         pointers.get("workspace", 0),
                         [scalars.get(name, value) for name, value in launcher.scalars.items()])
            return
        parameters = self.family.parameters(args, self.config, pointers, scalars)
        for (name, shape, shared), values in zip(loaded.launches, parameters):
            loaded.loaded.launch(name, shape, shared, handle, values)

    def launcher(self, args, device=0):
        """The _capi.Launcher running the instance on `args` on device
        `device` (compiled for it and loaded on first use), or None for a
        family without one; PyTorch's operators launch through it in one
        call."""
        return self._loaded(args, device).launcher

    def _loaded(self, args, device):
        """What the instance loaded for `args` on `device`: on first use,
        checks the device, compiles for it and loads the PTX (shared by
        instances that compile to the same)."""
        prepared = self._prepare(args)
        loaded = prepared.devices.get(device)
        if loaded is not None:
            return loaded
        facts = _capi.device(device)
        capability = (facts.compute_major, facts.compute_minor)
        if capability < self.metadata.min_compute_capability:
            raise SpioError(f"{facts.name.decode()} has compute capability {capability}, this "
                            f"kernel needs {self.metadata.min_compute_capability}")
        compiled = self._compile(args, f"sm_{facts.compute_major}{facts.compute_minor}")
        if (compiled.ptx, device) not in _loaded:
            _loaded[compiled.ptx, device] = compiled.load(device)
        module = _loaded[compiled.ptx, device]
        launcher = self.family.launcher(args, self.config, module)
        launches = () if launcher else tuple(
            (name.encode(), _capi.LaunchShape(*shape), shared)
            for (name, shared, _), shape in zip(compiled.kernels,
                                                self.family.launch_shapes(args, self.config)))
        loaded = prepared.devices[device] = _Loaded(module, launcher, launches)
        return loaded

    def compile(self, args, chip=DEFAULT_CHIP):
        """The instance specialized for `args`, compiled for `chip` (no GPU
        needed); SpioError with the reason when it does not support them."""
        compiled = self._compile(args, chip)
        return CompiledKernel(compiled.source, compiled.ptx, tuple(compiled.kernels),
                              tuple(self.family.launch_shapes(args, self.config)),
                              compiled.cache)

    def _compile(self, args, chip):
        self._require(args)
        compiled = self.family.compiled(args, self.config, chip)
        log.info("%s %s: %s (%d bytes of PTX)", self.family.name, args, compiled.cache,
                 len(compiled.ptx))
        _dump(compiled.source, compiled.ptx)
        return compiled


def _dump(source, ptx):
    """With SPIO_DUMP_DIR set, keeps each compiled source and its PTX."""
    directory = os.environ.get("SPIO_DUMP_DIR")
    if not directory:
        return
    key = hashlib.sha256(source.encode()).hexdigest()[:16]
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    (path / f"{key}.mlir").write_text(source)
    (path / f"{key}.ptx").write_text(ptx)


def _shape(shape):
    return (shape.grid_x, shape.grid_y, shape.block, shape.grid_z)


# Blocks take 128-row tiles in groups of 8 block rows for L2 reuse (the
# kernel ignores it where 8 does not divide the grid's rows).
_RASTER = 8
_WGMMA_OPTIONS = {"persistent": 0, "cluster": 1, "swap": 0, "split_k": 1, "pingpong": 0,
                  "promote": 0, "k_ranges": 1, "stream_k": 0}


def _epilogue_codes(epilogue):
    """The C API's codes of an epilogue's steps."""
    if len(epilogue) > len(EPILOGUE_STEPS):
        raise SpioError(f"an epilogue has at most {len(EPILOGUE_STEPS)} steps, each once")
    return [EPILOGUE_STEPS.index(step) for step in epilogue]


def _default_raster(tile):
    """The raster groups of a tile tuple that names none."""
    return _RASTER if tile[0] == 128 or tile[5:6] == ("wgmma",) else 1


def _gemm_config(tile, stages):
    """The C API's GEMM configuration of a tile (block M, N, K, warps M, N[,
    "wgmma", options...][, "raster=R"]) and its stages."""
    block_m, block_n, block_k, warps_m, warps_n = tile[:5]
    wgmma = tile[5:6] == ("wgmma",)
    options = dict(_WGMMA_OPTIONS)
    raster = _default_raster(tile)
    for option in tile[6:] if wgmma else tile[5:]:
        key, _, value = option.partition("=")
        if key == "raster" and value.isdigit() and int(value) > 0:
            raster = int(value)
            continue
        if key not in options or not wgmma:
            raise SpioError(f"unknown {'wgmma ' if wgmma else ''}tile option {option!r}: "
                            "expected raster=R" + (", persistent=P, cluster=C, swap, split_k=S, "
                                                   "pingpong, promote, k_ranges=R or stream_k"
                                                   if wgmma else ""))
        options[key] = int(value) if value else 1
    return _capi.GemmConfig(block_m, block_n, block_k, warps_m, warps_n, stages, raster,
                            int(wgmma), *options.values())


def _instruction(tile):
    """A GEMM tile's minimum compute capability and tensor-core
    instruction: Hopper's wgmma (sm_90), else mma.sync (sm_80 on)."""
    return ((9, 0), "wgmma") if tile[5:6] == ("wgmma",) else ((8, 0), "mma.sync")


def _gemm_tile(c):
    """The tile tuple of a C API GEMM configuration (its options as
    strings, only those set)."""
    tile = (c.block_m, c.block_n, c.block_k, c.warps_m, c.warps_n)
    if c.wgmma:
        tile += ("wgmma",) + tuple(
            option for option, given in ((f"persistent={c.persistent}", c.persistent),
                                         (f"cluster={c.cluster}", c.cluster > 1),
                                         ("swap", c.swap), (f"split_k={c.split_k}",
                                                            c.split_k > 1),
                                         ("pingpong", c.pingpong),
                                         ("promote", c.promote),
                                         (f"k_ranges={c.k_ranges}", c.k_ranges > 1),
                                         ("stream_k", c.stream_k))
            if given)
    # The chooser's raster groups (bands of tile rows sharing B tiles in
    # L2) where they are not the tuple's default.
    if c.raster != _default_raster(tile):
        tile += (f"raster={c.raster}",)
    return tile


class GemmFamily(_LibraryFamily):
    """GEMM on mma.sync or, on Hopper, wgmma (A and B of any layout, M- and
    N-major ones read as its transposed operands): f16/bf16/f32 in, f32 accumulation, f16/bf16/f32 out. A tile is
    (block M, N, K, warps M, N), and a wgmma tile adds "wgmma" and its
    options as strings: "persistent=P" (a persistent grid of P blocks),
    "cluster=C" (blocks of a cluster sharing B tiles), "swap" (M along
    wgmma's N, for small M), "split_k=S" (blocks of a cluster splitting each
    tile's K), "pingpong" (compute warpgroups taking whole tiles in turn),
    "promote" (each k-tile's sums added to the running ones in f32) and
    "k_ranges=R" (a block summing R ranges of K apart, as split_k=R would)
    and "stream_k" (a persistent grid sharing the last tiles' k-tiles).
    Any tile may end with "raster=R": blocks take tiles in bands of R tile
    rows sharing B tiles in L2 (without it, 8 for wgmma tiles and 128-row
    ones, else 1); chosen tiles name the chooser's where it differs."""

    _C_NAME = "spio_gemm"
    name = "gemm"
    arguments_type = GemmArguments
    TILES = ((128, 128, 32, 2, 2), (128, 64, 32, 2, 2), (64, 128, 32, 2, 2), (64, 64, 64, 2, 2),
             (64, 64, 32, 2, 2))
    STAGES = (2, 3, 4)
    WGMMA_TILES = ((128, 256, 64, 8, 1, "wgmma"), (128, 128, 64, 8, 1, "wgmma"),
                   (64, 128, 64, 4, 1, "wgmma"), (64, 64, 64, 4, 1, "wgmma"))
    WGMMA_STAGES = (3, 4)

    def instances(self):
        for dtype, out, a, b, tile, stages in itertools.product(
                ("f16", "bf16", "f32"), ("f16", "bf16", "f32"), LAYOUTS, LAYOUTS, self.TILES,
                self.STAGES):
            if out != "f32" and out != dtype:
                continue
            yield (dtype, out, a, b, tile, stages)
        # wgmma reads every layout: K-major tiles, M- and N-major ones as
        # its transposed operands (f32 inputs are packed K-major first).
        for dtype, out, a, b, tile, stages in itertools.product(
                ("f16", "bf16", "f32"), ("f16", "bf16", "f32"), LAYOUTS, LAYOUTS,
                self.WGMMA_TILES, self.WGMMA_STAGES):
            if out != "f32" and out != dtype:
                continue
            yield (dtype, out, a, b, tile, stages)

    def metadata(self, config):
        dtype, out, a, b, tile, stages = config
        return Metadata("gemm", (("A", dtype), ("B", dtype), ("C", out), ("D", out)),
                        (("A", a), ("B", b), ("D", "row")), 16, tile[:3], stages,
                        *_instruction(tile))

    @staticmethod
    def _problem(args, pack_layouts=False):
        """The C problem; `pack_layouts` where a wgmma kernel takes it (M- or
        N-major operands it cannot read in place packed K-major first)."""
        scalars = ("f16", "bf16", "f32")
        steps = _epilogue_codes(args.epilogue)
        return _capi.GemmProblem(args.m, args.n, args.k,
                                 _dtype_code(args.dtype, scalars),
                                 _dtype_code(args.output_dtype, scalars),
                                 args.a_layout == "col", args.b_layout == "col",
                                 int(args.reads_c), len(steps),
                                 (ctypes.c_int32 * 8)(*steps), _ALONG[args.bias_along],
                                 _dtype_code(args.bias_dtype or args.output_dtype, scalars),
                                 _ALONG[args.scale_along],
                                 _dtype_code(args.scale_dtype, scalars),
                                 int(args.batch_invariant), args.batch,
                                 int(args.shared == "a"), int(args.shared == "b"),
                                 F32_PRECISIONS.index(args.precision), args.groups,
                                 int(pack_layouts), int(args.groups_along == "k"),
                                 int(args.stores_pre_activation))

    def _structs(self, args, config):
        _, _, _, _, tile, stages = config
        return self._problem(args, tile[5:6] == ("wgmma",)), _gemm_config(tile, stages)

    def chosen(self, args, on=None):
        """The instance spio-jit would choose for `args` on target `on`
        (target(); None: the default): wgmma on Hopper where it reads A and
        B in place or they are packed (a batched M- or N-major operand whose
        K is not a multiple of 64, where packing it is faster), else
        mma.sync; large tiles, smaller ones when large ones leave SMs
        idle."""
        c = _capi.lib.spio_gemm_choose_config(self._problem(args), on or _default_target())
        return (args.dtype, args.output_dtype, args.a_layout, args.b_layout, _gemm_tile(c),
                c.stages)

    def check(self, args, config):
        dtype, out, a, b, _, _ = config
        for what, got, want in (("dtype", args.dtype, dtype),
                                ("output dtype", args.output_dtype, out),
                                ("A layout", args.a_layout, a), ("B layout", args.b_layout, b)):
            if got != want:
                return f"{what} is {got}, this kernel takes {want}"
        problem, cfg = self._structs(args, config)
        return _capi.take_string(_capi.lib.spio_gemm_check(problem, cfg, _default_target()))

    def launch_shapes(self, args, config):
        problem, cfg = self._structs(args, config)
        # The kernels packing A and B (where they are packed) come first.
        packs = [_capi.lib.spio_gemm_pack_launch_shape(problem, operand) for operand in (0, 1)]
        return [_shape(shape) for shape in packs if shape.grid_x] + \
            [_shape(_capi.lib.spio_gemm_launch_shape(problem, cfg))]

    def workspace_size(self, args, config):
        return _capi.lib.spio_gemm_workspace_size(*self._structs(args, config))

    def operands(self, args, config):
        return ("A", "B", "D") + (("C",) if args.reads_c else ()) + tuple(
            vector for vector in ("bias", "scale") if vector in args.epilogue) + (
            ("groups",) if args.groups else ()) + (
            ("pre",) if args.stores_pre_activation else ()), ()

    def check_scalars(self, args, scalars):
        unknown = set(scalars) - {"alpha", "beta"}
        if unknown:
            return f"gemm takes the scalars alpha and beta, not {sorted(unknown)}"
        if "beta" in scalars and not args.reads_c:
            return "beta needs reads_c=True (and operand C)"
        return None

    def launcher(self, args, config, loaded):
        return _capi.Launcher.create(_capi.lib.spio_gemm_launcher,
                                     *self._structs(args, config), loaded)


class Conv2dFamily(_LibraryFamily):
    """Dense conv2d (groups = 1, or groups of a multiple of 64 channels),
    fprop, dgrad and wgrad, as an implicit GEMM on the wgmma kernel
    (sm_90a; the instances listed) or, dense, on the mma.sync kernel (the
    chooser's for sm_80 to sm_89): a config is (dtype, output dtype, tile,
    stages), the tile a GEMM tile (GemmFamily's, options included) whose
    rows are output positions and columns output channels."""

    _C_NAME = "spio_conv2d"
    name = "conv2d"
    arguments_type = Conv2dArguments
    TILES = ((128, 256, 64, 8, 1, "wgmma"), (128, 128, 64, 8, 1, "wgmma"),
             (128, 64, 64, 8, 1, "wgmma"), (64, 128, 64, 4, 1, "wgmma"))
    STAGES = (4, 6)

    def instances(self):
        for dtype, out, tile, stages in itertools.product(
                ("f16", "bf16"), ("f16", "bf16", "f32"), self.TILES, self.STAGES):
            if out == "f32" or out == dtype:
                yield (dtype, out, tile, stages)

    def metadata(self, config):
        dtype, out, tile, stages = config
        return Metadata("conv2d", (("x", dtype), ("w", dtype), ("y", out)),
                        (("x", "nhwc"), ("w", "krsc"), ("y", "nhwc")), 16, tile[:3], stages,
                        *_instruction(tile))

    @staticmethod
    def _problem(args):
        scalars = ("f16", "bf16", "f32")
        steps = _epilogue_codes(args.epilogue)
        return _capi.Conv2dProblem(args.n, args.h, args.w, args.c, args.k, args.r, args.s,
                                   *args.stride, *args.padding, *args.dilation,
                                   _dtype_code(args.dtype, ("f16", "bf16")),
                                   _dtype_code(args.output_dtype, scalars), len(steps),
                                   (ctypes.c_int32 * 8)(*steps),
                                   _dtype_code(args.bias_dtype or args.output_dtype, scalars),
                                   _dtype_code(args.scale_dtype, scalars),
                                   CONV_PASSES.index(args.pass_), 0, args.groups)

    def _structs(self, args, config):
        _, _, tile, stages = config
        problem, gemm = self._problem(args), _gemm_config(tile, stages)
        # wgrad's reduction in as many parts as fill the device's SMs.
        if args.pass_ == "wgrad":
            problem.parts = _capi.lib.spio_conv2d_wgrad_parts(problem, gemm, _default_target())
        return problem, gemm

    def chosen(self, args, on=None):
        """The instance spio-jit would choose for `args` on target `on`
        (target(); None: the default)."""
        c = _capi.lib.spio_conv2d_choose_config(self._problem(args), on or _default_target())
        return (args.dtype, args.output_dtype, _gemm_tile(c), c.stages)

    def check(self, args, config):
        dtype, out, _, _ = config
        for what, got, want in (("dtype", args.dtype, dtype),
                                ("output dtype", args.output_dtype, out)):
            if got != want:
                return f"{what} is {got}, this kernel takes {want}"
        return _capi.take_string(_capi.lib.spio_conv2d_check(*self._structs(args, config),
                                                               _default_target()))

    def launch_shapes(self, args, config):
        problem, gemm = self._structs(args, config)
        count = _capi.lib.spio_conv2d_launch_shapes(problem, gemm, None, 0)
        shapes = (_capi.LaunchShape * count)()
        _capi.lib.spio_conv2d_launch_shapes(problem, gemm, shapes, count)
        return [_shape(shape) for shape in shapes]

    def workspace_size(self, args, config):
        return _capi.lib.spio_conv2d_workspace_bytes(self._structs(args, config)[0])

    def operands(self, args, config):
        if args.pass_ == "dgrad":
            return ("dy", "w", "dx"), ()
        if args.pass_ == "wgrad":
            return ("x", "dy", "dw"), ()
        return ("x", "w", "y") + (("C",) if "residual" in args.epilogue else ()) + tuple(
            vector for vector in ("bias", "scale") if vector in args.epilogue), ()

    def launcher(self, args, config, loaded):
        return _capi.Launcher.create(_capi.lib.spio_conv2d_launcher,
                                     *self._structs(args, config), loaded)

    def layer_support(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                      dtype="bf16", groups=1):
        """A Support: whether the kernel runs layers of these settings,
        and if not, why: the chosen instance's check on one image just large
        enough for the dilated filter (the input's own size is checked when
        the layer runs)."""
        r, s = kernel_size
        h, w = (max(16, dil * (taps - 1) + 1) for taps, dil in zip(kernel_size, dilation))
        try:
            args = Conv2dArguments(1, h, w, in_channels, out_channels, r, s, tuple(stride),
                                   tuple(padding), tuple(dilation), dtype, groups=groups)
        except SpioError as error:
            return Support(False, str(error))
        return Kernel(self, self.chosen(args)).supports(args)


class Conv2dGw8Family(_LibraryFamily):
    """Grouped conv2d (group width 8, or 1, 2 and 4 on the same kernels),
    fprop/dgrad/wgrad, stride 1 and 2."""

    _C_NAME = "spio_conv2d_gw8"
    name = "conv2d_gw8"
    arguments_type = Conv2dGw8Arguments
    # (warps along q, warps along groups, rows per block[, chunks[, copy
    # warps[, stages[, row ring[, reduce lane elements]]]]]), the C API's
    # configuration up to its last field set: chosen() adds chunks where
    # blocks loop over several bands (more than a grid holds, or a band
    # ring the heuristics take) and wgrad's row ring where the heuristics
    # take it; candidates() copy warps where blocks stream their bands, and
    # wgrad's stages and reduce lanes.
    TILES = ((4, 2, 16), (4, 2, 8), (2, 4, 8), (1, 8, 8), (1, 8, 16))
    _TILE_FIELDS = ("warps_q", "warps_g", "rows_p", "chunks", "copy_warps", "stages", "row_ring",
                    "reduce_lane_elements")

    def instances(self):
        return itertools.product(("fprop", "dgrad", "wgrad"), ("f16", "bf16"), self.TILES)

    def metadata(self, config):
        pass_, dtype, tile = config
        operands = {"fprop": ("x", "w", "y"), "dgrad": ("dy", "w", "dx"),
                    "wgrad": ("x", "dy", "dw")}[pass_]
        return Metadata(f"conv2d_gw8_{pass_}", tuple((o, dtype) for o in operands),
                        tuple((o, "nhwc" if o != "w" and o != "dw" else "krsc")
                              for o in operands), 16, tile, 1)

    @staticmethod
    def _problem(args, pass_, on=None):
        """The C problem on target `on` (target(); None: the default)."""
        dw = args.dw_dtype or args.dtype
        if dw not in (args.dtype, "f32"):
            raise SpioError(f"dw is written as the input dtype or f32, not {dw}")
        return _capi.Conv2dGw8Problem(
            _capi.PASSES[pass_], args.n, args.c, args.h, args.w, args.r, args.s, args.pad_h,
            args.pad_w, args.stride, args.group_width, int(args.bias), _dtype_code(args.dtype, ("f16", "bf16")),
            int(dw == "f32" and pass_ == "wgrad"), on or _default_target())

    def _structs(self, args, config):
        pass_, _, tile = config
        if not 3 <= len(tile) <= len(self._TILE_FIELDS):
            raise SpioError(f"a conv2d_gw8 tile is {', '.join(self._TILE_FIELDS[:3])}, then "
                            f"optionally {', '.join(self._TILE_FIELDS[3:])}; got {tile}")
        fields = tuple(tile) + (0,) * (len(self._TILE_FIELDS) - len(tile))
        return self._problem(args, pass_), _capi.Conv2dGw8Config(*fields)

    def check(self, args, config):
        pass_, dtype, _ = config
        if args.pass_ not in _capi.PASSES:
            return f"unknown pass {args.pass_!r}; expected fprop, dgrad or wgrad"
        if args.pass_ != pass_:
            return f"pass is {args.pass_}, this kernel computes {pass_}"
        if args.dtype != dtype:
            return f"dtype is {args.dtype}, this kernel takes {dtype}"
        if args.dw_dtype and args.dw_dtype != args.dtype and pass_ != "wgrad":
            return "only wgrad writes dw"
        return _capi.take_string(_capi.lib.spio_conv2d_gw8_check(*self._structs(args, config)))

    def launch_shapes(self, args, config):
        problem, cfg = self._structs(args, config)
        shapes = [_shape(_capi.lib.spio_conv2d_gw8_launch_shape(problem, cfg))]
        if config[0] == "wgrad":
            shapes.append(_shape(_capi.lib.spio_conv2d_gw8_reduce_launch_shape(problem, cfg)))
            if args.bias:
                shapes.append(_shape(_capi.lib.spio_conv2d_gw8_bias_launch_shape(problem)))
                shapes.append(_shape(_capi.lib.spio_conv2d_gw8_bias_reduce_launch_shape(problem)))
        return shapes

    def workspace_size(self, args, config):
        return _capi.lib.spio_conv2d_gw8_workspace_bytes(*self._structs(args, config))

    def layer_support(self, channels, kernel_size, stride, padding, bias=False, group_width=8):
        """A Support: whether Spio's kernels run layers of these settings,
        and if not, why: the chosen instances' checks of fprop, dgrad and
        wgrad on one 16x16 image, whose refusals of kernel sizes, strides
        and padding hold whatever N, H and W are (those are checked when
        the layer runs)."""
        if len(kernel_size) != 2 or len(padding) != 2:
            raise SpioError(f"kernel_size and padding are (height, width) pairs, got "
                            f"{kernel_size} and {padding}")
        for pass_ in ("fprop", "dgrad", "wgrad"):
            args = Conv2dGw8Arguments(1, channels, 16, 16, *kernel_size, *padding, stride, pass_,
                                      bias and pass_ == "fprop", group_width=group_width)
            support = Kernel(self, self.chosen(args)).supports(args)
            if not support:
                return support
        return Support(True)

    def _checked_problem(self, args, on=None):
        if args.pass_ not in _capi.PASSES:
            raise SpioError(f"unknown pass {args.pass_!r}; expected fprop, dgrad or wgrad")
        return self._problem(args, args.pass_, on)

    def _instance(self, args, c):
        tile = tuple(getattr(c, name) for name in self._TILE_FIELDS)
        while len(tile) > 3 and not tile[-1]:
            tile = tile[:-1]
        return (args.pass_, args.dtype, tile)

    def chosen(self, args):
        """The instance spio-jit would choose for `args` (warps and rows
        sized to the image)."""
        c = _capi.lib.spio_conv2d_gw8_choose_config(self._checked_problem(args))
        return self._instance(args, c)

    def candidates(self, args, on=None):
        """The instances worth timing for `args` on target `on` (target();
        None: the default) (autotuning), in the performance model's order,
        the chosen first; all write the same bits (wgrad's keep the chosen
        blocks, its partial sums)."""
        problem = self._checked_problem(args, on)
        count = _capi.lib.spio_conv2d_gw8_candidates(problem, None, 0)
        configs = (_capi.Conv2dGw8Config * count)()
        _capi.lib.spio_conv2d_gw8_candidates(problem, configs, count)
        return [self._instance(args, c) for c in configs]

    def operands(self, args, config):
        return {"fprop": (("x", "w", "y") + (("bias",) if args.bias else ()), ()),
                "dgrad": (("dy", "w", "dx"), ()),
                "wgrad": (("x", "dy", "dw") + (("db",) if args.bias else ()), ())}[config[0]]

    def launcher(self, args, config, loaded):
        return _capi.Launcher.create(_capi.lib.spio_conv2d_gw8_launcher,
                                     *self._structs(args, config), loaded)


_families = [GemmFamily(), Conv2dFamily(), Conv2dGw8Family()]


def register_family(family):
    """Adds a user's KernelFamily; get_kernels finds its instances."""
    if not isinstance(family, KernelFamily):
        raise SpioError(f"register_family takes a spio.KernelFamily, not {type(family).__name__}")
    _families.append(family)
    return family


def families():
    return list(_families)


def gpu_available():
    """Whether a GPU (device 0) and its driver are there."""
    try:
        _capi.device()
        return True
    except SpioError:
        return False


def _in_family(family, what, call):
    """call(), with an error other than a SpioError raised again as one that
    names the family and the method that raised it."""
    try:
        return call()
    except SpioError:
        raise
    except Exception as error:
        raise SpioError(f"kernel family {family.name!r} raised {type(error).__name__} in "
                        f"{what}: {error}") from error


def get_kernels(args, metadata_filter: Optional[Callable[[Metadata], bool]] = None):
    """The kernel instances that support `args` (and pass the filter)."""
    found = []
    for family in _families:
        if not isinstance(args, family.arguments_type):
            continue
        kernels = _in_family(family, "instances() or metadata()",
                             lambda: [Kernel(family, config) for config in family.instances()])
        for kernel in kernels:
            if metadata_filter is not None and not metadata_filter(kernel.metadata):
                continue
            if _in_family(family, "check()", lambda: kernel.supports(args)):
                found.append(kernel)
    return found
