//===- Hash128.h - 128-bit XXH3 hash values ---------------------*- C++ -*-===//
//
// This file declares the 128-bit hash value that names graphs and cache
// entries, and its hexadecimal spelling.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SIGNATURE_HASH128_H
#define KILN_SIGNATURE_HASH128_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

/// An XXH3-128 digest. 128 bits make accidental collisions between the
/// graphs of every training job anyone runs negligible.
struct Hash128 {
  uint64_t high = 0;
  uint64_t low = 0;

  /// 32 lowercase hex digits, high half first.
  std::string toHex() const;
  static std::optional<Hash128> fromHex(llvm::StringRef hex);
  /// XXH3-128 of `bytes`.
  static Hash128 of(llvm::StringRef bytes);

  bool operator==(const Hash128 &other) const {
    return high == other.high && low == other.low;
  }
  bool operator!=(const Hash128 &other) const { return !(*this == other); }
};

} // namespace kiln

#endif // KILN_SIGNATURE_HASH128_H
