"""Names the steps of attention that each loop nest of a compiled graph
(`kiln compile --emit llvm`) computes, so that a test can say which steps
share a nest without naming nests by their number.

    nest-steps.py FILE.ll

Prints one line per nest that computes any, in the order of the file:
`nest: contraction max exp divide` (contraction: a register tile's
vector multiply-adds, llvm.fmuladd on vectors; max: a float maximum; exp:
the exponential's polynomial, recognized by its constant log2(e); divide:
a float division).
"""
import re
import sys

text = open(sys.argv[1]).read()
for function in re.split(r"\ndefine ", text)[1:]:
    name = re.search(r"@([\w.$]+)\(", function).group(1)
    if ".nest" not in name:
        continue
    steps = []
    if "llvm.fmuladd.v" in function:
        steps.append("contraction")
    if "maximum" in function:
        steps.append("max")
    if "0x3FF7154760000000" in function:
        steps.append("exp")
    if re.search(r"= fdiv ", function):
        steps.append("divide")
    if steps:
        print("nest:", " ".join(steps))
