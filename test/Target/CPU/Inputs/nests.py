"""Describes the loop nests of a compiled graph (`kiln compile --emit
llvm`), so that a test can say what they compute and allocate without
naming nests by their number, which follows the order of outlining.

    nests.py steps FILE.ll
    nests.py allocations FILE.ll

steps: one line per nest that computes any of attention's steps, in the
order of the file: `nest: contraction max exp divide` (contraction: a
register tile's vector multiply-adds, llvm.fmuladd on vectors; max: a
float maximum; exp: the exponential's polynomial, recognized by its
constant log2(e); divide: a float division).

allocations: `nests: N`, then `allocating nests: M, allocations: A`.
"""
import re
import sys


def nests(text):
    """The body of each outlined nest's function, in the order of the file."""
    for function in re.split(r"\ndefine ", text)[1:]:
        name = re.search(r"@([\w.$]+)\(", function).group(1)
        if ".nest" in name:
            yield function


def steps(text):
    for function in nests(text):
        found = []
        if "llvm.fmuladd.v" in function:
            found.append("contraction")
        if "maximum" in function:
            found.append("max")
        if "0x3FF7154760000000" in function:
            found.append("exp")
        if re.search(r"= fdiv ", function):
            found.append("divide")
        if found:
            print("nest:", " ".join(found))


def allocations(text):
    counts = [function.count("call ptr @_mlir_memref_to_llvm_alloc(")
              for function in nests(text)]
    print(f"nests: {len(counts)}")
    print(f"allocating nests: {sum(count > 0 for count in counts)}, "
          f"allocations: {sum(counts)}")


mode, path = sys.argv[1], sys.argv[2]
{"steps": steps, "allocations": allocations}[mode](open(path).read())
