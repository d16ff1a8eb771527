"""Small uses of the kiln module, one per test (lit would rewrite the
module's name in a RUN line into the kiln command's path).

  use-module.py precompile GRAPH CACHE   kiln.precompile's report
  use-module.py load-missing CACHE GRAPH  the error of a missing graph
  use-module.py load-text CACHE GRAPH     the graph loaded from its text
"""

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
elif sys.argv[1] == "load-text":
    import numpy as np
    with open(sys.argv[3]) as f:
        text = f.read()
    executable = kiln.Cache(sys.argv[2]).load_text(text, name="add.hlo")
    print(executable.from_cache, executable(np.zeros(4, np.float32))[0])
