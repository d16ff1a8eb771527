//===- PrecompileBench.cpp - kiln-bench precompile --------------*- C++ -*-===//
//
// This file measures `kiln precompile` end to end, as a user runs it (the
// kiln binary beside kiln-bench, in child processes), on graphs of varied
// size written for the run: MLP chains of 1 to 40 layers, so compile times
// differ by an order of magnitude. Every figure is printed beside its
// baseline from the same run:
//
//  * the cold run's makespan against the lower bound of any schedule on N
//    workers, max(longest compilation, total compilation / N), the
//    compilations' times being those the run measured itself;
//  * the cold run against `xargs -P N kiln compile` over the same files
//    (no cache, no leases, no keying: the naive way);
//  * the warm run (every graph cached) against the cold run, and against
//    the floor of reading and hashing the graph files (XXH3-128);
//  * the driver's overhead per graph: the workers' time beyond the
//    compilation that `kiln compile` reports inside them (process start,
//    import), and the time workers sat idle, over the graphs.
//
//===----------------------------------------------------------------------===//

#include "PrecompileBench.h"
#include "BenchFiles.h"
#include "BenchTable.h"
#include "TimedRun.h"

#include "kiln/Driver/ChildProcess.h"
#include "kiln/Signature/Hash128.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <numeric>

using namespace kiln;

namespace {

/// An MLP chain of `layers` dense layers (dot, bias, relu) of `width`, as
/// JAX writes HLO text.
std::string writeMlpGraph(unsigned index, unsigned layers, unsigned width) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string row = llvm::formatv("f32[8,{0}]{{1,0}", width).str();
  os << "HloModule mlp_" << index << "\n\nENTRY main {\n";
  os << "  x = " << row << " parameter(0)\n";
  os << "  zero = f32[] constant(0)\n";
  os << "  zeros = " << row << " broadcast(zero), dimensions={}\n";
  std::string previous = "x";
  for (unsigned l = 0; l < layers; ++l) {
    os << llvm::formatv("  w{0} = f32[{1},{1}]{{1,0} parameter({2})\n", l,
                        width, 1 + 2 * l);
    os << llvm::formatv("  b{0} = f32[{1}]{{0} parameter({2})\n", l, width,
                        2 + 2 * l);
    os << llvm::formatv(
        "  d{0} = {1} dot({2}, w{0}), "
        "lhs_contracting_dims={{1}, rhs_contracting_dims={{0}\n",
        l, row, previous);
    os << llvm::formatv("  bb{0} = {1} broadcast(b{0}), dimensions={{1}\n", l,
                        row);
    os << llvm::formatv("  a{0} = {1} add(d{0}, bb{0})\n", l, row);
    os << llvm::formatv("  {0}h{1} = {2} maximum(a{1}, zeros)\n",
                        l + 1 == layers ? "ROOT " : "", l, row);
    previous = "h" + std::to_string(l);
  }
  os << "}\n";
  return text;
}

} // namespace

int kiln::bench::runPrecompileBench(const PrecompileBenchOptions &options) {
  std::string kiln = options.kiln;
  if (kiln.empty() || !llvm::sys::fs::can_execute(kiln)) {
    llvm::errs() << "kiln-bench precompile: error: no kiln binary at '" << kiln
                 << "' (--kiln)\n";
    return 2;
  }
  unsigned jobs = options.jobs
                      ? options.jobs
                      : llvm::hardware_concurrency().compute_thread_count();
  llvm::SmallString<128> root;
  if (std::error_code error =
          llvm::sys::fs::createUniqueDirectory("kiln-bench-precompile", root)) {
    llvm::errs() << "kiln-bench precompile: error: " << error.message() << "\n";
    return 2;
  }
  std::string dir = root.str().str();
  std::string graphs = dir + "/graphs", out = dir + "/xargs-out";
  llvm::sys::fs::create_directories(graphs);
  llvm::sys::fs::create_directories(out);
  std::vector<std::string> files;
  uint64_t bytes = 0;
  if (!options.graphsFrom.empty()) {
    // Given graphs (kiln-synth's graph sets): copied, so that the run's
    // directory holds everything it reads.
    std::vector<BenchFile> given;
    collectFiles(options.graphsFrom, given);
    for (const BenchFile &file : given) {
      std::string path =
          graphs + "/" + llvm::sys::path::filename(file.path).str();
      if (llvm::sys::fs::copy_file(file.path, path))
        continue;
      uint64_t size = 0;
      llvm::sys::fs::file_size(path, size);
      bytes += size;
      files.push_back(path);
    }
    if (files.empty()) {
      llvm::errs() << "kiln-bench precompile: error: no *.hlo files in "
                   << options.graphsFrom << "\n";
      return 2;
    }
  }
  for (unsigned i = 0; options.graphsFrom.empty() && i < options.graphs; ++i) {
    // Sizes spread over 1..maxLayers, in an order unlike their size.
    unsigned layers = 1 + (i * 13) % options.maxLayers;
    // Past maxLayers graphs, wider ones: every graph its own computation.
    unsigned width = options.width + 8 * (i / options.maxLayers);
    std::string path = llvm::formatv("{0}/mlp_{1:d2}.hlo", graphs, i).str();
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    std::string text = writeMlpGraph(i, layers, width);
    os << text;
    bytes += text.size();
    files.push_back(path);
  }
  if (options.graphsFrom.empty())
    llvm::outs() << llvm::formatv(
        "kiln-bench precompile: {0} graphs (MLP chains of 1 to {1} layers of "
        "width {2} and up, {3:F1} KiB in all), {4} workers, in {5}\n",
        options.graphs, options.maxLayers, options.width, bytes / 1024.0, jobs,
        dir);
  else
    llvm::outs() << llvm::formatv(
        "kiln-bench precompile: {0} graphs from {1} ({2:F1} MB in all), {3} "
        "workers, in {4}\n",
        files.size(), options.graphsFrom, bytes / 1e6, jobs, dir);

  // The floor of a warm run: read and hash every graph file (best of 5).
  double floor = 1e30;
  for (int repeat = 0; repeat < 5; ++repeat) {
    double start = getMonotonicSeconds();
    for (const std::string &file : files) {
      auto buffer = llvm::MemoryBuffer::getFile(file);
      if (buffer)
        (void)Hash128::of((*buffer)->getBuffer());
    }
    floor = std::min(floor, getMonotonicSeconds() - start);
  }

  // The naive way first, so that the page cache is as warm for both.
  std::string script = "ls " + graphs + "/*.hlo | xargs -P " +
                       std::to_string(jobs) + " -I{} sh -c '" + kiln +
                       " compile {} -o " + out +
                       "/$(basename {}).art 2>/dev/null'";
  RunResult xargs = runTimed({"/bin/sh", "-c", script}, dir + "/xargs.log");
  if (!xargs.ok) {
    llvm::errs() << "kiln-bench precompile: error: the xargs baseline failed: "
                 << xargs.log << "\n";
    return 1;
  }

  std::string cache = dir + "/cache", report = dir + "/report.json";
  std::vector<std::string> precompile = {kiln,
                                         "precompile",
                                         graphs,
                                         "--cache-dir",
                                         cache,
                                         "-j",
                                         std::to_string(jobs),
                                         "--report",
                                         report,
                                         "--work-dir",
                                         dir + "/precompile-work"};
  RunResult cold = runTimed(precompile, dir + "/cold.log");
  if (!cold.ok) {
    llvm::errs() << "kiln-bench precompile: error: the cold run failed:\n"
                 << cold.log << "\n";
    return 1;
  }
  // The compilations as the cold run measured them (worker wall time).
  std::vector<double> seconds;
  double inner = 0;
  auto reportText = llvm::MemoryBuffer::getFile(report);
  llvm::Expected<llvm::json::Value> parsed =
      reportText ? llvm::json::parse((*reportText)->getBuffer())
                 : llvm::Expected<llvm::json::Value>(
                       llvm::createStringError("no report"));
  if (!parsed) {
    llvm::errs() << "kiln-bench precompile: error: "
                 << llvm::toString(parsed.takeError()) << "\n";
    return 1;
  }
  for (const llvm::json::Value &graph :
       *parsed->getAsObject()->getArray("graphs")) {
    const llvm::json::Object *row = graph.getAsObject();
    seconds.push_back(row->getNumber("seconds").value_or(0));
    if (auto key = row->getString("key"))
      if (auto log = llvm::MemoryBuffer::getFile(
              dir + "/precompile-work/logs/" + key->str() + ".log"))
        inner += readCompileReport((*log)->getBuffer()).total;
  }
  double total = std::accumulate(seconds.begin(), seconds.end(), 0.0);
  double longest =
      seconds.empty() ? 0 : *std::max_element(seconds.begin(), seconds.end());
  double bound = std::max(longest, total / jobs);

  RunResult warm = runTimed(precompile, dir + "/warm.log");
  // What any kiln command costs before it reads a graph (loading kiln and
  // its libraries), best of 5: the part of a warm run no cache can save.
  double start = 1e30;
  for (int repeat = 0; repeat < 5; ++repeat)
    start = std::min(
        start, runTimed({kiln, "--version"}, dir + "/version.log").seconds);
  bool allHits =
      warm.ok &&
      (!options.graphsFrom.empty() ||
       llvm::StringRef(warm.log).contains(
           "Cache hits: " + std::to_string(options.graphs) + "\n")) &&
      llvm::StringRef(warm.log).contains("Total successful compilations: 0\n");

  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  llvm::outs() << llvm::formatv(
      "  cold precompile        {0,8:F2} s   lower bound max(longest {1:F2} "
      "s, total {2:F2} s / {3}) = {4:F2} s: {5:F3}x the bound\n",
      cold.seconds, longest, total, jobs, bound, ratio(cold.seconds, bound));
  llvm::outs() << llvm::formatv(
      "  xargs -P {0} kiln compile {1,5:F2} s   (no cache, no keys): cold "
      "precompile is {2:F3}x of it\n",
      jobs, xargs.seconds, ratio(cold.seconds, xargs.seconds));
  llvm::outs() << llvm::formatv(
      "  warm precompile        {0,8:F3} s   {1:P2} of the cold run; read + "
      "XXH3 of the graph files {2:F4} s: {3:F1}x that floor{4}\n",
      warm.seconds, ratio(warm.seconds, cold.seconds), floor,
      ratio(warm.seconds, floor), allHits ? "" : " (NOT all hits)");
  llvm::outs() << llvm::formatv(
      "  kiln process start     {0,8:F3} s   (kiln --version); the warm run "
      "beyond it {1:F4} s: {2:F1}x the floor\n",
      start, std::max(0.0, warm.seconds - start),
      ratio(std::max(0.0, warm.seconds - start), floor));
  double perGraphWorker =
      seconds.empty() ? 0 : (total - inner) / seconds.size();
  double perGraphIdle =
      seconds.empty()
          ? 0
          : std::max(0.0, cold.seconds * jobs - total) / seconds.size();
  llvm::outs() << llvm::formatv(
      "  per graph: compilation {0:F3} s (inside kiln compile), worker "
      "process beyond it {1:F3} s (start, load, import), driver and idle "
      "workers {2:F3} s\n",
      seconds.empty() ? 0 : inner / seconds.size(), perGraphWorker,
      perGraphIdle);
  std::string what =
      llvm::formatv("{0} graphs, {1} workers", files.size(), jobs).str();
  recordFigure(
      {"precompile", "cold makespan, " + what,
       llvm::formatv("{0:F2} s", cold.seconds).str(),
       llvm::formatv("ideal max(longest, total / {0}): {1:F2} s", jobs, bound)
           .str(),
       llvm::formatv("{0:F3}x", ratio(cold.seconds, bound)).str()});
  recordFigure(
      {"precompile", "cold makespan against xargs, " + what,
       llvm::formatv("{0:F2} s", cold.seconds).str(),
       llvm::formatv("xargs -P {0} kiln compile: {1:F2} s", jobs, xargs.seconds)
           .str(),
       llvm::formatv("{0:F3}x", ratio(cold.seconds, xargs.seconds)).str()});
  recordFigure(
      {"precompile", "warm run (every graph cached), " + what,
       llvm::formatv("{0:F3} s", warm.seconds).str(),
       llvm::formatv("the cold run: {0:F2} s", cold.seconds).str(),
       llvm::formatv("{0:P2} of cold{1}", ratio(warm.seconds, cold.seconds),
                     allHits ? "" : " (NOT all hits)")
           .str()});
  recordFigure(
      {"precompile", "warm run against reading the graphs",
       llvm::formatv("{0:F3} s", warm.seconds).str(),
       llvm::formatv("read + XXH3-128: {0:F4} s", floor).str(),
       llvm::formatv("{0:F1}x ({1:F1}x beyond the {2:F3} s process "
                     "start)",
                     ratio(warm.seconds, floor),
                     ratio(std::max(0.0, warm.seconds - start), floor), start)
           .str()});
  if (!options.keep)
    llvm::sys::fs::remove_directories(dir);
  return allHits ? 0 : 1;
}
