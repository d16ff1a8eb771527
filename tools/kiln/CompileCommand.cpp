//===- CompileCommand.cpp - kiln compile ------------------------*- C++ -*-===//
//
// This file implements `kiln compile FILE`: the graph is keyed (its
// signature, the target, the compile options), compiled by the CPU backend
// in this process, and written as an artifact (`-o`), as text of one of its
// stages (`--emit mlir|llvm|asm`), or stored in a cache under its key
// (`--cache-dir`).
//
//===----------------------------------------------------------------------===//

#include "CacheAccess.h"
#include "Commands.h"
#include "DumpDiagnostics.h"

#include "kiln/Cache/Cache.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/InitAllDialects.h"
#include "kiln/Signature/Signature.h"
#include "kiln/Target/CPU/CpuCompiler.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;

void kiln::registerCompilerDialects(MLIRContext &context) {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerCpuCompilerDialects(registry);
  context.appendDialectRegistry(registry);
}

FailureOr<kiln::CompiledGraph>
kiln::compileLoadedGraph(ModuleOp module, const KeyOptions &keys,
                         llvm::StringRef canonical, EmitKind emit, bool timing,
                         unsigned threads) {
  CpuCompileOptions options =
      getCpuCompileOptions(canonical, getKeyTarget(keys));
  options.timing = timing;
  options.threads = threads;
  return compileForCpu(module, options, emit);
}

/// The cache that `kiln compile --cache-dir` stores into, with the remote
/// tiers behind it.
static llvm::Expected<std::unique_ptr<kiln::TieredCache>>
openCompileCache(const kiln::CompileCommandOptions &options) {
  using namespace kiln;
  llvm::Expected<std::string> directory =
      resolveCacheDirectory(options.cacheDir);
  if (!directory)
    return directory.takeError();
  llvm::Expected<Settings> settings =
      loadCommandSettings(*directory, {options.cacheDir, options.remotes, options.signatures});
  if (!settings)
    return settings.takeError();
  return openTieredCache(*directory, *settings, Cache::OpenOptions(),
                         "kiln compile");
}

/// Writes `bytes` to -o's `path` (atomically, as openOutputFile does);
/// false, having said why, when it cannot.
static bool writeOutputFile(llvm::StringRef path, llvm::StringRef bytes) {
  std::string error;
  auto file = mlir::openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "kiln compile: error: " << error << "\n";
    return false;
  }
  file->os() << bytes;
  file->keep();
  return true;
}

int kiln::runCompile(const CompileCommandOptions &givenOptions) {
  CompileCommandOptions options = givenOptions;
  // A precompile worker (--expect-key) is given every key part; others
  // take what the settings say, as the cache's other commands do.
  if (options.expectKey.empty()) {
    llvm::Expected<std::string> directory =
        resolveCacheDirectory(options.cacheDir);
    if (!directory) {
      llvm::errs() << "kiln compile: error: "
                   << llvm::toString(directory.takeError()) << "\n";
      return ExitInputError;
    }
    llvm::Expected<Settings> settings =
        loadCommandSettings(*directory, {options.cacheDir, options.remotes, options.signatures});
    if (!settings) {
      llvm::errs() << "kiln compile: error: "
                   << llvm::toString(settings.takeError()) << "\n";
      return ExitInputError;
    }
    applyKeySettings(*settings, options.keys);
  }
  std::string canonical;
  if (!canonicalizeKeyOptions(options.keys, canonical))
    return ExitInputError;
  std::optional<EmitKind> emit =
      llvm::StringSwitch<std::optional<EmitKind>>(options.emit)
          .Case("obj", EmitKind::Artifact)
          .Case("frontend", EmitKind::Frontend)
          .Case("mlir", EmitKind::Mlir)
          .Case("llvm", EmitKind::Llvm)
          .Case("asm", EmitKind::Assembly)
          .Default(std::nullopt);
  if (!emit) {
    llvm::errs() << "kiln compile: error: --emit takes obj, frontend, mlir, "
                    "llvm or asm, not '"
                 << options.emit << "'\n";
    return ExitInputError;
  }
  if (options.output.empty() && options.cacheDir.empty()) {
    llvm::errs() << "kiln compile: error: say where the artifact goes: -o "
                    "FILE, or --cache-dir DIR\n";
    return ExitInputError;
  }
  if (!options.cacheDir.empty() && *emit != EmitKind::Artifact) {
    llvm::errs() << "kiln compile: error: --cache-dir stores artifacts; "
                    "--emit "
                 << options.emit << " writes text\n";
    return ExitInputError;
  }

  MLIRContext context(MLIRContext::Threading::DISABLED);
  registerCompilerDialects(context);
  auto start = std::chrono::steady_clock::now();
  std::string text;
  OwningOpRef<ModuleOp> module;
  {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> buffer =
        openInputFile(options.input, &error);
    if (!buffer) {
      llvm::errs() << options.input << ": error: " << error << "\n";
      return ExitInputError;
    }
    text = buffer->getBuffer().str();
    module = loadGraphBuffer(std::move(buffer), &context, llvm::errs());
  }
  if (!module)
    return ExitInputError;
  DumpDiagnosticHandler diagnostics(&context, options.input);
  // The key, from the graph as imported: compiling lowers it in place.
  FailureOr<GraphSignature> signature = computeSignature(*module);
  if (failed(signature))
    return ExitInputError;
  KeyParts parts = makeKeyParts(signature->signature, canonical,
                                getKeyTarget(options.keys));
  if (!options.expectKey.empty() && parts.key().toHex() != options.expectKey) {
    llvm::errs() << options.input << ": error: the graph's key is "
                 << parts.key().toHex() << ", not " << options.expectKey
                 << " as expected (did the file change since it was "
                    "keyed?)\n";
    return ExitSomeFailed;
  }
  // The cache, opened once: looked up first, then written (the artifact,
  // or the failure with its log).
  std::unique_ptr<TieredCache> cache;
  if (!options.cacheDir.empty()) {
    auto opened = openCompileCache(options);
    if (!opened) {
      llvm::errs() << "kiln compile: error: "
                   << llvm::toString(opened.takeError()) << "\n";
      return ExitInputError;
    }
    cache = std::move(*opened);
  }
  // A graph the cache holds already is not compiled again: its artifact
  // (verified, from the local tier or read through) is what -o gets.
  if (cache && options.expectKey.empty()) {
    std::string key = parts.key().toHex();
    llvm::Expected<LookupResult> found = cache->lookup(key, /*verify=*/true);
    if (!found) {
      llvm::errs() << "kiln compile: error: "
                   << llvm::toString(found.takeError()) << "\n";
      return ExitSomeFailed;
    }
    if (found->status == LookupStatus::Hit && found->verified) {
      if (!options.output.empty() &&
          !writeOutputFile(options.output, found->verified->bytes))
        return ExitInputError;
      llvm::outs() << "cached " << key << " in " << cache->getDirectory()
                   << " (a hit: not compiled again)\n";
      return ExitSuccess;
    }
  }
  FailureOr<CompiledGraph> compiled = compileLoadedGraph(
      *module, options.keys, canonical, *emit, options.timing,
      options.threads);
  if (failed(compiled)) {
    llvm::errs() << options.input << ": error: the graph was not compiled\n";
    // A cache records the failure with its log: kiln cache check says why,
    // and the graph is not compiled again unless asked.
    if (cache) {
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      std::string graphName = module->getSymName().value_or("").str();
      if (llvm::Error error = cache->recordFailure(
              parts, diagnostics.getText(), seconds, options.input,
              signature->sketch, EntryGraph{graphName, text}))
        llvm::errs() << "kiln compile: error: " << llvm::toString(std::move(error))
                     << "\n";
      else
        llvm::outs() << "recorded the failure of " << parts.key().toHex()
                     << " in " << cache->getDirectory() << "\n";
    }
    return ExitSomeFailed;
  }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  std::string output = compiled->output;
  if (*emit == EmitKind::Artifact) {
    compiled->manifest.keyParts = parts.toJson();
    compiled->manifest.options = canonical;
    output = writeArtifact(compiled->manifest, compiled->objects);
  }
  if (!options.output.empty() && !writeOutputFile(options.output, output))
    return ExitInputError;
  if (cache) {
    std::string graphName = module->getSymName().value_or("").str();
    auto stored = cache->publishArtifact(
        parts, output, seconds, options.input, signature->sketch,
        /*replace=*/false, EntryGraph{graphName, text});
    if (!stored) {
      llvm::errs() << "kiln compile: error: "
                   << llvm::toString(stored.takeError()) << "\n";
      return ExitSomeFailed;
    }
    llvm::outs() << llvm::formatv(
        "{0} {1} in {2}\n",
        *stored == PublishOutcome::Conflict ? "kept the entry already under"
                                            : "stored",
        parts.key().toHex(), cache->getDirectory());
  }
  const CompileTimes &times = compiled->times;
  if (options.timing || *emit == EmitKind::Artifact)
    llvm::errs() << llvm::formatv(
        "compiled {0} in {1:F3} s (front end {2:F3}, lowering {3:F3}, LLVM "
        "IR {4:F3}, LLVM optimization {5:F3}, code generation {6:F3}{8}), {7} "
        "bytes, {9} loop nest{11} ({10} compiled once for an equal one)\n",
        options.input, seconds, times.frontend, times.lowering,
        times.llvmTranslation, times.llvmOptimization, times.codeGeneration,
        output.size(),
        times.threads > 1
            ? llvm::formatv("; on {0} threads, summed", times.threads).str()
            : std::string(),
        times.kernels, times.sharedKernels, times.kernels == 1 ? "" : "s");
  return ExitSuccess;
}
