//===- TimedRun.h - kiln commands run and timed by a benchmark --*- C++ -*-===//
//
// This file declares how kiln-bench runs a command as a child process and
// times it, and how it reads the stage times `kiln compile` reports
// ("compiled F in S s (front end a, lowering b, LLVM IR c, LLVM
// optimization d, code generation e)").
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_TIMEDRUN_H
#define KILN_TOOLS_KILN_BENCH_TIMEDRUN_H

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>
#include <vector>

namespace kiln::bench {

struct RunResult {
  double seconds = 0;
  bool ok = false;
  std::string log; ///< what it printed (stdout and stderr), or why it failed
};

/// The shortest of `repeat` timings of `work`, in seconds.
double bestSeconds(unsigned repeat, const std::function<void()> &work);

/// Runs `argv` with its output in `logPath`, and times it; `environment`
/// (`NAME=VALUE`) is set on top of this process's.
RunResult runTimed(const std::vector<std::string> &argv,
                   const std::string &logPath,
                   const std::vector<std::string> &environment = {});

/// The times `kiln compile` reports; all 0 when `log` has no report.
struct CompileReport {
  double total = 0, frontEnd = 0, lowering = 0, llvm = 0;
};
CompileReport readCompileReport(llvm::StringRef log);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_TIMEDRUN_H
