//===- ClusterRun.cpp - one precompile across the nodes of a job -*- C++ -*-===//
//
// This file implements the cluster queue's shared files (ClusterRun.h) and
// how a process finds its place in a run: options first, then Slurm's
// environment.
//
//===----------------------------------------------------------------------===//

#include "kiln/Driver/ClusterRun.h"
#include "kiln/Support/BoundedJson.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <cmath>
#include <unistd.h>

using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

static Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// A run file that is not one (a FIFO, a directory, too large: an error
/// of that file alone) reads as none; the tier's own errors stay errors.
static Expected<std::optional<std::string>>
getEntryOrSkip(Expected<std::optional<std::string>> file) {
  if (file)
    return file;
  bool entryOnly = false;
  Error rest = llvm::handleErrors(
      file.takeError(), [&](std::unique_ptr<RemoteError> error) -> Error {
        if (!error->isEntryOnly())
          return Error(std::move(error));
        entryOnly = true;
        return Error::success();
      });
  if (rest)
    return std::move(rest);
  return std::optional<std::string>();
}

std::string kiln::sanitizeRunId(StringRef runId) {
  std::string clean;
  for (char c : runId)
    clean += llvm::isAlnum(c) || c == '.' || c == '_' || c == '-' ? c : '_';
  if (clean.empty() || clean == "." || clean == "..")
    clean = "run" + clean;
  return clean;
}

unsigned kiln::parseTasksPerNode(StringRef text, unsigned nodeId) {
  // Groups `N` or `N(xM)`: M nodes of N tasks each, in node order.
  llvm::SmallVector<StringRef> groups;
  text.split(groups, ',', -1, /*KeepEmpty=*/false);
  unsigned node = 0;
  for (StringRef group : groups) {
    auto [count, repeat] = group.split('(');
    unsigned tasks = 0, times = 1;
    if (count.trim().getAsInteger(10, tasks))
      return 1;
    if (!repeat.empty() &&
        (!repeat.consume_front("x") || !repeat.consume_back(")") ||
         repeat.getAsInteger(10, times)))
      return 1;
    if (nodeId < node + times)
      return std::max(1u, tasks);
    node += times;
  }
  return 1;
}

Expected<std::optional<ClusterMember>>
kiln::findClusterMember(unsigned nodes, int nodeRank, StringRef runId) {
  ClusterMember member;
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  member.hostName = host;
  if (nodes) {
    if (nodeRank < 0 || (unsigned)nodeRank >= nodes)
      return makeError("--node-rank must be from 0 to " +
                       llvm::Twine(nodes - 1) + " with --nodes " +
                       llvm::Twine(nodes));
    if (runId.empty())
      return makeError("--nodes needs --run-id: a name that every node of "
                       "the run is given (the launcher's job id)");
    if (nodes == 1)
      return std::optional<ClusterMember>();
    member.nodes = nodes;
    member.rank = nodeRank;
    member.nodeId = nodeRank;
    member.runId = sanitizeRunId(runId);
    return std::optional<ClusterMember>(member);
  }
  if (nodeRank >= 0 || !runId.empty())
    return makeError("--node-rank and --run-id go with --nodes");
  auto env = [](const char *name) {
    return llvm::sys::Process::GetEnv(name).value_or("");
  };
  std::string job = env("SLURM_JOB_ID"), tasks = env("SLURM_NTASKS"),
              proc = env("SLURM_PROCID"), step = env("SLURM_STEP_ID");
  unsigned count = 0, rank = 0;
  uint64_t stepId = 0;
  // A job step that srun started: a batch script (or its extern step) is
  // one process, whatever SLURM_NTASKS says.
  if (job.empty() || StringRef(step).getAsInteger(10, stepId) ||
      stepId >= 0xFFFFFFF0ull || StringRef(tasks).getAsInteger(10, count) ||
      count < 2 || StringRef(proc).getAsInteger(10, rank) || rank >= count)
    return std::optional<ClusterMember>();
  member.nodes = count;
  member.rank = rank;
  member.runId = sanitizeRunId("slurm-" + job + "." + step);
  if (std::string node = env("SLURMD_NODENAME"); !node.empty())
    member.hostName = node;
  member.fromSlurm = true;
  // Several tasks on one node share its work (the first runs the workers).
  unsigned nodeId = 0, localId = 0;
  if (!StringRef(env("SLURM_NODEID")).getAsInteger(10, nodeId) &&
      !StringRef(env("SLURM_LOCALID")).getAsInteger(10, localId)) {
    member.nodeId = nodeId;
    member.localId = localId;
    member.tasksOnNode = parseTasksPerNode(env("SLURM_TASKS_PER_NODE"), nodeId);
  } else {
    member.nodeId = rank;
  }
  return std::optional<ClusterMember>(member);
}

Error ClusterRun::publishList(llvm::ArrayRef<CompileJob> jobs) {
  llvm::json::Array graphs;
  for (const CompileJob &job : jobs) {
    if (Error error = tier.putRunFile(path("graphs", job.key), job.text))
      return error;
    graphs.push_back(llvm::json::Object{
        {"key", job.key},
        {"signature", job.parts.signature.toHex()},
        {"name", job.name},
        {"ops", (int64_t)job.ops},
        {"estimate_seconds", job.estimateSeconds}});
  }
  llvm::json::Object list{{"rank", (int64_t)member.rank},
                          {"node", (int64_t)member.nodeId},
                          {"host", member.hostName},
                          {"graphs", std::move(graphs)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(list));
  return tier.putRunFile(path("nodes", std::to_string(member.rank)), text);
}

Expected<std::vector<std::pair<unsigned, llvm::json::Object>>>
ClusterRun::readRankFiles(StringRef directory) {
  Expected<std::vector<std::string>> names =
      tier.listRunFiles(member.runId + "/" + directory.str());
  if (!names)
    return names.takeError();
  std::vector<std::pair<unsigned, llvm::json::Object>> files;
  for (const std::string &name : *names) {
    unsigned rank;
    // A rank beyond this run's is an earlier run's (or no node's).
    if (StringRef(name).getAsInteger(10, rank) || rank >= member.nodes)
      continue;
    Expected<std::optional<std::string>> text =
        getEntryOrSkip(tier.getRunFile(path(directory, name)));
    if (!text)
      return text.takeError();
    if (!*text)
      continue;
    // A file that does not read is skipped: its node's graphs stay its own.
    Expected<llvm::json::Value> parsed = parseBoundedJson(**text);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      continue;
    }
    if (llvm::json::Object *object = parsed->getAsObject())
      files.emplace_back(rank, std::move(*object));
  }
  return files;
}

Expected<std::vector<ClusterGraph>>
ClusterRun::readOtherLists(std::map<unsigned, unsigned> *nodeOfRank) {
  Expected<std::vector<std::pair<unsigned, llvm::json::Object>>> lists =
      readRankFiles("nodes");
  if (!lists)
    return lists.takeError();
  std::vector<ClusterGraph> graphs;
  for (const auto &[rank, list] : *lists) {
    const llvm::json::Array *array = list.getArray("graphs");
    unsigned nodeId = list.getInteger("node").value_or(rank);
    if (nodeOfRank)
      (*nodeOfRank)[rank] = nodeId;
    if (rank == member.rank || !array)
      continue;
    for (const llvm::json::Value &item : *array) {
      const llvm::json::Object *graph = item.getAsObject();
      if (!graph)
        continue;
      ClusterGraph entry;
      entry.key = graph->getString("key").value_or("").str();
      entry.signature = graph->getString("signature").value_or("").str();
      entry.name = graph->getString("name").value_or("").str();
      entry.ops = graph->getInteger("ops").value_or(0);
      entry.estimateSeconds = graph->getNumber("estimate_seconds").value_or(0);
      entry.rank = rank;
      entry.nodeId = nodeId;
      if (isCacheKey(entry.key))
        graphs.push_back(std::move(entry));
    }
  }
  return graphs;
}

Expected<std::optional<std::string>> ClusterRun::fetchGraph(StringRef key) {
  if (!isCacheKey(key))
    return makeError("'" + key + "' is not a cache key");
  return getEntryOrSkip(tier.getRunFile(path("graphs", key)));
}

Expected<std::optional<double>>
ClusterRun::readCompileTime(StringRef signature) {
  Expected<std::optional<std::string>> text =
      getEntryOrSkip(tier.getRunFile("compile-times/" + signature.str()));
  if (!text)
    return text.takeError();
  double seconds;
  if (!*text || StringRef(**text).trim().getAsDouble(seconds) ||
      !std::isfinite(seconds) || seconds <= 0 || seconds > 1e7)
    return std::optional<double>();
  return std::optional<double>(seconds);
}

Error ClusterRun::recordCompileTime(StringRef signature, double seconds) {
  return tier.putRunFile("compile-times/" + signature.str(),
                         llvm::formatv("{0:F3}", seconds).str());
}

Error ClusterRun::publishResult(const ClusterNodeResult &result) {
  llvm::json::Object object{
      {"rank", (int64_t)result.rank},
      {"host", result.host},
      {"graphs", (int64_t)result.graphs},
      {"compiled", (int64_t)result.compiled},
      {"compiled_for_others", (int64_t)result.compiledForOthers},
      {"failed", (int64_t)result.failed},
      {"hits", (int64_t)result.hits},
      {"busy_seconds", result.busySeconds},
      {"elapsed_seconds", result.elapsedSeconds},
      {"longest_seconds", result.longestSeconds},
      {"workers", (int64_t)result.workers},
      {"finished_ms", result.finishedMs},
      {"keys", [&] {
         llvm::json::Array keys;
         for (const std::string &key : result.keys)
           keys.push_back(key);
         return keys;
       }()},
      {"spans", [&] {
         llvm::json::Array spans;
         for (const ClusterSpan &span : result.spans)
           spans.push_back(llvm::json::Object{{"name", span.name},
                                              {"key", span.key},
                                              {"result", span.result},
                                              {"worker", span.worker},
                                              {"start", span.startSeconds},
                                              {"end", span.endSeconds}});
         return spans;
       }()}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(object));
  return tier.putRunFile(path("results", std::to_string(member.rank)), text);
}

Expected<std::map<unsigned, ClusterNodeResult>> ClusterRun::readResults() {
  Expected<std::vector<std::pair<unsigned, llvm::json::Object>>> files =
      readRankFiles("results");
  if (!files)
    return files.takeError();
  std::map<unsigned, ClusterNodeResult> results;
  for (const auto &[rank, object] : *files) {
    ClusterNodeResult result;
    result.rank = rank;
    result.host = object.getString("host").value_or("").str();
    result.graphs = object.getInteger("graphs").value_or(0);
    result.compiled = object.getInteger("compiled").value_or(0);
    result.compiledForOthers =
        object.getInteger("compiled_for_others").value_or(0);
    result.failed = object.getInteger("failed").value_or(0);
    result.hits = object.getInteger("hits").value_or(0);
    result.busySeconds = object.getNumber("busy_seconds").value_or(0);
    result.elapsedSeconds = object.getNumber("elapsed_seconds").value_or(0);
    result.longestSeconds = object.getNumber("longest_seconds").value_or(0);
    // A file may say anything: counts are kept to what a node can have.
    result.workers = (unsigned)std::clamp<int64_t>(
        object.getInteger("workers").value_or(1), 1, 4096);
    result.finishedMs = object.getInteger("finished_ms").value_or(0);
    if (const llvm::json::Array *keys = object.getArray("keys"))
      for (const llvm::json::Value &key : *keys)
        if (std::optional<StringRef> text = key.getAsString())
          result.keys.push_back(text->str());
    if (const llvm::json::Array *spans = object.getArray("spans"))
      for (const llvm::json::Value &item : *spans)
        if (const llvm::json::Object *span = item.getAsObject();
            span && span->getInteger("worker").value_or(0) >= 0 &&
            span->getInteger("worker").value_or(0) < result.workers)
          result.spans.push_back(
              {span->getString("name").value_or("").str(),
               span->getString("key").value_or("").str(),
               span->getString("result").value_or("").str(),
               (int)span->getInteger("worker").value_or(0),
               span->getNumber("start").value_or(0),
               span->getNumber("end").value_or(0)});
    results[rank] = result;
  }
  return results;
}

llvm::json::Value
kiln::makeClusterTrace(const std::map<unsigned, ClusterNodeResult> &results) {
  double origin = 0;
  for (const auto &[rank, result] : results)
    for (const ClusterSpan &span : result.spans)
      if (origin == 0 || span.startSeconds < origin)
        origin = span.startSeconds;
  auto micros = [&](double seconds) {
    return (int64_t)((seconds - origin) * 1e6);
  };
  llvm::json::Array events;
  for (const auto &[rank, result] : results) {
    int pid = rank + 1;
    events.push_back(llvm::json::Object{
        {"name", "process_name"},
        {"ph", "M"},
        {"pid", pid},
        {"args",
         llvm::json::Object{{"name", "node " + std::to_string(rank) + " (" +
                                         result.host + ")"}}}});
    for (unsigned worker = 0; worker < result.workers; ++worker)
      events.push_back(llvm::json::Object{
          {"name", "thread_name"},
          {"ph", "M"},
          {"pid", pid},
          {"tid", (int64_t)worker + 1},
          {"args",
           llvm::json::Object{{"name", "worker " + std::to_string(worker)}}}});
    for (const ClusterSpan &span : result.spans)
      events.push_back(llvm::json::Object{
          {"name", span.name},
          {"cat", "compile"},
          {"ph", "X"},
          {"pid", pid},
          {"tid", span.worker + 1},
          {"ts", micros(span.startSeconds)},
          {"dur", (int64_t)((span.endSeconds - span.startSeconds) * 1e6)},
          {"args", llvm::json::Object{{"key", span.key},
                                      {"result", span.result}}}});
  }
  return llvm::json::Object{{"traceEvents", std::move(events)},
                            {"displayTimeUnit", "ms"}};
}
