//===- SignatureBench.cpp - kiln-bench signature ----------------*- C++ -*-===//
//
// This file implements `kiln-bench signature`. Per file, on one thread, best
// of --repeat runs: the floor (read the file, XXH3-128 its bytes), the
// import (read and import), and the signature of the imported module, with
// the signature's share of the import, and MLIR's own parser reading the
// imported module back from its printed form (locations included): the same
// ops, types, attributes and locations built in the same context, a baseline
// that a busy machine slows as much as the import. Then the whole corpus
// imported and
// signed on --jobs threads, as `kiln hash -j` does, timed from the start of
// the threads (contexts created inside) to the last signature.
//
//===----------------------------------------------------------------------===//

#include "SignatureBench.h"
#include "BenchTable.h"

#include "llvm/Support/FormatVariadic.h"

#include "BenchFiles.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/Hlo/HloImporter.h"
#include "kiln/Signature/Signature.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
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

/// Reads, imports and signs `path` in `context`; false if it fails. With
/// `printed`, also prints the imported module there (as kiln-translate
/// does with -mlir-print-debuginfo), untimed.
bool importAndSign(llvm::StringRef path, MLIRContext &context,
                   double *importSeconds, double *signatureSeconds,
                   std::string *printed = nullptr) {
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
  if (printed) {
    // In builtin form, as `kiln import --debug-info` prints it.
    kiln::useBuiltinLocations(*module);
    llvm::raw_string_ostream os(*printed);
    module->print(os, OpPrintingFlags().enableDebugInfo());
  }
  return ok;
}

/// Seconds MLIR's parser takes to read and verify `text`; negative if it
/// fails.
double timeMlirParse(llvm::StringRef text, MLIRContext &context) {
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  auto start = Clock::now();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, ParserConfig(&context));
  double seconds = secondsSince(start);
  return module ? seconds : -1;
}

struct Row {
  BenchFile file;
  bool ok = false;
  uint64_t bytes = 0;
  double floor = 1e9, import = 1e9, signature = 1e9, mlirParse = 1e9;
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
    std::string printed;
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
      row.ok = importAndSign(file.path, context, &importSeconds,
                             &signatureSeconds, run == 0 ? &printed : nullptr);
      if (!row.ok)
        break;
      row.import = std::min(row.import, importSeconds);
      row.signature = std::min(row.signature, signatureSeconds);
      // In turn with the import, so that both meet the same moments of a
      // shared machine.
      double parseSeconds =
          printed.empty() ? -1 : timeMlirParse(printed, context);
      if (parseSeconds >= 0)
        row.mlirParse = std::min(row.mlirParse, parseSeconds);
    }
    rows.push_back(row);
  }

  os << "kiln-bench signature: best of " << options.repeat
     << " runs per file, one thread. floor = read the file + XXH3-128 of\n"
        "its bytes; import = read + import (parse, build, verify); signature "
        "= the\nstructural signature of the imported module; sig/import = "
        "signature time\nas a share of import time; mlir = MLIR's parser "
        "reading the imported\nmodule printed with its locations (parse, "
        "build, verify).\n\n";
  os << llvm::format("%-46s %8s %9s %9s %9s %10s %9s\n", "file", "KiB",
                     "floor ms", "import ms", "sig ms", "sig/import",
                     "mlir ms");
  double floor = 0, import = 0, signature = 0, mlirParse = 0;
  uint64_t bytes = 0;
  unsigned ok = 0;
  bool allParsed = true;
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
    bool parsed = row.mlirParse < 1e9;
    allParsed &= parsed;
    mlirParse += parsed ? row.mlirParse : 0;
    os << llvm::format("%-46s %8.1f %9.3f %9.3f %9.3f %9.1f%%",
                       row.file.name.c_str(), row.bytes / 1024.0,
                       row.floor * 1e3, row.import * 1e3, row.signature * 1e3,
                       100 * row.signature / row.import);
    if (parsed)
      os << llvm::format(" %9.3f\n", row.mlirParse * 1e3);
    else
      os << "    FAILED\n";
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
    // MLIR's parser builds the same module as the import; the ratio moves
    // far less with the machine's load than the import's MB/s.
    if (allParsed)
      recordFigure(
          {"import",
           "the same graphs, against MLIR's parser reading the imported "
           "modules printed with locations",
           llvm::formatv("{0:f1} ms", import * 1e3).str(),
           llvm::formatv("MLIR's parser: {0:f1} ms", mlirParse * 1e3).str(),
           llvm::formatv("{0:f2}x its time", import / mlirParse).str()});
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
