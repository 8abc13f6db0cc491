"""CPU tests of the Python package: discovery, metadata, support reasons,
compilation to PTX (no GPU needed), user families, environment, errors."""

import ctypes
import ctypes.util
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

import pytest

import spio
from spio import _capi

# An sm_80 part with an H100's 132 multiprocessors: where the GEMM chooses
# mma.sync, as its rules were written for.
MMA_SYNC_132 = spio.kernels.target("sm_80", multiprocessors=132)

GEMM = spio.GemmArguments(1000, 1000, 1000, "bf16")
WGRAD = spio.Conv2dGw8Arguments(8, 64, 56, 56, pass_="wgrad")


def expect_error(function, *needles):
    try:
        function()
    except spio.SpioError as error:
        for needle in needles:
            assert needle in str(error), str(error)
        return
    raise AssertionError("expected a SpioError")


def test_gemm_discovery_lists_only_supporting_instances():
    kernels = spio.get_kernels(GEMM)
    assert kernels
    for kernel in kernels:
        assert kernel.supports(GEMM)
        meta = kernel.metadata
        assert meta.operation == "gemm"
        assert meta.dtype("A") == "bf16" and meta.dtype("D") == "bf16"
        assert meta.layout("A") == "row" and meta.layout("B") == "col"
        assert meta.alignment == 16
        assert meta.min_compute_capability == ((9, 0) if meta.instruction == "wgmma" else (8, 0))
    tiles = {(k.metadata.instruction, k.metadata.tile_shape, k.metadata.stages) for k in kernels}
    assert len(tiles) == len(kernels)  # one instance per instruction, tile and stage count
    assert {k.metadata.instruction for k in kernels} == {"mma.sync", "wgmma"}


def test_metadata_filter():
    kernels = spio.get_kernels(GEMM, lambda m: m.tile_shape == (64, 64, 32) and m.stages == 3)
    assert [(k.metadata.tile_shape, k.metadata.stages) for k in kernels] == [((64, 64, 32), 3)]
    assert spio.get_kernels(GEMM, lambda m: m.operation == "conv2d_gw8_fprop") == []


def test_f32_output_and_column_major_instances():
    args = spio.GemmArguments(256, 128, 64, "f16", out_dtype="f32", a_layout="col")
    kernels = spio.get_kernels(args)
    assert kernels
    assert all(k.metadata.dtype("D") == "f32" and k.metadata.layout("A") == "col"
               for k in kernels)


def test_supports_says_why_not():
    kernel = spio.get_kernels(GEMM)[0]
    huge = spio.GemmArguments(2 ** 40, 64, 64, "bf16")
    support = kernel.supports(huge)
    assert not support and "2^40 elements" in support.reason
    support = kernel.supports(spio.GemmArguments(64, 64, 64, "f16"))
    assert not support and "dtype is f16" in support.reason
    support = kernel.supports(WGRAD)
    assert not support and "takes GemmArguments" in support.reason
    assert spio.get_kernels(huge) == []


def test_unaligned_and_f32_operands_are_packed_first():
    for args in (spio.GemmArguments(7, 1000, 999, "bf16"),
                 spio.GemmArguments(257, 257, 257, "f16", a_layout="col", b_layout="row"),
                 spio.GemmArguments(300, 200, 100, "f32", precision="high")):
        kernel = spio.get_kernels(args)[0]
        family = kernel.family
        # Two packing kernels, then the GEMM, sharing a workspace.
        assert len(family.launch_shapes(args, kernel.config)) == 3
        assert family.workspace_size(args, kernel.config) > 0
        source = family.source(args, kernel.config)
        assert "gpu.func @gemm_pack_a" in source and "gpu.func @gemm_pack_b" in source
    # Only operands 0 (A) and 1 (B) have packing kernels.
    problem = spio.kernels.GemmFamily._problem(args)
    assert spio._capi.lib.spio_gemm_pack_launch_shape(problem, 2).grid_x == 0
    assert spio._capi.lib.spio_gemm_pack_launch_shape(problem, 1).grid_x > 0
    aligned = spio.GemmArguments(64, 64, 64, "bf16")
    kernel = spio.get_kernels(aligned)[0]
    assert len(kernel.family.launch_shapes(aligned, kernel.config)) == 1
    assert kernel.family.workspace_size(aligned, kernel.config) == 0
    expect_error(lambda: spio.GemmArguments(64, 64, 64, "f32", precision="low"),
                 "precision is one of highest, high, medium, tf32")
    # The highest precision adds each k-tile's sums in f32 (promote).
    family = spio.kernels.GemmFamily()
    for precision, promoted in (("highest", True), ("high", False)):
        args = spio.GemmArguments(2048, 2048, 2048, "f32", precision=precision)
        config = family.chosen(args, spio.kernels.target("sm_90"))
        assert ("promote" in config[4]) == promoted
        assert family.check(args, config) is None


def test_targets_say_how_many_clusters_run_at_once():
    """sm_90's reference part runs 66, 39 and 30 clusters of 2, 3 and 4
    blocks at once; another count of multiprocessors makes them unknown
    (as many as the multiprocessors hold) unless given; decoding GEMMs
    split K by clusters of 3 only where they all run at once."""
    hopper = spio.kernels.target("sm_90")
    assert list(hopper.clusters_at_once) == [66, 39, 30]
    assert list(spio.kernels.target("sm_90", multiprocessors=100).clusters_at_once) == [0, 0, 0]
    given = spio.kernels.target("sm_90", multiprocessors=100, clusters_at_once=(50, 30, 20))
    assert list(given.clusters_at_once) == [50, 30, 20]
    family = spio.kernels.GemmFamily()
    args = spio.GemmArguments(16, 4608, 4096, "bf16")  # 36 tiles of 128 rows
    assert "split_k=3" in family.chosen(args, hopper)[4]
    fewer = spio.kernels.target("sm_90", clusters_at_once=(66, 30, 30))
    assert "split_k=2" in family.chosen(args, fewer)[4]


def test_tf32_reads_k_major_f32_in_place_on_sm_90():
    """f32 at precision tf32: K-major operands straight into wgmma's TF32
    tensor cores (no packing, no workspace); an M-major A packed into f32
    first; other targets are refused with what to ask for instead."""
    family = spio.kernels.GemmFamily()
    args = spio.GemmArguments(1000, 1000, 1000, "f32", precision="tf32")
    config = family.chosen(args, spio.kernels.target("sm_90"))
    assert family.check(args, config) is None
    assert len(family.launch_shapes(args, config)) == 1
    assert family.workspace_size(args, config) == 0
    source = family.source(args, config)
    assert "vector<4xf32>" in source and "gemm_pack" not in source
    col = spio.GemmArguments(1000, 1000, 1000, "f32", a_layout="col", precision="tf32")
    config = family.chosen(col, spio.kernels.target("sm_90"))
    assert len(family.launch_shapes(col, config)) == 2
    assert family.workspace_size(col, config) == 1000 * 1000 * 4
    assert "gpu.func @gemm_pack_a" in family.source(col, config)
    config = family.chosen(args, spio.kernels.target("sm_80"))
    assert "take precision high" in family.check(args, config)
    # Which chips run wgmma (and so TF32, where torch allows it): the
    # library says, for spio.linear's "high" to follow.
    assert [_capi.lib.spio_chip_has_wgmma(chip) for chip in
            (b"sm_90", b"sm_90a", b"sm_80", b"sm_89", b"sm_100", b"gfx90a", None)] == \
        [1, 1, 0, 0, 0, 0, 0]


# Every step once, and one more.
EIGHT_STEPS = spio.kernels.EPILOGUE_STEPS + ("relu",)


def test_gemm_epilogue_operands_source_and_errors():
    args = spio.GemmArguments(256, 128, 64, "bf16", epilogue=["scale", "bias", "gelu_tanh"],
                              bias_along="col", scale_along="row")
    kernel = spio.get_kernels(args)[0]
    assert kernel.family.operands(args, kernel.config) == (("A", "B", "D", "bias", "scale"), ())
    source = kernel.family.source(args, kernel.config)
    assert "epilogue = #spio.epilogue<scale, bias, gelu_tanh>" in source
    assert "!spio.tensor<[j: 128] x bf16, global>" in source  # the bias, D's dtype
    assert "!spio.tensor<[i: 256] x f32, global>" in source  # the scale
    expect_error(lambda: spio.GemmArguments(64, 64, 64, epilogue=("tanh",)),
                 "unknown epilogue step 'tanh'")
    expect_error(lambda: spio.GemmArguments(64, 64, 64, epilogue=("bias",), bias_along="k"),
                 "bias_along is 'row' or 'col'")
    no_vector = spio.GemmArguments(64, 64, 64, epilogue=("bias",))
    support = kernel.supports(no_vector)
    assert not support and "needs a bias vector" in support.reason
    no_c = spio.GemmArguments(64, 64, 64, epilogue=("residual",))
    assert "needs C" in kernel.supports(no_c).reason
    expect_error(lambda: spio.GemmArguments(64, 64, 64, batch=2, shared="c"),
                 "shared is 'a' or 'b'")
    too_many = spio.GemmArguments(64, 64, 64, epilogue=EIGHT_STEPS)
    expect_error(lambda: kernel.family.check(too_many, kernel.config),
                 "at most 7 steps, each once")


def test_unsupported_dtype_is_an_error_with_the_choices():
    args = spio.GemmArguments(64, 64, 64, "f64")
    assert spio.get_kernels(args) == []
    kernel = spio.get_kernels(GEMM)[0]
    expect_error(lambda: kernel.compile(args), "does not support", "dtype is f64")
    config = ("f64", "f64") + kernel.config[2:]
    expect_error(lambda: kernel.family.check(args, config), "unsupported dtype 'f64'",
                 "f16, bf16, f32")


def test_gemm_compiles_to_ptx_and_hits_the_cache():
    kernel = spio.get_kernels(GEMM, lambda m: m.tile_shape == (128, 128, 32))[0]
    first = kernel.compile(GEMM)
    assert ".entry gemm" in first.ptx and "mma.sync.aligned" in first.ptx
    assert first.kernels[0][0] == "gemm" and first.kernels[0][2] == 128
    assert first.launch_shapes == ((8, 8, 128, 1),)
    assert "spio.gemm" in first.source
    again = kernel.compile(GEMM)
    assert again.ptx == first.ptx and "cache hit" in again.cache
    # A chip spio cannot compile for is an error, not an abort.
    expect_error(lambda: kernel.compile(GEMM, chip="sm_75"), "unsupported target chip 'sm_75'")
    expect_error(lambda: kernel.compile(GEMM, chip="sm_90\0x"), "chip must be a str without NUL")
    expect_error(lambda: kernel.compile(GEMM, chip=None), "chip must be a str")


def test_families_compile_their_modules_as_built():
    # The library's families build their kernels and compile the module as
    # built (spio_*_compile), not printed and parsed back: the text it
    # prints is spio_*_source's, and its PTX and cache entry those of the
    # text compiled (a fresh cache directory: the first compile misses).
    # Layers no other test compiles (the memory cache spans the process).
    cases = [(spio.GemmArguments(72, 200, 136, "bf16"), spio.GemmFamily()),
             (spio.Conv2dArguments(2, 10, 12, 64, 64), spio.Conv2dFamily()),
             (spio.Conv2dGw8Arguments(3, 40, 9, 7, 3, 3, 1, 1, 2), spio.Conv2dGw8Family()),
             (spio.Conv2dGw8Arguments(5, 48, 13, 11, pass_="wgrad"), spio.Conv2dGw8Family())]
    with tempfile.TemporaryDirectory() as cache, mock.patch.dict(os.environ,
                                                                 {"SPIO_CACHE_DIR": cache}):
        for args, family in cases:
            config = family.chosen(args)
            with mock.patch.object(type(family), "source", side_effect=AssertionError("printed")):
                built = spio.Kernel(family, config).compile(args)
            assert built.cache == "compiled", args
            text = _capi.Compiled(family.source(args, config), spio.kernels.DEFAULT_CHIP)
            assert built.source == text.source and built.ptx == text.ptx, args
            assert "cache hit" in text.cache, args
            assert [name for name, _, _ in built.kernels] == [k[0] for k in text.kernels]


def test_conv_discovery_per_pass_and_workspace():
    for pass_ in ("fprop", "dgrad", "wgrad"):
        args = spio.Conv2dGw8Arguments(2, 64, 20, 20, pass_=pass_)
        kernels = spio.get_kernels(args)
        assert kernels, pass_
        assert {k.metadata.operation for k in kernels} == {f"conv2d_gw8_{pass_}"}
    wgrad = spio.get_kernels(WGRAD)[0]
    assert wgrad.workspace_size(WGRAD) > 0
    fprop_args = spio.Conv2dGw8Arguments(8, 64, 56, 56)
    assert spio.get_kernels(fprop_args)[0].workspace_size(fprop_args) == 0
    compiled = wgrad.compile(WGRAD)
    assert [name for name, _, _ in compiled.kernels] == ["conv2d_gw8_wgrad",
                                                         "conv2d_gw8_wgrad_reduce"]
    assert len(compiled.launch_shapes) == 2
    assert "atom" not in compiled.ptx  # deterministic: no atomics


def test_wgrad_discards_partial_sums_where_the_layer_outgrows_the_l2():
    # Against the device's L2 (without a GPU, an H100 SXM's 50 MiB): at N128 8x8 a
    # channel of x and dy takes 32 KiB, so C channels of an L2's bytes outgrow 3/4 of
    # it and half as many do not.
    l2 = spio.kernels.target().l2_bytes
    channels = l2 // (128 * 8 * 8 * 2 * 2)
    for c, discards in ((channels // 8 * 8 + 8, True), (channels // 16 * 8, False)):
        args = spio.Conv2dGw8Arguments(128, c, 8, 8, pass_="wgrad")
        source = spio.get_kernels(args)[0].compile(args).source
        assert ("spio.discard" in source) == discards, c


def test_conv2d_gw8_blocks_fit_the_targets_shared_memory():
    # The default target's facts (the device's, or without a GPU an H100
    # SXM's), which the chosen blocks fit; an sm_89 part's (99 KB a block)
    # give blocks that fit it.
    default = spio.kernels.target()
    assert 0 < default.shared_bytes_per_block <= default.shared_bytes_per_multiprocessor
    args = spio.Conv2dGw8Arguments(128, 64, 64, 64, pass_="wgrad")
    family = spio.Conv2dGw8Family()
    problem = family._problem(args, "wgrad", spio.kernels.target("sm_89"))
    assert problem.target.shared_bytes_per_block == 99 << 10
    config = _capi.lib.spio_conv2d_gw8_choose_config(problem)
    assert _capi.take_string(_capi.lib.spio_conv2d_gw8_check(problem, config)) is None
    problem.target.shared_bytes_per_block = -1
    assert "shared memory must be positive" in \
        _capi.take_string(_capi.lib.spio_conv2d_gw8_check(problem, config))


def test_conv_rules_are_reasons():
    args = spio.Conv2dGw8Arguments(2, 60, 20, 20)
    assert spio.get_kernels(args) == []
    kernel = spio.get_kernels(spio.Conv2dGw8Arguments(2, 64, 20, 20))[0]
    assert "not a multiple of 8" in kernel.supports(args).reason
    assert "1 to 7" in kernel.supports(spio.Conv2dGw8Arguments(2, 64, 20, 20, r=9, s=9,
                                                                pad_h=0, pad_w=0)).reason
    bias_dgrad = spio.Conv2dGw8Arguments(2, 64, 20, 20, pass_="dgrad", bias=True)
    assert spio.get_kernels(bias_dgrad) == []
    assert spio.get_kernels(spio.Conv2dGw8Arguments(2, 64, 20, 20, pass_="wgrad",
                                                    dw_dtype="bf16")) == []
    assert spio.get_kernels(spio.Conv2dGw8Arguments(2, 64, 20, 20, pass_="bprop")) == []
    # A kernel taller than the padded image: no output, with stride 2 too;
    # the chosen instance says so (the chooser had divided by zero rows).
    family = spio.Conv2dGw8Family()
    for stride in (1, 2):
        tall = spio.Conv2dGw8Arguments(3, 48, 3, 36, r=6, s=1, pad_h=1, pad_w=0, stride=stride)
        assert spio.get_kernels(tall) == []
        assert spio.Kernel(family, family.chosen(tall)).supports(tall).reason == \
            "the output is empty"


def test_sizes_must_be_int64_integers():
    # ctypes would wrap 2**64 + 8 to 8 (a wrong problem) or raise a bare
    # TypeError for 2.5; numpy-style integers pass.
    expect_error(lambda: spio.Conv2dGw8Arguments(2**64 + 8, 64, 20, 20), ".n must be an integer")
    expect_error(lambda: spio.Conv2dGw8Arguments(2, 64, 20.5, 20), ".h must be an integer")
    expect_error(lambda: spio.Conv2dGw8Arguments(2, 64, 20, 20, stride=True), ".stride")
    expect_error(lambda: spio.GemmArguments(64, "64", 64), "GemmArguments.n")

    class Index(int):
        pass

    assert spio.GemmArguments(Index(64), 64, 64).m == 64


def test_conv_layer_support_refuses_settings_whatever_the_sizes():
    family = spio.Conv2dGw8Family()
    assert family.layer_support(64, (5, 3), 2, (2, 1), bias=True)
    assert family.layer_support(8, (7, 7), 1, (3, 3))
    assert "1 to 7" in family.layer_support(64, (9, 9), 1, (4, 4)).reason
    assert family.layer_support(64, (1, 1), 1, (1, 1))
    assert family.layer_support(64, (3, 5), 2, (7, 6))
    assert "padding must be 0 to 2^30" in family.layer_support(64, (3, 3), 1, (1, -1)).reason
    assert "stride 1 or 2" in family.layer_support(64, (3, 3), 3, (1, 1)).reason
    assert "not a multiple of 8" in family.layer_support(60, (3, 3), 1, (1, 1)).reason
    assert family.layer_support(96, (7, 7), 1, (3, 3), True, group_width=1)
    assert "groups of 1, 2, 4 or 8 channels, got 16" in \
        family.layer_support(96, (3, 3), 1, (1, 1), group_width=16).reason
    expect_error(lambda: family.layer_support(64, (3, 3), 1, (1,)), "(height, width) pairs")


def test_conv_instances_over_shared_memory_are_not_listed():
    # Stride-2 wgrad stages two input rows an output row and two columns a
    # staged column: blocks of 16 rows need about 363 KB, and are refused
    # with the reason; every listed instance compiles.
    args = spio.Conv2dGw8Arguments(2, 32, 21, 20, stride=2, pass_="wgrad", dw_dtype="f32")
    kernels = spio.get_kernels(args)
    assert kernels and all(k.config[2][2] == 8 for k in kernels)
    for kernel in kernels:
        assert kernel.compile(args, "sm_90").ptx
    tall = spio.get_kernels(spio.Conv2dGw8Arguments(2, 32, 21, 20, pass_="wgrad"),
                            lambda m: m.tile_shape == (4, 2, 16))[0]
    reason = tall.supports(args).reason
    assert "bytes of shared memory" in reason and "fewer rows" in reason


class CopyArguments:
    def __init__(self, n):
        self.n = n


class CopyFamily(spio.KernelFamily):
    """A user's family: copies n 16-byte vectors, one per thread."""
    name = "copy"
    arguments_type = CopyArguments

    def instances(self):
        return [128, 256]

    def metadata(self, threads):
        return spio.Metadata("copy", (("in", "f16"), ("out", "f16")),
                             (("in", "row"), ("out", "row")), 16, (threads,), 1)

    def check(self, args, threads):
        return None if args.n % threads == 0 else f"n = {args.n} is not a multiple of {threads}"

    def source(self, args, threads):
        tensor = f"!spio.tensor<[i: {args.n}] x vector<8xf16>, global>"
        return f"""
module attributes {{gpu.container_module}} {{
  gpu.module @user {{
    gpu.func @copy(%in: {tensor}, %out: {tensor}) kernel
        attributes {{known_block_size = array<i32: {threads}, 1, 1>}} {{
      %block = spio.linear_id block_x
      %thread = spio.linear_id thread
      %size = arith.constant {threads} : index
      %first = arith.muli %block, %size : index
      %linear = arith.addi %first, %thread : index
      %i = spio.from_index %linear : !spio.coord<i>
      %v = spio.load %in[%i] : {tensor}[!spio.coord<i>]
      spio.store %v, %out[%i] : {tensor}[!spio.coord<i>]
      gpu.return
    }}
  }}
}}
"""

    def launch_shapes(self, args, threads):
        return [(args.n // threads, 1, threads)]


def test_user_family_is_discovered_and_compiles():
    family = spio.register_family(CopyFamily())
    try:
        kernels = spio.get_kernels(CopyArguments(384))
        assert [k.metadata.tile_shape for k in kernels] == [(128,)]
        assert "not a multiple of 256" in spio.Kernel(family, 256).supports(
            CopyArguments(384)).reason
        compiled = kernels[0].compile(CopyArguments(384))
        assert ".entry copy" in compiled.ptx and compiled.launch_shapes == ((3, 1, 128),)
        assert spio.get_kernels(GEMM, lambda m: m.operation == "copy") == []
    finally:
        spio.kernels._families.remove(family)
    expect_error(lambda: spio.register_family(object()), "takes a spio.KernelFamily")


class BrokenCheckFamily(CopyFamily):
    name = "broken_copy"

    def check(self, args, config):
        return 1 // 0


def test_user_family_errors_name_the_family():
    family = spio.register_family(BrokenCheckFamily())
    try:
        expect_error(lambda: spio.get_kernels(CopyArguments(384)),
                     "kernel family 'broken_copy' raised ZeroDivisionError in check()")
    finally:
        spio.kernels._families.remove(family)


def test_bad_source_reports_the_diagnostics():
    expect_error(lambda: _capi.Compiled("module { func.func @f( }", "sm_90"),
                 "compiling spio source failed")


def test_a_compiler_crash_is_an_error_not_the_end_of_python():
    # MLIR 22's parser crashes on an index array; the C API recovers.
    crashing = "func.func private @f() attributes {a = array<index: 1>}"
    expect_error(lambda: _capi.Compiled(crashing, "sm_90"), "the compiler crashed")
    # The library still compiles after it: the same source with i64 parses,
    # and is refused for what it lacks.
    expect_error(lambda: _capi.Compiled(crashing.replace("index", "i64"), "sm_90"),
                 "the source has no gpu.module")


def test_the_c_api_names_its_version_and_compiler_sources():
    assert re.fullmatch(rb"Spio \d+\.\d+\.\d+ \(compiler sources [0-9a-f]{12}\)",
                        _capi.lib.spio_version())


def test_enumerators_out_of_range_are_refused_by_the_c_api():
    hopper = spio.kernels.target("sm_90")
    problem = _capi.GemmProblem(64, 64, 64, 7, 0, 0, 1, 0)
    config = _capi.GemmConfig(64, 64, 32, 2, 2, 2, 1)
    assert _capi.take_string(_capi.lib.spio_gemm_check(problem, config, hopper)) == \
        "unknown input dtype 7"
    problem = _capi.GemmProblem(64, 64, 64, 0, 0, 0, 1, 0, 9)
    assert _capi.take_string(_capi.lib.spio_gemm_check(problem, config, hopper)) == \
        "unknown epilogue step count 9"
    problem = _capi.GemmProblem(64, 64, 64, 0, 0, 0, 1, 0, 1, (ctypes.c_int32 * 8)(7))
    assert "epilogue step 7 is not one of" in \
        _capi.take_string(_capi.lib.spio_gemm_check(problem, config, hopper))
    conv = _capi.Conv2dProblem(1, 8, 8, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, pass_=5)
    assert _capi.take_string(_capi.lib.spio_conv2d_check(conv, config, hopper)) == "unknown pass 5"
    # wgrad: a k-tile is 64 positions, on either kernel; its parts at most
    # its k-tiles. An sm_80 part chooses the mma.sync kernel.
    conv.pass_ = 2
    assert "block K must be 64" in _capi.take_string(_capi.lib.spio_conv2d_check(conv, config, hopper))
    ampere = _capi.chip_target("sm_80")
    mma_sync = _capi.lib.spio_conv2d_choose_config(conv, ampere)
    assert (mma_sync.wgmma, mma_sync.block_k) == (0, 64)
    assert _capi.take_string(_capi.lib.spio_conv2d_check(conv, mma_sync, ampere)) is None
    wgmma = _capi.lib.spio_conv2d_choose_config(conv, hopper)
    assert _capi.take_string(_capi.lib.spio_conv2d_check(conv, wgmma, hopper)) is None
    conv.parts = 9
    assert "takes 1 to 1 parts" in _capi.take_string(_capi.lib.spio_conv2d_check(conv, wgmma, hopper))


def test_cache_directory_follows_the_environment():
    previous = os.environ.get("SPIO_CACHE_DIR")
    with tempfile.TemporaryDirectory() as directory:
        os.environ["SPIO_CACHE_DIR"] = directory
        try:
            assert spio.cache_directory() == directory
        finally:
            if previous is None:
                del os.environ["SPIO_CACHE_DIR"]
            else:
                os.environ["SPIO_CACHE_DIR"] = previous


def test_dump_dir_keeps_sources_and_ptx():
    with tempfile.TemporaryDirectory() as directory:
        os.environ["SPIO_DUMP_DIR"] = directory
        try:
            spio.get_kernels(GEMM)[0].compile(GEMM)
        finally:
            del os.environ["SPIO_DUMP_DIR"]
        names = sorted(p.suffix for p in Path(directory).iterdir())
        assert names == [".mlir", ".ptx"]


def test_missing_library_is_a_clear_error():
    env = dict(os.environ, SPIO_LIBRARY="/nonexistent/libspio_capi.so")
    result = subprocess.run([sys.executable, "-c", "import spio"], env=env,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "set SPIO_LIBRARY" in result.stderr and "/nonexistent" in result.stderr


def test_a_library_that_is_not_spios_is_refused_at_import():
    # zlib: loads, but has no spio_abi_version.
    env = dict(os.environ, SPIO_LIBRARY=ctypes.util.find_library("z"))
    result = subprocess.run([sys.executable, "-c", "import spio"], env=env,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "is not Spio's C API library" in result.stderr, result.stderr
    assert "pip install --no-build-isolation ./python" in result.stderr


def test_a_library_of_another_interface_version_is_refused():
    class Function:
        def __init__(self, version):
            self.version = version

        def __call__(self):
            return self.version

    class Library:
        def __init__(self, version):
            self.spio_abi_version = Function(version)

    assert _capi._checked(Library(_capi.ABI_VERSION), "ours.so").spio_abi_version() == \
        _capi.ABI_VERSION
    expect_error(lambda: _capi._checked(Library(_capi.ABI_VERSION + 1), "newer.so"),
                 f"newer.so has C API version {_capi.ABI_VERSION + 1}, this package needs "
                 f"{_capi.ABI_VERSION}", "pip install --no-build-isolation ./python")


def test_run_checks_operands_before_anything_runs():
    args = spio.GemmArguments(256, 256, 256, "bf16")
    kernel = spio.get_kernels(args)[0]
    expect_error(lambda: kernel.run(args, {"A": 4096, "B": 8192}), "missing operand(s) ['D']")
    expect_error(lambda: kernel.run(args, {"A": 4096, "B": 8192, "D": 12288, "E": 1}),
                 "unknown operand(s) ['E']")
    expect_error(lambda: kernel.run(args, {"A": 4100, "B": 8192, "D": 12288}),
                 "operand 'A' at 0x1004 is not 16-byte aligned")
    expect_error(lambda: kernel.run(args, {"A": "x", "B": 8192, "D": 12288}),
                 "must be a device pointer")
    expect_error(lambda: kernel.run(args, {"A": 4096, "B": 8192, "D": 12288}, stream="s"),
                 "stream must be")
    expect_error(lambda: kernel.run(args, {"A": 4096, "B": 8192, "D": 12288}, beta=1.0),
                 "beta needs reads_c=True")
    expect_error(lambda: kernel.run(args, {"A": 4096, "B": 8192, "D": 12288}, gamma=1.0),
                 "alpha and beta, not ['gamma']")
    wgrad = spio.get_kernels(WGRAD)[0]
    expect_error(lambda: wgrad.run(WGRAD, {"x": 4096, "dy": 8192, "dw": 12288}),
                 "needs a workspace of")
    fprop = spio.Conv2dGw8Arguments(2, 64, 20, 20, bias=True)
    expect_error(lambda: spio.get_kernels(fprop)[0].run(fprop, {"x": 4096, "w": 8192,
                                                                "y": 12288}),
                 "missing operand(s) ['bias']")


def test_run_without_a_gpu_says_so():
    if spio.gpu_available():
        return  # python/tests/test_gpu.py runs kernels there
    args = spio.GemmArguments(256, 256, 256, "bf16")
    kernel = spio.get_kernels(args)[0]
    expect_error(lambda: kernel.run(args, {"A": 4096, "B": 8192, "D": 12288}), "no GPU")


def test_first_launch_on_a_device_loads_once_and_keeps_what_it_loaded():
    # The device and the module load stubbed, so that the path every launch
    # takes (compile, load, the family's launcher, the per-device record)
    # runs without a GPU.
    args = spio.GemmArguments(256, 256, 256, "bf16")
    kernel = spio.get_kernels(args)[0]
    facts = mock.Mock(compute_major=9, compute_minor=0)
    module, launcher = object(), object()
    with mock.patch.object(_capi, "device", return_value=facts), \
            mock.patch.dict(spio.kernels._loaded, clear=True), \
            mock.patch.object(_capi.Compiled, "load", return_value=module) as load, \
            mock.patch.object(type(kernel.family), "launcher", return_value=launcher):
        assert kernel.launcher(args, 0) is launcher
        assert kernel.launcher(args, 0) is launcher
    load.assert_called_once_with(0)


def test_chosen_instances_follow_spio_jit():
    gemm = spio.GemmFamily()
    large = spio.GemmArguments(4096, 4096, 4096, "bf16")
    config = gemm.chosen(large, MMA_SYNC_132)
    assert config[4] == (128, 128, 32, 2, 2) and config[5] == 4
    assert spio.Kernel(gemm, config).supports(large)
    # 4 blocks of 128 x 128 would leave SMs idle: smaller tiles.
    assert gemm.chosen(spio.GemmArguments(256, 256, 4096, "bf16"), MMA_SYNC_132)[4] == (64, 64, 64, 2, 2)
    # On Hopper, K-major operands run wgmma: 128 x 256 blocks in three waves or more,
    # and the kernel compiles for sm_90a.
    config = gemm.chosen(large, spio.kernels.target("sm_90"))
    assert config[4] == (128, 256, 64, 8, 1, "wgmma", "persistent=132") and config[5] == 4
    kernel = spio.Kernel(gemm, config)
    assert kernel.supports(large) and kernel.metadata.instruction == "wgmma"
    ptx = kernel.compile(large, "sm_90").ptx
    assert ".target sm_90a" in ptx and "wgmma.mma_async" in ptx
    # Short reductions: the compute warpgroups take whole tiles in turn.
    short = spio.GemmArguments(2048, 3072, 768, "bf16")
    assert gemm.chosen(short, spio.kernels.target("sm_90"))[4] == (128, 128, 64, 8, 1, "wgmma", "persistent=132",
                                                  "pingpong")
    # Decoding: M along wgmma's N, and blocks splitting K to fill the SMs.
    decode = spio.GemmArguments(1, 4096, 4096, "bf16")
    config = gemm.chosen(decode, spio.kernels.target("sm_90"))
    assert config[4] == (8, 64, 64, 4, 1, "wgmma", "swap", "split_k=2", "raster=1")
    # The chooser's bands of tile rows, where not the tuple's default of 8:
    # 4 tile rows of 512 share B tiles in bands of 4.
    rows512 = gemm.chosen(spio.GemmArguments(512, 11008, 4096, "bf16"),
                          spio.kernels.target("sm_90"))
    assert rows512[4][-1] == "raster=4"
    assert spio.kernels._gemm_config(rows512[4], rows512[5]).raster == 4
    assert spio.Kernel(gemm, config).supports(decode)
    # Tiles that leave over a fifth of one round idle, whatever their width:
    # clusters sharing the last tiles' k-tiles (stream-K), whose partial sums
    # and flags are in the workspace after the packed operands (none here).
    tall = spio.GemmArguments(2328, 888, 8192, "bf16")
    config = gemm.chosen(tall, spio.kernels.target("sm_90"))
    assert config[4] == (128, 224, 64, 8, 1, "wgmma", "persistent=132", "cluster=2", "stream_k",
                         "raster=1")
    assert spio.kernels._gemm_config(config[4], config[5]).stream_k == 1
    kernel = spio.Kernel(gemm, config)
    assert kernel.supports(tall)
    assert kernel.workspace_size(tall) == 132 * 128 * 224 * 4 + 768
    assert "st.release.gpu" in kernel.compile(tall, "sm_90").ptx
    misspelt = spio.Kernel(gemm, ("bf16", "bf16", "row", "col",
                                  (8, 64, 64, 4, 1, "wgmma", "split=2"), 8)).supports(decode)
    assert not misspelt and "unknown wgmma tile option 'split=2'" in misspelt.reason
    # An M-major A and an N-major B: wgmma reads them in place (transposed),
    # one launch, no workspace.
    transposed = spio.GemmArguments(1024, 1024, 1024, "bf16", a_layout="col", b_layout="row")
    config = gemm.chosen(transposed, spio.kernels.target("sm_90"))
    assert config[4][5:6] == ("wgmma",)
    kernel = spio.Kernel(gemm, config)
    assert kernel.supports(transposed) and gemm.workspace_size(transposed, config) == 0
    assert len(gemm.launch_shapes(transposed, config)) == 1
    ptx = kernel.compile(transposed, "sm_90").ptx
    assert "gemm_pack" not in ptx and "wgmma.mma_async" in ptx
    # A batched M-major A whose K leaves a partial k-tile is packed K-major
    # where that beats mma.sync reading it in place (4 x 2048^2 x 1000), not
    # where the packing would cost more (2 x 256^2 x 1000).
    batched = spio.GemmArguments(2048, 2048, 1000, "bf16", a_layout="col", batch=4)
    config = gemm.chosen(batched, spio.kernels.target("sm_90"))
    assert config[4][5:6] == ("wgmma",)
    assert gemm.workspace_size(batched, config) > 0
    # A's packing kernel, then the GEMM; B, K-major, is read in place.
    assert len(gemm.launch_shapes(batched, config)) == 2
    small = spio.GemmArguments(256, 256, 1000, "bf16", a_layout="col", batch=2)
    assert gemm.chosen(small, spio.kernels.target("sm_90"))[4][5:6] == ()
    assert gemm.workspace_size(small, gemm.chosen(small, spio.kernels.target("sm_90"))) == 0
    conv = spio.Conv2dGw8Family()
    narrow = spio.Conv2dGw8Arguments(128, 1024, 7, 7, pass_="dgrad")
    # 7x7 images side by side, 3 in 2 warps' 32 columns, 8 groups a block
    # (as one band a block or a band ring: the model picks).
    assert conv.chosen(narrow)[:2] == ("dgrad", "f16") and conv.chosen(narrow)[2][:3] == (2, 8, 7)
    assert spio.Kernel(conv, conv.chosen(narrow)).supports(narrow)
    # 490000 (image, row tile) bands, over the 65535 a grid holds along y:
    # the chosen instance loops over several a block (chunks) and is
    # supported; without them the same tile is refused, with the reason.
    many = spio.Conv2dGw8Arguments(70000, 16, 112, 112)
    tile = conv.chosen(many)[2]
    assert tile[:3] == (7, 2, 16) and 1 <= tile[3] <= 65535
    assert spio.Kernel(conv, conv.chosen(many)).supports(many)
    refused = spio.Kernel(conv, ("fprop", "f16", (7, 2, 16))).supports(many)
    assert not refused and "blocks along y" in refused.reason
    expect_error(lambda: conv.chosen(spio.Conv2dGw8Arguments(2, 64, 8, 8, pass_="bprop")),
                 "unknown pass")


def test_grouped_gemm_forms_compile_and_say_why_not():
    """A grouped GEMM's B stored k x n (K a multiple of 64), and groups
    splitting K (A col, B row; the weight gradient): chosen, compiled for
    sm_90a with the group ends among the operands; the wrong layouts and
    an unknown grouping refused with the reason."""
    gemm = spio.GemmFamily()
    hopper = spio.kernels.target("sm_90")
    for args in (spio.GemmArguments(1000, 520, 256, "bf16", b_layout="row", groups=5),
                 spio.GemmArguments(1024, 512, 3000, "bf16", a_layout="col", b_layout="row",
                                    groups=5, groups_along="k")):
        config = gemm.chosen(args, hopper)
        kernel = spio.Kernel(gemm, config)
        assert kernel.supports(args), kernel.supports(args).reason
        assert "groups" in gemm.operands(args, config)[0]
        assert "wgmma.mma_async" in kernel.compile(args, "sm_90").ptx
    ragged = spio.GemmArguments(1000, 520, 200, "bf16", b_layout="row", groups=5)
    assert "row major where K is a multiple of 64" in \
        gemm.check(ragged, gemm.chosen(spio.GemmArguments(1000, 520, 256, "bf16", b_layout="row",
                                                          groups=5), hopper))
    k_major = spio.GemmArguments(1024, 512, 3000, "bf16", groups=5, groups_along="k")
    assert "A column major (M contiguous) and B row major" in \
        gemm.check(k_major, gemm.chosen(k_major, hopper))
    with pytest.raises(spio.SpioError, match="groups_along is 'rows' or 'k'"):
        spio.GemmArguments(64, 64, 64, "bf16", groups=2, groups_along="m")


def test_autotune_candidates_start_with_the_chosen():
    conv = spio.Conv2dGw8Family()
    wide = spio.Conv2dGw8Arguments(128, 192, 72, 72)
    candidates = conv.candidates(wide)
    # The rules' configuration and its neighbours (as spio-jit --autotune
    # lists them, test/Tools/spio-jit/no-gpu.test), the model's pick first.
    assert sorted(c[2] for c in candidates) == sorted(
        [(2, 8, 12), (2, 8, 12, 14), (2, 8, 12, 29), (2, 8, 12, 29, 2), (2, 8, 6), (2, 8, 24),
         (5, 4, 12), (3, 8, 12), (1, 8, 24), (4, 4, 12)])
    assert candidates[0] == conv.chosen(wide)
    assert all(spio.Kernel(conv, c).supports(wide) for c in candidates)
    # Stride 1: two copy warps streaming the bands, as (warps, rows,
    # chunks, copy warps), which the C API takes back as they came; for
    # 5x5 also in four times as many blocks.
    five = spio.Conv2dGw8Arguments(320, 160, 28, 28, 5, 5, 2, 2)
    streamed = [c for c in conv.candidates(five) if len(c[2]) == 5]
    assert [c[2] for c in streamed] == [(2, 4, 28, 7, 2), (2, 4, 28, 28, 2)]
    assert all(spio.Kernel(conv, c).supports(five) for c in streamed)
    source = conv.source(five, streamed[0])
    assert "chunks = 7, copy_warps = 2" in source
    dgrad = spio.Conv2dGw8Arguments(128, 192, 72, 72, pass_="dgrad", dtype="bf16")
    assert all(c[:2] == ("dgrad", "bf16") for c in conv.candidates(dgrad))
    # wgrad: the rules' blocks (its partial sums' order; one a
    # multiprocessor, 3 stages), in 2 stages and with the reduce's other
    # lanes, as (warps, rows, chunks, copy warps, stages, ring, reduce
    # lanes), the model's pick first; the rules' 18x18 C576 5x5 takes the
    # ring, which the model's pick among its stages and lanes keeps.
    wgrad = spio.Conv2dGw8Arguments(128, 192, 72, 72, pass_="wgrad")
    assert sorted(c[2] for c in conv.candidates(wgrad)) == sorted(
        [(1, 8, 8), (1, 8, 8, 44, 0, 2, 0, 1), (1, 8, 8, 44, 0, 3, 0, 2),
         (1, 8, 8, 44, 0, 3, 0, 4)])
    assert conv.candidates(wgrad)[0] == conv.chosen(wgrad)
    assert all(spio.Kernel(conv, c).supports(wgrad) for c in conv.candidates(wgrad))
    ringed = spio.Conv2dGw8Arguments(128, 576, 18, 18, 5, 5, 2, 2, pass_="wgrad")
    rules = ("wgrad", "f16", (1, 4, 9, 0, 0, 0, 1))
    assert rules in conv.candidates(ringed)
    assert conv.chosen(ringed)[2][:3] == (1, 4, 9) and conv.chosen(ringed)[2][6] == 1
    assert "row_ring" in conv.source(ringed, rules)
    # A tile names the C API's fields in order: too few or too many are
    # refused with the names.
    for tile in ((1, 8), (1, 4, 9, 0, 0, 0, 1, 4, 2)):
        refused = spio.Kernel(conv, ("wgrad", "f16", tile)).supports(ringed)
        assert not refused and "a conv2d_gw8 tile is warps_q, warps_g, rows_p" in refused.reason
    expect_error(lambda: conv.candidates(spio.Conv2dGw8Arguments(2, 64, 8, 8, pass_="bprop")),
                 "unknown pass")


def test_the_performance_model_reads_the_librarys_features():
    # benchmarks/model/train.py fits the model on these, and the chooser
    # predicts from the same C++ function.
    names = []
    while (name := _capi.lib.spio_conv2d_gw8_feature_name(len(names))) is not None:
        names.append(name.decode())
    assert {"warps_q", "rows_p", "copy_warps", "waves", "multiprocessors"} <= set(names)
    conv = spio.Conv2dGw8Family()
    wide = spio.Conv2dGw8Arguments(128, 192, 72, 72)
    problem, config = conv._structs(wide, ("fprop", "f16", (2, 8, 12, 29, 2)))
    assert _capi.lib.spio_conv2d_gw8_features(problem, config, None, 0) == len(names)
    values = (ctypes.c_double * len(names))()
    _capi.lib.spio_conv2d_gw8_features(problem, config, values, len(names))
    features = dict(zip(names, values))
    assert (features["warps_q"], features["warps_g"], features["rows_p"]) == (2, 8, 12)
    assert features["copy_warps"] == 2 and features["threads"] == 32 * (16 + 2)
    rules = conv._instance(wide, _capi.lib.spio_conv2d_gw8_rule_config(problem))
    assert rules in conv.candidates(wide)


def test_gemm_tensor_maps_refuse_what_tma_cannot_read():
    # A wgmma instance's TMA descriptors: without a GPU the reason is that; with one,
    # a base address off 16 bytes is refused by name (the GPU tests run the maps).
    args = spio.GemmArguments(4096, 4096, 4096, "bf16")
    gemm = spio.kernels.GemmFamily()
    problem, config = gemm._structs(args, gemm.chosen(args, spio.kernels.target("sm_90")))

    def encode(a, b):
        maps, error = (ctypes.c_uint8 * 256)(), ctypes.c_void_p()
        if _capi.lib.spio_gemm_tensor_maps(problem, config, a, b, maps, ctypes.byref(error)):
            raise spio.SpioError(_capi.take_string(error))

    if not spio.gpu_available():
        expect_error(lambda: encode(1 << 20, 1 << 21), "no GPU")
        return
    expect_error(lambda: encode((1 << 20) + 2, 1 << 21), "16-byte aligned address")


def test_autotune_refuses_no_candidates():
    error, fastest = ctypes.c_void_p(), ctypes.c_int32(-1)
    assert _capi.lib.spio_autotune(None, 0, None, 0, 0, None, ctypes.byref(fastest),
                                   ctypes.byref(error)) != 0
    assert "one launcher or more" in _capi.take_string(error)
    assert fastest.value == -1
    with pytest.raises(spio.SpioError, match="one launcher or more"):
        _capi.autotune([], [], 0, "key")


def test_launchers_refuse_a_bad_problem_or_missing_kernels_without_a_gpu():
    gemm = spio.kernels.GemmFamily()
    args = spio.GemmArguments(256, 256, 256, "bf16")
    problem, config = gemm._structs(args, gemm.chosen(args, MMA_SYNC_132))
    error = ctypes.c_void_p()
    assert not _capi.lib.spio_gemm_launcher(problem, config, None, ctypes.byref(error))
    assert "no loaded kernels" in _capi.take_string(error)
    # A bad problem: refused by its check on a target, and by the launcher
    # (kernels are loaded on a device, whose facts it checks against).
    problem.m = 0
    assert "GEMM sizes must be positive" in _capi.take_string(
        _capi.lib.spio_gemm_check(problem, config, spio.kernels.target("sm_90")))
    assert "GEMM sizes must be positive" in _capi.take_string(
        _capi.lib.spio_gemm_check(problem, config, MMA_SYNC_132))
    assert not _capi.lib.spio_gemm_launcher(problem, config, None, ctypes.byref(error))
    assert "no loaded kernels" in _capi.take_string(error)
    # No target at all, or one without facts, is refused by the checks.
    assert "unsupported target chip ''" in _capi.take_string(
        _capi.lib.spio_gemm_check(problem, config, None))
    conv = spio.kernels.Conv2dGw8Family()
    wgrad = spio.Conv2dGw8Arguments(2, 64, 16, 16, pass_="wgrad")
    problem, config = conv._structs(wgrad, conv.chosen(wgrad))
    config.warps_q = 0
    assert not _capi.lib.spio_conv2d_gw8_launcher(problem, config, None, ctypes.byref(error))
    assert _capi.take_string(error)


CONV = spio.Conv2dArguments(8, 56, 56, 64, 128, stride=(2, 2), dilation=(1, 1))


def test_dense_conv2d_discovery_compiles_the_implicit_gemm():
    family = spio.Conv2dFamily()
    config = family.chosen(CONV, spio.kernels.target("sm_90"))
    kernel = spio.Kernel(family, config)
    assert kernel.supports(CONV)
    assert kernel.metadata.instruction == "wgmma"
    assert kernel.metadata.layout("x") == "nhwc" and kernel.metadata.layout("w") == "krsc"
    compiled = kernel.compile(CONV)
    assert "cp.async.bulk.tensor.4d.shared::cluster.global.im2col" in compiled.ptx
    assert [name for name, _, _ in compiled.kernels] == ["conv2d"]
    assert compiled.launch_shapes[0][2] == config[2][3] * 32 + 128
    assert CONV.output_size() == (28, 28)
    assert family.operands(spio.Conv2dArguments(1, 8, 8, 64, 64, epilogue=("scale", "bias",
                                                                             "residual")),
                           config) == (("x", "w", "y", "C", "bias", "scale"), ())
    assert any(k.family.name == "conv2d" for k in spio.get_kernels(CONV))


def test_dense_conv2d_dgrad_reads_the_weights_transposed():
    family = spio.Conv2dFamily()
    dgrad = spio.Conv2dArguments(8, 28, 28, 96, 128, pass_="dgrad")
    config = family.chosen(dgrad, spio.kernels.target("sm_90"))
    kernel = spio.Kernel(family, config)
    assert kernel.supports(dgrad)
    assert family.operands(dgrad, config) == (("dy", "w", "dx"), ())
    ptx = kernel.compile(dgrad).ptx
    # dy gathered by im2col copies, w an N-major B: wgmma's B transposed.
    assert "cp.async.bulk.tensor.4d.shared::cluster.global.im2col" in ptx
    assert ", 1,  1, 0,  1;" in ptx
    # Stride 2: a kernel a phase of dx, each with its grid.
    strided = spio.Conv2dArguments(8, 28, 28, 96, 128, stride=(2, 2), pass_="dgrad")
    config = family.chosen(strided, spio.kernels.target("sm_90"))
    compiled = spio.Kernel(family, config).compile(strided)
    assert [name for name, _, _ in compiled.kernels] == [
        f"conv2d_dgrad_phase_{a}_{b}" for a in (0, 1) for b in (0, 1)]
    assert len(compiled.launch_shapes) == 4
    # 1x1 at stride 2: the positions of the odd rows and columns are zeroed
    # first, a thread a 16-byte vector.
    downsample = spio.Conv2dArguments(8, 28, 28, 96, 128, 1, 1, stride=(2, 2), padding=(0, 0),
                                      pass_="dgrad")
    config = family.chosen(downsample, spio.kernels.target("sm_90"))
    compiled = spio.Kernel(family, config).compile(downsample)
    assert [name for name, _, _ in compiled.kernels] == ["conv2d_dgrad_zero",
                                                        "conv2d_dgrad_phase_0_0"]
    assert compiled.launch_shapes[0][0] == 8 * 28 * 28 * 96 // 8 // 256
    expect_error(lambda: spio.Conv2dArguments(1, 8, 8, 64, 64, pass_="bprop"),
                 "a dense conv2d pass is 'fprop', 'dgrad' or 'wgrad'")


def test_dense_conv2d_wgrad_reduces_in_parts_through_the_workspace():
    family = spio.Conv2dFamily()
    wgrad = spio.Conv2dArguments(32, 56, 56, 64, 64, 1, 1, padding=(0, 0), pass_="wgrad")
    config = family.chosen(wgrad, spio.kernels.target("sm_90"))
    kernel = spio.Kernel(family, config)
    assert kernel.supports(wgrad)
    assert family.operands(wgrad, config) == (("x", "dy", "dw"), ())
    # One 64 x 64 tile over 1568 k-tiles: parts of a cluster's blocks, their
    # f32 sums in the workspace, added by a second kernel.
    assert kernel.workspace_size(wgrad) > 0
    compiled = kernel.compile(wgrad)
    assert [name for name, _, _ in compiled.kernels] == ["conv2d", "conv2d_wgrad_reduce"]
    # dy an M-major A, x's im2col boxes an N-major B: both transposed.
    assert ", p, 1,  1, 1,  1;" in compiled.ptx
    # C not a multiple of 64: dw' of each tap's columns padded to 64 in the
    # workspace, dw taken from it by the reduce kernel.
    narrow = spio.Conv2dArguments(32, 56, 56, 40, 64, pass_="wgrad")
    config = family.chosen(narrow, spio.kernels.target("sm_90"))
    assert spio.Kernel(family, config).supports(narrow)
    assert [name for name, _, _ in spio.Kernel(family, config).compile(narrow).kernels] == \
        ["conv2d", "conv2d_wgrad_reduce"]


def test_blocks_of_narrow_groups_come_from_the_library():
    # spio.conv2d's routing asks the library which groups a block of
    # block-diagonal weights holds (conv2dBlockGroups; its gtest's table):
    # the most dividing G that fit 64 channels, or 128 where under 32.
    from spio import _capi
    for channels, groups, block in ((144, 9, 3), (784, 49, 7), (120, 5, 5), (512, 32, 4),
                                    (336, 14, 2), (176, 11, 1), (432, 9, 1), (64, 64, 1)):
        problem = _capi.Conv2dProblem(c=channels, k=channels, groups=groups)
        assert _capi.lib.spio_conv2d_block_groups(problem) == block, (channels, groups)
    # C in != C out: no block.
    assert _capi.lib.spio_conv2d_block_groups(_capi.Conv2dProblem(c=64, k=128, groups=4)) == 1


def test_choosers_take_problems_their_checks_refuse():
    """The convolutions' choosers size tiles from the output and the
    stride: for a stride of 0 they return a configuration (the check then
    says what is wrong) instead of dividing by zero in the library."""
    family = spio.kernels.Conv2dFamily()
    args = spio.kernels.Conv2dArguments(8, 64, 32, 32, 64, 3, 3, stride=(0, 0))
    assert family.check(args, family.chosen(args)) == "conv2d strides are 1 to 8, got 0x0"
    grouped = spio.Conv2dGw8Family()
    for pass_ in ("fprop", "dgrad", "wgrad"):
        unstrided = spio.Conv2dGw8Arguments(2, 64, 32, 32, 3, 3, 1, 1, 0, pass_, False, "f16")
        (only,) = grouped.candidates(unstrided)
        assert "stride 1 or 2, got 0" in grouped.check(unstrided, only)


def test_derived_sizes_of_refused_problems_are_empty():
    """The C API's sources, launch shapes, workspaces and features are
    sized from the problem and configuration: for ones the checks refuse on
    any GPU (a tile of 0 rows, a stride or a batch of 0) they are NULL or
    zeros, where the arithmetic divided by zero or sized vectors from
    garbage before."""
    lib = _capi.lib

    def grid(shape):
        return shape.grid_x, shape.grid_y, shape.block, shape.grid_z

    problem = _capi.GemmProblem(m=256, n=256, k=256, batch=1)
    empty = _capi.GemmConfig()
    assert grid(lib.spio_gemm_launch_shape(problem, empty)) == (0, 0, 0, 0)
    assert lib.spio_gemm_workspace_size(problem, empty) == 0
    assert lib.spio_gemm_source(problem, empty) is None
    conv = _capi.Conv2dProblem(n=2, h=8, w=8, c=64, k=64, r=3, s=3, stride_h=0, stride_w=0,
                               dilation_h=1, dilation_w=1, groups=1)
    assert lib.spio_conv2d_workspace_bytes(conv) == 0
    assert lib.spio_conv2d_launch_shapes(conv, empty, None, 0) == 0
    assert lib.spio_conv2d_source(conv, empty) is None
    family = spio.Conv2dGw8Family()
    args = spio.Conv2dGw8Arguments(2, 64, 32, 32, pass_="wgrad", bias=True)
    gw8 = family._problem(args, "wgrad")
    zeros = _capi.Conv2dGw8Config()
    assert grid(lib.spio_conv2d_gw8_launch_shape(gw8, zeros)) == (0, 0, 0, 0)
    assert lib.spio_conv2d_gw8_workspace_bytes(gw8, zeros) == 0
    assert grid(lib.spio_conv2d_gw8_reduce_launch_shape(gw8, zeros)) == (0, 0, 0, 0)
    features = (ctypes.c_double * 64)()
    assert lib.spio_conv2d_gw8_features(gw8, zeros, features, 64) == 0
    assert lib.spio_conv2d_gw8_source(gw8, zeros) is None
    # The chooser's configuration of the same problem has all of them.
    chosen = lib.spio_conv2d_gw8_choose_config(gw8)
    assert lib.spio_conv2d_gw8_launch_shape(gw8, chosen).grid_x > 0
    assert lib.spio_conv2d_gw8_features(gw8, chosen, features, 64) > 0
    assert lib.spio_conv2d_gw8_bias_launch_shape(gw8).grid_x > 0
    gw8.n = 0
    assert grid(lib.spio_conv2d_gw8_bias_launch_shape(gw8)) == (0, 0, 0, 0)
    assert grid(lib.spio_conv2d_gw8_bias_reduce_launch_shape(gw8)) == (0, 0, 0, 0)


def test_conv2d_groups_of_64_channels_run_on_the_implicit_gemm():
    family = spio.Conv2dFamily()
    grouped = spio.Conv2dArguments(8, 14, 14, 256, 512, groups=2)
    config = family.chosen(grouped, spio.kernels.target("sm_90"))
    kernel = spio.Kernel(family, config)
    assert kernel.supports(grouped)
    # A tile's columns are one group's 256 outputs; w holds a group's 128
    # channels a tap (its map 9 * 128 columns wide).
    assert 256 % config[2][1] == 0
    source = family.source(grouped, config)
    assert "groups = 2" in source and "rsc/8: 144" in source
    assert "cp.async.bulk.tensor.4d.shared::cluster.global.im2col" in kernel.compile(grouped).ptx
    for pass_ in ("dgrad", "wgrad"):
        args = spio.Conv2dArguments(8, 14, 14, 256, 512, pass_=pass_, groups=2)
        assert spio.Kernel(family, family.chosen(args, spio.kernels.target("sm_90"))) \
            .supports(args)
    # Groups of 16 or 32 channels (C = K): groups of 64 whose weights a
    # first kernel expands into the workspace.
    blocked = spio.Conv2dArguments(8, 14, 14, 256, 256, groups=8)
    config = family.chosen(blocked, spio.kernels.target("sm_90"))
    assert spio.Kernel(family, config).supports(blocked)
    assert family.workspace_size(blocked, config) == 256 * 9 * 64 * 2
    compiled = spio.Kernel(family, config).compile(blocked)
    assert [name for name, _, _ in compiled.kernels] == ["conv2d_expand_weights", "conv2d"]
    # Groups of other multiples of 8 channels (32 inputs, 64 outputs; 48
    # a group): the forward pads each tap of w to 64 channels in the
    # workspace, tiles of 8-column steps dividing a group's outputs; dgrad
    # transposes w there ([C, R, S, 64]); wgrad computes dw' of each group's
    # rows and each tap's columns padded to 64 there.
    narrow = spio.Conv2dArguments(8, 14, 14, 256, 512, groups=8)
    config = family.chosen(narrow, spio.kernels.target("sm_90"))
    assert spio.Kernel(family, config).supports(narrow)
    assert family.workspace_size(narrow, config) == 512 * 9 * 64 * 2
    regnet = spio.Conv2dArguments(8, 14, 14, 432, 432, groups=9)
    config = family.chosen(regnet, spio.kernels.target("sm_90"))
    assert config[2][1] == 48
    compiled = spio.Kernel(family, config).compile(regnet)
    assert [name for name, _, _ in compiled.kernels] == ["conv2d_expand_weights", "conv2d"]
    dgrad = spio.Conv2dArguments(8, 14, 14, 256, 512, pass_="dgrad", groups=8)
    config = family.chosen(dgrad, spio.kernels.target("sm_90"))
    assert spio.Kernel(family, config).supports(dgrad)
    assert family.workspace_size(dgrad, config) == 256 * 9 * 64 * 2
    wgrad = spio.Conv2dArguments(8, 14, 14, 256, 512, pass_="wgrad", groups=8)
    config = family.chosen(wgrad, spio.kernels.target("sm_90"))
    assert spio.Kernel(family, config).supports(wgrad)
    assert family.workspace_size(wgrad, config) >= 512 * 9 * 64 * 2
    assert family.layer_support(256, 512, (3, 3), (1, 1), (1, 1), (1, 1), groups=8)
    assert family.layer_support(256, 256, (3, 3), (1, 1), (1, 1), (1, 1), groups=4)
    assert not family.layer_support(96, 96, (3, 3), (1, 1), (1, 1), (1, 1), groups=8)
    expect_error(lambda: spio.Conv2dArguments(1, 8, 8, 64, 64, groups=1.5),
                 "groups must be an integer")


def test_dense_conv2d_says_why_not():
    family = spio.Conv2dFamily()
    # 3 input channels: a forward unfolds x and w into the workspace first,
    # a wgrad x (its kernel's dw' in 49 parts after x', folded back into dw
    # by the reduce kernel); dgrad is refused.
    rgb = spio.Conv2dArguments(1, 224, 224, 3, 64, 7, 7, (2, 2), (3, 3))
    config = family.chosen(rgb, spio.kernels.target("sm_90"))
    assert spio.Kernel(family, config).supports(rgb)
    assert family.workspace_size(rgb, config) == 229 * 112 * 64 * 2 + 64 * 3 * 64 * 2
    compiled = spio.Kernel(family, config).compile(rgb)
    assert [name for name, _, _ in compiled.kernels] == ["conv2d_unfold_x", "conv2d_unfold_w",
                                                         "conv2d"]
    wgrad = spio.Conv2dArguments(1, 224, 224, 3, 64, 7, 7, (2, 2), (3, 3), pass_="wgrad")
    config = family.chosen(wgrad, spio.kernels.target("sm_90"))
    assert family.workspace_size(wgrad, config) == 229 * 112 * 64 * 2 + 49 * 64 * 3 * 64 * 4
    compiled = spio.Kernel(family, config).compile(wgrad)
    assert [name for name, _, _ in compiled.kernels] == ["conv2d_unfold_x", "conv2d",
                                                         "conv2d_wgrad_reduce"]
    dgrad = spio.Conv2dArguments(1, 224, 224, 3, 64, 7, 7, (2, 2), (3, 3), pass_="dgrad")
    support = spio.Kernel(family, family.chosen(CONV, spio.kernels.target("sm_90"))).supports(dgrad)
    assert not support and "multiple of 8 input channels" in support.reason
    assert not family.layer_support(64, 64, (3, 3), (1, 1), (200, 200), (1, 1))
    assert family.layer_support(64, 64, (3, 3), (2, 2), (2, 2), (2, 2))
    expect_error(lambda: spio.Conv2dArguments(1, 8, 8, 64, 64, stride=(1, 2, 3)),
                 "stride is a (height, width) pair")
    expect_error(lambda: spio.Conv2dArguments(1, 8, 8, 64, 64, epilogue=("tanh",)),
                 "unknown epilogue step 'tanh'")
    f32 = spio.Conv2dArguments(1, 8, 8, 64, 64, dtype="f32")
    assert not spio.Kernel(family, ("bf16", "bf16", (128, 128, 64, 8, 1, "wgmma"), 4)) \
        .supports(f32)


@pytest.mark.parametrize("hw,rs,padding,dilation", [
    ((20, 20), (3, 3), (2, 2), (2, 2)), ((17, 13), (5, 5), (4, 4), (2, 2)),
    ((15, 16), (3, 3), (1, 3), (2, 3)), ((14, 14), (3, 5), (0, 0), (2, 2)),
    ((13, 11), (3, 3), (4, 4), (4, 4)), ((9, 9), (7, 7), (6, 6), (2, 2)),
    ((10, 7), (3, 3), (5, 0), (3, 2)), ((6, 6), (1, 2), (0, 1), (3, 4))])
def test_dilated_convolution_is_the_undilated_one_of_its_phase_images(hw, rs, padding, dilation):
    # The geometry spio.conv2d runs dilated grouped layers by (spio._phases):
    # each output (dh * i + a, dw * k + b) is phase image (a, b)'s undilated
    # convolution at (i, k); the images copy each pixel of x at most once
    # (the backward copies their gradients back without adding).
    import random
    from spio._phases import phase_copies, phase_extents
    (h, w), (r, s), (dh, dw) = hw, rs, dilation
    generator = random.Random(h * 97 + w)
    x = [[generator.uniform(-1, 1) for _ in range(w)] for _ in range(h)]
    taps = [[generator.uniform(-1, 1) for _ in range(s)] for _ in range(r)]
    oh, oh_phase, h_phase = phase_extents(h, r, padding[0], dh)
    ow, ow_phase, w_phase = phase_extents(w, s, padding[1], dw)
    phases = {(a, b): [[0.0] * w_phase for _ in range(h_phase)]
              for a in range(dh) for b in range(dw)}
    copied = set()
    for (a, b), (_, rows, columns), (_, x_rows, x_columns) in phase_copies(
            (1, h, w, 1), padding, dilation, (h_phase, w_phase)):
        x_row_list = list(range(h))[x_rows]
        x_column_list = list(range(w))[x_columns]
        assert len(x_row_list) == rows.stop - rows.start
        assert len(x_column_list) == columns.stop - columns.start
        for j, xj in zip(range(rows.start, rows.stop), x_row_list):
            for l, xl in zip(range(columns.start, columns.stop), x_column_list):
                assert (xj, xl) not in copied
                copied.add((xj, xl))
                phases[a, b][j][l] = x[xj][xl]

    def x_at(i, j):
        return x[i][j] if 0 <= i < h and 0 <= j < w else 0.0

    for i in range(oh):
        for k in range(ow):
            direct = sum(taps[u][v] * x_at(i - padding[0] + dh * u, k - padding[1] + dw * v)
                         for u in range(r) for v in range(s))
            image = phases[i % dh, k % dw]
            assert i // dh < oh_phase and k // dw < ow_phase
            phased = sum(taps[u][v] * image[i // dh + u][k // dw + v]
                         for u in range(r) for v in range(s))
            assert abs(phased - direct) < 1e-9, (i, k)
