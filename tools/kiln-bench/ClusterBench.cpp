//===- ClusterBench.cpp - kiln-bench cluster --------------------*- C++ -*-===//
//
// This file implements `kiln-bench cluster`: a kiln-synth --all-ranks graph
// set split over simulated nodes by device (each node the graphs of its
// devices, data-parallel replicas included), precompiled twice into fresh
// caches and a fresh shared file tier: as one cluster run, and as the
// static split (each node its own list, sharing only the tier's leases).
// Both makespans are printed beside the ideal measured from the same
// graphs.
//
//===----------------------------------------------------------------------===//

#include "ClusterBench.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <set>

using namespace kiln::bench;

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Runs every command at once; the seconds until the last ends, or a
/// negative number if one failed.
double runTogether(const std::vector<std::vector<std::string>> &commands,
                   const std::vector<std::string> &logs) {
  double start = now();
  std::vector<llvm::sys::ProcessInfo> processes;
  for (size_t i = 0; i < commands.size(); ++i) {
    std::vector<llvm::StringRef> argv(commands[i].begin(), commands[i].end());
    std::optional<llvm::StringRef> redirects[] = {
        llvm::StringRef(""), llvm::StringRef(logs[i]),
        llvm::StringRef(logs[i])};
    processes.push_back(llvm::sys::ExecuteNoWait(argv[0], argv, std::nullopt,
                                                 redirects));
  }
  bool ok = true;
  for (llvm::sys::ProcessInfo &process : processes) {
    llvm::sys::ProcessInfo done = llvm::sys::Wait(process, std::nullopt);
    ok &= done.ReturnCode == 0;
  }
  double seconds = now() - start;
  return ok ? seconds : -1;
}

} // namespace

int kiln::bench::runClusterBench(const ClusterBenchOptions &options) {
  std::string tools = llvm::sys::path::parent_path(
                          llvm::sys::fs::getMainExecutable(nullptr, nullptr))
                          .str();
  std::string kiln = tools + "/kiln", synth = tools + "/kiln-synth";
  if (!llvm::sys::fs::can_execute(kiln) || !llvm::sys::fs::can_execute(synth)) {
    llvm::errs() << "kiln-bench cluster: kiln and kiln-synth must be beside "
                    "kiln-bench\n";
    return 1;
  }
  std::string base = options.directory;
  if (base.empty())
    base = llvm::sys::Process::GetEnv("TMPDIR").value_or("/tmp");
  llvm::SmallString<128> root;
  if (llvm::sys::fs::createUniqueDirectory(base + "/kiln-bench-cluster",
                                           root)) {
    llvm::errs() << "kiln-bench cluster: cannot make a directory in " << base
                 << "\n";
    return 1;
  }
  std::string dir = root.str().str();
  auto cleanUp =
      llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });

  // The graph set, and each node's share of the devices.
  std::string set = dir + "/set";
  std::vector<std::string> synthArgs = {
      synth,       "--preset",       options.preset, "--tp",
      std::to_string(options.tp),    "--pp",         std::to_string(options.pp),
      "--dp",      std::to_string(options.dp),       "--graph-set",
      set,         "--all-ranks"};
  if (runTogether({synthArgs}, {dir + "/synth.log"}) < 0) {
    llvm::errs() << "kiln-bench cluster: kiln-synth failed (see "
                 << dir << "/synth.log)\n";
    return 1;
  }
  unsigned devices = options.tp * options.pp * options.dp;
  llvm::Regex name("stage([0-9]+)\\.tp([0-9]+)\\.dp([0-9]+)\\.");
  std::error_code error;
  std::map<std::string, uint64_t> sizeOfContent; // content -> bytes
  std::vector<double> seconds;
  unsigned files = 0;
  for (llvm::sys::fs::directory_iterator it(set, error), end;
       it != end && !error; it.increment(error)) {
    llvm::SmallVector<llvm::StringRef> match;
    std::string file = it->path();
    if (!name.match(llvm::sys::path::filename(file), &match))
      continue;
    unsigned stage = std::stoi(match[1].str()), tp = std::stoi(match[2].str()),
             dp = std::stoi(match[3].str());
    unsigned device = (stage * options.tp + tp) * options.dp + dp;
    unsigned node = device * options.nodes / devices;
    std::string nodeDir = dir + "/node" + std::to_string(node);
    llvm::sys::fs::create_directories(nodeDir);
    llvm::sys::fs::copy_file(file,
                             nodeDir + "/" + llvm::sys::path::filename(file).str());
    auto text = llvm::MemoryBuffer::getFile(file);
    if (text)
      sizeOfContent[(*text)->getBuffer().str()] = (*text)->getBufferSize();
    ++files;
  }
  // The ideal, from the stand-in's times of the distinct graphs.
  double total = 0, longest = 0;
  for (const auto &[content, bytes] : sizeOfContent) {
    double s = bytes / 1e6 * options.secondsPerMB;
    total += s;
    longest = std::max(longest, s);
  }
  unsigned workers = options.nodes * options.workers;
  double ideal = std::max(longest, total / workers);

  // The stand-in compiler: time in proportion to the graph's size.
  std::string fake = dir + "/compiler.sh";
  {
    llvm::raw_fd_ostream os(fake, error);
    os << "#!/bin/sh\n"
       << "sleep $(awk -v b=$(wc -c < \"$1\") 'BEGIN { print b / 1e6 * "
       << options.secondsPerMB << " }')\n"
       << "cp \"$1\" \"$2\"\n";
  }

  auto run = [&](llvm::StringRef label, bool cluster) -> double {
    std::vector<std::vector<std::string>> commands;
    std::vector<std::string> logs;
    for (unsigned node = 0; node < options.nodes; ++node) {
      std::vector<std::string> argv = {
          kiln, "precompile", dir + "/node" + std::to_string(node),
          "--cache-dir", (dir + "/" + label + "-local" + std::to_string(node)).str(),
          "--remote", ("file:" + dir + "/" + label + "-shared").str(),
          "-j", std::to_string(options.workers),
          "--compiler-cmd", "sh " + fake + " {input} {output}",
          "--compiler-version-cmd", "echo kiln-bench stand-in"};
      if (cluster) {
        argv.insert(argv.end(), {"--nodes", std::to_string(options.nodes),
                                 "--node-rank", std::to_string(node),
                                 "--run-id", "bench", "--cluster-wait", "0"});
      }
      commands.push_back(argv);
      logs.push_back((dir + "/" + label + "." + std::to_string(node) + ".log")
                         .str());
    }
    return runTogether(commands, logs);
  };
  double staticSplit = run("static", false);
  double clustered = run("cluster", true);
  if (staticSplit < 0 || clustered < 0) {
    llvm::errs() << "kiln-bench cluster: a precompile failed (logs in " << dir
                 << ")\n";
    cleanUp.release();
    return 1;
  }
  llvm::outs() << llvm::formatv(
      "kiln-bench cluster: {0} graph files ({1} distinct) of {2} tp {3} pp {4} "
      "dp {5} on {6} nodes x {7} workers; a stand-in compiler taking {8} s "
      "per MB\n",
      files, sizeOfContent.size(), options.preset, options.tp, options.pp,
      options.dp, options.nodes, options.workers, options.secondsPerMB);
  llvm::outs() << llvm::formatv(
      "ideal max(longest {0:F2} s, total {1:F2} s / {2} workers): {3:F2} s\n",
      longest, total, workers, ideal);
  llvm::outs() << llvm::formatv(
      "cluster precompile: {0:F2} s = {1:F2}x the ideal\n", clustered,
      clustered / ideal);
  llvm::outs() << llvm::formatv(
      "static split (each node its own list): {0:F2} s = {1:F2}x the ideal; "
      "the cluster queue takes {2:F2}x its time\n",
      staticSplit, staticSplit / ideal, clustered / staticSplit);
  llvm::outs() << llvm::formatv(
      "cluster overhead: {0:F0} ms per distinct graph beyond the ideal "
      "(publishing, leasing, fetching, starting kiln on each node)\n",
      std::max(0.0, clustered - ideal) * 1e3 * workers /
          std::max<size_t>(1, sizeOfContent.size()));
  return 0;
}
