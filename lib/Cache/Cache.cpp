//===- Cache.cpp - the shared compile cache ---------------------*- C++ -*-===//
//
// This file implements the cache. The rule that keeps it consistent under
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
#include "kiln/Cache/ArtifactHeader.h"
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

/// The schema, compiled in from cache/schema.sql.
#include "SchemaSql.inc"

namespace {

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

constexpr const char *kEntryColumns =
    "key, status, size, checksum, compile_seconds, created_ms, last_used_ms, "
    "hits, signature, target_triple, cpu, cpu_features, options, compiler, "
    "format_version, source, sketch, graph_name";

} // namespace

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

std::string Cache::getLogPath(StringRef key) const {
  return files->describe(("logs/" + key + ".log").str());
}

/// The payload of a cache file, or a problem with its header.
static Expected<std::optional<StoredArtifact>>
openStored(Expected<std::unique_ptr<llvm::MemoryBuffer>> file,
           StringRef shown) {
  if (!file)
    return file.takeError();
  if (!*file)
    return std::optional<StoredArtifact>();
  auto decoded = decodeArtifactFile((*file)->getBuffer());
  if (!decoded)
    return makeError(shown + ": " + llvm::toString(decoded.takeError()));
  StoredArtifact stored;
  stored.bytes = decoded->second;
  stored.header = std::move(decoded->first);
  stored.file = std::move(*file);
  return std::optional<StoredArtifact>(std::move(stored));
}

Expected<std::optional<StoredArtifact>> Cache::readArtifact(StringRef key) {
  if (Error error = checkKey(key))
    return std::move(error);
  return openStored(files->readObject(key), getObjectPath(key));
}

Expected<std::optional<StoredArtifact>> Cache::readLog(StringRef key) {
  if (Error error = checkKey(key))
    return std::move(error);
  return openStored(files->readLog(key), getLogPath(key));
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
    if (Error error = sqlite::execute(cache->db, "PRAGMA journal_mode=WAL;"
                                                 "PRAGMA synchronous=NORMAL;"))
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
  if (*version == (int64_t)kCacheFormatVersion)
    return Error::success();
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

/// Reads the entry row at the statement's current position.
static CacheEntry readEntry(const sqlite::Statement &row) {
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

Error Cache::bumpCounter(StringRef name) {
  sqlite::Statement statement(
      db, "INSERT INTO stats (name, value) VALUES (?1, 1) "
          "ON CONFLICT (name) DO UPDATE SET value = value + 1");
  if (Error error = statement.takePrepareError())
    return error;
  statement.bind(1, name);
  return statement.run();
}

namespace {

/// An entry whose row a transaction deletes; its file goes once that
/// transaction has committed (unlinkRemovedFiles).
struct RemovedEntry {
  std::string key;
  bool isOk;
};

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

} // namespace

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

Expected<LookupResult> Cache::lookup(StringRef key, bool verify) {
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
    if (readOnly)
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
  if (!entry.ok) {
    entry.path = getLogPath(key);
    result.status = LookupStatus::Failed;
    if (Error error = count("misses"))
      return std::move(error);
    return result;
  }
  entry.path = getObjectPath(key);

  // The file must be there and, when asked, match its checksum.
  std::string problem;
  if (verify) {
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
    sqlite::Statement counter(
        db, "INSERT INTO stats (name, value) VALUES (?1, ?2) "
            "ON CONFLICT (name) DO UPDATE SET value = value + ?2");
    if (Error error = counter.takePrepareError())
      return error;
    std::vector<std::pair<std::string, uint64_t>> counts = {
        {"hits", pendingHits}, {"misses", pendingMisses}};
    for (const auto &[reason, value] : pendingMissReasons)
      counts.push_back({"misses." + reason, value});
    for (const auto &[name, value] : counts) {
      if (!value)
        continue;
      counter.reset();
      counter.bind(1, name).bind(2, (int64_t)value);
      if (Error error = counter.run())
        return error;
    }
  }
  if (Error error = transaction.commit())
    return error;
  pendingUses.clear();
  pendingMissReasons.clear();
  pendingHits = pendingMisses = 0;
  pendingSinceMs = 0;
  return Error::success();
}

Error Cache::insertEntry(const ArtifactHeader &header) {
  const KeyParts &parts = header.parts;
  std::string key = parts.key().toHex();
  sqlite::Statement insert(
      db, (llvm::Twine("INSERT OR REPLACE INTO entries (") + kEntryColumns +
           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, 0, ?7, ?8, ?9, ?10, ?11, "
           "?12, ?13, ?14, ?15, ?16)")
              .str());
  if (Error error = insert.takePrepareError())
    return error;
  insert.bind(1, key)
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
  if (Error error = insert.run())
    return error;
  // Publishing ends the compilation, and with it the lease.
  sqlite::Statement release(db, "DELETE FROM leases WHERE key = ?1");
  if (Error error = release.takePrepareError())
    return error;
  release.bind(1, key);
  return release.run();
}

/// The one text column that `sql` selects for `key` (bound as ?1), or none
/// when no row matches.
static Expected<std::optional<std::string>>
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
static Expected<std::optional<std::string>> readEntryStatus(sqlite3 *db,
                                                            StringRef key) {
  return readEntryText(db, "SELECT status FROM entries WHERE key = ?1", key);
}

/// The checksum of `key`'s ok entry, if it has one.
static Expected<std::optional<std::string>> readOkChecksum(sqlite3 *db,
                                                           StringRef key) {
  return readEntryText(
      db, "SELECT checksum FROM entries WHERE key = ?1 AND status = 'ok'",
      key);
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
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  std::string key = parts.key().toHex();
  std::string checksum = Hash128::of(artifact).toHex();

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
  // Other bytes to replace the cached ones are staged first: until the new
  // file is renamed over the old one under the write lock, the old artifact
  // stays whole (a full disk costs the new bytes, never the old).
  if (*before && !(*before == PublishOutcome::Conflict && replace))
    return **before;

  // The bytes are written and synced before the write lock is taken (see
  // the file comment), so that a big artifact does not hold up every other
  // process's lookups and publishes while it goes to disk.
  // The file says what it is (ArtifactHeader.h), so that the index can be
  // rebuilt from objects/ alone.
  ArtifactHeader header;
  header.parts = parts;
  header.size = artifact.size();
  header.checksum = checksum;
  header.compileSeconds = compileSeconds;
  header.source = source.str();
  header.graphName = graph.name.str();
  header.sketch.assign(sketch.begin(), sketch.end());
  header.graph = graph.text;
  std::string headerBytes = encodeArtifactHeader(header);
  Expected<std::string> staged =
      files->stage(key, {headerBytes, artifact},
                   options.testHooks.failWritesAfterBytes);
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
      if (!(replace && *now == PublishOutcome::Conflict))
        return now->value_or(PublishOutcome::AlreadyCached);
    }
    replacesFailure = *status == "failed";
  }
  Error moved = files->moveStagedToObject(stagedName, key);
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
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  std::string key = parts.key().toHex();
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return error;
  Expected<std::optional<std::string>> status = readEntryStatus(db, key);
  if (!status)
    return status.takeError();
  if (*status == "ok")
    return Error::success(); // a success elsewhere wins over a failure
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

bool Cache::isLeaseLive(StringRef host, int64_t pid, int64_t expiresMs,
                        int64_t now) const {
  if (expiresMs <= now)
    return false;
  // On this host a dead owner is known at once.
  if (host == hostName && pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH)
    return false;
  return true;
}

Expected<ClaimStatus> Cache::claim(StringRef key, unsigned ttlSeconds,
                                   bool retryFailed, bool replaceExisting) {
  if (Error error = checkKey(key))
    return std::move(error);
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return std::move(error);
  Expected<std::optional<std::string>> status = readEntryStatus(db, key);
  if (!status)
    return status.takeError();
  if (*status && (**status == "ok" ? !replaceExisting : !retryFailed))
    return ClaimStatus::AlreadyDone;

  int64_t now = nowMs();
  sqlite::Statement lease(
      db, "SELECT host, pid, expires_ms FROM leases WHERE key = ?1");
  if (Error error = lease.takePrepareError())
    return std::move(error);
  lease.bind(1, key);
  Expected<bool> held = lease.step();
  if (!held)
    return held.takeError();
  if (*held) {
    std::string host = lease.getText(0);
    int64_t pid = lease.getInt(1);
    bool mine = host == hostName && pid == getpid();
    if (!mine && isLeaseLive(host, pid, lease.getInt(2), now))
      return ClaimStatus::HeldElsewhere;
  }
  sqlite::Statement take(db, "INSERT OR REPLACE INTO leases (key, host, pid, "
                             "acquired_ms, expires_ms) VALUES (?1, ?2, ?3, "
                             "?4, ?5)");
  if (Error error = take.takePrepareError())
    return std::move(error);
  take.bind(1, key)
      .bind(2, hostName)
      .bind(3, (int64_t)getpid())
      .bind(4, now)
      .bind(5, now + (int64_t)ttlSeconds * 1000);
  if (Error error = take.run())
    return std::move(error);
  if (Error error = transaction.commit())
    return std::move(error);
  return ClaimStatus::Claimed;
}

Error Cache::renew(StringRef key, unsigned ttlSeconds) {
  if (Error error = checkKey(key))
    return error;
  sqlite::Statement renew(db, "UPDATE leases SET expires_ms = ?4 WHERE key = "
                              "?1 AND host = ?2 AND pid = ?3");
  if (Error error = renew.takePrepareError())
    return error;
  renew.bind(1, key)
      .bind(2, hostName)
      .bind(3, (int64_t)getpid())
      .bind(4, nowMs() + (int64_t)ttlSeconds * 1000);
  if (Error error = renew.run())
    return error;
  if (sqlite3_changes(db) == 0)
    return makeError("no lease on " + key + " held by this process");
  return Error::success();
}

Error Cache::release(StringRef key) {
  if (Error error = checkKey(key))
    return error;
  sqlite::Statement release(
      db, "DELETE FROM leases WHERE key = ?1 AND host = ?2 AND pid = ?3");
  if (Error error = release.takePrepareError())
    return error;
  release.bind(1, key).bind(2, hostName).bind(3, (int64_t)getpid());
  return release.run();
}

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
          }
          return Error::success();
        }))
      return std::move(error);
  }
  // Files without rows, and whatever is not the cache's own (reported,
  // never removed: kiln deletes only files named by its keys).
  Expected<CacheDirectory::Contents> contents =
      files->list(std::chrono::hours(1));
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
  sqlite::Statement select(db,
                           "SELECT value FROM meta WHERE name = 'max_size'");
  if (Error error = select.takePrepareError())
    return std::move(error);
  Expected<bool> row = select.step();
  if (!row)
    return row.takeError();
  uint64_t bytes;
  if (!*row || StringRef(select.getText(0)).getAsInteger(10, bytes))
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
Cache::findSignatureMemos(llvm::ArrayRef<std::string> contents) {
  std::map<std::string, SignatureMemo> found;
  sqlite::Statement select(
      db, "SELECT signature, graph_name, elided_constants, sketch FROM "
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
      (*files)->list(std::chrono::hours(1));
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
