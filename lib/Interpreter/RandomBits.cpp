//===- RandomBits.cpp - XLA's random bit generators -------------*- C++ -*-===//

#include "kiln/Interpreter/RandomBits.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <array>
#include <utility>

namespace {

uint32_t low(uint64_t v) { return (uint32_t)v; }
uint32_t high(uint64_t v) { return (uint32_t)(v >> 32); }
uint32_t rotateLeft(uint32_t v, unsigned r) {
  return (v << r) | (v >> (32 - r));
}

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

} // namespace

void kiln::generateRandomBits(
    bool isThreeFry, llvm::ArrayRef<uint64_t> state, uint64_t *newState,
    llvm::ArrayRef<int64_t> shape, unsigned width,
    llvm::function_ref<void(int64_t, uint64_t)> store) {
  int64_t words = state.size();
  int64_t n = 1;
  for (int64_t size : shape)
    n *= size;
  uint64_t key = state[0];
  uint32_t k0 = low(key), k1 = high(key);
  for (int64_t i = 0; i < words; ++i)
    newState[i] = state[i];
  if (isThreeFry) {
    uint64_t counter = state[1];
    uint64_t used;
    if (width == 64) {
      for (int64_t i = 0; i < n; ++i) {
        uint64_t c = counter + i;
        auto [w0, w1] = threefry(low(c), high(c), k0, k1);
        store(i, (uint64_t)w0 | ((uint64_t)w1 << 32));
      }
      used = n;
    } else if (shape.empty()) {
      store(0, threefry(low(counter), high(counter), k0, k1).first);
      used = 1;
    } else {
      // 32 bits or fewer: each counter gives two words, to two neighbours
      // along the split dimension (the first of even size, else the first
      // of the largest size).
      size_t split = shape.size();
      for (size_t d = 0; d < shape.size() && split == shape.size(); ++d)
        if (shape[d] % 2 == 0)
          split = d;
      if (split == shape.size())
        split = std::max_element(shape.begin(), shape.end()) - shape.begin();
      llvm::SmallVector<int64_t> half(shape);
      half[split] = (half[split] + 1) / 2;
      llvm::SmallVector<int64_t> halfStrides(half.size(), 1);
      for (int64_t d = (int64_t)half.size() - 2; d >= 0; --d)
        halfStrides[d] = halfStrides[d + 1] * half[d + 1];
      llvm::SmallVector<int64_t> index(shape.size(), 0);
      for (int64_t i = 0; i < n; ++i) {
        int64_t linear = 0;
        for (size_t d = 0; d < shape.size(); ++d)
          linear += ((d == split) ? index[d] / 2 : index[d]) * halfStrides[d];
        uint64_t c = counter + linear;
        auto [w0, w1] = threefry(low(c), high(c), k0, k1);
        store(i, index[split] % 2 ? w1 : w0);
        for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
          if (++index[d] < shape[d])
            break;
          index[d] = 0;
        }
      }
      used = 1;
      for (int64_t size : half)
        used *= size;
    }
    newState[1] = counter + used;
    return;
  }
  // Philox: a 128-bit counter (low word state[1]; high word state[2], or
  // the key for a two-word state), one block of four words per step.
  uint64_t counterLow = state[1];
  uint64_t counterHigh = words == 3 ? state[2] : state[0];
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
  newState[1] = newLow;
  if (words == 3)
    newState[2] = counterHigh + (newLow < counterLow ? 1 : 0);
}
