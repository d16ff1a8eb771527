//===- RemoteStorageTest.cpp - remote tiers under concurrency ---*- C++ -*-===//
//
// This file tests what lit cannot reach of the remote tiers: many processes
// over two local caches sharing one Redis tier and one file tier (nothing
// lost, nothing corrupt, no lease held by two owners at once), and a stale
// lease on a shared directory taken over by exactly one of many claimers.
// Redis is a real redis-server started here on a free loopback port; where
// there is none the tests that need it are skipped.
//
//===----------------------------------------------------------------------===//

#include "CacheTestUtil.h"

#include "kiln/Cache/TieredCache.h"

#include "llvm/Support/Program.h"

#include <netinet/in.h>
#include <random>
#include <signal.h>
#include <sys/socket.h>
#include <thread>

using namespace kiln;
using namespace kiln::test;

namespace {

/// A port that nothing listens on now.
int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (::bind(fd, (sockaddr *)&address, sizeof(address)) != 0 ||
      ::getsockname(fd, (sockaddr *)&address, &length) != 0) {
    ::close(fd);
    return -1;
  }
  int port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

bool canConnect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  bool connected = ::connect(fd, (sockaddr *)&address, sizeof(address)) == 0;
  ::close(fd);
  return connected;
}

/// A redis-server of the test's own, stopped with the object.
class RedisServer {
public:
  explicit RedisServer(const std::string &directory) {
    llvm::ErrorOr<std::string> program =
        llvm::sys::findProgramByName("redis-server");
    if (!program)
      return;
    port = freePort();
    std::string portText = std::to_string(port);
    socketPath = directory + "/redis.sock";
    pid = forkChild([&] {
      int null = ::open("/dev/null", O_WRONLY);
      dup2(null, 1);
      execl(program->c_str(), "redis-server", "--port", portText.c_str(),
            "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", directory.c_str(), "--unixsocket", socketPath.c_str(),
            (char *)nullptr);
      return 127;
    });
    for (int i = 0; i < 200 && !canConnect(port); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    running = canConnect(port);
  }
  ~RedisServer() {
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      waitChild(pid);
    }
  }
  bool isRunning() const { return running; }
  std::string url() const {
    return "redis://127.0.0.1:" + std::to_string(port);
  }
  std::string unixUrl() const { return "redis+unix:" + socketPath; }

private:
  std::string socketPath;
  pid_t pid = -1;
  int port = -1;
  bool running = false;
};

std::unique_ptr<RemoteStorage> openRemote(const std::string &text) {
  llvm::Expected<RemoteSpec> spec = parseRemoteSpec(text);
  if (!spec) {
    ADD_FAILURE() << llvm::toString(spec.takeError());
    return nullptr;
  }
  llvm::Expected<std::unique_ptr<RemoteStorage>> storage =
      openRemoteStorage(*spec);
  if (!storage) {
    ADD_FAILURE() << llvm::toString(storage.takeError());
    return nullptr;
  }
  return std::move(*storage);
}

/// A cache file as the local tier writes it, for a test artifact.
std::string makeCacheFile(uint64_t n, const std::string &payload) {
  ArtifactHeader header;
  header.parts = makeParts(n);
  header.size = payload.size();
  header.checksum = Hash128::of(payload).toHex();
  header.source = "graph.hlo";
  return encodeArtifactHeader(header) + payload;
}

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// One process of the concurrency test: `operations` random operations on
/// a tiered cache (local `root`, then `remoteUrls`), logging every claim
/// and release to `state/leases.log`.
int tieredWorker(const std::string &root,
                 const std::vector<std::string> &remoteUrls,
                 const std::string &state, unsigned id, unsigned operations,
                 unsigned numKeys) {
  auto local = Cache::open(root);
  if (!local) {
    llvm::errs() << "worker " << id << ": "
                 << llvm::toString(local.takeError()) << "\n";
    return 2;
  }
  std::vector<std::unique_ptr<RemoteStorage>> remotes;
  for (const std::string &url : remoteUrls)
    remotes.push_back(openRemote(url));
  std::string warnings;
  llvm::raw_string_ostream warningStream(warnings);
  TieredCache cache(std::move(*local), std::move(remotes), "worker",
                    warningStream);
  unsigned problems = 0;
  auto problem = [&](const llvm::Twine &what) {
    llvm::errs() << "worker " << id << ": " << what << "\n";
    ++problems;
  };
  std::mt19937_64 random(7000 + id);
  std::string leaseLog = state + "/leases.log";
  for (unsigned op = 0; op < operations; ++op) {
    unsigned n = random() % numKeys;
    std::string key = keyOf(n);
    unsigned dice = random() % 100;
    if (dice < 35) {
      auto found = cache.lookupTiers(key, /*verify=*/true);
      if (!found) {
        problem("lookup: " + llvm::toString(found.takeError()));
        continue;
      }
      if (found->result.status != LookupStatus::Hit)
        continue;
      // Whatever tier it came from, the bytes are a writer's, whole.
      auto stored = cache.getLocal().readArtifact(key);
      std::string bytes;
      if (found->result.verified) {
        bytes = found->result.verified->bytes.str();
      } else if (stored && *stored) {
        bytes = (*stored)->bytes.str();
      } else {
        if (!stored)
          llvm::consumeError(stored.takeError());
        continue; // removed since the lookup: a miss
      }
      std::string wrong = checkArtifact(bytes, key);
      if (!wrong.empty())
        problem("hit on " + key + ": " + wrong);
    } else if (dice < 60) {
      std::string artifact = makeArtifact(key, id, op, 200 + random() % 3000);
      auto published = cache.publishArtifact(makeParts(n), artifact, 0.5,
                                             "graph.hlo", {}, false);
      if (!published)
        problem("publish: " + llvm::toString(published.takeError()));
    } else if (dice < 85) {
      auto claimed = cache.claim(key, 60, /*retryFailed=*/false,
                                 /*replaceExisting=*/true);
      if (!claimed) {
        problem("claim: " + llvm::toString(claimed.takeError()));
        continue;
      }
      if (*claimed != ClaimStatus::Claimed)
        continue;
      appendLine(leaseLog, llvm::formatv("C {0} {1} {2}", key, id, nowNs()));
      std::this_thread::sleep_for(std::chrono::microseconds(random() % 3000));
      if (llvm::Error error = cache.renew(key, 60))
        problem("renew: " + llvm::toString(std::move(error)));
      appendLine(leaseLog, llvm::formatv("R {0} {1} {2}", key, id, nowNs()));
      if (llvm::Error error = cache.release(key))
        problem("release: " + llvm::toString(std::move(error)));
    } else if (dice < 93) {
      auto removed = cache.remove(key);
      if (!removed)
        problem("remove: " + llvm::toString(removed.takeError()));
    } else {
      TieredCache::CopyResult pulled = cache.pull(key);
      (void)pulled;
    }
  }
  if (!warnings.empty())
    problem("a tier was disabled: " + warnings);
  return problems ? 1 : 0;
}

/// Runs 8 processes over two local caches and the remotes `urls`, then
/// checks the lease log and every entry of every tier.
void runTieredConcurrency(const TempDir &dir,
                          const std::vector<std::string> &urls) {
  constexpr unsigned kProcesses = 8, kOperations = 200, kKeys = 12;
  std::string state = dir.sub("state");
  llvm::sys::fs::create_directories(state);
  std::vector<std::string> roots = {dir.sub("local-a"), dir.sub("local-b")};
  for (const std::string &root : roots)
    ASSERT_TRUE(bool(Cache::open(root)));
  std::vector<pid_t> children;
  for (unsigned id = 0; id < kProcesses; ++id)
    children.push_back(forkChild([&] {
      return tieredWorker(roots[id % 2], urls, state, id, kOperations, kKeys);
    }));
  for (pid_t child : children)
    EXPECT_EQ(waitChild(child), 0);

  // No lease was held by two owners: between a claim and its release, no
  // other claim of the same key.
  std::optional<std::string> log = readFile(state + "/leases.log");
  ASSERT_TRUE(log.has_value());
  std::map<std::string, std::string> holder;
  unsigned claims = 0;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(*log).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    llvm::SmallVector<llvm::StringRef> fields;
    line.split(fields, ' ');
    ASSERT_EQ(fields.size(), 4u) << line.str();
    std::string key = fields[1].str(), who = fields[2].str();
    if (fields[0] == "C") {
      ++claims;
      EXPECT_TRUE(holder[key].empty())
          << key << " claimed by " << who << " while " << holder[key]
          << " held it";
      holder[key] = who;
    } else {
      EXPECT_EQ(holder[key], who) << key << " released by a non-holder";
      holder[key].clear();
    }
  }
  EXPECT_GT(claims, 50u);

  // Nothing corrupt in any tier: every entry is a writer's bytes, whole,
  // under its own key.
  for (const std::string &url : urls) {
    std::unique_ptr<RemoteStorage> remote = openRemote(url);
    ASSERT_TRUE(remote);
    for (unsigned n = 0; n < kKeys; ++n) {
      std::string key = keyOf(n);
      auto file = remote->fetch(key, RemoteEntryKind::Artifact);
      ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
      if (!*file)
        continue;
      auto header =
          verifyRemoteFile(key, RemoteEntryKind::Artifact, **file);
      ASSERT_TRUE(bool(header)) << llvm::toString(header.takeError());
      auto decoded = decodeArtifactFile(**file);
      ASSERT_TRUE(bool(decoded));
      EXPECT_EQ(checkArtifact(decoded->second, key), "") << url;
    }
  }
  for (const std::string &root : roots) {
    auto cache = Cache::open(root);
    ASSERT_TRUE(bool(cache));
    auto report = (*cache)->verify(false);
    ASSERT_TRUE(bool(report));
    EXPECT_TRUE(report->clean()) << root;
  }
}

TEST(RemoteConcurrency, EightProcessesTwoCachesRedisLeases) {
  TempDir dir;
  RedisServer redis(dir.sub(""));
  if (!redis.isRunning())
    GTEST_SKIP() << "no redis-server";
  runTieredConcurrency(dir, {redis.url(), "file:" + dir.sub("shared")});
}

TEST(RemoteConcurrency, EightProcessesTwoCachesFileLeases) {
  TempDir dir;
  RedisServer redis(dir.sub(""));
  if (!redis.isRunning())
    GTEST_SKIP() << "no redis-server";
  runTieredConcurrency(dir, {"file:" + dir.sub("shared"), redis.url()});
}

/// A stale lease (expired) in each backend: of many claimers at once,
/// exactly one takes it over.
void expectOneTakeover(const std::string &url,
                       const std::function<void(const std::string &)> &stale) {
  std::string key = keyOf(42);
  stale(key);
  TempDir state;
  constexpr int kClaimers = 8;
  std::vector<pid_t> children;
  for (int i = 0; i < kClaimers; ++i)
    children.push_back(forkChild([&] {
      std::unique_ptr<RemoteStorage> remote = openRemote(url);
      LeaseOwner owner = LeaseOwner::current();
      auto claimed = remote->claim(key, owner, 60000);
      if (!claimed) {
        llvm::errs() << llvm::toString(claimed.takeError()) << "\n";
        return 2;
      }
      // The winner lives on while the others try: a lease whose owner on
      // this host has exited is stale, rightly taken over.
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      return *claimed == RemoteClaim::Claimed ? 0 : 1;
    }));
  int winners = 0;
  for (pid_t child : children) {
    int status = waitChild(child);
    ASSERT_TRUE(status == 0 || status == 1) << status;
    winners += status == 0;
  }
  EXPECT_EQ(winners, 1);
}

TEST(FileStorage, StaleLeaseIsTakenOverByExactlyOneClaimer) {
  TempDir dir;
  std::string root = dir.sub("shared");
  for (int round = 0; round < 5; ++round) {
    llvm::sys::fs::remove_directories(root);
    expectOneTakeover("file:" + root, [&](const std::string &key) {
      llvm::sys::fs::create_directories(root + "/" + key.substr(0, 2));
      // Another host's lease that expired a minute ago.
      ASSERT_TRUE(writeFile(root + "/" + key.substr(0, 2) + "/" + key +
                                ".lease",
                            "otherhost 1 deadbeef 1000\n"));
    });
  }
}

TEST(FileStorage, LiveLeaseOfAnotherOwnerIsRespected) {
  TempDir dir;
  std::unique_ptr<RemoteStorage> remote = openRemote("file:" + dir.sub("s"));
  std::string key = keyOf(1);
  LeaseOwner first{"hostA", 10, "aaaa"}, second{"hostB", 20, "bbbb"};
  auto claimed = remote->claim(key, first, 60000);
  ASSERT_TRUE(bool(claimed));
  EXPECT_EQ(*claimed, RemoteClaim::Claimed);
  claimed = remote->claim(key, second, 60000);
  ASSERT_TRUE(bool(claimed));
  EXPECT_EQ(*claimed, RemoteClaim::HeldElsewhere);
  // Only the owner renews or releases.
  EXPECT_TRUE(bool(remote->renew(key, second, 60000)));
  EXPECT_FALSE(bool(remote->release(key, second)));
  claimed = remote->claim(key, second, 60000);
  ASSERT_TRUE(bool(claimed));
  EXPECT_EQ(*claimed, RemoteClaim::HeldElsewhere);
  EXPECT_FALSE(bool(remote->renew(key, first, 60000)));
  EXPECT_FALSE(bool(remote->release(key, first)));
  claimed = remote->claim(key, second, 60000);
  ASSERT_TRUE(bool(claimed));
  EXPECT_EQ(*claimed, RemoteClaim::Claimed);
}

TEST(RedisStorage, LeasesAreTheirOwnersAndExpire) {
  TempDir dir;
  RedisServer redis(dir.sub(""));
  if (!redis.isRunning())
    GTEST_SKIP() << "no redis-server";
  std::unique_ptr<RemoteStorage> remote = openRemote(redis.url());
  std::string key = keyOf(2);
  LeaseOwner first{"hostA", 10, "aaaa"}, second{"hostB", 20, "bbbb"};
  auto claimed = remote->claim(key, first, 300);
  ASSERT_TRUE(bool(claimed));
  EXPECT_EQ(*claimed, RemoteClaim::Claimed);
  claimed = remote->claim(key, second, 300);
  ASSERT_TRUE(bool(claimed));
  EXPECT_EQ(*claimed, RemoteClaim::HeldElsewhere);
  EXPECT_TRUE(bool(remote->renew(key, second, 300)));
  EXPECT_FALSE(bool(remote->release(key, second)));
  // The owner stops renewing: the lease expires and another takes it.
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  claimed = remote->claim(key, second, 60000);
  ASSERT_TRUE(bool(claimed));
  EXPECT_EQ(*claimed, RemoteClaim::Claimed);
  EXPECT_TRUE(bool(remote->renew(key, first, 60000)));
}

TEST(RemoteStorage, StoreIfAbsentKeepsTheFirstEntry) {
  TempDir dir;
  RedisServer redis(dir.sub(""));
  std::vector<std::string> urls = {"file:" + dir.sub("shared")};
  if (redis.isRunning()) {
    urls.push_back(redis.url());
    urls.push_back(redis.unixUrl() + "|prefix=other:|expire=60");
  }
  for (const std::string &url : urls) {
    std::unique_ptr<RemoteStorage> remote = openRemote(url);
    std::string key = keyOf(3);
    std::string first = makeCacheFile(3, makeArtifact(key, 1, 1, 500));
    std::string second = makeCacheFile(3, makeArtifact(key, 2, 1, 500));
    auto stored = remote->store(key, RemoteEntryKind::Artifact, first, false);
    ASSERT_TRUE(bool(stored)) << url;
    EXPECT_TRUE(*stored);
    stored = remote->store(key, RemoteEntryKind::Artifact, second, false);
    ASSERT_TRUE(bool(stored));
    EXPECT_FALSE(*stored);
    auto fetched = remote->fetch(key, RemoteEntryKind::Artifact);
    ASSERT_TRUE(bool(fetched) && *fetched);
    EXPECT_EQ(**fetched, first) << url;
    auto there = remote->exists(key, RemoteEntryKind::Failure);
    ASSERT_TRUE(bool(there));
    EXPECT_FALSE(*there);
    auto removed = remote->remove(key, RemoteEntryKind::Artifact);
    ASSERT_TRUE(bool(removed));
    EXPECT_TRUE(*removed);
    removed = remote->remove(key, RemoteEntryKind::Artifact);
    ASSERT_TRUE(bool(removed));
    EXPECT_FALSE(*removed);
  }
}

TEST(RemoteStorage, AnotherKeysValidEntryIsNotThisKeys) {
  std::string key = keyOf(4), other = keyOf(5);
  std::string file = makeCacheFile(5, makeArtifact(other, 1, 1, 100));
  auto header = verifyRemoteFile(key, RemoteEntryKind::Artifact, file);
  ASSERT_FALSE(bool(header));
  EXPECT_NE(llvm::toString(header.takeError()).find("holds the entry of key"),
            std::string::npos);
  header = verifyRemoteFile(other, RemoteEntryKind::Failure, file);
  EXPECT_FALSE(bool(header));
  llvm::consumeError(header.takeError());
  std::string flipped = file;
  flipped.back() ^= 1;
  header = verifyRemoteFile(other, RemoteEntryKind::Artifact, flipped);
  EXPECT_FALSE(bool(header));
  llvm::consumeError(header.takeError());
  header = verifyRemoteFile(other, RemoteEntryKind::Artifact, file);
  EXPECT_TRUE(bool(header));
}

} // namespace
