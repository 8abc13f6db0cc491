"""torch.utils.cpp_extension's two names, over setuptools alone."""

from setuptools import Extension
from setuptools.command.build_ext import build_ext as BuildExtension

__all__ = ["BuildExtension", "CppExtension"]


def CppExtension(name, sources):
    return Extension(name, sources, language="c++")
