//===- GraphKeys.cpp - import and key many graphs in parallel ---*- C++ -*-===//
//
// This file implements parallel keying: each worker thread owns an
// MLIRContext and takes the next graph from a shared counter, so that a few
// big graphs and many small ones balance across cores.
//
//===----------------------------------------------------------------------===//

#include "GraphKeys.h"
#include "DumpDiagnostics.h"
#include "kiln/Support/PrintableText.h"

#include "kiln/Cache/Cache.h"
#include "kiln/Driver/ChildProcess.h"
#include "kiln/Driver/TrainingCommand.h"

#include "llvm/ADT/StringExtras.h"
#include "kiln/Export/Hlo/HloExporter.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/Signature/Signature.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>

using namespace mlir;

bool kiln::canonicalizeKeyOptions(const KeyOptions &options,
                                  std::string &canonical) {
  CompileOptions parsed;
  if (llvm::Error error =
          addOptionTexts(options.options, "", "--option", parsed)) {
    llvm::errs() << "kiln: error: " << llvm::toString(std::move(error)) << "\n";
    return false;
  }
  if (llvm::Error error =
          addOptionTexts(options.compilerOptions, kExternalOptionPrefix,
                         "--compiler-option", parsed)) {
    llvm::errs() << "kiln: error: " << llvm::toString(std::move(error)) << "\n";
    return false;
  }
  if (options.noFoldCausalMask) {
    auto given = parsed.find("fold-causal-mask");
    if (given != parsed.end() &&
        llvm::StringRef(given->second).lower() != "false" &&
        given->second != "0") {
      llvm::errs() << "kiln: error: --no-fold-causal-mask contradicts "
                      "--option fold-causal-mask="
                   << given->second << "\n";
      return false;
    }
    parsed["fold-causal-mask"] = "false";
  }
  std::string error;
  FailureOr<std::string> result = canonicalizeOptions(parsed, error);
  if (failed(result)) {
    llvm::errs() << "kiln: error: " << error << "\n";
    return false;
  }
  canonical = *result;
  // The target is checked with the options, before any graph is keyed.
  llvm::Expected<TargetSpec> target =
      resolveTarget(options.targetTriple, options.cpu);
  if (!target) {
    llvm::errs() << "kiln: error: " << llvm::toString(target.takeError())
                 << "\n";
    return false;
  }
  return true;
}

kiln::TargetSpec kiln::getKeyTarget(const KeyOptions &options) {
  // Checked by canonicalizeKeyOptions, which every command runs first.
  return llvm::cantFail(resolveTarget(options.targetTriple, options.cpu));
}

bool kiln::resolveCompilerIdentity(KeyOptions &options) {
  if (options.compilerVersionCommand.empty())
    return true;
  llvm::SmallString<64> output;
  if (std::error_code error = llvm::sys::fs::createTemporaryFile(
          "kiln-compiler-version", "txt", output)) {
    llvm::errs() << "kiln: error: cannot run --compiler-version-cmd: "
                 << error.message() << "\n";
    return false;
  }
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", options.compilerVersionCommand};
  spec.logPath = output.str().str();
  spec.ownProcessGroup = false;
  llvm::Expected<ChildProcess> child = ChildProcess::spawn(spec);
  std::string version;
  std::optional<ChildExit> exit;
  if (child) {
    exit = child->wait();
    if (auto text = llvm::MemoryBuffer::getFile(output))
      version = (*text)->getBuffer().trim().str();
  } else {
    version = llvm::toString(child.takeError());
  }
  llvm::sys::fs::remove(output);
  if (!exit || !exit->succeeded() || version.empty()) {
    llvm::errs() << "kiln: error: --compiler-version-cmd '"
                 << options.compilerVersionCommand << "' "
                 << (!exit                ? "could not be run"
                     : !exit->succeeded() ? exit->describe()
                                          : "printed nothing")
                 << (version.empty() ? "" : ": " + version) << "\n";
    return false;
  }
  options.compilerIdentity = "external compiler: " + version;
  return true;
}

kiln::KeyParts kiln::makeGraphKeyParts(const Hash128 &signature,
                                       const KeyOptions &options,
                                       const std::string &canonicalOptions) {
  KeyParts parts =
      makeKeyParts(signature, canonicalOptions, getKeyTarget(options));
  if (!options.compilerIdentity.empty())
    parts.compiler = options.compilerIdentity;
  return parts;
}

/// Whether a file found in a directory is a graph: `*.hlo` and `*.mlir`
/// are; a `*.txt` (a name other files share: notes, requirements) is if
/// XLA named it a dump or it starts as HLO text does.
static bool looksLikeGraph(llvm::StringRef path) {
  if (!path.ends_with(".txt") || path.ends_with(".before_optimizations.txt"))
    return true;
  auto buffer = llvm::MemoryBuffer::getFileSlice(path, 4096, 0);
  if (!buffer)
    return true; // unreadable: reported when it is imported
  llvm::StringRef text = (*buffer)->getBuffer();
  // Leading blank lines and comments, then the module header.
  while (true) {
    text = text.ltrim();
    if (text.starts_with("//")) {
      text = text.drop_until([](char c) { return c == '\n'; });
      continue;
    }
    if (text.starts_with("/*")) {
      size_t end = text.find("*/");
      text = end == llvm::StringRef::npos ? "" : text.drop_front(end + 2);
      continue;
    }
    break;
  }
  return text.starts_with("HloModule");
}

std::vector<std::string>
kiln::expandGraphPaths(const std::vector<std::string> &inputs,
                       llvm::StringRef command, unsigned *emptyDirectories) {
  std::vector<std::string> paths;
  for (const std::string &input : inputs) {
    if (!llvm::sys::fs::is_directory(input)) {
      paths.push_back(input); // a file, or a missing one reported later
      continue;
    }
    // XLA's dumps (`*.before_optimizations.txt`, ...), HLO files and kiln
    // modules, in a stable order.
    std::vector<std::string> found;
    std::error_code error;
    // Links to directories are not followed (a link to a parent would
    // make the walk endless); links to files are graphs like files.
    for (llvm::sys::fs::recursive_directory_iterator
             it(input, error, /*follow_symlinks=*/false),
         end;
         !error && it != end; it.increment(error)) {
      llvm::StringRef path = it->path();
      bool isFile = it->type() == llvm::sys::fs::file_type::regular_file;
      if (it->type() == llvm::sys::fs::file_type::symlink_file)
        isFile = llvm::sys::fs::is_regular_file(path);
      if (isFile && isGraphFileName(path) && looksLikeGraph(path))
        found.push_back(path.str());
    }
    if (found.empty() && emptyDirectories) {
      llvm::errs() << "kiln " << command << ": error: no graphs found in "
                   << escapeControlCharacters(input) << " " << kGraphFileKinds
                   << "\n";
      ++*emptyDirectories;
    }
    llvm::sort(found);
    paths.insert(paths.end(), found.begin(), found.end());
  }
  return paths;
}

/// Runs `worker` on `jobs` threads (0: one per core), no more than there
/// are `items`; each worker takes its items from a counter of its own.
static void runWorkers(unsigned jobs, size_t items,
                       llvm::function_ref<void()> worker) {
  if (jobs == 0)
    jobs = llvm::hardware_concurrency().compute_thread_count();
  jobs = std::max(1u, std::min<unsigned>(jobs, items));
  if (jobs == 1) {
    worker();
    return;
  }
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(jobs));
  for (unsigned j = 0; j < jobs; ++j)
    pool.async([worker] { worker(); });
  pool.wait();
}

std::vector<kiln::GraphKey> kiln::computeGraphKeys(
    const std::vector<std::string> &paths, const KeyOptions &options,
    const std::string &canonicalOptions, bool keepText, bool exportHlo) {
  size_t count = paths.size();
  std::vector<GraphKey> keys(count);
  if (count == 0)
    return keys;
  std::atomic<size_t> next{0};
  auto work = [&]() {
    MLIRContext context(MLIRContext::Threading::DISABLED);
    for (size_t i = next++; i < count; i = next++) {
      GraphKey &key = keys[i];
      key.path = paths[i];
      llvm::raw_string_ostream diagnostics(key.diagnostics);
      auto start = std::chrono::steady_clock::now();
      // The bytes that are imported are the bytes that are hashed, so that
      // a memo never pairs a file's content with another's signature.
      std::string errorMessage;
      std::unique_ptr<llvm::MemoryBuffer> buffer =
          openInputFile(paths[i], &errorMessage);
      if (!buffer) {
        diagnostics << paths[i] << ": error: " << errorMessage << "\n";
        continue;
      }
      key.content = Hash128::of(buffer->getBuffer()).toHex();
      if (keepText)
        key.text = buffer->getBuffer().str();
      OwningOpRef<ModuleOp> module =
          loadGraphBuffer(std::move(buffer), &context, diagnostics);
      auto imported = std::chrono::steady_clock::now();
      key.importSeconds =
          std::chrono::duration<double>(imported - start).count();
      if (!module)
        continue;
      // Errors met after the import (a call of a function without a body,
      // a graph with no HLO form) at the op's place in the file, with the
      // file's other messages.
      DumpDiagnosticHandler atOps(&context, paths[i], &diagnostics,
                                  /*quoteOps=*/false);
      FailureOr<GraphSignature> signature = computeSignature(*module);
      key.signatureSeconds = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - imported)
                                 .count();
      if (failed(signature))
        continue;
      key.parts =
          makeGraphKeyParts(signature->signature, options, canonicalOptions);
      if (exportHlo) {
        llvm::raw_string_ostream hlo(key.exportedHlo);
        if (failed(exportHloText(*module, hlo))) {
          diagnostics << paths[i]
                      << ": error: the graph cannot be written as HLO text "
                         "for the external compiler\n";
          continue;
        }
      }
      key.sketch = std::move(signature->sketch);
      key.graphName = module->getSymName().value_or("").str();
      key.elidedConstants = signature->elidedConstants;
      key.ok = true;
    }
  };
  runWorkers(options.jobs, count, work);
  return keys;
}

void kiln::reportGraphProblems(const std::vector<GraphKey> &keys) {
  for (const GraphKey &key : keys) {
    // A file name with a newline or an escape code, and a hostile file's
    // text quoted in a diagnostic, are shown escaped: one name, no codes.
    std::string diagnostics = key.diagnostics;
    std::string shownPath = escapeControlCharacters(key.path);
    if (!key.path.empty() && shownPath != key.path)
      diagnostics = llvm::join(llvm::split(diagnostics, key.path), shownPath);
    llvm::errs() << escapeControlCharactersInLines(diagnostics);
    if (key.ok && key.elidedConstants)
      llvm::errs() << escapeControlCharacters(key.path) << ": warning: "
                   << key.elidedConstants
                   << " constants are elided ({...}) in this dump; the key "
                      "cannot tell apart graphs that differ only in those "
                      "values, and the graph cannot be compiled\n";
  }
}

std::vector<kiln::GraphKey>
kiln::keyGraphsWithMemo(Cache &cache, const std::vector<std::string> &paths,
                        const KeyOptions &options, const std::string &canonical,
                        bool keepText, bool exportHlo, bool memoSketches) {
  // Each file's bytes hashed, on --jobs threads (reading and hashing is
  // all a check of known files does besides one query).
  std::vector<std::string> contents(paths.size());
  std::atomic<size_t> next{0};
  auto hashFiles = [&]() {
    for (size_t i = next++; i < paths.size(); i = next++) {
      auto bytes = llvm::MemoryBuffer::getFile(
          paths[i], /*IsText=*/false, /*RequiresNullTerminator=*/false);
      if (bytes) // an unreadable file is reported by the import below
        contents[i] = Hash128::of((*bytes)->getBuffer()).toHex();
    }
  };
  runWorkers(options.jobs, paths.size(), hashFiles);
  std::map<std::string, SignatureMemo> memos;
  llvm::Expected<std::map<std::string, SignatureMemo>> found =
      cache.findSignatureMemos(contents, memoSketches);
  if (found)
    memos = std::move(*found);
  else // the memo only saves time
    llvm::consumeError(found.takeError());

  std::vector<GraphKey> keys(paths.size());
  std::vector<std::string> toImport;
  std::vector<size_t> importedAt;
  for (size_t i = 0; i < paths.size(); ++i) {
    auto memo = contents[i].empty() ? memos.end() : memos.find(contents[i]);
    if (memo == memos.end()) {
      toImport.push_back(paths[i]);
      importedAt.push_back(i);
      continue;
    }
    GraphKey &key = keys[i];
    key.path = paths[i];
    key.ok = true;
    key.fromMemo = true;
    key.content = contents[i];
    key.parts = makeGraphKeyParts(memo->second.signature, options, canonical);
    key.graphName = memo->second.graphName;
    key.sketch = memo->second.sketch;
    key.sketchDeferred = !memoSketches;
    key.elidedConstants = memo->second.elidedConstants;
  }
  std::vector<GraphKey> imported =
      computeGraphKeys(toImport, options, canonical, keepText, exportHlo);
  std::vector<SignatureMemo> learnt;
  for (size_t j = 0; j < imported.size(); ++j) {
    GraphKey &key = imported[j];
    if (key.ok)
      learnt.push_back({key.content, key.parts.signature, key.graphName,
                        key.elidedConstants, key.sketch});
    keys[importedAt[j]] = std::move(key);
  }
  if (cache.canWrite() && !cache.isReadOnly())
    llvm::consumeError(cache.storeSignatureMemos(learnt));
  return keys;
}

std::vector<uint64_t> kiln::loadMemoSketch(Cache &cache,
                                           const GraphKey &graph) {
  llvm::Expected<std::map<std::string, SignatureMemo>> found =
      cache.findSignatureMemos({graph.content});
  if (!found) { // an explanation without it compares fewer ops
    llvm::consumeError(found.takeError());
    return {};
  }
  auto memo = found->find(graph.content);
  return memo == found->end() ? std::vector<uint64_t>()
                              : std::move(memo->second.sketch);
}
