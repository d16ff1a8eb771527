//===- CacheConcurrencyTest.cpp - many processes on one cache ---*- C++ -*-===//
//
// This file tests the cache with many processes at once, made with fork()
// (the test creates no thread before forking, and each child opens its own
// Cache):
//
//  * 8 workers do 1000 random lookups, claims, publishes, failures and
//    evictions each on 128 keys. Checked: two workers never hold the lease
//    of one key at once (a marker file created with O_EXCL while the lease
//    is held); every publish after a claim creates a row (publishes =
//    entries at the end + entries evicted), so no key is published twice
//    and no entry is lost; hit and miss counters lose no update; every hit
//    reads back as a complete artifact of its key; at the end verify() is
//    clean and every entry reads back bit-exact with its checksum.
//  * Workers that publish large artifacts in a loop are killed with SIGKILL
//    at random points, in several rounds; verify() then finds no missing or
//    corrupt file, every entry reads back bit-exact, leases of the dead are
//    taken over, and verify --repair removes the garbage (files without
//    rows, staging files) so that a second verify is clean.
//
//===----------------------------------------------------------------------===//

#include "CacheTestUtil.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <random>
#include <set>
#include <sys/mman.h>
#include <thread>

using namespace kiln;
using namespace kiln::test;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// What one worker did, written to a file for the parent to add up.
struct WorkerCounts {
  uint64_t lookups = 0, hits = 0, misses = 0, failedLookups = 0,
           corruptLookups = 0, vanishedAfterHit = 0, replacedAfterHit = 0;
  uint64_t claimed = 0, held = 0, done = 0;
  uint64_t published = 0, failuresRecorded = 0, released = 0;
  uint64_t evictions = 0, evicted = 0;
  uint64_t problems = 0;

  std::vector<uint64_t *> fields() {
    return {&lookups,
            &hits,
            &misses,
            &failedLookups,
            &corruptLookups,
            &vanishedAfterHit,
            &replacedAfterHit,
            &claimed,
            &held,
            &done,
            &published,
            &failuresRecorded,
            &released,
            &evictions,
            &evicted,
            &problems};
  }
  void add(WorkerCounts other) {
    std::vector<uint64_t *> mine = fields(), theirs = other.fields();
    for (size_t i = 0; i < mine.size(); ++i)
      *mine[i] += *theirs[i];
  }
  std::string toString() {
    std::string text;
    for (uint64_t *field : fields())
      text += std::to_string(*field) + " ";
    return text;
  }
  static WorkerCounts parse(llvm::StringRef text) {
    WorkerCounts counts;
    llvm::SmallVector<llvm::StringRef> words;
    text.trim().split(words, ' ');
    std::vector<uint64_t *> fields = counts.fields();
    for (size_t i = 0; i < fields.size() && i < words.size(); ++i)
      words[i].getAsInteger(10, *fields[i]);
    return counts;
  }
};


/// The body of one worker of the random-operations test.
int randomWorker(const std::string &root, const std::string &state, unsigned id,
                 unsigned operations, unsigned numKeys) {
  auto opened = Cache::open(root);
  if (!opened) {
    llvm::errs() << "worker " << id << ": "
                 << llvm::toString(opened.takeError()) << "\n";
    return 2;
  }
  Cache &cache = **opened;
  WorkerCounts counts;
  auto problem = [&](const llvm::Twine &what) {
    llvm::errs() << "worker " << id << ": " << what << "\n";
    ++counts.problems;
  };
  std::mt19937_64 random(1000 + id);
  std::string publishLog = state + "/published.log";
  for (unsigned op = 0; op < operations; ++op) {
    unsigned which = random() % numKeys;
    std::string key = keyOf(which);
    unsigned dice = random() % 100;
    if (dice < 50) {
      bool verify = random() % 2;
      ++counts.lookups;
      auto result = cache.lookup(key, verify);
      if (!result) {
        problem("lookup: " + llvm::toString(result.takeError()));
        continue;
      }
      switch (result->status) {
      case LookupStatus::Miss:
        ++counts.misses;
        break;
      case LookupStatus::Failed:
        ++counts.failedLookups;
        break;
      case LookupStatus::Corrupt:
        // Nothing here damages files: a Corrupt is a false alarm.
        ++counts.corruptLookups;
        problem("lookup of " + key + " says corrupt: " + result->problem);
        break;
      case LookupStatus::Untrusted:
        // Nothing here is signed or trusts keys.
        problem("lookup of " + key + " says untrusted: " + result->problem);
        break;
      case LookupStatus::Hit: {
        ++counts.hits;
        // The entry may be evicted (and even published again by another
        // worker) between the lookup and this read; what is read must
        // still be a whole artifact of this key.
        std::optional<std::string> bytes = readPayload(result->entry->path);
        if (!bytes) {
          ++counts.vanishedAfterHit;
          break;
        }
        std::string wrong = checkArtifact(*bytes, key);
        if (!wrong.empty())
          problem("hit on " + key + " reads back wrong: " + wrong);
        else if (Hash128::of(*bytes).toHex() != result->entry->checksum)
          ++counts.replacedAfterHit;
        break;
      }
      }
    } else if (dice < 85) {
      auto status = cache.claim(key, 600);
      if (!status) {
        problem("claim: " + llvm::toString(status.takeError()));
        continue;
      }
      if (*status == ClaimStatus::HeldElsewhere) {
        ++counts.held;
        continue;
      }
      if (*status == ClaimStatus::AlreadyDone) {
        ++counts.done;
        continue;
      }
      ++counts.claimed;
      // While the lease is ours no other worker may hold it.
      std::string marker = state + "/holders/" + key;
      int fd =
          ::open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd < 0)
        problem("claimed " + key + " while another worker holds it");
      else
        ::close(fd);
      // The compilation: a little time.
      if (random() % 4 == 0)
        std::this_thread::sleep_for(std::chrono::microseconds(random() % 2000));
      unsigned what = random() % 100;
      ::unlink(marker.c_str()); // before the lease ends
      if (what < 85) {
        size_t size = 1 + random() % (32 << 10);
        std::string artifact = makeArtifact(key, id, op, size);
        if (llvm::Error error =
                cache.publish(makeParts(which), artifact, 0.5, "g")) {
          problem("publish: " + llvm::toString(std::move(error)));
          continue;
        }
        ++counts.published;
        appendLine(publishLog, llvm::formatv("{0} {1} {2}", key, id, op));
      } else if (what < 95) {
        if (llvm::Error error = cache.recordFailure(
                makeParts(which), "worker " + std::to_string(id), 0.5, "g")) {
          problem("recordFailure: " + llvm::toString(std::move(error)));
          continue;
        }
        ++counts.failuresRecorded;
      } else {
        if (llvm::Error error = cache.release(key)) {
          problem("release: " + llvm::toString(std::move(error)));
          continue;
        }
        ++counts.released;
      }
    } else if (dice < 92) {
      auto report = cache.evict(512 << 10);
      if (!report) {
        problem("evict: " + llvm::toString(report.takeError()));
        continue;
      }
      ++counts.evictions;
      counts.evicted += report->removedEntries;
    } else {
      // Readers of the whole index alongside the writers.
      auto stats = cache.getStats();
      if (!stats)
        problem("stats: " + llvm::toString(stats.takeError()));
      auto list = cache.list();
      if (!list)
        problem("list: " + llvm::toString(list.takeError()));
      else
        for (const CacheEntry &entry : *list)
          if (entry.key != entry.parts.key().toHex())
            problem("list: row " + entry.key + " has parts of another key");
    }
  }
  if (!writeFile(state + "/worker-" + std::to_string(id), counts.toString()))
    return 3;
  return counts.problems ? 1 : 0;
}

/// Checks every entry of the cache in `root`: artifacts read back bit-exact
/// with their checksum, failed entries have their log. Returns the entries.
std::vector<CacheEntry> checkEveryEntry(Cache &cache) {
  auto list = cache.list();
  EXPECT_TRUE(bool(list)) << llvm::toString(list.takeError());
  if (!list)
    return {};
  for (const CacheEntry &entry : *list) {
    if (!entry.ok) {
      EXPECT_TRUE(llvm::sys::fs::exists(entry.path)) << entry.path;
      continue;
    }
    std::optional<std::string> bytes = readPayload(entry.path);
    if (!bytes) {
      ADD_FAILURE() << "entry " << entry.key << ": file " << entry.path
                    << " is missing";
      continue;
    }
    EXPECT_EQ(bytes->size(), entry.size) << entry.key;
    EXPECT_EQ(Hash128::of(*bytes).toHex(), entry.checksum) << entry.key;
    EXPECT_EQ(checkArtifact(*bytes, entry.key), "") << entry.key;
    auto lookup = cache.lookup(entry.key, /*verify=*/true);
    EXPECT_TRUE(bool(lookup) && lookup->status == LookupStatus::Hit)
        << entry.key;
    if (!lookup)
      llvm::consumeError(lookup.takeError());
  }
  return *list;
}

} // namespace

TEST(CacheConcurrency, EightProcessesRandomOperations) {
  constexpr unsigned kWorkers = 8, kOperations = 1000, kKeys = 128;
  TempDir dir;
  std::string root = dir.sub("cache");
  std::string state = dir.sub("state");
  ASSERT_FALSE(llvm::sys::fs::create_directories(state + "/holders"));
  Clock::time_point start = Clock::now();
  std::vector<pid_t> workers;
  for (unsigned id = 0; id < kWorkers; ++id) {
    pid_t pid = forkChild(
        [&] { return randomWorker(root, state, id, kOperations, kKeys); });
    ASSERT_GT(pid, 0);
    workers.push_back(pid);
  }
  for (unsigned id = 0; id < kWorkers; ++id)
    EXPECT_EQ(waitChild(workers[id]), 0)
        << "worker " << id << " found problems (see its stderr)";
  double workSeconds = secondsSince(start);

  WorkerCounts total;
  for (unsigned id = 0; id < kWorkers; ++id) {
    std::optional<std::string> text =
        readFile(state + "/worker-" + std::to_string(id));
    ASSERT_TRUE(text) << "worker " << id << " wrote no counts";
    total.add(WorkerCounts::parse(*text));
  }
  KILN_OPEN_CACHE(cache, root);
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  // Each publish or failure after a claim made one row: those rows are
  // still there or were evicted. A second publish of a key (two holders)
  // would be dropped and break this; so would a lost row.
  EXPECT_EQ(total.published + total.failuresRecorded,
            stats.entries + total.evicted);
  // No counter update was lost.
  EXPECT_EQ(stats.hits, total.hits);
  EXPECT_EQ(stats.misses,
            total.misses + total.failedLookups + total.corruptLookups);
  EXPECT_EQ(stats.corrupt, 0u);
  EXPECT_EQ(stats.activeLeases, 0u);
  EXPECT_EQ(total.problems, 0u);
  EXPECT_TRUE(filesBelow(state + "/holders").empty());

  KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
  EXPECT_TRUE(report.clean())
      << report.missingFiles.size() << " missing, "
      << report.corruptFiles.size() << " corrupt, " << report.orphanFiles.size()
      << " orphans, " << report.staleTemporaries.size() << " stale temporaries";
  EXPECT_TRUE(filesBelow(root + "/tmp").empty());

  // Each remaining artifact is one that a worker published for that key.
  std::set<std::string> publishedArtifacts;
  std::optional<std::string> log = readFile(state + "/published.log");
  ASSERT_TRUE(log);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(*log).split(lines, '\n', -1, /*KeepEmpty=*/false);
  EXPECT_EQ(lines.size(), total.published);
  for (llvm::StringRef line : lines)
    publishedArtifacts.insert(line.str());
  std::vector<CacheEntry> entries = checkEveryEntry(*cache);
  EXPECT_EQ(entries.size(), stats.entries);
  for (const CacheEntry &entry : entries) {
    if (!entry.ok)
      continue;
    TestArtifactHeader header;
    std::optional<std::string> bytes = readPayload(entry.path);
    ASSERT_TRUE(bytes);
    ASSERT_EQ(checkArtifact(*bytes, entry.key, &header), "");
    EXPECT_TRUE(publishedArtifacts.count(llvm::formatv(
        "{0} {1} {2}", entry.key, header.writer, header.sequence)))
        << entry.key << " holds an artifact nobody published";
  }

  std::printf(
      "[ figures  ] %u workers x %u operations on %u keys in %.2f s: "
      "%llu lookups (%llu hits, %llu misses, %llu failed, %llu read "
      "after eviction), %llu claims won, %llu held elsewhere, %llu "
      "already done, %llu published, %llu failures recorded, %llu "
      "released, %llu evictions removing %llu entries; %llu entries "
      "at the end\n",
      kWorkers, kOperations, kKeys, workSeconds,
      (unsigned long long)total.lookups, (unsigned long long)total.hits,
      (unsigned long long)total.misses, (unsigned long long)total.failedLookups,
      (unsigned long long)(total.vanishedAfterHit + total.replacedAfterHit),
      (unsigned long long)total.claimed, (unsigned long long)total.held,
      (unsigned long long)total.done, (unsigned long long)total.published,
      (unsigned long long)total.failuresRecorded,
      (unsigned long long)total.released, (unsigned long long)total.evictions,
      (unsigned long long)total.evicted, (unsigned long long)stats.entries);
  // Every operation was one of these kinds.
  EXPECT_GT(total.published, 0u);
  EXPECT_GT(total.evicted, 0u);
  EXPECT_GT(total.held, 0u);
  EXPECT_GT(total.hits, 0u);
}

namespace {

/// Where each killed worker was, in memory shared with the parent.
enum WorkerPhase : int { Idle = 0, Publishing = 1, Evicting = 2 };

/// The body of a worker that publishes large artifacts until it is killed.
int publishingWorker(const std::string &root, unsigned id, unsigned round,
                     unsigned numKeys, std::atomic<int> *phase) {
  auto opened = Cache::open(root);
  if (!opened) {
    llvm::errs() << "worker " << id << ": "
                 << llvm::toString(opened.takeError()) << "\n";
    return 2;
  }
  Cache &cache = **opened;
  std::mt19937_64 random(round * 100 + id);
  for (uint64_t sequence = 0;; ++sequence) {
    unsigned which = random() % numKeys;
    std::string key = keyOf(which);
    unsigned dice = random() % 10;
    if (dice == 0) {
      phase->store(Evicting);
      auto report = cache.evict(24 << 20);
      phase->store(Idle);
      if (!report) {
        llvm::errs() << "worker " << id
                     << ": evict: " << llvm::toString(report.takeError())
                     << "\n";
        return 1;
      }
      continue;
    }
    if (dice == 1) {
      auto result = cache.lookup(key, /*verify=*/true);
      if (!result) {
        llvm::errs() << "worker " << id
                     << ": lookup: " << llvm::toString(result.takeError())
                     << "\n";
        return 1;
      }
      if (result->status == LookupStatus::Corrupt) {
        llvm::errs() << "worker " << id << ": corrupt: " << result->problem
                     << "\n";
        return 1;
      }
      continue;
    }
    // Half the publishes claim first (a worker), half do not (a `put`).
    if (dice < 6) {
      auto status = cache.claim(key, 600);
      if (!status) {
        llvm::errs() << "worker " << id
                     << ": claim: " << llvm::toString(status.takeError())
                     << "\n";
        return 1;
      }
      if (*status != ClaimStatus::Claimed)
        continue;
    }
    size_t size = (64 << 10) + random() % (2 << 20);
    std::string artifact =
        makeArtifact(key, id, round * 1000000 + sequence, size);
    phase->store(Publishing);
    llvm::Error error = cache.publish(makeParts(which), artifact, 1, "g");
    phase->store(Idle);
    if (error) {
      llvm::errs() << "worker " << id
                   << ": publish: " << llvm::toString(std::move(error)) << "\n";
      return 1;
    }
  }
}

} // namespace

TEST(CacheConcurrency, WorkersKilledDuringPublish) {
  constexpr unsigned kRounds = 8, kWorkers = 4, kKeys = 48;
  TempDir dir;
  std::string root = dir.sub("cache");
  { KILN_OPEN_CACHE(cache, root); }
  // One word per worker, shared with the children.
  void *shared = mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(shared, MAP_FAILED);
  auto *phases = static_cast<std::atomic<int> *>(shared);
  std::mt19937_64 random(42);
  unsigned killed = 0, killedPublishing = 0, killedEvicting = 0;
  Clock::time_point start = Clock::now();
  for (unsigned round = 0; round < kRounds; ++round) {
    std::vector<pid_t> workers;
    for (unsigned id = 0; id < kWorkers; ++id) {
      phases[id].store(Idle);
      pid_t pid = forkChild([&] {
        return publishingWorker(root, id, round, kKeys, &phases[id]);
      });
      ASSERT_GT(pid, 0);
      workers.push_back(pid);
    }
    // Let them work, then kill them one by one at random moments.
    std::this_thread::sleep_for(
        std::chrono::milliseconds(150 + random() % 250));
    for (unsigned id = 0; id < kWorkers; ++id) {
      std::this_thread::sleep_for(std::chrono::milliseconds(random() % 60));
      int phase = phases[id].load();
      killedPublishing += phase == Publishing;
      killedEvicting += phase == Evicting;
      ::kill(workers[id], SIGKILL);
    }
    for (unsigned id = 0; id < kWorkers; ++id) {
      int status = waitChild(workers[id]);
      // A worker that stopped by itself found a problem (on its stderr).
      EXPECT_EQ(status, 128 + SIGKILL) << "round " << round << " worker " << id;
      killed += status == 128 + SIGKILL;
    }

    // What the dead left behind is consistent.
    KILN_OPEN_CACHE(cache, root);
    KILN_ASSIGN_OR_FAIL(report, cache->verify(false));
    EXPECT_TRUE(report.missingFiles.empty())
        << "round " << round << ": " << report.missingFiles.front();
    EXPECT_TRUE(report.corruptFiles.empty())
        << "round " << round << ": " << report.corruptFiles.front();
    checkEveryEntry(*cache);
    // The dead hold no lease: their keys can be claimed at once.
    KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
    EXPECT_EQ(stats.activeLeases, 0u);
    if (::testing::Test::HasFailure())
      break;
  }
  double seconds = secondsSince(start);
  munmap(shared, 4096);

  KILN_OPEN_CACHE(cache, root);
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  KILN_ASSIGN_OR_FAIL(before, cache->verify(false));
  std::vector<std::string> staging = filesBelow(root + "/tmp");
  std::printf("[ figures  ] %u rounds, %u workers killed (%u inside publish, "
              "%u inside evict) in %.2f s; %llu entries (%.1f MiB); garbage "
              "left: %zu files without rows, %zu staging files\n",
              kRounds, killed, killedPublishing, killedEvicting, seconds,
              (unsigned long long)stats.entries, stats.bytes / 1048576.0,
              before.orphanFiles.size(), staging.size());
  EXPECT_GT(killedPublishing, 0u) << "no kill landed inside publish";
  // Staging files of the dead are only called stale after an hour (a live
  // writer could still be writing them); age them.
  for (const std::string &file : staging)
    ASSERT_TRUE(backdate(root + "/tmp/" + file, 2 * 3600));
  KILN_ASSIGN_OR_FAIL(aged, cache->verify(false));
  EXPECT_EQ(aged.staleTemporaries.size(), staging.size());
  KILN_ASSIGN_OR_FAIL(repair, cache->verify(true));
  EXPECT_TRUE(repair.missingFiles.empty());
  EXPECT_TRUE(repair.corruptFiles.empty());
  KILN_ASSIGN_OR_FAIL(after, cache->verify(false));
  EXPECT_TRUE(after.clean());
  EXPECT_TRUE(filesBelow(root + "/tmp").empty());
  std::vector<CacheEntry> entries = checkEveryEntry(*cache);
  EXPECT_EQ(entries.size(), stats.entries);
  EXPECT_EQ(filesBelow(root + "/objects").size(), entries.size());
}

// A reader that found a row just before another process evicted it finds
// the file gone: "Removal never breaks a reader ... the read is a miss"
// (FORMAT.md). It is not corruption: not Corrupt, not counted as corrupt.
TEST(CacheConcurrency, EvictionDuringLookupIsAMissNotCorruption) {
  constexpr unsigned kKeys = 8;
  TempDir dir;
  std::string root = dir.sub("cache");
  { KILN_OPEN_CACHE(cache, root); }
  pid_t evictor = forkChild([&] {
    auto cache = Cache::open(root);
    if (!cache)
      return 2;
    Clock::time_point start = Clock::now();
    for (uint64_t round = 0; secondsSince(start) < 2.0; ++round) {
      for (unsigned i = 0; i < kKeys; ++i) {
        if (llvm::Error error = (*cache)->publish(
                makeParts(i), makeArtifact(keyOf(i), 1, round, 3000), 1, "g")) {
          llvm::errs() << llvm::toString(std::move(error)) << "\n";
          return 1;
        }
        // Room for the reader: SQLite's busy wait polls with sleeps, so a
        // writer that takes the lock in a tight loop would leave it few
        // chances.
        std::this_thread::sleep_for(std::chrono::microseconds(300));
      }
      auto report = (*cache)->evict(0);
      if (!report) {
        llvm::errs() << llvm::toString(report.takeError()) << "\n";
        return 1;
      }
    }
    return 0;
  });
  ASSERT_GT(evictor, 0);
  pid_t reader = forkChild([&] {
    auto cache = Cache::open(root);
    if (!cache)
      return 2;
    unsigned corrupt = 0, hits = 0, lookups = 0;
    Clock::time_point start = Clock::now();
    for (unsigned n = 0; secondsSince(start) < 2.0; ++n) {
      auto result = (*cache)->lookup(keyOf(n % kKeys), n % 2);
      if (!result) {
        llvm::errs() << llvm::toString(result.takeError()) << "\n";
        return 1;
      }
      ++lookups;
      hits += result->status == LookupStatus::Hit;
      if (result->status == LookupStatus::Corrupt) {
        if (!corrupt)
          llvm::errs() << "reader: false alarm: " << result->problem << "\n";
        ++corrupt;
      }
    }
    std::printf("[ figures  ] %u lookups, %u hits, %u reported corrupt\n",
                lookups, hits, corrupt);
    return corrupt ? 3 : 0;
  });
  ASSERT_GT(reader, 0);
  EXPECT_EQ(waitChild(evictor), 0);
  EXPECT_EQ(waitChild(reader), 0) << "lookups racing eviction said Corrupt";
  KILN_OPEN_CACHE(cache, root);
  KILN_ASSIGN_OR_FAIL(stats, cache->getStats());
  EXPECT_EQ(stats.corrupt, 0u);
}

// A training job's lookups must not wait for a compile worker's disk
// writes: publish writes and syncs an artifact before it takes the index's
// write lock (Cache.cpp's file comment), so the lock is held only for a
// rename, a directory sync and a row, and a lookup (which takes the lock
// to count its hit) gets its turn. Thresholds are loose (a 2-core machine
// under load): before, one lookup took about 10 s beside a publisher of
// 4 MiB artifacts.
TEST(CacheConcurrency, LookupsAreNotStarvedByAPublisher) {
  TempDir dir;
  std::string root = dir.sub("cache");
  {
    KILN_OPEN_CACHE(cache, root);
    KILN_ASSERT_OK(cache->publish(makeParts(0), "x", 1, "g"));
  }
  pid_t publisher = forkChild([&] {
    auto cache = Cache::open(root);
    if (!cache)
      return 2;
    std::string artifact(4 << 20, 'a');
    Clock::time_point start = Clock::now();
    for (uint64_t n = 1; secondsSince(start) < 3.0; ++n) {
      memcpy(&artifact[0], &n, sizeof(n));
      if (llvm::Error error =
              (*cache)->publish(makeParts(n), artifact, 1, "g")) {
        llvm::errs() << llvm::toString(std::move(error)) << "\n";
        return 1;
      }
    }
    return 0;
  });
  ASSERT_GT(publisher, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  KILN_OPEN_CACHE(cache, root);
  unsigned lookups = 0;
  double slowest = 0;
  Clock::time_point start = Clock::now();
  while (secondsSince(start) < 2.0) {
    Clock::time_point before = Clock::now();
    auto result = cache->lookup(keyOf(0), /*verify=*/false);
    slowest = std::max(slowest, secondsSince(before));
    ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
    EXPECT_EQ(result->status, LookupStatus::Hit);
    ++lookups;
  }
  EXPECT_EQ(waitChild(publisher), 0);
  std::printf("[ figures  ] %u lookups in 2 s beside a publisher of 4 MiB "
              "artifacts; slowest %.1f ms\n",
              lookups, slowest * 1e3);
  EXPECT_GE(lookups, 20u);
  EXPECT_LT(slowest, 1.0);
}
