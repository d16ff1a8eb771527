#!/usr/bin/env python3
"""Runs a command, prints its output (stdout, then stderr) and then
`exit code: N`, and exits 0: lit's `not` only tells zero from non-zero, and
kiln promises exact codes (0 success, 1 some graphs differ or failed,
2 usage or input errors)."""

import subprocess
import sys

if len(sys.argv) < 2:
    sys.exit('usage: exit-code.py COMMAND [ARGS...]')
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
sys.stdout.write(p.stdout.decode('utf-8', 'replace'))
sys.stdout.write(p.stderr.decode('utf-8', 'replace'))
sys.stdout.write('exit code: %d\n' % p.returncode)
