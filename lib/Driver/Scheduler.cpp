//===- Scheduler.cpp - compile a batch of graphs in worker processes -*- C++
//-*-===//
//
// One thread drives everything: it claims leases, starts workers, polls
// them, renews the leases of running jobs, and publishes what they wrote.
// Only this process writes the cache; a worker compiles one graph to a
// file and exits, so whatever happens to it, the cache sees either a whole
// artifact or a recorded failure.
//
//===----------------------------------------------------------------------===//

#include "kiln/Driver/Scheduler.h"
#include "kiln/Driver/WorkDirectory.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
#include <chrono>
#include <thread>

using namespace kiln;

ScheduleObserver::~ScheduleObserver() = default;

llvm::StringRef kiln::getJobStatusName(JobStatus status) {
  switch (status) {
  case JobStatus::Queued:
    return "queued";
  case JobStatus::Cached:
    return "cached";
  case JobStatus::Compiled:
    return "compiled";
  case JobStatus::CompiledElsewhere:
    return "compiled-elsewhere";
  case JobStatus::Failed:
    return "failed";
  }
  return "unknown";
}

struct Scheduler::Running {
  size_t job;
  int worker;
  /// The other worker slots it holds (its threads beyond the first).
  std::vector<int> spareWorkers;
  /// The address-space limit it runs under (0: none).
  uint64_t memoryLimitBytes;
  ChildProcess child;
  WorkerCommand command;
  double startedAt; ///< since the schedule began
  double renewedAt; ///< monotonic
};

namespace {
/// How often a deferred job's lease is tried again, and workers polled.
constexpr double kDeferredRetrySeconds = 0.25;
/// How often an idle worker asks for more work (another node's list may
/// have come: reading them all costs the shared tier a listing).
constexpr double kMoreWorkSeconds = 2;
constexpr auto kPollInterval = std::chrono::milliseconds(5);

/// What a worker's log keeps: its beginning and its end, so that a
/// compiler that prints gigabytes costs neither the driver's memory nor the
/// cache's space.
constexpr size_t kLogHeadBytes = 64 << 10;
constexpr size_t kLogTailBytes = 256 << 10;

std::string readLog(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::string();
  llvm::StringRef text = (*buffer)->getBuffer();
  if (text.size() <= kLogHeadBytes + kLogTailBytes)
    return text.str();
  return (text.take_front(kLogHeadBytes) +
          llvm::formatv("\n[... {0} bytes of the worker's output left out "
                        "...]\n",
                        text.size() - kLogHeadBytes - kLogTailBytes)
              .str() +
          text.take_back(kLogTailBytes))
      .str();
}

/// Whether a failed worker's output says that host memory ran out, as the
/// dynamic loader, C++, Python and the C library say it under an
/// address-space limit (which fails allocations instead of killing).
bool mentionsHostOutOfMemory(llvm::StringRef log) {
  for (llvm::StringRef phrase :
       {"Cannot allocate memory", "failed to map segment",
        "cannot allocate TLS data structures", "std::bad_alloc",
        "MemoryError"})
    if (log.contains(phrase))
      return true;
  return false;
}

/// The first line of `log` that says `error:`, trimmed; empty if none.
std::string firstErrorLine(llvm::StringRef log) {
  for (llvm::StringRef line : llvm::split(log, '\n'))
    if (line.contains("error:"))
      return line.trim().str();
  return std::string();
}

std::string formatBytes(uint64_t bytes) {
  if (bytes >= (1ull << 30))
    return llvm::formatv("{0:F1} GiB", bytes / double(1ull << 30)).str();
  return llvm::formatv("{0} MiB", bytes >> 20).str();
}
} // namespace

Scheduler::Scheduler(TieredCache &cache, std::vector<CompileJob> &jobs,
                     WorkerCommandBuilder buildCommand, ScheduleOptions options,
                     ScheduleObserver &observer)
    : cache(cache), jobs(jobs), buildCommand(std::move(buildCommand)),
      options(std::move(options)), observer(observer) {}

Scheduler::~Scheduler() = default;

ScheduleCounts Scheduler::count() const {
  ScheduleCounts counts;
  double remaining = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    switch (outcomes[i].status) {
    case JobStatus::Queued:
      remaining += jobs[i].estimateSeconds;
      break;
    case JobStatus::Failed:
      ++counts.failed;
      break;
    default:
      ++counts.done;
    }
  }
  double now = getMonotonicSeconds();
  for (const Running &job : running)
    remaining -=
        std::min(jobs[job.job].estimateSeconds, job.child.getElapsedSeconds());
  counts.running = running.size();
  counts.waiting = deferred.size();
  counts.queued = queue.size();
  counts.elapsedSeconds = now - start;
  counts.etaSeconds = std::max(0.0, remaining) / std::max(1u, options.jobs);
  return counts;
}

bool Scheduler::claimOrDefer(size_t job) {
  const CompileJob &graph = jobs[job];
  if (graph.holdSeconds > getMonotonicSeconds() - start) {
    // Left to another task for now: done already (then fetched), or
    // asked again later.
    llvm::Expected<LookupResult> found = cache.lookup(graph.key, false, /*count=*/false);
    if (found && (found->status == LookupStatus::Hit ||
                  found->status == LookupStatus::Failed)) {
      JobOutcome &outcome = outcomes[job];
      bool hit = found->status == LookupStatus::Hit;
      outcome.status = hit ? JobStatus::CompiledElsewhere : JobStatus::Failed;
      outcome.failedBefore = !hit;
      outcome.recorded = !hit;
      outcome.reason = hit ? "compiled by another task of this node"
                           : "another process's compilation of it failed";
      if (!hit)
        outcome.logPath = cache.getLogCommand(graph.key);
      observer.jobFinished(graph, outcome);
      return false;
    }
    if (!found)
      llvm::consumeError(found.takeError());
    deferred.push_back(job);
    return false;
  }
  llvm::Expected<ClaimStatus> claim =
      cache.claim(graph.key, options.leaseSeconds,
                  options.retryFailed || options.force, options.force);
  if (!claim) {
    failJob(job,
            "the cache refused a lease: " + llvm::toString(claim.takeError()),
            "", 0, /*record=*/false);
    return false;
  }
  JobOutcome &outcome = outcomes[job];
  // Another node's graph is compiled here only under the cluster's lease:
  // with the shared tier out of reach, no artifact would reach its node.
  if (*claim == ClaimStatus::Claimed && graph.forOtherNode &&
      !cache.getRunTier()) {
    llvm::consumeError(cache.release(graph.key));
    outcome.status = JobStatus::CompiledElsewhere;
    outcome.reason = "another node's graph, left to it (the shared tier is "
                     "out of reach)";
    observer.jobFinished(graph, outcome);
    return false;
  }
  if (*claim == ClaimStatus::Claimed)
    return true;
  // Another node's graph that someone holds or has done: its node waits
  // for it and fetches it, not this one.
  if (graph.forOtherNode) {
    outcome.status = JobStatus::CompiledElsewhere;
    outcome.reason = "another node's graph, compiled elsewhere";
    observer.jobFinished(graph, outcome);
    return false;
  }
  if (*claim == ClaimStatus::HeldElsewhere) {
    deferred.push_back(job);
    return false;
  }
  // Done by another process since this run looked it up.
  llvm::Expected<LookupResult> found = cache.lookup(graph.key, false, /*count=*/false);
  if (found && found->status == LookupStatus::Hit) {
    outcome.status = JobStatus::CompiledElsewhere;
    outcome.reason = "compiled by another process meanwhile";
    if (found->entry)
      outcome.seconds = found->entry->compileSeconds;
  } else if (found && found->status == LookupStatus::Failed) {
    outcome.status = JobStatus::Failed;
    outcome.failedBefore = true;
    outcome.recorded = true;
    outcome.reason = "another process's compilation of it failed";
    outcome.logPath = cache.getLogCommand(graph.key);
  } else {
    if (!found)
      llvm::consumeError(found.takeError());
    // Gone again (evicted): compile it after all.
    deferred.push_back(job);
    return false;
  }
  observer.jobFinished(graph, outcome);
  return false;
}

bool Scheduler::startJob(size_t job, int worker, size_t alsoWaiting) {
  const CompileJob &graph = jobs[job];
  JobOutcome &outcome = outcomes[job];
  ++outcome.attempts;
  // Spare slots (more free than the graphs that wait need) go to this
  // graph, the largest waiting, as far as its size can use them.
  // (`worker` is the last free one.)
  unsigned threads = 1;
  size_t waiting = queue.size() + deferred.size() + alsoWaiting;
  if (options.opsPerThread && freeWorkers.size() > waiting + 1)
    threads = std::min<uint64_t>(
        freeWorkers.size() - waiting,
        std::max<uint64_t>(1, graph.ops / options.opsPerThread));
  WorkerCommand command = buildCommand(graph, outcome.attempts, threads);
  ChildSpec spec;
  spec.argv = command.argv;
  // Each slot brings its memory (a product past 64 bits is no limit).
  bool overflowed = false;
  uint64_t memoryLimit = llvm::SaturatingMultiply<uint64_t>(
      options.jobMemoryBytes, threads, &overflowed);
  if (overflowed)
    memoryLimit = 0;
  spec.memoryLimitBytes =
      memoryLimit ? llvm::SaturatingAdd(memoryLimit, command.loadedCodeBytes)
                  : 0;
  // A compiler's daemons and setsid children end with its graph.
  spec.containDescendants = true;
  spec.logPath = options.logDirectory + "/" + graph.key + ".log";
  if (!command.outputPath.empty())
    llvm::sys::fs::remove(command.outputPath);
  outcome.logPath = spec.logPath;
  llvm::Expected<ChildProcess> child = ChildProcess::spawn(spec);
  if (!child) {
    failJob(job,
            "the compiler could not be started: " +
                llvm::toString(child.takeError()),
            "", 0, /*record=*/false);
    return false;
  }
  double now = getMonotonicSeconds();
  // The spares are the highest-numbered free slots (the front; `worker`
  // is the back), so that the slots that start processes stay the lowest,
  // one per worker the trace shows.
  std::vector<int> spareWorkers(freeWorkers.begin(),
                                freeWorkers.begin() + (threads - 1));
  freeWorkers.erase(freeWorkers.begin(), freeWorkers.begin() + (threads - 1));
  outcome.threads = threads;
  running.push_back(Running{job, worker, std::move(spareWorkers),
                            memoryLimit, std::move(*child), std::move(command),
                            now - start, now});
  observer.jobStarted(graph, worker);
  return true;
}

void Scheduler::failJob(size_t job, const std::string &reason,
                        const std::string &log, double seconds, bool record) {
  const CompileJob &graph = jobs[job];
  JobOutcome &outcome = outcomes[job];
  outcome.status = JobStatus::Failed;
  outcome.reason = reason;
  outcome.seconds = seconds;
  std::string text = log;
  if (!text.empty() && text.back() != '\n')
    text += '\n';
  text += "kiln precompile: " + graph.source + ": " + reason + "\n";
  // Another node's graph that failed here is not recorded: this node's
  // compiler may be the one at fault, and its owner compiles it itself.
  if (graph.forOtherNode)
    record = false;
  // The graph's own failure is recorded with its log: later runs say why
  // without compiling again (unless --retry-failed). A failure of this
  // run's environment (a compiler that cannot be started, a full disk, the
  // cache refusing a lease) is not the graph's, and is not recorded.
  if (!record && cache.getLocal().canWrite()) {
    // Kept in the cache (attempts/), where `kiln cache log` finds it, so
    // that no temporary directory is kept for it.
    if (llvm::Error error = cache.getLocal().keepAttemptLog(graph.key, text))
      llvm::consumeError(std::move(error));
    else
      outcome.logPath = cache.getLogCommand(graph.key);
  }
  if (record) {
    if (llvm::Error error = cache.recordFailure(
            graph.parts, text, seconds, graph.source, graph.sketch,
            EntryGraph{graph.name, graph.text})) {
      outcome.reason += " (and the failure could not be recorded: " +
                        llvm::toString(std::move(error)) + ")";
    } else {
      llvm::Expected<LookupResult> now = cache.lookup(graph.key, false, /*count=*/false);
      if (now && now->status == LookupStatus::Failed) {
        outcome.recorded = true;
        outcome.logPath = cache.getLogCommand(graph.key);
      } else {
        // A forced recompilation of a cached graph failed: the artifact
        // stays, and the output stays in the worker's log.
        if (!now)
          llvm::consumeError(now.takeError());
        outcome.reason += "; the cached artifact was kept";
      }
    }
  }
  llvm::consumeError(cache.release(graph.key));
  observer.jobFinished(graph, outcome);
}

void Scheduler::finishJob(Running &run, const ChildExit &exit, bool timedOut) {
  size_t job = run.job;
  const CompileJob &graph = jobs[job];
  JobOutcome &outcome = outcomes[job];
  outcome.worker = run.worker;
  outcome.seconds = exit.seconds;
  outcome.peakMemoryBytes = exit.peakMemoryBytes;
  double end = getMonotonicSeconds() - start;
  std::string log = readLog(outcome.logPath);
  auto record = [&](llvm::StringRef result) {
    attempts.push_back({job, run.worker, run.startedAt, end, result.str(),
                        (unsigned)run.spareWorkers.size() + 1});
  };

  std::string failure;
  bool crashed = false;
  uint64_t limit = run.memoryLimitBytes;
  // Under an address-space limit an allocation fails rather than the
  // process being killed: kiln's worker says so by its status, others in
  // their output (a device's "out of memory" is not the host's).
  // (An allocation refused for being larger than what is left fails at a
  // small peak: the words are the only sign of it, so words are taken.)
  bool outOfMemory =
      limit && !exit.succeeded() &&
      ((run.command.outOfMemoryStatus >= 0 && !exit.signaled &&
        exit.code == run.command.outOfMemoryStatus) ||
       exit.peakMemoryBytes >= limit / 10 * 9 || mentionsHostOutOfMemory(log));
  // A failure while the work directory's disk is full may be for want of
  // room to write (its log may be empty for that reason).
  bool diskFull = !exit.succeeded() && !timedOut &&
                  isFileSystemFull(llvm::sys::path::parent_path(outcome.logPath));
  std::string errorLine = firstErrorLine(log);
  if (timedOut) {
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%g", options.timeoutSeconds);
    failure = std::string("timed out after ") + seconds +
              " s (--timeout) and was killed";
  } else if (outOfMemory) {
    failure = llvm::formatv("the worker ran out of memory: it reached its "
                            "limit of {0} (--job-memory; peak resident {1}) "
                            "and {2}",
                            formatBytes(limit),
                            formatBytes(exit.peakMemoryBytes), exit.describe());
    if (!errorLine.empty())
      failure += ": " + errorLine;
  } else if (exit.signaled) {
    crashed = true;
    failure = "the worker crashed: " + exit.describe();
  } else if (diskFull) {
    failure = "the compiler failed (" + exit.describe() +
              ") while the work directory's file system was full";
    if (!errorLine.empty())
      failure += ": " + errorLine;
  } else if (exit.code != 0) {
    failure = "the compiler failed (" + exit.describe() + ")";
    // Its first error says what went wrong in a line.
    if (!errorLine.empty())
      failure += ": " + errorLine;
  }
  if (failure.empty()) {
    // Only a regular file the worker wrote, within the limit: never what a
    // link points to, never a FIFO or a device read until memory runs out.
    bool overLimit = false;
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> artifact =
        readWorkerOutput(run.command.outputPath, options.maxArtifactBytes,
                         &overLimit);
    if (!artifact) {
      failure = "the compiler exited with status 0 but " +
                llvm::toString(artifact.takeError());
      removeTreeWithoutLinks(run.command.outputPath);
      // --max-artifact-size is this run's limit, as --job-memory is.
      if (overLimit) {
        record("over the size limit");
        failJob(job,
                failure + "; not recorded (this run's limit, not the graph: "
                          "a run with a larger --max-artifact-size compiles "
                          "it again)",
                log, exit.seconds, /*record=*/false);
        return;
      }
    } else if ((*artifact)->getBufferSize() == 0) {
      failure = "the compiler exited with status 0 but wrote no artifact at " +
                run.command.outputPath;
    } else {
      llvm::Expected<PublishOutcome> published = cache.publishArtifact(
          graph.parts, (*artifact)->getBuffer(), exit.seconds, graph.source,
          graph.sketch, /*replace=*/options.force,
          EntryGraph{graph.name, graph.text});
      llvm::sys::fs::remove(run.command.outputPath);
      if (!published) {
        // The environment's failure (a full disk), not the graph's.
        record("not stored");
        failJob(job,
                "the artifact could not be stored: " +
                    llvm::toString(published.takeError()),
                log, exit.seconds, /*record=*/false);
        return;
      }
      outcome.status = JobStatus::Compiled;
      if (*published == PublishOutcome::Conflict)
        outcome.reason = "another process stored other bytes under this "
                         "key first; they were kept";
      // Stored, or already there: either way the lease is done.
      llvm::consumeError(cache.release(graph.key));
      record("compiled");
      observer.jobFinished(graph, outcome);
      return;
    }
  }
  if (crashed && outcome.attempts <= options.retries) {
    // A crash may be the machine's (a kill, a transient fault), not the
    // graph's: try again, holding the lease.
    record("crashed, retried");
    observer.jobRetried(graph, failure);
    queue.insert(queue.begin(), job);
    return;
  }
  record(timedOut      ? "timed out"
         : outOfMemory ? "out of memory"
         : crashed     ? "crashed"
                       : "failed");
  // A limit of this run (--timeout, --job-memory) or a signal is not the
  // graph's failure: recorded, it would stay "failed before" for a run
  // with room, on every node sharing the cache.
  bool runLimit = timedOut || outOfMemory || crashed || diskFull;
  if (runLimit)
    failure += "; not recorded (this run's limit or a signal, not the "
               "graph: a run with more room compiles it again)";
  failJob(job, failure, log, exit.seconds, /*record=*/!runLimit);
}

bool Scheduler::takeMoreWork() {
  if (!options.moreWork)
    return false;
  std::vector<CompileJob> more = options.moreWork();
  if (more.empty())
    return false;
  for (CompileJob &job : more) {
    size_t index = jobs.size();
    jobs.push_back(std::move(job));
    outcomes.push_back(JobOutcome());
    // Largest first, among what is still queued.
    auto at = llvm::find_if(queue, [&](size_t other) {
      return jobs[other].estimateSeconds < jobs[index].estimateSeconds;
    });
    queue.insert(at, index);
  }
  observer.jobsAdded(more.size());
  return true;
}

std::vector<JobOutcome> Scheduler::run() {
  start = getMonotonicSeconds();
  outcomes.assign(jobs.size(), JobOutcome());
  for (size_t i = 0; i < jobs.size(); ++i)
    queue.push_back(i);
  llvm::stable_sort(queue, [&](size_t a, size_t b) {
    return jobs[a].estimateSeconds > jobs[b].estimateSeconds;
  });
  for (int worker = options.jobs - 1; worker >= 0; --worker)
    freeWorkers.push_back(worker);
  double lastUpdate = 0, lastDeferredTry = 0, lastMoreWork = 0;
  observer.update(count());
  while (true) {
    if (queue.empty() && running.empty() && deferred.empty() &&
        !takeMoreWork()) {
      if (!options.waitForMore || !options.waitForMore())
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      continue;
    }
    bool changed = false;
    // A free worker and nothing queued: another node's graphs, if any.
    if (queue.empty() && !freeWorkers.empty() && options.moreWork &&
        getMonotonicSeconds() - lastMoreWork >= kMoreWorkSeconds) {
      lastMoreWork = getMonotonicSeconds();
      changed |= takeMoreWork();
    }
    // Start what the free workers can take.
    while (!freeWorkers.empty() && !queue.empty()) {
      size_t job = queue.front();
      queue.erase(queue.begin());
      changed = true;
      if (!claimOrDefer(job))
        continue;
      int worker = freeWorkers.back();
      if (startJob(job, worker))
        freeWorkers.pop_back();
    }
    double now = getMonotonicSeconds();
    // Jobs leased by other processes: once their lease ends (the entry is
    // there, or its owner died), they are done or ours to compile.
    if (!deferred.empty() && !freeWorkers.empty() &&
        now - lastDeferredTry >= kDeferredRetrySeconds) {
      lastDeferredTry = now;
      std::vector<size_t> retry;
      retry.swap(deferred);
      for (auto [index, job] : llvm::enumerate(retry)) {
        if (freeWorkers.empty() || !claimOrDefer(job)) {
          if (freeWorkers.empty())
            deferred.push_back(job);
          continue;
        }
        changed = true;
        int worker = freeWorkers.back();
        // The retries not tried yet wait too.
        if (startJob(job, worker, retry.size() - index - 1))
          freeWorkers.pop_back();
      }
    }
    // Poll the workers.
    for (size_t i = 0; i < running.size();) {
      Running &run = running[i];
      bool timedOut = false;
      std::optional<ChildExit> exit = run.child.poll();
      if (!exit && options.timeoutSeconds > 0 &&
          run.child.getElapsedSeconds() > options.timeoutSeconds) {
        run.child.kill();
        exit = run.child.wait();
        timedOut = true;
      }
      if (!exit) {
        if (now - run.renewedAt > options.leaseSeconds / 4.0) {
          run.renewedAt = now;
          llvm::consumeError(
              cache.renew(jobs[run.job].key, options.leaseSeconds));
        }
        ++i;
        continue;
      }
      changed = true;
      freeWorkers.insert(freeWorkers.begin(), run.spareWorkers.begin(),
                         run.spareWorkers.end());
      freeWorkers.push_back(run.worker);
      // Lowest last, the next to start.
      llvm::sort(freeWorkers, std::greater<int>());
      Running finished = std::move(run);
      running.erase(running.begin() + i);
      finishJob(finished, *exit, timedOut);
    }
    if (changed || now - lastUpdate >= 1.0) {
      lastUpdate = now;
      observer.update(count());
    }
    if (!changed)
      std::this_thread::sleep_for(kPollInterval);
  }
  observer.update(count());
  return outcomes;
}
