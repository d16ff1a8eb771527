"""Writes, for each op name given, StableHLO files that use the op in the
generic form with 0, 1, 2, 3 and 5 operands and 0, 1 and 2 results:

    generic-op-counts.py OUTDIR OP...

The importer must reject the nonsensical ones with an error, never crash:
it takes some ops' operands and results by position."""

import os
import sys

out_dir, ops = sys.argv[1], sys.argv[2:]
os.makedirs(out_dir, exist_ok=True)
count = 0
for op in ops:
    for operands in (0, 1, 2, 3, 5):
        for results in (0, 1, 2):
            args = ", ".join(["%x"] * operands)
            ins = ", ".join(["tensor<4xf32>"] * operands)
            outs = ", ".join(["tensor<4xf32>"] * results)
            path = os.path.join(out_dir, "%s.%d.%d.mlir" % (op, operands, results))
            with open(path, "w") as f:
                f.write('func.func public @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n'
                        '  "%s"(%s) : (%s) -> (%s)\n'
                        '  return %%x : tensor<4xf32>\n}\n' % (op, args, ins, outs))
            count += 1
print("generic-op-counts.py: %d files" % count)
