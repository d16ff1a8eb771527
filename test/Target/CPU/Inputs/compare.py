"""Runs each graph compiled and on the evaluator (`kiln run --compare`) with
a seed of its own (fixed per graph file name, so that a run is repeatable;
KILN_COMPARE_SEED=random draws a fresh one each run), and fails if any result differs by more than the tolerance
its element type allows (relative to the result's largest magnitude), or
if NaNs appear where the evaluator has none. Compiled outputs are poisoned
(0xff bytes) before each run, so an element the code never writes shows.

    compare.py KILN [--ranks N] [--tolerance TYPE=LIMIT] GRAPH...

With --ranks, every graph runs as N participants (one thread each, on the
same parameters), and every rank's results are compared. --tolerance
replaces one element type's limit (for a deep graph, whose f32 sums,
reordered by tiling, meet normalizations that amplify their rounding).
"""
import os
import random
import re
import zlib
import subprocess
import sys

TOLERANCE = {"f64": 1e-12, "f32": 1e-5, "f16": 1e-2, "bf16": 1e-2,
             "complex<f64>": 1e-12, "complex<f32>": 1e-5}
# 8-bit floats: one unit in the last place of the format's mantissa (a sum
# rounded from f32 in another order may round the other way).
for element, mantissa in {"f8E5M2": 2, "f8E5M2FNUZ": 2, "f8E4M3FN": 3,
                          "f8E4M3": 3, "f8E4M3FNUZ": 3, "f8E4M3B11FNUZ": 3,
                          "f8E3M4": 4}.items():
    TOLERANCE[element] = 2.0 ** -mantissa

kiln, graphs = sys.argv[1], sys.argv[2:]
ranks = []
while graphs[:1] in (["--ranks"], ["--tolerance"]):
    if graphs[0] == "--ranks":
        ranks = ["--ranks", graphs[1]]
    else:
        element, limit = graphs[1].split("=")
        TOLERANCE[element] = float(limit)
    graphs = graphs[2:]
failures = 0
compared = 0
for graph in graphs:
    name = graph.rsplit("/", 1)[-1]
    seed = (random.randrange(1 << 31)
            if os.environ.get("KILN_COMPARE_SEED") == "random"
            else zlib.crc32(name.encode()) & 0x7fffffff)
    run = subprocess.run([kiln, "run", "--compare", "--seed", str(seed)] +
                         ranks + [graph],
                         capture_output=True, text=True)
    name = graph.rsplit("/", 1)[-1]
    if run.returncode != 0:
        print(f"{name}: kiln run --compare failed (seed {seed}): {run.stderr.strip()}")
        failures += 1
        continue
    results = re.findall(r"(?:rank \d+ )?result (\d+): tensor<(.*?)>  max abs error (\S+)"
                         r"  max rel error (\S+)(.*)", run.stdout)
    if not results:
        print(f"{name}: no result compared (seed {seed})")
        failures += 1
    for index, element, absolute, relative, rest in results:
        element = re.sub(r"^(\d+x)*", "", element)
        limit = TOLERANCE.get(element, 0.0)
        if float(relative) > limit or "NaN" in rest:
            print(f"{name}: result {index} ({element}) off by {relative} "
                  f"(allowed {limit}){rest} with seed {seed}")
            failures += 1
        else:
            print(f"{name}: result {index} ({element}) within {limit}")
        compared += 1
print(f"{compared} results compared, {failures} failures")
sys.exit(1 if failures else 0)
