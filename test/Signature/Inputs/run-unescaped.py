#!/usr/bin/env python3
"""Runs a command whose arguments may hold `\\n` (backslash, n), which lit's
RUN lines cannot spell otherwise: each becomes a newline. Passes stdout,
stderr and the exit code through."""

import subprocess
import sys

sys.exit(subprocess.call([a.replace('\\n', '\n') for a in sys.argv[1:]]))
