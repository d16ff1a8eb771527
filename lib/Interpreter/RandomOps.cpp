//===- RandomOps.cpp - random number ops ------------------------*- C++ -*-===//
//
// This file evaluates rng (uniform in [a, b) or normal with mean a and
// deviation b, from a generator seeded once per evaluator run, so that runs
// repeat). rng_bit_generator's algorithms are XLA's and are not evaluated
// yet: an error naming the op.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

#include <random>

using namespace mlir;
using namespace kiln::interp;

std::optional<LogicalResult>
kiln::interp::evaluateRandom(Operation *op, Operands in, Results &results,
                             RegionRunner &) {
  StringRef name = op->getName().getStringRef();
  if (name == "kiln.rng") {
    static thread_local std::mt19937_64 generator(0x6b696c6e);
    results.emplace_back(op->getResult(0).getType());
    HostTensor &out = results.back();
    StringRef distribution =
        op->getAttrOfType<StringAttr>("distribution").getValue();
    double a = in[0]->asDouble(0), b = in[1]->asDouble(0);
    for (int64_t i = 0; i < out.size(); ++i) {
      double value;
      if (distribution == "rng_normal")
        value = std::normal_distribution<double>(a, b)(generator);
      else if (out.kind == ElementKind::Integer)
        value = std::uniform_int_distribution<int64_t>(
            (int64_t)a, std::max<int64_t>((int64_t)a, (int64_t)b - 1))(
            generator);
      else
        value = std::uniform_real_distribution<double>(a, b)(generator);
      if (out.kind == ElementKind::Integer)
        out.ints[i] = wrapInteger((uint64_t)(int64_t)value, out.elementType());
      else
        out.floats[i] = roundToFloat(value, out.elementType());
    }
    return success();
  }
  if (name == "kiln.rng_bit_generator")
    return op->emitError("rng_bit_generator cannot be evaluated yet (XLA's "
                         "Philox and ThreeFry bit streams)");
  return std::nullopt;
}
