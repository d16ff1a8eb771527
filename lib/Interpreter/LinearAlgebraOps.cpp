//===- LinearAlgebraOps.cpp - cholesky, triangular_solve, fft ---*- C++ -*-===//
//
// This file evaluates the linear algebra ops on batches of matrices, in
// double (complex) precision: cholesky (the other triangle zeroed, NaN for a
// matrix that is not positive definite), triangular_solve (left or right,
// lower or upper, transposed or adjoint, unit diagonal) and fft (FFT, IFFT,
// RFFT, IRFFT over the last dimensions, by direct transforms of each line).
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

#include "kiln/Interpreter/SpecialFunctions.h"

#include <cmath>

using namespace mlir;
using namespace kiln::interp;

namespace {

using Complex = std::complex<double>;
constexpr double kPi = 3.14159265358979323846;

Complex get(const HostTensor &t, int64_t i) {
  return t.kind == ElementKind::Complex ? t.complexes[i]
                                        : Complex(t.floats[i], 0);
}

void put(HostTensor &t, int64_t i, Complex value) {
  Type element = t.elementType();
  if (t.kind == ElementKind::Complex) {
    Type part = cast<ComplexType>(element).getElementType();
    t.complexes[i] = {roundToFloat(value.real(), part),
                      roundToFloat(value.imag(), part)};
  } else {
    t.floats[i] = roundToFloat(value.real(), element);
  }
}

LogicalResult evaluateCholesky(Operation *op, Operands in, Results &results) {
  const HostTensor &a = *in[0];
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  bool lower = false; // HLO's default, the upper factor
  if (auto attr = op->getAttrOfType<BoolAttr>("lower"))
    lower = attr.getValue();
  std::vector<Complex> values(a.size());
  for (int64_t i = 0; i < a.size(); ++i)
    values[i] = get(a, i);
  std::vector<Complex> factor =
      kiln::factorCholesky(values, a.shape().back(), lower);
  for (int64_t i = 0; i < a.size(); ++i)
    put(out, i, factor[i]);
  return success();
}

LogicalResult evaluateTriangularSolve(Operation *op, Operands in,
                                      Results &results) {
  const HostTensor &a = *in[0], &b = *in[1];
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  auto flag = [&](StringRef name) {
    auto attr = op->getAttrOfType<BoolAttr>(name);
    return attr && attr.getValue();
  };
  kiln::TriangularSolveOptions options;
  options.leftSide = flag("left_side");
  options.lower = flag("lower");
  options.unitDiagonal = flag("unit_diagonal");
  auto transposeAttr = op->getAttrOfType<StringAttr>("transpose_a");
  options.transpose = kiln::parseTranspose(
      transposeAttr ? transposeAttr.getValue() : "NO_TRANSPOSE");
  int64_t m = a.shape().back();
  llvm::ArrayRef<int64_t> bShape = b.shape();
  int64_t rows = bShape[bShape.size() - 2], columns = bShape.back();
  Type element = out.elementType();
  Type part = out.kind == ElementKind::Complex
                  ? cast<ComplexType>(element).getElementType()
                  : element;
  auto round = [&](Complex v) {
    return Complex(roundToFloat(v.real(), part), roundToFloat(v.imag(), part));
  };
  std::vector<Complex> aValues(a.size()), bValues(b.size());
  for (int64_t i = 0; i < a.size(); ++i)
    aValues[i] = get(a, i);
  for (int64_t i = 0; i < b.size(); ++i)
    bValues[i] = get(b, i);
  std::vector<Complex> x =
      kiln::solveTriangular(aValues, bValues, m, rows, columns, options, round);
  for (int64_t i = 0; i < b.size(); ++i)
    put(out, i, x[i]);
  return success();
}

/// A direct transform of `line` (length n): sum_k x_k e^(-+2 pi i jk/n).
std::vector<Complex> transform(const std::vector<Complex> &line, bool inverse) {
  int64_t n = line.size();
  std::vector<Complex> result(n, 0.0);
  double sign = inverse ? 1 : -1;
  for (int64_t j = 0; j < n; ++j) {
    Complex sum = 0;
    for (int64_t k = 0; k < n; ++k) {
      double angle = sign * 2 * kPi * (double)((j * k) % n) / n;
      sum += line[k] * Complex(std::cos(angle), std::sin(angle));
    }
    result[j] = inverse ? sum / (double)n : sum;
  }
  return result;
}

/// Applies a 1-D transform along dimension `dim` of a row-major array of
/// `shape`, whose lines have `inLength` elements in and `outLength` out.
std::vector<Complex>
alongDimension(const std::vector<Complex> &data, llvm::ArrayRef<int64_t> shape,
               size_t dim, int64_t outLength,
               const std::function<std::vector<Complex>(std::vector<Complex>)>
                   &lineTransform) {
  llvm::SmallVector<int64_t> outShape(shape);
  outShape[dim] = outLength;
  llvm::SmallVector<int64_t> inStrides = stridesOf(shape),
                             outStrides = stridesOf(outShape);
  int64_t total = 1;
  for (int64_t size : outShape)
    total *= size;
  std::vector<Complex> result(total, 0.0);
  llvm::SmallVector<int64_t> lineShape(shape);
  lineShape[dim] = 1;
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  int64_t lines = 1;
  for (int64_t size : lineShape)
    lines *= size;
  for (int64_t l = 0; l < lines; ++l, nextIndex(index, lineShape)) {
    int64_t inBase = 0, outBase = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      inBase += index[d] * inStrides[d];
      outBase += index[d] * outStrides[d];
    }
    std::vector<Complex> line(shape[dim]);
    for (int64_t k = 0; k < shape[dim]; ++k)
      line[k] = data[inBase + k * inStrides[dim]];
    std::vector<Complex> transformed = lineTransform(line);
    for (int64_t k = 0; k < outLength; ++k)
      result[outBase + k * outStrides[dim]] = transformed[k];
  }
  return result;
}

LogicalResult evaluateFft(Operation *op, Operands in, Results &results) {
  const HostTensor &x = *in[0];
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  StringRef type = op->getAttrOfType<StringAttr>("fft_type").getValue();
  std::vector<Complex> data(x.size());
  for (int64_t i = 0; i < x.size(); ++i)
    data[i] = get(x, i);
  std::string error;
  std::optional<std::vector<Complex>> transformed =
      kiln::computeFft(std::move(data), x.shape(), type,
                       dimsAttr(op, "fft_length"), out.size(), error);
  if (!transformed)
    return op->emitError(error);
  for (int64_t i = 0; i < out.size(); ++i)
    put(out, i, (*transformed)[i]);
  return success();
}

} // namespace

std::optional<std::vector<std::complex<double>>>
kiln::computeFft(std::vector<std::complex<double>> data,
                 llvm::ArrayRef<int64_t> inputShape, llvm::StringRef type,
                 llvm::ArrayRef<int64_t> lengths, int64_t outputElements,
                 std::string &error) {
  // No elements in or out: nothing to transform (the result is zeros).
  if (data.empty() || outputElements == 0 ||
      llvm::is_contained(lengths, (int64_t)0) || lengths.empty() ||
      lengths.size() > inputShape.size())
    return std::vector<Complex>(outputElements, 0.0);
  llvm::SmallVector<int64_t> shape(inputShape);
  size_t rank = shape.size(), count = lengths.size();
  auto complexLines = [&](bool inverse, size_t first, size_t last) {
    for (size_t d = first; d < last; ++d) {
      data = alongDimension(
          data, shape, d, shape[d],
          [&](std::vector<Complex> line) { return transform(line, inverse); });
    }
  };
  if (type == "FFT" || type == "IFFT") {
    complexLines(type == "IFFT", rank - count, rank);
  } else if (type == "RFFT") {
    int64_t n = lengths.back();
    data = alongDimension(data, shape, rank - 1, n / 2 + 1,
                          [&](std::vector<Complex> line) {
                            line.resize(n);
                            return transform(line, false);
                          });
    shape.back() = n / 2 + 1;
    complexLines(false, rank - count, rank - 1);
  } else if (type == "IRFFT") {
    complexLines(true, rank - count, rank - 1);
    int64_t n = lengths.back();
    data = alongDimension(data, shape, rank - 1, n,
                          [&](std::vector<Complex> line) {
                            // The full spectrum from its first half, by
                            // Hermitian symmetry.
                            std::vector<Complex> full(n, 0.0);
                            for (int64_t k = 0; k < n; ++k) {
                              int64_t half = (int64_t)line.size();
                              if (k < half)
                                full[k] = line[k];
                              else if (n - k < half)
                                full[k] = std::conj(line[n - k]);
                            }
                            return transform(full, true);
                          });
    shape.back() = n;
  } else {
    error = "unknown fft_type " + type.str();
    return std::nullopt;
  }
  if ((int64_t)data.size() != outputElements) {
    error = "fft result has " + std::to_string(data.size()) +
            " elements, its type " + std::to_string(outputElements);
    return std::nullopt;
  }
  return data;
}

std::optional<LogicalResult>
kiln::interp::evaluateLinearAlgebra(Operation *op, Operands in,
                                    Results &results, RegionRunner &) {
  StringRef name = op->getName().getStringRef();
  if (name == "kiln.cholesky")
    return evaluateCholesky(op, in, results);
  if (name == "kiln.triangular_solve")
    return evaluateTriangularSolve(op, in, results);
  if (name == "kiln.fft")
    return evaluateFft(op, in, results);
  return std::nullopt;
}

std::vector<std::complex<double>>
kiln::factorCholesky(llvm::ArrayRef<std::complex<double>> a, int64_t n,
                     bool lower) {
  std::vector<Complex> out(a.size(), 0.0);
  int64_t matrices = n ? a.size() / (n * n) : 0;
  for (int64_t m = 0; m < matrices; ++m) {
    int64_t base = m * n * n;
    // Row-major element (i, j) of the lower factor L; the upper factor is
    // its adjoint. Only the chosen triangle of `a` is read.
    auto element = [&](int64_t i, int64_t j) {
      return lower ? a[base + i * n + j] : std::conj(a[base + j * n + i]);
    };
    std::vector<Complex> l(n * n, 0.0);
    bool failed = false;
    for (int64_t j = 0; j < n && !failed; ++j) {
      Complex diagonal = element(j, j);
      for (int64_t k = 0; k < j; ++k)
        diagonal -= l[j * n + k] * std::conj(l[j * n + k]);
      if (!(diagonal.real() > 0)) {
        failed = true;
        break;
      }
      double root = std::sqrt(diagonal.real());
      l[j * n + j] = root;
      for (int64_t i = j + 1; i < n; ++i) {
        Complex sum = element(i, j);
        for (int64_t k = 0; k < j; ++k)
          sum -= l[i * n + k] * std::conj(l[j * n + k]);
        l[i * n + j] = sum / root;
      }
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        out[base + i * n + j] =
            failed ? Complex(NAN, NAN)
                   : (lower ? l[i * n + j] : std::conj(l[j * n + i]));
  }
  return out;
}

int64_t kiln::parseTranspose(llvm::StringRef transpose) {
  return transpose == "TRANSPOSE" ? 1 : transpose == "ADJOINT" ? 2 : 0;
}

std::vector<std::complex<double>> kiln::solveTriangular(
    llvm::ArrayRef<std::complex<double>> a,
    llvm::ArrayRef<std::complex<double>> b, int64_t m, int64_t rows,
    int64_t columns, const TriangularSolveOptions &options,
    llvm::function_ref<std::complex<double>(std::complex<double>)> round) {
  std::vector<Complex> out(b.begin(), b.end());
  int64_t batches = (m && rows && columns) ? b.size() / (rows * columns) : 0;
  bool leftSide = options.leftSide, lower = options.lower;
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t aBase = batch * m * m, bBase = batch * rows * columns;
    // op(a)(i, j), from the triangle of `a` that the op names.
    auto opA = [&](int64_t i, int64_t j) -> Complex {
      int64_t r = i, c = j;
      if (options.transpose != 0)
        std::swap(r, c);
      if (r == c && options.unitDiagonal)
        return 1.0;
      if ((lower && c > r) || (!lower && c < r))
        return 0.0;
      Complex value = a[aBase + r * m + c];
      return options.transpose == 2 ? std::conj(value) : value;
    };
    bool effectiveLower = lower != (options.transpose != 0);
    // Left: op(a) x = b, one column of b at a time. Right: x op(a) = b,
    // that is op(a)^T x^T = b^T, one row at a time.
    int64_t systems = leftSide ? columns : rows;
    for (int64_t s = 0; s < systems; ++s) {
      auto bAt = [&](int64_t k) {
        return leftSide ? bBase + k * columns + s : bBase + s * columns + k;
      };
      auto coefficient = [&](int64_t i, int64_t j) {
        return leftSide ? opA(i, j) : opA(j, i);
      };
      bool solveLower = leftSide ? effectiveLower : !effectiveLower;
      // Substitution, each operation rounded to the element type (as
      // the solver JAX ran computes), in the order of the solved unknowns.
      std::vector<Complex> x(m, 0.0);
      for (int64_t step = 0; step < m; ++step) {
        int64_t i = solveLower ? step : m - 1 - step;
        Complex sum = b[bAt(i)];
        for (int64_t s2 = 0; s2 < step; ++s2) {
          int64_t j = solveLower ? s2 : m - 1 - s2;
          sum = round(sum - round(coefficient(i, j) * x[j]));
        }
        x[i] = round(sum / coefficient(i, i));
      }
      for (int64_t k = 0; k < m; ++k)
        out[bAt(k)] = x[k];
    }
  }
  return out;
}
