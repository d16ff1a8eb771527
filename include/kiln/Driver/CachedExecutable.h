//===- CachedExecutable.h - a graph's code, from the cache or compiled -*- C++ -*-===//
//
// This file declares the real run's side of precompile: a graph's
// executable loaded from the cache on a hit (verified; where keys are
// trusted, signed by one), else compiled, stored in the local tier and the
// writable remotes, and loaded, as JAX's persistent cache does for a
// training process. `kiln run --cache-dir` and the C API share it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DRIVER_CACHEDEXECUTABLE_H
#define KILN_DRIVER_CACHEDEXECUTABLE_H

#include "kiln/Cache/Key.h"
#include "kiln/Cache/TieredCache.h"
#include "kiln/Runtime/Executable.h"
#include "kiln/Signature/Signature.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace kiln {

/// A graph's key and signature.
struct KeyedGraph {
  KeyParts parts;
  GraphSignature signature;
};

/// Keys `module` (imported, not yet compiled: compiling lowers it in place)
/// under `canonical` options for `target`, as precompile keys it; failure,
/// diagnosed at the module, where it cannot be keyed.
mlir::FailureOr<KeyedGraph> keyGraph(mlir::ModuleOp module,
                                     const std::string &canonical,
                                     const TargetSpec &target);

/// What loadThroughCache did.
struct CachedExecutable {
  std::unique_ptr<Executable> executable;
  KeyParts parts;
  std::string key;
  std::string signature; ///< the graph's structural signature, hex
  bool fromCache = false;
  /// Where the hit was: "local", or a remote's name.
  std::string tier;
  /// What happened, for a line of output: "a hit in the local tier DIR;
  /// loaded, not compiled", "a miss; compiled in 1.2 s and stored in DIR".
  std::string description;
  /// A store that failed (the artifact still runs), else empty.
  std::string warning;
};

/// Keys `module` (imported, not yet compiled) under `canonical` options
/// for `target`, and loads its executable through `cache`. `source` and
/// `text` (the file and its bytes) go into a stored entry. `module` is
/// lowered in place when it is compiled.
llvm::Expected<CachedExecutable>
loadThroughCache(TieredCache &cache, mlir::ModuleOp module,
                 const std::string &canonical, const TargetSpec &target,
                 llvm::StringRef source, llvm::StringRef text);

} // namespace kiln

#endif // KILN_DRIVER_CACHEDEXECUTABLE_H
