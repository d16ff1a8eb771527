//===- Explain.h - why a graph misses the cache -----------------*- C++ -*-===//
//
// This file declares the explanation of a miss: compared with the nearest
// cached entry, either some key parts differ (compiler version, options,
// target) or the computation does, from a first op on.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CACHE_EXPLAIN_H
#define KILN_CACHE_EXPLAIN_H

#include "kiln/Cache/Cache.h"

namespace kiln {

struct KeyPartDifference {
  std::string part;   ///< e.g. "options"
  std::string ours;   ///< this graph's value
  std::string theirs; ///< the cached entry's value
};

struct MissExplanation {
  enum class Kind {
    EmptyCache,       ///< nothing to compare with
    KeyPartsDiffer,   ///< same signature, other target/options/compiler
    SignatureDiffers, ///< another computation; see firstDifferentOp
  };
  Kind kind = Kind::EmptyCache;
  CacheEntry nearest;
  std::vector<KeyPartDifference> differences;
  /// Index in this graph's sketch of the first op that differs from the
  /// nearest entry's (equal to the sketch size if this graph is a prefix).
  size_t firstDifferentOp = 0;
};

/// Picks the nearest of `candidates`: the same signature with the fewest
/// differing parts, else the longest common run of op hashes.
MissExplanation explainMiss(const KeyParts &parts,
                            llvm::ArrayRef<uint64_t> sketch,
                            llvm::ArrayRef<CacheEntry> candidates);

/// Compares two keys' parts other than the signature; CPU features are
/// reported as the features added and removed.
std::vector<KeyPartDifference> compareKeyParts(const KeyParts &ours,
                                               const KeyParts &theirs);

/// One line: what differs, e.g. "options: opt-level=3 vs (defaults)".
std::string describeDifferences(llvm::ArrayRef<KeyPartDifference> diffs);

} // namespace kiln

#endif // KILN_CACHE_EXPLAIN_H
