"""Small uses of the kiln module, one per test (lit would rewrite the
module's name in a RUN line into the kiln command's path).

  use-module.py precompile GRAPH CACHE   kiln.precompile's report
  use-module.py load-missing CACHE GRAPH  the error of a missing graph
  use-module.py check CACHE GRAPHS...     Cache.check's rows
  use-module.py load-text CACHE GRAPH     the graph loaded from its text
  use-module.py scalars CACHE             Python numbers for scalar parameters
  use-module.py too-few-ranks CACHE       a two-rank graph called on one
"""

import os
import sys

import kiln

if sys.argv[1] == "precompile":
    report = kiln.precompile([sys.argv[2]], cache=sys.argv[3], jobs=1)
    print(report["exit_status"], [g["status"] for g in report["graphs"]])
elif sys.argv[1] == "load-missing":
    try:
        kiln.Cache(sys.argv[2]).load(sys.argv[3])
    except kiln.Error as error:
        print("kiln.Error: %s" % error)
elif sys.argv[1] == "check":
    for row in kiln.Cache(sys.argv[2]).check(sys.argv[3:]):
        print(row["status"], row["path"], row["reason"])
    # A path given as bytes, as os.listdir(bytes) gives them.
    row = kiln.Cache(sys.argv[2]).check([os.fsencode(sys.argv[3])])[0]
    print("bytes:", row["status"], row["reason"])
    try:
        kiln.Cache(sys.argv[2]).check(sys.argv[3:], no_such_option=1)
    except kiln.Error as error:
        print("kiln.Error: %s" % error)
elif sys.argv[1] == "load-text":
    import numpy as np
    with open(sys.argv[3]) as f:
        text = f.read()
    executable = kiln.Cache(sys.argv[2]).load_text(text, name="add.hlo")
    print(executable.from_cache, executable(np.zeros(4, np.float32))[0])
elif sys.argv[1] == "too-few-ranks":
    import numpy as np
    graph = """HloModule pair

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=%sum
}
"""
    executable = kiln.Cache(sys.argv[2]).load_text(graph, name="pair.hlo")
    try:
        executable(np.ones(4, np.float32))
    except kiln.Error as error:
        print("kiln.Error: %s" % error)
    ones = [np.ones(4, np.float32)]
    print("run_ranks:", executable.run_ranks([ones, ones])[0][0])
elif sys.argv[1] == "scalars":
    graph = """HloModule scalars

ENTRY main {
  n = s32[] parameter(0)
  x = f32[] parameter(1)
  h = bf16[] parameter(2)
  c = f32[] convert(n)
  y = f32[] add(x, c)
  hf = f32[] convert(h)
  ROOT r = f32[] add(y, hf)
}
"""
    import numpy as np
    executable = kiln.Cache(sys.argv[2]).load_text(graph, name="scalars.hlo")
    bf16_one = np.array(0x3F80, np.uint16)
    print("ok:", float(executable(3, 1.5, bf16_one)[0]))
    for arguments in [(2.7, 1.5, bf16_one), (2 ** 40, 1.5, bf16_one),
                      (3, 1.5, 1.5), (True, 1.5, bf16_one)]:
        try:
            executable(*arguments)
            print("accepted", arguments)
        except kiln.Error as error:
            print("refused:", error)
