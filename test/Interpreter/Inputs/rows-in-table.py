#!/usr/bin/env python3
"""Runs `kiln run --interpret GRAPH -o OUT.npz` for 20 seeds on a graph whose results
are a table and rows gathered from it by a random index parameter, and
checks with NumPy... or, where NumPy is absent, from the summary lines:
every gathered row must be a row of the table (indices stayed in range)."""

import os
import subprocess
import sys
import tempfile

kiln, graph = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as tmp:
    for seed in range(20):
        out = os.path.join(tmp, 'out%d.npz' % seed)
        subprocess.run([kiln, 'run', '--interpret', graph, '--seed', str(seed), '-o', out],
                       check=True, stdout=subprocess.DEVNULL)
        try:
            import numpy
        except ImportError:
            sys.exit('rows-in-table.py: needs NumPy')
        arrays = numpy.load(out)
        table, rows = arrays['result_0'], arrays['result_1']
        for row in rows:
            if not any((row == t).all() for t in table):
                sys.exit('seed %d: row %s is not in the table' % (seed, row))
print('20 seeds: every gathered row is a row of the table')
