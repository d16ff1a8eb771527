//===- TableBench.cpp - every benchmark, one table ------------------------===//
//
// This file implements `kiln-bench table`. Besides running the other
// benchmarks on kiln-synth's workloads, it measures compile time against
// graph size itself: `kiln compile` on one model at growing depth, each
// compilation's time per 1,000 instructions and where it goes (import, the
// front end, lowering to LLVM, LLVM's optimization and code generation),
// against the smallest graph's.
//
//===----------------------------------------------------------------------===//

#include "TableBench.h"

#include "BenchFiles.h"
#include "BenchTable.h"
#include "CacheBench.h"
#include "CpuBench.h"
#include "PrecompileBench.h"
#include "SignatureBench.h"
#include "TimedRun.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"

#include <algorithm>

using namespace kiln;
using namespace kiln::bench;

namespace {

/// Instructions in HLO text: lines that define one.
size_t countInstructions(llvm::StringRef text) {
  size_t count = 0;
  for (size_t at = text.find("\n  %"); at != llvm::StringRef::npos;
       at = text.find("\n  %", at + 1))
    ++count;
  return count + text.count("\n  ROOT");
}

/// The largest graph of the scaling set compiled a second time with every
/// loop nest compiled on its own (8 layers of kiln-synth's tiny model):
/// large enough that most nests repeat, small enough to take seconds.
constexpr size_t kSharingMeasureInstructions = 5000;

/// Compile time against graph size: every graph of `directory`, smallest
/// first.
void measureCompileScaling(const std::string &kiln,
                           const std::string &directory,
                           const std::string &scratch) {
  struct Graph {
    std::string path;
    size_t instructions = 0;
    /// Its one-thread compile's wall time; 0 when it failed.
    double seconds = 0;
  };
  std::vector<Graph> graphs;
  std::vector<BenchFile> files;
  collectFiles(directory, files);
  for (const BenchFile &file : files)
    if (auto text = llvm::MemoryBuffer::getFile(file.path))
      graphs.push_back({file.path, countInstructions((*text)->getBuffer())});
  std::sort(graphs.begin(), graphs.end(), [](const Graph &a, const Graph &b) {
    return a.instructions < b.instructions;
  });
  llvm::outs() << "compile time against graph size: kiln compile, one "
                  "process each (import included)\n";
  double smallest = 0;
  for (Graph &graph : graphs) {
    RunResult run = runTimed({kiln, "compile", graph.path, "--threads", "1",
                              "-o", scratch + "/artifact"},
                             scratch + "/compile.log");
    CompileReport report = readCompileReport(run.log);
    if (!run.ok || report.total == 0) {
      llvm::outs() << "  " << graph.path << ": kiln compile failed\n";
      continue;
    }
    double wall = run.seconds, frontEnd = report.frontEnd,
           lowering = report.lowering, llvmSeconds = report.llvm;
    double import = std::max(0.0, wall - (frontEnd + lowering + llvmSeconds));
    double perThousand = wall / (graph.instructions / 1000.0);
    if (smallest == 0)
      smallest = perThousand;
    std::string name = llvm::sys::path::filename(graph.path).str();
    std::string split = llvm::formatv(
        "import and process {0:F2} s, front end {1:F2} s, lowering {2:F2} "
        "s, LLVM {3:F2} s",
        import, frontEnd, lowering, llvmSeconds);
    llvm::outs() << llvm::formatv("  {0,-40} {1,7} instructions {2,8:F2} s  "
                                  "{3,7:F2} s per 1,000  ({4})\n",
                                  name, graph.instructions, wall, perThousand,
                                  split);
    recordFigure(
        {"compile",
         llvm::formatv("{0} ({1} instructions)", name, graph.instructions)
             .str(),
         llvm::formatv("{0:F2} s, {1:F2} s per 1,000 ({2})", wall, perThousand,
                       split)
             .str(),
         llvm::formatv("the smallest graph: {0:F2} s per 1,000", smallest)
             .str(),
         llvm::formatv("{0:F2}x per instruction", perThousand / smallest)
             .str()});
    graph.seconds = wall;
  }
  // A graph of a few layers again with every loop nest compiled on its
  // own: what compiling equal nests once (as above) saves
  // (KernelSharing.h).
  auto shared =
      std::find_if(graphs.rbegin(), graphs.rend(), [](const Graph &g) {
        return g.instructions <= kSharingMeasureInstructions;
      });
  if (shared != graphs.rend() && shared->seconds > 0) {
    std::vector<std::string> compile = {
        kiln, "compile", shared->path,         "--threads",
        "1",  "-o",      scratch + "/artifact"};
    RunResult alone =
        runTimed(compile, scratch + "/compile.log", {"KILN_SHARE_KERNELS=0"});
    CompileReport aloneReport = readCompileReport(alone.log);
    std::string name = llvm::sys::path::filename(shared->path).str();
    if (!alone.ok || aloneReport.total == 0) {
      llvm::outs() << "  " << name
                   << " with every nest compiled on its own: kiln compile "
                      "failed\n";
    } else {
      double ratio = shared->seconds / alone.seconds;
      llvm::outs() << llvm::formatv(
          "  {0,-40} equal nests compiled once {1,8:F2} s, every nest on its "
          "own {2:F2} s: {3:F2}x\n",
          name, shared->seconds, alone.seconds, ratio);
      recordFigure(
          {"compile",
           llvm::formatv("{0}, equal loop nests compiled once", name).str(),
           llvm::formatv("{0:F2} s", shared->seconds).str(),
           llvm::formatv("every nest on its own (KILN_SHARE_KERNELS=0), same "
                         "run: {0:F2} s",
                         alone.seconds)
               .str(),
           llvm::formatv("{0:F2}x the time", ratio).str()});
    }
  }
  // The largest graph again on every core: its segments side by side.
  unsigned threads =
      std::max(2u, llvm::hardware_concurrency().compute_thread_count());
  if (!graphs.empty() && graphs.back().seconds > 0) {
    const Graph &graph = graphs.back();
    double oneThread = graph.seconds;
    RunResult run = runTimed({kiln, "compile", graph.path, "--threads",
                              std::to_string(threads), "-o",
                              scratch + "/artifact"},
                             scratch + "/compile.log");
    std::string name = llvm::sys::path::filename(graph.path).str();
    if (!run.ok) {
      llvm::outs() << "  " << name << " on " << threads
                   << " threads: kiln compile failed\n";
    } else {
      double ratio = run.seconds / oneThread;
      llvm::outs() << llvm::formatv(
          "  {0,-40} on {1} threads {2,8:F2} s, {3:F2}x its one-thread time "
          "({4:F2} s)\n",
          name, threads, run.seconds, ratio, oneThread);
      recordFigure(
          {"compile",
           llvm::formatv("{0} on {1} threads (--threads)", name, threads).str(),
           llvm::formatv("{0:F2} s", run.seconds).str(),
           llvm::formatv("one thread, same run: {0:F2} s", oneThread).str(),
           llvm::formatv("{0:F2}x the one-thread time", ratio).str()});
    }
  }
  llvm::outs() << "\n";
}

} // namespace

int kiln::bench::runTableBench(const TableBenchOptions &options) {
  std::string kiln = options.kiln;
  if (kiln.empty())
    kiln = llvm::sys::path::parent_path(
               llvm::sys::fs::getMainExecutable(nullptr, nullptr))
               .str() +
           "/kiln";
  std::string workloads = options.workloads;
  for (const char *part : {"/import", "/scaling", "/precompile"})
    if (!llvm::sys::fs::is_directory(workloads + part)) {
      llvm::errs() << "kiln-bench table: error: " << workloads << part
                   << " is not a directory: tools/bench-table.sh writes the "
                      "workloads with kiln-synth\n";
      return 2;
    }
  llvm::SmallString<128> scratch;
  if (std::error_code error =
          llvm::sys::fs::createUniqueDirectory("kiln-bench-table", scratch)) {
    llvm::errs() << "kiln-bench table: error: " << error.message() << "\n";
    return 2;
  }
  int status = 0;
  auto section = [](llvm::StringRef title) {
    llvm::outs() << "\n=== " << title << " ===\n";
  };

  section("import and signature: kiln-synth's seed presets");
  SignatureBenchOptions signature;
  signature.paths = {workloads + "/import"};
  signature.repeat = 3;
  status |= runSignatureBench(signature);

  section("cache: lookups, and kiln cache check over the seed presets");
  CacheBenchOptions cache;
  cache.entries = 20000;
  cache.lookups = 5000;
  cache.smallPublishes = 200;
  cache.largePublishes = 10;
  cache.contendedSeconds = 1;
  cache.corpus = {workloads + "/import"};
  cache.repeat = 3;
  cache.directory = scratch.str().str();
  status |= runCacheBench(cache);

  section("compile time against graph size");
  measureCompileScaling(kiln, workloads + "/scaling", scratch.str().str());

  section("compiled code");
  CpuBenchOptions cpu;
  status |= runCpuBench(cpu);

  section("precompile: a run's graph set");
  PrecompileBenchOptions precompile;
  precompile.kiln = kiln;
  precompile.graphsFrom = workloads + "/precompile";
  precompile.jobs = options.jobs;
  status |= runPrecompileBench(precompile);

  llvm::sys::fs::remove_directories(scratch);
  llvm::outs() << "\n=== the table ===\n\n";
  printFigureTable(llvm::outs());
  return status;
}
