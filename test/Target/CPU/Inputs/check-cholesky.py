"""Checks the factors cholesky.test's graph computed (an .npz of its
results) against NumPy's."""

import sys

import numpy as np

r = np.load(sys.argv[1])
a = np.array([[[4, 2, 0], [2, 5, 1], [0, 1, 3]],
              [[9, 3, 1], [3, 5, 2], [1, 2, 6]]], np.float64)
lower = np.linalg.cholesky(a)
upper = np.conj(np.swapaxes(lower, -1, -2))


def tolerance_text(tolerance):
    return ("%.0e" % tolerance).replace("e-0", "e-")


def within(name, got, want, tolerance):
    error = np.abs(got - want).max()
    print("%s: NumPy's factor within %s" % (name, tolerance_text(tolerance)) if error <= tolerance
          else "%s: off by %g" % (name, error))


within("lower", r["result_0"], lower, 1e-6)
within("upper", r["result_1"], upper, 1e-6)
print("default: " + ("upper" if np.array_equal(r["result_2"], r["result_1"])
                     else "not the upper factor"))
within("f64", r["result_3"], lower[1], 1e-12)
c = np.array([[4, 1 + 1j], [1 - 1j, 3]])
within("complex", r["result_4"], np.linalg.cholesky(c), 1e-6)
print("not positive definite: " + ("all NaN" if np.isnan(r["result_5"]).all()
                                   else "not all NaN"))
