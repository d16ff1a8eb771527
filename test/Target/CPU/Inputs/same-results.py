"""Runs one graph compiled and on the evaluator on the same given inputs
(a .npz file) and checks that every result is the same, bit for bit where
the values are numbers: equal, with the same sign (a zero's too), and NaN
where the other is NaN. Prints, per result, how many elements agreed.

    same-results.py KILN GRAPH INPUTS.npz WORKDIR
"""
import os
import subprocess
import sys

import numpy as np

kiln, graph, inputs, workdir = sys.argv[1:5]
name = os.path.basename(graph)
outputs = {}
for mode in ("compiled", "interpret"):
    path = os.path.join(workdir, f"{name}.{mode}.npz")
    command = [kiln, "run", graph, "--inputs", inputs, "-o", path]
    if mode == "interpret":
        command.insert(2, "--interpret")
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    outputs[mode] = np.load(path)
failures = 0
for key in outputs["compiled"].files:
    got, want = outputs["compiled"][key], outputs["interpret"][key]
    same = ((got == want) & (np.signbit(got) == np.signbit(want))) | (
        np.isnan(got) & np.isnan(want))
    if same.all():
        print(f"{name}: {key}: {same.size} elements the same")
    else:
        failures += 1
        index = np.flatnonzero(~same)[0]
        print(f"{name}: {key}: {np.count_nonzero(~same)} of {same.size} "
              f"differ, first at {index}: got {got.flat[index]}, "
              f"want {want.flat[index]}")
sys.exit(1 if failures else 0)
