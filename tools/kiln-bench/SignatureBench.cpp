//===- SignatureBench.cpp - kiln-bench signature ----------------*- C++ -*-===//
//
// This file implements `kiln-bench signature`. Per file, on one thread, best
// of --repeat runs: the floor (read the file, XXH3-128 its bytes), the
// import (read and import), and the signature of the imported module, with
// the signature's share of the import. Then the whole corpus imported and
// signed on --jobs threads, as `kiln hash -j` does, timed from the start of
// the threads (contexts created inside) to the last signature.
//
//===----------------------------------------------------------------------===//

#include "SignatureBench.h"
#include "BenchTable.h"

#include "llvm/Support/FormatVariadic.h"

#include "BenchFiles.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/Hlo/HloImporter.h"
#include "kiln/Signature/Signature.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <xxhash.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace mlir;
using namespace kiln;
using namespace kiln::bench;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::unique_ptr<llvm::MemoryBuffer> readFile(llvm::StringRef path) {
  auto buffer = readBenchFile(path);
  return buffer ? std::move(*buffer) : nullptr;
}

/// Reads, imports and signs `path` in `context`; false if it fails.
bool importAndSign(llvm::StringRef path, MLIRContext &context,
                   double *importSeconds, double *signatureSeconds) {
  auto start = Clock::now();
  std::unique_ptr<llvm::MemoryBuffer> buffer = readFile(path);
  if (!buffer)
    return false;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  // Failures are reported by the table, not as diagnostics.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = importHloText(sourceMgr, &context);
  if (importSeconds)
    *importSeconds = secondsSince(start);
  if (!module)
    return false;
  auto signStart = Clock::now();
  bool ok = succeeded(computeSignature(*module));
  if (signatureSeconds)
    *signatureSeconds = secondsSince(signStart);
  return ok;
}

struct Row {
  BenchFile file;
  bool ok = false;
  uint64_t bytes = 0;
  double floor = 1e9, import = 1e9, signature = 1e9;
};

} // namespace

int kiln::bench::runSignatureBench(const SignatureBenchOptions &options) {
  std::vector<BenchFile> files;
  for (const std::string &path : options.paths)
    collectFiles(path, files);
  llvm::raw_ostream &os = llvm::outs();
  if (files.empty()) {
    os << "kiln-bench signature: no *.hlo files found\n";
    return 0;
  }

  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<KilnDialect, func::FuncDialect>();
  std::vector<Row> rows;
  for (const BenchFile &file : files) {
    Row row;
    row.file = file;
    for (unsigned run = 0; run < options.repeat; ++run) {
      auto start = Clock::now();
      std::unique_ptr<llvm::MemoryBuffer> buffer = readFile(file.path);
      if (!buffer)
        break;
      XXH128_hash_t digest =
          XXH3_128bits(buffer->getBufferStart(), buffer->getBufferSize());
      (void)digest;
      row.floor = std::min(row.floor, secondsSince(start));
      row.bytes = buffer->getBufferSize();
      double importSeconds = 0, signatureSeconds = 0;
      row.ok =
          importAndSign(file.path, context, &importSeconds, &signatureSeconds);
      if (!row.ok)
        break;
      row.import = std::min(row.import, importSeconds);
      row.signature = std::min(row.signature, signatureSeconds);
    }
    rows.push_back(row);
  }

  os << "kiln-bench signature: best of " << options.repeat
     << " runs per file, one thread. floor = read the file + XXH3-128 of\n"
        "its bytes; import = read + import (parse, build, verify); signature "
        "= the\nstructural signature of the imported module; sig/import = "
        "signature time\nas a share of import time.\n\n";
  os << llvm::format("%-46s %8s %9s %9s %9s %10s\n", "file", "KiB", "floor ms",
                     "import ms", "sig ms", "sig/import");
  double floor = 0, import = 0, signature = 0;
  uint64_t bytes = 0;
  unsigned ok = 0;
  for (const Row &row : rows) {
    if (!row.ok) {
      os << llvm::format("%-46s %8.1f  FAILED to import\n",
                         row.file.name.c_str(), row.bytes / 1024.0);
      continue;
    }
    ++ok;
    floor += row.floor;
    import += row.import;
    signature += row.signature;
    bytes += row.bytes;
    os << llvm::format("%-46s %8.1f %9.3f %9.3f %9.3f %9.1f%%\n",
                       row.file.name.c_str(), row.bytes / 1024.0,
                       row.floor * 1e3, row.import * 1e3, row.signature * 1e3,
                       100 * row.signature / row.import);
  }
  os << llvm::format("\ntotal: %u of %zu files, %.2f MB\n", ok, rows.size(),
                     bytes / 1e6)
     << llvm::format("  floor %.2f ms, import %.1f ms, signature %.2f ms: "
                     "signature = %.1f%% of import\n",
                     floor * 1e3, import * 1e3, signature * 1e3,
                     100 * signature / import);
  if (ok && import > 0 && floor > 0) {
    recordFigure({"import",
                  llvm::formatv("HLO text of {0} graphs, {1:f1} MB, one "
                                "thread",
                                ok, bytes / 1e6)
                      .str(),
                  llvm::formatv("{0:f1} MB/s", bytes / 1e6 / import).str(),
                  llvm::formatv("read + XXH3-128: {0:f0} MB/s",
                                bytes / 1e6 / floor)
                      .str(),
                  llvm::formatv("{0:f1}x the floor's time", import / floor)
                      .str()});
    recordFigure({"import", "structural signature of the same graphs",
                  llvm::formatv("{0:f1} ms", signature * 1e3).str(),
                  llvm::formatv("read + XXH3-128: {0:f1} ms", floor * 1e3)
                      .str(),
                  llvm::formatv("{0:f2}x", signature / floor).str()});
  }

  // The whole corpus, as `kiln hash -j N` keys it: N threads, a context
  // each, taking the next file from a shared counter.
  auto wholeCorpus = [&](unsigned jobs) {
    double best = 1e9;
    for (unsigned run = 0; run < options.repeat; ++run) {
      std::atomic<size_t> next{0};
      auto start = Clock::now();
      std::vector<std::thread> threads;
      for (unsigned j = 0; j < jobs; ++j)
        threads.emplace_back([&]() {
          MLIRContext threadContext(MLIRContext::Threading::DISABLED);
          threadContext.loadDialect<KilnDialect, func::FuncDialect>();
          for (size_t i = next++; i < files.size(); i = next++)
            importAndSign(files[i].path, threadContext, nullptr, nullptr);
        });
      for (std::thread &thread : threads)
        thread.join();
      best = std::min(best, secondsSince(start));
    }
    return best;
  };
  double one = wholeCorpus(1);
  double many = wholeCorpus(std::max(1u, options.jobs));
  os << llvm::format("  whole corpus imported and signed: %.1f ms on 1 "
                     "thread, %.1f ms on %u threads (best of %u)\n",
                     one * 1e3, many * 1e3, std::max(1u, options.jobs),
                     options.repeat);
  return 0;
}
