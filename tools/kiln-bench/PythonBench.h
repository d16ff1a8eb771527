//===- PythonBench.h - kiln-bench python ------------------------*- C++ -*-===//
//
// This file declares `kiln-bench python`, which measures what the kiln
// Python module costs a training script: a call of a cached executable on
// a 1-element input, against the same artifact called through `kiln run`'s
// in-process path (Executable::run) and through the C API's (raw buffers);
// and the time from `cache.load` on a hit to the first result, against
// loading the same artifact and calling it in-process, and against `kiln
// run ARTIFACT` as a process.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_PYTHONBENCH_H
#define KILN_TOOLS_KILN_BENCH_PYTHONBENCH_H

#include <string>

namespace kiln::bench {

struct PythonBenchOptions {
  std::string kiln;   ///< the kiln binary (default: beside kiln-bench)
  std::string python = "/usr/bin/python3"; ///< a Python with NumPy
  std::string module; ///< the module's directory (default: build/python)
  unsigned calls = 20000; ///< calls per timing
  unsigned repeat = 5;    ///< best of
};

/// Runs the benchmark and prints its table; asserts nothing.
int runPythonBench(const PythonBenchOptions &options);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_PYTHONBENCH_H
