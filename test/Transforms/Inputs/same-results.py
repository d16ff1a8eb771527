#!/usr/bin/env python3
"""For each graph: runs it with `kiln run --interpret --seed 7`, runs kiln-frontend on
it (counting the kiln.causal_mask ops it makes), runs the result the same
way, and prints `NAME: N masks folded, same results` when every output
line (with its checksum) is identical, else the lines that differ. A graph
written for several participants runs on as many ranks as its error asks
for."""

import os
import re
import subprocess
import sys


def run(kiln, graph, ranks):
    return subprocess.run([kiln, 'run', '--interpret', graph, '--seed', '7',
                           '--ranks', str(ranks)],
                          capture_output=True, text=True)


kiln, kiln_opt, kiln_translate, tmp = sys.argv[1:5]
failed = False
for graph in sys.argv[5:]:
    name = os.path.basename(graph)
    before = run(kiln, graph, 1)
    asked = re.search(r'run it with --ranks (\d+)', before.stderr)
    ranks = int(asked.group(1)) if asked else 1
    if ranks > 1:
        before = run(kiln, graph, ranks)
    module = subprocess.run([kiln_translate, '--import-hlo', graph],
                            capture_output=True, text=True, check=True).stdout
    folded_path = os.path.join(tmp, name + '.frontend.mlir')
    subprocess.run([kiln_opt, '--kiln-frontend', '-o', folded_path],
                   input=module, text=True, check=True)
    with open(folded_path) as f:
        masks = f.read().count('kiln.causal_mask')
    after = run(kiln, folded_path, ranks)
    if before.returncode or after.returncode:
        print('%s: kiln run --interpret failed: %s%s' % (name, before.stderr, after.stderr))
        failed = True
    elif before.stdout != after.stdout:
        print('%s: results differ\n--- before\n%s--- after\n%s'
              % (name, before.stdout, after.stdout))
        failed = True
    else:
        print('%s: %d masks folded, same results' % (name, masks))
sys.exit(1 if failed else 0)
