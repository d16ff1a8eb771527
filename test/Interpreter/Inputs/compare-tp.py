#!/usr/bin/env python3
"""Compares an unpartitioned graph's results (FULL.npz: result_0 the
output, result_1 the hidden activations) with each rank's of its
tensor-parallel form (TP.npz: rank_R_result_0, rank_R_result_1): the
gathered hidden activations must be identical, the output (summed across
ranks in another order) within 1e-5."""

import sys

import numpy

full = numpy.load(sys.argv[1])
tp = numpy.load(sys.argv[2])
for rank in range(2):
    out = tp['rank_%d_result_0' % rank]
    hidden = tp['rank_%d_result_1' % rank]
    if not (hidden == full['result_1']).all():
        sys.exit('rank %d: gathered hidden activations differ' % rank)
    if not numpy.allclose(out, full['result_0'], rtol=1e-5, atol=1e-5):
        sys.exit('rank %d: output differs by %g' %
                 (rank, abs(out - full['result_0']).max()))
    print('rank %d: gathered hidden identical, output within 1e-05' % rank)
