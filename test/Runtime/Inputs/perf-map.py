"""Runs a command with KILN_PERF_MAP=1 (with --off first, without it) and
prints the perf map it wrote.

perf names code it finds in anonymous memory from /tmp/perf-<pid>.map; the
pid is the child's, known only here. The map is removed after printing.
"""
import os
import subprocess
import sys

command = sys.argv[1:]
env = dict(os.environ, KILN_PERF_MAP="1")
if command[0] == "--off":
    command = command[1:]
    env.pop("KILN_PERF_MAP")
child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
code = child.wait()
path = "/tmp/perf-%d.map" % child.pid
try:
    with open(path) as map_file:
        sys.stdout.write(map_file.read())
    os.remove(path)
except FileNotFoundError:
    print("no perf map")
print("exit code: %d" % code)
