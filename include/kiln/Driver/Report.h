//===- Report.h - kiln precompile's JSON report and trace -------*- C++ -*-===//
//
// This file declares the two files a precompile can leave behind: a report
// (per graph: what became of it, how long it took, where its log is) for
// scripts, and a Chrome trace of the schedule (one track per worker, and
// one for the driver's own phases) that Perfetto and chrome://tracing open.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DRIVER_REPORT_H
#define KILN_DRIVER_REPORT_H

#include "kiln/Driver/Scheduler.h"

#include "llvm/Support/JSON.h"

namespace kiln {

/// One graph of the report.
struct ReportGraph {
  std::string name;
  std::string source;
  std::vector<std::string> files; ///< every file with this key
  std::string key;                ///< empty when the graph did not import
  std::string status; ///< cached, compiled, compiled-elsewhere, failed, error
  std::string reason;
  double seconds = 0;
  int worker = -1;
  unsigned threads = 1; ///< worker slots (threads) it was compiled on
  uint64_t peakMemoryBytes = 0;
  std::string logPath;
  unsigned attempts = 0;
};

/// A phase of the driver (running the training command, keying, ...), in
/// seconds since the run began.
struct PhaseSpan {
  std::string name;
  double startSeconds;
  double endSeconds;
};

llvm::json::Value makeReport(llvm::ArrayRef<ReportGraph> graphs,
                             llvm::json::Object totals);

/// The trace: the driver's phases on track 0, each worker's attempts on
/// track worker+1; `scheduleStart` is when the schedule began, in the
/// phases' time.
llvm::json::Value makeChromeTrace(llvm::ArrayRef<CompileJob> jobs,
                                  llvm::ArrayRef<WorkerAttempt> attempts,
                                  llvm::ArrayRef<PhaseSpan> phases,
                                  double scheduleStart, unsigned workers);

/// Writes `value` to `path` (atomically: a reader never sees half of it).
llvm::Error writeJsonFile(llvm::StringRef path, const llvm::json::Value &value);

/// An error if `path` exists and is not a regular file (a directory, a
/// link, a FIFO, a device): writeJsonFile replaces only a regular file,
/// and --report and --trace are checked before a run, not after it.
llvm::Error checkReportPath(llvm::StringRef path);

} // namespace kiln

#endif // KILN_DRIVER_REPORT_H
