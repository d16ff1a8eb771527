//===- Commands.h - the kiln command's subcommands --------------*- C++ -*-===//
//
// This file declares the subcommands of `kiln`. Command-line parsing (CLI11,
// which needs C++ exceptions) stays in kiln.cpp; the subcommands are plain
// functions compiled like the rest of kiln, without exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_COMMANDS_H
#define KILN_TOOLS_KILN_COMMANDS_H

#include "CacheAccess.h"
#include "GraphKeys.h"

#include "kiln/Target/CPU/CpuCompiler.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// Exit codes shared by every subcommand (tools/kiln/README.md, Errors and exit codes): 0 success, 1 some
/// graphs failed or missed, 2 usage or input errors.
enum ExitCode { ExitSuccess = 0, ExitSomeFailed = 1, ExitInputError = 2 };

/// The status by which kiln says it ran out of memory (an allocation
/// failed, e.g. under the address-space limit of a precompile worker), so
/// that its driver reports the limit instead of a crash.
constexpr int kExitOutOfMemory = 3;

/// "20G", "20GiB" (binary), "20GB" (decimal), "512M", "300KB", "1.5T",
/// "4096" (bytes); none if malformed or past 2^64.
std::optional<uint64_t> parseByteSize(llvm::StringRef text);

/// "1 graph", "3 graphs": a count with its noun in the right number.
std::string formatCount(uint64_t count, llvm::StringRef one,
                        llvm::StringRef many);

struct ImportOptions {
  std::vector<std::string> inputs;
  std::string output = "-";
  bool summary = false;
  bool json = false;
  bool printDebugInfo = false;
};

/// `kiln import`: HLO text to the kiln dialect, or a summary of each graph.
int runImport(const ImportOptions &options);

struct HashOptions {
  std::vector<std::string> inputs;
  bool json = false;
  KeyOptions keys;
};

/// `kiln hash`: signature and cache key of each graph, in parallel.
int runHash(const HashOptions &options);

struct DiffOptions {
  std::string first;
  std::string second;
  bool json = false;
  size_t limit = 20; ///< changes printed as text
};

/// `kiln diff A B`: `same computation`, or every change from A to B.
int runDiff(const DiffOptions &options);

struct CompileCommandOptions {
  std::string input;
  std::string output; ///< the artifact, or the text of --emit
  std::string emit = "obj";
  std::string cacheDir; ///< store the artifact there under its key
  std::vector<std::string> remotes; ///< --remote: also stored there
  SignatureOptions signatures;
  /// The key the caller computed (a precompile worker): compiling a graph
  /// whose key differs (the file changed since) is an error.
  std::string expectKey;
  bool timing = false;
  /// Threads that compile a large graph's segments (0: one per core).
  unsigned threads = 0;
  KeyOptions keys;
};

/// `kiln compile FILE`: compiles a graph with the CPU backend.
int runCompile(const CompileCommandOptions &options);

/// Registers every dialect that importing and compiling need in `context`.
void registerCompilerDialects(mlir::MLIRContext &context);

/// Compiles a loaded graph (in place: it is lowered) for the target of
/// `keys` under the canonical options, a segmented graph on `threads`
/// threads (0: one per core).
mlir::FailureOr<CompiledGraph>
compileLoadedGraph(mlir::ModuleOp module, const KeyOptions &keys,
                   llvm::StringRef canonical, EmitKind emit, bool timing,
                   unsigned threads = 0);

struct RunOptions {
  std::string input;
  uint64_t seed = 0;
  std::string output;     ///< a .npz (or .npy) file for the results
  double maxWork = 0;     ///< 0: the evaluator's default limit
  int ranks = 1;          ///< participants, one thread each
  std::string arguments;  ///< `[dense<...> : tensor<...>, ...]`, else random
  std::string inputs;     ///< a .npz (or .npy) file of the parameters
  bool interpret = false; ///< the evaluator instead of compiled code
  bool compare = false;   ///< compiled code and the evaluator, side by side
  KeyOptions keys;        ///< how a graph FILE is compiled
  /// Trusted keys: an artifact runs only with a valid signature by one.
  SignatureOptions signatures;
  /// With a graph: the cache its artifact is loaded from (else compiled
  /// and stored there); otherwise whose kiln.conf says which keys are
  /// trusted (default: the default cache's).
  std::string cacheDir;
  std::vector<std::string> remotes; ///< --remote: remote tiers, in order
  /// FILE's text once runRun has read it, or one module of a
  /// `// -----`-separated FILE, run in its place.
  std::string inputText;
};

/// `kiln run FILE`: runs the graph on the reference evaluator; checks and
/// results are printed, or the results written as NumPy arrays.
int runRun(const RunOptions &options);

struct CacheOptions {
  std::string action;   ///< check, put, get, ls, stats, explain, verify, ...
  std::string cacheDir; ///< empty: Cache::getDefaultDirectory()
  std::vector<std::string> remotes; ///< --remote: remote tiers, in order
  SignatureOptions signatures;
  bool fetch = false;               ///< check --fetch: copy remote hits
  bool all = false;                 ///< push --all, pull --all
  bool json = false;
  KeyOptions keys;
  std::vector<std::string> graphs; ///< check; rm (graphs or keys)
  bool requireAll = false;
  bool noVerify = false;
  std::string graph;    ///< put, get, explain
  std::string artifact; ///< put
  bool failed = false;  ///< put --failed
  bool replace = false; ///< put --replace
  std::string log;      ///< put --failed --log
  std::string output;   ///< get
  bool signedEntry = false; ///< get --signed: the whole entry, signatures too
  std::string keyName;      ///< keygen NAME
  double compileSeconds = 0;
  bool repair = false;
  bool rebuildIndex = false;      ///< verify --rebuild-index
  std::string maxSize;            ///< prune
  std::string sort = "last-used"; ///< ls --sort
  std::string graphFilter;        ///< ls --graph
  bool zero = false;              ///< stats --zero
  std::string configName;  ///< config SETTING (or SETTING=VALUE)
  std::string configValue; ///< config SETTING VALUE
};

/// `kiln cache ...`: inspect and maintain the shared compile cache.
int runCache(const CacheOptions &options);

struct PrecompileOptions {
  std::vector<std::string> inputs;  ///< graph files and directories
  std::vector<std::string> command; ///< the training command, after `--`
  bool ignoreCommandFailure = false;
  double commandTimeout = 0; ///< seconds the training command may run; 0: any
  std::string cacheDir;
  std::vector<std::string> remotes; ///< --remote: remote tiers, in order
  SignatureOptions signatures;
  /// A cluster run under a launcher other than Slurm (ClusterRun.h):
  /// `--nodes N --node-rank R --run-id ID`; 0: not given.
  unsigned nodes = 0;
  int nodeRank = -1;
  std::string runId;
  /// How long the first node waits for the others' results.
  double clusterWait = 120;
  std::string workDir; ///< dumps and logs; empty: a fresh temporary one
  unsigned jobs = 0;   ///< 0: what cores and memory allow
  std::string jobMemory = "4G";
  std::string maxArtifactSize = "4G"; ///< the largest artifact taken
  double timeout = 0; ///< seconds per graph; 0: none
  unsigned retries = 0;
  bool retryFailed = false;
  bool force = false;
  bool dryRun = false;
  std::string report;          ///< JSON report
  std::string trace;           ///< Chrome trace
  std::string compilerCommand; ///< `--compiler-cmd` template
  KeyOptions keys;
  std::string executable; ///< this kiln, for built-in workers
};

/// `kiln precompile`: collect, deduplicate and compile a job's graphs in
/// parallel into the cache.
int runPrecompile(const PrecompileOptions &options);

/// The version line printed by `kiln --version`.
std::string getVersionString();

} // namespace kiln

#endif // KILN_TOOLS_KILN_COMMANDS_H
