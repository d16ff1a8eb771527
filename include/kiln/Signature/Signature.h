//===- Signature.h - canonical structural signature of a graph --*- C++ -*-===//
//
// This file declares the structural signature of a kiln module: an XXH3-128
// hash over a deterministic walk that sees everything that changes the
// computation and nothing that does not (see Signature.cpp for the list of
// what is left out and why), and the sketch, one hash per op in walk order,
// that lets a miss be explained op by op.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SIGNATURE_SIGNATURE_H
#define KILN_SIGNATURE_SIGNATURE_H

#include "kiln/Signature/Hash128.h"

#include "mlir/IR/BuiltinOps.h"

#include <vector>

namespace kiln {

/// The signature of a graph with what explains it.
struct GraphSignature {
  Hash128 signature;
  /// One 64-bit hash per op, in walk order: the entry function, then each
  /// called function once, in order of first call.
  std::vector<uint64_t> sketch;
  /// The op behind each sketch entry (filled when asked for).
  std::vector<mlir::Operation *> sketchOps;
  /// Constants whose value the dump left out (`{...}`): the signature cannot
  /// tell two graphs apart that differ only in those values.
  unsigned elidedConstants = 0;
};

/// Computes the signature of `module`, whose single public function is the
/// entry. Fails (with a diagnostic) if there is no entry or a call cycle.
mlir::FailureOr<GraphSignature> computeSignature(mlir::ModuleOp module,
                                                 bool keepSketchOps = false);

/// Whether an op itself (its nested ops aside) must stay even when nothing
/// uses its results, and keep its place among the others that must:
/// collectives, transfers, rng state, custom calls marked so, and anything
/// MLIR cannot prove free of effects. The signature keeps such ops when
/// they are dead; `kiln diff` does the same.
bool hasOwnSideEffects(mlir::Operation *op);

/// Whether the signature leaves out a module attribute of this name: the
/// module's name, and JAX's `jax.uses_shape_polymorphism` (how JAX traced
/// the function; the module's shapes are what is computed). `kiln diff`
/// leaves out the same.
bool isModuleAttrOutsideSignature(llvm::StringRef name);

/// Whether the signature leaves out a parameter or result attribute of this
/// name: the names JAX gives them (`jax.arg_info`, `jax.result_info`).
bool isInterfaceAttrOutsideSignature(llvm::StringRef name);

/// One line per kind of information that the signature leaves out, with the
/// reason: printed by `kiln hash --explain-exclusions` and tested.
llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>>
getSignatureExclusions();

} // namespace kiln

#endif // KILN_SIGNATURE_SIGNATURE_H
