//===- IndexSpaceAnalysis.h - values as functions of their indices -*- C++ -*-===//
//
// This file declares the analysis behind kiln-fold-causal-mask. For every
// value that depends only on iotas and constants, it says what the value
// is as a function of its own index space: an affine function of the
// indices (an iota, an arange literal, their sums and scalings), a
// predicate that is a conjunction of half-spaces `a . idx + c >= 0` (a
// comparison of two affine functions, and-ed or negated), or such a
// predicate selecting between two scalar values. Values are followed
// through broadcasts, unit-dimension reshapes, transposes and conversions.
// The analysis is exact where it answers (it checks literals element by
// element and tracks when float arithmetic stops being exact); anything
// else, a parameter above all, is unknown.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_KILN_TRANSFORMS_INDEXSPACEANALYSIS_H
#define KILN_LIB_DIALECT_KILN_TRANSFORMS_INDEXSPACEANALYSIS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace kiln {

/// `constant + sum over d of coefficients[d] * idx[d]`.
struct AffineIndexFunction {
  llvm::SmallVector<int64_t> coefficients;
  int64_t constant = 0;
};

/// What a value is as a function of its indices.
struct IndexValue {
  enum class Kind { Affine, Predicate, Selected };
  Kind kind = Kind::Affine;
  /// Affine: the value.
  AffineIndexFunction affine;
  /// Predicate, Selected: true where every half-space `f(idx) >= 0` holds;
  /// none means everywhere, unless `neverTrue`.
  llvm::SmallVector<AffineIndexFunction, 2> halfSpaces;
  bool neverTrue = false;
  /// Selected: the value where the predicate holds, and elsewhere.
  mlir::TypedAttr kept, masked;
  /// A literal whose value is everywhere the same (kept for Selected).
  mlir::TypedAttr uniform;
};

/// The analysis of one function body (after inlining: calls are unknown).
class IndexSpaceAnalysis {
public:
  explicit IndexSpaceAnalysis(mlir::Operation *root);

  /// What `value` is, if it depends only on iotas and constants and the
  /// analysis can say it exactly.
  const IndexValue *lookup(mlir::Value value) const;

private:
  void visit(mlir::Operation *op);
  llvm::DenseMap<mlir::Value, IndexValue> values;
};

/// A mask over two dimensions, as kiln.causal_mask holds it.
struct DiagonalMask {
  int64_t rowDimension = 0, columnDimension = 0;
  std::optional<int64_t> minDiagonal, maxDiagonal;
  mlir::TypedAttr kept, masked;
};

/// `value` as a causal or sliding-window mask: a predicate (or a selection
/// by one) of one or two half-spaces over the same two dimensions, each
/// bounding `idx[column] - idx[row]`.
std::optional<DiagonalMask> matchDiagonalMask(const IndexValue &value,
                                              mlir::Type type);

} // namespace kiln

#endif // KILN_LIB_DIALECT_KILN_TRANSFORMS_INDEXSPACEANALYSIS_H
