//===- CheckOps.cpp - the golden tests' checks ------------------*- C++ -*-===//
//
// This file evaluates kiln.check: `eq` (equal values, NaN equal to NaN),
// `almost_eq` (within `tolerance`, absolute or relative, default 1e-4) and
// `close` (within `max_ulp_difference` units in the last place, default 3,
// each part of a complex number; integers and predicates exactly). Each
// check records its outcome with the worst element; the form that answers
// gives whether it passed.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace kiln::interp;

namespace {

/// The position of `i` in `shape`, as `[i,j]`.
std::string positionText(llvm::ArrayRef<int64_t> shape, int64_t i) {
  llvm::SmallVector<int64_t> index(shape.size());
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    index[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  std::string text = "[";
  for (auto [k, v] : llvm::enumerate(index))
    text += (k ? "," : "") + std::to_string(v);
  return text + "]";
}

/// Units in the last place between two floats of one type (their bits as
/// a line where -0 and +0 meet).
double ulps(const HostTensor &a, int64_t i, const HostTensor &b, int64_t j) {
  // In integers: a double cannot hold a 64-bit float's bits exactly.
  auto key = [](const llvm::APInt &bits) -> __int128 {
    unsigned width = bits.getBitWidth();
    uint64_t raw = bits.getZExtValue();
    uint64_t sign = uint64_t(1) << (width - 1);
    __int128 magnitude = raw & (sign - 1);
    return (raw & sign) ? -magnitude : magnitude;
  };
  __int128 difference = key(a.bitsAt(i)) - key(b.bitsAt(j));
  return (double)(difference < 0 ? -difference : difference);
}

std::string valueText(const HostTensor &t, int64_t i) {
  switch (t.kind) {
  case ElementKind::Integer:
    return isUnsignedInteger(t.elementType())
               ? std::to_string((uint64_t)t.ints[i])
               : std::to_string(t.ints[i]);
  case ElementKind::Float:
    return formatNumber(t.floats[i]);
  case ElementKind::Complex:
    return "(" + formatNumber(t.complexes[i].real()) + ", " +
           formatNumber(t.complexes[i].imag()) + ")";
  case ElementKind::Token:
    return "token";
  }
  return "";
}

} // namespace

CheckOutcome kiln::interp::compareCheckValues(const CheckRule &rule,
                                             const HostTensor &actual,
                                             const HostTensor &expected,
                                             Location loc) {
  CheckOutcome outcome{loc};
  outcome.comparison = rule.comparison;
  double tolerance = rule.tolerance;
  double maxUlps = rule.maxUlps, minUlps = rule.minUlps;
  outcome.elements = actual.size();
  bool isClose = outcome.comparison == "close";
  bool isAlmost = outcome.comparison == "almost_eq";
  auto compareFloats = [&](double a, double b, const HostTensor &ta, int64_t i,
                           const HostTensor &tb, int64_t j, bool &ok) {
    if (std::isnan(a) || std::isnan(b)) {
      ok = std::isnan(a) && std::isnan(b);
      return ok ? 0.0 : INFINITY;
    }
    if (isClose) {
      double distance = ulps(ta, i, tb, j);
      ok = distance <= maxUlps && distance >= minUlps;
      return distance;
    }
    if (isAlmost) {
      double difference = a == b ? 0 : std::fabs(a - b);
      ok = difference <= tolerance ||
           difference <= tolerance * std::fabs(b);
      return difference;
    }
    ok = a == b;
    return ok ? 0.0 : 1.0;
  };
  for (int64_t i = 0; i < actual.size(); ++i) {
    bool ok = true;
    double error = 0;
    switch (actual.kind) {
    case ElementKind::Integer:
      ok = actual.ints[i] == expected.ints[i];
      error = ok ? 0 : std::fabs(actual.asDouble(i) - expected.asDouble(i));
      break;
    case ElementKind::Float:
      error = compareFloats(actual.floats[i], expected.floats[i], actual, i,
                            expected, i, ok);
      break;
    case ElementKind::Complex: {
      // Each part in its own type.
      Type part = cast<ComplexType>(actual.elementType()).getElementType();
      HostTensor a(RankedTensorType::get({2}, part)),
          b(RankedTensorType::get({2}, part));
      a.floats = {actual.complexes[i].real(), actual.complexes[i].imag()};
      b.floats = {expected.complexes[i].real(), expected.complexes[i].imag()};
      bool okReal, okImag;
      double errorReal = compareFloats(a.floats[0], b.floats[0], a, 0, b, 0,
                                       okReal);
      double errorImag = compareFloats(a.floats[1], b.floats[1], a, 1, b, 1,
                                       okImag);
      ok = okReal && okImag;
      error = std::max(errorReal, errorImag);
      break;
    }
    case ElementKind::Token:
      break;
    }
    if (!ok)
      ++outcome.failing;
    if (!ok && (outcome.failing == 1 || error > outcome.worstError)) {
      outcome.worstError = error;
      outcome.worst = positionText(actual.shape(), i) + ": got " +
                      valueText(actual, i) + ", want " +
                      valueText(expected, i);
    } else if (ok && outcome.failing == 0 && error > outcome.worstError) {
      outcome.worstError = error;
    }
  }
  outcome.passed = outcome.failing == 0;
  return outcome;
}

std::optional<LogicalResult>
kiln::interp::evaluateCheck(Operation *op, Operands in, Results &results,
                            RegionRunner &runner) {
  if (op->getName().getStringRef() != "kiln.check")
    return std::nullopt;
  const HostTensor &actual = *in[0], &expected = *in[1];
  CheckRule rule;
  rule.comparison =
      op->getAttrOfType<StringAttr>("comparison").getValue().str();
  if (auto attr = op->getAttrOfType<FloatAttr>("tolerance"))
    rule.tolerance = attr.getValueAsDouble();
  if (auto attr = op->getAttrOfType<IntegerAttr>("max_ulp_difference"))
    rule.maxUlps = attr.getInt();
  if (auto attr = op->getAttrOfType<IntegerAttr>("min_ulp_difference"))
    rule.minUlps = attr.getInt();
  if (actual.type != expected.type && actual.size() != expected.size())
    return op->emitError("check of ")
           << actual.type << " against " << expected.type;
  CheckOutcome outcome =
      compareCheckValues(rule, actual, expected, op->getLoc());
  bool passed = outcome.passed;
  runner.recordCheck(std::move(outcome));
  if (op->getNumResults() == 1) {
    results.emplace_back(op->getResult(0).getType());
    results.back().ints[0] = passed;
  }
  return success();
}
