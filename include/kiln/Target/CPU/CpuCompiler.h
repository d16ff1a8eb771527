//===- CpuCompiler.h - compiling a kiln module to native code ---*- C++ -*-===//
//
// This file declares the CPU backend: a kiln module goes through the
// front end (kiln-frontend), convert-kiln-to-linalg, bufferization, the
// lowering to loops and to the LLVM dialect, LLVM's optimizer, and LLVM's
// code generator for the key's target, in this process; the result is an
// artifact (Runtime/Artifact.h) whose object code the runtime links and
// calls.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_CPU_CPUCOMPILER_H
#define KILN_TARGET_CPU_CPUCOMPILER_H

#include "kiln/Cache/Target.h"
#include "kiln/Runtime/Artifact.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <string>
#include <vector>

namespace kiln {

/// What `kiln compile --emit` writes: the kiln module after the front end
/// (what kiln-frontend made of it), the lowered MLIR (LLVM dialect), LLVM
/// IR, assembly, or the artifact (object code and manifest).
enum class EmitKind { Frontend, Mlir, Llvm, Assembly, Artifact };

/// Ops (nested ones included) per segment of a large graph, by default
/// (CpuCompileOptions::segmentOps).
constexpr size_t kDefaultSegmentOps = 768;

struct CpuCompileOptions {
  /// The target (a canonical triple and CPU level, Target.h).
  TargetSpec target;
  /// LLVM's optimization level, 0 to 3 (the `opt-level` compile option).
  unsigned optLevel = 2;
  /// The front end's choices (compile options, part of the key).
  bool foldCausalMask = true;
  bool foldConstants = true;
  /// Print MLIR's pass timing report to stderr.
  bool timing = false;
  /// Ops (nested ones included) above which a graph is compiled in
  /// segments of about this many (GraphSegmentation.h); not part of the
  /// key, since the code computes the same either way. The environment
  /// variable KILN_SEGMENT_OPS sets it, for tests and measurements.
  size_t segmentOps = kDefaultSegmentOps;
  /// Whether equal loop nests are compiled once (KernelSharing.h); not part
  /// of the key either. KILN_SHARE_KERNELS=0 turns it off, so that a
  /// benchmark measures what it saves.
  bool shareKernels = true;
  /// Threads that compile a segmented graph's segments side by side (0:
  /// one per core); not part of the key: the code is the same bit for bit
  /// for any number.
  unsigned threads = 1;
};

/// The compile options of `canonical` (canonicalizeOptions' `name=value`
/// lines: opt-level, fold-causal-mask, fold-constants; an external
/// compiler's options are not the CPU backend's) for `target`.
CpuCompileOptions getCpuCompileOptions(llvm::StringRef canonical,
                                       const TargetSpec &target);

/// Time spent in each stage of one compilation, in seconds: with several
/// threads, each stage's time summed over them.
struct CompileTimes {
  double frontend = 0, lowering = 0, llvmTranslation = 0, llvmOptimization = 0,
         codeGeneration = 0;
  /// The threads that compiled the segments.
  unsigned threads = 1;
  /// Loop nests outlined into kernels, and those of them that call an
  /// equal kernel compiled once (KernelSharing.h) rather than their own.
  unsigned kernels = 0, sharedKernels = 0;
};

struct CompiledGraph {
  ArtifactManifest manifest;
  /// For EmitKind::Artifact, the relocatable objects: the entry's first,
  /// then, for a graph compiled in segments, one per segment (the loader
  /// links them; writeArtifact keeps them in this order).
  std::vector<std::string> objects;
  /// For another EmitKind, the text asked for.
  std::string output;
  CompileTimes times;
};

/// How many participants the compiled entry of `module` runs on: a
/// StableHLO test harness (run_parallel) asks for its grid's; 1 otherwise.
int64_t getRunParallelParticipants(mlir::ModuleOp module);

/// Compiles `module` (in place: it is lowered) for `options.target`. Errors
/// are reported through the module's context at the ops concerned (an op
/// the backend does not compile is named, at its place in the dump) and
/// give failure.
mlir::FailureOr<CompiledGraph>
compileForCpu(mlir::ModuleOp module, const CpuCompileOptions &options,
              EmitKind emit = EmitKind::Artifact);

/// The CPU features that code built for `target` may use (LLVM's names);
/// empty when LLVM does not know the target.
std::vector<std::string> getTargetCpuFeatures(const TargetSpec &target);

/// Registers, in `registry`, every dialect and interface that compilation
/// needs; a context must have them before compileForCpu is called on one of
/// its modules.
void registerCpuCompilerDialects(mlir::DialectRegistry &registry);

} // namespace kiln

#endif // KILN_TARGET_CPU_CPUCOMPILER_H
