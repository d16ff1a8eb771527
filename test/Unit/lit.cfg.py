# -*- Python -*-
# lit configuration for kiln's GoogleTest unit tests, run in the same suite.

import os

import lit.formats

config.name = "kiln-unit"
config.suffixes = []
config.test_source_root = os.path.join(config.kiln_obj_root, "test", "Unit")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
