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


def problem(record):
    sh = record["shape"]
    return _capi.Conv2dGw8Problem(
        _capi.PASSES[record["pass"]], sh["n"], sh["c"], sh["h"], sh["w"], sh["r"], sh["s"],
        sh["ph"], sh["pw"], sh["stride"], sh["g"], int(sh["bias"] and record["pass"] == "fprop"),
        kernels._dtype_code("f16", ("f16", "bf16")), 0, record["multiprocessors"],
        record["l2_bytes"], record.get("shared_bytes_per_block", 0),
        record.get("shared_bytes_per_multiprocessor", 0))


def config(tile):
    return _capi.Conv2dGw8Config(*(list(tile) + [0] * (len(FIELDS) - len(tile))))


def features(prob, tile):
    count = len(feature_names())
    values = (ctypes.c_double * count)()
    _capi.lib.spio_conv2d_gw8_features(prob, config(tile), values, count)
    return list(values)


def load(paths):
    records = []
    for path in paths:
        with open(path) as f:
            records += [json.loads(line) for line in f]
    return records
