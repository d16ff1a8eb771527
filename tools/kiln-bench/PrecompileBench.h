//===- PrecompileBench.h - kiln-bench precompile ----------------*- C++ -*-===//
//
// This file declares the benchmark of kiln precompile end to end: the
// schedule's makespan against the lower bound and against xargs -P, the
// warm run against the cold one and against reading the files, and the
// driver's overhead per graph.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_PRECOMPILEBENCH_H
#define KILN_TOOLS_KILN_BENCH_PRECOMPILEBENCH_H

#include <string>

namespace kiln::bench {

struct PrecompileBenchOptions {
  std::string kiln;     ///< the kiln binary (default: beside kiln-bench)
  unsigned graphs = 40; ///< how many graphs
  unsigned maxLayers = 40;
  unsigned width = 64;
  unsigned jobs = 0; ///< workers; 0: one per core
  bool keep = false; ///< keep the graphs, cache and logs
  /// Take the *.hlo graphs of this directory instead of writing MLPs.
  std::string graphsFrom;
};

/// `kiln-bench precompile`: prints each figure beside its baseline; exits
/// 1 if a run failed or the warm run was not all hits.
int runPrecompileBench(const PrecompileBenchOptions &options);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_PRECOMPILEBENCH_H
