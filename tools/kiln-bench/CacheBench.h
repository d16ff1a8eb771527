//===- CacheBench.h - kiln-bench cache --------------------------*- C++ -*-===//
//
// This file declares `kiln-bench cache`, which measures the compile cache:
// lookup latency in a big cache, publish throughput, and the time of
// `kiln cache check` over a corpus split into its steps.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_CACHEBENCH_H
#define KILN_TOOLS_KILN_BENCH_CACHEBENCH_H

#include <string>
#include <vector>

namespace kiln::bench {

/// Options of `kiln-bench cache`.
struct CacheBenchOptions {
  /// Entries of the cache whose lookups are timed.
  unsigned entries = 100000;
  /// Size of each of those entries' artifacts, in bytes.
  unsigned entryBytes = 1024;
  /// How the cache is filled: "bulk" (artifact files written and rows
  /// inserted in one transaction, by kiln-bench itself: a test-only path)
  /// or "publish" (Cache::publish, one artifact at a time, as a compile
  /// driver would; slow, since every publish syncs its file).
  std::string populate = "bulk";
  /// Lookups timed for each kind of lookup.
  unsigned lookups = 20000;
  /// Artifacts published for the throughput of 4 KiB and 4 MiB artifacts.
  unsigned smallPublishes = 1000;
  unsigned largePublishes = 40;
  /// Seconds of lookups while another process publishes.
  double contendedSeconds = 3;
  /// Graphs for the `kiln cache check` split (files or directories).
  std::vector<std::string> corpus;
  unsigned repeat = 5;
  /// Where the caches are made (a fresh directory inside, removed after).
  std::string directory;
  bool keep = false;
};

/// Runs the benchmark and prints its tables. Asserts nothing; returns 0
/// unless the benchmark itself could not run.
int runCacheBench(const CacheBenchOptions &options);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_CACHEBENCH_H
