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
import dataclasses
import hashlib
import itertools
import logging
import os
from pathlib import Path
from typing import Callable, Optional, Tuple

from . import _capi
from ._capi import SpioError

log = logging.getLogger("spio")
if os.environ.get("SPIO_LOG_LEVEL"):
    log.setLevel(os.environ["SPIO_LOG_LEVEL"].upper())

LAYOUTS = ("row", "col")


def _dtype_code(name, allowed):
    if name not in allowed:
        raise SpioError(f"unsupported dtype {name!r}; expected one of {', '.join(allowed)}")
    return _capi.DTYPES[name]


@dataclasses.dataclass(frozen=True)
class GemmArguments:
    """D (m x n) = alpha * A @ B (+ beta * C). `a_layout` 'row': A stored m x k,
    'col': k x m; `b_layout` 'row': B stored k x n, 'col': n x k."""
    m: int
    n: int
    k: int
    dtype: str = "bf16"
    out_dtype: Optional[str] = None
    a_layout: str = "row"
    b_layout: str = "col"
    reads_c: bool = False

    @property
    def output_dtype(self):
        return self.out_dtype or self.dtype


@dataclasses.dataclass(frozen=True)
class Conv2dGw8Arguments:
    """Grouped conv2d with groups of 8 channels, NHWC, C = K: `pass_` 'fprop'
    (y from x), 'dgrad' (dx from dy) or 'wgrad' (dw from x and dy)."""
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


@dataclasses.dataclass(frozen=True)
class Metadata:
    """What a kernel instance is, for filtering: the operation, operand dtypes
    and layouts, the alignment its contiguous dimensions need (bytes), its
    tile shape, pipeline stages and the minimum compute capability."""
    operation: str
    dtypes: Tuple[Tuple[str, str], ...]
    layouts: Tuple[Tuple[str, str], ...]
    alignment: int
    tile_shape: Tuple[int, ...]
    stages: int
    min_compute_capability: Tuple[int, int] = (9, 0)

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
    launch_shapes: Tuple[Tuple[int, int, int], ...]
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

    @abc.abstractmethod
    def launch_shapes(self, args, config):
        """(grid x, grid y, block) of each kernel of the source, in order."""

    def workspace_size(self, args, config):
        """Bytes of scratch memory the kernels need."""
        return 0


class Kernel:
    """One instance of a family: a fixed configuration, shapes left open."""

    def __init__(self, family, config):
        self.family = family
        self.config = config
        self.metadata = family.metadata(config)

    def __repr__(self):
        return f"<spio.Kernel {self.family.name} {self.metadata}>"

    def supports(self, args):
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
        self._require(args)
        return self.family.workspace_size(args, self.config)

    def compile(self, args, chip="sm_90"):
        self._require(args)
        source = self.family.source(args, self.config)
        ptx, kernels, cache = _capi.compile_source(source, chip)
        log.info("%s %s: %s (%d bytes of PTX)", self.family.name, args, cache, len(ptx))
        _dump(source, ptx)
        return CompiledKernel(source, ptx, tuple(kernels),
                              tuple(self.family.launch_shapes(args, self.config)), cache)


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
    return (shape.grid_x, shape.grid_y, shape.block)


class GemmFamily(KernelFamily):
    """mma.sync GEMM: f16/bf16 in, f32 accumulation, f16/bf16/f32 out."""
    name = "gemm"
    arguments_type = GemmArguments
    TILES = ((128, 128, 32, 2, 2), (128, 64, 32, 2, 2), (64, 128, 32, 2, 2), (64, 64, 32, 2, 2))
    STAGES = (2, 3, 4)

    def instances(self):
        for dtype, out, a, b, tile, stages in itertools.product(
                ("f16", "bf16"), ("f16", "bf16", "f32"), LAYOUTS, LAYOUTS, self.TILES,
                self.STAGES):
            if out != "f32" and out != dtype:
                continue
            yield (dtype, out, a, b, tile, stages)

    def metadata(self, config):
        dtype, out, a, b, tile, stages = config
        return Metadata("gemm", (("A", dtype), ("B", dtype), ("C", out), ("D", out)),
                        (("A", a), ("B", b), ("D", "row")), 16, tile[:3], stages)

    def _structs(self, args, config):
        dtype, out, a, b, tile, stages = config
        problem = _capi.GemmProblem(args.m, args.n, args.k,
                                    _dtype_code(args.dtype, ("f16", "bf16")),
                                    _dtype_code(args.output_dtype, ("f16", "bf16", "f32")),
                                    args.a_layout == "col", args.b_layout == "col",
                                    int(args.reads_c))
        block_m, block_n, block_k, warps_m, warps_n = tile
        return problem, _capi.GemmConfig(block_m, block_n, block_k, warps_m, warps_n, stages, 1)

    def check(self, args, config):
        dtype, out, a, b, _, _ = config
        for what, got, want in (("dtype", args.dtype, dtype),
                                ("output dtype", args.output_dtype, out),
                                ("A layout", args.a_layout, a), ("B layout", args.b_layout, b)):
            if got != want:
                return f"{what} is {got}, this kernel takes {want}"
        problem, cfg = self._structs(args, config)
        return _capi.take_string(_capi.lib.spio_gemm_check(problem, cfg))

    def source(self, args, config):
        return _capi.take_string(_capi.lib.spio_gemm_source(*self._structs(args, config)))

    def launch_shapes(self, args, config):
        return [_shape(_capi.lib.spio_gemm_launch_shape(*self._structs(args, config)))]


class Conv2dGw8Family(KernelFamily):
    """Grouped conv2d (group width 8), fprop/dgrad/wgrad, stride 1 and 2."""
    name = "conv2d_gw8"
    arguments_type = Conv2dGw8Arguments
    # (warps along q, warps along groups, rows per block)
    TILES = ((4, 2, 16), (4, 2, 8), (2, 4, 8), (1, 8, 8), (1, 8, 16))

    def instances(self):
        return itertools.product(("fprop", "dgrad", "wgrad"), ("f16", "bf16"), self.TILES)

    def metadata(self, config):
        pass_, dtype, tile = config
        operands = {"fprop": ("x", "w", "y"), "dgrad": ("dy", "w", "dx"),
                    "wgrad": ("x", "dy", "dw")}[pass_]
        return Metadata(f"conv2d_gw8_{pass_}", tuple((o, dtype) for o in operands),
                        tuple((o, "nhwc" if o != "w" and o != "dw" else "krsc")
                              for o in operands), 16, tile, 1)

    def _structs(self, args, config):
        pass_, dtype, (warps_q, warps_g, rows) = config
        dw = args.dw_dtype or args.dtype
        if dw not in (args.dtype, "f32"):
            raise SpioError(f"dw is written as the input dtype or f32, not {dw}")
        problem = _capi.Conv2dGw8Problem(
            _capi.PASSES[pass_], args.n, args.c, args.h, args.w, args.r, args.s, args.pad_h,
            args.pad_w, args.stride, int(args.bias), _dtype_code(args.dtype, ("f16", "bf16")),
            int(dw == "f32" and pass_ == "wgrad"))
        return problem, _capi.Conv2dGw8Config(warps_q, warps_g, rows, 0)

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

    def source(self, args, config):
        return _capi.take_string(_capi.lib.spio_conv2d_gw8_source(*self._structs(args, config)))

    def launch_shapes(self, args, config):
        problem, cfg = self._structs(args, config)
        shapes = [_shape(_capi.lib.spio_conv2d_gw8_launch_shape(problem, cfg))]
        if config[0] == "wgrad":
            shapes.append(_shape(_capi.lib.spio_conv2d_gw8_reduce_launch_shape(problem)))
        return shapes

    def workspace_size(self, args, config):
        return _capi.lib.spio_conv2d_gw8_workspace_bytes(*self._structs(args, config))


_families = [GemmFamily(), Conv2dGw8Family()]


def register_family(family):
    """Adds a user's KernelFamily; get_kernels finds its instances."""
    if not isinstance(family, KernelFamily):
        raise SpioError(f"register_family takes a spio.KernelFamily, not {type(family).__name__}")
    _families.append(family)
    return family


def families():
    return list(_families)


def get_kernels(args, metadata_filter: Optional[Callable[[Metadata], bool]] = None):
    """The kernel instances that support `args` (and pass the filter)."""
    found = []
    for family in _families:
        if not isinstance(args, family.arguments_type):
            continue
        for config in family.instances():
            kernel = Kernel(family, config)
            if metadata_filter is not None and not metadata_filter(kernel.metadata):
                continue
            if kernel.supports(args):
                found.append(kernel)
    return found
