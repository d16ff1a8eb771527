//===- CacheCommand.cpp - kiln cache ----------------------------*- C++ -*-===//
//
// This file implements `kiln cache`: check (is every graph cached, and why
// not), put, get, ls, stats, explain, verify, prune, rm and clear, each with
// text or JSON output.
//
//===----------------------------------------------------------------------===//

#include "CacheAccess.h"
#include "ChangeReport.h"
#include "Commands.h"
#include "DumpDiagnostics.h"
#include "GraphKeys.h"

#include "kiln/Cache/Cache.h"
#include "kiln/Cache/Explain.h"
#include "kiln/Cache/Settings.h"
#include "kiln/Cache/Signing.h"
#include "kiln/Cache/TieredCache.h"
#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/Runtime/Executable.h"
#include "kiln/Signature/GraphDiff.h"
#include "kiln/Target/CPU/CpuCompiler.h"
#include "kiln/Signature/Signature.h"
#include "kiln/Support/PrintableText.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <set>

using namespace kiln;

namespace {

int reportError(llvm::Error error) {
  llvm::errs() << "kiln cache: error: " << llvm::toString(std::move(error))
               << "\n";
  return ExitInputError;
}

void printJson(llvm::json::Value value) {
  llvm::outs() << llvm::formatv("{0:2}", value) << "\n";
}

std::string formatBytes(uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = bytes;
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? llvm::formatv("{0} B", bytes).str()
                   : llvm::formatv("{0:f1} {1}", value, units[unit]).str();
}

std::string formatTime(int64_t ms) {
  time_t seconds = ms / 1000;
  struct tm utc;
  gmtime_r(&seconds, &utc);
  char text[32];
  strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

/// Parses `500M`, `20G`, `1.5T`, `4096` (binary multiples).
/// `items` as a JSON array of strings.
llvm::json::Array toArray(const std::vector<std::string> &items) {
  llvm::json::Array array;
  for (const std::string &item : items)
    array.push_back(item);
  return array;
}

/// "1 artifact", "2 artifacts": a count with its noun in English.
std::string plural(uint64_t count, llvm::StringRef one, llvm::StringRef many) {
  return formatCount(count, one, many);
}


llvm::json::Object entryToJson(const CacheEntry &entry) {
  llvm::json::Object object = entry.parts.toJson();
  object["key"] = entry.key;
  object["status"] = entry.ok ? "ok" : "failed";
  object["path"] = entry.path;
  object["size"] = (int64_t)entry.size;
  object["checksum"] = entry.checksum;
  object["compile_seconds"] = entry.compileSeconds;
  object["created"] = formatTime(entry.createdMs);
  object["last_used"] = formatTime(entry.lastUsedMs);
  object["hits"] = entry.hits;
  object["source"] = entry.source;
  return object;
}

/// Why a graph missed, in short.
struct MissReason {
  /// What the statistics count it under (getMissReason).
  std::string kind;
  /// For `check`'s listing; empty if nothing could be read.
  std::string text;
};

/// Why `graph` missed, compared with the entries that have its signature,
/// failing that with `recent`, the recently used entries: read once for a
/// whole check, on the first miss that needs them, their sketches sorted
/// once for all the comparisons.
MissReason describeMiss(Cache &cache, const GraphKey &graph,
                        std::optional<std::vector<CacheEntry>> &recent) {
  llvm::Expected<std::vector<CacheEntry>> same =
      cache.findEntriesWithSignature(graph.parts.signature.toHex());
  if (!same) {
    llvm::consumeError(same.takeError());
    return {"computation", ""};
  }
  if (same->empty() && !recent) {
    llvm::Expected<std::vector<CacheEntry>> entries = cache.listRecent(1000);
    if (!entries) {
      llvm::consumeError(entries.takeError());
      return {"computation", ""};
    }
    recent = std::move(*entries);
    for (CacheEntry &entry : *recent)
      llvm::sort(entry.sketch);
  }
  // Only a comparison with other computations reads the sketch; one left
  // in the memo is read now (none if the memo lost it meanwhile: no text).
  std::vector<uint64_t> loaded;
  llvm::ArrayRef<uint64_t> sketch = graph.sketch;
  if (same->empty() && !recent->empty() && graph.sketchDeferred) {
    loaded = loadMemoSketch(cache, graph);
    if (loaded.empty())
      return {"computation", ""};
    sketch = loaded;
  }
  MissExplanation explanation = explainMiss(
      graph.parts, graph.graphName, sketch, same->empty() ? *recent : *same);
  MissReason reason{getMissReason(explanation).str(), ""};
  switch (explanation.kind) {
  case MissExplanation::Kind::EmptyCache:
    reason.text = "the cache is empty";
    break;
  case MissExplanation::Kind::KeyPartsDiffer:
    reason.text = "this computation is cached for another setting: " +
                  describeDifferences(explanation.differences);
    break;
  case MissExplanation::Kind::SignatureDiffers:
    reason.text =
        llvm::formatv("no cached graph has this computation; the nearest is "
                      "{0} ({1:P0} of ops in common); kiln cache explain "
                      "says what changed",
                      explanation.nearest.source, explanation.similarity)
            .str();
    break;
  }
  return reason;
}

/// Keys for one graph; prints its problems. With `keepText`, the key keeps
/// the bytes it was computed from (what an entry stores of its graph).
std::optional<GraphKey> keyOneGraph(const std::string &path,
                                    const KeyOptions &options,
                                    bool keepText = false) {
  std::string canonical;
  if (!canonicalizeKeyOptions(options, canonical))
    return std::nullopt;
  std::vector<GraphKey> keys =
      computeGraphKeys({path}, options, canonical, keepText);
  reportGraphProblems(keys);
  if (!keys[0].ok)
    return std::nullopt;
  return std::move(keys[0]);
}

int runCheck(TieredCache &tiers, const CacheOptions &options) {
  Cache &cache = tiers.getLocal();
  std::string canonical;
  if (!canonicalizeKeyOptions(options.keys, canonical))
    return ExitInputError;
  // A check that gates a training job must not pass on a wrong path.
  unsigned emptyDirectories = 0;
  // Sketches are read only for the misses explained.
  std::vector<GraphKey> keys = keyGraphsWithMemo(
      cache, expandGraphPaths(options.graphs, "cache check", &emptyDirectories),
      options.keys, canonical,
      /*keepText=*/false, /*exportHlo=*/false, /*memoSketches=*/false);
  reportGraphProblems(keys);
  unsigned hits = 0, misses = 0, failed = 0, errors = 0;
  unsigned remoteHits = 0, fetched = 0;
  // Files that hold the same graph (under the same key parts) are one.
  std::set<std::string> distinct;
  for (const GraphKey &graph : keys)
    if (graph.ok)
      distinct.insert(graph.parts.key().toHex());
  std::optional<std::vector<CacheEntry>> recent;
  // An artifact built for CPU features this machine lacks cannot run here:
  // its hit is a miss. The features follow from the key's target, so no
  // artifact is read to know it.
  TargetSpec target = getKeyTarget(options.keys);
  std::vector<std::string> missingFeatures =
      getMissingCpuFeatures(getTargetCpuFeatures(target));
  llvm::json::Array graphs;
  for (const GraphKey &graph : keys) {
    if (!graph.ok) {
      ++errors;
      graphs.push_back(
          llvm::json::Object{{"path", graph.path}, {"status", "error"}});
      if (!options.json)
        llvm::outs() << llvm::format("%-8s", "error") << "  "
                     << escapeControlCharacters(graph.path)
                     << "  (the graph did not import)\n";
      continue;
    }
    std::string key = graph.parts.key().toHex();
    // Without --fetch a remote hit is verified where it is, not copied.
    llvm::Expected<TieredLookup> found = tiers.lookupTiers(
        key, /*verify=*/!options.noVerify, /*copyToLocal=*/options.fetch);
    if (!found)
      return reportError(found.takeError());
    LookupResult *result = &found->result;
    std::string status, reason;
    bool remote = found->tier != "local";
    switch (result->status) {
    case LookupStatus::Hit:
      if (!missingFeatures.empty()) {
        status = "miss";
        reason = "built for CPU " + target.cpu +
                 ", and this machine lacks its features " +
                 llvm::join(missingFeatures, ", ");
        cache.countMissReason("target");
        ++misses;
        break;
      }
      status = "hit";
      ++hits;
      if (remote) {
        ++remoteHits;
        fetched += found->fetched;
        reason = "in " + found->tier +
                 (found->fetched ? ", fetched into the local cache" : "");
      }
      break;
    case LookupStatus::Failed:
      status = "failed";
      reason = remote && !found->fetched
                   ? "its compilation failed, as recorded in " + found->tier +
                         " (kiln cache pull copies its log)"
                   : "its compilation failed; log: " +
                         tiers.getLogCommand(key);
      ++failed;
      break;
    case LookupStatus::Corrupt:
      llvm::errs() << escapeControlCharacters(graph.path)
                   << ": warning: cached artifact " << key
                   << " was corrupt and has been removed: " << result->problem
                   << "\n";
      status = "miss";
      reason = "the cached artifact was corrupt: " + result->problem;
      cache.countMissReason("corrupt");
      ++misses;
      break;
    case LookupStatus::Untrusted:
      status = "miss";
      reason = "untrusted: " + result->problem;
      cache.countMissReason("untrusted");
      ++misses;
      break;
    case LookupStatus::Miss: {
      status = "miss";
      MissReason why = describeMiss(cache, graph, recent);
      reason = why.text;
      cache.countMissReason(why.kind);
      ++misses;
      break;
    }
    }
    if (options.json) {
      llvm::json::Object entry{{"path", graph.path},
                               {"status", status},
                               {"key", key},
                               {"signature", graph.parts.signature.toHex()}};
      if (tiers.getRemoteCount() && (result->status == LookupStatus::Hit ||
                                     result->status == LookupStatus::Failed)) {
        entry["tier"] = found->tier;
        if (remote)
          entry["fetched"] = found->fetched;
      }
      if (!reason.empty())
        entry["reason"] = reason;
      graphs.push_back(std::move(entry));
      continue;
    }
    llvm::outs() << llvm::format("%-8s", status.c_str()) << "  " << key << "  "
                 << escapeControlCharacters(graph.path);
    if (!reason.empty())
      llvm::outs() << "  (" << reason << ")";
    llvm::outs() << "\n";
  }
  if (options.json) {
    llvm::json::Object report{{"cache_dir", cache.getDirectory()},
                              {"graphs", std::move(graphs)},
                              {"total", (int64_t)keys.size()},
                              {"distinct", (int64_t)distinct.size()},
                              {"hits", hits},
                              {"misses", misses},
                              {"failed", failed},
                              {"errors", errors}};
    if (tiers.getRemoteCount()) {
      report["remote_hits"] = remoteHits;
      report["fetched"] = fetched;
    }
    printJson(std::move(report));
  } else {
    llvm::outs() << "Total graphs: " << keys.size() << " ("
                 << formatCount(keys.size(), "file", "files") << ", "
                 << distinct.size() << " distinct)\n"
                 << "Cache hits: " << hits << "\n";
    if (remoteHits)
      llvm::outs() << "Remote hits: " << remoteHits
                   << " (fetched into the local cache: " << fetched << ")\n";
    llvm::outs() << "Cache misses: " << misses << "\n"
                 << "Failed compilations: " << failed << "\n";
    if (errors)
      llvm::outs() << "Graphs that did not import: " << errors << "\n";
  }
  if (errors || emptyDirectories)
    return ExitInputError;
  if (options.requireAll && (misses || failed))
    return ExitSomeFailed;
  return ExitSuccess;
}

/// A file given on the command line (an artifact, a compiler log); null,
/// with an error printed, if it cannot be read.
std::unique_ptr<llvm::MemoryBuffer> readInputFile(const std::string &path) {
  auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes) {
    llvm::errs() << "kiln cache: error: " << path << ": "
                 << bytes.getError().message() << "\n";
    return nullptr;
  }
  return std::move(*bytes);
}

int runPutFailed(TieredCache &cache, const CacheOptions &options) {
  if (!options.artifact.empty() || options.log.empty()) {
    llvm::errs() << "kiln cache put: error: --failed records a failed "
                    "compilation: give its --log, and no artifact\n";
    return ExitInputError;
  }
  std::optional<GraphKey> graph =
      keyOneGraph(options.graph, options.keys, /*keepText=*/true);
  if (!graph)
    return ExitInputError;
  std::unique_ptr<llvm::MemoryBuffer> log = readInputFile(options.log);
  if (!log)
    return ExitInputError;
  if (llvm::Error error = cache.recordFailure(
          graph->parts, log->getBuffer(), options.compileSeconds,
          options.graph, graph->sketch,
          EntryGraph{graph->graphName, graph->text}))
    return reportError(std::move(error));
  std::string key = graph->parts.key().toHex();
  if (options.json)
    printJson(llvm::json::Object{
        {"key", key}, {"status", "failed"}, {"graph", options.graph}});
  else
    llvm::outs() << "recorded failure " << key << "  " << options.graph
                 << "\n";
  return ExitSuccess;
}

int runPut(TieredCache &tiers, const CacheOptions &options) {
  Cache &cache = tiers.getLocal();
  if (options.failed)
    return runPutFailed(tiers, options);
  if (options.artifact.empty() || !options.log.empty()) {
    llvm::errs() << "kiln cache put: error: give the artifact to store (a "
                    "--log goes with --failed)\n";
    return ExitInputError;
  }
  std::optional<GraphKey> graph =
      keyOneGraph(options.graph, options.keys, /*keepText=*/true);
  if (!graph)
    return ExitInputError;
  std::unique_ptr<llvm::MemoryBuffer> artifact = readInputFile(options.artifact);
  if (!artifact)
    return ExitInputError;
  // Under kiln's own identity the key promises kiln's code for this graph:
  // only an artifact that the loader accepts, built under these very key
  // parts, is stored. An external compiler's artifacts are its own bytes.
  if (options.keys.compilerIdentity.empty()) {
    llvm::Expected<ParsedArtifact> parsed =
        readArtifact(artifact->getBuffer());
    if (!parsed) {
      llvm::errs() << "kiln cache put: error: " << options.artifact
                   << " is not a kiln artifact ("
                   << llvm::toString(parsed.takeError())
                   << "); an external compiler's output goes under its "
                      "identity (--compiler-version-cmd)\n";
      return ExitInputError;
    }
    llvm::json::Value want(graph->parts.toJson());
    if (llvm::json::Value(llvm::json::Object(parsed->manifest.keyParts)) !=
        want) {
      llvm::errs() << "kiln cache put: error: " << options.artifact
                   << " was not built for this graph under these key parts "
                      "(its manifest's key parts differ from "
                   << graph->parts.key().toHex() << "'s)\n";
      return ExitInputError;
    }
  }
  llvm::Expected<PublishOutcome> outcome = tiers.publishArtifact(
      graph->parts, artifact->getBuffer(), options.compileSeconds,
      options.graph, graph->sketch, options.replace,
      EntryGraph{graph->graphName, graph->text});
  if (!outcome)
    return reportError(outcome.takeError());
  std::string key = graph->parts.key().toHex();
  const char *status = *outcome == PublishOutcome::Stored ? "stored"
                       : *outcome == PublishOutcome::AlreadyCached
                           ? "already cached"
                           : "conflict";
  if (options.json)
    printJson(llvm::json::Object{{"key", key},
                                 {"status", status},
                                 {"path", cache.getObjectPath(key)},
                                 {"graph", options.graph}});
  else if (*outcome == PublishOutcome::Conflict)
    llvm::errs() << "kiln cache put: error: " << key << " is cached already "
                 << "with other bytes than " << options.artifact
                 << "; the cached artifact is kept (--replace replaces "
                    "it)\n";
  else
    llvm::outs() << status << " " << key << "  " << options.graph << "\n";
  return *outcome == PublishOutcome::Conflict ? ExitSomeFailed : ExitSuccess;
}

int runGet(TieredCache &tiers, const CacheOptions &options) {
  Cache &cache = tiers.getLocal();
  std::optional<GraphKey> graph = keyOneGraph(options.graph, options.keys);
  if (!graph)
    return ExitInputError;
  std::string key = graph->parts.key().toHex();
  llvm::Expected<TieredLookup> found = tiers.lookupTiers(key, /*verify=*/true);
  if (!found)
    return reportError(found.takeError());
  LookupResult *result = &found->result;
  if (result->status != LookupStatus::Hit) {
    if (result->status == LookupStatus::Corrupt) {
      llvm::errs() << options.graph << ": warning: cached artifact " << key
                   << " was corrupt and has been removed: " << result->problem
                   << "\n";
      cache.countMissReason("corrupt");
    } else if (result->status == LookupStatus::Untrusted) {
      llvm::errs() << options.graph << ": warning: cached entry " << key
                   << " is untrusted: " << result->problem << "\n";
      cache.countMissReason("untrusted");
    } else if (result->status == LookupStatus::Miss) {
      // Only the kind of reason counts here: no nearest graph is looked for.
      std::optional<std::vector<CacheEntry>> none = std::vector<CacheEntry>();
      cache.countMissReason(describeMiss(cache, *graph, none).kind);
    }
    if (options.json)
      printJson(llvm::json::Object{{"key", key}, {"status", "miss"}});
    else
      llvm::outs() << "miss  " << key << "  " << options.graph << "\n";
    return ExitSomeFailed;
  }
  // The very bytes the lookup checked (header, key, checksum, signatures):
  // the file is never read a second time.
  std::shared_ptr<const StoredArtifact> artifact = result->verified;
  if (!artifact) {
    if (options.json)
      printJson(llvm::json::Object{{"key", key}, {"status", "miss"}});
    else
      llvm::outs() << "miss  " << key << "  " << options.graph << "\n";
    return ExitSomeFailed;
  }
  // Written through a temporary and renamed, so a reader never sees half.
  if (llvm::Error error =
          llvm::writeToOutput(options.output, [&](llvm::raw_ostream &os) {
            // --signed: the whole entry, header and signatures with it, for
            // `kiln run` to check.
            os << (options.signedEntry ? artifact->file->getBuffer()
                                       : artifact->bytes);
            return llvm::Error::success();
          }))
    return reportError(std::move(error));
  if (options.json)
    printJson(llvm::json::Object{{"key", key},
                                 {"status", "hit"},
                                 {"output", options.output},
                                 {"size", (int64_t)result->entry->size}});
  else
    llvm::outs() << "hit  " << key << "  " << options.graph << " -> "
                 << options.output
                 << (found->tier == "local" ? "" : "  (from " + found->tier + ")")
                 << "\n";
  return ExitSuccess;
}

int runList(Cache &cache, const CacheOptions &options) {
  llvm::Expected<std::vector<CacheEntry>> listed = cache.list();
  if (!listed)
    return reportError(listed.takeError());
  std::vector<CacheEntry> entries;
  for (CacheEntry &entry : *listed)
    if (options.graphFilter.empty() ||
        llvm::StringRef(entry.source).contains(options.graphFilter))
      entries.push_back(std::move(entry));
  // Most recently used first (the index's order) unless asked otherwise.
  const std::string &sort = options.sort;
  if (sort == "size")
    llvm::stable_sort(entries, [](const CacheEntry &a, const CacheEntry &b) {
      return a.size > b.size;
    });
  else if (sort == "hits")
    llvm::stable_sort(entries, [](const CacheEntry &a, const CacheEntry &b) {
      return a.hits > b.hits;
    });
  else if (sort == "graph")
    llvm::stable_sort(entries, [](const CacheEntry &a, const CacheEntry &b) {
      return a.source < b.source;
    });
  else if (sort != "last-used") {
    llvm::errs() << "kiln cache ls: error: --sort takes last-used, size, "
                    "hits or graph, not '"
                 << sort << "'\n";
    return ExitInputError;
  }
  if (options.json) {
    llvm::json::Array array;
    for (const CacheEntry &entry : entries)
      array.push_back(entryToJson(entry));
    printJson(llvm::json::Object{{"cache_dir", cache.getDirectory()},
                                 {"entries", std::move(array)}});
    return ExitSuccess;
  }
  // The columns that tell entries apart: a graph is cached once per target
  // and options.
  auto optionsOf = [](const CacheEntry &entry) {
    std::string text = llvm::StringRef(entry.parts.options).rtrim("\n").str();
    std::replace(text.begin(), text.end(), '\n', ',');
    return text.empty() ? std::string("-") : text;
  };
  if (!entries.empty())
    llvm::outs() << llvm::format("%-32s  %-6s%10s  %10s  %-20s  ", "KEY",
                                 "STATUS", "SIZE", "HITS", "LAST USED")
                 << "TARGET  OPTIONS  GRAPH\n";
  for (const CacheEntry &entry : entries)
    llvm::outs() << entry.key << "  "
                 << llvm::format("%-6s", entry.ok ? "ok" : "failed")
                 << llvm::format("%10s", formatBytes(entry.size).c_str())
                 << llvm::format("  %5lld hits  ", (long long)entry.hits)
                 << formatTime(entry.lastUsedMs) << "  "
                 << entry.parts.targetTriple << "/" << entry.parts.cpuName
                 << "  " << optionsOf(entry) << "  " << entry.source << "\n";
  llvm::outs() << entries.size()
               << (entries.size() == 1 ? " entry in " : " entries in ")
               << cache.getDirectory() << "\n";
  return ExitSuccess;
}

/// " (3 changed or new computation, 1 other options)": the misses by the
/// reasons counted for them, largest first.
std::string describeMissReasons(const CacheStats &stats) {
  static const std::pair<const char *, const char *> kWords[] = {
      {"computation", "changed or new computation"},
      {"options", "other options"},
      {"target", "other target"},
      {"compiler", "other kiln build"},
      {"format", "other cache format"},
      {"corrupt", "corrupt artifact"},
      {"untrusted", "untrusted entry"},
      {"failed", "failed before"}};
  std::vector<std::pair<uint64_t, std::string>> parts;
  for (const auto &[reason, count] : stats.missesByReason) {
    std::string words = reason;
    for (const auto &[name, text] : kWords)
      if (reason == name)
        words = text;
    parts.push_back({count, std::to_string(count) + " " + words});
  }
  llvm::stable_sort(parts, [](const auto &a, const auto &b) {
    return a.first > b.first;
  });
  if (parts.empty())
    return "";
  std::vector<std::string> texts;
  for (auto &part : parts)
    texts.push_back(std::move(part.second));
  return " (" + llvm::join(texts, ", ") + ")";
}

int runStats(Cache &cache, const CacheOptions &options) {
  if (options.zero) {
    if (llvm::Error error = cache.zeroStats())
      return reportError(std::move(error));
    if (!options.json)
      llvm::outs() << "Counters reset (hits, misses, corrupt artifacts "
                      "found, compile time saved)\n";
  }
  llvm::Expected<CacheStats> stats = cache.getStats();
  if (!stats)
    return reportError(stats.takeError());
  uint64_t lookups = stats->hits + stats->misses;
  double hitRate = lookups ? 100.0 * stats->hits / lookups : 0;
  if (options.json) {
    printJson(llvm::json::Object{
        {"cache_dir", cache.getDirectory()},
        {"entries", (int64_t)stats->entries},
        {"failed_entries", (int64_t)stats->failedEntries},
        {"bytes", (int64_t)stats->bytes},
        {"hits", (int64_t)stats->hits},
        {"misses", (int64_t)stats->misses},
        {"misses_by_reason",
         [&] {
           llvm::json::Object reasons;
           for (const auto &[reason, count] : stats->missesByReason)
             reasons[reason] = (int64_t)count;
           return reasons;
         }()},
        {"hit_rate_percent", hitRate},
        {"corrupt_found", (int64_t)stats->corrupt},
        {"active_leases", (int64_t)stats->activeLeases},
        {"stale_temporaries", (int64_t)stats->staleTemporaries},
        {"compile_seconds_saved", stats->compileSecondsSaved},
        {"tiers",
         [&] {
           llvm::json::Object tiers;
           for (const auto &[tier, counters] : stats->tiers) {
             llvm::json::Object values;
             for (const char *name : getTierCounterNames()) {
               auto found = counters.find(name);
               values[name] =
                   (int64_t)(found == counters.end() ? 0 : found->second);
             }
             tiers[tier] = std::move(values);
           }
           return tiers;
         }()},
        {"read_only", !cache.canWrite()}});
    return ExitSuccess;
  }
  llvm::outs() << "Cache directory: " << cache.getDirectory()
               << (cache.canWrite() ? "" : " (read-only)") << "\n"
               << "Entries: " << stats->entries << " (" << stats->failedEntries
               << (stats->failedEntries == 1 ? " failed compilation)\n"
                                             : " failed compilations)\n")
               << "Size: " << formatBytes(stats->bytes) << "\n"
               << "Hits: " << stats->hits << "\n"
               << "Misses: " << stats->misses << describeMissReasons(*stats)
               << "\n"
               << llvm::format("Hit rate: %.1f%%\n", hitRate)
               << "Corrupt artifacts found: " << stats->corrupt << "\n"
               << "Compilations in progress: " << stats->activeLeases << "\n"
               << (stats->staleTemporaries
                       ? "Temporary files left by writers that died: " +
                             std::to_string(stats->staleTemporaries) +
                             " (the next write removes them)\n"
                       : std::string())
               << llvm::format("Compile time saved: %.1f s\n",
                               stats->compileSecondsSaved);
  for (const auto &[tier, counters] : stats->tiers) {
    auto value = [&](const char *name) -> uint64_t {
      auto found = counters.find(name);
      return found == counters.end() ? 0 : found->second;
    };
    llvm::outs() << "Remote tier " << tier << ": "
                 << plural(value("hits"), "hit", "hits") << ", "
                 << plural(value("misses"), "miss", "misses") << ", "
                 << plural(value("stored"), "entry stored", "entries stored")
                 << ", " << plural(value("errors"), "error", "errors") << ", "
                 << plural(value("timeouts"), "timeout", "timeouts") << ", "
                 << value("corrupt") << " invalid, " << value("untrusted")
                 << " untrusted, "
                 << formatBytes(value("bytes_read")) << " read, "
                 << formatBytes(value("bytes_written")) << " written\n";
  }
  return ExitSuccess;
}

/// The nearest entry's graph, imported from the text its file keeps (into
/// `context`, beside the graph being explained); null, with the reason in
/// `problem`, if the entry kept none or it cannot be read.
mlir::OwningOpRef<mlir::ModuleOp> loadCachedGraph(Cache &cache,
                                                  const CacheEntry &entry,
                                                  mlir::MLIRContext *context,
                                                  std::string &problem) {
  llvm::Expected<std::optional<StoredArtifact>> stored =
      entry.ok ? cache.readArtifact(entry.key) : cache.readLog(entry.key);
  if (!stored) {
    problem = llvm::toString(stored.takeError());
    return nullptr;
  }
  if (!*stored) {
    problem = "its file is gone (removed since the lookup)";
    return nullptr;
  }
  if ((*stored)->header.graph.empty()) {
    problem = "the entry keeps no copy of its graph";
    return nullptr;
  }
  // Named after the file it came from, so that its positions read as
  // that file's and its kind (HLO text or MLIR) is known.
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  mlir::OwningOpRef<mlir::ModuleOp> module = loadGraphBuffer(
      llvm::MemoryBuffer::getMemBufferCopy((*stored)->header.graph,
                                           entry.source),
      context, os);
  if (!module)
    problem = "its graph does not import: " +
              llvm::StringRef(diagnostics).split('\n').first.str();
  return module;
}

int runExplain(TieredCache &tiers, const CacheOptions &options) {
  Cache &cache = tiers.getLocal();
  std::string canonical;
  if (!canonicalizeKeyOptions(options.keys, canonical))
    return ExitInputError;
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loadGraph(options.graph, &context, llvm::errs());
  if (!module)
    return ExitInputError;
  mlir::FailureOr<GraphSignature> signature;
  {
    DumpDiagnosticHandler atOps(&context, options.graph, nullptr,
                                /*quoteOps=*/false);
    signature = computeSignature(*module);
  }
  if (mlir::failed(signature))
    return ExitInputError;
  KeyParts parts =
      makeGraphKeyParts(signature->signature, options.keys, canonical);
  std::string key = parts.key().toHex();
  // An entry that is there but not trusted, here or in a remote tier, is a
  // miss for that reason alone.
  const TrustPolicy *trust = cache.getTrustPolicy();
  if (tiers.getRemoteCount() ||
      (trust && trust->requiresSignature(/*fromRemote=*/false))) {
    llvm::Expected<TieredLookup> found =
        tiers.lookupTiers(key, /*verify=*/true, /*copyToLocal=*/false);
    if (!found)
      return reportError(found.takeError());
    if (found->result.status == LookupStatus::Untrusted) {
      if (options.json)
        printJson(llvm::json::Object{{"key", key},
                                     {"status", "miss"},
                                     {"reason", "untrusted"},
                                     {"problem", found->result.problem}});
      else
        llvm::outs() << "miss  " << key << "  " << options.graph
                     << "\nthe entry is cached but untrusted: "
                     << found->result.problem << "\n";
      return ExitSomeFailed;
    }
    if (found->tier != "local" && (found->result.status == LookupStatus::Hit ||
                                   found->result.status == LookupStatus::Failed)) {
      bool hit = found->result.status == LookupStatus::Hit;
      if (options.json)
        printJson(llvm::json::Object{{"key", key},
                                     {"status", hit ? "hit" : "failed"},
                                     {"tier", found->tier}});
      else
        llvm::outs() << (hit ? "hit" : "failed") << "  " << key << "  "
                     << options.graph << "  (in " << found->tier << ")\n";
      return hit ? ExitSuccess : ExitSomeFailed;
    }
  }
  llvm::Expected<std::vector<CacheEntry>> candidates =
      cache.findExplanationCandidates(parts.signature.toHex());
  if (!candidates)
    return reportError(candidates.takeError());
  for (const CacheEntry &entry : *candidates)
    if (entry.key == key) {
      std::string status = entry.ok ? "hit" : "failed";
      if (options.json)
        printJson(llvm::json::Object{{"key", key}, {"status", status}});
      else
        llvm::outs() << status << "  " << key << "  " << options.graph
                     << (entry.ok ? ""
                                  : "  (its compilation failed; log: " +
                                        cache.getLogCommand(key) + ")")
                     << "\n";
      return entry.ok ? ExitSuccess : ExitSomeFailed;
    }

  MissExplanation explanation =
      explainMiss(parts, module->getSymName().value_or(""), signature->sketch,
                  *candidates);
  llvm::json::Object report{{"key", key}, {"status", "miss"}};
  std::string text = "miss  " + key + "  " + options.graph + "\n";
  switch (explanation.kind) {
  case MissExplanation::Kind::EmptyCache:
    report["reason"] = "empty cache";
    text += "the cache at " + cache.getDirectory().str() + " is empty\n";
    break;
  case MissExplanation::Kind::KeyPartsDiffer: {
    report["reason"] = "key parts differ";
    report["nearest"] = explanation.nearest.key;
    llvm::json::Array parts;
    text += "the same computation is cached as " + explanation.nearest.key +
            " (from " + explanation.nearest.source + "), but:\n";
    for (const KeyPartDifference &diff : explanation.differences) {
      parts.push_back(llvm::json::Object{
          {"part", diff.part}, {"here", diff.ours}, {"cached", diff.theirs}});
      text += "  " + diff.part + ": " + (diff.ours.empty() ? "-" : diff.ours) +
              " here, " + (diff.theirs.empty() ? "-" : diff.theirs) +
              " in the cache\n";
    }
    report["differences"] = std::move(parts);
    break;
  }
  case MissExplanation::Kind::SignatureDiffers: {
    const CacheEntry &nearest = explanation.nearest;
    report["reason"] = "signature differs";
    report["nearest"] = nearest.key;
    report["nearest_source"] = nearest.source;
    report["ops_in_common"] = (int64_t)explanation.commonOps;
    report["similarity"] = explanation.similarity;
    text += llvm::formatv("no cached graph has this computation; the nearest "
                          "is {0}\n(from {1}, {2:P0} of ops in common)",
                          nearest.key, nearest.source, explanation.similarity)
                .str();
    std::string problem;
    mlir::OwningOpRef<mlir::ModuleOp> cached =
        loadCachedGraph(cache, nearest, &context, problem);
    if (!cached) {
      report["problem"] = problem;
      text += "; it cannot be compared op by op: " + problem + "\n";
      break;
    }
    GraphDiff diff = diffGraphs(*cached, *module);
    report["changes"] = graphChangesToJson(diff, "cached", "here");
    report["following_ops"] = (int64_t)diff.followingOps;
    text += ": " + summarizeGraphChanges(diff) + " from it to this graph\n";
    llvm::raw_string_ostream os(text);
    printGraphChanges(os, diff, "cached", "here");
    break;
  }
  }
  if (!explanation.differences.empty() &&
      explanation.kind == MissExplanation::Kind::SignatureDiffers) {
    // The nearest graph may also be cached with other key parts.
    llvm::json::Array parts;
    text += "and key parts differ too: " +
            describeDifferences(explanation.differences) + "\n";
    for (const KeyPartDifference &diff : explanation.differences)
      parts.push_back(llvm::json::Object{
          {"part", diff.part}, {"here", diff.ours}, {"cached", diff.theirs}});
    report["differences"] = std::move(parts);
  }
  if (options.json)
    printJson(std::move(report));
  else
    llvm::outs() << text;
  return ExitSomeFailed;
}

int runVerify(Cache &cache, const CacheOptions &options) {
  llvm::Expected<VerifyReport> report = cache.verify(options.repair);
  if (!report)
    return reportError(report.takeError());
  if (options.json) {
    printJson(llvm::json::Object{
        {"checked", (int64_t)report->checked},
        {"missing_files", toArray(report->missingFiles)},
        {"corrupt_files", toArray(report->corruptFiles)},
        {"orphan_files", toArray(report->orphanFiles)},
        {"stale_temporaries", toArray(report->staleTemporaries)},
        {"foreign_files", toArray(report->foreignFiles)},
        {"unsigned", toArray(report->unsignedEntries)},
        {"untrusted",
         [&] {
           llvm::json::Array untrusted;
           for (const auto &[key, why] : report->untrustedEntries)
             untrusted.push_back(
                 llvm::json::Object{{"key", key}, {"reason", why}});
           return untrusted;
         }()},
        {"signatures_required", report->signaturesRequired},
        {"clean", report->clean()},
        {"repaired", report->repaired}});
  } else {
    llvm::outs() << "Checked " << plural(report->checked, "artifact", "artifacts")
                 << "\n";
    for (const std::string &key : report->missingFiles)
      llvm::outs() << "missing file: " << key << "\n";
    for (const std::string &key : report->corruptFiles)
      llvm::outs() << "checksum mismatch: " << key << "\n";
    for (const std::string &path : report->orphanFiles)
      llvm::outs() << "file without an entry: " << path << "\n";
    for (const std::string &path : report->staleTemporaries)
      llvm::outs() << "stale temporary file: " << path << "\n";
    for (const std::string &path : report->foreignFiles)
      llvm::outs() << "not the cache's own (left alone): " << path << "\n";
    // Who vouches for the artifacts: a problem where signatures are
    // required of the local tier (require-signatures = all), else news.
    const char *signatureWord =
        report->signaturesRequired ? "" : " (not required here)";
    const TrustPolicy *trust = cache.getTrustPolicy();
    bool keysTrusted = trust && !trust->trustedKeys.empty();
    if (keysTrusted)
      for (const std::string &key : report->unsignedEntries)
        llvm::outs() << "unsigned" << signatureWord << ": " << key << "\n";
    for (const auto &[key, why] : report->untrustedEntries)
      llvm::outs() << "untrusted" << signatureWord << ": " << key << " ("
                   << why << ")\n";
    // (Said only to those who sign: without keys, nothing is signed.)
    if (!report->unsignedEntries.empty() && !keysTrusted && trust &&
        trust->signingKey)
      llvm::outs() << plural(report->unsignedEntries.size(),
                             "artifact is unsigned", "artifacts are unsigned")
                   << " ('kiln cache sign' signs them)\n";
    size_t owned = report->missingFiles.size() + report->corruptFiles.size() +
                   report->orphanFiles.size() +
                   report->staleTemporaries.size();
    size_t problems =
        owned + report->foreignFiles.size() +
        (report->signaturesRequired ? report->unsignedEntries.size() +
                                          report->untrustedEntries.size()
                                    : 0);
    if (report->clean())
      llvm::outs() << "The cache is consistent\n";
    else if (report->repaired)
      llvm::outs() << "Found " << plural(problems, "problem", "problems")
                   << "; repaired " << plural(owned, "of them", "of them")
                   << " (kiln removes only its own files)\n";
    else
      llvm::outs() << "Found " << plural(problems, "problem", "problems")
                   << (owned ? "; run 'kiln cache verify --repair' to remove "
                               "the cache's own"
                             : "")
                   << "\n";
  }
  if (!report->foreignFiles.empty())
    return ExitSomeFailed;
  return report->clean() || report->repaired ? ExitSuccess : ExitSomeFailed;
}

int runPrune(Cache &cache, const CacheOptions &options) {
  std::optional<uint64_t> maxBytes = parseByteSize(options.maxSize);
  if (!maxBytes) {
    llvm::errs() << "kiln cache prune: error: --max-size takes a size like "
                    "500M or 20G, not '"
                 << options.maxSize << "'\n";
    return ExitInputError;
  }
  llvm::Expected<EvictionReport> report = cache.evict(*maxBytes);
  if (!report)
    return reportError(report.takeError());
  if (options.json)
    printJson(llvm::json::Object{
        {"removed_entries", (int64_t)report->removedEntries},
        {"removed_bytes", (int64_t)report->removedBytes},
        {"remaining_bytes", (int64_t)report->remainingBytes}});
  else
    llvm::outs() << "Removed " << report->removedEntries << " entries ("
                 << formatBytes(report->removedBytes) << "); "
                 << formatBytes(report->remainingBytes) << " remain\n";
  return ExitSuccess;
}

int runRemove(TieredCache &tiers, const CacheOptions &options) {
  Cache &cache = tiers.getLocal();
  llvm::json::Array removed;
  unsigned missing = 0;
  std::optional<std::vector<CacheEntry>> entries;
  for (const std::string &entry : options.graphs) {
    std::string key = entry, what = entry;
    bool isHex = !entry.empty() && entry.size() <= 32 &&
                 llvm::all_of(entry, [](char c) {
                   return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
                 });
    if (!isHex || llvm::sys::fs::exists(entry)) {
      std::optional<GraphKey> graph = keyOneGraph(entry, options.keys);
      if (!graph)
        return ExitInputError;
      key = graph->parts.key().toHex();
    } else {
      // A unique prefix of a key, as git takes one, or a whole key: the
      // local entry names its graph.
      // The index is listed once, for all the keys given.
      if (!entries) {
        llvm::Expected<std::vector<CacheEntry>> listed = cache.list();
        if (!listed)
          return reportError(listed.takeError());
        entries = std::move(*listed);
      }
      std::vector<const CacheEntry *> matches;
      for (const CacheEntry &candidate : *entries)
        if (llvm::StringRef(candidate.key).starts_with(entry))
          matches.push_back(&candidate);
      if (matches.size() > 1) {
        llvm::errs() << "kiln cache rm: error: '" << entry << "' is the start "
                     << "of " << matches.size()
                     << " keys; give more digits\n";
        return ExitInputError;
      }
      // Named as the entry names its graph, not by the digits typed.
      if (matches.size() == 1) {
        key = matches[0]->key;
        what = !matches[0]->source.empty()      ? matches[0]->source
               : !matches[0]->graphName.empty() ? matches[0]->graphName
                                                : entry;
      }
    }
    llvm::Expected<bool> done = tiers.remove(key);
    if (!done)
      return reportError(done.takeError());
    if (!*done)
      ++missing;
    removed.push_back(
        llvm::json::Object{{"entry", entry}, {"key", key}, {"removed", *done}});
    if (!options.json)
      llvm::outs() << (*done ? "removed  " : "absent   ") << key << "  "
                   << escapeControlCharacters(what) << "\n";
  }
  if (options.json)
    printJson(llvm::json::Object{{"entries", std::move(removed)}});
  return missing ? ExitSomeFailed : ExitSuccess;
}

int runClear(Cache &cache, const CacheOptions &options) {
  llvm::Expected<CacheStats> before = cache.getStats();
  if (!before)
    return reportError(before.takeError());
  if (llvm::Error error = cache.clear())
    return reportError(std::move(error));
  if (options.json)
    printJson(llvm::json::Object{{"removed_entries", (int64_t)before->entries},
                                 {"removed_bytes", (int64_t)before->bytes}});
  else
    llvm::outs() << "Removed " << before->entries << " entries ("
                 << formatBytes(before->bytes) << ") from "
                 << cache.getDirectory() << "\n";
  return ExitSuccess;
}

/// `config [NAME[=VALUE] [VALUE]]`: every setting with where it comes
/// from, one, or a new value (max-size in the index, the others in the
/// cache directory's kiln.conf).
int runConfig(const std::string &directory, const CacheOptions &options) {
  std::string name = options.configName, value = options.configValue;
  bool setting = !value.empty();
  if (name.find('=') != std::string::npos) {
    if (setting) {
      llvm::errs() << "kiln cache config: error: give NAME=VALUE or NAME "
                      "VALUE, not both\n";
      return ExitInputError;
    }
    value = name.substr(name.find('=') + 1);
    name = name.substr(0, name.find('='));
    setting = true;
  }
  std::vector<std::string> names = {"max-size"};
  for (const SettingInfo &info : getKnownSettings())
    names.push_back(info.name);
  if (!name.empty() && !llvm::is_contained(names, name)) {
    llvm::errs() << "kiln cache config: error: unknown setting '" << name
                 << "'; the settings are: " << llvm::join(names, ", ") << "\n";
    return ExitInputError;
  }

  // max-size lives in the index, so that every process sharing the cache
  // keeps the same limit.
  if (name == "max-size") {
    Cache::OpenOptions openOptions;
    openOptions.readOnly = !setting;
    llvm::Expected<std::unique_ptr<Cache>> cache =
        Cache::open(directory, openOptions);
    if (!cache)
      return reportError(cache.takeError());
    if (setting) {
      std::optional<uint64_t> size;
      if (value != "none") {
        size = parseByteSize(value);
        if (!size) {
          llvm::errs() << "kiln cache config: error: max-size takes a size "
                          "like 500M or 20G, or none, not '"
                       << value << "'\n";
          return ExitInputError;
        }
      }
      if (llvm::Error error = (*cache)->setMaxSize(size))
        return reportError(std::move(error));
    }
    llvm::Expected<std::optional<uint64_t>> size = (*cache)->getMaxSize();
    if (!size)
      return reportError(size.takeError());
    if (options.json)
      printJson(llvm::json::Object{
          {"max_size_bytes", *size ? llvm::json::Value((int64_t)**size)
                                   : llvm::json::Value(nullptr)}});
    else
      llvm::outs() << "max-size "
                   << (*size ? formatBytes(**size) : std::string("none"))
                   << "\n";
    return ExitSuccess;
  }

  if (setting) {
    // A value is checked before it is written: a malformed remote would
    // otherwise break every later command.
    if (name == "remote-storage")
      for (llvm::StringRef text : llvm::split(value, ' '))
        if (!text.trim().empty())
          if (llvm::Expected<RemoteSpec> spec = parseRemoteSpec(text.trim());
              !spec) {
            llvm::errs() << "kiln cache config: error: "
                         << llvm::toString(spec.takeError()) << "\n";
            return ExitInputError;
          }
    if (std::error_code error = llvm::sys::fs::create_directories(directory))
      return reportError(llvm::createStringError(
          error, "cannot create " + directory + ": " + error.message()));
    if (llvm::Error error = Settings::writeToCacheFile(directory, name, value))
      return reportError(std::move(error));
  }

  llvm::Expected<Settings> settings = loadCommandSettings(directory, {});
  if (!settings)
    return reportError(settings.takeError());
  std::optional<uint64_t> maxSize;
  std::string maxSizeOrigin = "default";
  {
    Cache::OpenOptions openOptions;
    openOptions.readOnly = true;
    if (llvm::Expected<std::unique_ptr<Cache>> cache =
            Cache::open(directory, openOptions)) {
      if (llvm::Expected<std::optional<uint64_t>> size =
              (*cache)->getMaxSize()) {
        maxSize = *size;
        if (maxSize)
          maxSizeOrigin = "the cache's index";
      } else {
        llvm::consumeError(size.takeError());
      }
    } else {
      llvm::consumeError(cache.takeError());
    }
  }
  llvm::json::Object json;
  auto show = [&](llvm::StringRef shownName, const std::string &shown,
                  const std::string &origin) {
    if (!name.empty() && shownName != name)
      return;
    json[shownName] = llvm::json::Object{{"value", shown}, {"origin", origin}};
    if (!options.json)
      llvm::outs() << shownName << " = " << shown << "  (" << origin << ")\n";
  };
  show("max-size", maxSize ? formatBytes(*maxSize) : "none", maxSizeOrigin);
  for (const SettingInfo &info : getKnownSettings()) {
    std::optional<SettingValue> found = settings->get(info.name);
    std::string value = found ? found->value : "";
    // Passwords in remote URLs are not shown.
    if (llvm::StringRef(info.name) == "remote-storage") {
      std::vector<std::string> shown;
      for (const std::string &url : settings->getList(info.name))
        shown.push_back(hidePassword(url));
      value = llvm::join(shown, " ");
    }
    show(info.name, value, found ? found->origin : "default");
  }
  if (options.json)
    printJson(llvm::json::Object{{"cache_dir", directory},
                                 {"settings", std::move(json)}});
  return ExitSuccess;
}

/// The local entries a command names: every one with --all, else the
/// keys given; none, with an error printed, for a malformed key.
std::optional<std::vector<std::string>>
getLocalKeys(TieredCache &tiers, const CacheOptions &options,
             llvm::StringRef command) {
  std::vector<std::string> keys;
  if (options.all) {
    llvm::Expected<std::vector<CacheEntry>> entries = tiers.getLocal().list();
    if (!entries) {
      reportError(entries.takeError());
      return std::nullopt;
    }
    for (const CacheEntry &entry : *entries)
      keys.push_back(entry.key);
    return keys;
  }
  for (const std::string &key : options.graphs) {
    if (!isCacheKey(key)) {
      llvm::errs() << "kiln cache " << command << ": error: '" << key
                   << "' is not a cache key (32 lowercase hex digits; kiln "
                      "cache ls lists them)\n";
      return std::nullopt;
    }
    keys.push_back(key);
  }
  return keys;
}

/// `push [KEYS...|--all]`: local entries to every writable remote.
int runPush(TieredCache &tiers, const CacheOptions &options) {
  if (!tiers.getRemoteCount()) {
    llvm::errs() << "kiln cache push: error: no remote tier to push to "
                    "(--remote URL, KILN_REMOTE_STORAGE, or remote-storage "
                    "in kiln.conf)\n";
    return ExitInputError;
  }
  if (options.all == !options.graphs.empty()) {
    llvm::errs() << "kiln cache push: error: name the keys to push, or "
                    "--all\n";
    return ExitInputError;
  }
  bool writable = false;
  for (size_t i = 0; i < tiers.getRemoteCount(); ++i)
    writable |= !tiers.getRemote(i).isReadOnly();
  if (!writable) {
    llvm::errs() << "kiln cache push: error: every remote tier is read-only; "
                    "there is nothing to push to\n";
    return ExitInputError;
  }
  std::optional<std::vector<std::string>> keys =
      getLocalKeys(tiers, options, "push");
  if (!keys)
    return ExitInputError;
  unsigned pushed = 0, present = 0, problems = 0;
  llvm::json::Array rows;
  for (const std::string &key : *keys) {
    TieredCache::CopyResult result = tiers.push(key);
    std::string status = !result.problem.empty() ? "not pushed"
                         : result.copied          ? "pushed"
                                                  : "present";
    pushed += result.copied > 0;
    present += result.copied == 0 && result.problem.empty();
    problems += !result.problem.empty();
    rows.push_back(llvm::json::Object{
        {"key", key}, {"status", status}, {"problem", result.problem}});
    if (!options.json)
      llvm::outs() << llvm::format("%-10s", status.c_str()) << "  " << key
                   << (result.problem.empty() ? "" : "  (" + result.problem + ")")
                   << "\n";
  }
  if (options.json)
    printJson(llvm::json::Object{{"entries", std::move(rows)},
                                 {"pushed", pushed},
                                 {"present", present},
                                 {"problems", problems}});
  else
    llvm::outs() << "Pushed " << plural(pushed, "entry", "entries") << " ("
                 << present << " already in every remote, " << problems
                 << " not pushed)\n";
  return problems ? ExitSomeFailed : ExitSuccess;
}

/// `log KEY|GRAPH`: a recorded failure's compiler output, as text.
int runLog(TieredCache &tiers, const CacheOptions &options) {
  std::string key = options.graph;
  if (!isCacheKey(key)) {
    std::optional<GraphKey> graph = keyOneGraph(options.graph, options.keys);
    if (!graph)
      return ExitInputError;
    key = graph->parts.key().toHex();
  }
  llvm::Expected<LookupResult> found =
      tiers.getLocal().lookup(key, /*verify=*/false, /*count=*/false);
  if (!found)
    return reportError(found.takeError());
  if (found->status == LookupStatus::Hit) {
    llvm::errs() << "kiln cache log: " << key
                 << " compiled: the cache holds its artifact, no failure log\n";
    return ExitSomeFailed;
  }
  std::string text;
  if (found->status != LookupStatus::Failed) {
    std::optional<std::string> attempt = tiers.getLocal().readAttemptLog(key);
    if (!attempt) {
      llvm::errs() << "kiln cache log: " << key
                   << " has no recorded failure in the cache at "
                   << tiers.getDirectory() << "\n";
      return ExitSomeFailed;
    }
    llvm::errs() << "kiln cache log: " << key
                 << ": no failure is recorded; the log of its last attempt, "
                    "whose failure was the run's (a limit or a signal):\n";
    text = std::move(*attempt);
  } else {
    llvm::Expected<std::optional<StoredArtifact>> log =
        tiers.getLocal().readLog(key);
    if (!log)
      return reportError(log.takeError());
    if (!*log) {
      llvm::errs() << "kiln cache log: " << key << " has no log file\n";
      return ExitSomeFailed;
    }
    text = std::move((*log)->bytes);
  }
  // Text for a terminal: a compiler's escape codes are shown, not obeyed.
  llvm::outs() << escapeControlCharactersInLines(text);
  if (!llvm::StringRef(text).ends_with("\n"))
    llvm::outs() << "\n";
  return ExitSuccess;
}

/// `sign [KEYS...|--all]`: the signing key's signature on local entries
/// (and, with remote tiers, on their copies there).
int runSign(TieredCache &tiers, const CacheOptions &options) {
  const TrustPolicy *trust = tiers.getLocal().getTrustPolicy();
  if (!trust || !trust->signingKey) {
    llvm::errs() << "kiln cache sign: error: no signing key: --signing-key "
                    "FILE, KILN_SIGNING_KEY, or signing-key in kiln.conf "
                    "('kiln cache keygen' makes one)\n";
    return ExitInputError;
  }
  if (options.all == !options.graphs.empty()) {
    llvm::errs() << "kiln cache sign: error: name the keys to sign, or "
                    "--all\n";
    return ExitInputError;
  }
  std::optional<std::vector<std::string>> keys =
      getLocalKeys(tiers, options, "sign");
  if (!keys)
    return ExitInputError;
  unsigned signedCount = 0, already = 0, problems = 0;
  llvm::json::Array rows;
  for (const std::string &key : *keys) {
    bool signedNow = false;
    TieredCache::CopyResult result = tiers.sign(key, signedNow);
    std::string status = !result.problem.empty() && !signedNow ? "not signed"
                         : signedNow                           ? "signed"
                                                               : "signed before";
    signedCount += signedNow;
    already += !signedNow && result.problem.empty();
    problems += !result.problem.empty();
    rows.push_back(llvm::json::Object{
        {"key", key}, {"status", status}, {"problem", result.problem}});
    if (!options.json)
      llvm::outs() << llvm::format("%-13s", status.c_str()) << "  " << key
                   << (result.problem.empty() ? "" : "  (" + result.problem + ")")
                   << "\n";
  }
  if (options.json)
    printJson(llvm::json::Object{{"entries", std::move(rows)},
                                 {"signed", signedCount},
                                 {"signed_before", already},
                                 {"problems", problems},
                                 {"signer", trust->signingKey->getName()}});
  else
    llvm::outs() << "Signed " << plural(signedCount, "entry", "entries")
                 << " as " << trust->signingKey->getName() << " (" << already
                 << " signed before, " << problems << " with problems)\n";
  return problems ? ExitSomeFailed : ExitSuccess;
}

/// `keygen NAME -o SECRET`: a new key pair; the public key on stdout.
int runKeygen(const CacheOptions &options) {
  if (options.output.empty()) {
    llvm::errs() << "kiln cache keygen: error: say where the secret key goes: "
                    "-o FILE\n";
    return ExitInputError;
  }
  llvm::Expected<SigningKey> key =
      SigningKey::generate(options.keyName, options.output);
  if (!key) {
    llvm::errs() << "kiln cache keygen: error: "
                 << llvm::toString(key.takeError()) << "\n";
    return ExitInputError;
  }
  llvm::outs() << key->getPublicKeyText() << "\n";
  llvm::errs() << "kiln cache keygen: the secret key is in " << options.output
               << " (readable by you alone); trust the public key above on "
                  "every node: trusted-keys in kiln.conf, or "
                  "KILN_TRUSTED_KEYS\n";
  return ExitSuccess;
}

/// `pull [GRAPHS...|--all]`: remote entries into the local tier.
int runPull(TieredCache &tiers, const CacheOptions &options) {
  if (!tiers.getRemoteCount()) {
    llvm::errs() << "kiln cache pull: error: no remote tier to pull from "
                    "(--remote URL, KILN_REMOTE_STORAGE, or remote-storage "
                    "in kiln.conf)\n";
    return ExitInputError;
  }
  if (options.all == !options.graphs.empty()) {
    llvm::errs() << "kiln cache pull: error: name the graphs (or keys) to "
                    "pull, or --all\n";
    return ExitInputError;
  }
  std::vector<std::pair<std::string, std::string>> wanted; // key, what
  unsigned problems = 0;
  // Tiers that could not list theirs (already warned about): what they
  // hold may be missing here.
  std::vector<std::string> unlisted;
  if (options.all) {
    for (const std::string &key : tiers.listRemoteKeys(unlisted))
      wanted.push_back({key, key});
  } else {
    std::vector<std::string> paths;
    for (const std::string &item : options.graphs) {
      if (isCacheKey(item) && !llvm::sys::fs::exists(item))
        wanted.push_back({item, item});
      else
        paths.push_back(item);
    }
    if (!paths.empty()) {
      std::string canonical;
      if (!canonicalizeKeyOptions(options.keys, canonical))
        return ExitInputError;
      std::vector<GraphKey> keys = keyGraphsWithMemo(
          tiers.getLocal(), expandGraphPaths(paths), options.keys, canonical);
      reportGraphProblems(keys);
      for (const GraphKey &graph : keys) {
        if (!graph.ok) {
          ++problems;
          continue;
        }
        wanted.push_back({graph.parts.key().toHex(), graph.path});
      }
    }
  }
  unsigned pulled = 0, present = 0, missing = 0;
  llvm::json::Array rows;
  for (const auto &[key, what] : wanted) {
    TieredCache::CopyResult result = tiers.pull(key);
    std::string status = result.copied    ? "pulled"
                         : result.present ? "present"
                                          : "missing";
    pulled += result.copied;
    present += result.present;
    missing += !result.copied && !result.present;
    rows.push_back(llvm::json::Object{{"key", key},
                                      {"graph", what},
                                      {"status", status},
                                      {"problem", result.problem}});
    if (!options.json)
      llvm::outs() << llvm::format("%-8s", status.c_str()) << "  " << key
                   << (what == key ? "" : "  " + what)
                   << (result.problem.empty() ? "" : "  (" + result.problem + ")")
                   << "\n";
  }
  if (options.json)
    printJson(llvm::json::Object{{"entries", std::move(rows)},
                                 {"pulled", pulled},
                                 {"present", present},
                                 {"missing", missing}});
  else
    llvm::outs() << "Pulled " << plural(pulled, "entry", "entries") << " ("
                 << present << " already local, " << missing
                 << " in no remote)"
                 << (unlisted.empty()
                         ? ""
                         : "; not listed: " + llvm::join(unlisted, ", "))
                 << "\n";
  if (problems)
    return ExitInputError;
  return missing || !unlisted.empty() ? ExitSomeFailed : ExitSuccess;
}

int runRebuildIndex(const std::string &directory, const CacheOptions &options) {
  llvm::Expected<RebuildReport> report = Cache::rebuildIndex(directory);
  if (!report)
    return reportError(report.takeError());
  if (options.json) {
    printJson(llvm::json::Object{
        {"recovered_artifacts", (int64_t)report->recoveredArtifacts},
        {"recovered_failures", (int64_t)report->recoveredFailures},
        {"moved_aside", toArray(report->movedAside)},
        {"unreadable", toArray(report->unreadable)}});
  } else {
    for (const std::string &path : report->movedAside)
      llvm::outs() << "moved the old index aside: " << path << "\n";
    for (const std::string &problem : report->unreadable)
      llvm::outs() << "not recovered: " << problem << "\n";
    llvm::outs() << "Rebuilt the index: "
                 << plural(report->recoveredArtifacts, "artifact", "artifacts")
                 << " and "
                 << plural(report->recoveredFailures, "failed compilation",
                           "failed compilations")
                 << " recovered\n";
  }
  return report->unreadable.empty() ? ExitSuccess : ExitSomeFailed;
}

} // namespace

int kiln::runCache(const CacheOptions &givenOptions) {
  CacheOptions options = givenOptions;
  const std::string &action = options.action;
  llvm::Expected<std::string> resolved = resolveCacheDirectory(options.cacheDir);
  if (!resolved)
    return reportError(resolved.takeError());
  std::string directory = *resolved;
  if (action == "config")
    return runConfig(directory, options);
  if (action == "keygen")
    return runKeygen(options);
  llvm::Expected<Settings> settings =
      loadCommandSettings(directory, {options.cacheDir, options.remotes, options.signatures});
  if (!settings)
    return reportError(settings.takeError());
  applyKeySettings(*settings, options.keys);
  if (!resolveCompilerIdentity(options.keys))
    return ExitInputError;
  if (action == "verify" && options.rebuildIndex) {
    if (options.repair) {
      llvm::errs() << "kiln cache verify: error: --rebuild-index and --repair "
                      "are separate steps; rebuild first, then verify\n";
      return ExitInputError;
    }
    return runRebuildIndex(directory, options);
  }
  // Commands that only read open the cache read-only: they never create
  // one (a mistyped --cache-dir is an error, not an empty cache) and work
  // on a full disk or a read-only file system. A cache this user cannot
  // write opens read-only by itself for the others too.
  Cache::OpenOptions openOptions;
  openOptions.readOnly = action == "ls" || action == "log" ||
                         (action == "stats" && !options.zero) ||
                         action == "explain" ||
                         (action == "verify" && !options.repair);
  // Lookups work where nothing can be written (a full disk, a read-only
  // mount): they count no hits there.
  openOptions.readOnlyIfUnwritable = action == "check" || action == "get";
  // Only the commands that move entries talk to the remote tiers; the
  // others are about the local one.
  bool usesRemotes = action == "check" || action == "put" ||
                     action == "get" || action == "rm" || action == "push" ||
                     action == "pull" || action == "sign" ||
                     action == "explain";
  if (!usesRemotes)
    settings->setFromOption("remote-storage", "", "");
  llvm::Expected<std::unique_ptr<TieredCache>> tiers =
      openTieredCache(directory, *settings, openOptions, "kiln cache");
  if (!tiers)
    return reportError(tiers.takeError());
  Cache &cache = (*tiers)->getLocal();
  if (!cache.getReadOnlyReason().empty())
    llvm::errs() << "kiln cache: warning: the cache at " << directory
                 << " cannot be written (" << cache.getReadOnlyReason()
                 << "); looking up without counting hits\n";
  if (action == "check")
    return runCheck(**tiers, options);
  if (action == "put")
    return runPut(**tiers, options);
  if (action == "get")
    return runGet(**tiers, options);
  if (action == "push")
    return runPush(**tiers, options);
  if (action == "pull")
    return runPull(**tiers, options);
  if (action == "sign")
    return runSign(**tiers, options);
  if (action == "log")
    return runLog(**tiers, options);
  if (action == "ls")
    return runList(cache, options);
  if (action == "stats")
    return runStats(cache, options);
  if (action == "explain") {
    // A directory: each of its graphs, as check takes them.
    if (!llvm::sys::fs::is_directory(options.graph))
      return runExplain(**tiers, options);
    int status = ExitSuccess;
    for (const std::string &path : expandGraphPaths({options.graph})) {
      CacheOptions one = options;
      one.graph = path;
      status = std::max(status, runExplain(**tiers, one));
    }
    return status;
  }
  if (action == "verify")
    return runVerify(cache, options);
  if (action == "prune")
    return runPrune(cache, options);
  if (action == "rm")
    return runRemove(**tiers, options);
  if (action == "clear")
    return runClear(cache, options);
  llvm::errs() << "kiln cache: error: unknown action '" << action << "'\n";
  return ExitInputError;
}

std::string kiln::formatCount(uint64_t count, llvm::StringRef one,
                              llvm::StringRef many) {
  return std::to_string(count) + " " + (count == 1 ? one : many).str();
}

std::optional<uint64_t> kiln::parseByteSize(llvm::StringRef text) {
  text = text.trim();
  // 4G, 4GiB: 4 x 2^30 bytes (as Slurm's --mem and ulimit count); 4GB:
  // 4 x 10^9; any case; a bare number is bytes.
  static const std::pair<const char *, double> kUnits[] = {
      {"kib", 0x1p10}, {"mib", 0x1p20}, {"gib", 0x1p30}, {"tib", 0x1p40},
      {"kb", 1e3},     {"mb", 1e6},     {"gb", 1e9},     {"tb", 1e12},
      {"k", 0x1p10},   {"m", 0x1p20},   {"g", 0x1p30},   {"t", 0x1p40},
      {"b", 1}};
  double multiplier = 1;
  std::string lower = text.lower();
  for (const auto &[unit, factor] : kUnits)
    if (llvm::StringRef(lower).ends_with(unit)) {
      multiplier = factor;
      text = text.drop_back(std::strlen(unit)).rtrim();
      break;
    }
  double value;
  if (text.empty() || text.getAsDouble(value) || !(value >= 0) ||
      value * multiplier >= 0x1p64)
    return std::nullopt;
  return (uint64_t)(value * multiplier);
}
