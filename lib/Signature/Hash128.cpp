//===- Hash128.cpp - 128-bit XXH3 hash values -------------------*- C++ -*-===//
//
// This file implements hashing and the hex spelling of Hash128.
//
//===----------------------------------------------------------------------===//

#include "kiln/Signature/Hash128.h"

#include "llvm/ADT/StringExtras.h"

#include <xxhash.h>

using namespace kiln;

std::string Hash128::toHex() const {
  char text[33];
  snprintf(text, sizeof(text), "%016llx%016llx", (unsigned long long)high,
           (unsigned long long)low);
  return std::string(text, 32);
}

std::optional<Hash128> Hash128::fromHex(llvm::StringRef hex) {
  if (hex.size() != 32 || !llvm::all_of(hex, llvm::isHexDigit))
    return std::nullopt;
  Hash128 hash;
  if (hex.take_front(16).getAsInteger(16, hash.high) ||
      hex.drop_front(16).getAsInteger(16, hash.low))
    return std::nullopt;
  return hash;
}

Hash128 Hash128::of(llvm::StringRef bytes) {
  XXH128_hash_t digest = XXH3_128bits(bytes.data(), bytes.size());
  return Hash128{digest.high64, digest.low64};
}
