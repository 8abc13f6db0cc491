# -*- Python -*-
# Runs the gtest unit tests as lit tests, one lit test per gtest case.

import os

import lit.formats

config.name = "Spio-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.spio_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
