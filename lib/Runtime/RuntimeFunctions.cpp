//===- RuntimeFunctions.cpp - what compiled code calls in kiln's runtime -*- C++
//-*-===//
//
// The functions of RuntimeAbi.h besides the collectives (Collectives.cpp):
// rng_bit_generator's bits and CHLO's special functions, each through the
// implementation the evaluator uses, so that compiled code and the
// evaluator agree bit for bit; and the table that links them.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/RuntimeFunctions.h"
#include "kiln/Interpreter/RandomBits.h"
#include "kiln/Interpreter/SpecialFunctions.h"
#include "kiln/Runtime/BufferPool.h"
#include "kiln/Runtime/Collectives.h"
#include "kiln/Runtime/RuntimeAbi.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>

using namespace kiln;
using namespace kiln::runtime_abi;

namespace {
/// rng_bit_generator for compiled code (RuntimeAbi.h).
extern "C" void kiln_rt_random_bits(int64_t threeFry, int64_t stateAddress,
                                    int64_t stateWords, int64_t newStateAddress,
                                    int64_t outputAddress, int64_t width,
                                    int64_t shapeAddress, int64_t rank) {
  const uint64_t *state = reinterpret_cast<const uint64_t *>(stateAddress);
  const int64_t *shape = reinterpret_cast<const int64_t *>(shapeAddress);
  char *output = reinterpret_cast<char *>(outputAddress);
  int64_t bytes = width / 8;
  kiln::generateRandomBits(
      threeFry != 0, llvm::ArrayRef<uint64_t>(state, stateWords),
      reinterpret_cast<uint64_t *>(newStateAddress),
      llvm::ArrayRef<int64_t>(shape, rank), (unsigned)width,
      [&](int64_t i, uint64_t bits) {
        std::memcpy(output + i * bytes, &bits, bytes); // little-endian
      });
}
} // namespace

namespace {
const llvm::fltSemantics &getSemantics(ElementKind kind) {
  switch (kind) {
  case ElementKind::F64:
    return llvm::APFloat::IEEEdouble();
  case ElementKind::BF16:
    return llvm::APFloat::BFloat();
  case ElementKind::F16:
    return llvm::APFloat::IEEEhalf();
  default:
    return llvm::APFloat::IEEEsingle();
  }
}

/// Element `i` of a float buffer as an APFloat of its type.
llvm::APFloat loadElement(const char *buffer, ElementKind kind, int64_t i) {
  int64_t bytes = getElementBytes(kind);
  uint64_t bits = 0;
  std::memcpy(&bits, buffer + i * bytes, bytes); // little-endian
  return llvm::APFloat(getSemantics(kind), llvm::APInt(8 * bytes, bits));
}

void storeElement(char *buffer, ElementKind kind, int64_t i,
                  const llvm::APFloat &value) {
  int64_t bytes = getElementBytes(kind);
  uint64_t bits = value.bitcastToAPInt().getZExtValue();
  std::memcpy(buffer + i * bytes, &bits, bytes);
}

double toDouble(llvm::APFloat value) {
  bool losesInfo;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

/// `value` rounded to the element type, as the evaluator rounds.
llvm::APFloat fromDouble(double value, ElementKind kind) {
  llvm::APFloat result(value);
  bool losesInfo;
  result.convert(getSemantics(kind), llvm::APFloat::rmNearestTiesToEven,
                 &losesInfo);
  return result;
}

/// Element `i` of a complex<f32> (C64) or complex<f64> buffer.
std::complex<double> loadComplex(const char *buffer, ElementKind kind,
                                 int64_t i) {
  if (kind == ElementKind::C64) {
    float parts[2];
    std::memcpy(parts, buffer + 8 * i, 8);
    return {parts[0], parts[1]};
  }
  double parts[2];
  std::memcpy(parts, buffer + 16 * i, 16);
  return {parts[0], parts[1]};
}

/// Stores `value` as element `i`, each part rounded to the part type.
void storeComplex(char *buffer, ElementKind kind, int64_t i,
                  std::complex<double> value) {
  if (kind == ElementKind::C64) {
    float parts[2] = {(float)value.real(), (float)value.imag()};
    std::memcpy(buffer + 8 * i, parts, 8);
    return;
  }
  double parts[2] = {value.real(), value.imag()};
  std::memcpy(buffer + 16 * i, parts, 16);
}

bool isComplex(ElementKind kind) {
  return kind == ElementKind::C64 || kind == ElementKind::C128;
}

/// The `count` elements of a buffer of `kind`, real or complex, in double.
std::vector<std::complex<double>> loadValues(const char *buffer,
                                             ElementKind kind, int64_t count) {
  std::vector<std::complex<double>> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = isComplex(kind) ? loadComplex(buffer, kind, i)
                                : toDouble(loadElement(buffer, kind, i));
  return values;
}

/// Stores `values` into a buffer of `kind`, rounded to it (the real part
/// alone for a real kind).
void storeValues(char *buffer, ElementKind kind,
                 llvm::ArrayRef<std::complex<double>> values) {
  for (int64_t i = 0; i < (int64_t)values.size(); ++i) {
    if (isComplex(kind))
      storeComplex(buffer, kind, i, values[i]);
    else
      storeElement(buffer, kind, i, fromDouble(values[i].real(), kind));
  }
}

/// The evaluator's name of a complex function.
llvm::StringRef getComplexFunctionName(SpecialFunction function) {
  switch (function) {
  case SpecialFunction::ComplexCosh:
    return "cosh";
  case SpecialFunction::ComplexSinh:
    return "sinh";
  case SpecialFunction::ComplexAcosh:
    return "acosh";
  case SpecialFunction::ComplexAsinh:
    return "asinh";
  case SpecialFunction::ComplexAtan:
    return "atan";
  case SpecialFunction::ComplexAtanh:
    return "atanh";
  case SpecialFunction::ComplexCbrt:
    return "cbrt";
  case SpecialFunction::ComplexLogistic:
    return "logistic";
  case SpecialFunction::ComplexAcos:
    return "acos";
  case SpecialFunction::ComplexAsin:
    return "asin";
  default:
    return "";
  }
}

/// A complex function over complex<f32> or complex<f64> elements (atan2's
/// second operand in `second`), in double, each part rounded to the
/// element's part type.
void applyComplexFunction(SpecialFunction function, ElementKind kind,
                          const char *in, const char *second, char *out,
                          int64_t count) {
  if (function == SpecialFunction::ComplexAtan2) {
    for (int64_t i = 0; i < count; ++i)
      storeComplex(out, kind, i,
                   interp::complexAtan2(loadComplex(in, kind, i),
                                        loadComplex(second, kind, i)));
    return;
  }
  interp::UnaryComplex fn =
      interp::getUnaryComplexFunction(getComplexFunctionName(function));
  for (int64_t i = 0; i < count; ++i)
    storeComplex(out, kind, i,
                 fn ? fn(loadComplex(in, kind, i))
                    : std::complex<double>(std::nan(""), std::nan("")));
}

/// CHLO's special functions for compiled code (RuntimeAbi.h).
extern "C" void kiln_rt_special(int64_t functionCode, int64_t elementCode,
                                int64_t firstAddress, int64_t secondAddress,
                                int64_t outputAddress, int64_t count) {
  auto function = (SpecialFunction)functionCode;
  auto kind = (ElementKind)elementCode;
  const char *a = reinterpret_cast<const char *>(firstAddress);
  const char *b = reinterpret_cast<const char *>(secondAddress);
  char *out = reinterpret_cast<char *>(outputAddress);
  if (isComplex(kind))
    return applyComplexFunction(function, kind, a, b, out, count);
  for (int64_t i = 0; i < count; ++i) {
    llvm::APFloat x = loadElement(a, kind, i);
    double v = toDouble(x), result = 0;
    switch (function) {
    case SpecialFunction::ErfInv:
      result = interp::erfInv(v);
      break;
    case SpecialFunction::Lgamma:
      result = std::lgamma(v);
      break;
    case SpecialFunction::Digamma:
      result = interp::digamma(v);
      break;
    case SpecialFunction::BesselI1e:
      result = interp::besselI1e(v);
      break;
    case SpecialFunction::Polygamma:
      result = interp::polygamma(v, toDouble(loadElement(b, kind, i)));
      break;
    case SpecialFunction::Zeta:
      result = interp::hurwitzZeta(v, toDouble(loadElement(b, kind, i)));
      break;
    default:
      break;
    case SpecialFunction::NextAfter: {
      // The next value of the element type from x towards y.
      double y = toDouble(loadElement(b, kind, i));
      if (std::isnan(v) || std::isnan(y)) {
        storeElement(out, kind, i, llvm::APFloat::getQNaN(getSemantics(kind)));
        continue;
      }
      if (v == y) {
        storeElement(out, kind, i, fromDouble(y, kind));
        continue;
      }
      x.next(/*nextDown=*/y < v);
      storeElement(out, kind, i, x);
      continue;
    }
    }
    storeElement(out, kind, i, fromDouble(result, kind));
  }
}
/// fft for compiled code (RuntimeAbi.h), through the evaluator's
/// transform.
extern "C" void kiln_rt_fft(int64_t typeCode, int64_t inputCode,
                            int64_t outputCode, int64_t inputAddress,
                            int64_t outputAddress, int64_t shapeAddress,
                            int64_t rank, int64_t lengthsAddress,
                            int64_t lengthCount, int64_t outputCount) {
  static const char *const types[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  auto inKind = (ElementKind)inputCode, outKind = (ElementKind)outputCode;
  const char *in = reinterpret_cast<const char *>(inputAddress);
  char *out = reinterpret_cast<char *>(outputAddress);
  llvm::ArrayRef<int64_t> shape(reinterpret_cast<const int64_t *>(shapeAddress),
                                rank);
  llvm::ArrayRef<int64_t> lengths(
      reinterpret_cast<const int64_t *>(lengthsAddress), lengthCount);
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  std::string error;
  std::optional<std::vector<std::complex<double>>> result =
      computeFft(loadValues(in, inKind, count), shape, types[typeCode & 3],
                 lengths, outputCount, error);
  storeValues(
      out, outKind,
      result ? *result
             : std::vector<std::complex<double>>(outputCount, std::nan("")));
}

/// triangular_solve for compiled code (RuntimeAbi.h), through the
/// evaluator's solver, each operation rounded to the element type.
extern "C" void kiln_rt_triangular_solve(int64_t elementCode, int64_t aAddress,
                                         int64_t bAddress,
                                         int64_t outputAddress, int64_t m,
                                         int64_t rows, int64_t columns,
                                         int64_t bElements, int64_t flags) {
  auto kind = (ElementKind)elementCode;
  const char *a = reinterpret_cast<const char *>(aAddress);
  const char *b = reinterpret_cast<const char *>(bAddress);
  char *out = reinterpret_cast<char *>(outputAddress);
  int64_t batches = rows * columns ? bElements / (rows * columns) : 0;
  ElementKind part = kind == ElementKind::C64    ? ElementKind::F32
                     : kind == ElementKind::C128 ? ElementKind::F64
                                                 : kind;
  auto roundPart = [&](double value) {
    return toDouble(fromDouble(value, part));
  };
  TriangularSolveOptions options;
  options.leftSide = flags & 1;
  options.lower = flags & 2;
  options.unitDiagonal = flags & 4;
  options.transpose = (flags >> 3) & 3;
  std::vector<std::complex<double>> x = solveTriangular(
      loadValues(a, kind, batches * m * m), loadValues(b, kind, bElements), m,
      rows, columns, options, [&](std::complex<double> v) {
        return std::complex<double>(roundPart(v.real()), roundPart(v.imag()));
      });
  storeValues(out, kind, x);
}

/// cholesky for compiled code (RuntimeAbi.h): the evaluator's
/// factorization, in double, rounded to the element type once.
extern "C" void kiln_rt_cholesky(int64_t elementCode, int64_t aAddress,
                                 int64_t outputAddress, int64_t n,
                                 int64_t elements, int64_t lower) {
  auto kind = (ElementKind)elementCode;
  const char *a = reinterpret_cast<const char *>(aAddress);
  char *out = reinterpret_cast<char *>(outputAddress);
  storeValues(out, kind,
              factorCholesky(loadValues(a, kind, elements), n, lower != 0));
}

} // namespace

std::vector<std::pair<const char *, void *>> kiln::getRuntimeSymbols() {
  std::vector<std::pair<const char *, void *>> symbols =
      getCollectiveRuntimeSymbols();
  symbols.push_back(
      {kRandomBitsFunction, reinterpret_cast<void *>(&kiln_rt_random_bits)});
  symbols.push_back(
      {kSpecialFunction, reinterpret_cast<void *>(&kiln_rt_special)});
  symbols.push_back({kFftFunction, reinterpret_cast<void *>(&kiln_rt_fft)});
  symbols.push_back({kTriangularSolveFunction,
                     reinterpret_cast<void *>(&kiln_rt_triangular_solve)});
  symbols.push_back(
      {kCholeskyFunction, reinterpret_cast<void *>(&kiln_rt_cholesky)});
  llvm::append_range(symbols, getBufferPoolSymbols());
  return symbols;
}
