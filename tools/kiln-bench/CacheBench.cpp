//===- CacheBench.cpp - kiln-bench cache ------------------------*- C++ -*-===//
//
// This file implements `kiln-bench cache`. It measures and prints; it
// asserts nothing.
//
//  1. Lookup latency in a cache of 100,000 entries (--entries): p50, p99 and
//     max of single lookups of random keys, for hits without and with
//     checksum verification, misses, hits through a read-only Cache (which
//     counts no hits, so takes no write lock), and hits while another
//     process publishes 4 MiB artifacts in a loop.
//     The cache is filled by default through a test-only bulk path
//     (--populate bulk): kiln-bench writes the artifact files and inserts
//     the rows in one SQLite transaction, exactly as Cache::publish would
//     have left them but without a sync per artifact. --populate publish
//     fills it through Cache::publish, one artifact at a time.
//  2. Publish throughput: artifacts/s and MB/s for 4 KiB and 4 MiB
//     artifacts, each publish in its own transaction with its fsyncs, into
//     a fresh cache; and the cost of verifying a 4 MiB hit.
//  3. `kiln cache check` over a corpus, one thread, split into reading the
//     file, importing it, computing its signature, and the key and the
//     lookup (verified); then the real `kiln cache check` command (its
//     threads, process start included) for comparison.
//
//===----------------------------------------------------------------------===//

#include "CacheBench.h"
#include "BenchTable.h"

#include "BenchFiles.h"

#include "kiln/Cache/ArtifactHeader.h"
#include "kiln/Cache/Cache.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/Hlo/HloImporter.h"
#include "kiln/Signature/Signature.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <random>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::bench;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Key parts of synthetic graph `n` of `family`.
KeyParts benchParts(llvm::StringRef family, uint64_t n) {
  KeyParts parts;
  parts.signature =
      Hash128::of(llvm::formatv("{0} graph {1}", family, n).str());
  parts.targetTriple = "x86_64-unknown-linux-gnu";
  parts.cpuName = "x86-64-v3";
  parts.compiler = "kiln-bench";
  return parts;
}

/// `size` pseudo-random bytes; the first eight say which artifact it is.
std::string makeBytes(uint64_t n, size_t size) {
  std::string bytes(size, '\0');
  std::mt19937_64 random(n);
  for (size_t i = 0; i < size; i += 8) {
    uint64_t word = random();
    memcpy(&bytes[i], &word, std::min<size_t>(8, size - i));
  }
  if (size >= 8)
    memcpy(&bytes[0], &n, 8);
  return bytes;
}

/// p-th percentile (0..100) of sorted `values`.
double percentile(const std::vector<double> &sorted, double p) {
  if (sorted.empty())
    return 0;
  size_t index = std::min(sorted.size() - 1, (size_t)(sorted.size() * p / 100));
  return sorted[index];
}

struct Latencies {
  std::string what;
  std::vector<double> seconds;
  unsigned unexpected = 0; ///< lookups that did not find what they should
  double wall = 0;
};

void printLatencyHeader(llvm::raw_ostream &os) {
  os << llvm::format("  %-46s %8s %8s %8s %9s %10s\n", "lookup", "count",
                     "p50 us", "p99 us", "max us", "lookups/s");
}

void printLatencies(llvm::raw_ostream &os, Latencies &result) {
  std::sort(result.seconds.begin(), result.seconds.end());
  double total = 0;
  for (double s : result.seconds)
    total += s;
  os << llvm::format("  %-46s %8zu %8.1f %8.1f %9.1f %10.0f",
                     result.what.c_str(), result.seconds.size(),
                     percentile(result.seconds, 50) * 1e6,
                     percentile(result.seconds, 99) * 1e6,
                     result.seconds.empty() ? 0 : result.seconds.back() * 1e6,
                     total > 0 ? result.seconds.size() / total : 0);
  if (result.unexpected)
    os << "  (" << result.unexpected << " unexpected results)";
  os << "\n";
}

/// Times `count` lookups of the keys `keyOf(random index below range)`.
Latencies timeLookups(Cache &cache, llvm::StringRef what,
                      const std::vector<std::string> &keys, unsigned count,
                      bool verify, LookupStatus expected, uint64_t seed) {
  Latencies result;
  result.what = what.str();
  result.seconds.reserve(count);
  std::mt19937_64 random(seed);
  Clock::time_point start = Clock::now();
  for (unsigned i = 0; i < count; ++i) {
    const std::string &key = keys[random() % keys.size()];
    Clock::time_point before = Clock::now();
    llvm::Expected<LookupResult> lookup = cache.lookup(key, verify);
    result.seconds.push_back(secondsSince(before));
    if (!lookup) {
      llvm::consumeError(lookup.takeError());
      ++result.unexpected;
    } else if (lookup->status != expected) {
      ++result.unexpected;
    }
  }
  result.wall = secondsSince(start);
  return result;
}

/// The test-only bulk path: artifact files written without a sync each and
/// all rows inserted in one transaction, then one sync(). What it leaves is
/// what `count` publishes would have left (verify() finds it clean).
bool populateBulk(const std::string &root, unsigned count, unsigned bytes,
                  std::vector<std::string> &keys) {
  {
    auto cache = Cache::open(root);
    if (!cache) {
      llvm::errs() << "kiln-bench: " << llvm::toString(cache.takeError())
                   << "\n";
      return false;
    }
  }
  for (unsigned prefix = 0; prefix < 256; ++prefix)
    llvm::sys::fs::create_directories(
        llvm::formatv("{0}/objects/{1:x-2}", root, prefix).str());
  sqlite3 *db = nullptr;
  std::string index = root + "/index.db";
  if (sqlite3_open(index.c_str(), &db) != SQLITE_OK)
    return false;
  sqlite3_busy_timeout(db, 60000);
  sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  sqlite3_stmt *insert = nullptr;
  sqlite3_prepare_v2(
      db,
      "INSERT INTO entries (key, status, size, checksum, compile_seconds, "
      "created_ms, last_used_ms, hits, signature, target_triple, cpu, "
      "cpu_features, options, compiler, format_version, source, sketch) "
      "VALUES (?1, 'ok', ?2, ?3, 1.0, ?4, ?4, 0, ?5, ?6, ?7, ?8, ?9, ?10, "
      "?11, ?12, NULL)",
      -1, &insert, nullptr);
  int64_t base = nowMs() - count;
  bool ok = insert != nullptr;
  for (unsigned i = 0; ok && i < count; ++i) {
    KeyParts parts = benchParts("bench", i);
    std::string key = parts.key().toHex();
    std::string artifact = makeBytes(i, bytes);
    std::string path =
        (llvm::Twine(root) + "/objects/" + key.substr(0, 2) + "/" + key).str();
    std::string checksum = Hash128::of(artifact).toHex();
    std::string signature = parts.signature.toHex();
    std::string source = llvm::formatv("bench/graph{0}.hlo", i).str();
    // Each file starts with its header, as publish writes it.
    ArtifactHeader header;
    header.parts = parts;
    header.size = artifact.size();
    header.checksum = checksum;
    header.compileSeconds = 1.0;
    header.source = source;
    std::string file = encodeArtifactHeader(header) + artifact;
    int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ::write(fd, file.data(), file.size()) != (ssize_t)file.size())
      ok = false;
    if (fd >= 0)
      ::close(fd);
    sqlite3_reset(insert);
    sqlite3_bind_text(insert, 1, key.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert, 2, artifact.size());
    sqlite3_bind_text(insert, 3, checksum.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert, 4, base + i);
    sqlite3_bind_text(insert, 5, signature.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 6, parts.targetTriple.c_str(), -1,
                      SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 7, parts.cpuName.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 8, parts.cpuFeatures.c_str(), -1,
                      SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 9, parts.options.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 10, parts.compiler.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert, 11, parts.formatVersion);
    sqlite3_bind_text(insert, 12, source.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(insert) != SQLITE_DONE)
      ok = false;
    keys.push_back(key);
  }
  sqlite3_finalize(insert);
  if (ok)
    ok = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
  if (!ok)
    llvm::errs() << "kiln-bench: bulk populate: " << sqlite3_errmsg(db) << "\n";
  sqlite3_close(db);
  ::sync();
  return ok;
}

bool populateByPublish(const std::string &root, unsigned count, unsigned bytes,
                       std::vector<std::string> &keys) {
  auto cache = Cache::open(root);
  if (!cache) {
    llvm::errs() << "kiln-bench: " << llvm::toString(cache.takeError()) << "\n";
    return false;
  }
  for (unsigned i = 0; i < count; ++i) {
    KeyParts parts = benchParts("bench", i);
    if (llvm::Error error =
            (*cache)->publish(parts, makeBytes(i, bytes), 1.0,
                              llvm::formatv("bench/graph{0}.hlo", i).str())) {
      llvm::errs() << "kiln-bench: publish: "
                   << llvm::toString(std::move(error)) << "\n";
      return false;
    }
    keys.push_back(parts.key().toHex());
    if ((i + 1) % 10000 == 0)
      llvm::errs() << "  ... " << (i + 1) << " published\n";
  }
  return true;
}

/// A child that publishes `bytes`-byte artifacts under new keys until it is
/// killed. Returns its pid.
pid_t startPublisher(const std::string &root, size_t bytes) {
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  auto cache = Cache::open(root);
  if (!cache)
    _exit(1);
  std::string artifact = makeBytes(7, bytes);
  for (uint64_t n = 0;; ++n) {
    memcpy(&artifact[0], &n, 8);
    if (llvm::Error error = (*cache)->publish(benchParts("contender", n),
                                              artifact, 1.0, "contender")) {
      llvm::consumeError(std::move(error));
      _exit(2);
    }
  }
}

struct PublishResult {
  size_t bytes = 0;
  unsigned count = 0;
  double seconds = 0;
};

/// Publishes `count` artifacts of `bytes` into a fresh cache in `root`.
PublishResult timePublishes(const std::string &root, size_t bytes,
                            unsigned count, std::vector<std::string> &keys) {
  PublishResult result;
  result.bytes = bytes;
  auto cache = Cache::open(root);
  if (!cache) {
    llvm::errs() << "kiln-bench: " << llvm::toString(cache.takeError()) << "\n";
    return result;
  }
  std::string artifact = makeBytes(bytes, bytes);
  Clock::time_point start = Clock::now();
  for (unsigned i = 0; i < count; ++i) {
    uint64_t n = i;
    memcpy(&artifact[0], &n, 8); // outside the cache, so cheap; distinct
    KeyParts parts = benchParts(llvm::formatv("size{0}", bytes).str(), i);
    if (llvm::Error error = (*cache)->publish(parts, artifact, 1.0, "bench")) {
      llvm::errs() << "kiln-bench: publish: "
                   << llvm::toString(std::move(error)) << "\n";
      break;
    }
    keys.push_back(parts.key().toHex());
    ++result.count;
  }
  result.seconds = secondsSince(start);
  return result;
}

struct GraphSplit {
  std::string path;
  uint64_t bytes = 0;
  bool ok = false;
  double read = 1e9, import = 1e9, signature = 1e9, lookup = 1e9;
  bool hit = false;
};

/// `kiln cache check` over a directory of about 80 MB of distinct dumps
/// (the corpus's files, each copied with a numbered comment so that every
/// copy has its own bytes), compared with reading and XXH3-hashing the same
/// bytes: the first check imports every file; later ones take each file's
/// signature from the index's memo.
static void measureCheckMemo(llvm::raw_ostream &os, const std::string &kiln,
                             const std::vector<std::string> &graphs,
                             const std::string &root, unsigned repeat) {
  std::string dumps = root + "/dumps";
  llvm::sys::fs::create_directories(dumps);
  std::vector<std::string> paths;
  uint64_t total = 0;
  constexpr uint64_t kTarget = 80u << 20;
  for (unsigned copy = 0; total < kTarget && copy < 10000; ++copy)
    for (const std::string &graph : graphs) {
      auto bytes = llvm::MemoryBuffer::getFile(graph);
      if (!bytes || total >= kTarget)
        continue;
      std::string path = llvm::formatv("{0}/{1}-{2}", dumps, copy,
                                       llvm::sys::path::filename(graph))
                             .str();
      std::error_code error;
      llvm::raw_fd_ostream out(path, error);
      if (error)
        continue;
      out << (*bytes)->getBuffer() << "\n// copy " << copy << "\n";
      total += (*bytes)->getBufferSize();
      paths.push_back(path);
    }
  // The baseline: each file read into memory and hashed, one thread.
  double baseline = 1e9;
  for (unsigned run = 0; run < repeat; ++run) {
    Clock::time_point begin = Clock::now();
    uint64_t sink = 0;
    for (const std::string &path : paths)
      if (auto bytes = llvm::MemoryBuffer::getFile(path))
        sink ^= Hash128::of((*bytes)->getBuffer()).low;
    baseline = std::min(baseline, secondsSince(begin));
    if (sink == 42)
      os << "";
  }
  std::string cacheDir = root + "/memo-cache";
  llvm::SmallVector<llvm::StringRef> argv = {kiln, "cache", "check", dumps,
                                             "--cache-dir", cacheDir};
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(""), llvm::StringRef("")};
  auto runCheck = [&]() {
    Clock::time_point begin = Clock::now();
    llvm::sys::ExecuteAndWait(kiln, argv, std::nullopt, redirects);
    return secondsSince(begin);
  };
  // `check` never creates a cache: make one with a put of nothing it checks.
  {
    auto cache = Cache::open(cacheDir);
    if (!cache) {
      llvm::consumeError(cache.takeError());
      return;
    }
  }
  double cold = runCheck();
  double warm = 1e9;
  for (unsigned run = 0; run < repeat; ++run)
    warm = std::min(warm, runCheck());
  // What any kiln command costs before it does anything: loading and
  // relocating its shared libraries.
  double start = 1e9;
  llvm::SmallVector<llvm::StringRef> version = {kiln, "--version"};
  for (unsigned run = 0; run < repeat; ++run) {
    Clock::time_point begin = Clock::now();
    llvm::sys::ExecuteAndWait(kiln, version, std::nullopt, redirects);
    start = std::min(start, secondsSince(begin));
  }
  os << llvm::formatv(
      "kiln cache check over {0} dumps, {1:f1} MB, in one directory (an "
      "empty cache: every graph misses):\n"
      "  read and XXH3-128 every file, one thread, in process (best of {2}): "
      "{3:f1} ms\n"
      "  first check (imports every file): {4:f1} ms ({5:f1}x the read and "
      "hash)\n"
      "  checked again, signatures from the memo (best of {2}): {6:f1} ms "
      "({7:f1}x the read and hash)\n"
      "  of which starting the process (`kiln --version`, best of {2}): "
      "{8:f1} ms; without it {9:f1} ms ({10:f1}x)\n",
      paths.size(), total / 1e6, repeat, baseline * 1e3, cold * 1e3,
      cold / baseline, warm * 1e3, warm / baseline, start * 1e3,
      (warm - start) * 1e3, (warm - start) / baseline);
  std::string what = llvm::formatv("{0} files, {1:f1} MB", paths.size(),
                                   total / 1e6);
  std::string floor = llvm::formatv("read + XXH3-128: {0:f1} ms",
                                    baseline * 1e3);
  recordFigure({"cache check", "cold (imports every file), " + what,
                llvm::formatv("{0:f1} ms", cold * 1e3).str(), floor,
                llvm::formatv("{0:f1}x", cold / baseline).str()});
  recordFigure({"cache check", "warm (signatures from the memo), " + what,
                llvm::formatv("{0:f1} ms", warm * 1e3).str(), floor,
                llvm::formatv("{0:f1}x ({1:f1}x without the {2:f0} ms "
                              "process start)",
                              warm / baseline, (warm - start) / baseline,
                              start * 1e3)
                    .str()});
}

/// One pass of what `kiln cache check` does for `split.path`, timed step by
/// step; keeps each step's best time. Publishes the graph's text as its
/// artifact when `publish` (so that the timed passes hit).
void checkOneGraph(GraphSplit &split, mlir::MLIRContext &context, Cache &cache,
                   bool publish) {
  Clock::time_point t0 = Clock::now();
  auto buffer = readBenchFile(split.path);
  if (!buffer)
    return;
  Clock::time_point t1 = Clock::now();
  split.bytes = (*buffer)->getBufferSize();
  std::string text = publish ? (*buffer)->getBuffer().str() : std::string();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::OwningOpRef<mlir::ModuleOp> module = importHloText(sourceMgr, &context);
  Clock::time_point t2 = Clock::now();
  if (!module)
    return;
  mlir::FailureOr<GraphSignature> signature = computeSignature(*module);
  Clock::time_point t3 = Clock::now();
  if (mlir::failed(signature))
    return;
  KeyParts parts = makeKeyParts(signature->signature, "",
                                llvm::cantFail(resolveTarget("", "")));
  std::string key = parts.key().toHex();
  llvm::Expected<LookupResult> result = cache.lookup(key, /*verify=*/true);
  Clock::time_point t4 = Clock::now();
  if (!result) {
    llvm::consumeError(result.takeError());
    return;
  }
  split.ok = true;
  split.hit = result->status == LookupStatus::Hit;
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  split.read = std::min(split.read, seconds(t0, t1));
  split.import = std::min(split.import, seconds(t1, t2));
  split.signature = std::min(split.signature, seconds(t2, t3));
  split.lookup = std::min(split.lookup, seconds(t3, t4));
  if (publish && !split.hit)
    if (llvm::Error error =
            cache.publish(parts, text, 1.0, split.path, signature->sketch))
      llvm::consumeError(std::move(error));
}

std::string fileSystemOf(const std::string &path) {
  struct statfs info;
  if (statfs(path.c_str(), &info) != 0)
    return "?";
  switch ((unsigned long)info.f_type) {
  case 0xEF53:
    return "ext4";
  case 0x01021994:
    return "tmpfs";
  case 0x58465342:
    return "xfs";
  case 0x9123683E:
    return "btrfs";
  case 0x794C7630:
    return "overlayfs";
  default:
    return llvm::formatv("fs type {0:x}", (unsigned long)info.f_type).str();
  }
}

} // namespace

int kiln::bench::runCacheBench(const CacheBenchOptions &options) {
  llvm::raw_ostream &os = llvm::outs();
  std::string base = options.directory;
  if (base.empty()) {
    const char *tmp = getenv("TMPDIR");
    base = tmp && *tmp ? tmp : "/tmp";
  }
  llvm::SmallString<256> workDir;
  if (std::error_code error = llvm::sys::fs::createUniqueDirectory(
          base + "/kiln-bench-cache", workDir)) {
    llvm::errs() << "kiln-bench: cannot create a directory in " << base << ": "
                 << error.message() << "\n";
    return 2;
  }
  std::string root = std::string(workDir);
  os << "kiln-bench cache: caches in " << root << " (" << fileSystemOf(root)
     << "); each publish writes and fsyncs its file and "
     << "directory;\nSQLite in WAL mode, synchronous=NORMAL; warm page "
        "cache; one process unless said; us = microseconds, MB = 10^6 "
        "bytes\n\n";

  //===--------------------------------------------------------------------===//
  // 1. Lookup latency in a big cache.
  //===--------------------------------------------------------------------===//
  std::string big = root + "/big";
  std::vector<std::string> keys;
  Clock::time_point start = Clock::now();
  bool populated =
      options.populate == "publish"
          ? populateByPublish(big, options.entries, options.entryBytes, keys)
          : populateBulk(big, options.entries, options.entryBytes, keys);
  double populateSeconds = secondsSince(start);
  if (!populated)
    return 2;
  os << llvm::formatv("populate: {0} entries of {1} bytes {2} in {3:f1} s "
                      "({4:f0} entries/s)\n",
                      options.entries, options.entryBytes,
                      options.populate == "publish"
                          ? "through Cache::publish (one transaction and "
                            "fsyncs each)"
                          : "through the bulk path (test-only: files "
                            "written without a sync each, rows in one "
                            "transaction, one sync() at the end)",
                      populateSeconds, options.entries / populateSeconds);
  uint64_t indexBytes = 0;
  llvm::sys::fs::file_size(big + "/index.db", indexBytes);
  os << llvm::formatv("  index.db: {0:f1} MB\n\n", indexBytes / 1e6);

  std::vector<std::string> absent;
  for (unsigned i = 0; i < 10000; ++i)
    absent.push_back(benchParts("absent", i).key().toHex());
  std::vector<Latencies> results;
  {
    auto cache = Cache::open(big);
    if (!cache) {
      llvm::errs() << "kiln-bench: " << llvm::toString(cache.takeError())
                   << "\n";
      return 2;
    }
    // Warm the index's pages and SQLite's caches.
    timeLookups(**cache, "warm-up", keys, 2000, false, LookupStatus::Hit, 1);
    results.push_back(timeLookups(**cache, "hit, no verify", keys,
                                  options.lookups, false, LookupStatus::Hit,
                                  2));
    results.push_back(timeLookups(
        **cache,
        llvm::formatv("hit, verify ({0} B artifact)", options.entryBytes).str(),
        keys, options.lookups, true, LookupStatus::Hit, 3));
    results.push_back(timeLookups(**cache, "miss", absent, options.lookups,
                                  true, LookupStatus::Miss, 4));
  }
  {
    Cache::OpenOptions readOnly;
    readOnly.readOnly = true;
    auto cache = Cache::open(big, readOnly);
    if (cache) {
      results.push_back(
          timeLookups(**cache, "hit, no verify, read-only (no counting)", keys,
                      options.lookups, false, LookupStatus::Hit, 5));
    } else {
      llvm::consumeError(cache.takeError());
    }
  }
  // Lookups while another process publishes 4 MiB artifacts: a hit counts
  // itself in a write transaction, so it waits for the publisher's lock.
  if (options.contendedSeconds > 0) {
    pid_t publisher = startPublisher(big, 4 << 20);
    auto cache = Cache::open(big);
    if (publisher > 0 && cache) {
      usleep(200000); // let it start
      Latencies contended;
      contended.what = "hit, no verify, while 1 process publishes 4 MiB";
      std::mt19937_64 random(6);
      Clock::time_point begin = Clock::now();
      while (secondsSince(begin) < options.contendedSeconds &&
             contended.seconds.size() < options.lookups) {
        Clock::time_point before = Clock::now();
        auto lookup = (*cache)->lookup(keys[random() % keys.size()], false);
        contended.seconds.push_back(secondsSince(before));
        if (!lookup) {
          llvm::consumeError(lookup.takeError());
          ++contended.unexpected;
        } else if (lookup->status != LookupStatus::Hit) {
          ++contended.unexpected;
        }
      }
      results.push_back(std::move(contended));
      Cache::OpenOptions readOnly;
      readOnly.readOnly = true;
      auto reader = Cache::open(big, readOnly);
      if (reader) {
        Latencies contendedReader;
        contendedReader.what = "same, read-only (no counting)";
        begin = Clock::now();
        while (secondsSince(begin) < options.contendedSeconds &&
               contendedReader.seconds.size() < options.lookups) {
          Clock::time_point before = Clock::now();
          auto lookup = (*reader)->lookup(keys[random() % keys.size()], false);
          contendedReader.seconds.push_back(secondsSince(before));
          if (!lookup) {
            llvm::consumeError(lookup.takeError());
            ++contendedReader.unexpected;
          } else if (lookup->status != LookupStatus::Hit) {
            ++contendedReader.unexpected;
          }
        }
        results.push_back(std::move(contendedReader));
      } else {
        llvm::consumeError(reader.takeError());
      }
    }
    if (!cache)
      llvm::consumeError(cache.takeError());
    if (publisher > 0) {
      kill(publisher, SIGKILL);
      waitpid(publisher, nullptr, 0);
    }
  }
  os << llvm::formatv("lookup latency: {0} entries, random keys, one "
                      "Cache::lookup per sample\n",
                      options.entries);
  printLatencyHeader(os);
  for (Latencies &result : results)
    printLatencies(os, result);
  os << "\n";
  if (results.size() >= 2)
    recordFigure(
        {"cache", llvm::formatv("lookup, a hit, artifact checksum verified "
                                "({0} entries of {1} B)",
                                options.entries, options.entryBytes)
                      .str(),
         llvm::formatv("p50 {0:f1} us, p99 {1:f1} us",
                       percentile(results[1].seconds, 50) * 1e6,
                       percentile(results[1].seconds, 99) * 1e6)
             .str(),
         llvm::formatv("the index alone (no verification): p50 {0:f1} us, "
                       "p99 {1:f1} us",
                       percentile(results[0].seconds, 50) * 1e6,
                       percentile(results[0].seconds, 99) * 1e6)
             .str(),
         llvm::formatv("{0:f2}x at p50",
                       percentile(results[1].seconds, 50) /
                           std::max(1e-12, percentile(results[0].seconds, 50)))
             .str()});

  //===--------------------------------------------------------------------===//
  // 2. Publish throughput.
  //===--------------------------------------------------------------------===//
  os << "publish throughput: fresh cache, one Cache::publish per artifact "
        "(checksum, write, fsync,\nrename, directory fsync, row), one "
        "process\n";
  os << llvm::format("  %-10s %8s %10s %12s %10s %12s\n", "artifact", "count",
                     "seconds", "artifacts/s", "MB/s", "ms/publish");
  std::vector<std::string> largeKeys;
  for (auto [bytes, count] :
       {std::pair<size_t, unsigned>{4 << 10, options.smallPublishes},
        std::pair<size_t, unsigned>{4 << 20, options.largePublishes}}) {
    std::vector<std::string> published;
    std::string dir = llvm::formatv("{0}/publish-{1}", root, bytes).str();
    PublishResult result = timePublishes(dir, bytes, count, published);
    if (bytes == (4u << 20))
      largeKeys = published;
    os << llvm::format("  %-10s %8u %10.2f %12.1f %10.1f %12.2f\n",
                       bytes == (4u << 10) ? "4 KiB" : "4 MiB", result.count,
                       result.seconds, result.count / result.seconds,
                       result.count * (double)bytes / 1e6 / result.seconds,
                       result.seconds * 1e3 / std::max(1u, result.count));
  }
  if (!largeKeys.empty()) {
    auto cache =
        Cache::open(llvm::formatv("{0}/publish-{1}", root, 4 << 20).str());
    if (cache) {
      Latencies verify =
          timeLookups(**cache, "hit, verify (4 MiB artifact)", largeKeys, 200,
                      true, LookupStatus::Hit, 7);
      os << "\n";
      printLatencyHeader(os);
      printLatencies(os, verify);
      std::vector<double> &s = verify.seconds;
      if (!s.empty())
        os << llvm::formatv("  (checksum of a 4 MiB artifact at p50: {0:f2} "
                            "GB/s)\n",
                            (4 << 20) / percentile(s, 50) / 1e9);
    } else {
      llvm::consumeError(cache.takeError());
    }
  }
  os << "\n";

  //===--------------------------------------------------------------------===//
  // 3. `kiln cache check` over a corpus, split.
  //===--------------------------------------------------------------------===//
  std::vector<std::string> graphs;
  {
    std::vector<BenchFile> files;
    for (const std::string &path : options.corpus)
      collectFiles(path, files);
    for (const BenchFile &file : files)
      graphs.push_back(file.path);
  }
  if (graphs.empty()) {
    os << "kiln cache check: no *.hlo files found";
    for (const std::string &path : options.corpus)
      os << " in " << path;
    os << "\n";
  } else {
    std::string corpusCache = root + "/corpus";
    auto cache = Cache::open(corpusCache);
    if (!cache) {
      llvm::errs() << "kiln-bench: " << llvm::toString(cache.takeError())
                   << "\n";
      return 2;
    }
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    context.loadDialect<KilnDialect, mlir::func::FuncDialect>();
    std::vector<GraphSplit> splits(graphs.size());
    for (size_t i = 0; i < graphs.size(); ++i) {
      splits[i].path = graphs[i];
      // First pass: store each graph's text as its artifact, so that the
      // timed passes hit (and verify that many bytes).
      checkOneGraph(splits[i], context, **cache, /*publish=*/true);
      splits[i] = GraphSplit{graphs[i]};
    }
    for (unsigned run = 0; run < options.repeat; ++run)
      for (GraphSplit &split : splits)
        checkOneGraph(split, context, **cache, /*publish=*/false);

    os << llvm::formatv(
        "kiln cache check, split: {0} graphs, one thread, one MLIRContext, "
        "best of {1} runs per step\n"
        "  read: the file into memory; import: kiln::importHloText; "
        "signature: computeSignature;\n"
        "  lookup: key and Cache::lookup with checksum verification (each "
        "graph's artifact is its own text)\n",
        graphs.size(), options.repeat);
    size_t width = 4;
    for (const GraphSplit &split : splits)
      width = std::max(width, split.path.size());
    os << "  " << llvm::left_justify("file", width)
       << llvm::format(" %8s %8s %9s %9s %9s %9s\n", "KiB", "read ms",
                       "import ms", "sign. ms", "lookup ms", "total ms");
    double read = 0, import = 0, signature = 0, lookup = 0;
    uint64_t bytes = 0;
    unsigned keyed = 0;
    for (const GraphSplit &split : splits) {
      os << "  " << llvm::left_justify(split.path, width)
         << llvm::format(" %8.1f", split.bytes / 1024.0);
      if (!split.ok) {
        os << "  did not import\n";
        continue;
      }
      ++keyed;
      bytes += split.bytes;
      read += split.read;
      import += split.import;
      signature += split.signature;
      lookup += split.lookup;
      os << llvm::format(
          " %8.3f %9.3f %9.3f %9.3f %9.3f%s\n", split.read * 1e3,
          split.import * 1e3, split.signature * 1e3, split.lookup * 1e3,
          (split.read + split.import + split.signature + split.lookup) * 1e3,
          split.hit ? "" : "  (not a hit)");
    }
    double total = read + import + signature + lookup;
    os << llvm::formatv(
        "  total: {0} of {1} graphs keyed, {2:f2} MB, {3:f1} "
        "ms: read {4:f1} ms ({5:f1}%), import {6:f1} ms "
        "({7:f1}%), signature {8:f1} ms ({9:f1}%), lookup "
        "{10:f1} ms ({11:f1}%)\n",
        keyed, splits.size(), bytes / 1e6, total * 1e3, read * 1e3,
        100 * read / total, import * 1e3, 100 * import / total, signature * 1e3,
        100 * signature / total, lookup * 1e3, 100 * lookup / total);

    // The real command, end to end, for comparison.
    std::string kiln = llvm::sys::path::parent_path(
                           llvm::sys::fs::getMainExecutable(nullptr, nullptr))
                           .str() +
                       "/kiln";
    if (llvm::sys::fs::can_execute(kiln)) {
      std::vector<std::string> args = {kiln, "cache", "check"};
      llvm::append_range(args, graphs);
      args.push_back("--cache-dir");
      args.push_back(corpusCache);
      std::vector<llvm::StringRef> argv(args.begin(), args.end());
      std::optional<llvm::StringRef> redirects[] = {
          std::nullopt, llvm::StringRef(""), llvm::StringRef("")};
      double best = 1e9;
      int code = 0;
      for (unsigned run = 0; run < options.repeat; ++run) {
        Clock::time_point begin = Clock::now();
        code = llvm::sys::ExecuteAndWait(kiln, argv, std::nullopt, redirects);
        best = std::min(best, secondsSince(begin));
      }
      os << llvm::formatv("  `kiln cache check` on the same {0} files "
                          "(process start included, its default threads, "
                          "best of {1}): {2:f1} ms, exit code {3}\n",
                          graphs.size(), options.repeat, best * 1e3, code);
      measureCheckMemo(os, kiln, graphs, root, options.repeat);
    }
  }

  if (options.keep)
    os << "\nkept " << root << "\n";
  else
    llvm::sys::fs::remove_directories(root);
  return 0;
}
