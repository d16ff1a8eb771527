//===- CacheTest.cpp - the compile cache, one process at a time -*- C++ -*-===//
//
// This file tests the cache's format (versions), publish and lookup, failed
// compilations, leases (against other processes, made with fork), LRU
// eviction, detection of flipped bits, a full disk (injected and a real tiny
// tmpfs) and read-only directories (a child that became 'nobody').
// The tests with many processes at once are in CacheConcurrencyTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "CacheTestUtil.h"

#include <grp.h>
#include <random>
#include <sqlite3.h>
#include <sys/mount.h>
#include <thread>

using namespace kiln;
using namespace kiln::test;

namespace {

/// Runs SQL on `index.db` of `directory` with its own connection.
void execSql(const std::string &directory, const std::string &sql) {
  sqlite3 *db = nullptr;
  std::string path = directory + "/index.db";
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_busy_timeout(db, 10000);
  char *message = nullptr;
  int result = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  std::string text = message ? message : "";
  sqlite3_free(message);
  sqlite3_close(db);
  ASSERT_EQ(result, SQLITE_OK) << text;
}

/// The first column of the first row of `sql`, as text.
std::string querySql(const std::string &directory, const std::string &sql) {
  sqlite3 *db = nullptr;
  std::string path = directory + "/index.db";
  std::string value = "<error>";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) ==
      SQLITE_OK) {
    sqlite3_stmt *statement = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) ==
        SQLITE_OK) {
      int step = sqlite3_step(statement);
      if (step == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text(statement, 0);
        value = text ? reinterpret_cast<const char *>(text) : "<null>";
      } else if (step == SQLITE_DONE) {
        value = "<no row>";
      }
    }
    sqlite3_finalize(statement);
  }
  sqlite3_close(db);
  return value;
}

std::vector<std::string> keysOf(const std::vector<CacheEntry> &entries) {
  std::vector<std::string> keys;
  for (const CacheEntry &entry : entries)
    keys.push_back(entry.key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

/// What a lookup says about `key`, for EXPECT_EQ.
std::string lookupStatus(Cache &cache, llvm::StringRef key, bool verify) {
  llvm::Expected<LookupResult> result = cache.lookup(key, verify);
  if (!result)
    return "error: " + llvm::toString(result.takeError());
  switch (result->status) {
  case LookupStatus::Hit:
    return "hit";
  case LookupStatus::Miss:
    return "miss";
  case LookupStatus::Failed:
    return "failed";
  case LookupStatus::Corrupt:
    return "corrupt";
  case LookupStatus::Untrusted:
    return "untrusted";
  }
  return "?";
}

std::string claimStatus(llvm::Expected<ClaimStatus> status) {
  if (!status)
    return "error: " + llvm::toString(status.takeError());
  switch (*status) {
  case ClaimStatus::Claimed:
    return "claimed";
  case ClaimStatus::AlreadyDone:
    return "done";
  case ClaimStatus::HeldElsewhere:
    return "held";
  }
  return "?";
}

/// Exit codes a child uses to report a claim's result to its parent.
int claimExitCode(llvm::Expected<ClaimStatus> status) {
  if (!status) {
    llvm::errs() << "child: claim: " << llvm::toString(status.takeError())
                 << "\n";
    return 99;
  }
  return 10 + (int)*status;
}
constexpr int kChildClaimed = 10 + (int)ClaimStatus::Claimed;
constexpr int kChildDone = 10 + (int)ClaimStatus::AlreadyDone;
constexpr int kChildHeld = 10 + (int)ClaimStatus::HeldElsewhere;

/// A child that opens the cache, claims `key` and exits with claimExitCode.
int claimInChild(const std::string &directory, const std::string &key,
                 unsigned ttl = 600, bool retryFailed = false) {
  return runInChild([&] {
    auto cache = Cache::open(directory);
    if (!cache) {
      llvm::errs() << "child: " << llvm::toString(cache.takeError()) << "\n";
      return 98;
    }
    return claimExitCode((*cache)->claim(key, ttl, retryFailed));
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// Format
//===----------------------------------------------------------------------===//

TEST(CacheFormat, FreshDirectoryGetsTheCurrentVersion) {
  TempDir dir;
  std::string root = dir.sub("a/b/cache");
  {
    KILN_OPEN_CACHE(cache, root);
    EXPECT_FALSE(cache->isReadOnly());
    EXPECT_EQ(cache->getDirectory(), root);
  }
  for (const char *sub : {"objects", "logs", "tmp"})
    EXPECT_TRUE(llvm::sys::fs::is_directory(root + "/" + sub)) << sub;
  EXPECT_EQ(querySql(root, "PRAGMA user_version"), "3");
  EXPECT_EQ(querySql(root, "SELECT value FROM meta WHERE name = "
                           "'format_version'"),
            "3");
  EXPECT_EQ(querySql(root, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(kCacheFormatVersion, 3u);
}

TEST(CacheFormat, ReopeningKeepsEntriesAndVersion) {
  TempDir dir;
  std::string artifact = makeArtifact(keyOf(1), 0, 0, 3000);
  {
    KILN_OPEN_CACHE(cache, dir.path);
    KILN_ASSERT_OK(cache->publish(makeParts(1), artifact, 2.5, "one.hlo"));
  }
  KILN_OPEN_CACHE(cache, dir.path);
  KILN_ASSIGN_OR_FAIL(result, cache->lookup(keyOf(1), /*verify=*/true));
  ASSERT_EQ(result.status, LookupStatus::Hit);
  EXPECT_EQ(readPayload(result.entry->path), artifact);
  EXPECT_EQ(result.entry->source, "one.hlo");
  EXPECT_EQ(result.entry->compileSeconds, 2.5);
  EXPECT_EQ(querySql(dir.path, "PRAGMA user_version"), "3");
  EXPECT_EQ(querySql(dir.path, "SELECT COUNT(*) FROM meta WHERE name = "
                               "'format_version'"),
            "1");
}

// Keys of versions 1 (host CPU features, no source revision, signatures
// in file order) and 2 (no graph name or text in entries) can never be made
// again: opening such a cache migrates it to version 3 by dropping its
// entries, whose files verify --repair removes.
TEST(CacheFormat, OlderVersionsAreMigratedDroppingTheirEntries) {
  for (const char *oldVersion : {"1", "2"}) {
    TempDir dir;
    {
      KILN_OPEN_CACHE(cache, dir.path);
      KILN_ASSERT_OK(cache->publish(makeParts(1), "bytes", 1, "one.hlo"));
    }
    // The older schema: no graph_name column, no memo.
    execSql(dir.path,
            std::string("ALTER TABLE entries DROP COLUMN graph_name; "
                        "DROP TABLE graph_memo; PRAGMA user_version = ") +
                oldVersion + "; UPDATE meta SET value = '" + oldVersion +
                "' WHERE name = 'format_version'");
    {
      KILN_OPEN_CACHE(cache, dir.path);
      EXPECT_EQ(lookupStatus(*cache, keyOf(1), true), "miss");
      KILN_ASSIGN_OR_FAIL(report, cache->verify(/*repair=*/true));
      EXPECT_EQ(report.orphanFiles.size(), 1u);
      KILN_ASSERT_OK(cache->publish(makeParts(2), "bytes", 1, "two.hlo", {},
                                    EntryGraph{"jit_two", "HloModule x"}));
      KILN_ASSIGN_OR_FAIL(listed, cache->list());
      ASSERT_EQ(listed.size(), 1u);
      EXPECT_EQ(listed[0].graphName, "jit_two");
    }
    EXPECT_EQ(querySql(dir.path, "PRAGMA user_version"), "3");
    EXPECT_EQ(querySql(dir.path, "SELECT value FROM meta WHERE name = "
                                 "'format_version'"),
              "3");
    EXPECT_EQ(querySql(dir.path, "SELECT COUNT(*) FROM graph_memo"), "0");
    KILN_OPEN_CACHE(again, dir.path);
    KILN_ASSIGN_OR_FAIL(clean, again->verify(false));
    EXPECT_TRUE(clean.clean());
  }
}

TEST(CacheFormat, NewerVersionIsRefusedNamingBothVersions) {
  TempDir dir;
  {
    KILN_OPEN_CACHE(cache, dir.path);
    KILN_ASSERT_OK(cache->publish(makeParts(1), "bytes", 1, "one.hlo"));
  }
  execSql(dir.path, "PRAGMA user_version = 7");
  for (bool readOnly : {false, true}) {
    Cache::OpenOptions options;
    options.readOnly = readOnly;
    auto cache = Cache::open(dir.path, options);
    ASSERT_FALSE(bool(cache)) << "readOnly=" << readOnly;
    std::string message = llvm::toString(cache.takeError());
    EXPECT_NE(message.find("format version 7"), std::string::npos) << message;
    EXPECT_NE(message.find("this kiln's 3"), std::string::npos) << message;
    EXPECT_NE(message.find(dir.path), std::string::npos) << message;
  }
  // Refusing changed nothing.
  EXPECT_EQ(querySql(dir.path, "PRAGMA user_version"), "7");
  EXPECT_EQ(querySql(dir.path, "SELECT COUNT(*) FROM entries"), "1");
}

// The index can be lost without losing the cache: a missing, empty,
// damaged index, or a directory in its place, is reported as such by every
// open (never taken for a new, empty cache, which would make every artifact
// a stray file for verify --repair), and rebuildIndex recovers every entry,
// failed compilations included, from the files' headers.
TEST(CacheFormat, LostIndexIsReportedAndRebuilt) {
  struct Damage {
    const char *name;
    std::function<void(const std::string &)> apply;
    const char *problem;
  };
  std::vector<Damage> damages = {
      {"deleted", [](const std::string &) {}, "no index.db"},
      {"emptied",
       [](const std::string &path) { writeFile(path + "/index.db", ""); },
       "empty"},
      {"garbage",
       [](const std::string &path) {
         writeFile(path + "/index.db", std::string(8192, 'x'));
       },
       "damaged"},
      {"directory",
       [](const std::string &path) {
         llvm::sys::fs::create_directory(path + "/index.db");
       },
       "not a regular file"},
  };
  for (const Damage &damage : damages) {
    SCOPED_TRACE(damage.name);
    TempDir dir;
    {
      KILN_OPEN_CACHE(cache, dir.path);
      for (int i = 0; i < 5; ++i)
        KILN_ASSERT_OK(cache->publish(makeParts(i),
                                      makeArtifact(keyOf(i), 0, i, 3000), 1.5,
                                      "g" + std::to_string(i) + ".hlo", {1, 2}));
      KILN_ASSERT_OK(cache->recordFailure(makeParts(9), "error: no", 2, "bad"));
    }
    for (const char *name : {"index.db", "index.db-wal", "index.db-shm"})
      ::unlink(dir.sub(name).c_str());
    damage.apply(dir.path);
    for (bool readOnly : {false, true}) {
      Cache::OpenOptions options;
      options.readOnly = readOnly;
      auto cache = Cache::open(dir.path, options);
      ASSERT_FALSE(bool(cache));
      std::string message = llvm::toString(cache.takeError());
      EXPECT_NE(message.find(damage.problem), std::string::npos) << message;
      EXPECT_NE(message.find("--rebuild-index"), std::string::npos) << message;
    }
    KILN_ASSIGN_OR_FAIL(report, Cache::rebuildIndex(dir.path));
    EXPECT_EQ(report.recoveredArtifacts, 5u);
    EXPECT_EQ(report.recoveredFailures, 1u);
    EXPECT_TRUE(report.unreadable.empty());
    KILN_OPEN_CACHE(cache, dir.path);
    for (int i = 0; i < 5; ++i) {
      KILN_ASSIGN_OR_FAIL(result, cache->lookup(keyOf(i), /*verify=*/true));
      ASSERT_EQ(result.status, LookupStatus::Hit);
      EXPECT_EQ(result.entry->source, "g" + std::to_string(i) + ".hlo");
      EXPECT_EQ(result.entry->compileSeconds, 1.5);
      EXPECT_EQ(result.entry->sketch, (std::vector<uint64_t>{1, 2}));
      EXPECT_EQ(readPayload(result.entry->path),
                makeArtifact(keyOf(i), 0, i, 3000));
    }
    EXPECT_EQ(lookupStatus(*cache, keyOf(9), true), "failed");
    KILN_ASSIGN_OR_FAIL(clean, cache->verify(false));
    EXPECT_TRUE(clean.clean());
  }
}

TEST(CacheFormat, ConcurrentFirstOpensCreateOneSchema) {
  TempDir dir;
  std::vector<pid_t> children;
  for (int i = 0; i < 6; ++i)
    children.push_back(forkChild([&] {
      auto cache = Cache::open(dir.path);
      if (!cache) {
        llvm::errs() << llvm::toString(cache.takeError()) << "\n";
        return 1;
      }
      return (*cache)->publish(makeParts(i), "x", 0, "g") ? 2 : 0;
    }));
  for (pid_t child : children)
    EXPECT_EQ(waitChild(child), 0);
  EXPECT_EQ(querySql(dir.path, "PRAGMA user_version"), "3");
  EXPECT_EQ(querySql(dir.path, "SELECT COUNT(*) FROM entries"), "6");
}

//===----------------------------------------------------------------------===//
// Publish, lookup, failures, removal
//===----------------------------------------------------------------------===//

TEST(CacheBasics, PublishThenLookupIsBitExact) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  std::string key = keyOf(1);
  EXPECT_EQ(lookupStatus(*cache, key, true), "miss");
  std::string artifact = makeArtifact(key, 7, 1, 100000);
  std::vector<uint64_t> sketch = {1, 2, 3};
  KILN_ASSERT_OK(cache->publish(makeParts(1), artifact, 4.0, "g.hlo", sketch));
  for (bool verify : {true, false}) {
    KILN_ASSIGN_OR_FAIL(result, cache->lookup(key, verify));
    ASSERT_EQ(result.status, LookupStatus::Hit);
    const CacheEntry &entry = *result.entry;
    EXPECT_TRUE(entry.ok);
    EXPECT_EQ(entry.key, key);
    EXPECT_EQ(entry.path, cache->getObjectPath(key));
    EXPECT_EQ(entry.path,
              dir.path + "/objects/" + key.substr(0, 2) + "/" + key);
    EXPECT_EQ(entry.size, artifact.size());
    EXPECT_EQ(entry.checksum, Hash128::of(artifact).toHex());
    EXPECT_EQ(entry.sketch, sketch);
    EXPECT_EQ(entry.parts.key().toHex(), key);
    EXPECT_EQ(entry.hits, verify ? 1 : 2);
    EXPECT_EQ(readPayload(entry.path), artifact);
    EXPECT_EQ(checkArtifact(*readPayload(entry.path), key), "");
  }
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, artifact.size());
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_DOUBLE_EQ(stats.compileSecondsSaved, 8.0);
  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_TRUE(report.clean());
  EXPECT_EQ(report.checked, 1u);
  EXPECT_TRUE(filesBelow(dir.sub("tmp")).empty());
}

// `kiln cache get` looks a key up, then reads its file: an rm or a prune
// in between makes the read find nothing, which is a plain miss (never an
// error): 19 of 728 racing gets under 8 processes failed before.
TEST(CacheBasics, ArtifactRemovedAfterLookupReadsAsGone) {
  TempDir dir;
  KILN_OPEN_CACHE(reader, dir.path);
  KILN_ASSERT_OK(reader->publish(makeParts(1), "bytes", 1, "g"));
  KILN_ASSIGN_OR_FAIL(hit, reader->lookup(keyOf(1), /*verify=*/true));
  ASSERT_EQ(hit.status, LookupStatus::Hit);
  {
    KILN_OPEN_CACHE(other, dir.path);
    KILN_ASSIGN_OR_FAIL(removed, other->remove(keyOf(1)));
    EXPECT_TRUE(removed);
  }
  KILN_ASSIGN_OR_FAIL(read, reader->readArtifact(keyOf(1)));
  EXPECT_FALSE(read.has_value());
  KILN_ASSIGN_OR_FAIL(again, reader->lookup(keyOf(1), /*verify=*/true));
  EXPECT_EQ(again.status, LookupStatus::Miss);
}

// Two builds of kiln never share an entry: the compiler identity in every
// key names the exact source revision, not only the version.
TEST(CacheKeys, CompilerIdentityNamesTheBuild) {
  std::string identity = getCompilerIdentity();
  llvm::StringRef text(identity);
  ASSERT_TRUE(text.starts_with("kiln 0.1.0 (")) << identity;
  llvm::StringRef revision = text.drop_front(12).split(',').first;
  EXPECT_GE(revision.size(), 12u) << identity;
  EXPECT_EQ(revision.find_first_not_of("0123456789abcdef+-"),
            llvm::StringRef::npos)
      << identity;
  KeyParts a = makeParts(1), b = makeParts(1);
  b.compiler = "kiln 0.1.0 (0000000000aa, MLIR/LLVM 22.1.8)";
  a.compiler = "kiln 0.1.0 (0000000000ab, MLIR/LLVM 22.1.8)";
  EXPECT_NE(a.key(), b.key());
  TargetSpec target;
  target.triple = "x86_64-unknown-linux-gnu";
  target.cpu = "x86-64-v3";
  EXPECT_EQ(makeKeyParts(Hash128::of("g"), "", target).compiler, identity);
}

TEST(CacheBasics, KeyIsPublishedOnceFirstBytesWin) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  std::string key = keyOf(1);
  std::string first = makeArtifact(key, 1, 0, 500);
  KILN_ASSERT_OK(cache->publish(makeParts(1), first, 1, "a.hlo"));
  KILN_ASSERT_OK(
      cache->publish(makeParts(1), makeArtifact(key, 2, 0, 900), 1, "b.hlo"));
  KILN_ASSIGN_OR_FAIL(result, cache->lookup(key, true));
  ASSERT_EQ(result.status, LookupStatus::Hit);
  EXPECT_EQ(readPayload(result.entry->path), first);
  EXPECT_EQ(result.entry->source, "a.hlo");
  // A failure never replaces a success.
  KILN_ASSERT_OK(cache->recordFailure(makeParts(1), "error", 1, "c.hlo"));
  EXPECT_EQ(lookupStatus(*cache, key, true), "hit");
  EXPECT_FALSE(llvm::sys::fs::exists(cache->getLogPath(key)));
}

TEST(CacheBasics, EmptyArtifact) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  KILN_ASSERT_OK(cache->publish(makeParts(1), "", 1, "a.hlo"));
  KILN_ASSIGN_OR_FAIL(result, cache->lookup(keyOf(1), true));
  ASSERT_EQ(result.status, LookupStatus::Hit);
  EXPECT_EQ(result.entry->size, 0u);
  EXPECT_EQ(readPayload(result.entry->path), "");
  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_TRUE(report.clean());
}

TEST(CacheBasics, BadKeysAreRejected) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  for (const char *bad : {"", "abc", "../../../../../../../../etc/passwd",
                          "0123456789ABCDEF0123456789abcdef",
                          "0123456789abcdef0123456789abcdeg"}) {
    auto lookup = cache->lookup(bad, true);
    ASSERT_FALSE(bool(lookup)) << bad;
    EXPECT_NE(llvm::toString(lookup.takeError()).find("is not a cache key"),
              std::string::npos);
    auto claim = cache->claim(bad, 10);
    ASSERT_FALSE(bool(claim));
    llvm::consumeError(claim.takeError());
    auto removed = cache->remove(bad);
    ASSERT_FALSE(bool(removed));
    llvm::consumeError(removed.takeError());
  }
}

TEST(CacheBasics, FailedCompilationIsRecordedWithItsLog) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  std::string key = keyOf(3);
  KILN_ASSERT_OK(
      cache->recordFailure(makeParts(3), "error: out of registers\n", 9, "f"));
  KILN_ASSIGN_OR_FAIL(result, cache->lookup(key, true));
  ASSERT_EQ(result.status, LookupStatus::Failed);
  EXPECT_FALSE(result.entry->ok);
  EXPECT_EQ(result.entry->path, dir.path + "/logs/" + key + ".log");
  EXPECT_EQ(readPayload(result.entry->path), "error: out of registers\n");
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.failedEntries, 1u);
  EXPECT_EQ(stats.misses, 1u);
  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_TRUE(report.clean());
  EXPECT_EQ(report.checked, 0u);
}

// A compilation that failed, was retried (--retry-failed) and succeeded
// replaces the failed entry. Its log must go with it: otherwise logs/ keeps
// a file without a row that verify reports as inconsistent.
TEST(CacheBasics, SuccessAfterRetriedFailureLeavesNoStrayLog) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  std::string key = keyOf(3);
  KILN_ASSERT_OK(cache->recordFailure(makeParts(3), "error\n", 1, "f"));
  EXPECT_EQ(claimStatus(cache->claim(key, 60)), "done");
  EXPECT_EQ(claimStatus(cache->claim(key, 60, /*retryFailed=*/true)),
            "claimed");
  std::string artifact = makeArtifact(key, 1, 1, 1000);
  KILN_ASSERT_OK(cache->publish(makeParts(3), artifact, 1, "f"));
  KILN_ASSIGN_OR_FAIL(result, cache->lookup(key, true));
  ASSERT_EQ(result.status, LookupStatus::Hit);
  EXPECT_EQ(readPayload(result.entry->path), artifact);
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  EXPECT_EQ(stats.failedEntries, 0u);
  EXPECT_EQ(stats.activeLeases, 0u);
  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_TRUE(report.orphanFiles.empty())
      << "stray file: " << report.orphanFiles.front();
  EXPECT_TRUE(report.clean());
  EXPECT_FALSE(llvm::sys::fs::exists(cache->getLogPath(key)));
}

TEST(CacheBasics, RemoveAndClear) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  for (int i = 0; i < 5; ++i)
    KILN_ASSERT_OK(cache->publish(makeParts(i),
                                  makeArtifact(keyOf(i), 0, i, 100), 1, "g"));
  KILN_ASSERT_OK(cache->recordFailure(makeParts(9), "log", 1, "g"));
  KILN_ASSIGN_OR_FAIL(removed, cache->remove(keyOf(2)));
  EXPECT_TRUE(removed);
  EXPECT_FALSE(llvm::sys::fs::exists(cache->getObjectPath(keyOf(2))));
  KILN_ASSIGN_OR_FAIL(again, cache->remove(keyOf(2)));
  EXPECT_FALSE(again);
  EXPECT_EQ(lookupStatus(*cache, keyOf(2), true), "miss");
  KILN_ASSIGN_OR_FAIL(removedLog, cache->remove(keyOf(9)));
  EXPECT_TRUE(removedLog);
  EXPECT_FALSE(llvm::sys::fs::exists(cache->getLogPath(keyOf(9))));
  KILN_ASSIGN_OR_FAIL(list, cache->list());
  EXPECT_EQ(list.size(), 4u);

  KILN_ASSERT_OK(cache->recordFailure(makeParts(8), "log", 1, "g"));
  KILN_ASSERT_OK(cache->clear());
  KILN_ASSIGN_OR_FAIL(empty, cache->list());
  EXPECT_TRUE(empty.empty());
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  EXPECT_EQ(stats.entries, 0u);
  EXPECT_EQ(stats.bytes, 0u);
  EXPECT_EQ(stats.hits + stats.misses, 0u);
  EXPECT_TRUE(filesBelow(dir.sub("objects")).empty());
  EXPECT_TRUE(filesBelow(dir.sub("logs")).empty());
  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_TRUE(report.clean());
}

TEST(CacheBasics, ListIsMostRecentlyUsedFirst) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  for (int i = 0; i < 3; ++i) {
    KILN_ASSERT_OK(cache->publish(makeParts(i), "x", 1, "g"));
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  EXPECT_EQ(lookupStatus(*cache, keyOf(0), false), "hit");
  KILN_ASSIGN_OR_FAIL(list, cache->list());
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].key, keyOf(0));
  EXPECT_EQ(list[1].key, keyOf(2));
  EXPECT_EQ(list[2].key, keyOf(1));
}

TEST(CacheBasics, ExplanationCandidates) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  KILN_ASSERT_OK(cache->publish(makeParts(1, "opt-level=3"), "x", 1, "g"));
  KILN_ASSERT_OK(cache->publish(makeParts(2), "y", 1, "h"));
  // Same signature: only those.
  KILN_ASSIGN_OR_FAIL(
      same, cache->findExplanationCandidates(makeParts(1).signature.toHex()));
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].parts.options, "opt-level=3");
  // Another signature: every entry.
  KILN_ASSIGN_OR_FAIL(
      all, cache->findExplanationCandidates(makeParts(3).signature.toHex()));
  EXPECT_EQ(all.size(), 2u);
}

//===----------------------------------------------------------------------===//
// Leases
//===----------------------------------------------------------------------===//

TEST(CacheLeases, ClaimFromAnotherProcessIsHeldElsewhere) {
  TempDir dir;
  std::string key = keyOf(1);
  {
    KILN_OPEN_CACHE(cache, dir.path);
    EXPECT_EQ(claimStatus(cache->claim(key, 600)), "claimed");
    // Claiming again from the same process renews.
    EXPECT_EQ(claimStatus(cache->claim(key, 600)), "claimed");
    KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
    EXPECT_EQ(stats.activeLeases, 1u);
  }
  // The lease belongs to this live process, not to its connection.
  EXPECT_EQ(claimInChild(dir.path, key), kChildHeld);
  EXPECT_EQ(claimInChild(dir.path, keyOf(2)), kChildClaimed);
  // That child is gone, so its lease on key 2 is free for us.
  KILN_OPEN_CACHE(cache, dir.path);
  EXPECT_EQ(claimStatus(cache->claim(keyOf(2), 600)), "claimed");
  // Publishing ends the lease; then the key is done for everyone.
  KILN_ASSERT_OK(cache->publish(makeParts(1), "bytes", 1, "g"));
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  EXPECT_EQ(stats.activeLeases, 1u); // key 2
  cache.reset();
  EXPECT_EQ(claimInChild(dir.path, key), kChildDone);
}

TEST(CacheLeases, LeaseOfDeadProcessIsTakenOver) {
  TempDir dir;
  std::string key = keyOf(1);
  // A worker claims and dies without releasing (waitChild reaps it, so its
  // pid is gone).
  EXPECT_EQ(claimInChild(dir.path, key), kChildClaimed);
  EXPECT_EQ(querySql(dir.path, "SELECT COUNT(*) FROM leases"), "1");
  KILN_OPEN_CACHE(cache, dir.path);
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  EXPECT_EQ(stats.activeLeases, 0u);
  EXPECT_EQ(claimStatus(cache->claim(key, 600)), "claimed");
  EXPECT_EQ(querySql(dir.path, "SELECT pid FROM leases"),
            std::to_string(getpid()));
}

TEST(CacheLeases, ExpiredLeaseIsTakenOver) {
  TempDir dir;
  std::string key = keyOf(1);
  // A live worker whose lease runs out: it claims for 1 s, then waits.
  int toChild[2], fromChild[2];
  ASSERT_EQ(pipe(toChild), 0);
  ASSERT_EQ(pipe(fromChild), 0);
  pid_t worker = forkChild([&] {
    auto cache = Cache::open(dir.path);
    if (!cache)
      return 98;
    int code = claimExitCode((*cache)->claim(key, 1));
    char byte = code;
    if (write(fromChild[1], &byte, 1) != 1)
      return 97;
    read(toChild[0], &byte, 1); // until the parent is done
    return 0;
  });
  ASSERT_GT(worker, 0);
  char byte = 0;
  ASSERT_EQ(read(fromChild[0], &byte, 1), 1);
  ASSERT_EQ(byte, kChildClaimed);
  {
    KILN_OPEN_CACHE(cache, dir.path);
    EXPECT_EQ(claimStatus(cache->claim(key, 600)), "held");
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    EXPECT_EQ(claimStatus(cache->claim(key, 600)), "claimed");
    EXPECT_EQ(querySql(dir.path, "SELECT pid FROM leases"),
              std::to_string(getpid()));
    // The worker, still alive, now finds the key held by us.
  }
  ASSERT_EQ(write(toChild[1], "x", 1), 1);
  EXPECT_EQ(waitChild(worker), 0);
  EXPECT_EQ(claimInChild(dir.path, key), kChildHeld);
}

TEST(CacheLeases, LeaseFromAnotherHost) {
  TempDir dir;
  std::string key = keyOf(1);
  { KILN_OPEN_CACHE(cache, dir.path); }
  // A pid that does not exist here says nothing about another host.
  int64_t later = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count() +
                  600000;
  execSql(dir.path, "INSERT INTO leases VALUES ('" + key +
                        "', 'some-other-host', 999999999, 0, " +
                        std::to_string(later) + ")");
  KILN_OPEN_CACHE(cache, dir.path);
  EXPECT_EQ(claimStatus(cache->claim(key, 600)), "held");
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  EXPECT_EQ(stats.activeLeases, 1u);
  execSql(dir.path, "UPDATE leases SET expires_ms = 1");
  EXPECT_EQ(claimStatus(cache->claim(key, 600)), "claimed");
}

TEST(CacheLeases, RenewAndRelease) {
  TempDir dir;
  std::string key = keyOf(1);
  {
    KILN_OPEN_CACHE(cache, dir.path);
    // Nothing to renew yet.
    llvm::Error none = cache->renew(key, 60);
    ASSERT_TRUE(bool(none));
    EXPECT_NE(llvm::toString(std::move(none)).find("no lease"),
              std::string::npos);
    EXPECT_EQ(claimStatus(cache->claim(key, 1)), "claimed");
    KILN_ASSERT_OK(cache->renew(key, 600));
  }
  // Without the renewal the lease would have expired by now.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(claimInChild(dir.path, key), kChildHeld);
  // Another process can neither renew nor release our lease.
  EXPECT_EQ(runInChild([&] {
              auto cache = Cache::open(dir.path);
              if (!cache)
                return 98;
              llvm::Error renew = (*cache)->renew(key, 600);
              if (!renew)
                return 1;
              llvm::consumeError(std::move(renew));
              if (llvm::Error release = (*cache)->release(key)) {
                llvm::consumeError(std::move(release));
                return 2;
              }
              return 0;
            }),
            0);
  EXPECT_EQ(claimInChild(dir.path, key), kChildHeld);
  {
    KILN_OPEN_CACHE(cache, dir.path);
    KILN_ASSERT_OK(cache->release(key));
    KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
    EXPECT_EQ(stats.activeLeases, 0u);
    // Releasing twice is harmless; renewing a released lease is not possible.
    KILN_ASSERT_OK(cache->release(key));
    llvm::Error renew = cache->renew(key, 60);
    EXPECT_TRUE(bool(renew));
    llvm::consumeError(std::move(renew));
  }
  EXPECT_EQ(claimInChild(dir.path, key), kChildClaimed);
}

TEST(CacheLeases, FailedEntryIsDoneUnlessRetrying) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  std::string key = keyOf(1);
  KILN_ASSERT_OK(cache->recordFailure(makeParts(1), "log", 1, "g"));
  EXPECT_EQ(claimStatus(cache->claim(key, 60)), "done");
  EXPECT_EQ(claimStatus(cache->claim(key, 60, /*retryFailed=*/true)),
            "claimed");
  // A retry held by this process blocks another retrier.
  cache.reset();
  EXPECT_EQ(claimInChild(dir.path, key, 600, true), kChildHeld);
  EXPECT_EQ(claimInChild(dir.path, key, 600, false), kChildDone);
  // A successful entry is done even for a retrier.
  KILN_OPEN_CACHE(again, dir.path);
  KILN_ASSERT_OK(again->publish(makeParts(2), "x", 1, "g"));
  EXPECT_EQ(claimStatus(again->claim(keyOf(2), 60, true)), "done");
  // A failure recorded again (the retry failed too) ends the lease.
  KILN_ASSERT_OK(again->recordFailure(makeParts(1), "log 2", 1, "g"));
  KILN_ASSIGN_OR_FAIL(stats, again->getStats());
  EXPECT_EQ(stats.activeLeases, 0u);
  EXPECT_EQ(readPayload(again->getLogPath(key)), "log 2");
}

TEST(CacheLeases, EvictionSkipsEntriesUnderLiveLease) {
  TempDir dir;
  std::string failed = keyOf(1), leasedOk = keyOf(2), deadLease = keyOf(3);
  {
    KILN_OPEN_CACHE(cache, dir.path);
    // Oldest first: a failed compilation being retried by this process.
    KILN_ASSERT_OK(cache->recordFailure(makeParts(1), "log", 1, "g"));
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    KILN_ASSERT_OK(
        cache->publish(makeParts(2), std::string(1000, 'a'), 1, "g"));
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    KILN_ASSERT_OK(
        cache->publish(makeParts(3), std::string(1000, 'b'), 1, "g"));
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    KILN_ASSERT_OK(
        cache->publish(makeParts(4), std::string(1000, 'c'), 1, "g"));
    EXPECT_EQ(claimStatus(cache->claim(failed, 600, true)), "claimed");
  }
  // A lease on an ok entry (a worker that claimed before another process
  // stored the artifact with `kiln cache put`) by this live process, and one
  // by a dead process.
  int64_t later = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count() +
                  600000;
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  pid_t dead = forkChild([] { return 0; });
  ASSERT_EQ(waitChild(dead), 0);
  execSql(dir.path, "INSERT INTO leases VALUES ('" + leasedOk + "', '" + host +
                        "', " + std::to_string(getpid()) + ", 0, " +
                        std::to_string(later) + "), ('" + deadLease + "', '" +
                        host + "', " + std::to_string(dead) + ", 0, " +
                        std::to_string(later) + ")");
  KILN_OPEN_CACHE(cache, dir.path);
  KILN_ASSIGN_OR_FAIL(report, cache->evict(0));
  // Oldest first: 1 and 2 are leased by this live process; 3's owner died.
  EXPECT_EQ(report.removedEntries, 2u);
  EXPECT_EQ(report.removedBytes, 2000u);
  EXPECT_EQ(report.remainingBytes, 1000u);
  KILN_ASSIGN_OR_FAIL(list, cache->list());
  EXPECT_EQ(keysOf(list),
            (std::vector<std::string>{std::min(failed, leasedOk),
                                      std::max(failed, leasedOk)}));
}

//===----------------------------------------------------------------------===//
// Eviction
//===----------------------------------------------------------------------===//

TEST(CacheEviction, LeastRecentlyUsedGoesFirst) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  constexpr int kEntries = 10;
  for (int i = 0; i < kEntries; ++i) {
    KILN_ASSERT_OK(cache->publish(makeParts(i),
                                  makeArtifact(keyOf(i), 0, i, 1000), 1, "g"));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Touch in this order; publication order was 0..9.
  std::vector<int> touch = {3, 0, 7, 9, 1, 5};
  for (int i : touch) {
    EXPECT_EQ(lookupStatus(*cache, keyOf(i), i % 2), "hit");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Least recently used now: 2 4 6 8 (never touched), then 3 0 7 9 1 5.
  std::vector<int> order = {2, 4, 6, 8, 3, 0, 7, 9, 1, 5};
  // A miss or a failed lookup does not touch anything.
  EXPECT_EQ(lookupStatus(*cache, keyOf(100), true), "miss");

  uint64_t limit = kEntries * 1000;
  for (int removed = 0; removed <= kEntries; ++removed) {
    // Not a multiple of the size: the limit is never exceeded.
    uint64_t maxBytes = (kEntries - removed) * 1000 + (removed % 2 ? 500 : 0);
    if (maxBytes > limit)
      maxBytes = limit;
    KILN_ASSIGN_OR_FAIL(report, cache->evict(maxBytes));
    KILN_ASSIGN_OR_FAIL(list, cache->list());
    std::vector<std::string> expected;
    for (int i = removed; i < kEntries; ++i)
      expected.push_back(keyOf(order[i]));
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(keysOf(list), expected) << "after evicting to " << maxBytes;
    EXPECT_EQ(report.remainingBytes, (kEntries - removed) * 1000u);
    EXPECT_LE(report.remainingBytes, maxBytes);
    for (int i = 0; i < removed; ++i)
      EXPECT_FALSE(
          llvm::sys::fs::exists(cache->getObjectPath(keyOf(order[i]))));
    limit = (kEntries - removed) * 1000;
  }
  KILN_ASSIGN_OR_FAIL(verify, cache->verify(false));
  EXPECT_TRUE(verify.clean());
}

TEST(CacheEviction, LimitAboveTotalRemovesNothing) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  for (int i = 0; i < 4; ++i)
    KILN_ASSERT_OK(cache->publish(makeParts(i), std::string(100, 'x'), 1, "g"));
  KILN_ASSIGN_OR_FAIL(report, cache->evict(400));
  EXPECT_EQ(report.removedEntries, 0u);
  EXPECT_EQ(report.remainingBytes, 400u);
  KILN_ASSIGN_OR_FAIL(list, cache->list());
  EXPECT_EQ(list.size(), 4u);
}

//===----------------------------------------------------------------------===//
// Corruption
//===----------------------------------------------------------------------===//

TEST(CacheCorruption, EveryFlippedBitIsDetected) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  std::vector<size_t> sizes = {1,    2,    7,    64,    100,
                               4095, 4096, 4097, 65536, 300001};
  std::vector<std::string> artifacts;
  for (size_t i = 0; i < sizes.size(); ++i) {
    artifacts.push_back(makeArtifact(keyOf(i), 0, i, sizes[i]));
    // Tiny artifacts are shorter than a header: take their first bytes.
    artifacts.back().resize(sizes[i]);
    KILN_ASSERT_OK(cache->publish(makeParts(i), artifacts[i], 1, "g"));
  }
  std::mt19937_64 random(12345);
  constexpr unsigned kTrials = 300;
  for (unsigned trial = 0; trial < kTrials; ++trial) {
    size_t which = random() % sizes.size();
    std::string key = keyOf(which);
    const std::string &original = artifacts[which];
    // First bit of the first byte, last bit of the last byte, then anywhere.
    // Anywhere in the file: its header (with its own checksum) or its
    // payload (the index's checksum).
    std::string path = cache->getObjectPath(key);
    std::string file = *readFile(path);
    ASSERT_EQ(file.substr(file.size() - original.size()), original);
    size_t byte = trial % 3 == 0   ? 0
                  : trial % 3 == 1 ? file.size() - 1
                                   : random() % file.size();
    unsigned bit = trial % 3 == 0 ? 0 : trial % 3 == 1 ? 7 : random() % 8;
    std::string damaged = file;
    damaged[byte] ^= char(1u << bit);
    ASSERT_TRUE(writeFile(path, damaged));

    SCOPED_TRACE(llvm::formatv("trial {0}: size {1}, byte {2}, bit {3}", trial,
                               original.size(), byte, bit)
                     .str());
    KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
    EXPECT_EQ(report.corruptFiles, std::vector<std::string>{key});
    EXPECT_TRUE(report.missingFiles.empty());
    EXPECT_TRUE(report.orphanFiles.empty());
    EXPECT_EQ(report.checked, sizes.size());
    EXPECT_FALSE(report.clean());

    KILN_ASSIGN_OR_FAIL(result, cache->lookup(key, /*verify=*/true));
    EXPECT_EQ(result.status, LookupStatus::Corrupt);
    // A flip in the payload fails the index's checksum; one in the header
    // fails the header's own checks (magic, lengths, checksum, key).
    bool inHeader = byte < file.size() - original.size();
    EXPECT_NE(result.problem.find(inHeader ? "header" : "checksum"),
              std::string::npos)
        << result.problem;
    // Removed: row and file.
    EXPECT_FALSE(llvm::sys::fs::exists(path));
    EXPECT_EQ(lookupStatus(*cache, key, true), "miss");
    KILN_ASSIGN_OR_FAIL(clean, cache->verify(false));
    EXPECT_TRUE(clean.clean());
    KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
    EXPECT_EQ(stats.corrupt, trial + 1);
    EXPECT_EQ(stats.entries, sizes.size() - 1);

    KILN_ASSERT_OK(cache->publish(makeParts(which), original, 1, "g"));
    if (::testing::Test::HasFailure())
      return;
  }
}

TEST(CacheCorruption, TruncatedGrownAndMissingFiles) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  std::string key = keyOf(1);
  std::string artifact = makeArtifact(key, 0, 0, 5000);
  std::string path = cache->getObjectPath(key);
  struct Damage {
    const char *name;
    std::function<void()> apply;
    const char *problem;
  };
  std::vector<Damage> damages = {
      {"truncated",
       [&] { writeFile(path, headerOf(path) + artifact.substr(0, 4999)); },
       "bytes"},
      {"grown", [&] { writeFile(path, headerOf(path) + artifact + "x"); },
       "bytes"},
      {"emptied", [&] { writeFile(path, ""); }, "header"},
      {"missing", [&] { ::unlink(path.c_str()); }, "missing"},
  };
  for (const Damage &damage : damages) {
    SCOPED_TRACE(damage.name);
    KILN_ASSERT_OK(cache->publish(makeParts(1), artifact, 1, "g"));
    damage.apply();
    KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
    EXPECT_EQ(report.corruptFiles.size() + report.missingFiles.size(), 1u);
    KILN_ASSIGN_OR_FAIL(result, cache->lookup(key, true));
    EXPECT_EQ(result.status, LookupStatus::Corrupt);
    EXPECT_NE(result.problem.find(damage.problem), std::string::npos)
        << result.problem;
    EXPECT_EQ(lookupStatus(*cache, key, true), "miss");
  }
  // Without verification a missing file is still noticed (cheaply).
  KILN_ASSERT_OK(cache->publish(makeParts(1), artifact, 1, "g"));
  ::unlink(path.c_str());
  EXPECT_EQ(lookupStatus(*cache, key, /*verify=*/false), "corrupt");
  EXPECT_EQ(lookupStatus(*cache, key, false), "miss");
}

TEST(CacheCorruption, RepairRemovesBadEntriesAndStrayFiles) {
  TempDir dir;
  KILN_OPEN_CACHE(cache, dir.path);
  for (int i = 0; i < 4; ++i)
    KILN_ASSERT_OK(cache->publish(makeParts(i),
                                  makeArtifact(keyOf(i), 0, i, 2000), 1, "g"));
  std::string corrupt = cache->getObjectPath(keyOf(0));
  std::string original = *readFile(corrupt);
  original[100] ^= 4;
  ASSERT_TRUE(writeFile(corrupt, original));
  ::unlink(cache->getObjectPath(keyOf(1)).c_str());
  std::string orphan = cache->getObjectPath(keyOf(50));
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(orphan));
  ASSERT_TRUE(writeFile(orphan, "orphan"));
  ASSERT_TRUE(writeFile(dir.sub("logs/" + keyOf(51) + ".log"), "orphan log"));
  std::string freshTmp = dir.sub("tmp/fresh.1.2.3");
  std::string staleTmp = dir.sub("tmp/stale.1.2.3");
  ASSERT_TRUE(writeFile(freshTmp, "a writer at work"));
  ASSERT_TRUE(writeFile(staleTmp, "a writer that died"));
  ASSERT_TRUE(backdate(staleTmp, 2 * 3600));

  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_EQ(report.checked, 4u);
  EXPECT_EQ(report.corruptFiles, std::vector<std::string>{keyOf(0)});
  EXPECT_EQ(report.missingFiles, std::vector<std::string>{keyOf(1)});
  EXPECT_EQ(report.orphanFiles.size(), 2u);
  EXPECT_EQ(report.staleTemporaries, std::vector<std::string>{staleTmp});
  EXPECT_FALSE(report.repaired);

  KILN_ASSIGN_OR_FAIL(repair, cache->verify(true));
  EXPECT_TRUE(repair.repaired);
  EXPECT_EQ(repair.corruptFiles.size() + repair.missingFiles.size(), 2u);
  EXPECT_FALSE(llvm::sys::fs::exists(corrupt));
  EXPECT_FALSE(llvm::sys::fs::exists(orphan));
  EXPECT_FALSE(llvm::sys::fs::exists(staleTmp));
  EXPECT_TRUE(llvm::sys::fs::exists(freshTmp)); // might still be written
  KILN_ASSIGN_OR_FAIL(after, cache->verify(false));
  EXPECT_TRUE(after.clean());
  EXPECT_EQ(after.checked, 2u);
  KILN_ASSIGN_OR_FAIL(list, cache->list());
  EXPECT_EQ(keysOf(list),
            (std::vector<std::string>{std::min(keyOf(2), keyOf(3)),
                                      std::max(keyOf(2), keyOf(3))}));
}

//===----------------------------------------------------------------------===//
// Full disk
//===----------------------------------------------------------------------===//

namespace {

/// What must not change when a write fails.
struct IndexState {
  std::vector<std::string> rows;
  uint64_t entries = 0, failed = 0, bytes = 0, hits = 0, misses = 0;
  std::vector<std::string> objects, logs, tmp;
  bool operator==(const IndexState &other) const {
    return std::tie(rows, entries, failed, bytes, hits, misses, objects, logs,
                    tmp) == std::tie(other.rows, other.entries, other.failed,
                                     other.bytes, other.hits, other.misses,
                                     other.objects, other.logs, other.tmp);
  }
};

void PrintTo(const IndexState &state, std::ostream *os) {
  *os << "{rows:";
  for (const std::string &row : state.rows)
    *os << " [" << row << "]";
  *os << " entries=" << state.entries << " failed=" << state.failed
      << " bytes=" << state.bytes << " hits=" << state.hits
      << " misses=" << state.misses << " objects=" << state.objects.size()
      << " logs=" << state.logs.size() << " tmp:";
  for (const std::string &file : state.tmp)
    *os << " " << file;
  *os << "}";
}

IndexState captureState(Cache &cache) {
  IndexState state;
  auto list = cache.list();
  if (!list) {
    state.rows.push_back(llvm::toString(list.takeError()));
    return state;
  }
  for (const CacheEntry &entry : *list)
    state.rows.push_back(llvm::formatv("{0} {1} {2} {3} {4} {5}", entry.key,
                                       entry.ok, entry.size, entry.checksum,
                                       entry.hits, entry.lastUsedMs));
  auto stats = cache.getStats();
  if (stats) {
    state.entries = stats->entries;
    state.failed = stats->failedEntries;
    state.bytes = stats->bytes;
    state.hits = stats->hits;
    state.misses = stats->misses;
  } else {
    llvm::consumeError(stats.takeError());
  }
  std::string root = cache.getDirectory().str();
  state.objects = filesBelow(root + "/objects");
  state.logs = filesBelow(root + "/logs");
  state.tmp = filesBelow(root + "/tmp");
  return state;
}

void expectNoSpaceError(llvm::Error error) {
  ASSERT_TRUE(bool(error)) << "the write did not fail";
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("No space left on device"), std::string::npos)
      << message;
}

/// Mounts a tmpfs of `size` on `path` for the object's lifetime.
class TmpfsMount {
public:
  TmpfsMount(const std::string &path, const char *size) : path(path) {
    std::string options = std::string("size=") + size;
    if (::mount("tmpfs", path.c_str(), "tmpfs", 0, options.c_str()) == 0)
      mounted = true;
    else
      error = errno;
  }
  ~TmpfsMount() {
    if (mounted)
      ::umount2(path.c_str(), MNT_DETACH);
  }
  std::string path;
  bool mounted = false;
  int error = 0;
};

} // namespace

TEST(CacheFullDisk, InjectedNoSpaceLeavesIndexUnchanged) {
  TempDir dir;
  Cache::OpenOptions options;
  options.testHooks.failWritesAfterBytes = 4096;
  KILN_OPEN_CACHE(cache, dir.path, options);
  for (int i = 0; i < 3; ++i)
    KILN_ASSERT_OK(cache->publish(makeParts(i),
                                  makeArtifact(keyOf(i), 0, i, 1000), 1, "g"));
  KILN_ASSERT_OK(cache->recordFailure(makeParts(3), "short log", 1, "g"));
  EXPECT_EQ(lookupStatus(*cache, keyOf(0), true), "hit");
  IndexState before = captureState(*cache);
  ASSERT_EQ(before.entries, 4u);
  ASSERT_EQ(before.objects.size(), 3u);

  // Over the limit in its first chunk, and in a later chunk (chunks are
  // 1 MiB).
  for (size_t size : {size_t(8192), size_t(3u << 20)}) {
    SCOPED_TRACE(size);
    expectNoSpaceError(cache->publish(
        makeParts(10), makeArtifact(keyOf(10), 0, 0, size), 1, "big.hlo"));
    EXPECT_EQ(captureState(*cache), before);
    EXPECT_TRUE(captureState(*cache).tmp.empty());
    EXPECT_FALSE(llvm::sys::fs::exists(cache->getObjectPath(keyOf(10))));
  }
  // A failed compilation's log meets the same full disk.
  expectNoSpaceError(
      cache->recordFailure(makeParts(11), std::string(10000, 'e'), 1, "g"));
  EXPECT_EQ(captureState(*cache), before);
  // Under a lease: the failure leaves the lease to its owner (who may
  // retry or release) and the key unpublished.
  EXPECT_EQ(claimStatus(cache->claim(keyOf(12), 600)), "claimed");
  expectNoSpaceError(
      cache->publish(makeParts(12), std::string(5000, 'z'), 1, "g"));
  EXPECT_EQ(lookupStatus(*cache, keyOf(12), true), "miss");
  KILN_ASSERT_OK(cache->release(keyOf(12)));

  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_TRUE(report.clean());
  // The cache still works for what fits.
  KILN_ASSERT_OK(cache->publish(makeParts(13), "small", 1, "g"));
  EXPECT_EQ(lookupStatus(*cache, keyOf(13), true), "hit");
}

TEST(CacheFullDisk, ReplacementThatDoesNotFitKeepsTheCachedArtifact) {
  // A forced recompilation whose bytes cannot be written (a full disk)
  // must not cost the artifact that was there: the new bytes are staged
  // before the old ones are touched.
  TempDir dir;
  Cache::OpenOptions options;
  options.testHooks.failWritesAfterBytes = 4096;
  KILN_OPEN_CACHE(cache, dir.path, options);
  std::string key = keyOf(1);
  std::string first = makeArtifact(key, 1, 0, 1000);
  KILN_ASSERT_OK(cache->publish(makeParts(1), first, 1, "a.hlo"));
  auto replaced = cache->publishArtifact(makeParts(1),
                                         makeArtifact(key, 2, 0, 8192), 1,
                                         "b.hlo", {}, /*replace=*/true);
  ASSERT_FALSE(bool(replaced));
  llvm::consumeError(replaced.takeError());
  KILN_ASSIGN_OR_FAIL(result, cache->lookup(key, true));
  ASSERT_EQ(result.status, LookupStatus::Hit);
  EXPECT_EQ(readPayload(result.entry->path), first);
  // Bytes that fit replace it.
  std::string second = makeArtifact(key, 3, 0, 900);
  KILN_ASSIGN_OR_FAIL(outcome,
                      cache->publishArtifact(makeParts(1), second, 1, "c.hlo",
                                             {}, /*replace=*/true));
  EXPECT_EQ(outcome, PublishOutcome::Stored);
  KILN_ASSIGN_OR_FAIL(now, cache->lookup(key, true));
  ASSERT_EQ(now.status, LookupStatus::Hit);
  EXPECT_EQ(readPayload(now.entry->path), second);
  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_TRUE(report.clean());
}

TEST(CacheFullDisk, RealTinyTmpfs) {
  if (geteuid() != 0)
    GTEST_SKIP() << "mounting a tmpfs needs root";
  TempDir dir;
  std::string mountPoint = dir.sub("mnt");
  ASSERT_TRUE(!llvm::sys::fs::create_directory(mountPoint));
  TmpfsMount mount(mountPoint, "1m");
  if (!mount.mounted)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << strerror(mount.error);
  std::string root = mountPoint + "/cache";
  KILN_OPEN_CACHE(cache, root);
  for (int i = 0; i < 4; ++i)
    KILN_ASSERT_OK(cache->publish(makeParts(i),
                                  makeArtifact(keyOf(i), 0, i, 20000), 1, "g"));
  IndexState before = captureState(*cache);
  ASSERT_EQ(before.entries, 4u);

  // 2 MiB cannot fit in 1 MiB: the write itself fails.
  for (size_t size : {size_t(2u << 20), size_t(900u << 10)}) {
    SCOPED_TRACE(size);
    expectNoSpaceError(cache->publish(
        makeParts(10), makeArtifact(keyOf(10), 0, 0, size), 1, "big.hlo"));
    EXPECT_EQ(captureState(*cache), before);
    EXPECT_TRUE(filesBelow(root + "/tmp").empty());
  }
  expectNoSpaceError(
      cache->recordFailure(makeParts(11), std::string(2u << 20, 'e'), 1, "g"));
  EXPECT_EQ(captureState(*cache), before);

  // The space of the failed writes was given back.
  KILN_ASSERT_OK(cache->publish(makeParts(12),
                                makeArtifact(keyOf(12), 0, 0, 100000), 1, "g"));
  for (int i : {0, 1, 2, 3, 12}) {
    KILN_ASSIGN_OR_FAIL(result, cache->lookup(keyOf(i), true));
    ASSERT_EQ(result.status, LookupStatus::Hit);
    EXPECT_EQ(checkArtifact(*readPayload(result.entry->path), keyOf(i)), "");
  }
  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_TRUE(report.clean());
}

// Lookups on a full disk: with the -wal and -shm files kept (as kiln keeps
// them), and without them (a cache last closed by a kiln that let SQLite
// delete them), a read-only open and an open for lookups both serve hits.
TEST(CacheFullDisk, LookupsOnAFullDisk) {
  if (geteuid() != 0)
    GTEST_SKIP() << "mounting a tmpfs needs root";
  for (bool dropWalFiles : {false, true}) {
    SCOPED_TRACE(dropWalFiles);
    TempDir dir;
    std::string mountPoint = dir.sub("mnt");
    ASSERT_TRUE(!llvm::sys::fs::create_directory(mountPoint));
    TmpfsMount mount(mountPoint, "1m");
    if (!mount.mounted)
      GTEST_SKIP() << "cannot mount a tmpfs here: " << strerror(mount.error);
    std::string root = mountPoint + "/cache";
    {
      KILN_OPEN_CACHE(cache, root);
      KILN_ASSERT_OK(cache->publish(
          makeParts(1), makeArtifact(keyOf(1), 0, 1, 20000), 1, "g"));
    }
    EXPECT_TRUE(llvm::sys::fs::exists(root + "/index.db-shm"));
    if (dropWalFiles) {
      llvm::sys::fs::remove(root + "/index.db-wal");
      llvm::sys::fs::remove(root + "/index.db-shm");
    }
    // Fill the disk.
    {
      std::error_code error;
      llvm::raw_fd_ostream fill(mountPoint + "/fill", error);
      std::string block(4096, 'f');
      for (int i = 0; i < 1024 && !fill.has_error(); ++i)
        fill << block;
      fill.flush();
      fill.clear_error();
    }
    for (bool readOnly : {true, false}) {
      SCOPED_TRACE(readOnly);
      Cache::OpenOptions options;
      options.readOnly = readOnly;
      options.readOnlyIfUnwritable = true;
      auto cache = Cache::open(root, options);
      ASSERT_TRUE(bool(cache)) << llvm::toString(cache.takeError());
      KILN_ASSIGN_OR_FAIL(hit, (*cache)->lookup(keyOf(1), true));
      EXPECT_EQ(hit.status, LookupStatus::Hit);
      KILN_ASSIGN_OR_FAIL(miss, (*cache)->lookup(keyOf(2), true));
      EXPECT_EQ(miss.status, LookupStatus::Miss);
      KILN_ASSIGN_OR_FAIL(entries, (*cache)->listRecent(10));
      EXPECT_EQ(entries.size(), 1u);
    }
  }
}

// Eviction and rm are what one runs on a full disk. Their deletion of rows
// must commit before the files go: if the commit fails (here: no room for
// the write-ahead log to grow), every row must still have its file.
TEST(CacheFullDisk, RemovalThatCannotCommitKeepsRowsAndFiles) {
  if (geteuid() != 0)
    GTEST_SKIP() << "mounting a tmpfs needs root";
  TempDir dir;
  std::string mountPoint = dir.sub("mnt");
  ASSERT_TRUE(!llvm::sys::fs::create_directory(mountPoint));
  TmpfsMount mount(mountPoint, "1m");
  if (!mount.mounted)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << strerror(mount.error);
  std::string root = mountPoint + "/cache";
  KILN_OPEN_CACHE(cache, root);
  for (int i = 0; i < 10; ++i) {
    KILN_ASSERT_OK(cache->publish(makeParts(i),
                                  makeArtifact(keyOf(i), 0, i, 1000), 1, "g"));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Fill the disk to the last byte.
  std::string filler = mountPoint + "/filler";
  int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  std::string block(4096, 'f');
  while (::write(fd, block.data(), block.size()) > 0)
    ;
  while (::write(fd, block.data(), 1) > 0)
    ;
  ::close(fd);

  // Each frees one small file, less than its commit needs.
  auto evicted = cache->evict(9000);
  if (!evicted)
    llvm::consumeError(evicted.takeError());
  auto removed = cache->remove(keyOf(5));
  if (!removed)
    llvm::consumeError(removed.takeError());
  KILN_ASSIGN_OR_FAIL(full, cache->verify(false));
  EXPECT_TRUE(full.missingFiles.empty())
      << full.missingFiles.size() << " rows lost their file, e.g. "
      << full.missingFiles.front();
  EXPECT_TRUE(full.corruptFiles.empty());

  ::unlink(filler.c_str());
  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_TRUE(report.missingFiles.empty());
  KILN_ASSIGN_OR_FAIL(list, cache->list());
  for (const CacheEntry &entry : list) {
    KILN_ASSIGN_OR_FAIL(result, cache->lookup(entry.key, true));
    EXPECT_EQ(result.status, LookupStatus::Hit) << entry.key;
  }
  // With room again, the removals work, and what is left is consistent.
  KILN_ASSIGN_OR_FAIL(again, cache->evict(5000));
  EXPECT_EQ(again.remainingBytes, 5000u);
  KILN_ASSERT_OK(cache->verify(true).takeError());
  KILN_ASSIGN_OR_FAIL(clean, cache->verify(false));
  EXPECT_TRUE(clean.clean());
}

//===----------------------------------------------------------------------===//
// Read-only caches
//===----------------------------------------------------------------------===//

namespace {

/// A cache with entries 0..4 (4000 bytes each) and failed entry 5, closed.
void populateForReading(const std::string &root) {
  KILN_OPEN_CACHE(cache, root);
  for (int i = 0; i < 5; ++i)
    KILN_ASSERT_OK(cache->publish(makeParts(i),
                                  makeArtifact(keyOf(i), 0, i, 4000), 1, "g"));
  KILN_ASSERT_OK(cache->recordFailure(makeParts(5), "log", 1, "g"));
}

/// Everything a reader may do and may not do, as a child's exit code: 0 if
/// all went as it should; otherwise the problem is on stderr.
int exerciseReadOnlyCache(const std::string &root, Cache::OpenOptions options) {
  auto opened = Cache::open(root, options);
  if (!opened) {
    llvm::errs() << "reader: open: " << llvm::toString(opened.takeError())
                 << "\n";
    return 2;
  }
  Cache &cache = **opened;
  int problems = 0;
  auto problem = [&](const llvm::Twine &what) {
    llvm::errs() << "reader: " << what << "\n";
    ++problems;
  };
  if (!cache.isReadOnly())
    problem("isReadOnly() is false");
  for (int i = 0; i < 5; ++i)
    for (bool verify : {true, false}) {
      auto result = cache.lookup(keyOf(i), verify);
      if (!result) {
        problem("lookup: " + llvm::toString(result.takeError()));
        continue;
      }
      if (result->status != LookupStatus::Hit) {
        problem("lookup of entry " + llvm::Twine(i) + " did not hit");
        continue;
      }
      std::optional<std::string> bytes = readPayload(result->entry->path);
      if (!bytes || !checkArtifact(*bytes, keyOf(i)).empty())
        problem("entry " + llvm::Twine(i) + " does not read back");
    }
  auto miss = cache.lookup(keyOf(100), true);
  if (!miss || miss->status != LookupStatus::Miss)
    problem("lookup of an absent key is not a miss");
  if (!miss)
    llvm::consumeError(miss.takeError());
  auto failed = cache.lookup(keyOf(5), true);
  if (!failed || failed->status != LookupStatus::Failed)
    problem("lookup of a failed entry is not 'failed'");
  if (!failed)
    llvm::consumeError(failed.takeError());

  auto expectReadOnlyError = [&](llvm::Error error, const char *what) {
    if (!error) {
      problem(llvm::Twine(what) + " succeeded on a read-only cache");
      return;
    }
    std::string message = llvm::toString(std::move(error));
    if (message.find("read-only") == std::string::npos ||
        message.find(root) == std::string::npos)
      problem(llvm::Twine(what) + ": unclear error: " + message);
  };
  expectReadOnlyError(cache.publish(makeParts(20), "new", 1, "g"), "publish");
  expectReadOnlyError(cache.recordFailure(makeParts(21), "log", 1, "g"),
                      "recordFailure");
  expectReadOnlyError(cache.claim(keyOf(22), 60).takeError(), "claim");
  expectReadOnlyError(cache.evict(0).takeError(), "evict");
  expectReadOnlyError(cache.remove(keyOf(0)).takeError(), "remove");
  expectReadOnlyError(cache.clear(), "clear");
  expectReadOnlyError(cache.verify(true).takeError(), "verify --repair");

  auto report = cache.verify(false);
  if (!report)
    problem("verify: " + llvm::toString(report.takeError()));
  else if (!report->clean() || report->checked != 5)
    problem("verify is not clean");
  auto stats = cache.getStats();
  if (!stats)
    problem("stats: " + llvm::toString(stats.takeError()));
  else if (stats->entries != 6)
    problem("stats: wrong number of entries");
  auto list = cache.list();
  if (!list)
    problem("list: " + llvm::toString(list.takeError()));
  else if (list->size() != 6)
    problem("list: wrong number of entries");
  return problems ? 1 : 0;
}

void makeWorldReadable(const std::string &root) {
  ::chmod(root.c_str(), 0755);
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(root, error), end;
       !error && it != end; it.increment(error))
    ::chmod(it->path().c_str(),
            it->type() == llvm::sys::fs::file_type::directory_file ? 0755
                                                                   : 0644);
}

} // namespace

TEST(CacheReadOnly, UnwritableDirectoryServesLookups) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to give the cache away to another user";
  // Under /tmp, not $TMPDIR: the other user must be able to reach it (lit's
  // temporary directory is private to us).
  TempDir dir("/tmp");
  std::string root = dir.sub("cache");
  populateForReading(root);
  if (::testing::Test::HasFatalFailure())
    return;
  // kiln keeps index.db-wal and -shm when the last connection closes; a
  // cache last closed by a kiln that did not has neither, and a reader
  // that cannot make them reads the index as immutable.
  ASSERT_EQ(snapshot(dir.path).count("/cache/index.db-wal"), 1u);
  llvm::sys::fs::remove(root + "/index.db-wal");
  llvm::sys::fs::remove(root + "/index.db-shm");
  makeWorldReadable(dir.path);
  std::map<std::string, std::string> before = snapshot(dir.path);

  int code = runInChild([&] {
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 ||
        setuid(65534) != 0) {
      perror("dropping privileges");
      return 3;
    }
    if (access((root + "/index.db").c_str(), W_OK) == 0) {
      llvm::errs() << "reader: still allowed to write\n";
      return 4;
    }
    return exerciseReadOnlyCache(root, Cache::OpenOptions());
  });
  EXPECT_EQ(code, 0) << "the unprivileged reader failed (see its stderr)";
  EXPECT_EQ(snapshot(dir.path), before);
}

TEST(CacheReadOnly, UnwritableDirectoryWhileAWriterHasItOpen) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to give the cache away to another user";
  // Under /tmp, not $TMPDIR: the other user must be able to reach it (lit's
  // temporary directory is private to us).
  TempDir dir("/tmp");
  std::string root = dir.sub("cache");
  populateForReading(root);
  if (::testing::Test::HasFatalFailure())
    return;
  // A writer keeps the index open (its -wal and -shm exist).
  KILN_OPEN_CACHE(writer, root);
  EXPECT_EQ(lookupStatus(*writer, keyOf(0), true), "hit");
  makeWorldReadable(dir.path);
  int code = runInChild([&] {
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
      return 3;
    return exerciseReadOnlyCache(root, Cache::OpenOptions());
  });
  EXPECT_EQ(code, 0) << "the unprivileged reader failed (see its stderr)";
}

TEST(CacheReadOnly, ReadOnlyOptionWritesNothing) {
  TempDir dir;
  std::string root = dir.sub("cache");
  populateForReading(root);
  if (::testing::Test::HasFatalFailure())
    return;
  std::map<std::string, std::string> before = snapshot(dir.path);
  {
    Cache::OpenOptions options;
    options.readOnly = true;
    EXPECT_EQ(exerciseReadOnlyCache(root, options), 0)
        << "see the reader's problems above";
  }
  // The index, the artifacts, the logs and the staging area are untouched.
  // SQLite's own index.db-wal and index.db-shm (kept between uses, and
  // made by a read-only connection to a WAL database where it may) are
  // SQLite's to change; a reader that cannot make them opens the index
  // immutable instead (UnwritableDirectoryServesLookups).
  std::map<std::string, std::string> after = snapshot(dir.path);
  for (const char *sqliteFile : {"/cache/index.db-wal", "/cache/index.db-shm"}) {
    after.erase(sqliteFile);
    before.erase(sqliteFile);
  }
  after.erase("/cache");
  before.erase("/cache");
  EXPECT_EQ(after, before);
  // No hit was counted.
  KILN_OPEN_CACHE(cache, root);
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  EXPECT_EQ(stats.hits, 0u);
  EXPECT_EQ(stats.misses, 0u);
}

TEST(CacheReadOnly, MissingDirectoryIsAnErrorWhenReadOnly) {
  TempDir dir;
  Cache::OpenOptions options;
  options.readOnly = true;
  auto cache = Cache::open(dir.sub("nothing-here"), options);
  ASSERT_FALSE(bool(cache));
  EXPECT_NE(llvm::toString(cache.takeError()).find("no kiln cache"),
            std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(dir.sub("nothing-here")));
}
