//===- HashCommand.cpp - kiln hash ------------------------------*- C++ -*-===//
//
// This file implements `kiln hash`: it imports graphs in parallel (each
// worker thread with its own MLIRContext), computes each signature and key,
// and prints them in input order.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "kiln/Cache/Key.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/Signature/Signature.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>

using namespace mlir;

namespace {
struct HashResult {
  bool ok = false;
  std::string diagnostics;
  kiln::KeyParts parts;
  unsigned elidedConstants = 0;
};
} // namespace

bool kiln::parseCompileOptions(const std::vector<std::string> &given,
                               std::string &canonical) {
  CompileOptions options;
  for (const std::string &option : given) {
    size_t equal = option.find('=');
    if (equal == std::string::npos || equal == 0) {
      llvm::errs() << "kiln: error: --option takes K=V, got '" << option
                   << "'\n";
      return false;
    }
    options[option.substr(0, equal)] = option.substr(equal + 1);
  }
  std::string error;
  FailureOr<std::string> result = canonicalizeOptions(options, error);
  if (failed(result)) {
    llvm::errs() << "kiln: error: " << error << "\n";
    return false;
  }
  canonical = *result;
  return true;
}

int kiln::runHash(const HashOptions &options) {
  std::string canonicalOptions;
  if (!parseCompileOptions(options.options, canonicalOptions))
    return ExitInputError;

  size_t count = options.inputs.size();
  std::vector<HashResult> results(count);
  unsigned jobs = options.jobs ? options.jobs
                               : llvm::hardware_concurrency().compute_thread_count();
  jobs = std::max(1u, std::min<unsigned>(jobs, count));

  // Each worker takes the next file; one context per worker keeps imports
  // independent and avoids locking inside MLIR's uniquers.
  std::atomic<size_t> next{0};
  auto work = [&]() {
    MLIRContext context(MLIRContext::Threading::DISABLED);
    for (size_t i = next++; i < count; i = next++) {
      HashResult &result = results[i];
      llvm::raw_string_ostream diagnostics(result.diagnostics);
      OwningOpRef<ModuleOp> module =
          loadGraph(options.inputs[i], &context, diagnostics);
      if (!module)
        continue;
      FailureOr<GraphSignature> signature = computeSignature(*module);
      if (failed(signature))
        continue;
      result.parts = makeKeyParts(signature->signature, canonicalOptions,
                                  options.targetTriple, options.cpu);
      result.elidedConstants = signature->elidedConstants;
      result.ok = true;
    }
  };
  if (jobs == 1) {
    work();
  } else {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(jobs));
    for (unsigned j = 0; j < jobs; ++j)
      pool.async(work);
    pool.wait();
  }

  unsigned failures = 0;
  llvm::json::Array graphs;
  for (size_t i = 0; i < count; ++i) {
    const HashResult &result = results[i];
    llvm::errs() << result.diagnostics;
    if (!result.ok) {
      ++failures;
      if (options.json)
        graphs.push_back(llvm::json::Object{{"path", options.inputs[i]},
                                            {"ok", false}});
      continue;
    }
    if (result.elidedConstants)
      llvm::errs() << options.inputs[i] << ": warning: "
                   << result.elidedConstants
                   << " constants are elided ({...}) in this dump; the key "
                      "cannot tell apart graphs that differ only in those "
                      "values, and the graph cannot be compiled\n";
    if (options.json) {
      llvm::json::Object entry = result.parts.toJson();
      entry["path"] = options.inputs[i];
      entry["ok"] = true;
      entry["elided_constants"] = (int64_t)result.elidedConstants;
      graphs.push_back(std::move(entry));
      continue;
    }
    llvm::outs() << result.parts.signature.toHex() << "  "
                 << result.parts.key().toHex() << "  " << options.inputs[i]
                 << "\n";
  }
  if (options.json)
    llvm::outs() << llvm::formatv(
                        "{0:2}",
                        llvm::json::Value(llvm::json::Object{
                            {"graphs", std::move(graphs)},
                            {"failed", (int64_t)failures}}))
                 << "\n";
  return failures ? ExitInputError : ExitSuccess;
}
