//===- CustomCallTargets.h - the custom-call targets kiln knows -*- C++ -*-===//
//
// This file declares the one registry of custom-call targets: the targets
// that real dumps carry and kiln gives a meaning to, each with what it
// computes. The evaluator evaluates by it and the CPU backend lowers by it,
// so that a target is known to both or to neither.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_CUSTOMCALLTARGETS_H
#define KILN_DIALECT_KILN_IR_CUSTOMCALLTARGETS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace kiln {

/// What a known target computes.
enum class CustomCallTarget {
  /// Its operands, unchanged: sharding annotations, host/device placement
  /// and layout constraints on one device, Neuron's ring transfer.
  Identity,
  /// The k largest along the last dimension, largest first (values,
  /// indices).
  TopK,
  /// Element-wise functions of one operand: Gelu in its erf form and its
  /// derivative, Gelu's tanh approximation, Silu and its derivative, Erf.
  Gelu,
  GeluDerivative,
  GeluTanh,
  Silu,
  SiluDerivative,
  Erf,
  /// Along the dimension in backend_config (else the last): softmax,
  /// softmax's backward form (gradient, output), and the index of the
  /// first largest (smallest) element.
  Softmax,
  SoftmaxBackward,
  ArgMax,
  ArgMin,
  /// RmsNorm(x, weight, epsilon) over the last dimension.
  RmsNorm,
};

/// What `name` computes, if kiln knows it.
std::optional<CustomCallTarget> lookupCustomCallTarget(llvm::StringRef name);

/// The dimension a Neuron target works along: its backend_config (a
/// decimal, negative counting from the end), else the last of `rank`.
/// Fails, with an error at `op`, on anything else.
mlir::FailureOr<int64_t> getCustomCallDimension(mlir::Operation *op,
                                                int64_t rank);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_CUSTOMCALLTARGETS_H
