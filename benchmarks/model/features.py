"""The model's rows from a sweep's records: each candidate's features,
computed by the library (spio_conv2d_gw8_features, the function the C++
chooser calls), on the record's target."""

import ctypes
import json

import spio.kernels as kernels
from spio import _capi

FIELDS = kernels.Conv2dGw8Family._TILE_FIELDS


def feature_names():
    names = []
    while (name := _capi.lib.spio_conv2d_gw8_feature_name(len(names))) is not None:
        names.append(name.decode())
    return names


def arguments(sh, pass_):
    """A layer of shapes.py as the Python package's arguments (f16; fprop
    alone adds a bias)."""
    return kernels.Conv2dGw8Arguments(sh["n"], sh["c"], sh["h"], sh["w"], sh["r"], sh["s"],
                                      sh["ph"], sh["pw"], sh["stride"], pass_,
                                      sh["bias"] and pass_ == "fprop", "f16",
                                      group_width=sh["g"])


def target(record):
    """The target a sweep record was measured on: its chip's reference part
    with the facts the record has (the first records did not say their
    shared memory, an H200's as sm_90's)."""
    facts = ("multiprocessors", "l2_bytes", "shared_bytes_per_block",
             "shared_bytes_per_multiprocessor")
    return kernels.target(record.get("chip", "sm_90"),
                          **{name: record[name] for name in facts if name in record})


def problem(record):
    """The C problem of a sweep record on the target it was measured on."""
    return kernels.Conv2dGw8Family._problem(arguments(record["shape"], record["pass"]),
                                            record["pass"], target(record))


def tile(args, c_config):
    """A C configuration as the Python package's tile (trailing zeros off)."""
    return list(kernels.Conv2dGw8Family()._instance(args, c_config)[2])


def chosen(record):
    """The tile the library chooses for a sweep record's layer and pass, on
    the record's target (the model's pick for fprop and dgrad)."""
    layer = arguments(record["shape"], record["pass"])
    return tuple(tile(layer, _capi.lib.spio_conv2d_gw8_choose_config(problem(record))))


def ranked(record):
    """The library's candidates for a sweep record's layer and pass, on the
    record's target, in the model's order (its pick first)."""
    layer = arguments(record["shape"], record["pass"])
    return [instance[2] for instance in
            kernels.Conv2dGw8Family().candidates(layer, target(record))]


def times(record):
    """Each timed candidate's tile -> its median ms."""
    return {tuple(c["config"]): c["ms"] for c in record["candidates"]}


def config(tile):
    return _capi.Conv2dGw8Config(*(list(tile) + [0] * (len(FIELDS) - len(tile))))


def features(prob, tile):
    count = len(feature_names())
    values = (ctypes.c_double * count)()
    if _capi.lib.spio_conv2d_gw8_features(prob, config(tile), values, count) != count:
        raise ValueError(f"the library refuses configuration {tile} of this problem")
    return list(values)


def load(paths):
    records = []
    for path in paths:
        with open(path) as f:
            records += [json.loads(line) for line in f]
    return records
