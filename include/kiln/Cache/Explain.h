//===- Explain.h - why a graph misses the cache -----------------*- C++ -*-===//
//
// This file declares the explanation of a miss at the level of the index:
// either the same computation is cached with other key parts (compiler,
// options, target), or the computation differs and the nearest cached
// graph is the one with the most ops in common (by per-op fingerprints).
// What changed op by op is GraphDiff's to say (kiln/Signature/GraphDiff.h).
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
    SignatureDiffers, ///< another computation; see commonOps
  };
  Kind kind = Kind::EmptyCache;
  CacheEntry nearest;
  std::vector<KeyPartDifference> differences;
  /// For SignatureDiffers: the ops this graph and the nearest have in
  /// common (as multisets of fingerprints), and that over the ops of both
  /// (1: the same ops; 0: none in common).
  size_t commonOps = 0;
  double similarity = 0;
};

/// The reason a miss is counted under in the cache's statistics:
/// "computation" (no entry has this signature), else the first key part
/// that differs from the nearest entry with the signature: "compiler",
/// "format", "target" or "options".
llvm::StringRef getMissReason(const MissExplanation &explanation);

/// Picks the nearest of `candidates` (most recently used first): the same
/// signature with the fewest differing parts; else the most ops in common
/// relative to both graphs' sizes, the same module name breaking ties, then
/// the most recently used.
MissExplanation explainMiss(const KeyParts &parts, llvm::StringRef graphName,
                            llvm::ArrayRef<uint64_t> sketch,
                            llvm::ArrayRef<CacheEntry> candidates);

/// How many fingerprints two sorted sketches share, as multisets.
size_t countCommonOps(llvm::ArrayRef<uint64_t> sortedA,
                      llvm::ArrayRef<uint64_t> sortedB);

/// Compares two keys' parts other than the signature; CPU features are
/// reported as the features added and removed.
std::vector<KeyPartDifference> compareKeyParts(const KeyParts &ours,
                                               const KeyParts &theirs);

/// One line: what differs, e.g. "options: opt-level=3 vs (defaults)".
std::string describeDifferences(llvm::ArrayRef<KeyPartDifference> diffs);

} // namespace kiln

#endif // KILN_CACHE_EXPLAIN_H
