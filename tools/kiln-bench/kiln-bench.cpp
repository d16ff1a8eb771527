//===- kiln-bench.cpp - import throughput and memory benchmark --*- C++ -*-===//
//
// This file implements kiln-bench. `kiln-bench import` imports HLO text files
// on one thread, several times each, and prints per file the import time, the
// throughput in MB/s and ops/s, the floor (reading the file and hashing it
// with XXH3-128, the least that any keying of a graph costs), the ratio of
// the two, and the peak memory of an import as a multiple of the file size.
// It measures and reports; it asserts nothing and exits 0.
//
//===----------------------------------------------------------------------===//

#include "BenchFiles.h"
#include "CacheBench.h"
#include "ClusterBench.h"
#include "CpuBench.h"
#include "FrontendBench.h"
#include "PrecompileBench.h"
#include "RemoteBench.h"
#include "PythonBench.h"
#include "SigningBench.h"
#include "SignatureBench.h"
#include "StableHloBench.h"
#include "TableBench.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/Hlo/HloImporter.h"
#include "kiln/Import/Hlo/InputDiagnostics.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <malloc.h>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace mlir;
using kiln::bench::BenchFile;
using kiln::bench::collectFiles;
using kiln::bench::readBenchFile;

namespace {

/// Options of `kiln-bench import`.
struct ImportBenchOptions {
  std::vector<std::string> paths;
  unsigned repeat = 5;
  bool json = false;
};

/// What was measured on one file. Times are in seconds, sizes in bytes.
struct FileResult {
  BenchFile file;
  bool ok = false;
  /// Why the import failed, when it did.
  std::string error;
  uint64_t bytes = 0;
  uint64_t ops = 0;
  double bestImport = 0;
  double medianImport = 0;
  double bestFloor = 0;
  /// Growth of the resident set at the peak of a first import; -1 if unknown.
  int64_t peakBytes = -1;
};

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double megabytes(uint64_t bytes) { return bytes / 1e6; }

/// Counts the ops of a module the way `kiln import --summary` does: kiln
/// dialect ops, terminators of regions excluded.
uint64_t countOps(ModuleOp module) {
  uint64_t ops = 0;
  module.walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (dialect && dialect->getNamespace() == "kiln" &&
        !isa<kiln::ReturnOp>(op))
      ++ops;
  });
  return ops;
}

/// Reads and imports `path` once. On failure returns null and sets `error` to
/// the first error; the diagnostics go to stderr only if `print` is set.
OwningOpRef<ModuleOp> importFile(llvm::StringRef path, MLIRContext &context,
                                 bool print, std::string &error) {
  auto buffer = readBenchFile(path);
  if (!buffer) {
    error = buffer.getError().message();
    return nullptr;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  // Prints as kiln import does, at the dump's position of an instruction
  // with metadata (HloLocation.h).
  std::optional<kiln::InputDiagnosticHandler> printer;
  if (print)
    printer.emplace(sourceMgr, &context, llvm::errs());
  // Registered last, so it sees each diagnostic first; it keeps the first
  // error and hands the diagnostic on to the printer, if any.
  ScopedDiagnosticHandler recorder(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && error.empty()) {
      error = diag.str();
      if (std::optional<FileLineColLoc> loc =
              kiln::decodeHloLocation(diag.getLocation()).dumpPosition)
        error = llvm::formatv("{0}:{1}: {2}", loc->getLine(), loc->getColumn(),
                              error);
    }
    return success(!print);
  });
  return kiln::importHloText(sourceMgr, &context);
}

/// Reads one "Field:  N kB" line of /proc/self/status, in bytes; -1 if absent.
int64_t readProcStatus(llvm::StringRef field) {
  auto status = llvm::MemoryBuffer::getFileAsStream("/proc/self/status");
  if (!status)
    return -1;
  llvm::SmallVector<llvm::StringRef> lines;
  (*status)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (!line.consume_front(field) || !line.consume_front(":"))
      continue;
    llvm::StringRef value = line.trim();
    int64_t kilobytes;
    if (value.consume_back("kB") && !value.trim().getAsInteger(10, kilobytes))
      return kilobytes * 1024;
  }
  return -1;
}

/// Makes VmHWM start again from the current resident size (Linux >= 4.0).
bool resetPeakResidentSize() {
  std::error_code error;
  llvm::raw_fd_ostream clearRefs("/proc/self/clear_refs", error);
  if (error)
    return false;
  clearRefs << "5";
  clearRefs.close();
  return !clearRefs.has_error();
}

/// Measures, in a forked child, how much the resident set grows at the peak
/// of importing `path`: the file's bytes, the parser's temporaries, the module
/// and the uniqued types and attributes. A first, unmeasured import in a
/// scratch context faults in the code of libMLIR and kiln, which every import
/// shares and is no part of one graph's cost; malloc_trim then hands the heap
/// it freed back to the kernel, so that the measured import, in a fresh
/// context, pays for every page it touches. The child also keeps a crash in
/// the importer from taking the benchmark down. Returns -1 if the growth
/// could not be measured; sets `crashed` if the child died.
int64_t measurePeakGrowth(llvm::StringRef path, bool &crashed) {
  crashed = false;
  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string error;
    {
      MLIRContext scratch(MLIRContext::Threading::DISABLED);
      importFile(path, scratch, /*print=*/false, error);
    }
    malloc_trim(0);
    MLIRContext context(MLIRContext::Threading::DISABLED);
    context.loadDialect<kiln::KilnDialect, func::FuncDialect>();
    int64_t growth = -1;
    if (resetPeakResidentSize()) {
      int64_t before = readProcStatus("VmRSS");
      OwningOpRef<ModuleOp> module =
          importFile(path, context, /*print=*/false, error);
      int64_t peak = readProcStatus("VmHWM");
      if (before >= 0 && peak >= 0)
        growth = peak - before;
    }
    ssize_t written = write(fds[1], &growth, sizeof(growth));
    _exit(written == sizeof(growth) ? 0 : 1);
  }
  close(fds[1]);
  int64_t growth = -1;
  if (pid < 0 || read(fds[0], &growth, sizeof(growth)) != sizeof(growth))
    growth = -1;
  close(fds[0]);
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status))
    crashed = true;
  return growth;
}

volatile uint64_t hashSink;

double median(std::vector<double> times) {
  llvm::sort(times);
  size_t n = times.size();
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

/// Times `repeat` imports of `result.file` and `repeat` reads+hashes of it.
void timeFile(FileResult &result, MLIRContext &context, unsigned repeat) {
  std::vector<double> imports;
  for (unsigned run = 0; run < repeat; ++run) {
    std::string error;
    Clock::time_point start = Clock::now();
    OwningOpRef<ModuleOp> module =
        importFile(result.file.path, context, /*print=*/run == 0, error);
    double seconds = secondsSince(start);
    if (!module) {
      result.error = error.empty() ? "import failed" : error;
      return;
    }
    if (run == 0)
      result.ops = countOps(*module);
    imports.push_back(seconds);
    // The module is destroyed here, outside the timed region.
  }
  result.ok = true;
  result.bestImport = *llvm::min_element(imports);
  result.medianImport = median(imports);

  std::vector<double> floors;
  for (unsigned run = 0; run < repeat; ++run) {
    Clock::time_point start = Clock::now();
    auto buffer = readBenchFile(result.file.path);
    if (!buffer) {
      result.ok = false;
      result.error = buffer.getError().message();
      return;
    }
    XXH128_hash_t hash =
        XXH3_128bits((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
    floors.push_back(secondsSince(start));
    // Stored through a volatile so that the hash is not optimized away.
    hashSink = hash.low64 ^ hash.high64;
  }
  result.bestFloor = *llvm::min_element(floors);
}

void printHeader(llvm::raw_ostream &os, size_t numFiles, unsigned repeat) {
  os << llvm::formatv(
      "kiln-bench import: {0} files, {1} runs each, one thread\n"
      "  import: read the file into memory, then kiln::importHloText (parse, "
      "build, verify);\n"
      "          one MLIRContext without multithreading, reused by all runs; "
      "the module is\n"
      "          destroyed between runs, outside the timing; warm page cache; "
      "best and median\n"
      "  floor:  read the file into memory and XXH3-128 its bytes (best run): "
      "the least that\n"
      "          keying a graph costs; ratio = best import / floor\n"
      "  peak:   resident-set growth (VmHWM after - VmRSS before) of an "
      "import in a fresh\n"
      "          MLIRContext, in a forked process whose code pages an "
      "unmeasured import warmed\n"
      "          and whose freed heap malloc_trim returned; as a multiple of "
      "the file size,\n"
      "          counting the file's own bytes (1x); page-grained, so small "
      "files show fixed costs\n"
      "  MB = 10^6 bytes\n\n",
      numFiles, repeat);
}

void printTable(llvm::raw_ostream &os, const std::vector<FileResult> &results,
                unsigned repeat) {
  printHeader(os, results.size(), repeat);
  size_t width = 4;
  for (const FileResult &result : results)
    width = std::max(width, result.file.name.size());
  os << llvm::left_justify("file", width)
     << llvm::format("  %8s %7s %9s %9s %7s %9s %9s %8s %6s %7s\n", "KiB",
                     "ops", "best ms", "median ms", "MB/s", "ops/s", "floor ms",
                     "fl. MB/s", "ratio", "peak");

  uint64_t bytes = 0, ops = 0;
  double importSeconds = 0, floorSeconds = 0, maxPeak = 0;
  unsigned imported = 0;
  std::string maxPeakName;
  for (const FileResult &result : results) {
    os << llvm::left_justify(result.file.name, width)
       << llvm::format("  %8.1f ", result.bytes / 1024.0);
    if (!result.ok) {
      os << "FAILED: " << result.error << "\n";
      continue;
    }
    ++imported;
    bytes += result.bytes;
    ops += result.ops;
    importSeconds += result.bestImport;
    floorSeconds += result.bestFloor;
    os << llvm::format("%7llu %9.3f %9.3f %7.1f %9.0f %9.3f %8.0f %5.0fx ",
                       (unsigned long long)result.ops, result.bestImport * 1e3,
                       result.medianImport * 1e3,
                       megabytes(result.bytes) / result.bestImport,
                       result.ops / result.bestImport, result.bestFloor * 1e3,
                       megabytes(result.bytes) / result.bestFloor,
                       result.bestImport / result.bestFloor);
    if (result.peakBytes < 0) {
      os << llvm::format("%7s\n", "n/a");
      continue;
    }
    double peak = double(result.peakBytes) / result.bytes;
    os << llvm::format("%6.1fx\n", peak);
    if (peak > maxPeak && result.bytes >= (100 << 10)) {
      maxPeak = peak;
      maxPeakName = result.file.name;
    }
  }

  os << llvm::formatv("\ntotal: {0} of {1} files imported, {2:f2} MB, {3} "
                      "ops\n",
                      imported, results.size(), megabytes(bytes), ops);
  if (imported == 0)
    return;
  os << llvm::formatv("  import: {0:f1} ms (sum of best runs), {1:f1} MB/s, "
                      "{2:f0} ops/s\n",
                      importSeconds * 1e3, megabytes(bytes) / importSeconds,
                      ops / importSeconds);
  os << llvm::formatv("  floor:  {0:f2} ms, {1:f0} MB/s; import/floor = "
                      "{2:f0}x\n",
                      floorSeconds * 1e3, megabytes(bytes) / floorSeconds,
                      importSeconds / floorSeconds);
  if (!maxPeakName.empty())
    os << llvm::formatv("  peak:   at most {0:f1}x file size over files of "
                        "100 KiB and more ({1})\n",
                        maxPeak, maxPeakName);
}

void printJson(llvm::raw_ostream &os, const std::vector<FileResult> &results,
               unsigned repeat) {
  llvm::json::Array files;
  uint64_t bytes = 0, ops = 0;
  unsigned imported = 0;
  double importSeconds = 0, floorSeconds = 0;
  for (const FileResult &result : results) {
    llvm::json::Object file{{"file", result.file.name},
                            {"path", result.file.path},
                            {"ok", result.ok},
                            {"bytes", result.bytes}};
    if (!result.ok) {
      file["error"] = result.error;
    } else {
      ++imported;
      bytes += result.bytes;
      ops += result.ops;
      importSeconds += result.bestImport;
      floorSeconds += result.bestFloor;
      file["ops"] = result.ops;
      file["import_best_s"] = result.bestImport;
      file["import_median_s"] = result.medianImport;
      file["import_mb_per_s"] = megabytes(result.bytes) / result.bestImport;
      file["ops_per_s"] = result.ops / result.bestImport;
      file["floor_s"] = result.bestFloor;
      file["floor_mb_per_s"] = megabytes(result.bytes) / result.bestFloor;
      file["ratio"] = result.bestImport / result.bestFloor;
    }
    if (result.peakBytes >= 0) {
      file["peak_bytes"] = result.peakBytes;
      file["peak_x_size"] = double(result.peakBytes) / result.bytes;
    }
    files.push_back(std::move(file));
  }
  llvm::json::Object total{{"files", (int64_t)results.size()},
                           {"imported", imported},
                           {"bytes", bytes},
                           {"ops", ops},
                           {"import_s", importSeconds},
                           {"floor_s", floorSeconds}};
  if (importSeconds > 0)
    total["import_mb_per_s"] = megabytes(bytes) / importSeconds;
  llvm::json::Object report{{"repeat", repeat},
                            {"files", std::move(files)},
                            {"total", std::move(total)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
}

int runImportBench(const ImportBenchOptions &options) {
  std::vector<BenchFile> files;
  for (const std::string &path : options.paths)
    collectFiles(path, files);

  // Memory first, each file in its own child: a file that crashes the
  // importer is then known before this process imports it.
  std::vector<FileResult> results;
  for (const BenchFile &file : files) {
    FileResult result;
    result.file = file;
    uint64_t size = 0;
    if (!llvm::sys::fs::file_size(file.path, size))
      result.bytes = size;
    bool crashed = false;
    result.peakBytes = measurePeakGrowth(file.path, crashed);
    if (crashed)
      result.error = "the importer crashed";
    results.push_back(std::move(result));
  }

  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<kiln::KilnDialect, func::FuncDialect>();
  for (FileResult &result : results)
    if (result.error.empty())
      timeFile(result, context, options.repeat);

  if (options.json)
    printJson(llvm::outs(), results, options.repeat);
  else
    printTable(llvm::outs(), results, options.repeat);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"kiln-bench: measures kiln's import of HLO text (speed, "
               "memory) against the\nfloor of reading and hashing the file, "
               "and the compile cache. Reports only;\nasserts nothing.\n",
               "kiln-bench"};
  app.require_subcommand(1);

  ImportBenchOptions options;
  CLI::App *import = app.add_subcommand(
      "import", "Time the import of HLO files, one thread, and measure its "
                "peak memory");
  import->add_option("paths", options.paths,
                     "HLO files, or directories searched recursively for "
                     "*.hlo (default: test/Inputs/corpus/hlo)");
  import->add_option("--repeat", options.repeat, "Timed runs per file")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str();
  import->add_flag("--json", options.json, "Print JSON instead of a table");

  kiln::bench::CacheBenchOptions cacheOptions;
  CLI::App *cache = app.add_subcommand(
      "cache",
      "Time the compile cache: lookup latency (p50/p99) in a cache of\n"
      "--entries entries, with and without verification, alone and beside a\n"
      "publishing process; publish throughput for 4 KiB and 4 MiB artifacts;\n"
      "and `kiln cache check` over a corpus split into read, import,\n"
      "signature and lookup. Run from the repository root:\n"
      "  build/bin/kiln-bench cache");
  cache
      ->add_option("--entries", cacheOptions.entries,
                   "Entries of the cache whose lookups are timed")
      ->capture_default_str();
  cache
      ->add_option("--entry-bytes", cacheOptions.entryBytes,
                   "Artifact size of those entries")
      ->capture_default_str();
  cache
      ->add_option("--populate", cacheOptions.populate,
                   "How that cache is filled: 'bulk' (a test-only path: "
                   "files written and rows inserted in one transaction by "
                   "kiln-bench) or 'publish' (Cache::publish each, with its "
                   "fsyncs; slow)")
      ->check(CLI::IsMember({"bulk", "publish"}))
      ->capture_default_str();
  cache
      ->add_option("--lookups", cacheOptions.lookups,
                   "Lookups timed for each kind of lookup")
      ->capture_default_str();
  cache
      ->add_option("--small-publishes", cacheOptions.smallPublishes,
                   "4 KiB artifacts published for the throughput")
      ->capture_default_str();
  cache
      ->add_option("--large-publishes", cacheOptions.largePublishes,
                   "4 MiB artifacts published for the throughput")
      ->capture_default_str();
  cache
      ->add_option("--contended-seconds", cacheOptions.contendedSeconds,
                   "Seconds of lookups beside a publishing process (0: "
                   "skip)")
      ->capture_default_str();
  cache->add_option("--corpus", cacheOptions.corpus,
                    "Graphs for the `kiln cache check` split (files or "
                    "directories; default: test/Inputs/corpus/hlo)");
  cache
      ->add_option("--repeat", cacheOptions.repeat,
                   "Runs of the `kiln cache check` split")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str();
  cache->add_option("--dir", cacheOptions.directory,
                    "Where to make the caches (default: $TMPDIR, else /tmp)");
  cache->add_flag("--keep", cacheOptions.keep,
                  "Keep the caches instead of removing them");

  kiln::bench::ClusterBenchOptions clusterOptions;
  CLI::App *clusterBench = app.add_subcommand(
      "cluster",
      "Time a cluster precompile on simulated nodes (processes with --nodes,\n"
      "one local cache each, one shared file tier) of a kiln-synth\n"
      "--all-ranks graph set split by device, against the ideal max(longest,\n"
      "total / workers) and the static split (each node its own list), with\n"
      "a stand-in compiler whose time follows the graph's size. Run from the\n"
      "repository root: build/bin/kiln-bench cluster");
  clusterBench->add_option("--nodes", clusterOptions.nodes, "Simulated nodes")
      ->capture_default_str();
  clusterBench->add_option("--workers", clusterOptions.workers, "Workers per node")
      ->capture_default_str();
  clusterBench
      ->add_option("--seconds-per-mb", clusterOptions.secondsPerMB,
                   "The stand-in compiler's seconds per MB of graph")
      ->capture_default_str();
  clusterBench->add_option("--preset", clusterOptions.preset, "kiln-synth preset")
      ->capture_default_str();
  clusterBench->add_option("--tp", clusterOptions.tp, "Tensor-parallel degree")
      ->capture_default_str();
  clusterBench->add_option("--pp", clusterOptions.pp, "Pipeline stages")
      ->capture_default_str();
  clusterBench->add_option("--dp", clusterOptions.dp, "Data-parallel replicas")
      ->capture_default_str();
  clusterBench->add_option("--dir", clusterOptions.directory,
                           "Where to work (default: $TMPDIR, else /tmp)");

  kiln::bench::PythonBenchOptions pythonOptions;
  CLI::App *python = app.add_subcommand(
      "python",
      "What the kiln Python module costs a training script: a call of a "
      "cached 1-element add against kiln run's in-process path and the C "
      "API's, and load on a hit to the first result against in-process "
      "loading and `kiln run ARTIFACT`. Run from the repository root: "
      "build/bin/kiln-bench python");
  python->add_option("--kiln", pythonOptions.kiln,
                     "The kiln binary (default: beside kiln-bench)");
  python->add_option("--python", pythonOptions.python,
                     "A Python with NumPy (default /usr/bin/python3)");
  python->add_option("--module", pythonOptions.module,
                     "The kiln module's directory (default: build/python)");
  python->add_option("--calls", pythonOptions.calls, "Calls per timing")
      ->capture_default_str();
  python->add_option("--repeat", pythonOptions.repeat, "Timings (best of)")
      ->capture_default_str();

  kiln::bench::SigningBenchOptions signingOptions;
  CLI::App *signing = app.add_subcommand(
      "signing",
      "Time what signed entries add to a lookup, against the checksum\n"
      "alone measured in the same run on the same bytes: the signature\n"
      "check and signing of a large artifact, per lookup and per MB.");
  signing->add_option("--mib", signingOptions.megabytes, "Payload size in MiB")
      ->check(CLI::Range(1, 4096));
  signing->add_option("--repeat", signingOptions.repeat, "Runs of each (best of)")
      ->check(CLI::Range(1, 1000));
  signing->add_option("--dir", signingOptions.directory,
                      "Where the key file goes for a moment");

  kiln::bench::RemoteBenchOptions remoteOptions;
  CLI::App *remote = app.add_subcommand(
      "remote",
      "Time the remote tiers against their floors, measured in the same\n"
      "run: a remote hit of a small and a large artifact fetched into the\n"
      "local tier, per backend (file, Redis, HTTP; it starts redis-server\n"
      "and nginx on loopback), beside a plain GET through hiredis, a read\n"
      "of the file, curl's GET of the URL; and kiln cache check --fetch of\n"
      "a graph set on an empty local cache against a local cache that holds\n"
      "them. Run from the repository root: build/bin/kiln-bench remote");
  remote->add_option("--small-bytes", remoteOptions.smallBytes, "Small artifact size")
      ->capture_default_str();
  remote->add_option("--large-mib", remoteOptions.largeMiB, "Large artifact size in MiB")
      ->capture_default_str();
  remote->add_option("--small-repeat", remoteOptions.smallRepeat, "Timed fetches of the small one")
      ->capture_default_str();
  remote->add_option("--large-repeat", remoteOptions.largeRepeat, "Timed fetches of the large one")
      ->capture_default_str();
  remote->add_option("--graphs", remoteOptions.graphs, "Graphs in the checked set")
      ->capture_default_str();
  remote->add_option("--check-repeat", remoteOptions.checkRepeat, "Runs of each check")
      ->capture_default_str();
  remote->add_option("--dir", remoteOptions.directory,
                     "Where to make the caches (default: $TMPDIR, else /tmp)");

  kiln::bench::SignatureBenchOptions signatureOptions;
  CLI::App *signature = app.add_subcommand(
      "signature",
      "Time the import and the signature of each graph against the floor of\n"
      "reading and hashing its bytes, then the whole corpus keyed on --jobs\n"
      "threads. Run from the repository root: build/bin/kiln-bench signature");
  signature->add_option("paths", signatureOptions.paths,
                        "HLO files, or directories searched recursively for "
                        "*.hlo (default: test/Inputs/corpus/hlo)");
  signature->add_option("--repeat", signatureOptions.repeat, "Runs per file")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str();
  signature
      ->add_option("-j,--jobs", signatureOptions.jobs,
                   "Threads for the whole-corpus run")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();

  kiln::bench::StableHloBenchOptions stablehloOptions;
  CLI::App *stablehlo = app.add_subcommand(
      "stablehlo",
      "The StableHLO conformance run: import every *.mlir file of StableHLO's\n"
      "JAX-generated golden tests, print per op family how many import and\n"
      "the first error of each file that does not, then the import speed\n"
      "against HLO text's; with --export, also how many export to HLO text\n"
      "that imports again with the same signature. Run from the repository\n"
      "root:\n"
      "  build/bin/kiln-bench stablehlo --export");
  stablehlo->add_option("directory", stablehloOptions.directory,
                        "The golden tests (default: "
                        "../shared/stablehlo-testdata)");
  stablehlo->add_flag("--all-families", stablehloOptions.allFamilies,
                      "List every family, not only those with failures");
  stablehlo->add_flag("--export", stablehloOptions.exportRoundTrip,
                      "Also export every imported module to HLO text, import "
                      "it again and compare the signatures (a column per "
                      "family; --require applies to them too)");
  stablehlo->add_flag("--evaluate", stablehloOptions.evaluate,
                      "Also run every imported module with kiln's evaluator "
                      "and count the files whose checks all pass");
  stablehlo->add_flag("--compile", stablehloOptions.compile,
                      "Also compile every imported module with kiln's CPU "
                      "backend (constant folding off), run it in a child "
                      "process, and count the files whose checks all pass");
  stablehlo->add_option("--require-compiled",
                        stablehloOptions.requireCompiledPercent,
                        "With --compile, exit 1 if fewer than this percentage "
                        "of the files outside dynamic/ compile and pass");
  stablehlo->add_option("--require-passed",
                        stablehloOptions.requirePassedPercent,
                        "With --evaluate, exit 1 if fewer than this "
                        "percentage of the files outside dynamic/ pass");
  stablehlo->add_option("--require", stablehloOptions.requirePercent,
                        "Exit 1 if fewer than this percentage of the files "
                        "outside dynamic/ import");

  // What `cpu` and `blocks` share: attention's shape, runs, the target.
  auto addCompiledCodeOptions = [](CLI::App *command,
                                   kiln::bench::CpuBenchOptions &options) {
    command
        ->add_option("--sequence", options.sequence,
                     "Attention's sequence length (the MLP's rows)")
        ->capture_default_str();
    command
        ->add_option("--head-dim", options.headDim,
                     "Attention's head dimension")
        ->capture_default_str();
    command->add_option("--repeat", options.repeat, "Runs of each measurement")
        ->capture_default_str();
    command->add_option("--target-cpu", options.cpu,
                        "The CPU the code is built for (default: the "
                        "portable level; 'native': this machine's)");
  };

  kiln::bench::CpuBenchOptions cpuOptions;
  CLI::App *cpu = app.add_subcommand(
      "cpu",
      "The CPU backend's code on one core: dot_general f32 against OpenBLAS\n"
      "sgemm (loaded at run time), a naive loop and the peak FMA rate;\n"
      "causal attention with the mask folded against --no-fold-causal-mask.");
  cpu->add_option("--size", cpuOptions.size, "dot_general's M = N = K")
      ->capture_default_str();
  addCompiledCodeOptions(cpu, cpuOptions);

  kiln::bench::CpuBenchOptions blockOptions;
  CLI::App *blocks = app.add_subcommand(
      "blocks",
      "A Llama MLP block and causal attention, f32 and bf16, compiled, on\n"
      "one core: against textbook f32 loops and kiln's evaluator, with the\n"
      "compiled code's error against the evaluator.");
  addCompiledCodeOptions(blocks, blockOptions);
  blocks->add_option("--hidden", blockOptions.hidden, "The MLP's hidden size")
      ->capture_default_str();
  blocks
      ->add_option("--intermediate", blockOptions.intermediate,
                   "The MLP's intermediate size")
      ->capture_default_str();

  kiln::bench::PrecompileBenchOptions precompileOptions;
  CLI::App *precompile = app.add_subcommand(
      "precompile",
      "kiln precompile end to end on graphs of varied size written for the\n"
      "run: the cold run's makespan against max(longest compilation, total\n"
      "/ N) and against xargs -P N kiln compile, the warm run against the\n"
      "cold one and against reading and hashing the files, and the\n"
      "overhead per graph.");
  precompile->add_option("--kiln", precompileOptions.kiln,
                         "The kiln binary (default: beside kiln-bench)");
  precompile
      ->add_option("--graphs", precompileOptions.graphs, "How many graphs")
      ->capture_default_str();
  precompile
      ->add_option("--max-layers", precompileOptions.maxLayers,
                   "The largest graph's layers")
      ->capture_default_str();
  precompile->add_option("-j,--jobs", precompileOptions.jobs,
                         "Workers (default: one per core)");
  precompile->add_option("--graphs-from", precompileOptions.graphsFrom,
                         "Take the *.hlo graphs of this directory (a "
                         "kiln-synth --graph-set) instead of writing MLPs");
  precompile->add_flag("--keep", precompileOptions.keep,
                       "Keep the graphs, cache and logs (the directory is "
                       "printed)");

  std::vector<std::string> frontendPaths;
  CLI::App *frontend = app.add_subcommand(
      "frontend",
      "Time kiln-frontend against import on each graph (default: the "
      "corpus in\ntest/Inputs/corpus/hlo): the goal is at most half of "
      "import time.");
  frontend->add_option("paths", frontendPaths, "Graphs or directories");
  CLI::App *evaluator = app.add_subcommand(
      "evaluator", "The reference evaluator's throughput: element-wise ops "
                   "in elements/s,\ndot_general in multiply-adds/s.");

  kiln::bench::TableBenchOptions tableOptions;
  CLI::App *table = app.add_subcommand(
      "table",
      "Every benchmark on kiln-synth's workloads, then one table of their\n"
      "figures, each beside its floor or baseline from the same run (import\n"
      "against read + XXH3, cache lookups, cache check cold and warm, compile\n"
      "time per 1,000 instructions against graph size, compiled code against\n"
      "OpenBLAS and peak, the causal mask, precompile against the ideal and\n"
      "xargs -P). tools/bench-table.sh builds, writes the workloads and runs\n"
      "it.");
  table
      ->add_option("--workloads", tableOptions.workloads,
                   "kiln-synth's workloads (import/, scaling/, precompile/)")
      ->required();
  table->add_option("--kiln", tableOptions.kiln,
                    "The kiln binary (default: beside kiln-bench)");
  table->add_option("-j,--jobs", tableOptions.jobs,
                    "precompile's workers (default: one per core)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    // 0 for --help; any other parse problem is a usage error, as for kiln.
    return app.exit(error) == 0 ? 0 : 2;
  }
  // The kiln binary beside kiln-bench, for the benchmarks that run it.
  std::string kilnBesideBench =
      (llvm::sys::path::parent_path(
           llvm::sys::fs::getMainExecutable(argv[0], (void *)&main)) +
       "/kiln")
          .str();
  if (cpu->parsed())
    return kiln::bench::runCpuBench(cpuOptions);
  if (blocks->parsed())
    return kiln::bench::runBlockBench(blockOptions);
  if (table->parsed())
    return kiln::bench::runTableBench(tableOptions);
  if (precompile->parsed()) {
    if (precompileOptions.kiln.empty())
      precompileOptions.kiln = kilnBesideBench;
    return kiln::bench::runPrecompileBench(precompileOptions);
  }
  if (frontend->parsed()) {
    if (frontendPaths.empty())
      frontendPaths.push_back("test/Inputs/corpus/hlo");
    return kiln::bench::runFrontendBench(frontendPaths);
  }
  if (evaluator->parsed())
    return kiln::bench::runEvaluatorBench();
  if (stablehlo->parsed())
    return kiln::bench::runStableHloBench(stablehloOptions, llvm::outs());
  if (signature->parsed()) {
    if (signatureOptions.paths.empty())
      signatureOptions.paths.push_back("test/Inputs/corpus/hlo");
    return kiln::bench::runSignatureBench(signatureOptions);
  }
  if (clusterBench->parsed())
    return kiln::bench::runClusterBench(clusterOptions);
  if (remote->parsed())
    return kiln::bench::runRemoteBench(remoteOptions);
  if (signing->parsed())
    return kiln::bench::runSigningBench(signingOptions);
  if (python->parsed()) {
    if (pythonOptions.kiln.empty())
      pythonOptions.kiln = kilnBesideBench;
    return kiln::bench::runPythonBench(pythonOptions);
  }
  if (cache->parsed()) {
    if (cacheOptions.corpus.empty())
      cacheOptions.corpus.push_back("test/Inputs/corpus/hlo");
    return kiln::bench::runCacheBench(cacheOptions);
  }
  if (options.paths.empty())
    options.paths.push_back("test/Inputs/corpus/hlo");
  return runImportBench(options);
}
