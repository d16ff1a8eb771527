# A training command that dumps one graph where XLA_FLAGS says, and another
# under 2100 nested directories: a path past PATH_MAX, which no open() by
# path reaches. Usage: deep-dumps.py GRAPH
import os
import re
import shutil
import sys

dump = re.search(r"--xla_dump_to=(\S+)", os.environ["XLA_FLAGS"]).group(1)
os.makedirs(dump, exist_ok=True)
shutil.copy(sys.argv[1], os.path.join(dump, "top.hlo"))
with open(sys.argv[1]) as f:
    text = f.read()
os.chdir(dump)
for _ in range(2100):
    os.mkdir("a")
    os.chdir("a")
with open("deep.hlo", "w") as f:
    f.write(text.replace("constant(1)", "constant(5)"))
