//===- Progress.h - what kiln precompile shows while it works ---*- C++ -*-===//
//
// On a terminal, one live line (done, failed, running, queued, elapsed,
// ETA) redrawn in place, with failures printed above it; elsewhere (CI logs,
// files), one plain line per graph as it ends, which is what a log keeps
// well.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DRIVER_PROGRESS_H
#define KILN_DRIVER_PROGRESS_H

#include "kiln/Driver/Scheduler.h"

#include "llvm/Support/raw_ostream.h"

namespace kiln {

/// "1:05", "0:07", "2:01:40".
std::string formatDuration(double seconds);

class ProgressDisplay : public ScheduleObserver {
public:
  /// `total`: the graphs to compile; `live`: redraw one line (a terminal).
  ProgressDisplay(llvm::raw_ostream &os, bool live, size_t total);
  void jobFinished(const CompileJob &job, const JobOutcome &outcome) override;
  void jobsAdded(size_t count) override { total += count; }
  void jobRetried(const CompileJob &job, const std::string &reason) override;
  void update(const ScheduleCounts &counts) override;
  /// Leaves the last live line in place and ends it.
  void finish();

private:
  /// Prints a whole line, above the live line if there is one.
  void printLine(const std::string &line);
  void draw();

  llvm::raw_ostream &os;
  bool live;
  size_t total;
  size_t finished = 0;
  ScheduleCounts last;
  bool drawn = false;
  bool announcedWaiting = false;
};

} // namespace kiln

#endif // KILN_DRIVER_PROGRESS_H
