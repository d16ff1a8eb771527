//===- Report.cpp - kiln precompile's JSON report and trace -----*- C++ -*-===//

#include "kiln/Driver/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/stat.h>

using namespace kiln;

llvm::json::Value kiln::makeReport(llvm::ArrayRef<ReportGraph> graphs,
                                   llvm::json::Object totals) {
  llvm::json::Array rows;
  for (const ReportGraph &graph : graphs) {
    llvm::json::Object row{{"name", graph.name},
                           {"source", graph.source},
                           {"files", llvm::json::Array(graph.files)},
                           {"status", graph.status},
                           {"seconds", graph.seconds},
                           {"attempts", graph.attempts}};
    if (!graph.key.empty())
      row["key"] = graph.key;
    if (!graph.reason.empty())
      row["reason"] = graph.reason;
    if (graph.worker >= 0)
      row["worker"] = graph.worker;
    if (graph.threads > 1)
      row["threads"] = graph.threads;
    if (graph.peakMemoryBytes)
      row["peak_memory_bytes"] = (int64_t)graph.peakMemoryBytes;
    if (!graph.logPath.empty())
      row["log"] = graph.logPath;
    rows.push_back(std::move(row));
  }
  return llvm::json::Object{{"graphs", std::move(rows)},
                            {"totals", std::move(totals)}};
}

llvm::json::Value kiln::makeChromeTrace(llvm::ArrayRef<CompileJob> jobs,
                                        llvm::ArrayRef<WorkerAttempt> attempts,
                                        llvm::ArrayRef<PhaseSpan> phases,
                                        double scheduleStart,
                                        unsigned workers) {
  llvm::json::Array events;
  auto name = [&](int track, std::string text) {
    events.push_back(llvm::json::Object{
        {"name", "thread_name"},
        {"ph", "M"},
        {"pid", 1},
        {"tid", track},
        {"args", llvm::json::Object{{"name", std::move(text)}}}});
  };
  events.push_back(llvm::json::Object{
      {"name", "process_name"},
      {"ph", "M"},
      {"pid", 1},
      {"args", llvm::json::Object{{"name", "kiln precompile"}}}});
  name(0, "driver");
  for (unsigned worker = 0; worker < workers; ++worker)
    name(worker + 1, "worker " + std::to_string(worker));
  auto micros = [](double seconds) { return (int64_t)(seconds * 1e6); };
  for (const PhaseSpan &phase : phases)
    events.push_back(llvm::json::Object{
        {"name", phase.name},
        {"cat", "driver"},
        {"ph", "X"},
        {"pid", 1},
        {"tid", 0},
        {"ts", micros(phase.startSeconds)},
        {"dur", micros(phase.endSeconds - phase.startSeconds)}});
  for (const WorkerAttempt &attempt : attempts) {
    const CompileJob &job = jobs[attempt.job];
    events.push_back(llvm::json::Object{
        {"name", job.name},
        {"cat", "compile"},
        {"ph", "X"},
        {"pid", 1},
        {"tid", attempt.worker + 1},
        {"ts", micros(scheduleStart + attempt.startSeconds)},
        {"dur", micros(attempt.endSeconds - attempt.startSeconds)},
        {"args",
         llvm::json::Object{{"key", job.key},
                            {"source", job.source},
                            {"result", attempt.result},
                            {"ops", (int64_t)job.ops},
                            {"threads", (int64_t)attempt.threads},
                            {"estimate_seconds", job.estimateSeconds}}}});
  }
  return llvm::json::Object{{"traceEvents", std::move(events)},
                            {"displayTimeUnit", "ms"}};
}

llvm::Error kiln::checkReportPath(llvm::StringRef path) {
  struct stat status;
  if (::lstat(path.str().c_str(), &status) != 0)
    return llvm::Error::success(); // written new
  if (!S_ISREG(status.st_mode))
    return llvm::createStringError(
        "cannot write " + path.str() + ": it is " +
        (S_ISDIR(status.st_mode)    ? "a directory"
         : S_ISLNK(status.st_mode)  ? "a symbolic link"
         : S_ISFIFO(status.st_mode) ? "a FIFO"
                                    : "a device or special file") +
        ", and kiln replaces only a regular file");
  return llvm::Error::success();
}

llvm::Error kiln::writeJsonFile(llvm::StringRef path,
                                const llvm::json::Value &value) {
  if (llvm::Error error = checkReportPath(path))
    return error;
  // A name of its own beside the file, then renamed over it: a reader
  // sees the old report or the new one, never half of one.
  int fd = -1;
  llvm::SmallString<256> temporary;
  if (std::error_code error = llvm::sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%", fd, temporary))
    return llvm::createStringError("cannot write " + path.str() + ": " +
                                   error.message());
  std::error_code failed;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << llvm::formatv("{0:2}", value) << "\n";
    os.close();
    if (os.has_error()) {
      failed = os.error();
      os.clear_error(); // reported here, not by the destructor's abort
    }
  }
  if (!failed)
    failed = llvm::sys::fs::rename(temporary, path);
  if (failed) {
    llvm::sys::fs::remove(temporary);
    return llvm::createStringError("cannot write " + path.str() + ": " +
                                   failed.message());
  }
  return llvm::Error::success();
}
