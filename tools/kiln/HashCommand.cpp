//===- HashCommand.cpp - kiln hash ------------------------------*- C++ -*-===//
//
// This file implements `kiln hash`: the signature and cache key of each
// graph, computed in parallel and printed in input order.
//
//===----------------------------------------------------------------------===//

#include "CacheAccess.h"
#include "Commands.h"
#include "GraphKeys.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

int kiln::runHash(const HashOptions &givenOptions) {
  HashOptions options = givenOptions;
  // The keys are the cache's: the settings that key its entries (target,
  // options, compiler) apply here too.
  {
    llvm::Expected<std::string> directory = resolveCacheDirectory("");
    llvm::Expected<Settings> settings =
        directory ? loadCommandSettings(*directory, {})
                  : llvm::Expected<Settings>(directory.takeError());
    if (!settings) {
      llvm::errs() << "kiln hash: error: "
                   << llvm::toString(settings.takeError()) << "\n";
      return ExitInputError;
    }
    applyKeySettings(*settings, options.keys);
  }
  if (!resolveCompilerIdentity(options.keys))
    return ExitInputError;
  std::string canonical;
  if (!canonicalizeKeyOptions(options.keys, canonical))
    return ExitInputError;
  unsigned emptyDirectories = 0;
  std::vector<GraphKey> keys = computeGraphKeys(
      expandGraphPaths(options.inputs, "hash", &emptyDirectories), options.keys,
      canonical);
  reportGraphProblems(keys);

  unsigned failures = 0;
  llvm::json::Array graphs;
  for (const GraphKey &key : keys) {
    if (!key.ok) {
      ++failures;
      if (options.json)
        graphs.push_back(llvm::json::Object{{"path", key.path}, {"ok", false}});
      continue;
    }
    if (options.json) {
      llvm::json::Object entry = key.parts.toJson();
      entry["path"] = key.path;
      entry["ok"] = true;
      entry["elided_constants"] = (int64_t)key.elidedConstants;
      graphs.push_back(std::move(entry));
      continue;
    }
    llvm::outs() << key.parts.signature.toHex() << "  "
                 << key.parts.key().toHex() << "  " << key.path << "\n";
  }
  if (options.json)
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                               {"graphs", std::move(graphs)},
                                               {"failed", (int64_t)failures}}))
                 << "\n";
  return failures || emptyDirectories ? ExitInputError : ExitSuccess;
}
