"""Writes HLO modules that nest very deeply, for deep-nesting.test.

    deep-nesting.py KIND DEPTH OUTPUT

KIND is one of:
  literal  a one-element constant inside DEPTH pairs of braces (malformed:
           the nesting does not match the rank)
  tuple    a parameter whose shape is a tuple nested DEPTH deep (valid)
  calls    a chain of DEPTH computations, each calling the next (valid)
  while    DEPTH while loops, each one's body holding the next (valid)
"""

import sys

kind, depth, output = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = ["HloModule deep_" + kind]
if kind == "literal":
    lines += ["ENTRY e {",
              "  ROOT c = f32[1] constant(" + "{" * depth + "1" + "}" * depth + ")",
              "}"]
elif kind == "tuple":
    lines += ["ENTRY e {",
              "  ROOT p = " + "(" * depth + "f32[]" + ")" * depth + " parameter(0)",
              "}"]
elif kind == "calls":
    for i in range(depth):
        lines += ["c%d {" % i, "  x = f32[] parameter(0)",
                  "  ROOT y = f32[] call(x), to_apply=c%d" % (i + 1), "}"]
    lines += ["c%d {" % depth, "  ROOT x = f32[] parameter(0)", "}",
              "ENTRY e {", "  p = f32[] parameter(0)",
              "  ROOT r = f32[] call(p), to_apply=c0", "}"]
elif kind == "while":
    lines += ["cond {", "  c = s32[] parameter(0)", "  ROOT t = pred[] constant(false)", "}"]
    lines += ["b%d {" % depth, "  ROOT x = s32[] parameter(0)", "}"]
    for i in reversed(range(depth)):
        lines += ["b%d {" % i, "  x = s32[] parameter(0)",
                  "  ROOT w = s32[] while(x), condition=cond, body=b%d" % (i + 1), "}"]
    lines += ["ENTRY e {", "  p = s32[] parameter(0)",
              "  ROOT w = s32[] while(p), condition=cond, body=b0", "}"]
else:
    sys.exit("unknown kind " + kind)
with open(output, "w") as f:
    f.write("\n".join(lines) + "\n")
