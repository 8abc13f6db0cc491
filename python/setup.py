"""Puts the built C API library (libspio_capi.so) inside the package: from
$SPIO_LIBRARY, else the checkout's build/lib. The README's build makes it;
scripts/pack-bundle.sh makes one with LLVM linked statically, for hosts
without LLVM 22."""

import os
import shutil
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


commands = {"build_py": BuildWithLibrary}
try:
    from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        """py3-none-<platform>: the library is loaded through ctypes, so one
        wheel serves every Python 3 of the platform."""

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    commands["bdist_wheel"] = PlatformWheel
except ImportError:
    pass  # no wheels to build without the wheel package

setup(cmdclass=commands, distclass=BinaryDistribution)
