//===- Progress.cpp - what kiln precompile shows while it works -*- C++ -*-===//

#include "kiln/Driver/Progress.h"
#include "kiln/Support/PrintableText.h"

#include "llvm/Support/FormatVariadic.h"

using namespace kiln;

std::string kiln::formatDuration(double seconds) {
  long total = seconds < 0 ? 0 : (long)(seconds + 0.5);
  long hours = total / 3600, minutes = total / 60 % 60, rest = total % 60;
  if (hours)
    return llvm::formatv("{0}:{1:d2}:{2:d2}", hours, minutes, rest).str();
  return llvm::formatv("{0}:{1:d2}", minutes, rest).str();
}

ProgressDisplay::ProgressDisplay(llvm::raw_ostream &os, bool live, size_t total)
    : os(os), live(live), total(total) {}

void ProgressDisplay::printLine(const std::string &line) {
  if (live && drawn)
    os << "\r\x1b[K";
  // Names and compiler output come from outside: one line, no escapes.
  os << escapeControlCharacters(line) << "\n";
  if (live)
    draw();
  os.flush();
}

void ProgressDisplay::jobFinished(const CompileJob &job,
                                  const JobOutcome &outcome) {
  ++finished;
  std::string where =
      job.name == job.source ? job.source : job.name + " (" + job.source + ")";
  switch (outcome.status) {
  case JobStatus::Compiled:
    // A terminal shows the count moving; a log gets a line per graph.
    if (!live)
      printLine(llvm::formatv(
          "[{0}/{1}] compiled {2} in {3:F1} s (worker {4}{5}, peak {6} MiB)",
          finished, total, where, outcome.seconds, outcome.worker,
          outcome.threads > 1
              ? llvm::formatv(", {0} threads", outcome.threads).str()
              : std::string(),
          outcome.peakMemoryBytes >> 20));
    break;
  case JobStatus::CompiledElsewhere:
    if (!live)
      printLine(llvm::formatv("[{0}/{1}] {2}: {3}", finished, total, where,
                              outcome.reason));
    break;
  case JobStatus::Failed:
    printLine(llvm::formatv(
        "[{0}/{1}] FAILED {2}: {3}{4}", finished, total, where, outcome.reason,
        outcome.logPath.empty() ? std::string() : "; log: " + outcome.logPath));
    break;
  default:
    break;
  }
}

void ProgressDisplay::jobRetried(const CompileJob &job,
                                 const std::string &reason) {
  printLine("retrying " + job.source + ": " + reason);
}

void ProgressDisplay::update(const ScheduleCounts &counts) {
  last = counts;
  // A log says once why nothing seems to happen.
  if (!live && counts.waiting && !counts.running && !counts.queued &&
      !announcedWaiting) {
    announcedWaiting = true;
    printLine(llvm::formatv("waiting for {0} graphs that another process is "
                            "compiling (their leases are in the cache)",
                            counts.waiting));
  }
  if (live) {
    draw();
    os.flush();
  }
}

void ProgressDisplay::draw() {
  os << "\r\x1b[K"
     << llvm::formatv("kiln precompile: {0}/{1} done, {2} failed, {3} "
                      "running, {4} queued",
                      last.done, total, last.failed, last.running,
                      last.queued + last.waiting);
  if (last.waiting)
    os << " (" << last.waiting << " compiling elsewhere)";
  os << ", " << formatDuration(last.elapsedSeconds) << " elapsed";
  if (last.running || last.queued)
    os << ", ETA " << formatDuration(last.etaSeconds);
  drawn = true;
}

void ProgressDisplay::finish() {
  if (live && drawn) {
    draw();
    os << "\n";
    os.flush();
  }
}
