"""Writes the inputs of eight-bit-floats.test's sweeps to a .npz file:
4,096 f32 values (log-uniform magnitudes from 2^-30 to 2^20 across every
format's subnormals, normals and overflow; a grid with every tie of the
narrow formats; zeros of both signs, infinities, NaN, the formats' largest
values and the midpoints above them), every 8-bit code, and the f32 values
again as f64, nudged off the ties.
"""
import sys

import numpy as np

rng = np.random.default_rng(1)
special = [0.0, -0.0, np.inf, -np.inf, np.nan, 448, 464, 465, 480, 57344,
           61440, 15.5, 15.75, 16, 240, 256, 2**-9, 2**-10, 2**-11, 2**-12,
           2**-13, 2**-14, 2**-16, 2**-17, 2**-18, 2**-19, 3 * 2**-12]
values = np.concatenate([
    np.array(special),
    np.exp2(rng.uniform(-30, 20, 1500)) * rng.choice([-1, 1], 1500),
    rng.uniform(-600, 600, 1000),
    np.arange(-16, 16, 1 / 64),
])
values = np.resize(values, 4096).astype(np.float32)
codes = np.arange(256).astype(np.uint8).view(np.int8)
np.savez(sys.argv[1], arg_0=values, arg_1=codes,
         arg_2=values.astype(np.float64) * (1 + 2**-30))
