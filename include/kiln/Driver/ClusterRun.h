//===- ClusterRun.h - one precompile across the nodes of a job --*- C++ -*-===//
//
// This file declares the cluster queue: what the nodes of one precompile
// (the tasks of a Slurm job step, or the processes another launcher starts
// with --nodes N --node-rank R --run-id ID) share through a remote tier.
// Each node publishes the graphs it needs compiled (their keys, sizes and
// texts) under the run's name; every node reads the others' lists and
// takes their pending graphs too, under the tier's cluster-wide leases, so
// each distinct graph is compiled once and an idle node helps a busy one.
// Each node publishes its results; the first gathers them into the
// cluster's totals. Slurm is the engine; kiln adds no daemon.
//
//   RUN/nodes/<rank>      a node's list (JSON)
//   RUN/graphs/<key>      a graph's text, for whichever node compiles it
//   RUN/results/<rank>    a node's results (JSON)
//   compile-times/<sig>   seconds a computation took, kept across runs so
//                         that every node orders its queue by them
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DRIVER_CLUSTERRUN_H
#define KILN_DRIVER_CLUSTERRUN_H

#include "kiln/Cache/Remote/RemoteStorage.h"
#include "kiln/Driver/Scheduler.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// Who this process is in a cluster precompile.
struct ClusterMember {
  unsigned nodes = 1; ///< members of the run
  unsigned rank = 0;  ///< this one's rank, 0 to nodes - 1
  /// The same text for every member of one run (Slurm: job and step ids).
  std::string runId;
  std::string hostName;
  bool fromSlurm = false;
  /// The machine this member runs on, and its place there: several tasks
  /// of a job step on one node (srun --ntasks-per-node) share its work,
  /// the first (localId 0) running the workers.
  unsigned nodeId = 0;
  unsigned localId = 0;
  unsigned tasksOnNode = 1;
};

/// Slurm's SLURM_TASKS_PER_NODE (`2(x3),1`) for node `nodeId`; 1 if it
/// does not say.
unsigned parseTasksPerNode(llvm::StringRef text, unsigned nodeId);

/// The member that `--nodes`, `--node-rank` and `--run-id` name (`nodes`
/// 0: not given), else Slurm's environment (a job step of several tasks:
/// SLURM_JOB_ID, SLURM_STEP_ID, SLURM_NTASKS, SLURM_PROCID,
/// SLURMD_NODENAME); none for a run on one node. A rank out of range or a
/// missing run id is an error.
llvm::Expected<std::optional<ClusterMember>>
findClusterMember(unsigned nodes, int nodeRank, llvm::StringRef runId);

/// A graph of another node's list.
struct ClusterGraph {
  std::string key;
  std::string signature;
  std::string name;
  uint64_t ops = 0;
  double estimateSeconds = 0;
  unsigned rank = 0;   ///< whose list it came from
  unsigned nodeId = 0; ///< the machine of that list's member
};

/// One compilation of a node, for the cluster's trace.
struct ClusterSpan {
  std::string name, key, result;
  int worker = 0;
  double startSeconds = 0, endSeconds = 0; ///< since the epoch
};

/// A node's results, as it published them.
struct ClusterNodeResult {
  unsigned rank = 0;
  std::string host;
  uint64_t graphs = 0, compiled = 0, compiledForOthers = 0, failed = 0,
           hits = 0;
  double busySeconds = 0, elapsedSeconds = 0, longestSeconds = 0;
  unsigned workers = 1;
  std::vector<ClusterSpan> spans;
  /// The keys of this node's graphs (cached or not): their union is the
  /// cluster's distinct graphs.
  std::vector<std::string> keys;
  /// When it was published (ms since the epoch): the first node leaves out
  /// results of an earlier run under the same run id.
  int64_t finishedMs = 0;
};

/// The cluster's Chrome trace (Perfetto, chrome://tracing): one process per
/// node, one track per worker of it, from the nodes' results.
llvm::json::Value
makeClusterTrace(const std::map<unsigned, ClusterNodeResult> &results);

class ClusterRun {
public:
  ClusterRun(RemoteStorage &tier, ClusterMember member)
      : tier(tier), member(std::move(member)) {}

  const ClusterMember &getMember() const { return member; }
  RemoteStorage &getTier() { return tier; }

  /// Publishes `jobs` (this node's graphs to compile): each graph's text,
  /// then the list that names them, so that a list never names a graph
  /// that is not there yet.
  llvm::Error publishList(llvm::ArrayRef<CompileJob> jobs);
  /// The graphs of the other nodes' lists published so far; with
  /// `nodeOfRank`, the machine of every member whose list was read (also
  /// lists without graphs).
  llvm::Expected<std::vector<ClusterGraph>>
  readOtherLists(std::map<unsigned, unsigned> *nodeOfRank = nullptr);
  /// A graph's text, as its node published it.
  llvm::Expected<std::optional<std::string>> fetchGraph(llvm::StringRef key);

  /// How long the computation `signature` took to compile, on any node of
  /// any run through this tier (`compile-times/<signature>`); none if no
  /// node said.
  llvm::Expected<std::optional<double>>
  readCompileTime(llvm::StringRef signature);
  llvm::Error recordCompileTime(llvm::StringRef signature, double seconds);

  llvm::Error publishResult(const ClusterNodeResult &result);
  /// The results published so far, by rank.
  llvm::Expected<std::map<unsigned, ClusterNodeResult>> readResults();

private:
  /// The JSON files of `directory` (`nodes`, `results`) named by a rank.
  llvm::Expected<std::vector<std::pair<unsigned, llvm::json::Object>>>
  readRankFiles(llvm::StringRef directory);
  std::string path(llvm::StringRef directory, llvm::StringRef name) const {
    return member.runId + "/" + directory.str() + "/" + name.str();
  }
  RemoteStorage &tier;
  ClusterMember member;
};

/// The run id as a run file's name part: what is not a letter, digit, `.`,
/// `_` or `-` becomes `_`.
std::string sanitizeRunId(llvm::StringRef runId);

} // namespace kiln

#endif // KILN_DRIVER_CLUSTERRUN_H
