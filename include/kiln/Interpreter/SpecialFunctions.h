//===- SpecialFunctions.h - math functions the C++ library lacks -*- C++
//-*-===//
//
// This file declares the special functions that CHLO defines and <cmath>
// does not: the inverse error function, digamma, polygamma, the Hurwitz
// zeta function and the exponentially scaled Bessel function I1. They are
// computed in double precision, to well below a float's ULP. The
// evaluator and the runtime that compiled code calls share them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INTERPRETER_SPECIALFUNCTIONS_H
#define KILN_INTERPRETER_SPECIALFUNCTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <complex>
#include <optional>
#include <string>
#include <vector>

namespace kiln::interp {

/// The evaluator's function for a unary kiln op on complex numbers
/// (`cosh`, `acosh`, `logistic`, ...), computed in double; null for an op
/// it has none for. Compiled code's runtime calls the same.
using UnaryComplex = std::complex<double> (*)(std::complex<double>);
UnaryComplex getUnaryComplexFunction(llvm::StringRef name);
/// atan2 of complex numbers, -i log((x + iy) / sqrt(x^2 + y^2)): the
/// evaluator's and compiled code's.
std::complex<double> complexAtan2(std::complex<double> y,
                                  std::complex<double> x);

/// The x with erf(x) = y, for y in [-1, 1].
double erfInv(double y);
/// The derivative of lgamma.
double digamma(double x);
/// Hurwitz's zeta function, sum over k >= 0 of (k + q)^-s, for s > 1.
double hurwitzZeta(double s, double q);
/// The n-th derivative of digamma (n a non-negative integer).
double polygamma(double n, double x);
/// exp(-|x|) * I1(x), with I1 the modified Bessel function of order 1.
double besselI1e(double x);

} // namespace kiln::interp

namespace kiln {

/// HLO's fft of a row-major array of `shape` (complex values; real input
/// as complex with zero imaginary parts): `type` FFT, IFFT, RFFT or IRFFT
/// over the last `lengths.size()` dimensions, by direct transforms of each
/// line, in double. The result's `outputElements` values (real results are
/// the real parts), or none with `error` set.
/// How triangular_solve reads its matrix `a` and where its unknowns are.
struct TriangularSolveOptions {
  bool leftSide = false, lower = false, unitDiagonal = false;
  int64_t transpose = 0; ///< 0 NO_TRANSPOSE, 1 TRANSPOSE, 2 ADJOINT
};

/// HLO's transpose_a as TriangularSolveOptions::transpose.
int64_t parseTranspose(llvm::StringRef transpose);

/// triangular_solve on batches of m x m matrices `a` and rows x columns
/// right-hand sides `b` (row-major, batch after batch): op(a) x = b (left
/// side) or x op(a) = b, by substitution, each operation rounded with
/// `round` to the element type (as the solver JAX ran computes). x, in b's
/// layout. The evaluator and compiled code's runtime share it.
std::vector<std::complex<double>> solveTriangular(
    llvm::ArrayRef<std::complex<double>> a,
    llvm::ArrayRef<std::complex<double>> b, int64_t m, int64_t rows,
    int64_t columns, const TriangularSolveOptions &options,
    llvm::function_ref<std::complex<double>(std::complex<double>)> round);

/// cholesky of batches of n x n matrices `a` (row-major, batch after
/// batch), in double: the lower factor L (a = L L*) or, without `lower`,
/// the upper one (a = U* U), the other triangle zero, each read from the
/// chosen triangle of `a` alone; a matrix that is not positive definite
/// gives NaN everywhere. The evaluator and compiled code's runtime share
/// it.
std::vector<std::complex<double>>
factorCholesky(llvm::ArrayRef<std::complex<double>> a, int64_t n, bool lower);

std::optional<std::vector<std::complex<double>>>
computeFft(std::vector<std::complex<double>> data,
           llvm::ArrayRef<int64_t> shape, llvm::StringRef type,
           llvm::ArrayRef<int64_t> lengths, int64_t outputElements,
           std::string &error);

} // namespace kiln

#endif // KILN_INTERPRETER_SPECIALFUNCTIONS_H
