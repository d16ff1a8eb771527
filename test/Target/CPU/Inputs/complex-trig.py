"""Inputs and expected values of complex-trig.test.

    complex-trig.py inputs FILE.npz
    complex-trig.py check INPUTS.npz RESULTS.npz

`inputs` writes points around and across acos's and asin's branch cuts
(the real axis beyond +-1) and in each quadrant; `check` prints, for each
result, whether it is within the element type's rounding of NumPy's value.
"""
import sys

import numpy as np


def points(dtype):
    real = [-3.0, -1.5, -1.0, -0.5, 0.0, 0.25, 0.9, 1.0, 2.0, 5.0]
    imag = [-2.0, -1e-3, 0.5, 3.0]
    values = np.array([complex(r, i) for r in real for i in imag])
    return values.astype(dtype)


def operands():
    """The four complex operands (a, b of f64, c, d of f32)."""
    a = points(np.complex128)
    c = points(np.complex64)
    return a, a[::-1] + 0.5, c, c[::-1] + np.complex64(0.5)


if sys.argv[1] == "inputs":
    # The graph takes each operand's real and imaginary parts.
    parts = {}
    for k, z in enumerate(operands()):
        parts["arg_%d" % (2 * k)] = np.ascontiguousarray(z.real)
        parts["arg_%d" % (2 * k + 1)] = np.ascontiguousarray(z.imag)
    np.savez(sys.argv[2], **parts)
    sys.exit(0)

a128, b128, a64, b64 = operands()
results = np.load(sys.argv[3])


def atan2(y, x):
    return -1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y))


failures = 0
for k, (name, dtype) in enumerate(
        [(n, t) for t in ("complex128", "complex64")
         for n in ("acos", "asin", "atan2")]):
    a = (a128 if dtype == "complex128" else a64).astype(np.complex128)
    b = (b128 if dtype == "complex128" else b64).astype(np.complex128)
    want = {"acos": np.arccos, "asin": np.arcsin}.get(
        name, lambda y: atan2(y, b))(a)
    got = results["result_%d" % k].astype(np.complex128)
    limit = 1e-12 if dtype == "complex128" else 1e-5
    error = np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)))
    if error <= limit:
        print("%s %s: within %g" % (name, dtype, limit))
    else:
        failures += 1
        print("%s %s: off by %g" % (name, dtype, error))
sys.exit(1 if failures else 0)
