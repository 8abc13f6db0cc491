"""Puts the built C API library (libspio_capi.so) inside the package: from
$SPIO_LIBRARY, else the checkout's build/lib. The README's build makes it;
scripts/pack-bundle.sh makes one with LLVM linked statically, for hosts
without LLVM 22. Where torch is importable (pip install
--no-build-isolation), also builds spio._autograd (spio/csrc/autograd.cpp:
spio.linear's and spio.conv2d_gw8's eager calls and autograd nodes in C++)
against it; SPIO_NO_TORCH_EXTENSION=1 leaves it out. In a checkout: cd python && python3 setup.py build_ext --inplace."""

import os
import shutil
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

LIBRARY = "libspio_capi.so"


def built_library():
    given = os.environ.get("SPIO_LIBRARY")
    path = Path(given) if given else Path(__file__).resolve().parent.parent / "build" / "lib" / LIBRARY
    if not path.is_file():
        raise SystemExit(f"spio: no {path}: build Spio first (scripts/bootstrap.sh run, or "
                         f"scripts/pack-bundle.sh and unpack bundle/{LIBRARY}.xz), or set "
                         f"SPIO_LIBRARY to the library to install")
    return path


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "spio" / LIBRARY
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built_library(), target)


class BinaryDistribution(Distribution):
    """The package holds a native library: its wheel names the platform."""

    def has_ext_modules(self):
        return True


def torch_extension():
    """spio._autograd's extension and its build command, where torch is
    importable; else none (those calls then run in Python)."""
    if os.environ.get("SPIO_NO_TORCH_EXTENSION") == "1":
        return [], {}
    try:
        from torch.utils.cpp_extension import BuildExtension, CppExtension
    except ImportError:
        return [], {}

    class OptionalBuild(BuildExtension):
        """A failed build (no C++ compiler, no Python headers) leaves the
        extension out rather than the package: neither copied in place nor
        installed."""

        def build_extensions(self):
            self.left_out = set()
            super().build_extensions()
            self.extensions = [e for e in self.extensions if e.name not in self.left_out]

        def build_extension(self, ext):
            try:
                super().build_extension(ext)
            except Exception as error:  # the compiler's or setuptools' own
                self.left_out.add(ext.name)
                print(f"spio: {ext.name} not built ({error}): spio.linear's and "
                      f"spio.conv2d_gw8's calls run in Python", file=sys.stderr)

    return ([CppExtension("spio._autograd", ["spio/csrc/autograd.cpp"])],
            {"build_ext": OptionalBuild})


extensions, commands = torch_extension()
commands["build_py"] = BuildWithLibrary
try:
    from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        """py3-none-<platform>: the library is loaded through ctypes, so one
        wheel serves every Python 3 of the platform (unless it holds the
        torch extension, built for this Python: not where it failed)."""

        def get_tag(self):
            tag = super().get_tag()
            built = self.get_finalized_command("build_ext").extensions
            return tag if built else ("py3", "none", tag[2])

    commands["bdist_wheel"] = PlatformWheel
except ImportError:
    pass  # no wheels to build without the wheel package

setup(cmdclass=commands, distclass=BinaryDistribution, ext_modules=extensions)
