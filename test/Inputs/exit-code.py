"""Runs a command and prints its output followed by `exit code: N`.

Lit's `not` only tells zero from non-zero; kiln promises exactly 2 for input
errors, so tests run `%python %inputs/exit-code.py kiln import ... 2>&1 |
FileCheck %s` and check the `exit code: 2` line. A crash shows up as a
negative code (the signal), never as 2.
"""

import subprocess
import sys

if len(sys.argv) < 2:
    sys.exit("usage: exit-code.py COMMAND [ARGS...]")
result = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(result.stdout.decode("utf-8", "replace"))
sys.stdout.write("exit code: %d\n" % result.returncode)
