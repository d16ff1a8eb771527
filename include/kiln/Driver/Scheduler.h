//===- Scheduler.h - compile a batch of graphs in worker processes -*- C++
//-*-===//
//
// This file declares the heart of `kiln precompile`: the graphs that missed
// the cache are compiled by N isolated worker processes, largest first, each
// under a lease in the cache so that concurrent runs (on this machine or
// others sharing the cache) compile each graph once in total. A worker that
// fails, crashes, runs out of memory or time costs its graph alone: the
// failure is recorded in the cache with its log and the batch goes on.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DRIVER_SCHEDULER_H
#define KILN_DRIVER_SCHEDULER_H

#include "kiln/Cache/TieredCache.h"
#include "kiln/Driver/ChildProcess.h"

#include <functional>
#include <string>
#include <vector>

namespace kiln {

/// One graph to compile (one key: files with the same key are one job).
struct CompileJob {
  std::string name;   ///< the graph's module name, else its file's name
  std::string source; ///< the file compiled
  std::vector<std::string> duplicates; ///< other files with this key
  KeyParts parts;
  std::string key;
  std::vector<uint64_t> sketch; ///< kept with the entry (cache explain)
  std::string text;             ///< the graph's text, kept with the entry
  /// For an external compiler: the graph as HLO text, until written out.
  std::string exportedHlo;
  /// Keyed from the cache's memo: text and export are read when needed.
  bool fromMemo = false;
  /// Another node's graph in a cluster run (ClusterRun.h): compiled here
  /// if no one holds it, never waited for, never fetched into this node's
  /// cache.
  bool forOtherNode = false;
  /// Seconds into the schedule before which this process does not claim
  /// the job (a task that leaves its node's compiling to another task of
  /// the node): until then it only looks whether someone has done it, and
  /// after, compiles it itself, so that nothing waits forever.
  double holdSeconds = 0;
  uint64_t ops = 0;
  /// What the compilation is expected to take: an earlier compile of the
  /// same computation (`remembered`), else an estimate from its size.
  double estimateSeconds = 0;
  bool remembered = false;
};

enum class JobStatus {
  Queued,
  Cached,            ///< a hit before anything was compiled
  Compiled,          ///< compiled by this run
  CompiledElsewhere, ///< compiled meanwhile by another process
  Failed,
};

llvm::StringRef getJobStatusName(JobStatus status);

/// What became of a job.
struct JobOutcome {
  JobStatus status = JobStatus::Queued;
  /// Why it failed (or where it came from), in words.
  std::string reason;
  /// A failure recorded by an earlier run, not retried.
  bool failedBefore = false;
  /// A failure recorded in the cache (by this run or an earlier one): the
  /// next run does not compile it unless told to.
  bool recorded = false;
  double seconds = 0; ///< the last attempt's compile time
  int worker = -1;    ///< the worker slot that compiled it
  unsigned threads = 1; ///< worker slots it had (ScheduleOptions::opsPerThread)
  uint64_t peakMemoryBytes = 0;
  std::string logPath; ///< the worker's output (the cache's log on failure)
  unsigned attempts = 0;
};

/// One run of a worker, for the trace.
struct WorkerAttempt {
  size_t job;
  int worker;
  double startSeconds; ///< since the schedule began
  double endSeconds;
  std::string result; ///< compiled, failed, crashed, ...
  unsigned threads = 1;
};

/// How a job's worker is started, and where it leaves the artifact.
struct WorkerCommand {
  std::vector<std::string> argv;
  std::string outputPath;
  /// An exit status by which the worker says it ran out of memory (kiln's
  /// own worker); -1: none.
  int outOfMemoryStatus = -1;
  /// The address space the worker's own code maps (getLoadedCodeBytes for
  /// kiln's worker, mostly never resident), added to its limit, so that
  /// --job-memory bounds what a compilation allocates and a small limit is
  /// reached by an allocation kiln reports, not by exec failing.
  uint64_t loadedCodeBytes = 0;
};

struct ScheduleOptions {
  unsigned jobs = 1;
  uint64_t jobMemoryBytes = 0; ///< RLIMIT_AS of each worker; 0: none
  /// The largest artifact a worker may hand back (--max-artifact-size).
  uint64_t maxArtifactBytes = 4ull << 30;
  double timeoutSeconds = 0;   ///< per attempt; 0: none
  unsigned retries = 0;        ///< extra attempts after a crash
  bool retryFailed = false;    ///< compile graphs whose failure is cached
  bool force = false;          ///< compile even what is cached, replacing it
  /// How long a lease lasts unless renewed; a run renews its leases every
  /// quarter of this, so only a dead run's leases expire.
  unsigned leaseSeconds = 60;
  std::string logDirectory; ///< the workers' logs and outputs
  /// A graph may be compiled on several threads (kiln's own worker
  /// compiles a large graph's segments side by side): when fewer graphs
  /// wait than workers are free, the graph started gets the spare
  /// workers' slots, one per this many of its ops, so that at the end of
  /// a run the largest graph is not compiled on one core while the others
  /// idle. 0: one slot each (an external compiler).
  uint64_t opsPerThread = 0;
  /// Asked for more jobs when a worker is free and the queue is empty (at
  /// most every two seconds, and once more before the run ends): a cluster
  /// node takes graphs that other nodes listed since (ClusterRun.h).
  std::function<std::vector<CompileJob>()> moreWork;
  /// Asked when nothing is left to do: true keeps the run waiting for more
  /// work (a node's first task, until its node's other tasks have listed
  /// their graphs).
  std::function<bool()> waitForMore;
};

/// Counts for a progress display.
struct ScheduleCounts {
  size_t done = 0, failed = 0, running = 0, queued = 0, waiting = 0;
  /// Estimated seconds of work not finished, over the workers.
  double etaSeconds = 0;
  double elapsedSeconds = 0;
};

/// What a display learns while a schedule runs.
class ScheduleObserver {
public:
  virtual ~ScheduleObserver();
  virtual void jobStarted(const CompileJob &job, int worker) {}
  /// A job ends (compiled, failed, or found done by another process).
  virtual void jobFinished(const CompileJob &job, const JobOutcome &outcome) {}
  /// Jobs were added to the schedule (ScheduleOptions::moreWork).
  virtual void jobsAdded(size_t count) {}
  /// A worker crashed and its job goes back to the queue.
  virtual void jobRetried(const CompileJob &job, const std::string &reason) {}
  /// About once a second, and after every change.
  virtual void update(const ScheduleCounts &counts) {}
};

/// The command of `job`'s `attempt`th try, on `threads` threads.
using WorkerCommandBuilder = std::function<WorkerCommand(
    const CompileJob &job, unsigned attempt, unsigned threads)>;

/// Compiles `jobs` (misses already looked up) into `cache`; returns each
/// job's outcome, in the order of `jobs`.
class Scheduler {
public:
  /// `jobs` grows with what ScheduleOptions::moreWork adds.
  Scheduler(TieredCache &cache, std::vector<CompileJob> &jobs,
            WorkerCommandBuilder buildCommand, ScheduleOptions options,
            ScheduleObserver &observer);
  ~Scheduler();
  std::vector<JobOutcome> run();
  const std::vector<WorkerAttempt> &getAttempts() const { return attempts; }

private:
  struct Running;
  /// Starts `job` on `worker`'s slot (and spare ones, when fewer than
  /// the free slots wait: the queue, the deferred and `alsoWaiting`).
  bool startJob(size_t job, int worker, size_t alsoWaiting = 0);
  void finishJob(Running &running, const ChildExit &exit, bool timedOut);
  /// Ends `job` as failed, and ends its lease. With `record`, the failure
  /// is the graph's and is recorded in the cache with `log`.
  void failJob(size_t job, const std::string &reason, const std::string &log,
               double seconds, bool record);
  /// Claims `job`'s lease; false when there is nothing to compile (done
  /// elsewhere, or waiting for another process's lease).
  bool claimOrDefer(size_t job);
  /// Adds what ScheduleOptions::moreWork gives; whether it gave any.
  bool takeMoreWork();
  ScheduleCounts count() const;

  /// The local tier and the remotes: leases and entries are the
  /// cluster's when a remote holds them.
  TieredCache &cache;
  std::vector<CompileJob> &jobs;
  WorkerCommandBuilder buildCommand;
  ScheduleOptions options;
  ScheduleObserver &observer;
  std::vector<JobOutcome> outcomes;
  std::vector<WorkerAttempt> attempts;
  std::vector<size_t> queue;    ///< largest first
  std::vector<size_t> deferred; ///< leased by another process
  std::vector<Running> running;
  std::vector<int> freeWorkers;
  double start = 0;
};

} // namespace kiln

#endif // KILN_DRIVER_SCHEDULER_H
