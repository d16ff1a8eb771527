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

size_t kiln::countCommonOps(llvm::ArrayRef<uint64_t> sortedA,
                            llvm::ArrayRef<uint64_t> sortedB) {
  size_t common = 0, i = 0, j = 0;
  while (i < sortedA.size() && j < sortedB.size()) {
    if (sortedA[i] < sortedB[j]) {
      ++i;
    } else if (sortedB[j] < sortedA[i]) {
      ++j;
    } else {
      ++common;
      ++i;
      ++j;
    }
  }
  return common;
}

llvm::StringRef kiln::getMissReason(const MissExplanation &explanation) {
  if (explanation.kind != MissExplanation::Kind::KeyPartsDiffer)
    return "computation";
  for (const KeyPartDifference &difference : explanation.differences) {
    if (difference.part == "compiler")
      return "compiler";
    if (difference.part == "format_version")
      return "format";
  }
  for (const KeyPartDifference &difference : explanation.differences)
    if (difference.part == "target_triple" || difference.part == "cpu" ||
        difference.part == "cpu_features")
      return "target";
  return "options";
}

MissExplanation kiln::explainMiss(const KeyParts &parts,
                                  llvm::StringRef graphName,
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
  // Another computation: the most ops in common, relative to both sizes
  // (so that a big graph does not win for its size alone); at equal
  // similarity the same module name, then the most recently used (the
  // candidates' order).
  std::vector<uint64_t> ours(sketch.begin(), sketch.end());
  llvm::sort(ours);
  std::vector<uint64_t> theirs;
  double bestSimilarity = -1;
  bool bestSameName = false;
  size_t bestCommon = 0;
  for (const CacheEntry &entry : candidates) {
    llvm::ArrayRef<uint64_t> sorted = entry.sketch;
    if (!llvm::is_sorted(sorted)) {
      theirs.assign(entry.sketch.begin(), entry.sketch.end());
      llvm::sort(theirs);
      sorted = theirs;
    }
    size_t common = countCommonOps(ours, sorted);
    size_t all = ours.size() + sorted.size() - common;
    double similarity = all ? double(common) / all : 1.0;
    bool sameName = !graphName.empty() && entry.graphName == graphName;
    if (similarity > bestSimilarity ||
        (similarity == bestSimilarity && sameName && !bestSameName)) {
      best = &entry;
      bestSimilarity = similarity;
      bestSameName = sameName;
      bestCommon = common;
    }
  }
  explanation.kind = MissExplanation::Kind::SignatureDiffers;
  explanation.nearest = *best;
  explanation.commonOps = bestCommon;
  explanation.similarity = bestSimilarity;
  explanation.differences = compareKeyParts(parts, best->parts);
  return explanation;
}
