"""Counts the loop nests of a compiled graph (`kiln compile --emit llvm`)
that allocate memory, so that a test can say which work allocates without
naming nests by their number, which follows the order of outlining.

    allocating-nests.py FILE.ll

Prints `nests: N`, then `allocating nests: M, allocations: A`.
"""
import re
import sys

text = open(sys.argv[1]).read()
nests = allocating = allocations = 0
for function in re.split(r"\ndefine ", text)[1:]:
    name = re.search(r"@([\w.$]+)\(", function).group(1)
    if ".nest" not in name:
        continue
    nests += 1
    count = function.count("call ptr @_mlir_memref_to_llvm_alloc(")
    allocating += count > 0
    allocations += count
print(f"nests: {nests}")
print(f"allocating nests: {allocating}, allocations: {allocations}")
