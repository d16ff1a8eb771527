//===- CacheStatistics.cpp - hits, misses and what they saved ----*- C++ -*-===//
//
// This file implements the local tier's counters: hits and misses counted
// in memory by lookups and written in batches (a lookup takes no write
// lock), misses by reason, counts per remote tier, and the statistics that
// `kiln cache stats` prints.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Cache.h"

#include "CacheDirectory.h"
#include "CacheInternal.h"
#include "Sqlite.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <cerrno>
#include <csignal>
#include <unistd.h>

using namespace kiln;
using namespace kiln::cache_detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

/// Adds `counts` to the `stats` counters (zero counts skipped); the caller
/// holds the write lock.
static Error addToCounters(sqlite3 *db,
                           const std::map<std::string, uint64_t> &counts) {
  sqlite::Statement counter(
      db, "INSERT INTO stats (name, value) VALUES (?1, ?2) "
          "ON CONFLICT (name) DO UPDATE SET value = value + ?2");
  if (Error error = counter.takePrepareError())
    return error;
  for (const auto &[name, value] : counts) {
    if (!value)
      continue;
    counter.reset();
    counter.bind(1, name).bind(2, (int64_t)value);
    if (Error error = counter.run())
      return error;
  }
  return Error::success();
}

Error Cache::bumpCounter(StringRef name) {
  sqlite::Statement statement(
      db, "INSERT INTO stats (name, value) VALUES (?1, 1) "
          "ON CONFLICT (name) DO UPDATE SET value = value + 1");
  if (Error error = statement.takePrepareError())
    return error;
  statement.bind(1, name);
  return statement.run();
}


void Cache::maybeFlushCounts() {
  int64_t now = nowMs();
  if (!pendingSinceMs)
    pendingSinceMs = now;
  // Often enough that another process's stats and LRU order are at most a
  // second or a few hundred lookups behind.
  if (pendingHits + pendingMisses < kFlushEvery &&
      now - pendingSinceMs < kFlushAfterMs)
    return;
  // Counting never fails a lookup: what cannot be written now is written
  // with the next batch.
  llvm::consumeError(flushCounts());
}

void Cache::countMissReason(StringRef reason) {
  if (readOnly)
    return;
  ++pendingMissReasons[reason.str()];
  maybeFlushCounts();
}

Error Cache::flushCounts() {
  if (readOnly ||
      (pendingHits == 0 && pendingMisses == 0 && pendingMissReasons.empty()))
    return Error::success();
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return error;
  {
    sqlite::Statement touch(
        db, "UPDATE entries SET hits = hits + ?2, "
            "last_used_ms = MAX(last_used_ms, ?3) WHERE key = ?1");
    if (Error error = touch.takePrepareError())
      return error;
    for (const auto &[key, use] : pendingUses) {
      touch.reset();
      touch.bind(1, key).bind(2, use.hits).bind(3, use.lastUsedMs);
      if (Error error = touch.run())
        return error;
    }
    std::map<std::string, uint64_t> counts = {{"hits", pendingHits},
                                              {"misses", pendingMisses}};
    for (const auto &[reason, value] : pendingMissReasons)
      counts["misses." + reason] += value;
    if (Error error = addToCounters(db, counts))
      return error;
  }
  if (Error error = transaction.commit())
    return error;
  pendingUses.clear();
  pendingMissReasons.clear();
  pendingHits = pendingMisses = 0;
  pendingSinceMs = 0;
  return Error::success();
}


Error Cache::zeroStats() {
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  pendingUses.clear();
  pendingMissReasons.clear();
  pendingHits = pendingMisses = 0;
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return error;
  if (Error error = sqlite::execute(db, "DELETE FROM stats;"
                                        "UPDATE entries SET hits = 0;"))
    return error;
  return transaction.commit();
}

Expected<CacheStats> Cache::getStats() {
  // Counts and last uses made here so far are part of what this reads.
  // Reading never fails for want of writing: counts that cannot be
  // written now (a full disk) stay pending.
  llvm::consumeError(flushCounts());
  CacheStats stats;
  // What writers that died left in tmp/ (the next write removes it).
  if (Expected<CacheDirectory::Contents> contents =
          files->list(kStaleStagedAge))
    stats.staleTemporaries = contents->staleStaged.size();
  else
    llvm::consumeError(contents.takeError());
  sqlite::Statement totals(
      db, "SELECT COUNT(*), COALESCE(SUM(status = 'failed'), 0), "
          "COALESCE(SUM(size), 0), COALESCE(SUM(compile_seconds * hits), 0) "
          "FROM entries");
  if (Error error = totals.takePrepareError())
    return std::move(error);
  Expected<bool> row = totals.step();
  if (!row)
    return row.takeError();
  stats.entries = totals.getInt(0);
  stats.failedEntries = totals.getInt(1);
  stats.bytes = totals.getInt(2);
  stats.compileSecondsSaved = totals.getDouble(3);

  sqlite::Statement counters(db, "SELECT name, value FROM stats");
  if (Error error = counters.takePrepareError())
    return std::move(error);
  if (Error error = counters.forEachRow([&]() -> Error {
        std::string name = counters.getText(0);
        uint64_t value = counters.getInt(1);
        if (name == "hits")
          stats.hits = value;
        else if (name == "misses")
          stats.misses = value;
        else if (name == "corrupt")
          stats.corrupt = value;
        else if (llvm::StringRef(name).starts_with("misses."))
          stats.missesByReason[name.substr(7)] = value;
        else if (llvm::StringRef(name).starts_with("tier.")) {
          // tier.<name>.<counter>: the tier's name may hold dots, the
          // counter's does not.
          auto [tier, counter] = llvm::StringRef(name).drop_front(5).rsplit('.');
          stats.tiers[tier.str()][counter.str()] = value;
        }
        return Error::success();
      }))
    return std::move(error);
  sqlite::Statement leases(db, "SELECT host, pid, expires_ms FROM leases");
  if (Error error = leases.takePrepareError())
    return std::move(error);
  int64_t now = nowMs();
  if (Error error = leases.forEachRow([&]() -> Error {
        if (isLeaseLive(leases.getText(0), leases.getInt(1), leases.getInt(2),
                        now))
          ++stats.activeLeases;
        return Error::success();
      }))
    return std::move(error);
  return stats;
}


Error Cache::addCounters(const std::map<std::string, uint64_t> &counts) {
  if (readOnly || counts.empty())
    return Error::success();
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return error;
  if (Error error = addToCounters(db, counts))
    return error;
  return transaction.commit();
}
