//===- GraphDiff.h - what makes two graphs different computations -*- C++ -*-===//
//
// This file declares the structural comparison behind `kiln diff` and `kiln
// cache explain`: the ops of two graphs are matched by what they compute
// from (their operands' matches), not by their position in the dump, and
// every difference that the signature sees is named as one kind of change,
// with both versions: a parameter's shape, a constant's value, an attribute,
// an op's kind, its operands, an op added or missing. A change that only
// follows from another (an op whose result shape changed because its input
// did) is counted, not listed.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SIGNATURE_GRAPHDIFF_H
#define KILN_SIGNATURE_GRAPHDIFF_H

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The kinds of change, in the words that reports use.
enum class ChangeKind {
  Shape,         ///< a parameter's or an op's dimensions
  ElementType,   ///< a parameter's or an op's element type
  ConstantValue, ///< a constant's value, same type
  Attribute,     ///< an attribute of an op, a parameter, a result, the module
  OpKind,        ///< an op replaced by another kind on the same operands
  Wiring,        ///< an op (or a result) takes another value as an operand
  Added,         ///< an op or a parameter only in the second graph
  Missing,       ///< an op or a parameter only in the first graph
};

/// "shape", "element type", "constant value", "attribute", "op kind",
/// "operand wiring", "op added", "op missing".
llvm::StringRef getChangeKindName(ChangeKind kind);

/// One change between the first graph (before) and the second (after).
struct GraphChange {
  ChangeKind kind;
  /// What changed, in words: "parameter 0", "kiln.dot", "result 1",
  /// "the module", with "operand 1 of" or an attribute's name in front
  /// where it applies.
  std::string subject;
  /// Both versions, printed: types, attribute values, a constant's values
  /// (where they differ), op kinds, the values an operand comes from. Empty
  /// on the side that has none (an added or missing op).
  std::string before, after;
  /// Where each version is (the op, the parameter, or the function of a
  /// result); none on the side that has none.
  std::optional<mlir::Location> beforeLoc, afterLoc;
  /// The op that each side is, printed with its operands, for ops.
  std::string beforeOp, afterOp;
  /// Which function the change is in, when it is not the entry: "in @add
  /// (called by kiln.reduce at ...)".
  std::string context;
};

/// Everything that makes `before` and `after` different computations.
struct GraphDiff {
  std::vector<GraphChange> changes;
  /// Ops that match an op of the other graph and differ only in result
  /// types that follow from their operands' changed types.
  unsigned followingOps = 0;
  /// Live ops in each graph, and how many matched an op of the other.
  unsigned beforeOps = 0, afterOps = 0, matchedOps = 0;
};

/// Compares the two graphs, which must be in the same MLIRContext and each
/// have one public function (the entry). The changes come in the after
/// graph's order, the module's and the parameters' first.
GraphDiff diffGraphs(mlir::ModuleOp before, mlir::ModuleOp after);

} // namespace kiln

#endif // KILN_SIGNATURE_GRAPHDIFF_H
