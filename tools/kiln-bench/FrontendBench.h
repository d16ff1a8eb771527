//===- FrontendBench.h - kiln-bench frontend and evaluator ------*- C++ -*-===//
//
// This file declares two benchmarks of the front end: the time kiln-frontend
// takes against the time importing took, per graph of the corpus, and the
// reference evaluator's throughput on element-wise ops and on dot_general.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_FRONTENDBENCH_H
#define KILN_TOOLS_KILN_BENCH_FRONTENDBENCH_H

#include <string>
#include <vector>

namespace kiln::bench {

/// `kiln-bench frontend [PATHS]`: per graph, import time and kiln-frontend
/// time, and the total ratio (the goal: at most 0.5).
int runFrontendBench(const std::vector<std::string> &paths);

/// `kiln-bench evaluator`: elements per second of element-wise ops and
/// multiply-adds per second of dot_general, best of a few runs.
int runEvaluatorBench();

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_FRONTENDBENCH_H
