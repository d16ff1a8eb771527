//===- Target.h - the target an artifact is built for -----------*- C++ -*-===//
//
// This file declares how kiln names the target of an artifact in its key: a
// target triple in a short canonical form and a CPU level, never the
// compiling host's feature list, so that a cache filled on one machine hits
// on every machine that can run the same code.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CACHE_TARGET_H
#define KILN_CACHE_TARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace kiln {

/// The target of an artifact, as keys carry it.
struct TargetSpec {
  /// `arch-unknown-os[-env]`: normalized, vendor left out (an x86_64 Linux
  /// machine is the same target whether it calls itself pc or unknown).
  std::string triple;
  /// A CPU name that LLVM knows for the triple's architecture; by default
  /// the architecture's portable level (cache/FORMAT.md, Targets).
  std::string cpu;
};

/// Resolves `triple` (empty: this machine's architecture and OS) and `cpu`
/// (empty: the portable default for the architecture; "native": this
/// machine's CPU, by name). An unknown architecture or a CPU that LLVM does
/// not know for it is an error listing the valid choices.
llvm::Expected<TargetSpec> resolveTarget(llvm::StringRef triple,
                                         llvm::StringRef cpu);

/// The CPU level kiln builds for by default on an architecture.
std::string getDefaultCpu(llvm::StringRef arch);

} // namespace kiln

#endif // KILN_CACHE_TARGET_H
