//===- ClusterBench.h - kiln-bench cluster ----------------------*- C++ -*-===//
//
// This file declares `kiln-bench cluster`, which measures a cluster
// precompile on simulated nodes (processes with --nodes N --node-rank R,
// one local cache each, one shared file tier) against its ideal,
// max(longest graph, total work / workers), and against the static split
// in which each node compiles its own list alone (neuron_parallel_compile's
// way), all in the same run. Compilation is a stand-in whose time is
// proportional to the graph's size, so that the figures measure the
// schedule, not two cores shared by four nodes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_CLUSTERBENCH_H
#define KILN_TOOLS_KILN_BENCH_CLUSTERBENCH_H

#include <string>

namespace kiln::bench {

struct ClusterBenchOptions {
  unsigned nodes = 4;
  unsigned workers = 1; ///< per node
  /// Seconds the stand-in compiler takes per MB of graph text.
  double secondsPerMB = 20;
  std::string preset = "tiny";
  unsigned tp = 2, pp = 2, dp = 2;
  std::string directory;
};

int runClusterBench(const ClusterBenchOptions &options);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_CLUSTERBENCH_H
