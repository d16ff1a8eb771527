//===- Cache.cpp - the local tier: open, look up, publish -------*- C++ -*-===//
//
// This file implements the local tier's core: opening the directory and its
// index, looking keys up, and publishing artifacts and failures (leases,
// statistics, maintenance and queries live in the Cache*.cpp beside it,
// sharing CacheInternal.h). The rule that keeps it consistent under
// concurrency and crashes: every change to objects/ and logs/ (rename into
// place, unlink) happens while this process holds the index's write lock
// (inside BEGIN IMMEDIATE), a row is committed only after its file is
// durable, and a file is unlinked only after the deletion of its row has
// committed. Bytes are written and fsynced in tmp/ before the lock is taken,
// so the lock is held only for a rename, a directory fsync and a row.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Cache.h"

#include "CacheDirectory.h"
#include "CacheInternal.h"
#include "kiln/Cache/ArtifactHeader.h"
#include "kiln/Cache/Signing.h"
#include "Sqlite.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <xxhash.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <random>
#include <unistd.h>

using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using namespace kiln::cache_detail;

/// The schema, compiled in from cache/schema.sql.
#include "SchemaSql.inc"

namespace kiln {
namespace cache_detail {

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// XXH3-128 and size of an artifact's bytes.
std::pair<std::string, uint64_t> checksumOf(StringRef bytes) {
  return std::make_pair(Hash128::of(bytes).toHex(), (uint64_t)bytes.size());
}

Error checkKey(StringRef key) {
  if (!isCacheKey(key))
    return makeError("'" + key +
                     "' is not a cache key (32 lowercase hex "
                     "digits)");
  return Error::success();
}

const char *const kEntryColumns =
    "key, status, size, checksum, compile_seconds, created_ms, last_used_ms, "
    "hits, signature, target_triple, cpu, cpu_features, options, compiler, "
    "format_version, source, sketch, graph_name";


/// Reads the entry row at the statement's current position.
CacheEntry readEntry(const sqlite::Statement &row) {
  CacheEntry entry;
  entry.key = row.getText(0);
  entry.ok = row.getText(1) == "ok";
  entry.size = row.getInt(2);
  entry.checksum = row.getText(3);
  entry.compileSeconds = row.getDouble(4);
  entry.createdMs = row.getInt(5);
  entry.lastUsedMs = row.getInt(6);
  entry.hits = row.getInt(7);
  if (std::optional<Hash128> signature = Hash128::fromHex(row.getText(8)))
    entry.parts.signature = *signature;
  entry.parts.targetTriple = row.getText(9);
  entry.parts.cpuName = row.getText(10);
  entry.parts.cpuFeatures = row.getText(11);
  entry.parts.options = row.getText(12);
  entry.parts.compiler = row.getText(13);
  entry.parts.formatVersion = row.getInt(14);
  entry.source = row.getText(15);
  entry.sketch = row.getWords(16);
  entry.graphName = row.getText(17);
  return entry;
}





/// Deletes the row of `key`; the caller holds the write lock. The file stays
/// until the deletion has committed: were it unlinked first, a crash or a
/// failed commit (a full disk) would leave a row whose file is gone.
Error deleteRow(sqlite3 *db, StringRef key) {
  sqlite::Statement remove(db, "DELETE FROM entries WHERE key = ?1");
  if (Error error = remove.takePrepareError())
    return error;
  remove.bind(1, key);
  return remove.run();
}

/// Unlinks the files of `removed`, whose rows a committed transaction
/// deleted: under the write lock again (see the file comment), and only the
/// files that no row names now, since a key may have been published again
/// in between. A crash before this leaves files without rows: garbage that
/// `verify --repair` deletes.
Error unlinkRemovedFiles(sqlite3 *db, const CacheDirectory &files,
                         llvm::ArrayRef<RemovedEntry> removed) {
  if (removed.empty())
    return Error::success();
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return error;
  for (const RemovedEntry &entry : removed) {
    sqlite::Statement current(
        db, "SELECT 1 FROM entries WHERE key = ?1 AND status = ?2");
    if (Error error = current.takePrepareError())
      return error;
    current.bind(1, entry.key).bind(2, entry.isOk ? "ok" : "failed");
    Expected<bool> row = current.step();
    if (!row)
      return row.takeError();
    if (*row)
      continue; // the file of a newer entry
    if (Error error = entry.isOk ? files.removeObject(entry.key)
                                 : files.removeLog(entry.key))
      return error;
  }
  return transaction.commit();
}


/// The one text column that `sql` selects for `key` (bound as ?1), or none
/// when no row matches.
Expected<std::optional<std::string>>
readEntryText(sqlite3 *db, const char *sql, StringRef key) {
  sqlite::Statement select(db, sql);
  if (Error error = select.takePrepareError())
    return std::move(error);
  select.bind(1, key);
  Expected<bool> row = select.step();
  if (!row)
    return row.takeError();
  if (!*row)
    return std::optional<std::string>();
  return std::optional<std::string>(select.getText(0));
}

/// The status of `key`'s entry ("ok" or "failed"), or none.
Expected<std::optional<std::string>> readEntryStatus(sqlite3 *db,
                                                            StringRef key) {
  return readEntryText(db, "SELECT status FROM entries WHERE key = ?1", key);
}

/// The checksum of `key`'s ok entry, if it has one.
Expected<std::optional<std::string>> readOkChecksum(sqlite3 *db,
                                                           StringRef key) {
  return readEntryText(
      db, "SELECT checksum FROM entries WHERE key = ?1 AND status = 'ok'",
      key);
}

} // namespace cache_detail
} // namespace kiln

Cache::Cache() = default;

Cache::~Cache() {
  if (db) {
    llvm::consumeError(flushCounts());
    statements.clear(); // finalized before the connection closes
    sqlite3_close_v2(db);
  }
}

std::string Cache::getDefaultDirectory() {
  if (std::optional<std::string> dir =
          llvm::sys::Process::GetEnv("KILN_CACHE_DIR");
      dir && !dir->empty())
    return *dir;
  if (std::optional<std::string> xdg =
          llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && !xdg->empty())
    return (llvm::Twine(*xdg) + "/kiln").str();
  llvm::SmallString<128> home;
  if (!llvm::sys::path::home_directory(home))
    home = ".";
  llvm::sys::path::append(home, ".cache", "kiln");
  return std::string(home);
}

bool Cache::canWrite() const {
  return files->isWritable() &&
         access(files->getIndexPath().c_str(), W_OK) == 0;
}

std::string Cache::getObjectPath(StringRef key) const {
  return files->describe(("objects/" + key.take_front(2) + "/" + key).str());
}

std::string Cache::getLogCommand(StringRef key) const {
  std::string command = "kiln cache log " + key.str() + " --cache-dir ";
  // Quoted for a shell when it needs to be.
  if (directory.find_first_of(" '\"$`\\") == std::string::npos)
    return command + directory;
  std::string quoted = "'";
  for (char c : directory)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return command + quoted + "'";
}

std::string Cache::getLogPath(StringRef key) const {
  return files->describe(("logs/" + key + ".log").str());
}

/// The payload of a cache file, or a problem with its header.
static Expected<std::optional<StoredArtifact>>
openStored(Expected<std::unique_ptr<llvm::MemoryBuffer>> file,
           StringRef shown, StringRef key) {
  if (!file)
    return file.takeError();
  if (!*file)
    return std::optional<StoredArtifact>();
  auto decoded = decodeArtifactFile((*file)->getBuffer());
  if (!decoded)
    return makeError(shown + ": " + llvm::toString(decoded.takeError()));
  // Another entry's valid file under this key is not this key's entry.
  std::string inside = decoded->first.parts.key().toHex();
  if (inside != key)
    return makeError(shown + ": the file holds the entry of key " + inside +
                     ", not " + key);
  StoredArtifact stored;
  stored.bytes = decoded->second;
  stored.header = std::move(decoded->first);
  stored.file = std::move(*file);
  return std::optional<StoredArtifact>(std::move(stored));
}

Expected<std::optional<StoredArtifact>> Cache::readArtifact(StringRef key) {
  if (Error error = checkKey(key))
    return std::move(error);
  return openStored(files->readObject(key), getObjectPath(key), key);
}

Expected<std::optional<StoredArtifact>> Cache::readLog(StringRef key) {
  if (Error error = checkKey(key))
    return std::move(error);
  return openStored(files->readLog(key), getLogPath(key), key);
}

Expected<std::unique_ptr<Cache>> Cache::open(StringRef directory,
                                             OpenOptions options) {
  std::unique_ptr<Cache> cache(new Cache());
  cache->directory = directory.str();
  cache->options = options;
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  cache->hostName = host;

  // The directory and its parts are opened once; every file operation is
  // relative to them and refuses links (CacheDirectory.h).
  bool writable = false;
  Expected<std::unique_ptr<CacheDirectory>> files =
      CacheDirectory::open(directory, /*create=*/!options.readOnly, writable);
  if (!files)
    return files.takeError();
  cache->files = std::move(*files);
  Expected<bool> indexExists = cache->files->checkIndexFiles();
  if (!indexExists)
    return indexExists.takeError();
  bool exists = *indexExists;
  std::string indexPath = cache->files->getIndexPath();

  // An index that is gone or empty while objects/ holds artifacts is a lost
  // index, not a new cache: made anew, it would call every artifact a
  // stray file, and verify --repair would delete them all.
  std::string rebuildHint = "; 'kiln cache verify --rebuild-index --cache-dir " +
                            directory.str() +
                            "' rebuilds it from the artifacts";
  // (An empty index in a cache without artifacts is one being created by
  // another process this instant: SQLite makes the file, then the schema.)
  std::optional<uint64_t> indexSize = cache->files->getIndexSize();
  if (exists && indexSize && *indexSize == 0 &&
      !options.newIndexOverArtifacts && cache->files->hasObjects())
    return makeError("the index " + cache->files->describe("index.db") +
                     " is empty (0 bytes)" + rebuildHint);
  if (!exists && !options.newIndexOverArtifacts &&
      cache->files->hasObjects())
    return makeError("the cache at " + directory +
                     " has artifacts but no index.db" + rebuildHint);

  cache->readOnly = options.readOnly || !writable;
  if (!writable && !options.readOnly && !exists)
    return makeError("cannot create a kiln cache at " + directory +
                     ": the directory is not writable");
  if (!cache->readOnly && exists && access(indexPath.c_str(), W_OK) != 0)
    cache->readOnly = true;
  if (cache->readOnly && !exists)
    return makeError("no kiln cache at " + directory + " (no index.db)");

  // Opens the index; read-only, a WAL database whose -wal and -shm files
  // cannot be made here (an unwritable directory, a full disk) is read as
  // immutable.
  auto openIndex = [&]() -> Error {
    int flags = cache->readOnly ? SQLITE_OPEN_READONLY
                                : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    int result = sqlite3_open_v2(indexPath.c_str(), &cache->db,
                                 flags | SQLITE_OPEN_FULLMUTEX |
                                     SQLITE_OPEN_NOFOLLOW,
                                 nullptr);
    if (result == SQLITE_OK && cache->readOnly) {
      // SQLite opens lazily: a WAL database whose -wal and -shm files are
      // gone (no writer has it open, the last one checkpointed it) and
      // cannot be created here fails only at its first read.
      int probe = sqlite3_exec(cache->db, "SELECT COUNT(*) FROM sqlite_master",
                               nullptr, nullptr, nullptr) &
                  0xff;
      if (probe == SQLITE_READONLY || probe == SQLITE_CANTOPEN ||
          probe == SQLITE_IOERR || probe == SQLITE_FULL)
        result = probe;
    }
    if (result != SQLITE_OK && cache->readOnly) {
      sqlite3_close_v2(cache->db);
      cache->db = nullptr;
      std::string uri = "file:" + std::string(indexPath) + "?immutable=1";
      result = sqlite3_open_v2(uri.c_str(), &cache->db,
                               SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
                                   SQLITE_OPEN_NOFOLLOW,
                               nullptr);
    }
    if (result != SQLITE_OK)
      return sqlite::makeError(cache->db, "opening " + std::string(indexPath));
    sqlite3_busy_timeout(cache->db, options.busyTimeoutMs);
    // The -wal and -shm files stay when the last connection closes, so
    // that a reader never has to make them: on a full disk or a read-only
    // mount, lookups still work. (Set on readers too: the last connection
    // to close, whichever it is, would otherwise delete them.)
    int persist = 1;
    sqlite3_file_control(cache->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    // A damaged index fails at its first read: say so, and how to recover.
    int probe = sqlite3_exec(cache->db, "SELECT COUNT(*) FROM sqlite_master",
                             nullptr, nullptr, nullptr) &
                0xff;
    if (probe == SQLITE_NOTADB || probe == SQLITE_CORRUPT)
      return makeError("the index " + cache->files->describe("index.db") +
                       " is damaged (" + sqlite3_errmsg(cache->db) + ")" +
                       rebuildHint);
    if (cache->readOnly)
      return Error::success();
    // WAL lets readers (training jobs) proceed while a writer commits;
    // NORMAL sync is durable in WAL except for the last commits on power
    // loss, which at worst leaves an artifact without a row (garbage).
    // A WAL kept across processes (persistent, above) must not keep its
    // frames: the next process to open the index reads every valid frame to
    // rebuild its index (7.7 MB after a check of 35 graphs, a third of a
    // warm check's time). With a size limit, a writable connection that
    // closes last truncates the checkpointed WAL to nothing (a read-only
    // one cannot checkpoint), and a checkpoint during a run trims it to
    // 4 MiB.
    if (Error error = sqlite::execute(cache->db, "PRAGMA journal_mode=WAL;"
                                                 "PRAGMA synchronous=NORMAL;"
                                                 "PRAGMA journal_size_limit="
                                                 "4194304;"))
      return error;
    return Error::success();
  };
  if (Error error = openIndex()) {
    int code = cache->db ? sqlite3_errcode(cache->db) & 0xff : SQLITE_ERROR;
    bool cannotWrite = code == SQLITE_FULL || code == SQLITE_IOERR ||
                       code == SQLITE_READONLY || code == SQLITE_CANTOPEN;
    if (cache->readOnly || !exists || !options.readOnlyIfUnwritable ||
        !cannotWrite)
      return std::move(error);
    // Lookups need not write: a full disk or a read-only mount opens the
    // cache for reading (hits are not counted, nothing is removed).
    cache->readOnlyReason = llvm::toString(std::move(error));
    sqlite3_close_v2(cache->db);
    cache->db = nullptr;
    cache->readOnly = true;
    if (Error again = openIndex())
      return std::move(again);
  }
  if (Error error = cache->initializeSchema())
    return std::move(error);
  return std::move(cache);
}

Error Cache::remakeWithoutRowidMemo() {
  auto oldLayout = [&]() -> Expected<bool> {
    Expected<std::optional<std::string>> sql = cache_detail::readEntryText(
        db, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1",
        "graph_memo");
    if (!sql)
      return sql.takeError();
    return *sql && StringRef(**sql).contains_insensitive("WITHOUT ROWID");
  };
  Expected<bool> old = oldLayout();
  if (!old || !*old)
    return old ? Error::success() : old.takeError();
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return error;
  // Another opener may have made it again meanwhile.
  old = oldLayout();
  if (!old || !*old)
    return old ? Error::success() : old.takeError();
  // The schema's statements make only what is missing: the memo.
  if (Error error = sqlite::execute(db, std::string("DROP TABLE IF EXISTS "
                                                    "graph_memo;") +
                                            kSchemaSql))
    return error;
  return transaction.commit();
}

Error Cache::initializeSchema() {
  auto readVersion = [&]() -> Expected<int64_t> {
    sqlite::Statement statement(db, "PRAGMA user_version");
    if (Error error = statement.takePrepareError())
      return std::move(error);
    Expected<bool> row = statement.step();
    if (!row)
      return row.takeError();
    return *row ? statement.getInt(0) : 0;
  };
  Expected<int64_t> version = readVersion();
  if (!version)
    return version.takeError();
  auto checkNewer = [&](int64_t found) -> Error {
    if (found > (int64_t)kCacheFormatVersion)
      return makeError("the cache at " + directory + " has format version " +
                       llvm::Twine(found) + ", newer than this kiln's " +
                       llvm::Twine(kCacheFormatVersion) +
                       "; upgrade kiln or use another --cache-dir");
    return Error::success();
  };
  if (Error error = checkNewer(*version))
    return error;
  if (*version == (int64_t)kCacheFormatVersion) {
    // Memos only save time: a memo that cannot be made again stays.
    if (!readOnly)
      llvm::consumeError(remakeWithoutRowidMemo());
    return Error::success();
  }
  if (readOnly)
    return makeError("the cache at " + directory + " has format version " +
                     llvm::Twine(*version) +
                     " and is read-only, so it "
                     "cannot be upgraded to version " +
                     llvm::Twine(kCacheFormatVersion));

  // Create or migrate in one transaction; a concurrent opener waits on the
  // lock and then finds the work done.
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return error;
  version = readVersion();
  if (!version)
    return version.takeError();
  if (Error error = checkNewer(*version))
    return error;
  if (*version == (int64_t)kCacheFormatVersion)
    return transaction.commit();
  // Version 0 is an empty database. Later versions add migration steps
  // here, from each version to the next.
  if (*version == 0) {
    if (Error error = sqlite::execute(db, kSchemaSql))
      return error;
  } else {
    // Version 2 keys name the target's CPU level instead of the host's
    // features, the compiler's exact revision, and hash signatures in a
    // canonical order; version 3 adds the graph's module name and text to
    // every entry, and a memo of signatures. No older key can be made
    // again (the format version is one of its parts), so old entries could
    // never hit: their rows go, and their files are garbage that `kiln
    // cache verify --repair` removes.
    sqlite::Statement hasName(
        db, "SELECT COUNT(*) FROM pragma_table_info('entries') "
            "WHERE name = 'graph_name'");
    if (Error error = hasName.takePrepareError())
      return error;
    Expected<bool> row = hasName.step();
    if (!row)
      return row.takeError();
    if (hasName.getInt(0) == 0)
      if (Error error = sqlite::execute(
              db, "ALTER TABLE entries ADD COLUMN graph_name TEXT NOT NULL "
                  "DEFAULT ''"))
        return error;
    if (Error error = sqlite::execute(db, "DELETE FROM entries;"
                                          "DELETE FROM leases;"))
      return error;
    if (Error error = sqlite::execute(db, kSchemaSql))
      return error;
  }
  sqlite::Statement meta(db, "INSERT OR REPLACE INTO meta (name, value) "
                             "VALUES ('format_version', ?1), "
                             "('created_ms', ?2)");
  if (Error error = meta.takePrepareError())
    return error;
  meta.bind(1, std::to_string(kCacheFormatVersion))
      .bind(2, std::to_string(nowMs()));
  if (Error error = meta.run())
    return error;
  if (Error error = sqlite::execute(
          db, "PRAGMA user_version=" + std::to_string(kCacheFormatVersion)))
    return error;
  return transaction.commit();
}


Expected<sqlite::Statement *> Cache::prepared(const std::string &sql) {
  std::unique_ptr<sqlite::Statement> &statement = statements[sql];
  if (!statement) {
    auto made = std::make_unique<sqlite::Statement>(db, sql);
    if (Error error = made->takePrepareError())
      return std::move(error);
    statement = std::move(made);
  }
  statement->reset();
  return statement.get();
}

Expected<LookupResult> Cache::lookup(StringRef key, bool verify,
                                     bool countLookup) {
  if (Error error = checkKey(key))
    return std::move(error);
  LookupResult result;
  {
    static const std::string sql = (llvm::Twine("SELECT ") + kEntryColumns +
                                    " FROM entries WHERE key = ?1")
                                       .str();
    Expected<sqlite::Statement *> select = prepared(sql);
    if (!select)
      return select.takeError();
    llvm::scope_exit done([&] { (*select)->reset(); });
    (*select)->bind(1, key);
    Expected<bool> row = (*select)->step();
    if (!row)
      return row.takeError();
    if (*row)
      result.entry = readEntry(**select);
  }
  // Hits and misses are counted in memory and written in batches
  // (flushCounts): a lookup takes no write lock, so a training job's
  // lookups never wait for another process's publish.
  auto count = [&](StringRef counter) -> Error {
    if (readOnly || !countLookup)
      return Error::success();
    if (counter == "hits")
      ++pendingHits;
    else
      ++pendingMisses;
    maybeFlushCounts();
    return Error::success();
  };
  if (!result.entry) {
    result.status = LookupStatus::Miss;
    if (Error error = count("misses"))
      return std::move(error);
    return result;
  }
  CacheEntry &entry = *result.entry;
  // Where the trust policy needs the local tier's entries signed, an entry
  // counts only with a trusted signature over the very bytes read.
  bool needsSignature = trust && trust->requiresSignature(/*fromRemote=*/false);
  auto refuseUntrusted = [&](const StoredArtifact &stored) -> bool {
    std::optional<std::string> why =
        trust->refuse(stored.header, stored.bytes, /*fromRemote=*/false);
    if (!why)
      return false;
    result.status = LookupStatus::Untrusted;
    result.problem = *why;
    return true;
  };
  if (!entry.ok) {
    entry.path = getLogPath(key);
    result.status = LookupStatus::Failed;
    if (needsSignature) {
      Expected<std::optional<StoredArtifact>> log = readLog(key);
      if (!log) {
        result.status = LookupStatus::Untrusted;
        result.problem = llvm::toString(log.takeError());
      } else if (!*log) {
        result.status = LookupStatus::Miss;
        result.entry.reset();
      } else {
        refuseUntrusted(**log);
      }
    }
    // A recorded failure is a miss whose reason is known here.
    if (result.status == LookupStatus::Failed && countLookup && !readOnly)
      ++pendingMissReasons["failed"];
    if (Error error = count("misses"))
      return std::move(error);
    return result;
  }
  entry.path = getObjectPath(key);

  // The file must be there and, when asked, match its checksum.
  std::string problem;
  if (verify || needsSignature) {
    Expected<std::optional<StoredArtifact>> stored = readArtifact(key);
    std::optional<std::pair<std::string, uint64_t>> sum;
    if (!stored)
      problem = llvm::toString(stored.takeError());
    else if (!*stored)
      problem = entry.path + ": artifact file is missing";
    else
      sum = checksumOf((*stored)->bytes);
    if (!sum)
      ;
    else if (sum->second != entry.size)
      problem = "artifact has " + std::to_string(sum->second) +
                " bytes, the index says " + std::to_string(entry.size);
    else if (sum->first != entry.checksum)
      problem = "artifact checksum " + sum->first +
                " does not match the index's " + entry.checksum;
    else if (sum->first != (*stored)->header.checksum)
      problem = "artifact checksum " + sum->first +
                " does not match its header's " + (*stored)->header.checksum;
    else
      result.verified =
          std::make_shared<const StoredArtifact>(std::move(**stored));
    if (problem.empty() && needsSignature &&
        refuseUntrusted(*result.verified)) {
      result.verified.reset();
      if (Error error = count("misses"))
        return std::move(error);
      return result;
    }
  } else {
    Expected<bool> exists = files->objectExists(key);
    if (!exists)
      problem = llvm::toString(exists.takeError());
    else if (!*exists)
      problem = entry.path + ": artifact file is missing";
  }

  if (!problem.empty()) {
    result.status = LookupStatus::Corrupt;
    result.problem = problem;
    if (readOnly)
      return result;
    sqlite::WriteTransaction transaction(db);
    if (Error error = transaction.begin())
      return std::move(error);
    // Judge only the entry we read: if another process removed it (evict,
    // rm) or replaced it (removed and published again) after we read its
    // row, its file was gone or new for that reason, not corrupt, and the
    // read is a plain miss (FORMAT.md: removal never breaks a reader).
    // (Statements end before the commit: one left open would keep a read
    // snapshot that the next write transaction cannot start from.)
    bool stillThere = false;
    {
      sqlite::Statement same(db, "SELECT 1 FROM entries WHERE key = ?1 AND "
                                 "checksum = ?2 AND created_ms = ?3");
      if (Error error = same.takePrepareError())
        return std::move(error);
      same.bind(1, key).bind(2, entry.checksum).bind(3, entry.createdMs);
      Expected<bool> row = same.step();
      if (!row)
        return row.takeError();
      stillThere = *row;
    }
    if (stillThere) {
      if (Error error = deleteRow(db, key))
        return std::move(error);
      if (Error error = bumpCounter("corrupt"))
        return std::move(error);
    }
    if (Error error = bumpCounter("misses"))
      return std::move(error);
    if (Error error = transaction.commit())
      return std::move(error);
    if (!stillThere) {
      result.status = LookupStatus::Miss;
      result.entry.reset();
      result.problem.clear();
      return result;
    }
    if (Error error = unlinkRemovedFiles(db, *files, {{key.str(), true}}))
      return std::move(error);
    return result;
  }

  result.status = LookupStatus::Hit;
  if (readOnly)
    return result;
  PendingUse &use = pendingUses[key.str()];
  ++use.hits;
  use.lastUsedMs = nowMs();
  // The row's count, and this process's hits not written yet.
  entry.hits += use.hits;
  if (Error error = count("hits"))
    return std::move(error);
  return result;
}


void Cache::sweepStaleStaged() {
  if (staleStagedSwept || readOnly)
    return;
  staleStagedSwept = true;
  // Staged files are written (their mtime moving) until renamed, within a
  // lease and a wait for the lock: older ones belong to writers that died.
  Expected<CacheDirectory::Contents> contents = files->list(kStaleStagedAge);
  if (!contents) {
    llvm::consumeError(contents.takeError());
    return;
  }
  for (const std::string &name : contents->staleStaged)
    files->dropStaged(name);
}

Error Cache::insertEntry(const ArtifactHeader &header) {
  const KeyParts &parts = header.parts;
  std::string key = parts.key().toHex();
  // Prepared once per Cache: every publish runs these.
  static const std::string insertSql =
      (llvm::Twine("INSERT OR REPLACE INTO entries (") + kEntryColumns +
       ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, 0, ?7, ?8, ?9, ?10, ?11, "
       "?12, ?13, ?14, ?15, ?16)")
          .str();
  Expected<sqlite::Statement *> insert = prepared(insertSql);
  if (!insert)
    return insert.takeError();
  llvm::scope_exit insertDone([&] { (*insert)->reset(); });
  (*insert)
      ->bind(1, key)
      .bind(2, header.ok ? "ok" : "failed")
      .bind(3, (int64_t)(header.ok ? header.size : 0))
      .bind(4, header.ok ? header.checksum : std::string())
      .bind(5, header.compileSeconds)
      .bind(6, nowMs())
      .bind(7, parts.signature.toHex())
      .bind(8, parts.targetTriple)
      .bind(9, parts.cpuName)
      .bind(10, parts.cpuFeatures)
      .bind(11, parts.options)
      .bind(12, parts.compiler)
      .bind(13, (int64_t)parts.formatVersion)
      .bind(14, header.source)
      .bindBlob(15, header.sketch)
      .bind(16, header.graphName);
  if (Error error = (*insert)->run())
    return error;
  // Publishing ends the compilation, and with it the lease.
  Expected<sqlite::Statement *> release =
      prepared("DELETE FROM leases WHERE key = ?1");
  if (!release)
    return release.takeError();
  llvm::scope_exit releaseDone([&] { (*release)->reset(); });
  (*release)->bind(1, key);
  return (*release)->run();
}


Error Cache::publish(const KeyParts &parts, StringRef artifact,
                     double compileSeconds, StringRef source,
                     llvm::ArrayRef<uint64_t> sketch, const EntryGraph &graph) {
  Expected<PublishOutcome> outcome =
      publishArtifact(parts, artifact, compileSeconds, source, sketch,
                      /*replace=*/false, graph);
  if (!outcome)
    return outcome.takeError();
  return Error::success();
}

Expected<PublishOutcome>
Cache::publishArtifact(const KeyParts &parts, StringRef artifact,
                       double compileSeconds, StringRef source,
                       llvm::ArrayRef<uint64_t> sketch, bool replace,
                       const EntryGraph &graph) {
  // The file says what it is (ArtifactHeader.h), so that the index can be
  // rebuilt from objects/ alone.
  ArtifactHeader header;
  header.parts = parts;
  header.size = artifact.size();
  header.checksum = Hash128::of(artifact).toHex();
  header.compileSeconds = compileSeconds;
  header.source = source.str();
  header.graphName = graph.name.str();
  header.sketch.assign(sketch.begin(), sketch.end());
  header.graph = graph.text;
  if (trust)
    trust->sign(header, artifact);
  return publishEntry(header, artifact, replace, /*durable=*/true);
}

Expected<PublishOutcome> Cache::adoptEntry(const ArtifactHeader &header,
                                           StringRef artifact) {
  // Taken as the other tier has it, signatures and all: this process
  // vouches for nothing it did not make.
  if (!header.ok) {
    if (Error error = recordFailureEntry(header, artifact))
      return std::move(error);
    return PublishOutcome::Stored;
  }
  return publishEntry(header, artifact, /*replace=*/false, /*durable=*/false);
}

Expected<PublishOutcome> Cache::publishEntry(const ArtifactHeader &header,
                                             StringRef artifact, bool replace,
                                             bool durable) {
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  std::string key = header.parts.key().toHex();
  const std::string &checksum = header.checksum;

  // Published once already: the same bytes are already cached; other bytes
  // are a conflict, and the first stays unless the caller replaces it.
  auto published = [&]() -> Expected<std::optional<PublishOutcome>> {
    Expected<std::optional<std::string>> existing = readOkChecksum(db, key);
    if (!existing)
      return existing.takeError();
    if (!*existing)
      return std::optional<PublishOutcome>();
    return std::optional<PublishOutcome>(**existing == checksum
                                             ? PublishOutcome::AlreadyCached
                                             : PublishOutcome::Conflict);
  };
  Expected<std::optional<PublishOutcome>> before = published();
  if (!before)
    return before.takeError();
  // The same bytes cached without this key's signature (before keys were
  // set up, or read through from a tier) get it now.
  if (*before == PublishOutcome::AlreadyCached && durable && trust &&
      trust->signingKey) {
    Expected<bool> signed_ = signEntry(key);
    if (!signed_)
      return signed_.takeError();
  }
  // An entry without a trusted signature, where the local tier needs one,
  // is not the key's entry: this publish replaces it (with the same bytes
  // too: a signed copy read through from another tier).
  bool replaceUntrusted = false;
  if (*before && trust && trust->requiresSignature(/*fromRemote=*/false)) {
    Expected<std::optional<StoredArtifact>> existing = readArtifact(key);
    if (!existing)
      llvm::consumeError(existing.takeError());
    replaceUntrusted =
        !existing || !*existing ||
        trust->refuse((*existing)->header, (*existing)->bytes, false);
  }
  // Other bytes to replace the cached ones are staged first: until the new
  // file is renamed over the old one under the write lock, the old artifact
  // stays whole (a full disk costs the new bytes, never the old).
  if (*before && !(*before == PublishOutcome::Conflict && replace) &&
      !replaceUntrusted)
    return **before;

  sweepStaleStaged();
  // The bytes are written and synced before the write lock is taken (see
  // the file comment), so that a big artifact does not hold up every other
  // process's lookups and publishes while it goes to disk.
  std::string headerBytes = encodeArtifactHeader(header);
  Expected<std::string> staged =
      files->stage(key, {headerBytes, artifact},
                   options.testHooks.failWritesAfterBytes, durable);
  if (!staged)
    return staged.takeError();
  std::string stagedName = *staged;
  llvm::scope_exit dropStaged([&] {
    if (!stagedName.empty())
      files->dropStaged(stagedName);
  });

  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return std::move(error);
  // A failed compilation retried with success: its row is replaced, and
  // its log goes once the new row has committed.
  bool replacesFailure = false;
  {
    Expected<std::optional<std::string>> status = readEntryStatus(db, key);
    if (!status)
      return status.takeError();
    if (*status == "ok") {
      // Published meanwhile (or before, and being replaced).
      Expected<std::optional<PublishOutcome>> now = published();
      if (!now)
        return now.takeError();
      if (!(replace && *now == PublishOutcome::Conflict) && !replaceUntrusted)
        return now->value_or(PublishOutcome::AlreadyCached);
    }
    replacesFailure = *status == "failed";
  }
  Error moved = files->moveStagedToObject(stagedName, key, durable);
  stagedName.clear(); // renamed, or removed by moveStagedToObject
  if (moved)
    return std::move(moved);
  if (Error error = insertEntry(header)) {
    llvm::consumeError(files->removeObject(key));
    return std::move(error);
  }
  if (Error error = transaction.commit()) {
    llvm::consumeError(files->removeObject(key));
    return std::move(error);
  }
  // The artifact is in; a log that stays behind is only garbage for
  // `verify --repair`.
  if (replacesFailure)
    llvm::consumeError(unlinkRemovedFiles(db, *files, {{key, false}}));
  // The stored size limit holds after each publish.
  Expected<std::optional<uint64_t>> limit = getMaxSize();
  if (!limit)
    return limit.takeError();
  if (*limit) {
    Expected<EvictionReport> evicted = evict(**limit);
    if (!evicted)
      return evicted.takeError();
  }
  return PublishOutcome::Stored;
}

Error Cache::recordFailure(const KeyParts &parts, StringRef log,
                           double compileSeconds, StringRef source,
                           llvm::ArrayRef<uint64_t> sketch,
                           const EntryGraph &graph) {
  ArtifactHeader header;
  header.parts = parts;
  header.ok = false;
  header.size = log.size();
  header.checksum = Hash128::of(log).toHex();
  header.compileSeconds = compileSeconds;
  header.source = source.str();
  header.graphName = graph.name.str();
  header.sketch.assign(sketch.begin(), sketch.end());
  header.graph = graph.text;
  if (trust)
    trust->sign(header, log);
  return recordFailureEntry(header, log);
}

Error Cache::recordFailureEntry(const ArtifactHeader &header, StringRef log) {
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  std::string key = header.parts.key().toHex();
  sweepStaleStaged();
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return error;
  Expected<std::optional<std::string>> status = readEntryStatus(db, key);
  if (!status)
    return status.takeError();
  if (*status == "ok")
    return Error::success(); // a success elsewhere wins over a failure
  std::string headerBytes = encodeArtifactHeader(header);
  Expected<std::string> staged =
      files->stage(key + ".log", {headerBytes, log},
                   options.testHooks.failWritesAfterBytes);
  if (!staged)
    return staged.takeError();
  if (Error error = files->moveStagedToLog(*staged, key))
    return error;
  if (Error error = insertEntry(header))
    return error;
  return transaction.commit();
}

