//===- CachedExecutable.cpp - a graph's code, from the cache or compiled -===//

#include "kiln/Driver/CachedExecutable.h"

#include "kiln/Target/CPU/CpuCompiler.h"

#include "llvm/Support/FormatVariadic.h"

#include <chrono>

using namespace kiln;

mlir::FailureOr<KeyedGraph> kiln::keyGraph(mlir::ModuleOp module,
                                           const std::string &canonical,
                                           const TargetSpec &target) {
  mlir::FailureOr<GraphSignature> signature = computeSignature(module);
  if (mlir::failed(signature))
    return mlir::failure();
  KeyedGraph keyed;
  keyed.parts = makeKeyParts(signature->signature, canonical, target);
  keyed.signature = std::move(*signature);
  return keyed;
}

llvm::Expected<CachedExecutable>
kiln::loadThroughCache(TieredCache &cache, mlir::ModuleOp module,
                       const std::string &canonical, const TargetSpec &target,
                       llvm::StringRef source, llvm::StringRef text) {
  CachedExecutable loaded;
  // The key first: compiling lowers the module in place.
  mlir::FailureOr<KeyedGraph> keyed = keyGraph(module, canonical, target);
  if (mlir::failed(keyed))
    return llvm::createStringError(source.str() +
                                   ": error: the graph cannot be keyed");
  const GraphSignature *signature = &keyed->signature;
  loaded.parts = keyed->parts;
  loaded.key = loaded.parts.key().toHex();
  loaded.signature = signature->signature.toHex();
  llvm::Expected<TieredLookup> found =
      cache.lookupTiers(loaded.key, /*verify=*/true);
  if (!found)
    return found.takeError();
  const LookupResult &result = found->result;
  std::string why = "a miss";
  if (result.status == LookupStatus::Hit && result.verified) {
    llvm::Expected<std::unique_ptr<Executable>> executable =
        Executable::load(result.verified->bytes);
    if (executable) {
      loaded.executable = std::move(*executable);
      loaded.fromCache = true;
      loaded.tier = found->tier;
      loaded.description =
          std::string("a hit in the ") +
          (found->tier == "local"
               ? "local tier " + std::string(cache.getDirectory())
               : "remote tier " + found->tier) +
          (found->fetched ? " (copied to the local tier)" : "") +
          "; loaded, not compiled";
      return std::move(loaded);
    }
    // An entry this machine cannot run (its CPU features): compiled here,
    // and not stored over the entry that others run.
    why = "cached, but it cannot run here (" +
          llvm::toString(executable.takeError()) + ")";
  } else if (result.status == LookupStatus::Failed) {
    why = "a recorded failure (compiled again here)";
  } else if (result.status == LookupStatus::Untrusted ||
             result.status == LookupStatus::Corrupt) {
    why = std::string(result.status == LookupStatus::Untrusted
                          ? "a miss: untrusted ("
                          : "a miss: corrupt (") +
          result.problem + ")";
  }
  auto start = std::chrono::steady_clock::now();
  std::string graphName = module.getSymName().value_or("").str();
  mlir::FailureOr<CompiledGraph> compiled = compileForCpu(
      module, getCpuCompileOptions(canonical, target), EmitKind::Artifact);
  if (mlir::failed(compiled))
    return llvm::createStringError(source.str() +
                                   ": error: the graph was not compiled");
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  compiled->manifest.keyParts = loaded.parts.toJson();
  compiled->manifest.options = canonical;
  std::string artifact = writeArtifact(compiled->manifest, compiled->objects);
  bool stored = false;
  if (result.status != LookupStatus::Hit) {
    llvm::Expected<PublishOutcome> published = cache.publishArtifact(
        loaded.parts, artifact, seconds, source, signature->sketch,
        /*replace=*/result.status == LookupStatus::Failed,
        EntryGraph{graphName, text});
    if (!published)
      loaded.warning = loaded.key + ": the artifact could not be stored: " +
                       llvm::toString(published.takeError());
    else
      stored = *published != PublishOutcome::Conflict;
  }
  loaded.description =
      llvm::formatv("{0}; compiled in {1:F1} s{2}", why, seconds,
                    stored ? " and stored in " + std::string(cache.getDirectory())
                           : std::string())
          .str();
  llvm::Expected<std::unique_ptr<Executable>> executable =
      Executable::load(artifact);
  if (!executable)
    return executable.takeError();
  loaded.executable = std::move(*executable);
  return std::move(loaded);
}
