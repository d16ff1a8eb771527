//===- RandomOps.cpp - random number ops ------------------------*- C++ -*-===//
//
// This file evaluates rng (uniform in [a, b) or normal with mean a and
// deviation b, from a generator seeded once per evaluator run, so that runs
// repeat), and rng_bit_generator with XLA's algorithms, bit for bit
// (RandomBits.h, which compiled code's runtime shares).
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

#include "kiln/Interpreter/RandomBits.h"

#include <random>

using namespace mlir;
using namespace kiln::interp;

namespace {

LogicalResult evaluateRngBitGenerator(Operation *op, Operands in,
                                      Results &results) {
  const HostTensor &state = *in[0];
  results.emplace_back(op->getResult(0).getType());
  results.emplace_back(op->getResult(1).getType());
  HostTensor &newState = results[0], &out = results[1];
  auto algorithmAttr = op->getAttrOfType<StringAttr>("algorithm");
  StringRef algorithm = algorithmAttr ? algorithmAttr.getValue() : "rng_default";
  bool isThreeFry = algorithm == "rng_three_fry";
  int64_t words = state.size();
  if (state.kind != ElementKind::Integer ||
      storageIntegerType(state.elementType()).getWidth() != 64 ||
      (isThreeFry ? words != 2 : (words != 2 && words != 3)))
    return op->emitError("the initial state of ")
           << algorithm << " must be u64[2]" << (isThreeFry ? "" : " or u64[3]");
  if (out.kind != ElementKind::Integer)
    return op->emitError("rng_bit_generator gives integers, not ")
           << out.elementType();
  unsigned width = storageIntegerType(out.elementType()).getWidth();
  llvm::SmallVector<uint64_t> stateWords(state.ints.begin(), state.ints.end());
  llvm::SmallVector<uint64_t> next(stateWords.size());
  kiln::generateRandomBits(isThreeFry, stateWords, next.data(), out.shape(), width,
                           [&](int64_t i, uint64_t bits) {
                             out.ints[i] = wrapInteger(bits, out.elementType());
                           });
  for (size_t i = 0; i < next.size(); ++i)
    newState.ints[i] = (int64_t)next[i];
  return success();
}

} // namespace

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
    return evaluateRngBitGenerator(op, in, results);
  return std::nullopt;
}
