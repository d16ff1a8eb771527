//===- Explain.cpp - why a graph misses the cache ---------------*- C++ -*-===//
//
// This file implements the comparison of a missing graph's key parts and
// sketch with the entries of the cache.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Explain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace kiln;

std::vector<KeyPartDifference> kiln::compareKeyParts(const KeyParts &ours,
                                                     const KeyParts &theirs) {
  std::vector<KeyPartDifference> diffs;
  auto compare = [&](llvm::StringRef part, const std::string &a,
                     const std::string &b) {
    if (a != b)
      diffs.push_back({part.str(), a, b});
  };
  compare("compiler", ours.compiler, theirs.compiler);
  compare("format_version", std::to_string(ours.formatVersion),
          std::to_string(theirs.formatVersion));
  compare("target_triple", ours.targetTriple, theirs.targetTriple);
  compare("cpu", ours.cpuName, theirs.cpuName);
  if (ours.cpuFeatures != theirs.cpuFeatures) {
    // The full lists are long; what matters is what changed.
    llvm::SmallVector<llvm::StringRef> a, b;
    llvm::StringRef(ours.cpuFeatures).split(a, ',', -1, false);
    llvm::StringRef(theirs.cpuFeatures).split(b, ',', -1, false);
    llvm::StringSet<> setA, setB;
    setA.insert(a.begin(), a.end());
    setB.insert(b.begin(), b.end());
    std::vector<std::string> onlyOurs, onlyTheirs;
    for (llvm::StringRef f : a)
      if (!setB.contains(f))
        onlyOurs.push_back(("+" + f).str());
    for (llvm::StringRef f : b)
      if (!setA.contains(f))
        onlyTheirs.push_back(("+" + f).str());
    diffs.push_back({"cpu_features", llvm::join(onlyOurs, ","),
                     llvm::join(onlyTheirs, ",")});
  }
  auto showOptions = [](const std::string &options) {
    if (options.empty())
      return std::string("(defaults)");
    std::string text = options;
    if (!text.empty() && text.back() == '\n')
      text.pop_back();
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
  };
  if (ours.options != theirs.options)
    diffs.push_back(
        {"options", showOptions(ours.options), showOptions(theirs.options)});
  return diffs;
}

std::string kiln::describeDifferences(llvm::ArrayRef<KeyPartDifference> diffs) {
  std::string text;
  for (const KeyPartDifference &diff : diffs) {
    if (!text.empty())
      text += "; ";
    text += diff.part + ": " + (diff.ours.empty() ? "-" : diff.ours) +
            " here vs " + (diff.theirs.empty() ? "-" : diff.theirs) + " cached";
  }
  return text;
}

MissExplanation kiln::explainMiss(const KeyParts &parts,
                                  llvm::ArrayRef<uint64_t> sketch,
                                  llvm::ArrayRef<CacheEntry> candidates) {
  MissExplanation explanation;
  if (candidates.empty())
    return explanation;
  // Same computation compiled differently: the fewest differing parts.
  const CacheEntry *best = nullptr;
  size_t bestDiffs = ~size_t(0);
  for (const CacheEntry &entry : candidates) {
    if (entry.parts.signature != parts.signature)
      continue;
    size_t diffs = compareKeyParts(parts, entry.parts).size();
    if (diffs < bestDiffs) {
      best = &entry;
      bestDiffs = diffs;
    }
  }
  if (best) {
    explanation.kind = MissExplanation::Kind::KeyPartsDiffer;
    explanation.nearest = *best;
    explanation.differences = compareKeyParts(parts, best->parts);
    return explanation;
  }
  // Another computation: the longest run of equal op hashes from the start.
  size_t bestPrefix = 0;
  best = &candidates.front();
  for (const CacheEntry &entry : candidates) {
    size_t prefix = 0;
    size_t common = std::min(sketch.size(), entry.sketch.size());
    while (prefix < common && sketch[prefix] == entry.sketch[prefix])
      ++prefix;
    if (prefix > bestPrefix) {
      bestPrefix = prefix;
      best = &entry;
    }
  }
  explanation.kind = MissExplanation::Kind::SignatureDiffers;
  explanation.nearest = *best;
  explanation.firstDifferentOp = bestPrefix;
  explanation.differences = compareKeyParts(parts, best->parts);
  return explanation;
}
