//===- RemoteBench.h - kiln-bench remote ------------------------*- C++ -*-===//
//
// This file declares `kiln-bench remote`, which measures the remote tiers
// against their floors in the same run: a remote hit of a small and a large
// artifact fetched into the local tier (verified, copied), per backend,
// beside the plain read of the same bytes (a GET through hiredis, a read of
// the file, curl's GET of the URL); and `kiln cache check --fetch` of a set
// of graphs on an empty local cache against the same check when the local
// cache holds them. It starts its own redis-server and nginx on loopback.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_REMOTEBENCH_H
#define KILN_TOOLS_KILN_BENCH_REMOTEBENCH_H

#include <string>

namespace kiln::bench {

struct RemoteBenchOptions {
  unsigned smallBytes = 1024;
  unsigned largeMiB = 100;
  unsigned smallRepeat = 200;
  unsigned largeRepeat = 10;
  unsigned graphs = 20;
  unsigned checkRepeat = 5;
  /// Where the caches and servers' files go (default: $TMPDIR, else /tmp).
  std::string directory;
};

/// Runs the benchmark and prints its table. Asserts nothing; returns 0
/// unless the benchmark itself could not run.
int runRemoteBench(const RemoteBenchOptions &options);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_REMOTEBENCH_H
