//===- CacheQueries.cpp - reading entries and memos --------------*- C++ -*-===//
//
// This file implements the local tier's read queries: listing entries,
// finding those of a signature (what explains a miss), and the memo of
// signatures that `kiln cache check` keeps per graph file.
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

/// The entries that `select` (bound already) returns, with their paths.
static Expected<std::vector<CacheEntry>>
readEntries(sqlite::Statement &select, const Cache &cache) {
  std::vector<CacheEntry> entries;
  if (Error error = select.forEachRow([&]() -> Error {
        CacheEntry entry = readEntry(select);
        entry.path = entry.ok ? cache.getObjectPath(entry.key)
                              : cache.getLogPath(entry.key);
        entries.push_back(std::move(entry));
        return Error::success();
      }))
    return std::move(error);
  return entries;
}

static Expected<std::vector<CacheEntry>> selectEntries(sqlite3 *db,
                                                       const std::string &sql,
                                                       StringRef parameter,
                                                       const Cache &cache) {
  sqlite::Statement select(db, sql);
  if (Error error = select.takePrepareError())
    return std::move(error);
  if (!parameter.empty())
    select.bind(1, parameter);
  return readEntries(select, cache);
}

Expected<std::vector<CacheEntry>> Cache::list() {
  // Counts and last uses made here so far are part of what this reads.
  // Reading never fails for want of writing: counts that cannot be
  // written now (a full disk) stay pending.
  llvm::consumeError(flushCounts());
  return selectEntries(db,
                       (llvm::Twine("SELECT ") + kEntryColumns +
                        " FROM entries ORDER BY last_used_ms DESC, key ASC")
                           .str(),
                       "", *this);
}

Expected<std::vector<CacheEntry>>
Cache::findEntriesWithSignature(StringRef signature) {
  // Not flushed first: the order by last use may be a batch behind, which
  // an explanation does not mind, and a check with many misses must not
  // write once per miss. Prepared once: it runs once per miss.
  static const std::string sql =
      (llvm::Twine("SELECT ") + kEntryColumns +
       " FROM entries WHERE signature = ?1 ORDER BY last_used_ms DESC")
          .str();
  Expected<sqlite::Statement *> select = prepared(sql);
  if (!select)
    return select.takeError();
  llvm::scope_exit done([&] { (*select)->reset(); });
  (*select)->bind(1, signature);
  return readEntries(**select, *this);
}

Expected<std::map<std::string, SignatureMemo>>
Cache::findSignatureMemos(llvm::ArrayRef<std::string> contents,
                          bool withSketches) {
  std::map<std::string, SignatureMemo> found;
  sqlite::Statement select(
      db, withSketches
              ? "SELECT signature, graph_name, elided_constants, sketch FROM "
                "graph_memo WHERE content = ?1 AND compiler = ?2"
              : "SELECT signature, graph_name, elided_constants FROM "
                "graph_memo WHERE content = ?1 AND compiler = ?2");
  if (Error error = select.takePrepareError())
    return std::move(error);
  std::string compiler = getCompilerIdentity();
  for (const std::string &content : contents) {
    select.reset();
    select.bind(1, content).bind(2, compiler);
    Expected<bool> row = select.step();
    if (!row)
      return row.takeError();
    if (!*row)
      continue;
    std::optional<Hash128> signature = Hash128::fromHex(select.getText(0));
    if (!signature)
      continue; // not one of kiln's rows: keyed again, as if absent
    SignatureMemo memo;
    memo.content = content;
    memo.signature = *signature;
    memo.graphName = select.getText(1);
    memo.elidedConstants = select.getInt(2);
    if (withSketches)
      memo.sketch = select.getWords(3);
    found.emplace(content, std::move(memo));
  }
  return found;
}

Error Cache::storeSignatureMemos(llvm::ArrayRef<SignatureMemo> memos) {
  if (readOnly || memos.empty())
    return Error::success();
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return error;
  {
    sqlite::Statement insert(
        db, "INSERT OR REPLACE INTO graph_memo (content, compiler, signature, "
            "graph_name, elided_constants, sketch, used_ms) VALUES (?1, ?2, "
            "?3, ?4, ?5, ?6, ?7)");
    if (Error error = insert.takePrepareError())
      return error;
    std::string compiler = getCompilerIdentity();
    int64_t now = nowMs();
    for (const SignatureMemo &memo : memos) {
      insert.reset();
      insert.bind(1, memo.content)
          .bind(2, compiler)
          .bind(3, memo.signature.toHex())
          .bind(4, memo.graphName)
          .bind(5, (int64_t)memo.elidedConstants)
          .bindBlob(6, memo.sketch)
          .bind(7, now);
      if (Error error = insert.run())
        return error;
    }
    // Another build's memos are never read again; the oldest go past the
    // bound.
    sqlite::Statement trim(
        db, "DELETE FROM graph_memo WHERE compiler != ?1 OR content IN "
            "(SELECT content FROM graph_memo ORDER BY used_ms DESC LIMIT -1 "
            "OFFSET ?2)");
    if (Error error = trim.takePrepareError())
      return error;
    trim.bind(1, compiler).bind(2, (int64_t)kMaxSignatureMemos);
    if (Error error = trim.run())
      return error;
  }
  return transaction.commit();
}

Expected<std::vector<CacheEntry>> Cache::listRecent(unsigned limit) {
  // Counts and last uses made here so far are part of what this reads.
  // Reading never fails for want of writing: counts that cannot be
  // written now (a full disk) stay pending.
  llvm::consumeError(flushCounts());
  return selectEntries(db,
                       (llvm::Twine("SELECT ") + kEntryColumns +
                        " FROM entries ORDER BY last_used_ms DESC LIMIT " +
                        llvm::Twine(limit))
                           .str(),
                       "", *this);
}

Expected<std::vector<CacheEntry>>
Cache::findExplanationCandidates(StringRef signature) {
  Expected<std::vector<CacheEntry>> same = findEntriesWithSignature(signature);
  if (!same || !same->empty())
    return same;
  // Bounded so that explaining a miss stays fast in a big cache.
  return listRecent(1000);
}

