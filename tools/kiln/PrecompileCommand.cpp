//===- PrecompileCommand.cpp - kiln precompile ------------------*- C++ -*-===//
//
// This file implements `kiln precompile [PATHS...] [-- COMMAND...]`, kiln's
// main job: collect a training job's graphs (files, directories, or the
// dumps of a trial run of the training command), import and key them in
// parallel, deduplicate by key, look each key up, and compile the misses in
// isolated worker processes (lib/Driver/Scheduler.h) into the cache. At the
// end it prints the totals that users of neuron_parallel_compile look for.
//
//===----------------------------------------------------------------------===//

#include "CacheAccess.h"
#include "Commands.h"
#include "GraphKeys.h"

#include "kiln/Cache/Explain.h"
#include "kiln/Cache/Signing.h"
#include "kiln/Cache/TieredCache.h"
#include "kiln/Driver/ClusterRun.h"
#include "kiln/Driver/CompileTimeModel.h"
#include "kiln/Driver/Progress.h"
#include "kiln/Driver/Report.h"
#include "kiln/Driver/Scheduler.h"
#include "kiln/Driver/TrainingCommand.h"
#include "kiln/Driver/WorkDirectory.h"
#include "kiln/Support/PrintableText.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <set>
#include <thread>

using namespace kiln;

namespace {

/// How many of the cache's most recent entries the compile time model is
/// fitted on.
constexpr unsigned kCompileTimeSamples = 2000;

/// The compile time model for graphs never compiled before: fitted on the
/// compile times the local tier remembers for the same compiler and
/// target, against the graphs' sizes (CompileTimeModel.h).
CompileTimeModel fitRememberedCompileTimes(Cache *cache,
                                           const KeyParts &parts) {
  std::vector<CompileTimeSample> samples;
  if (cache) {
    llvm::Expected<std::vector<CacheEntry>> recent =
        cache->listRecent(kCompileTimeSamples);
    if (!recent) {
      llvm::consumeError(recent.takeError());
    } else {
      for (const CacheEntry &entry : *recent)
        if (entry.ok && entry.compileSeconds > 0 &&
            entry.parts.compiler == parts.compiler &&
            entry.parts.targetTriple == parts.targetTriple &&
            entry.parts.cpuName == parts.cpuName)
          samples.push_back(
              {(double)entry.sketch.size(), entry.compileSeconds});
    }
  }
  return fitCompileTimes(samples);
}

/// The memory this machine can give to new processes now.
uint64_t getAvailableMemoryBytes() {
  auto meminfo = llvm::MemoryBuffer::getFileAsStream("/proc/meminfo");
  if (!meminfo)
    return 0;
  llvm::SmallVector<llvm::StringRef> lines;
  (*meminfo)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (!line.consume_front("MemAvailable:"))
      continue;
    uint64_t kib = 0;
    line.trim().split(' ').first.getAsInteger(10, kib);
    return kib * 1024;
  }
  return 0;
}

std::string formatGiB(uint64_t bytes) {
  return llvm::formatv("{0:F1} GiB", bytes / double(1ull << 30)).str();
}

/// A fresh directory for dumps, inputs and logs.
llvm::Expected<std::string> makeWorkDirectory(const std::string &given) {
  if (!given.empty()) {
    if (llvm::Error error = claimWorkDirectory(given))
      return std::move(error);
    return given;
  }
  // Those of earlier runs that died unseen (SIGKILL) go first.
  removeAbandonedWorkDirectories();
  return makeTemporaryWorkDirectory();
}

/// Whether `command` leaves a quote open, as a shell would read it (a
/// backslash escapes the next character outside single quotes): its
/// words would not be the ones meant.
bool hasUnclosedQuote(llvm::StringRef command) {
  char open = 0;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (open == '\'') {
      if (c == '\'')
        open = 0;
    } else if (c == '\\') {
      ++i;
    } else if (open == '"') {
      if (c == '"')
        open = 0;
    } else if (c == '\'' || c == '"') {
      open = c;
    }
  }
  return open != 0;
}

/// The worker that compiles with an external compiler: `template` split as
/// a shell would split it (quotes kept together), with `{input}`,
/// `{output}` and `{flags}` replaced in each word; a word that is exactly
/// `{flags}` becomes one word per compiler option, `--K=V`.
std::vector<std::string>
expandCompilerTemplate(llvm::StringRef commandTemplate, llvm::StringRef input,
                       llvm::StringRef output,
                       const std::vector<std::string> &compilerOptions) {
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  llvm::SmallVector<const char *> words;
  llvm::cl::TokenizeGNUCommandLine(commandTemplate, saver, words);
  std::vector<std::string> flags;
  for (const std::string &option : compilerOptions)
    flags.push_back("--" + option);
  std::vector<std::string> argv;
  for (const char *word : words) {
    if (llvm::StringRef(word) == "{flags}") {
      argv.insert(argv.end(), flags.begin(), flags.end());
      continue;
    }
    std::string text = word;
    auto replace = [&](llvm::StringRef placeholder, const std::string &with) {
      for (size_t at = text.find(placeholder.str()); at != std::string::npos;
           at = text.find(placeholder.str(), at + with.size()))
        text.replace(at, placeholder.size(), with);
    };
    replace("{input}", input.str());
    replace("{output}", output.str());
    replace("{flags}", llvm::join(flags, " "));
    argv.push_back(std::move(text));
  }
  return argv;
}

/// Why a graph is (or is not) compiled, for --dry-run and the report.
struct Decision {
  bool compile = false;
  std::string reason;
};

/// The graphs of the other nodes' lists that are not in `taken` yet (this
/// node's keys and what it took before), as jobs for this node
/// (forOtherNode): their text written to `inputs` (and, for an external
/// compiler, their HLO), their key made again here so that a graph keyed
/// under other settings is left to its node.
llvm::Expected<std::vector<CompileJob>>
collectOtherNodesGraphs(ClusterRun &cluster, llvm::StringSet<> &taken,
                        const KeyOptions &keys, const std::string &canonical,
                        const std::string &inputs, bool external,
                        std::map<unsigned, unsigned> &nodeOfRank) {
  std::vector<CompileJob> jobs;
  llvm::Expected<std::vector<ClusterGraph>> others =
      cluster.readOtherLists(&nodeOfRank);
  if (!others)
    return others.takeError();
  std::vector<std::string> paths;
  std::vector<const ClusterGraph *> graphs;
  for (const ClusterGraph &graph : *others) {
    if (!taken.insert(graph.key).second)
      continue;
    std::optional<Hash128> signature = Hash128::fromHex(graph.signature);
    if (!signature ||
        makeGraphKeyParts(*signature, keys, canonical).key().toHex() !=
            graph.key)
      continue; // keyed under other settings: its node's to compile
    llvm::Expected<std::optional<std::string>> text =
        cluster.fetchGraph(graph.key);
    if (!text)
      return text.takeError();
    if (!*text)
      continue;
    std::string path = inputs + "/" + graph.key + ".graph";
    if (llvm::Error error = writeWorkFile(path, **text))
      return std::move(error);
    paths.push_back(path);
    graphs.push_back(&graph);
  }
  std::vector<GraphKey> keyed = computeGraphKeys(
      paths, keys, canonical, /*keepText=*/true, /*exportHlo=*/external);
  for (size_t i = 0; i < keyed.size(); ++i) {
    GraphKey &graph = keyed[i];
    if (!graph.ok || graph.parts.key().toHex() != graphs[i]->key)
      continue; // not the graph its list named: left to its node
    CompileJob job;
    job.name = graphs[i]->name.empty() ? graphs[i]->key : graphs[i]->name;
    job.source = graph.path;
    job.parts = graph.parts;
    job.key = graphs[i]->key;
    job.ops = graph.sketch.size();
    job.sketch = std::move(graph.sketch);
    job.text = std::move(graph.text);
    job.estimateSeconds = graphs[i]->estimateSeconds;
    job.forOtherNode = true;
    if (external)
      if (llvm::Error error =
              writeWorkFile(inputs + "/" + job.key + ".hlo", graph.exportedHlo))
        return std::move(error);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

/// Waits (up to `waitSeconds`) for every node's results and prints the
/// cluster's totals, and writes the cluster's trace to `tracePath` (if
/// any); true if a node's graph failed.
bool printClusterTotals(ClusterRun &cluster, double waitSeconds,
                        const std::string &tracePath, double runStartEpoch) {
  unsigned nodes = cluster.getMember().nodes;
  double until = getMonotonicSeconds() + waitSeconds;
  std::map<unsigned, ClusterNodeResult> results;
  while (true) {
    llvm::Expected<std::map<unsigned, ClusterNodeResult>> read =
        cluster.readResults();
    if (!read) {
      llvm::errs() << "kiln precompile: warning: the nodes' results cannot "
                      "be read: "
                   << llvm::toString(read.takeError()) << "\n";
      return false;
    }
    results = std::move(*read);
    // Results published long before this node started are an earlier
    // run's under the same run id.
    for (auto it = results.begin(); it != results.end();)
      it = it->second.finishedMs < (runStartEpoch - 60) * 1000
               ? results.erase(it)
               : std::next(it);
    if (results.size() >= nodes || getMonotonicSeconds() >= until)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  uint64_t graphs = 0, compiled = 0, failed = 0;
  double busy = 0, makespan = 0, longest = 0;
  unsigned workers = 0;
  std::set<std::string> distinct;
  for (const auto &[rank, result] : results) {
    distinct.insert(result.keys.begin(), result.keys.end());
    graphs += result.graphs;
    compiled += result.compiled;
    failed += result.failed;
    busy += result.busySeconds;
    makespan = std::max(makespan, result.elapsedSeconds);
    longest = std::max(longest, result.longestSeconds);
    workers += result.workers;
  }
  double ideal = std::max(longest, busy / std::max(1u, workers));
  llvm::outs() << llvm::formatv(
      "Cluster: {0} of {1} nodes reported; {2} ({3} distinct), {4} "
      "compiled, {5} failed\n",
      results.size(), nodes, formatCount(graphs, "graph", "graphs"),
      distinct.size(), compiled, failed);
  for (const auto &[rank, result] : results)
    llvm::outs() << llvm::formatv(
        "  node {0} ({1}): {2}, compiled {3} ({4} for other nodes), "
        "{5} failed, busy {6:F1} s, elapsed {7:F1} s\n",
        rank, result.host, formatCount(result.graphs, "graph", "graphs"),
        result.compiled,
        result.compiledForOthers, result.failed, result.busySeconds,
        result.elapsedSeconds);
  for (unsigned rank = 0; rank < nodes; ++rank)
    if (!results.count(rank))
      llvm::outs() << "  node " << rank << ": no results (still running, or "
                      "stopped)\n";
  llvm::outs() << llvm::formatv(
      "Cluster makespan: {0:F1} s; ideal {1:F1} s (max of the longest "
      "graph and the compile time over {2})\n",
      makespan, ideal, formatCount(workers, "worker", "workers"));
  if (!tracePath.empty())
    if (llvm::Error error =
            writeJsonFile(tracePath, makeClusterTrace(results)))
      llvm::errs() << "kiln precompile: warning: the cluster's trace: "
                   << llvm::toString(std::move(error)) << "\n";
  return failed > 0;
}

/// How long a task that leaves its node's compiling to the node's first
/// task waits before it compiles what is still not done itself, and how
/// long the first task waits for the others' lists.
constexpr double kNodeShareSeconds = 10;

} // namespace

int kiln::runPrecompile(const PrecompileOptions &givenOptions) {
  PrecompileOptions options = givenOptions;
  double runStart = getMonotonicSeconds();
  double runStartEpoch = std::chrono::duration<double>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  // Ctrl-C stops the workers with the driver (their leases, whose owner
  // is gone, are taken over by the next run).
  // Test hook: a driver this many MiB large (its pages touched), as one
  // holding a large training job's graphs is.
  static std::vector<char> ballast;
  if (std::optional<std::string> megabytes =
          llvm::sys::Process::GetEnv("KILN_TEST_DRIVER_RESIDENT_MB")) {
    unsigned mib = 0;
    if (!llvm::StringRef(*megabytes).getAsInteger(10, mib))
      ballast.assign((size_t)mib << 20, 1);
  }
  killChildrenOnTermination();
  std::vector<PhaseSpan> phases;
  auto phase = [&](llvm::StringRef name, double since) {
    phases.push_back(
        {name.str(), since - runStart, getMonotonicSeconds() - runStart});
  };

  // Usage first: nothing runs before every option is understood.
  llvm::Expected<std::string> resolvedCache =
      resolveCacheDirectory(options.cacheDir);
  if (!resolvedCache) {
    llvm::errs() << "kiln precompile: error: "
                 << llvm::toString(resolvedCache.takeError()) << "\n";
    return ExitInputError;
  }
  llvm::Expected<Settings> settings =
      loadCommandSettings(*resolvedCache, {options.cacheDir, options.remotes, options.signatures});
  if (!settings) {
    llvm::errs() << "kiln precompile: error: "
                 << llvm::toString(settings.takeError()) << "\n";
    return ExitInputError;
  }
  applyKeySettings(*settings, options.keys, &options.compilerCommand);
  llvm::Expected<TrustPolicy> trust = makeTrustPolicy(*settings);
  if (!trust) {
    llvm::errs() << "kiln precompile: error: "
                 << llvm::toString(trust.takeError()) << "\n";
    return ExitInputError;
  }
  if (trust->requirement == SignatureRequirement::All && !trust->signingKey)
    llvm::errs() << "kiln precompile: warning: require-signatures = all and "
                    "no signing key: what this run compiles is unsigned, so "
                    "untrusted here too (set signing-key)\n";
  llvm::Expected<std::vector<std::unique_ptr<RemoteStorage>>> remotes =
      openRemoteTiers(*settings);
  if (!remotes) {
    llvm::errs() << "kiln precompile: error: "
                 << llvm::toString(remotes.takeError()) << "\n";
    return ExitInputError;
  }
  // A cluster run (Slurm's environment, or --nodes): its queue lives in the
  // first writable remote tier that holds leases and a run's files.
  llvm::Expected<std::optional<ClusterMember>> member =
      findClusterMember(options.nodes, options.nodeRank, options.runId);
  if (!member) {
    llvm::errs() << "kiln precompile: error: "
                 << llvm::toString(member.takeError()) << "\n";
    return ExitInputError;
  }
  if (*member && !options.dryRun &&
      llvm::none_of(*remotes, [](const std::unique_ptr<RemoteStorage> &r) {
        return !r->isReadOnly() && r->hasLeases() && r->hasRunFiles();
      })) {
    llvm::errs() << "kiln precompile: error: a precompile on "
                 << (*member)->nodes
                 << " nodes needs a remote tier that every node shares and "
                    "that holds leases: --remote file:PATH (a directory on "
                    "the shared file system) or --remote redis://HOST (or "
                    "KILN_REMOTE_STORAGE)\n";
    return ExitInputError;
  }
  // Each node writes its own report and trace: `report.json` is
  // `report.node3.json` on node 3 (a shared file system would otherwise
  // hold the last node's only); node 0 also writes the cluster's trace,
  // `trace.cluster.json`.
  std::string clusterTrace;
  if (*member && (*member)->rank == 0 && !options.trace.empty()) {
    llvm::StringRef extension = llvm::sys::path::extension(options.trace);
    clusterTrace = (llvm::StringRef(options.trace).drop_back(extension.size()) +
                    ".cluster" + extension)
                       .str();
  }
  if (*member)
    for (std::string *file : {&options.report, &options.trace}) {
      if (file->empty())
        continue;
      llvm::StringRef extension = llvm::sys::path::extension(*file);
      *file = (llvm::StringRef(*file).drop_back(extension.size()) + ".node" +
               llvm::Twine((*member)->rank) + extension)
                  .str();
    }
  std::string canonical;
  if (!canonicalizeKeyOptions(options.keys, canonical))
    return ExitInputError;
  std::optional<uint64_t> maxArtifactBytes =
      parseByteSize(options.maxArtifactSize);
  if (!maxArtifactBytes || !*maxArtifactBytes) {
    llvm::errs() << "kiln precompile: error: --max-artifact-size takes a "
                    "size (4G, 512M), not '"
                 << options.maxArtifactSize << "'\n";
    return ExitInputError;
  }
  std::optional<uint64_t> jobMemory = parseByteSize(options.jobMemory);
  if (!jobMemory) {
    llvm::errs() << "kiln precompile: error: --job-memory takes a size "
                    "(4G, 512M, 0 for no limit), not '"
                 << options.jobMemory << "'\n";
    return ExitInputError;
  }
  for (const std::string &file : {options.report, options.trace}) {
    if (file.empty())
      continue;
    if (llvm::Error error = checkReportPath(file)) {
      llvm::errs() << "kiln precompile: error: "
                   << llvm::toString(std::move(error)) << " (--"
                   << (file == options.report ? "report" : "trace") << ")\n";
      return ExitInputError;
    }
    llvm::StringRef parent = llvm::sys::path::parent_path(file);
    if (!file.empty() && !parent.empty() &&
        !llvm::sys::fs::is_directory(parent)) {
      llvm::errs() << "kiln precompile: error: cannot write " << file << " (--"
                   << (file == options.report ? "report" : "trace")
                   << "): no directory " << parent << "\n";
      return ExitInputError;
    }
  }
  if (options.inputs.empty() && options.command.empty()) {
    llvm::errs() << "kiln precompile: error: name graphs (files or "
                    "directories) or a training command after '--'\n";
    return ExitInputError;
  }
  if (options.compilerCommand.empty() &&
      !options.keys.compilerOptions.empty()) {
    llvm::errs() << "kiln precompile: error: --compiler-option is for an "
                    "external compiler (--compiler-cmd)\n";
    return ExitInputError;
  }
  if (!options.compilerCommand.empty()) {
    if (hasUnclosedQuote(options.compilerCommand)) {
      llvm::errs() << "kiln precompile: error: --compiler-cmd has a quote "
                      "that is never closed: "
                   << escapeControlCharacters(options.compilerCommand)
                   << "\n";
      return ExitInputError;
    }
    if (llvm::StringRef(options.compilerCommand).find("{output}") ==
        llvm::StringRef::npos) {
      llvm::errs() << "kiln precompile: error: --compiler-cmd must say where "
                      "the artifact goes with {output}\n";
      return ExitInputError;
    }
    if (!options.keys.compilerOptions.empty() &&
        llvm::StringRef(options.compilerCommand).find("{flags}") ==
            llvm::StringRef::npos)
      llvm::errs() << "kiln precompile: warning: --compiler-option values "
                      "enter the key, but --compiler-cmd has no {flags}: the "
                      "compiler never sees them\n";
    if (options.keys.compilerVersionCommand.empty()) {
      // Without a version, the command itself names the compiler: a new
      // compiler behind the same command would share entries.
      llvm::errs() << "kiln precompile: warning: without "
                      "--compiler-version-cmd the key names the compiler by "
                      "its command only; an upgraded compiler would hit "
                      "entries of the old one\n";
      options.keys.compilerIdentity =
          "external compiler: " + options.compilerCommand;
    } else if (!resolveCompilerIdentity(options.keys)) {
      return ExitInputError;
    }
  }
  std::string cacheDirectory = *resolvedCache;
  llvm::Expected<std::string> workDirectory =
      makeWorkDirectory(options.workDir);
  if (!workDirectory) {
    llvm::errs() << "kiln precompile: error: "
                 << llvm::toString(workDirectory.takeError()) << "\n";
    return ExitInputError;
  }
  std::string logDirectory = *workDirectory + "/logs";
  std::string inputDirectory = *workDirectory + "/inputs";
  std::string outputDirectory = *workDirectory + "/artifacts";
  // Its parts are directories of kiln's own, never links (WorkDirectory.h).
  for (const char *part : {"logs", "inputs", "artifacts"})
    if (llvm::Error error = makeWorkPart(*workDirectory, part)) {
      llvm::errs() << "kiln precompile: error: "
                   << llvm::toString(std::move(error)) << "\n";
      return ExitInputError;
    }
  // What the work directory must keep when the run ends: a training
  // command's dumps (kiln cache check reads them before training), and the
  // logs of failures that the cache did not take.
  bool keepDumps = false, keepLogs = false;
  llvm::scope_exit cleanUp([&] {
    removeTreeWithoutLinks(inputDirectory);
    removeTreeWithoutLinks(outputDirectory);
    if (!options.workDir.empty())
      return;
    if (!keepLogs)
      removeTreeWithoutLinks(logDirectory);
    if (!keepDumps && !keepLogs)
      removeTreeWithoutLinks(*workDirectory);
    else
      keepWorkDirectory(*workDirectory);
  });

  // 1. The graphs: files and directories, and what a trial run dumps.
  std::vector<std::string> paths = expandGraphPaths(options.inputs);
  if (!options.command.empty()) {
    double since = getMonotonicSeconds();
    // The dumps are this run's: a --work-dir used before holds an older
    // run's, which would be taken for this one's.
    std::string dumpDirectory = *workDirectory + "/dumps";
    if (llvm::Error error = makeWorkPart(*workDirectory, "dumps")) {
      llvm::errs() << "kiln precompile: error: "
                   << llvm::toString(std::move(error)) << "\n";
      return ExitInputError;
    }
    removeTreeWithoutLinks(dumpDirectory);
    if (llvm::Error error = makeWorkPart(*workDirectory, "dumps")) {
      llvm::errs() << "kiln precompile: error: "
                   << llvm::toString(std::move(error)) << "\n";
      return ExitInputError;
    }
    keepDumps = true;
    llvm::errs() << "kiln precompile: running the training command with "
                    "XLA_FLAGS="
                 << addXlaDumpFlags(
                        llvm::sys::Process::GetEnv("XLA_FLAGS").value_or(""),
                        dumpDirectory)
                 << " KILN_EXTRACT_ONLY=1\n";
    bool commandTimedOut = false;
    llvm::Expected<ChildExit> exit =
        runTrainingCommand(options.command, dumpDirectory,
                           options.commandTimeout, &commandTimedOut,
                           &llvm::errs());
    phase("training command", since);
    // A command that dumped nothing leaves no directory behind.
    std::error_code listError;
    keepDumps = llvm::sys::fs::directory_iterator(dumpDirectory, listError) !=
                    llvm::sys::fs::directory_iterator() ||
                listError;
    if (!exit) {
      llvm::errs() << "kiln precompile: error: "
                   << llvm::toString(exit.takeError()) << "\n";
      return ExitInputError;
    }
    std::vector<std::string> unreadable;
    std::vector<std::string> dumped =
        collectDumpedModules(dumpDirectory, &unreadable);
    // The dump directory is named only when it is kept.
    auto whatWasDumped = [&]() -> std::string {
      if (!keepDumps)
        return "no graph";
      if (dumped.empty())
        return "no graph; what it wrote is in " + dumpDirectory;
      return formatCount(dumped.size(), "graph", "graphs") + " to " +
             dumpDirectory;
    };
    for (const std::string &directory : unreadable)
      llvm::errs() << "kiln precompile: warning: cannot read the dumped "
                      "directory "
                   << escapeControlCharacters(directory)
                   << "; graphs under it are not compiled\n";
    if (commandTimedOut) {
      // Its trial run traced what it traced: that is compiled.
      char seconds[32];
      std::snprintf(seconds, sizeof(seconds), "%g", options.commandTimeout);
      llvm::errs() << "kiln precompile: warning: the training command ran "
                      "past --command-timeout "
                   << seconds
                   << " s and was ended with its process group; compiling "
                      "the "
                   << formatCount(dumped.size(), "graph", "graphs")
                   << " it dumped\n";
    } else if (!exit->succeeded()) {
      if (!options.ignoreCommandFailure) {
        llvm::errs() << "kiln precompile: error: the training command "
                     << exit->describe() << " (it dumped " << whatWasDumped()
                     << "); nothing was compiled (--ignore-command-failure "
                        "compiles what it dumped)\n";
        return exit->getShellStatus() ? exit->getShellStatus()
                                      : (int)ExitSomeFailed;
      }
      llvm::errs() << "kiln precompile: warning: the training command "
                   << exit->describe() << "; compiling the " << dumped.size()
                   << (dumped.size() == 1 ? " graph it dumped\n"
                                          : " graphs it dumped\n");
    }
    llvm::errs() << "kiln precompile: the training command dumped "
                 << whatWasDumped() << "\n";
    paths.insert(paths.end(), dumped.begin(), dumped.end());
  }
  if (paths.empty()) {
    llvm::errs() << "kiln precompile: error: no graphs found "
                 << kGraphFileKinds << "\n";
    return ExitInputError;
  }

  // The cache. A dry run reads it without changing it, and takes a
  // missing one for an empty one.
  std::unique_ptr<TieredCache> openedCache;
  bool noCacheYet =
      options.dryRun && !llvm::sys::fs::exists(cacheDirectory + "/index.db");
  if (!noCacheYet) {
    Cache::OpenOptions openOptions;
    openOptions.readOnly = options.dryRun;
    llvm::Expected<std::unique_ptr<Cache>> opened =
        Cache::open(cacheDirectory, openOptions);
    if (!opened) {
      llvm::errs() << "kiln precompile: error: "
                   << llvm::toString(opened.takeError()) << "\n";
      return ExitInputError;
    }
    (*opened)->setTrustPolicy(std::make_shared<TrustPolicy>(std::move(*trust)));
    // The remote tiers behind it: read through, written through, and the
    // cluster's leases.
    openedCache = std::make_unique<TieredCache>(
        std::move(*opened), std::move(*remotes), "kiln precompile");
  }

  // 2. Import and key in parallel; one job per key. A file this kiln build
  // keyed before is read and hashed, not imported (the cache's memo).
  double since = getMonotonicSeconds();
  bool external = !options.compilerCommand.empty();
  std::vector<GraphKey> keys =
      openedCache
          ? keyGraphsWithMemo(openedCache->getLocal(), paths, options.keys, canonical,
                              /*keepText=*/!options.dryRun,
                              /*exportHlo=*/external && !options.dryRun)
          : computeGraphKeys(paths, options.keys, canonical);
  phase("import and key", since);
  reportGraphProblems(keys);
  std::vector<CompileJob> jobs;
  std::vector<ReportGraph> importErrors;
  llvm::StringMap<size_t> jobOfKey;
  for (GraphKey &graph : keys) {
    if (!graph.ok) {
      ReportGraph error;
      error.name = llvm::sys::path::filename(graph.path).str();
      error.source = graph.path;
      error.files = {graph.path};
      error.status = "error";
      error.reason = llvm::StringRef(graph.diagnostics).trim().str();
      importErrors.push_back(std::move(error));
      continue;
    }
    std::string key = graph.parts.key().toHex();
    auto [found, inserted] = jobOfKey.try_emplace(key, jobs.size());
    if (!inserted) {
      jobs[found->second].duplicates.push_back(graph.path);
      continue;
    }
    CompileJob job;
    job.name = graph.graphName.empty()
                   ? llvm::sys::path::filename(graph.path).str()
                   : graph.graphName;
    job.source = graph.path;
    job.parts = graph.parts;
    job.key = key;
    job.ops = graph.sketch.size();
    job.sketch = std::move(graph.sketch);
    job.text = std::move(graph.text);
    job.exportedHlo = std::move(graph.exportedHlo);
    job.fromMemo = graph.fromMemo;
    jobs.push_back(std::move(job));
  }

  // 3. Look every key up.
  since = getMonotonicSeconds();
  std::vector<JobOutcome> outcomes(jobs.size());
  std::vector<Decision> decisions(jobs.size());
  std::vector<CompileJob> misses;
  std::vector<size_t> missIndex;
  double savedSeconds = 0;
  CompileTimeModel timeModel;
  if (!jobs.empty())
    timeModel = fitRememberedCompileTimes(
        openedCache ? &openedCache->getLocal() : nullptr, jobs.front().parts);
  for (size_t i = 0; i < jobs.size(); ++i) {
    CompileJob &job = jobs[i];
    job.estimateSeconds = timeModel.estimate(job.ops);
    if (!openedCache) {
      // A dry run without a local cache yet: the remote tiers may hold it.
      std::string found;
      for (std::unique_ptr<RemoteStorage> &remote : *remotes) {
        if (!remote)
          continue;
        llvm::Expected<bool> there =
            remote->exists(job.key, RemoteEntryKind::Artifact);
        if (!there) {
          llvm::errs() << "kiln precompile: warning: remote tier "
                       << llvm::toString(there.takeError())
                       << "; it is skipped for the rest of this command\n";
          remote.reset();
          continue;
        }
        if (*there) {
          found = remote->getName();
          break;
        }
      }
      if (!found.empty()) {
        decisions[i] = {false, "cached in " + found};
        outcomes[i].status = JobStatus::Cached;
        continue;
      }
      decisions[i] = {true, "miss: the cache is empty"};
      missIndex.push_back(i);
      misses.push_back(job);
      continue;
    }
    TieredCache &cache = *openedCache;
    // A hit in a remote tier is copied into the local one (not in a dry
    // run, which changes nothing).
    llvm::Expected<LookupResult> found =
        options.dryRun
            ? [&]() -> llvm::Expected<LookupResult> {
                llvm::Expected<TieredLookup> tiered = cache.lookupTiers(
                    job.key, /*verify=*/true, /*copyToLocal=*/false);
                if (!tiered)
                  return tiered.takeError();
                return std::move(tiered->result);
              }()
            : cache.lookup(job.key, /*verify=*/true);
    if (!found) {
      llvm::errs() << "kiln precompile: error: "
                   << llvm::toString(found.takeError()) << "\n";
      return ExitSomeFailed;
    }
    Decision &decision = decisions[i];
    JobOutcome &outcome = outcomes[i];
    switch (found->status) {
    case LookupStatus::Hit:
      outcome.status = JobStatus::Cached;
      if (!options.force)
        savedSeconds += found->entry->compileSeconds;
      outcome.seconds = found->entry->compileSeconds;
      decision.reason = "cached";
      if (options.force) {
        decision.compile = true;
        decision.reason = "forced (--force; cached)";
      }
      break;
    case LookupStatus::Failed:
      decision.reason = "failed before";
      outcome.status = JobStatus::Failed;
      outcome.failedBefore = true;
      outcome.reason = "its compilation failed before (not retried without "
                       "--retry-failed)";
      outcome.logPath = cache.getLogCommand(job.key);
      if (options.retryFailed || options.force) {
        decision.compile = true;
        decision.reason = options.force ? "forced (--force; failed before)"
                                        : "failed before, retried "
                                          "(--retry-failed)";
      }
      break;
    case LookupStatus::Corrupt:
      decision.compile = true;
      decision.reason = "miss: the cached artifact was corrupt (" +
                        found->problem + ") and was removed";
      break;
    case LookupStatus::Untrusted:
      decision.compile = true;
      decision.reason = "miss: untrusted (" + found->problem + ")";
      cache.getLocal().countMissReason("untrusted");
      break;
    case LookupStatus::Miss:
      decision.compile = true;
      decision.reason = "miss";
      break;
    }
    if (!decision.compile)
      continue;
    outcome = JobOutcome();
    // The entries of this computation under other key parts say why it
    // missed, and how long it takes: largest first, by an earlier compile
    // of it, else by its size.
    llvm::Expected<std::vector<CacheEntry>> earlier =
        cache.findEntriesWithSignature(job.parts.signature.toHex());
    if (earlier) {
      if (!earlier->empty() && found->status == LookupStatus::Miss)
        decision.reason =
            "miss: this computation is cached for other key parts";
      // Each miss is counted with its reason, so that the reasons in
      // `kiln cache stats` add up to the misses.
      if (found->status == LookupStatus::Miss && !options.dryRun)
        cache.getLocal().countMissReason(
            earlier->empty()
                ? llvm::StringRef("computation")
                : getMissReason(explainMiss(job.parts, job.name, job.sketch,
                                            *earlier)));
      for (const CacheEntry &entry : *earlier)
        if (entry.compileSeconds > 0) {
          job.estimateSeconds = entry.compileSeconds;
          job.remembered = true;
          break;
        }
    } else {
      llvm::consumeError(earlier.takeError());
      if (found->status == LookupStatus::Miss && !options.dryRun)
        cache.getLocal().countMissReason("computation");
    }
    missIndex.push_back(i);
    misses.push_back(job);
  }
  phase("cache lookup", since);

  // What compiling needs beyond the key: the graph's text for its entry
  // and, for an external compiler, the graph as HLO text. Graphs keyed from
  // the memo (not imported) are read again, only if they are compiled.
  if (!misses.empty() && !options.dryRun) {
    since = getMonotonicSeconds();
    std::vector<std::string> sources;
    std::vector<size_t> reread;
    for (size_t m = 0; m < misses.size(); ++m)
      if (misses[m].fromMemo) {
        sources.push_back(misses[m].source);
        reread.push_back(m);
      }
    std::vector<GraphKey> full =
        computeGraphKeys(sources, options.keys, canonical, /*keepText=*/true,
                         /*exportHlo=*/external);
    for (size_t r = 0; r < reread.size(); ++r) {
      CompileJob &job = misses[reread[r]];
      job.text = std::move(full[r].text);
      job.sketch = std::move(full[r].sketch);
      job.exportedHlo = std::move(full[r].exportedHlo);
    }
    // The external compiler's input, written once per key.
    for (CompileJob &job : misses) {
      if (!external)
        break;
      // A full disk stops the run here: every graph would fail to start,
      // and none of it is the graphs' failure.
      if (llvm::Error error = writeWorkFile(
              inputDirectory + "/" + job.key + ".hlo", job.exportedHlo)) {
        llvm::errs() << "kiln precompile: error: "
                     << llvm::toString(std::move(error))
                     << " (the external compiler's input); nothing was "
                        "compiled or recorded\n";
        return ExitSomeFailed;
      }
      job.exportedHlo.clear();
    }
    if (!reread.empty())
      phase("read graphs to compile", since);
  }

  // 3b. On a cluster: this node's list to the others, theirs to this node.
  size_t ownMisses = misses.size();
  std::optional<ClusterRun> cluster;
  llvm::StringSet<> clusterTaken;
  std::map<unsigned, unsigned> nodeOfRank;
  if (*member && !options.dryRun) {
    since = getMonotonicSeconds();
    RemoteStorage *tier = openedCache->getRunTier();
    if (tier)
      cluster.emplace(*tier, **member);
    if (cluster) {
      llvm::errs() << llvm::formatv(
          "kiln precompile: node {0} of {1} ({2}) in run {3} through {4}\n",
          (*member)->rank, (*member)->nodes, (*member)->hostName,
          (*member)->runId, tier->getName());
      for (const auto &own : jobOfKey)
        clusterTaken.insert(own.getKey());
      // Compile times that any node recorded order the queue: largest
      // first, by what it took, else by its size.
      for (CompileJob &job : misses) {
        if (job.remembered)
          continue;
        llvm::Expected<std::optional<double>> time =
            cluster->readCompileTime(job.parts.signature.toHex());
        if (!time) {
          llvm::consumeError(time.takeError());
          break;
        }
        if (*time) {
          job.estimateSeconds = **time;
          job.remembered = true;
        }
      }
      // A task that is not its node's first leaves the compiling to that
      // one for a while (then does what is left itself).
      bool sharesNode = (*member)->localId > 0;
      if (sharesNode)
        for (CompileJob &job : misses)
          job.holdSeconds = kNodeShareSeconds;
      llvm::Error error = cluster->publishList(misses);
      if (!error && !sharesNode) {
        llvm::Expected<std::vector<CompileJob>> others =
            collectOtherNodesGraphs(*cluster, clusterTaken, options.keys,
                                    canonical, inputDirectory, external,
                                    nodeOfRank);
        if (others)
          std::move(others->begin(), others->end(),
                    std::back_inserter(misses));
        else
          error = others.takeError();
      }
      if (error) {
        // The shared tier in trouble: this node compiles its own.
        llvm::errs() << "kiln precompile: warning: the cluster queue in "
                     << tier->getName() << " failed ("
                     << llvm::toString(std::move(error))
                     << "); this node compiles its own graphs\n";
        misses.resize(ownMisses);
        cluster.reset();
      }
    } else {
      llvm::errs() << "kiln precompile: warning: no shared remote tier is "
                      "usable; this node compiles its own graphs\n";
    }
    phase("cluster queue", since);
  }

  // Workers: as many as cores and memory allow, no more than there is work.
  unsigned cores = llvm::hardware_concurrency().compute_thread_count();
  uint64_t available = getAvailableMemoryBytes();
  unsigned workers = options.jobs;
  std::string why;
  if (!workers) {
    workers = cores;
    why = std::to_string(cores) + " cores";
    if (*jobMemory && available) {
      unsigned byMemory = std::max<uint64_t>(1, available / *jobMemory);
      why += llvm::formatv("; {0} available, {1} per job", formatGiB(available),
                           formatGiB(*jobMemory));
      workers = std::min(workers, byMemory);
    }
  } else {
    why = "-j";
  }
  // (A cluster node may take other nodes' graphs later: its workers are
  // not bounded by its own list. A task that shares its node with a first
  // one needs one, for what that one leaves.)
  // With fewer graphs than workers, kiln's own worker compiles a large
  // graph on the cores the others would have had (ScheduleOptions::
  // opsPerThread): the scheduler gets them all as slots.
  unsigned slots = std::max(1u, workers);
  workers = std::max(
      1u, cluster ? workers : std::min<unsigned>(workers, misses.size()));
  if (cluster && (*member)->localId > 0)
    workers = slots = 1;
  if (external)
    slots = workers;

  size_t cached = 0, failedBefore = 0;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (!decisions[i].compile) {
      cached += outcomes[i].status == JobStatus::Cached;
      failedBefore += outcomes[i].status == JobStatus::Failed;
    }
  size_t duplicates = keys.size() - importErrors.size() - jobs.size();
  llvm::errs() << llvm::formatv(
      "kiln precompile: {0} ({1}{2}{3}): {4} cached, {5} failed "
      "before, {6} to compile",
      formatCount(jobs.size() + importErrors.size(), "graph", "graphs"),
      formatCount(keys.size(), "file", "files"),
      duplicates ? ", " + formatCount(duplicates, "duplicate", "duplicates")
                 : "",
      importErrors.empty()
          ? ""
          : llvm::formatv(", {0} did not import", importErrors.size()).str(),
      cached, failedBefore, misses.size());
  if (!misses.empty())
    llvm::errs() << " on " << formatCount(workers, "worker", "workers")
                 << " (" << why << ")";
  llvm::errs() << "\n";

  if (options.dryRun) {
    if (!misses.empty())
      llvm::errs() << "kiln precompile: estimates for graphs never compiled "
                      "before: "
                   << timeModel.describe() << "\n";
    for (size_t i = 0; i < jobs.size(); ++i)
      llvm::outs() << llvm::formatv(
          "{0,-12} {1}  {2}  {3}{4}\n",
          decisions[i].compile ? "compile" : "skip", jobs[i].key,
          escapeControlCharacters(jobs[i].source), decisions[i].reason,
          decisions[i].compile
              ? llvm::formatv(" (estimated {0:F1} s{1})",
                              jobs[i].estimateSeconds,
                              jobs[i].remembered ? ", remembered" : "")
                    .str()
              : "");
    for (const ReportGraph &error : importErrors)
      llvm::outs() << llvm::formatv("{0,-12} {1,-32}  {2}  did not import\n",
                                    "error", "",
                                    escapeControlCharacters(error.source));
    // A graph that cannot be read is bad input to a plan (exit 2), where a
    // run counts it as a failed graph.
    return importErrors.empty() ? ExitSuccess : ExitInputError;
  }

  // 4. Compile the misses.
  TieredCache &cache = *openedCache;
  // The worker is this program: the code it maps is not the graph's memory.
  uint64_t loadedCodeBytes = getLoadedCodeBytes();
  WorkerCommandBuilder buildCommand = [&](const CompileJob &job,
                                          unsigned attempt,
                                          unsigned threads) -> WorkerCommand {
    WorkerCommand command;
    command.outputPath = outputDirectory + "/" + job.key;
    if (external) {
      command.argv = expandCompilerTemplate(
          options.compilerCommand, inputDirectory + "/" + job.key + ".hlo",
          command.outputPath, options.keys.compilerOptions);
      return command;
    }
    command.argv = {options.executable, "compile",      job.source, "-o",
                    command.outputPath, "--expect-key", job.key,
                    "--threads",        std::to_string(threads)};
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(canonical).split(lines, '\n', -1, false);
    for (llvm::StringRef line : lines) {
      command.argv.push_back("--option");
      command.argv.push_back(line.str());
    }
    if (!options.keys.targetTriple.empty())
      command.argv.insert(command.argv.end(),
                          {"--target", options.keys.targetTriple});
    if (!options.keys.cpu.empty())
      command.argv.insert(command.argv.end(),
                          {"--target-cpu", options.keys.cpu});
    command.outOfMemoryStatus = kExitOutOfMemory;
    command.loadedCodeBytes = loadedCodeBytes;
    return command;
  };
  ScheduleOptions schedule;
  schedule.jobs = slots;
  schedule.jobMemoryBytes = *jobMemory;
  schedule.maxArtifactBytes = *maxArtifactBytes;
  schedule.timeoutSeconds = options.timeout;
  schedule.retries = options.retries;
  schedule.retryFailed = options.retryFailed;
  schedule.force = options.force;
  schedule.logDirectory = logDirectory;
  // kiln's worker compiles a graph of more than one segment's ops on
  // several threads; an external compiler gets one slot.
  if (!external)
    schedule.opsPerThread =
        getCpuCompileOptions(canonical, getKeyTarget(options.keys)).segmentOps;
  // A node with a free worker takes graphs that other nodes listed since;
  // its first task waits for its other tasks' lists.
  if (cluster && (*member)->localId == 0) {
    schedule.moreWork = [&]() -> std::vector<CompileJob> {
      llvm::Expected<std::vector<CompileJob>> more = collectOtherNodesGraphs(
          *cluster, clusterTaken, options.keys, canonical, inputDirectory,
          external, nodeOfRank);
      if (!more) {
        llvm::consumeError(more.takeError());
        return {};
      }
      return std::move(*more);
    };
    if ((*member)->tasksOnNode > 1) {
      double waitUntil = getMonotonicSeconds() + kNodeShareSeconds;
      schedule.waitForMore = [&, waitUntil]() {
        unsigned seen = 0;
        for (const auto &[rank, node] : nodeOfRank)
          seen += node == (*member)->nodeId && rank != (*member)->rank;
        return seen + 1 < (*member)->tasksOnNode &&
               getMonotonicSeconds() < waitUntil;
      };
    }
  }
  bool live = llvm::sys::Process::StandardErrIsDisplayed();
  ProgressDisplay progress(llvm::errs(), live, misses.size());
  Scheduler scheduler(cache, misses, buildCommand, schedule, progress);
  double scheduleStart = getMonotonicSeconds() - runStart;
  since = getMonotonicSeconds();
  std::vector<JobOutcome> compiled;
  if (!misses.empty() || cluster)
    compiled = scheduler.run();
  progress.finish();
  if (!misses.empty())
    phase("compile", since);
  size_t forOthers = 0;
  double busySeconds = 0, longestSeconds = 0;
  for (size_t m = 0; m < compiled.size(); ++m) {
    if (compiled[m].status != JobStatus::Compiled)
      continue;
    if (cluster)
      llvm::consumeError(cluster->recordCompileTime(
          misses[m].parts.signature.toHex(), compiled[m].seconds));
    busySeconds += compiled[m].seconds;
    longestSeconds = std::max(longestSeconds, compiled[m].seconds);
    forOthers += m >= ownMisses;
  }
  for (size_t m = 0; m < missIndex.size(); ++m) {
    outcomes[missIndex[m]] = compiled[m];
    // A compiled graph's log goes with a temporary work directory.
    if (options.workDir.empty() && compiled[m].status != JobStatus::Failed)
      outcomes[missIndex[m]].logPath.clear();
  }

  // 5. The totals, the report and the trace.
  size_t succeeded = 0, failed = importErrors.size(), hits = 0, elsewhere = 0,
         recordedFailures = 0;
  double compileSeconds = 0;
  std::vector<ReportGraph> rows;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobOutcome &outcome = outcomes[i];
    switch (outcome.status) {
    case JobStatus::Compiled:
      ++succeeded;
      compileSeconds += outcome.seconds;
      break;
    case JobStatus::CompiledElsewhere:
      ++elsewhere;
      break;
    case JobStatus::Cached:
      ++hits;
      break;
    default:
      ++failed;
      recordedFailures += outcome.recorded;
      // A worker's time on a failed graph is compilation time too.
      if (!outcome.failedBefore)
        compileSeconds += outcome.seconds;
    }
    ReportGraph row;
    row.name = jobs[i].name;
    row.source = jobs[i].source;
    row.files = {jobs[i].source};
    row.files.insert(row.files.end(), jobs[i].duplicates.begin(),
                     jobs[i].duplicates.end());
    row.key = jobs[i].key;
    row.status = getJobStatusName(outcome.status).str();
    row.reason = outcome.reason;
    row.seconds = outcome.seconds;
    row.worker = outcome.worker;
    row.threads = outcome.threads;
    row.peakMemoryBytes = outcome.peakMemoryBytes;
    row.logPath = outcome.logPath;
    row.attempts = outcome.attempts;
    rows.push_back(std::move(row));
  }
  rows.insert(rows.end(), importErrors.begin(), importErrors.end());
  double elapsed = getMonotonicSeconds() - runStart;

  llvm::outs() << "Total graphs: " << jobs.size() + importErrors.size() << "\n";
  llvm::outs() << "Total successful compilations: " << succeeded << "\n";
  llvm::outs() << "Total failed compilations: " << failed << "\n";
  llvm::outs() << "Cache hits: " << hits << "\n";
  if (elsewhere)
    llvm::outs() << "Compiled by other processes meanwhile: " << elsewhere
                 << "\n";
  if (cluster)
    llvm::outs() << "Compiled for other nodes: " << forOthers << "\n";
  llvm::outs() << llvm::formatv(
      "Compile time saved: {0:F1} s (what the cached graphs took to compile)\n",
      savedSeconds);
  llvm::outs() << llvm::formatv("Elapsed: {0:F1} s", elapsed);
  if (!misses.empty())
    llvm::outs() << llvm::formatv(" ({0:F1} s of compilation on {1})",
                                  compileSeconds,
                                  formatCount(workers, "worker", "workers"));
  llvm::outs() << "\n";
  // What the next run does with them depends on whether they were
  // recorded (a limit of this run, a signal, bad input are not).
  if (failed && recordedFailures == failed)
    llvm::outs() << "Failed graphs (kiln cache check says why; "
                    "--retry-failed compiles them again):\n";
  else if (failed && recordedFailures == 0)
    llvm::outs() << "Failed graphs (none recorded in the cache: the next run "
                    "tries them again):\n";
  else if (failed)
    llvm::outs() << "Failed graphs (those recorded in the cache: kiln cache "
                    "check says why, --retry-failed compiles them again; the "
                    "next run tries the others again):\n";
  for (const ReportGraph &row : rows)
    if (row.status == "failed" || row.status == "error")
      llvm::outs() << "  " << escapeControlCharacters(row.source) << ": "
                   << escapeControlCharacters(
                          llvm::StringRef(row.reason).split('\n').first)
                   << (row.logPath.empty() ? "" : "; log: " + row.logPath)
                   << "\n";

  llvm::json::Object totals{
      {"graphs", (int64_t)(jobs.size() + importErrors.size())},
      {"files", (int64_t)keys.size()},
      {"compiled", (int64_t)succeeded},
      {"failed", (int64_t)failed},
      {"cache_hits", (int64_t)hits},
      {"compiled_elsewhere", (int64_t)elsewhere},
      {"compile_seconds", compileSeconds},
      {"compile_seconds_saved", savedSeconds},
      {"elapsed_seconds", elapsed},
      {"workers", (int64_t)workers},
      {"cache", cache.getDirectory()}};
  if (cluster) {
    totals["compiled_for_other_nodes"] = (int64_t)forOthers;
    totals["node_rank"] = (int64_t)(*member)->rank;
    totals["nodes"] = (int64_t)(*member)->nodes;
  }
  int status = failed ? ExitSomeFailed : ExitSuccess;
  // The cluster's totals: each node's results, gathered by the first.
  if (cluster) {
    ClusterNodeResult result;
    result.rank = (*member)->rank;
    result.host = (*member)->hostName;
    result.graphs = jobs.size() + importErrors.size();
    result.compiled = succeeded + forOthers;
    result.compiledForOthers = forOthers;
    result.failed = failed;
    result.hits = hits;
    result.busySeconds = busySeconds;
    result.longestSeconds = longestSeconds;
    result.elapsedSeconds = elapsed;
    result.workers = workers;
    for (const CompileJob &job : jobs)
      result.keys.push_back(job.key);
    result.finishedMs = (int64_t)(
        std::chrono::duration<double>(
            std::chrono::system_clock::now().time_since_epoch())
            .count() *
        1000);
    for (const WorkerAttempt &attempt : scheduler.getAttempts())
      result.spans.push_back(
          {misses[attempt.job].name, misses[attempt.job].key, attempt.result,
           attempt.worker,
           runStartEpoch + scheduleStart + attempt.startSeconds,
           runStartEpoch + scheduleStart + attempt.endSeconds});
    if (llvm::Error error = cluster->publishResult(result))
      llvm::errs() << "kiln precompile: warning: this node's results could "
                      "not be published: "
                   << llvm::toString(std::move(error)) << "\n";
    if ((*member)->rank == 0 &&
        printClusterTotals(*cluster, options.clusterWait, clusterTrace,
                           runStartEpoch) &&
        !failed)
      status = ExitSomeFailed;
  }
  if (!options.report.empty())
    if (llvm::Error error = writeJsonFile(
            options.report, makeReport(rows, std::move(totals)))) {
      llvm::errs() << "kiln precompile: error: "
                   << llvm::toString(std::move(error)) << "\n";
      status = ExitSomeFailed;
    }
  if (!options.trace.empty())
    if (llvm::Error error = writeJsonFile(
            options.trace, makeChromeTrace(misses, scheduler.getAttempts(),
                                           phases, scheduleStart, workers))) {
      llvm::errs() << "kiln precompile: error: "
                   << llvm::toString(std::move(error)) << "\n";
      status = ExitSomeFailed;
    }
  for (const JobOutcome &outcome : outcomes)
    keepLogs |= outcome.status == JobStatus::Failed &&
                llvm::StringRef(outcome.logPath).starts_with(logDirectory);
  if (options.workDir.empty() && keepDumps)
    llvm::errs() << "kiln precompile: the dumped graphs are in "
                 << *workDirectory << "/dumps\n";
  return status;
}
