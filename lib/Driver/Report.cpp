//===- Report.cpp - kiln precompile's JSON report and trace -----*- C++ -*-===//

#include "kiln/Driver/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

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
                            {"estimate_seconds", job.estimateSeconds}}}});
  }
  return llvm::json::Object{{"traceEvents", std::move(events)},
                            {"displayTimeUnit", "ms"}};
}

llvm::Error kiln::writeJsonFile(llvm::StringRef path,
                                const llvm::json::Value &value) {
  std::string temporary = path.str() + ".tmp";
  {
    std::error_code error;
    llvm::raw_fd_ostream os(temporary, error);
    if (error)
      return llvm::createStringError("cannot write " + temporary + ": " +
                                     error.message());
    os << llvm::formatv("{0:2}", value) << "\n";
    os.close();
    if (os.has_error())
      return llvm::createStringError("cannot write " + temporary + ": " +
                                     os.error().message());
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path))
    return llvm::createStringError("cannot write " + path.str() + ": " +
                                   error.message());
  return llvm::Error::success();
}
