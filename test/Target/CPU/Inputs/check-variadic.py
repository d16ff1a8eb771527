"""Checks the results of variadic-collectives.hlo on 4 participants
(`kiln run --ranks 4 -o FILE.npz`) against what each collective must give,
computed here from the graph's iotas: prints one line per wrong result and
a count, so that the compiled code and the evaluator are checked on their
own, not only against each other.

    check-variadic.py RESULTS.npz
"""
import sys

import numpy as np

results = np.load(sys.argv[1])
RANKS, GROUP = 4, 2


def inputs(rank):
    x = np.arange(3, dtype=np.float32).reshape(1, 3) + 10 * rank
    y = np.arange(8, dtype=np.float32).reshape(4, 2) + 100 * rank
    t = np.float32(rank + 0.5)
    s = np.arange(3, dtype=np.int32) * rank
    return x, y, t, s


def expected(rank):
    group = [rank - rank % GROUP + m for m in range(GROUP)]
    position = rank % GROUP
    x, y, t, s = inputs(rank)
    xs = [inputs(m)[0] for m in group]
    ys = [inputs(m)[1] for m in group]
    ts = [inputs(m)[2] for m in group]
    ss = [inputs(m)[3] for m in group]
    chunk = 4 // GROUP
    permute_from = {1: 0, 0: 1, 3: 2}.get(rank)
    if permute_from is None:
        permuted = (np.zeros_like(x), np.float32(0))
    else:
        permuted = (inputs(permute_from)[0], inputs(permute_from)[2])
    return [
        np.concatenate(xs, axis=0), t,  # all-gather; the scalar passes
        sum(xs), sum(ys), np.float32(sum(ts)),  # all-reduce
        sum(ys)[position * chunk:(position + 1) * chunk], t,  # reduce-scatter
        np.concatenate([ym[position * chunk:(position + 1) * chunk]
                        for ym in ys], axis=0), t,  # all-to-all
        # tuple form: result i is member i's operand `position`
        *[(xs[i] if position == 0 else -xs[i]) for i in range(GROUP)],
        *permuted,
        np.maximum.reduce(ss), np.int32(max(group)),  # s32 all-reduce
    ]


failures = 0
for rank in range(RANKS):
    for index, want in enumerate(expected(rank)):
        got = results["rank_%d_result_%d" % (rank, index)]
        want = np.asarray(want)
        if got.shape != want.shape or not np.array_equal(got, want):
            failures += 1
            print("rank %d result %d: got %s, want %s" %
                  (rank, index, got.tolist(), want.tolist()))
print("%d results checked, %d wrong" % (RANKS * len(expected(0)), failures))
sys.exit(1 if failures else 0)
