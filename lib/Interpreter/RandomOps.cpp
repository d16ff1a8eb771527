//===- RandomOps.cpp - random number ops ------------------------*- C++ -*-===//
//
// This file evaluates rng (uniform in [a, b) or normal with mean a and
// deviation b, from a generator seeded once per evaluator run, so that runs
// repeat), and rng_bit_generator with XLA's algorithms, bit for bit:
// ThreeFry-2x32 (20 rounds) and Philox-4x32 (10 rounds, also what
// rng_default is on CPU), with XLA's state layouts and its ways of
// filling 32- and 64-bit outputs and of advancing the counter.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

#include <array>
#include <random>

using namespace mlir;
using namespace kiln::interp;

namespace {

uint32_t low(uint64_t v) { return (uint32_t)v; }
uint32_t high(uint64_t v) { return (uint32_t)(v >> 32); }
uint32_t rotateLeft(uint32_t v, unsigned r) { return (v << r) | (v >> (32 - r)); }

/// Threefry-2x32 with 20 rounds of counter (x0, x1) under key (k0, k1).
std::pair<uint32_t, uint32_t> threefry(uint32_t x0, uint32_t x1, uint32_t k0,
                                       uint32_t k1) {
  const uint32_t keys[3] = {k0, k1, 0x1BD11BDA ^ k0 ^ k1};
  static const unsigned kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  x0 += keys[0];
  x1 += keys[1];
  for (unsigned group = 0; group < 5; ++group) {
    for (unsigned r = 0; r < 4; ++r) {
      x0 += x1;
      x1 = rotateLeft(x1, kRotations[(group % 2) * 4 + r]) ^ x0;
    }
    x0 += keys[(group + 1) % 3];
    x1 += keys[(group + 2) % 3] + group + 1;
  }
  return {x0, x1};
}

/// Philox-4x32 with 10 rounds of counter `x` under key (k0, k1).
std::array<uint32_t, 4> philox(std::array<uint32_t, 4> x, uint32_t k0,
                               uint32_t k1) {
  for (unsigned round = 0; round < 10; ++round) {
    uint64_t a = (uint64_t)x[0] * 0xD2511F53u;
    uint64_t b = (uint64_t)x[2] * 0xCD9E8D57u;
    x = {high(b) ^ x[1] ^ k0, low(b), high(a) ^ x[3] ^ k1, low(a)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return x;
}

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
  uint64_t key = state.ints[0];
  uint32_t k0 = low(key), k1 = high(key);
  if (out.kind != ElementKind::Integer)
    return op->emitError("rng_bit_generator gives integers, not ")
           << out.elementType();
  unsigned width = storageIntegerType(out.elementType()).getWidth();
  int64_t n = out.size();
  for (int64_t i = 0; i < words; ++i)
    newState.ints[i] = state.ints[i];
  auto store = [&](int64_t i, uint64_t bits) {
    out.ints[i] = wrapInteger(bits, out.elementType());
  };
  if (isThreeFry) {
    uint64_t counter = state.ints[1];
    uint64_t used;
    if (width == 64) {
      for (int64_t i = 0; i < n; ++i) {
        uint64_t c = counter + i;
        auto [w0, w1] = threefry(low(c), high(c), k0, k1);
        store(i, (uint64_t)w0 | ((uint64_t)w1 << 32));
      }
      used = n;
    } else if (out.shape().empty()) {
      store(0, threefry(low(counter), high(counter), k0, k1).first);
      used = 1;
    } else {
      // 32 bits or fewer: each counter gives two words, to two neighbours
      // along the split dimension (the first of even size, else the first
      // of the largest size).
      llvm::ArrayRef<int64_t> shape = out.shape();
      size_t split = shape.size();
      for (size_t d = 0; d < shape.size() && split == shape.size(); ++d)
        if (shape[d] % 2 == 0)
          split = d;
      if (split == shape.size())
        split = std::max_element(shape.begin(), shape.end()) - shape.begin();
      llvm::SmallVector<int64_t> half(shape);
      half[split] = (half[split] + 1) / 2;
      llvm::SmallVector<int64_t> halfStrides = stridesOf(half);
      llvm::SmallVector<int64_t> index(shape.size(), 0);
      for (int64_t i = 0; i < n; ++i, nextIndex(index, shape)) {
        int64_t linear = 0;
        for (size_t d = 0; d < shape.size(); ++d)
          linear += (d == split ? index[d] / 2 : index[d]) * halfStrides[d];
        uint64_t c = counter + linear;
        auto [w0, w1] = threefry(low(c), high(c), k0, k1);
        store(i, index[split] % 2 ? w1 : w0);
      }
      used = 1;
      for (int64_t size : half)
        used *= size;
    }
    newState.ints[1] = (int64_t)(counter + used);
    return success();
  }
  // Philox: a 128-bit counter (low word state[1]; high word state[2], or
  // the key for a two-word state), one block of four words per step.
  uint64_t counterLow = state.ints[1];
  uint64_t counterHigh = words == 3 ? state.ints[2] : state.ints[0];
  auto block = [&](uint64_t b) {
    uint64_t lo = counterLow + b;
    uint64_t hi = counterHigh + (lo < counterLow ? 1 : 0);
    return philox({low(lo), high(lo), low(hi), high(hi)}, k0, k1);
  };
  uint64_t used;
  if (width == 64) {
    for (int64_t i = 0; i < n; ++i) {
      std::array<uint32_t, 4> w = block(i / 2);
      store(i, i % 2 ? (uint64_t)w[2] | ((uint64_t)w[3] << 32)
                     : (uint64_t)w[0] | ((uint64_t)w[1] << 32));
    }
    used = (n + 1) / 2;
  } else {
    for (int64_t i = 0; i < n; ++i)
      store(i, block(i / 4)[i % 4]);
    used = (n + 3) / 4;
  }
  uint64_t newLow = counterLow + used;
  newState.ints[1] = (int64_t)newLow;
  if (words == 3)
    newState.ints[2] = (int64_t)(counterHigh + (newLow < counterLow ? 1 : 0));
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
