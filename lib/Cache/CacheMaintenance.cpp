//===- CacheMaintenance.cpp - eviction, verification, repair -----*- C++ -*-===//
//
// This file implements what keeps the local tier in shape: LRU eviction to
// a size limit, verification of every artifact against its checksum (and
// repair), removal of entries, and rebuilding a lost index from the
// headers of the artifact files.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Cache.h"
#include "kiln/Cache/Signing.h"

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

Expected<EvictionReport> Cache::evict(uint64_t maxBytes) {
  // Counts and last uses made here so far are part of what this reads.
  if (Error error = flushCounts())
    return std::move(error);
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  EvictionReport report;
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return std::move(error);
  uint64_t bytes = 0;
  {
    sqlite::Statement total(db, "SELECT COALESCE(SUM(size), 0) FROM entries");
    if (Error error = total.takePrepareError())
      return std::move(error);
    Expected<bool> row = total.step();
    if (!row)
      return row.takeError();
    bytes = total.getInt(0);
  }

  struct Candidate {
    std::string key;
    uint64_t size;
    bool ok;
  };
  std::vector<Candidate> victims;
  {
    sqlite::Statement oldest(
        db, "SELECT e.key, e.size, e.status, l.host, l.pid, l.expires_ms "
            "FROM entries e LEFT JOIN leases l ON l.key = e.key "
            "ORDER BY e.last_used_ms ASC, e.key ASC");
    if (Error error = oldest.takePrepareError())
      return std::move(error);
    int64_t now = nowMs();
    uint64_t remaining = bytes;
    while (remaining > maxBytes) {
      Expected<bool> next = oldest.step();
      if (!next)
        return next.takeError();
      if (!*next)
        break;
      // Never evict what someone is compiling right now.
      if (!oldest.getText(3).empty() &&
          isLeaseLive(oldest.getText(3), oldest.getInt(4), oldest.getInt(5),
                      now))
        continue;
      Candidate victim{oldest.getText(0), (uint64_t)oldest.getInt(1),
                       oldest.getText(2) == "ok"};
      remaining -= std::min(remaining, victim.size);
      victims.push_back(std::move(victim));
    }
  }
  std::vector<RemovedEntry> removed;
  for (const Candidate &victim : victims) {
    if (Error error = deleteRow(db, victim.key))
      return std::move(error);
    removed.push_back({victim.key, victim.ok});
    ++report.removedEntries;
    report.removedBytes += victim.size;
  }
  if (Error error = transaction.commit())
    return std::move(error);
  if (Error error = unlinkRemovedFiles(db, *files, removed))
    return std::move(error);
  report.remainingBytes = bytes - std::min(bytes, report.removedBytes);
  return report;
}

Expected<VerifyReport> Cache::verify(bool repair) {
  // Counts and last uses made here so far are part of what this reads.
  if (Error error = flushCounts())
    return std::move(error);
  if (repair && readOnly)
    return makeError("the cache at " + directory +
                     " is read-only and cannot be repaired");
  VerifyReport report;
  report.signaturesRequired =
      trust && trust->requiresSignature(/*fromRemote=*/false);
  // With --repair everything happens under the write lock, so that no
  // publish is half way between its rename and its row while we look.
  std::optional<sqlite::WriteTransaction> transaction;
  if (repair) {
    transaction.emplace(db);
    if (Error error = transaction->begin())
      return std::move(error);
  }
  llvm::StringSet<> known;
  std::vector<std::string> badKeys;
  {
    sqlite::Statement all(db,
                          "SELECT key, status, size, checksum FROM entries");
    if (Error error = all.takePrepareError())
      return std::move(error);
    if (Error error = all.forEachRow([&]() -> Error {
          std::string key = all.getText(0);
          if (all.getText(1) != "ok") {
            known.insert(key + ".log");
            return Error::success();
          }
          known.insert(key);
          ++report.checked;
          Expected<std::optional<StoredArtifact>> stored = readArtifact(key);
          if (stored && !*stored) {
            report.missingFiles.push_back(key);
            badKeys.push_back(key);
            return Error::success();
          }
          std::optional<std::pair<std::string, uint64_t>> sum;
          if (stored)
            sum = checksumOf((*stored)->bytes);
          else
            llvm::consumeError(stored.takeError());
          if (!sum || sum->first != all.getText(3) ||
              sum->second != (uint64_t)all.getInt(2)) {
            report.corruptFiles.push_back(key);
            badKeys.push_back(key);
            return Error::success();
          }
          // Whole and the key's: who vouches for it (reported; the
          // entries stay, since `kiln cache sign` may sign them).
          const ArtifactHeader &header = (*stored)->header;
          if (header.signatures.empty()) {
            report.unsignedEntries.push_back(key);
          } else if (trust && !trust->trustedKeys.empty()) {
            SignatureCheck check = checkSignatures(header, (*stored)->bytes,
                                                   trust->trustedKeys);
            if (check.verdict != SignatureVerdict::Trusted)
              report.untrustedEntries.push_back({key, check.reason});
          }
          return Error::success();
        }))
      return std::move(error);
  }
  // Files without rows, and whatever is not the cache's own (reported,
  // never removed: kiln deletes only files named by its keys).
  Expected<CacheDirectory::Contents> contents =
      files->list(kStaleStagedAge);
  if (!contents)
    return contents.takeError();
  std::vector<std::string> orphanObjects, orphanLogs;
  for (const std::string &key : contents->objectKeys)
    if (!known.contains(key)) {
      report.orphanFiles.push_back(getObjectPath(key));
      orphanObjects.push_back(key);
    }
  for (const std::string &key : contents->logKeys)
    if (!known.contains(key + ".log")) {
      report.orphanFiles.push_back(getLogPath(key));
      orphanLogs.push_back(key);
    }
  for (const std::string &relative : contents->foreign)
    report.foreignFiles.push_back(files->describe(relative));
  // Staging files older than an hour belong to writers that died.
  for (const std::string &name : contents->staleStaged)
    report.staleTemporaries.push_back(files->describe("tmp/" + name));
  if (!repair)
    return report;

  std::vector<RemovedEntry> removed;
  for (const std::string &key : badKeys) {
    if (Error error = deleteRow(db, key))
      return std::move(error);
    removed.push_back({key, true});
  }
  for (const std::string &key : orphanObjects)
    if (Error error = files->removeObject(key))
      return std::move(error);
  for (const std::string &key : orphanLogs)
    if (Error error = files->removeLog(key))
      return std::move(error);
  for (const std::string &name : contents->staleStaged)
    files->dropStaged(name);
  if (Error error = transaction->commit())
    return std::move(error);
  if (Error error = unlinkRemovedFiles(db, *files, removed))
    return std::move(error);
  report.repaired = true;
  return report;
}

Expected<std::optional<uint64_t>> Cache::getMaxSize() {
  // Prepared once: every publish reads it.
  Expected<sqlite::Statement *> select =
      prepared("SELECT value FROM meta WHERE name = 'max_size'");
  if (!select)
    return select.takeError();
  llvm::scope_exit done([&] { (*select)->reset(); });
  Expected<bool> row = (*select)->step();
  if (!row)
    return row.takeError();
  uint64_t bytes;
  if (!*row || StringRef((*select)->getText(0)).getAsInteger(10, bytes))
    return std::optional<uint64_t>();
  return std::optional<uint64_t>(bytes);
}

Error Cache::setMaxSize(std::optional<uint64_t> bytes) {
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  if (!bytes)
    return sqlite::execute(db, "DELETE FROM meta WHERE name = 'max_size'");
  sqlite::Statement set(db, "INSERT OR REPLACE INTO meta (name, value) "
                            "VALUES ('max_size', ?1)");
  if (Error error = set.takePrepareError())
    return error;
  set.bind(1, std::to_string(*bytes));
  if (Error error = set.run())
    return error;
  // The limit holds from now on.
  Expected<EvictionReport> evicted = evict(*bytes);
  return evicted ? Error::success() : evicted.takeError();
}


Expected<bool> Cache::remove(StringRef key) {
  // Counts and last uses made here so far are part of what this reads.
  if (Error error = flushCounts())
    return std::move(error);
  if (Error error = checkKey(key))
    return std::move(error);
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return std::move(error);
  bool isOk = false;
  {
    Expected<std::optional<std::string>> status = readEntryStatus(db, key);
    if (!status)
      return status.takeError();
    if (!*status)
      return false;
    isOk = **status == "ok";
  }
  if (Error error = deleteRow(db, key))
    return std::move(error);
  if (Error error = transaction.commit())
    return std::move(error);
  if (Error error = unlinkRemovedFiles(db, *files, {{key.str(), isOk}}))
    return std::move(error);
  return true;
}

Error Cache::clear() {
  // Counts and last uses made here so far are part of what this reads.
  if (Error error = flushCounts())
    return error;
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return error;
  std::vector<std::pair<std::string, bool>> keys;
  {
    sqlite::Statement all(db, "SELECT key, status FROM entries");
    if (Error error = all.takePrepareError())
      return error;
    if (Error error = all.forEachRow([&]() -> Error {
          keys.emplace_back(all.getText(0), all.getText(1) == "ok");
          return Error::success();
        }))
      return std::move(error);
  }
  std::vector<RemovedEntry> removed;
  for (const auto &[key, ok] : keys) {
    if (Error error = deleteRow(db, key))
      return error;
    removed.push_back({key, ok});
  }
  if (Error error = sqlite::execute(db, "DELETE FROM stats"))
    return error;
  if (Error error = transaction.commit())
    return error;
  return unlinkRemovedFiles(db, *files, removed);
}

Expected<RebuildReport> Cache::rebuildIndex(StringRef directory) {
  bool writable = false;
  Expected<std::unique_ptr<CacheDirectory>> files =
      CacheDirectory::open(directory, /*create=*/false, writable);
  if (!files)
    return files.takeError();
  if (!writable)
    return makeError("the cache at " + directory +
                     " is read-only; its index cannot be rebuilt");
  RebuildReport report;
  // The old index is kept beside, for inspection, never deleted.
  Expected<std::vector<std::string>> moved =
      (*files)->moveIndexAside(std::to_string(nowMs()));
  if (!moved)
    return moved.takeError();
  report.movedAside = std::move(*moved);
  Expected<CacheDirectory::Contents> contents =
      (*files)->list(kStaleStagedAge);
  if (!contents)
    return contents.takeError();

  OpenOptions options;
  options.newIndexOverArtifacts = true;
  Expected<std::unique_ptr<Cache>> cache = Cache::open(directory, options);
  if (!cache)
    return cache.takeError();
  Cache &fresh = **cache;
  sqlite::WriteTransaction transaction(fresh.db);
  if (Error error = transaction.begin())
    return std::move(error);
  auto recover = [&](StringRef key, bool isLog) -> Error {
    Expected<std::optional<StoredArtifact>> stored =
        isLog ? fresh.readLog(key) : fresh.readArtifact(key);
    std::string shown = isLog ? fresh.getLogPath(key) : fresh.getObjectPath(key);
    if (!stored || !*stored) {
      report.unreadable.push_back(
          shown + (stored ? std::string(": gone") :
                            ": " + llvm::toString(stored.takeError())));
      return Error::success();
    }
    const ArtifactHeader &header = (*stored)->header;
    std::string checksum = Hash128::of((*stored)->bytes).toHex();
    if (header.parts.key().toHex() != key || header.ok == isLog ||
        checksum != header.checksum) {
      report.unreadable.push_back(
          shown + ": its header does not match its name or its bytes");
      return Error::success();
    }
    if (Error error = fresh.insertEntry(header))
      return error;
    ++(header.ok ? report.recoveredArtifacts : report.recoveredFailures);
    return Error::success();
  };
  for (const std::string &key : contents->objectKeys)
    if (Error error = recover(key, /*isLog=*/false))
      return std::move(error);
  for (const std::string &key : contents->logKeys)
    if (Error error = recover(key, /*isLog=*/true))
      return std::move(error);
  if (Error error = transaction.commit())
    return std::move(error);
  return report;
}

