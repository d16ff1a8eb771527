#!/usr/bin/env python3
"""Writes single-edit variants of an HLO file: `mutate.py IN OUTDIR
'NAME=OLD ==> NEW' ...` writes OUTDIR/NAME.hlo with the first occurrence of OLD
replaced by NEW (OLD must occur), and OUTDIR/original.hlo unchanged, so that
a test can hash them all and check which must differ. Comment lines are
dropped first."""

import os
import sys

source_path, out_dir = sys.argv[1], sys.argv[2]
with open(source_path) as f:
    # The inputs are lit tests: their `//` lines (RUN and CHECK lines that
    # quote the HLO) are not part of the graph and must not be edited.
    source = ''.join(line for line in f
                     if not line.lstrip().startswith('//'))
os.makedirs(out_dir, exist_ok=True)
with open(os.path.join(out_dir, 'original.hlo'), 'w') as f:
    f.write(source)
for spec in sys.argv[3:]:
    name, edit = spec.split('=', 1)
    old, new = edit.split(' ==> ', 1)
    if old not in source:
        sys.exit('mutate.py: %r does not occur in %s' % (old, source_path))
    with open(os.path.join(out_dir, name + '.hlo'), 'w') as f:
        f.write(source.replace(old, new, 1))
