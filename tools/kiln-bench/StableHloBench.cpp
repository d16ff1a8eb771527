//===- StableHloBench.cpp - kiln-bench stablehlo ----------------*- C++ -*-===//
//
// This file implements `kiln-bench stablehlo`: the conformance run over
// StableHLO's JAX-generated golden programs. Every `*.mlir` file below the
// directory is imported (a file of `// -----`-separated modules imports
// when each of its modules does); the files are grouped by op family (the
// file name up to its first element type or number: `scatter_add`, `abs`,
// `interpret/while`); per family it prints how many imported, then every
// file that did not with its first error, then the import speed against
// HLO text's, measured in the same run.
//
//===----------------------------------------------------------------------===//

#include "StableHloBench.h"

#include "BenchFiles.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/Hlo/HloImporter.h"
#include "kiln/Import/LoadGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>

using namespace kiln;
using namespace kiln::bench;

namespace {

using Clock = std::chrono::steady_clock;

/// `scatter_add_bfloat16_1_125_bfloat16_1` -> `scatter_add`;
/// `interpret/while.mlir` -> `interpret/while`.
std::string familyOf(llvm::StringRef relative) {
  llvm::StringRef directory = llvm::sys::path::parent_path(relative);
  llvm::StringRef stem = llvm::sys::path::stem(relative);
  static const char *kTypeWords[] = {
      "float", "bfloat", "int", "uint", "bool", "complex", "i1", "f8", "ui",
      "si", "chlo", "shape", "dtypes", "f16", "f32", "f64", "bf16"};
  llvm::SmallVector<llvm::StringRef> words;
  stem.split(words, '_');
  std::string family;
  if (directory != "interpret") {
    for (llvm::StringRef word : words) {
      if (word.empty() || llvm::isDigit(word.front()))
        break;
      bool typeWord = false;
      for (const char *prefix : kTypeWords)
        if (word.starts_with(prefix) &&
            (word.size() == strlen(prefix) ||
             llvm::isDigit(word[strlen(prefix)])))
          typeWord = true;
      if (typeWord)
        break;
      family += (family.empty() ? "" : "_") + word.str();
    }
  }
  if (family.empty())
    family = stem.str();
  return directory.empty() ? family : (directory + "/" + family).str();
}

struct FileResult {
  std::string relative;
  bool ok = false;
  std::string firstError;
  uint64_t bytes = 0;
  double seconds = 0;
};

/// Imports one file (each of its `// -----` modules).
FileResult importFile(const std::string &path, const std::string &relative,
                      mlir::MLIRContext &context) {
  FileResult result;
  result.relative = relative;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    result.firstError = path + ": " + buffer.getError().message();
    return result;
  }
  llvm::StringRef text = (*buffer)->getBuffer();
  result.bytes = text.size();
  llvm::SmallVector<llvm::StringRef> pieces;
  text.split(pieces, "\n// -----");
  result.ok = true;
  auto start = Clock::now();
  for (llvm::StringRef piece : pieces) {
    std::string diagnostics;
    llvm::raw_string_ostream os(diagnostics);
    // Each piece keeps its lines' numbers: the ones before it become
    // blank lines.
    std::string padded(std::count(text.begin(), piece.begin(), '\n'), '\n');
    padded += piece.str();
    mlir::OwningOpRef<mlir::ModuleOp> module = loadGraphBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(padded, path), &context, os);
    if (!module && result.ok) {
      result.ok = false;
      result.firstError = llvm::StringRef(diagnostics).split('\n').first.str();
      if (result.firstError.empty())
        result.firstError = "(no diagnostic)";
    }
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

} // namespace

int kiln::bench::runStableHloBench(const StableHloBenchOptions &options,
                                   llvm::raw_ostream &os) {
  if (!llvm::sys::fs::is_directory(options.directory)) {
    llvm::errs() << "kiln-bench stablehlo: error: " << options.directory
                 << " is not a directory (the golden tests are in "
                    "../shared/stablehlo-testdata)\n";
    return 2;
  }
  std::vector<std::pair<std::string, std::string>> files; // path, relative
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(options.directory,
                                                      error),
       end;
       !error && it != end; it.increment(error)) {
    llvm::StringRef path = it->path();
    if (!path.ends_with(".mlir"))
      continue;
    llvm::StringRef relative = path.drop_front(options.directory.size());
    relative = relative.ltrim('/');
    files.push_back({path.str(), relative.str()});
  }
  llvm::sort(files);

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  std::map<std::string, std::pair<unsigned, unsigned>> families; // ok, all
  std::vector<FileResult> failures;
  unsigned imported = 0, countedOk = 0, counted = 0;
  uint64_t importedBytes = 0;
  double importedSeconds = 0;
  for (const auto &[path, relative] : files) {
    FileResult result = importFile(path, relative, context);
    auto &[ok, all] = families[familyOf(relative)];
    ++all;
    bool isDynamic = llvm::StringRef(relative).starts_with("dynamic/");
    if (!isDynamic) {
      ++counted;
      countedOk += result.ok;
    }
    if (result.ok) {
      ++ok;
      ++imported;
      importedBytes += result.bytes;
      importedSeconds += result.seconds;
    } else {
      failures.push_back(std::move(result));
    }
  }

  os << llvm::formatv("StableHLO golden tests in {0}: {1} files\n",
                      options.directory, files.size());
  os << llvm::format("  %-40s %8s %8s\n", "family", "imported", "files");
  for (const auto &[family, counts] : families)
    if (options.allFamilies || counts.first != counts.second)
      os << llvm::format("  %-40s %8u %8u\n", family.c_str(), counts.first,
                         counts.second);
  if (!options.allFamilies)
    os << "  (families where every file imported are left out; "
          "--all-families lists them)\n";
  double percent = counted ? 100.0 * countedOk / counted : 0;
  os << llvm::formatv("imported: {0} of {1} files; outside dynamic/: {2} of "
                      "{3} ({4:f1}%)\n",
                      imported, files.size(), countedOk, counted, percent);
  if (!failures.empty()) {
    os << "files that did not import, with their first error:\n";
    for (const FileResult &failure : failures)
      os << "  " << failure.relative << ": " << failure.firstError << "\n";
  }

  // Speed against HLO text, in this run.
  if (importedSeconds > 0) {
    os << llvm::formatv("StableHLO import: {0:f2} MB in {1:f1} ms, {2:f1} "
                        "MB/s (the imported files, one thread)\n",
                        importedBytes / 1e6, importedSeconds * 1e3,
                        importedBytes / 1e6 / importedSeconds);
    std::vector<BenchFile> hloFiles;
    for (const std::string &path : options.hloCorpus)
      collectFiles(path, hloFiles);
    uint64_t hloBytes = 0;
    double hloSeconds = 0;
    for (const BenchFile &file : hloFiles) {
      auto start = Clock::now();
      std::string diagnostics;
      llvm::raw_string_ostream diagnosticStream(diagnostics);
      uint64_t bytes = 0;
      mlir::OwningOpRef<mlir::ModuleOp> module =
          loadGraph(file.path, &context, diagnosticStream, &bytes);
      if (!module)
        continue;
      hloSeconds += std::chrono::duration<double>(Clock::now() - start).count();
      hloBytes += bytes;
    }
    if (hloSeconds > 0)
      os << llvm::formatv("HLO text import, same run: {0:f2} MB in {1:f1} "
                          "ms, {2:f1} MB/s; StableHLO/HLO speed: {3:f2}\n",
                          hloBytes / 1e6, hloSeconds * 1e3,
                          hloBytes / 1e6 / hloSeconds,
                          (importedBytes / importedSeconds) /
                              (hloBytes / hloSeconds));
  }
  if (options.requirePercent > 0 && percent < options.requirePercent) {
    os << llvm::formatv("below the required {0:f1}%\n", options.requirePercent);
    return 1;
  }
  return 0;
}
