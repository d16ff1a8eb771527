"""Runs a command, passes its output on (stderr merged into stdout) and exits
0 if the command's exit status is the one expected, 1 otherwise.

Lit's `not` only tells zero from non-zero; kiln promises 1 for misses and
failures and exactly 2 for usage and input errors:

  RUN: %python %S/Inputs/expect-exit.py 2 kiln cache ... 2>&1 | FileCheck %s
"""

import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: expect-exit.py CODE COMMAND [ARGS...]")
expected = int(sys.argv[1])
result = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(result.stdout.decode("utf-8", "replace"))
if result.returncode != expected:
    sys.stdout.write("expect-exit.py: expected exit code %d, got %d\n" % (expected, result.returncode))
    sys.exit(1)
