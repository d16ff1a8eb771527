//===- ElementwiseOps.cpp - element-wise ops of the evaluator ---*- C++ -*-===//
//
// This file evaluates kiln's element-wise ops with HLO's numerics: floats
// computed in double and rounded to their type after each op; integers
// wrapped to their width, with HLO's rules for division and remainder by
// zero and for shifts past the width; NaN propagated by maximum and
// minimum; comparisons by direction and type (TOTALORDER included);
// conversions that saturate; and quantization.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"
#include "kiln/Interpreter/SpecialFunctions.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace kiln::interp;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Index of an operand's element: scalars (select's predicate, clamp's
/// bounds) broadcast.
inline int64_t at(const HostTensor &t, int64_t i) {
  return t.size() == 1 ? 0 : i;
}

unsigned widthOf(Type element) {
  return storageIntegerType(element).getWidth();
}

/// HLO's maximum and minimum: NaN wins, and +0 is above -0.
double floatMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double floatMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

using UnaryFloat = double (*)(double);
using BinaryFloat = double (*)(double, double);

UnaryFloat unaryFloat(StringRef name) {
  return llvm::StringSwitch<UnaryFloat>(name)
      .Case("exponential", [](double v) { return std::exp(v); })
      .Case("exponential_minus_one", [](double v) { return std::expm1(v); })
      .Case("log", [](double v) { return std::log(v); })
      .Case("log_plus_one", [](double v) { return std::log1p(v); })
      .Case("sqrt", [](double v) { return std::sqrt(v); })
      .Case("rsqrt", [](double v) { return 1 / std::sqrt(v); })
      .Case("cbrt", [](double v) { return std::cbrt(v); })
      .Case("tanh", [](double v) { return std::tanh(v); })
      .Case("logistic", [](double v) { return 1 / (1 + std::exp(-v)); })
      .Case("sine", [](double v) { return std::sin(v); })
      .Case("cosine", [](double v) { return std::cos(v); })
      .Case("tan", [](double v) { return std::tan(v); })
      .Case("erf", [](double v) { return std::erf(v); })
      .Case("erfc", [](double v) { return std::erfc(v); })
      .Case("erf_inv", [](double v) { return erfInv(v); })
      .Case("lgamma", [](double v) { return std::lgamma(v); })
      .Case("digamma", [](double v) { return digamma(v); })
      .Case("acos", [](double v) { return std::acos(v); })
      // As CHLO decomposes it, which is what JAX's outputs hold.
      .Case("acosh",
            [](double v) {
              if (v >= 1e154)
                return std::log(2.0) + std::log(v);
              return std::log(v + std::sqrt(v + 1) * std::sqrt(v - 1));
            })
      .Case("asin", [](double v) { return std::asin(v); })
      .Case("asinh", [](double v) { return std::asinh(v); })
      .Case("atan", [](double v) { return std::atan(v); })
      .Case("atanh", [](double v) { return std::atanh(v); })
      .Case("cosh", [](double v) { return std::cosh(v); })
      .Case("sinh", [](double v) { return std::sinh(v); })
      .Case("bessel_i1e", [](double v) { return besselI1e(v); })
      .Case("floor", [](double v) { return std::floor(v); })
      .Case("ceil", [](double v) { return std::ceil(v); })
      .Case("round_nearest_afz", [](double v) { return std::round(v); })
      // nearbyint in the default mode rounds ties to even.
      .Case("round_nearest_even", [](double v) { return std::nearbyint(v); })
      .Case("negate", [](double v) { return -v; })
      .Case("abs", [](double v) { return std::fabs(v); })
      .Case("sign",
            [](double v) {
              if (std::isnan(v) || v == 0)
                return v;
              return v > 0 ? 1.0 : -1.0;
            })
      .Cases({"copy", "optimization_barrier"}, [](double v) { return v; })
      .Default(nullptr);
}

UnaryComplex unaryComplex(StringRef name) {
  using C = std::complex<double>;
  return llvm::StringSwitch<UnaryComplex>(name)
      .Case("exponential", [](C v) { return std::exp(v); })
      .Case("exponential_minus_one", [](C v) { return std::exp(v) - 1.0; })
      .Case("log", [](C v) { return std::log(v); })
      .Case("log_plus_one", [](C v) { return std::log(1.0 + v); })
      .Case("sqrt", [](C v) { return std::sqrt(v); })
      .Case("rsqrt", [](C v) { return 1.0 / std::sqrt(v); })
      .Case("tanh", [](C v) { return std::tanh(v); })
      .Case("logistic", [](C v) { return 1.0 / (1.0 + std::exp(-v)); })
      .Case("sine", [](C v) { return std::sin(v); })
      .Case("cosine", [](C v) { return std::cos(v); })
      .Case("tan", [](C v) { return std::tan(v); })
      .Case("acos", [](C v) { return std::acos(v); })
      .Case("acosh", [](C v) { return std::acosh(v); })
      .Case("asin", [](C v) { return std::asin(v); })
      .Case("asinh", [](C v) { return std::asinh(v); })
      .Case("atan", [](C v) { return std::atan(v); })
      .Case("atanh", [](C v) { return std::atanh(v); })
      .Case("cosh", [](C v) { return std::cosh(v); })
      .Case("sinh", [](C v) { return std::sinh(v); })
      .Case("cbrt", [](C v) { return std::pow(v, 1.0 / 3); })
      .Case("negate", [](C v) { return -v; })
      .Case("sign",
            [](C v) {
              double magnitude = std::abs(v);
              if (std::isnan(v.real()) || std::isnan(v.imag()))
                return C(kNaN, kNaN);
              return magnitude == 0 ? C(0, 0) : v / magnitude;
            })
      .Cases({"copy", "optimization_barrier"}, [](C v) { return v; })
      .Default(nullptr);
}

BinaryFloat binaryFloat(StringRef name) {
  return llvm::StringSwitch<BinaryFloat>(name)
      .Case("add", [](double a, double b) { return a + b; })
      .Case("subtract", [](double a, double b) { return a - b; })
      .Case("multiply", [](double a, double b) { return a * b; })
      .Case("divide", [](double a, double b) { return a / b; })
      .Case("remainder", [](double a, double b) { return std::fmod(a, b); })
      .Case("maximum", floatMax)
      .Case("minimum", floatMin)
      .Case("power", [](double a, double b) { return std::pow(a, b); })
      .Case("atan2", [](double a, double b) { return std::atan2(a, b); })
      .Case("polygamma", [](double n, double x) { return polygamma(n, x); })
      .Case("zeta", [](double s, double q) { return hurwitzZeta(s, q); })
      .Default(nullptr);
}

/// `a op b` on integers of `element`, as HLO defines them.
std::optional<int64_t> binaryInteger(StringRef name, int64_t a, int64_t b,
                                     Type element) {
  bool isUnsigned = isUnsignedInteger(element);
  unsigned width = widthOf(element);
  uint64_t ua = a, ub = b;
  auto wrap = [&](uint64_t v) { return wrapInteger(v, element); };
  int64_t minSigned = width >= 64 ? std::numeric_limits<int64_t>::min()
                                  : -(int64_t(1) << (width - 1));
  // Predicates: add is or, multiply is and.
  if (width == 1 && (name == "add" || name == "multiply"))
    return name == "add" ? ((a | b) & 1) : ((a & b) & 1);
  if (name == "add")
    return wrap(ua + ub);
  if (name == "subtract")
    return wrap(ua - ub);
  if (name == "multiply")
    return wrap(ua * ub);
  if (name == "divide") {
    if (b == 0)
      return wrap(~uint64_t(0)); // all bits set: -1, or the largest value
    if (isUnsigned)
      return wrap(ua / ub);
    if (a == minSigned && b == -1)
      return a;
    return wrap(a / b);
  }
  if (name == "remainder") {
    if (b == 0)
      return a;
    if (isUnsigned)
      return wrap(ua % ub);
    if (a == minSigned && b == -1)
      return 0;
    return wrap(a % b);
  }
  if (name == "maximum")
    return isUnsigned ? (ua > ub ? a : b) : std::max(a, b);
  if (name == "minimum")
    return isUnsigned ? (ua < ub ? a : b) : std::min(a, b);
  if (name == "and")
    return wrap(ua & ub);
  if (name == "or")
    return wrap(ua | ub);
  if (name == "xor")
    return wrap(ua ^ ub);
  // Shift amounts are unsigned; past the width, shifts give 0 (or the
  // sign, arithmetic right).
  uint64_t mask = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  uint64_t amount = ub & mask;
  if (name == "shift_left")
    return amount >= width ? 0 : wrap(ua << amount);
  if (name == "shift_right_logical")
    return amount >= width ? 0 : wrap((ua & mask) >> amount);
  if (name == "shift_right_arithmetic") {
    int64_t signedA = isUnsigned ? wrapInteger(ua, IntegerType::get(
                                                        element.getContext(),
                                                        width))
                                 : a;
    if (amount >= width)
      return wrap(signedA < 0 ? ~uint64_t(0) : 0);
    return wrap(static_cast<uint64_t>(signedA >> amount));
  }
  if (name == "power") {
    // Negative exponents give 0, but for bases 1 and -1.
    if (!isUnsigned && b < 0) {
      if (a == 1)
        return 1;
      if (a == -1)
        return (b & 1) ? -1 : 1;
      return 0;
    }
    uint64_t result = 1, base = ua, exponent = ub;
    while (exponent) {
      if (exponent & 1)
        result *= base;
      base *= base;
      exponent >>= 1;
    }
    return wrap(result);
  }
  if (name == "mulhi") {
    if (width == 64) {
      if (isUnsigned)
        return (int64_t)(uint64_t)(((unsigned __int128)ua * ub) >> 64);
      return (int64_t)(((__int128)a * b) >> 64);
    }
    if (isUnsigned)
      return wrap((uint64_t)(((unsigned __int128)ua * ub) >> width));
    return wrap((uint64_t)(((__int128)a * b) >> width));
  }
  return std::nullopt;
}

/// A float's position in the total order: -NaN < -inf < ... < -0 < +0 < ...
/// < inf < NaN, from its bits (sign and magnitude).
int64_t totalOrderKey(const llvm::APInt &bits) {
  unsigned width = bits.getBitWidth();
  uint64_t raw = bits.getZExtValue();
  uint64_t sign = uint64_t(1) << (width - 1);
  int64_t magnitude = (int64_t)(raw & (sign - 1));
  return (raw & sign) ? -magnitude - 1 : magnitude;
}

bool compareValues(StringRef direction, int order) {
  // order: -1 less, 0 equal, 1 greater, 2 unordered.
  if (direction == "EQ")
    return order == 0;
  if (direction == "NE")
    return order != 0;
  if (direction == "LT")
    return order == -1;
  if (direction == "LE")
    return order == -1 || order == 0;
  if (direction == "GT")
    return order == 1;
  return order == 1 || order == 0; // GE
}

LogicalResult evaluateCompare(Operation *op, const HostTensor &lhs,
                              const HostTensor &rhs, HostTensor &out) {
  StringRef direction = op->getAttrOfType<StringAttr>("direction").getValue();
  auto typeAttr = op->getAttrOfType<StringAttr>("type");
  Type element = lhs.elementType();
  StringRef type = typeAttr ? typeAttr.getValue() : "";
  if (type.empty() || type == "NOTYPE")
    type = lhs.kind == ElementKind::Integer
               ? (isUnsignedInteger(element) ? "UNSIGNED" : "SIGNED")
               : "FLOAT";
  int64_t n = out.size();
  for (int64_t i = 0; i < n; ++i) {
    int order = 0;
    if (lhs.kind == ElementKind::Integer) {
      int64_t a = lhs.ints[at(lhs, i)], b = rhs.ints[at(rhs, i)];
      bool asUnsigned = type == "UNSIGNED" || isUnsignedInteger(element);
      if (asUnsigned)
        order = (uint64_t)a < (uint64_t)b ? -1 : (a == b ? 0 : 1);
      else
        order = a < b ? -1 : (a == b ? 0 : 1);
    } else if (lhs.kind == ElementKind::Complex) {
      std::complex<double> a = lhs.complexes[at(lhs, i)],
                           b = rhs.complexes[at(rhs, i)];
      if (type == "TOTALORDER") {
        // Lexicographic on (real, imag) in the total order.
        auto partOrder = [&](double x, double y) {
          Type part = cast<ComplexType>(element).getElementType();
          HostTensor scratch(RankedTensorType::get({2}, part));
          scratch.floats = {x, y};
          int64_t kx = totalOrderKey(scratch.bitsAt(0)),
                  ky = totalOrderKey(scratch.bitsAt(1));
          return kx < ky ? -1 : (kx == ky ? 0 : 1);
        };
        order = partOrder(a.real(), b.real());
        if (order == 0)
          order = partOrder(a.imag(), b.imag());
      } else {
        bool unordered = std::isnan(a.real()) || std::isnan(a.imag()) ||
                         std::isnan(b.real()) || std::isnan(b.imag());
        order = unordered ? 2 : (a == b ? 0 : 1);
        if (direction != "EQ" && direction != "NE")
          return op->emitError("complex numbers compare only for EQ and NE");
      }
    } else {
      double a = lhs.floats[at(lhs, i)], b = rhs.floats[at(rhs, i)];
      if (type == "TOTALORDER") {
        int64_t ka = totalOrderKey(lhs.bitsAt(at(lhs, i))),
                kb = totalOrderKey(rhs.bitsAt(at(rhs, i)));
        order = ka < kb ? -1 : (ka == kb ? 0 : 1);
      } else if (std::isnan(a) || std::isnan(b)) {
        order = 2;
      } else {
        order = a < b ? -1 : (a == b ? 0 : 1);
      }
    }
    out.ints[i] = compareValues(direction, order);
  }
  return success();
}

/// One element converted from `in` (element i) to `out` (element k).
void convertElement(const HostTensor &in, int64_t i, HostTensor &out,
                    int64_t k) {
  Type to = out.elementType();
  Type from = in.elementType();
  switch (out.kind) {
  case ElementKind::Integer: {
    if (widthOf(to) == 1 && !isa<quant::QuantizedType>(to)) {
      // To pred: anything nonzero is true.
      // A complex number converts by its real part.
      bool nonzero = in.kind == ElementKind::Integer ? in.ints[i] != 0
                     : in.kind == ElementKind::Float ? in.floats[i] != 0
                                                     : in.complexes[i].real() != 0;
      out.ints[k] = nonzero;
      return;
    }
    if (in.kind == ElementKind::Integer) {
      out.ints[k] = wrapInteger(in.ints[i], to);
      return;
    }
    double v = in.kind == ElementKind::Float ? in.floats[i]
                                             : in.complexes[i].real();
    // NaN to 0; truncation toward zero; saturation at the type's range.
    if (std::isnan(v)) {
      out.ints[k] = 0;
      return;
    }
    unsigned width = widthOf(to);
    bool isUnsigned = isUnsignedInteger(to);
    double t = std::trunc(v);
    if (isUnsigned) {
      double max = width >= 64 ? 18446744073709551615.0
                               : (double)((uint64_t(1) << width) - 1);
      if (t <= 0)
        out.ints[k] = 0;
      else if (t >= max)
        out.ints[k] = wrapInteger(width >= 64 ? ~uint64_t(0)
                                              : (uint64_t(1) << width) - 1,
                                  to);
      else
        out.ints[k] = wrapInteger((uint64_t)t, to);
    } else {
      double max = width >= 64 ? 9223372036854775807.0
                               : (double)((int64_t(1) << (width - 1)) - 1);
      double min = width >= 64 ? -9223372036854775808.0
                               : -(double)(int64_t(1) << (width - 1));
      if (t >= max)
        out.ints[k] = width >= 64 ? std::numeric_limits<int64_t>::max()
                                  : (int64_t(1) << (width - 1)) - 1;
      else if (t <= min)
        out.ints[k] = width >= 64 ? std::numeric_limits<int64_t>::min()
                                  : -(int64_t(1) << (width - 1));
      else
        out.ints[k] = (int64_t)t;
    }
    return;
  }
  case ElementKind::Float: {
    double v = in.kind == ElementKind::Complex ? in.complexes[i].real()
                                               : in.asDouble(i);
    if (in.kind == ElementKind::Integer && widthOf(from) == 64) {
      // Rounded once, from the exact integer.
      llvm::APFloat exact(cast<FloatType>(to).getFloatSemantics());
      exact.convertFromAPInt(llvm::APInt(64, in.ints[i]),
                             !isUnsignedInteger(from),
                             llvm::APFloat::rmNearestTiesToEven);
      bool losesInfo;
      exact.convert(llvm::APFloat::IEEEdouble(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      out.floats[k] = exact.convertToDouble();
      return;
    }
    out.floats[k] = roundToFloat(v, to);
    return;
  }
  case ElementKind::Complex: {
    Type part = cast<ComplexType>(to).getElementType();
    std::complex<double> v = in.kind == ElementKind::Complex
                                 ? in.complexes[i]
                                 : std::complex<double>(in.asDouble(i), 0);
    out.complexes[k] = {roundToFloat(v.real(), part),
                        roundToFloat(v.imag(), part)};
    return;
  }
  case ElementKind::Token:
    return;
  }
}

/// reduce_precision: `x` with its exponent cut to `exponentBits` and its
/// mantissa to `mantissaBits` (ties to even), as XLA does: overflow to
/// infinity, values below the smallest normal flushed to a signed zero.
double reducePrecision(double x, int64_t exponentBits, int64_t mantissaBits) {
  // Without mantissa bits a NaN has no bit to stay a NaN with: infinity.
  if (std::isnan(x))
    return mantissaBits == 0
               ? std::copysign(std::numeric_limits<double>::infinity(), x)
               : x;
  if (std::isinf(x) || x == 0)
    return x;
  if (mantissaBits < 52) {
    int exponent;
    std::frexp(x, &exponent); // x = f * 2^exponent, f in [0.5, 1)
    // Below double's own denormals the value already has fewer bits.
    int ulpExponent = exponent - 1 - (int)mantissaBits;
    if (ulpExponent >= -1074) {
      double ulp = std::ldexp(1.0, ulpExponent);
      x = std::nearbyint(x / ulp) * ulp;
    }
  }
  if (exponentBits < 11) {
    int64_t bias = (int64_t(1) << (exponentBits - 1)) - 1;
    double overflow = std::ldexp(1.0, (int)bias + 1);
    double smallestNormal = std::ldexp(1.0, (int)(1 - bias));
    if (std::fabs(x) >= overflow)
      return std::copysign(std::numeric_limits<double>::infinity(), x);
    if (std::fabs(x) < smallestNormal)
      return std::copysign(0.0, x);
  }
  return x;
}

/// The scale (a value of the expressed type, in which quantization
/// computes) and zero point of a quantized element type at element `i` of a
/// tensor of `shape` (per-axis types index by their dimension).
std::pair<double, int64_t> quantParameters(Type element,
                                           llvm::ArrayRef<int64_t> shape,
                                           int64_t i) {
  Type expressed = cast<quant::QuantizedType>(element).getExpressedType();
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(element))
    return {roundToFloat(uniform.getScale(), expressed),
            uniform.getZeroPoint()};
  auto perAxis = cast<quant::UniformQuantizedPerAxisType>(element);
  int32_t axis = perAxis.getQuantizedDimension();
  llvm::SmallVector<int64_t> strides = stridesOf(shape);
  int64_t channel = (i / strides[axis]) % shape[axis];
  return {roundToFloat(perAxis.getScales()[channel], expressed),
          perAxis.getZeroPoints()[channel]};
}

LogicalResult quantize(const HostTensor &in, HostTensor &out) {
  Type to = out.elementType();
  auto quantized = cast<quant::QuantizedType>(to);
  int64_t minStored = quantized.getStorageTypeMin(),
          maxStored = quantized.getStorageTypeMax();
  Type from = in.elementType();
  for (int64_t i = 0; i < out.size(); ++i) {
    double real;
    if (auto fromQuantized = dyn_cast<quant::QuantizedType>(from)) {
      auto [scale, zeroPoint] = quantParameters(from, in.shape(), i);
      real = (double)(in.ints[i] - zeroPoint) * scale;
      real = roundToFloat(real, fromQuantized.getExpressedType());
    } else {
      real = in.floats[i];
    }
    // In the expressed type: real / scale + zero point, rounded to even.
    auto [scale, zeroPoint] = quantParameters(to, out.shape(), i);
    Type expressed = quantized.getExpressedType();
    double scaled = roundToFloat(
        roundToFloat(real / scale, expressed) + zeroPoint, expressed);
    double stored = std::nearbyint(scaled);
    // NaN converts to the integer 0 (as XLA converts NaN to integers),
    // not to the zero point.
    if (std::isnan(stored))
      stored = 0;
    stored = std::clamp(stored, (double)minStored, (double)maxStored);
    out.ints[i] = (int64_t)stored;
  }
  return success();
}

} // namespace

UnaryComplex kiln::interp::getUnaryComplexFunction(StringRef name) {
  return unaryComplex(name);
}

std::complex<double> kiln::interp::complexAtan2(std::complex<double> y,
                                                std::complex<double> x) {
  return std::complex<double>(0, -1) *
         std::log((x + std::complex<double>(0, 1) * y) /
                  std::sqrt(x * x + y * y));
}

bool kiln::interp::applyBinary(StringRef opName, const HostTensor &lhs,
                               int64_t i, const HostTensor &rhs, int64_t j,
                               HostTensor &out, int64_t k) {
  StringRef name = opName.drop_front(5); // "kiln."
  Type element = out.elementType();
  switch (out.kind) {
  case ElementKind::Float: {
    BinaryFloat fn = binaryFloat(name);
    if (!fn)
      return false;
    out.floats[k] = roundToFloat(fn(lhs.floats[i], rhs.floats[j]), element);
    return true;
  }
  case ElementKind::Integer: {
    std::optional<int64_t> v =
        binaryInteger(name, lhs.ints[i], rhs.ints[j], element);
    if (!v)
      return false;
    out.ints[k] = *v;
    return true;
  }
  case ElementKind::Complex: {
    std::complex<double> a = lhs.complexes[i], b = rhs.complexes[j], r;
    if (name == "add")
      r = a + b;
    else if (name == "subtract")
      r = a - b;
    else if (name == "multiply")
      r = a * b;
    else if (name == "divide")
      r = a / b;
    else if (name == "power")
      r = std::pow(a, b);
    else if (name == "atan2")
      r = complexAtan2(a, b);
    else if (name == "maximum" || name == "minimum") {
      // Lexicographic: the real parts, then the imaginary parts.
      bool less = a.real() < b.real() ||
                  (a.real() == b.real() && a.imag() < b.imag());
      r = (name == "maximum") == less ? b : a;
    } else
      return false;
    Type part = cast<ComplexType>(element).getElementType();
    out.complexes[k] = {roundToFloat(r.real(), part),
                        roundToFloat(r.imag(), part)};
    return true;
  }
  case ElementKind::Token:
    return false;
  }
  return false;
}

std::optional<LogicalResult>
kiln::interp::evaluateElementwise(Operation *op, Operands in, Results &results,
                                  RegionRunner &) {
  StringRef full = op->getName().getStringRef();
  if (!full.consume_front("kiln.") || op->getNumResults() != 1 ||
      op->getNumRegions() != 0)
    return std::nullopt;
  StringRef name = full;
  Type resultType = op->getResult(0).getType();
  if (!isa<RankedTensorType>(resultType))
    return std::nullopt;
  auto makeResult = [&]() -> HostTensor & {
    results.emplace_back(resultType);
    return results.back();
  };
  Type element = cast<RankedTensorType>(resultType).getElementType();

  if (name == "compare" && in.size() == 2) {
    return evaluateCompare(op, *in[0], *in[1], makeResult());
  }
  if (name == "select" && in.size() == 3) {
    HostTensor &out = makeResult();
    for (int64_t i = 0; i < out.size(); ++i) {
      const HostTensor &chosen = *in[in[0]->ints[at(*in[0], i)] ? 1 : 2];
      out.copyElement(chosen, at(chosen, i), i);
    }
    return success();
  }
  if (name == "clamp" && in.size() == 3) {
    HostTensor &out = makeResult();
    const HostTensor &lo = *in[0], &x = *in[1], &hi = *in[2];
    for (int64_t i = 0; i < out.size(); ++i) {
      if (out.kind == ElementKind::Float) {
        out.floats[i] = floatMin(floatMax(x.floats[i], lo.floats[at(lo, i)]),
                                 hi.floats[at(hi, i)]);
      } else if (out.kind == ElementKind::Integer) {
        int64_t v = *binaryInteger("maximum", x.ints[i], lo.ints[at(lo, i)],
                                   element);
        out.ints[i] =
            *binaryInteger("minimum", v, hi.ints[at(hi, i)], element);
      } else {
        return op->emitError("clamp of complex numbers is not defined");
      }
    }
    return success();
  }
  if ((name == "convert" || name == "copy" || name == "stochastic_convert") &&
      in.size() >= 1) {
    if (name == "stochastic_convert")
      return op->emitError("stochastic_convert is not deterministic; the "
                           "evaluator does not run it");
    HostTensor &out = makeResult();
    for (int64_t i = 0; i < out.size(); ++i)
      convertElement(*in[0], i, out, i);
    return success();
  }
  if (name == "bitcast_convert" && in.size() == 1) {
    HostTensor &out = makeResult();
    const HostTensor &x = *in[0];
    unsigned inWidth = x.size() ? x.bitsAt(0).getBitWidth() : 0;
    HostTensor probe(RankedTensorType::get({1}, element));
    unsigned outWidth = probe.bitsAt(0).getBitWidth();
    if (inWidth == outWidth || x.size() == 0) {
      for (int64_t i = 0; i < out.size(); ++i)
        out.setBits(i, x.bitsAt(i));
      return success();
    }
    // Widths differ: the narrow side has a last dimension of the ratio;
    // its elements are the wide element's bits, lowest first.
    if (inWidth > outWidth) {
      unsigned ratio = inWidth / outWidth;
      for (int64_t i = 0; i < x.size(); ++i) {
        llvm::APInt bits = x.bitsAt(i);
        for (unsigned r = 0; r < ratio; ++r)
          out.setBits(i * ratio + r,
                      bits.extractBits(outWidth, r * outWidth));
      }
    } else {
      unsigned ratio = outWidth / inWidth;
      for (int64_t i = 0; i < out.size(); ++i) {
        llvm::APInt bits(outWidth, 0);
        for (unsigned r = 0; r < ratio; ++r)
          bits.insertBits(x.bitsAt(i * ratio + r), r * inWidth);
        out.setBits(i, bits);
      }
    }
    return success();
  }
  if (name == "reduce_precision" && in.size() == 1) {
    HostTensor &out = makeResult();
    int64_t exponentBits = op->getAttrOfType<IntegerAttr>("exponent_bits").getInt();
    int64_t mantissaBits = op->getAttrOfType<IntegerAttr>("mantissa_bits").getInt();
    for (int64_t i = 0; i < out.size(); ++i)
      out.floats[i] = roundToFloat(
          reducePrecision(in[0]->floats[i], exponentBits, mantissaBits),
          element);
    return success();
  }
  if (name == "is_finite" && in.size() == 1) {
    HostTensor &out = makeResult();
    for (int64_t i = 0; i < out.size(); ++i)
      out.ints[i] = std::isfinite(in[0]->floats[i]);
    return success();
  }
  if ((name == "real" || name == "imag") && in.size() == 1) {
    HostTensor &out = makeResult();
    for (int64_t i = 0; i < out.size(); ++i) {
      if (in[0]->kind == ElementKind::Complex)
        out.floats[i] = name == "real" ? in[0]->complexes[i].real()
                                       : in[0]->complexes[i].imag();
      else
        out.floats[i] = name == "real" ? in[0]->floats[i] : 0.0;
    }
    return success();
  }
  if (name == "complex" && in.size() == 2) {
    HostTensor &out = makeResult();
    for (int64_t i = 0; i < out.size(); ++i)
      out.complexes[i] = {in[0]->floats[i], in[1]->floats[i]};
    return success();
  }
  if (name == "uniform_quantize" && in.size() == 1) {
    HostTensor &out = makeResult();
    return quantize(*in[0], out);
  }
  if (name == "uniform_dequantize" && in.size() == 1) {
    HostTensor &out = makeResult();
    Type from = in[0]->elementType();
    for (int64_t i = 0; i < out.size(); ++i) {
      auto [scale, zeroPoint] = quantParameters(from, in[0]->shape(), i);
      out.floats[i] =
          roundToFloat((double)(in[0]->ints[i] - zeroPoint) * scale, element);
    }
    return success();
  }
  if (name == "next_after" && in.size() == 2) {
    HostTensor &out = makeResult();
    for (int64_t i = 0; i < out.size(); ++i) {
      llvm::APFloat from(cast<FloatType>(element).getFloatSemantics(),
                         in[0]->bitsAt(i));
      double a = in[0]->floats[i], b = in[1]->floats[i];
      if (std::isnan(a) || std::isnan(b)) {
        out.floats[i] = kNaN;
        continue;
      }
      if (a == b) {
        out.floats[i] = b;
        continue;
      }
      from.next(/*nextDown=*/b < a);
      bool losesInfo;
      from.convert(llvm::APFloat::IEEEdouble(),
                   llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      out.floats[i] = from.convertToDouble();
    }
    return success();
  }

  // Unary ops.
  if (in.size() == 1 && op->getNumOperands() == 1) {
    const HostTensor &x = *in[0];
    if (x.kind == ElementKind::Complex && name == "abs") {
      HostTensor &out = makeResult();
      for (int64_t i = 0; i < out.size(); ++i)
        out.floats[i] = roundToFloat(std::abs(x.complexes[i]), element);
      return success();
    }
    if (x.kind == ElementKind::Float) {
      if (UnaryFloat fn = unaryFloat(name)) {
        HostTensor &out = makeResult();
        for (int64_t i = 0; i < out.size(); ++i)
          out.floats[i] = roundToFloat(fn(x.floats[i]), element);
        return success();
      }
    }
    if (x.kind == ElementKind::Complex) {
      if (UnaryComplex fn = unaryComplex(name)) {
        HostTensor &out = makeResult();
        Type part = cast<ComplexType>(element).getElementType();
        for (int64_t i = 0; i < out.size(); ++i) {
          std::complex<double> r = fn(x.complexes[i]);
          out.complexes[i] = {roundToFloat(r.real(), part),
                              roundToFloat(r.imag(), part)};
        }
        return success();
      }
    }
    if (x.kind == ElementKind::Integer) {
      unsigned width = widthOf(element);
      bool isUnsigned = isUnsignedInteger(element);
      auto fn = llvm::StringSwitch<std::function<int64_t(int64_t)>>(name)
                    .Case("abs",
                          [&](int64_t v) {
                            return wrapInteger(v < 0 && !isUnsigned
                                                   ? -(uint64_t)v
                                                   : (uint64_t)v,
                                               element);
                          })
                    .Case("negate",
                          [&](int64_t v) {
                            return wrapInteger(-(uint64_t)v, element);
                          })
                    .Case("sign",
                          [&](int64_t v) -> int64_t {
                            if (v == 0)
                              return 0;
                            return (!isUnsigned && v < 0) ? -1 : 1;
                          })
                    .Case("not",
                          [&](int64_t v) {
                            return wrapInteger(~(uint64_t)v, element);
                          })
                    .Case("popcnt",
                          [&](int64_t v) -> int64_t {
                            uint64_t bits = (uint64_t)v;
                            if (width < 64)
                              bits &= (uint64_t(1) << width) - 1;
                            return llvm::popcount(bits);
                          })
                    .Case("count_leading_zeros",
                          [&](int64_t v) -> int64_t {
                            uint64_t bits = (uint64_t)v;
                            if (width < 64)
                              bits &= (uint64_t(1) << width) - 1;
                            return (int64_t)llvm::countl_zero(bits) -
                                   (64 - (int64_t)width);
                          })
                    .Cases({"copy", "optimization_barrier"},
                           [](int64_t v) { return v; })
                    .Default(nullptr);
      if (fn) {
        HostTensor &out = makeResult();
        for (int64_t i = 0; i < out.size(); ++i)
          out.ints[i] = fn(x.ints[i]);
        return success();
      }
    }
    return std::nullopt;
  }

  // Binary ops.
  if (in.size() == 2 && op->getNumOperands() == 2 &&
      in[0]->kind == in[1]->kind) {
    HostTensor &out = makeResult();
    if (out.kind != in[0]->kind) {
      results.pop_back();
      return std::nullopt;
    }
    for (int64_t i = 0; i < out.size(); ++i)
      if (!applyBinary(op->getName().getStringRef(), *in[0], at(*in[0], i),
                       *in[1], at(*in[1], i), out, i)) {
        results.pop_back();
        return std::nullopt;
      }
    return success();
  }
  return std::nullopt;
}
