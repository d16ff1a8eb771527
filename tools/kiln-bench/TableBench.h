//===- TableBench.h - every benchmark, one table ----------------*- C++ -*-===//
//
// This file declares `kiln-bench table`: the import, cache, compile,
// compiled-code and precompile benchmarks run on workloads that kiln-synth
// wrote (tools/bench-table.sh writes them and runs this), each figure
// printed beside its floor or baseline from the same run, then all of them
// as one Markdown table.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_TABLEBENCH_H
#define KILN_TOOLS_KILN_BENCH_TABLEBENCH_H

#include <string>

namespace kiln::bench {

struct TableBenchOptions {
  /// kiln-synth's output: import/ (large graphs), scaling/ (one model at
  /// growing depth), precompile/ (a run's graph set).
  std::string workloads;
  std::string kiln;  ///< the kiln binary (default: beside kiln-bench)
  unsigned jobs = 0; ///< precompile's workers; 0: one per core
};

int runTableBench(const TableBenchOptions &options);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_TABLEBENCH_H
