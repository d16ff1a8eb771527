#!/usr/bin/env python3
"""Reads `kiln hash` lines (`<signature>  <key>  <path>`) and prints each as
`sig=N key=M <file name>`, where N and M number the distinct signatures and
keys in order of first appearance: a test can then state which graphs must
share a signature or a key and which must not. Other lines are copied."""

import os
import re
import sys

LINE = re.compile(r'^([0-9a-f]{32})  ([0-9a-f]{32})  (.+)$')
sigs, keys = {}, {}
for line in sys.stdin:
    m = LINE.match(line.rstrip('\n'))
    if not m:
        sys.stdout.write(line)
        continue
    s = sigs.setdefault(m.group(1), len(sigs) + 1)
    k = keys.setdefault(m.group(2), len(keys) + 1)
    print('sig=%d key=%d %s' % (s, k, os.path.basename(m.group(3))))
