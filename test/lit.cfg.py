# -*- Python -*-
# lit configuration of the Spio IR tests.

import ctypes
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Spio"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.spio_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
# Keep spio-jit's PTX cache inside the build tree.
config.environment["SPIO_CACHE_DIR"] = os.path.join(config.spio_obj_root, "test", "spio-cache")
config.substitutions.append(("%spio_src_root", config.spio_src_root))
config.substitutions.append(("%spio_obj_root", config.spio_obj_root))
config.substitutions.append(("%spio_tools_dir", config.spio_tools_dir))
# The build's CMake and Ninja, for tests that install Spio and build against it.
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%make_program", config.make_program))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tools = [ToolSubst("spio-opt", unresolved="fatal"),
         ToolSubst("spio-capi-dialects-test", unresolved="fatal"),
         ToolSubst("spio-jit", unresolved="fatal"),
         ToolSubst("spio-fuzz", unresolved="fatal"),
         ToolSubst("%PYTHON", config.python_executable, unresolved="ignore")]
llvm_config.add_tool_substitutions(tools, [config.spio_tools_dir])


def cuda_device_present():
    """True when the CUDA driver loads and reports a device: GPU tests run."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return False
    return count.value > 0


if cuda_device_present():
    config.available_features.add("cuda")
# python/tests runs under pytest (Debian: python3-pytest) where it is installed.
if subprocess.run([config.python_executable, "-c", "import pytest"],
                  capture_output=True).returncode == 0:
    config.available_features.add("pytest")
# benchmarks/model/train.py fits with xgboost (Debian: python3-xgboost).
if subprocess.run([config.python_executable, "-c", "import numpy, xgboost"],
                  capture_output=True).returncode == 0:
    config.available_features.add("xgboost")
# pip installs the package into a venv offline (Debian: python3-venv,
# python3-setuptools, python3-wheel).
if subprocess.run([config.python_executable, "-c", "import ensurepip, setuptools, wheel"],
                  capture_output=True).returncode == 0:
    config.available_features.add("python-packaging")
config.substitutions.append(("%spio_capi", os.path.join(config.spio_obj_root, "lib",
                                                        "libspio_capi.so")))
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
