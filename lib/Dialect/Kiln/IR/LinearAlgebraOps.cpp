//===- LinearAlgebraOps.cpp - cholesky, triangular solve, ragged dots -*- C++ -*-===//
//
// This file implements the verifiers of HLO's linear-algebra ops: cholesky
// and triangular-solve on batches of square matrices, and the dots beyond
// dot_general (ragged-dot for mixture-of-experts, scaled-dot for
// block-scaled formats).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "VerifierHelpers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::verify;

/// Checks that `type` is a batch of square matrices with a float or complex
/// element type.
static LogicalResult verifySquareMatrices(Operation *op, StringRef name,
                                          RankedTensorType type) {
  if (!isa<FloatType, ComplexType>(type.getElementType()))
    return op->emitOpError()
           << name << " must have a float or complex element type, got "
           << type;
  int64_t rank = type.getRank();
  if (rank < 2)
    return op->emitOpError() << name << " must have rank >= 2, got " << type;
  if (!dimsAgree(type.getDimSize(rank - 1), type.getDimSize(rank - 2)))
    return op->emitOpError()
           << name << " must be square in its two minor dimensions, got "
           << type;
  return success();
}

LogicalResult CholeskyOp::verify() {
  RankedTensorType operand = rankedType(getOperand());
  if (failed(verifySquareMatrices(*this, "operand", operand)))
    return failure();
  return verifyType(*this, "result type", operand, getOutput().getType(),
                    "the operand's");
}

LogicalResult TriangularSolveOp::verify() {
  RankedTensorType a = rankedType(getA()), b = rankedType(getB());
  if (failed(verifySquareMatrices(*this, "a", a)) ||
      failed(verifyOneOf(*this, "transpose_a", getTransposeA(),
                         {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"})) ||
      failed(verifyElementType(*this, "b element type", a, b, "a's")))
    return failure();
  int64_t rank = a.getRank();
  if (b.getRank() != rank)
    return emitOpError() << "b must have the rank of a (" << rank << "), got "
                         << b;
  if (failed(verifyShape(*this, "b batch dimensions",
                         a.getShape().drop_back(2),
                         b.getShape().drop_back(2), "a's")))
    return failure();
  // a multiplies x from the left (its size is b's rows) or from the right
  // (b's columns).
  int64_t bDim = getLeftSide() ? rank - 2 : rank - 1;
  if (!dimsAgree(a.getDimSize(rank - 1), b.getDimSize(bDim)))
    return emitOpError() << "b dimension " << bDim << " must be "
                         << a.getDimSize(rank - 1) << " (a's size, with "
                         << (getLeftSide() ? "left_side" : "a on the right")
                         << "), got " << b.getDimSize(bDim);
  return verifyType(*this, "result type", b, getOutput().getType(), "b's");
}

LogicalResult RaggedDotOp::verify() {
  RankedTensorType lhs = rankedType(getLhs()), rhs = rankedType(getRhs());
  RankedTensorType groupSizes = rankedType(getGroupSizes());
  ArrayRef<int64_t> raggedDims = getLhsRaggedDims(),
                    groupDims = getRhsGroupDims();
  if (raggedDims.size() != 1)
    return emitOpError() << "lhs_ragged_dims must have exactly one entry, got "
                         << formatDims(raggedDims);
  if (groupDims.size() > 1)
    return emitOpError() << "rhs_group_dims must have at most one entry, got "
                         << formatDims(groupDims);
  if (failed(verifyDimIndex(*this, "lhs_ragged_dims[0]", raggedDims[0],
                            lhs.getRank())) ||
      failed(verifyDims(*this, "rhs_group_dims", groupDims, rhs.getRank())))
    return failure();
  if (!groupDims.empty() &&
      (llvm::is_contained(getRhsBatchDims(), groupDims[0]) ||
       llvm::is_contained(getRhsContractingDims(), groupDims[0])))
    return emitOpError() << "rhs_group_dims must not be a batch or "
                            "contracting dimension, got "
                         << groupDims[0];
  if (groupSizes.getRank() < 1)
    return emitOpError() << "group_sizes must have rank >= 1, got "
                         << groupSizes;
  int64_t groups = groupSizes.getDimSize(groupSizes.getRank() - 1);
  if (!groupDims.empty() && !dimsAgree(rhs.getDimSize(groupDims[0]), groups))
    return emitOpError() << "rhs group dimension " << groupDims[0]
                         << " must have the number of groups (" << groups
                         << ", group_sizes' last dimension), got "
                         << rhs.getDimSize(groupDims[0]);
  FailureOr<SmallVector<int64_t>> shape = verifyDotDimensions(
      *this, lhs, rhs, getLhsBatchDims(), getLhsContractingDims(),
      getRhsBatchDims(), getRhsContractingDims(), groupDims);
  if (failed(shape))
    return failure();
  // A ragged contracting dimension gives one result per group.
  bool raggedContracting =
      llvm::is_contained(getLhsContractingDims(), raggedDims[0]);
  if (raggedContracting)
    shape->insert(shape->begin(), groups);
  return verifyShape(*this, "result shape", *shape,
                     rankedType(getOutput()).getShape(),
                     raggedContracting
                         ? "groups, batch, lhs free, rhs free dimensions"
                         : "batch, lhs free, rhs free dimensions");
}

LogicalResult ScaledDotOp::verify() {
  RankedTensorType lhs = rankedType(getLhs()), rhs = rankedType(getRhs());
  for (auto [name, operand, scale] :
       {std::tuple(StringRef("lhs_scale"), lhs, rankedType(getLhsScale())),
        std::tuple(StringRef("rhs_scale"), rhs, rankedType(getRhsScale()))})
    if (scale.getRank() != 0 && scale.getRank() != operand.getRank())
      return emitOpError() << name << " must be a scalar or have its "
                           << "operand's rank (" << operand.getRank()
                           << "), got " << scale;
  FailureOr<SmallVector<int64_t>> shape = verifyDotDimensions(
      *this, lhs, rhs, getLhsBatchDims(), getLhsContractingDims(),
      getRhsBatchDims(), getRhsContractingDims());
  if (failed(shape))
    return failure();
  return verifyShape(*this, "result shape", *shape,
                     rankedType(getOutput()).getShape(),
                     "batch, lhs free, rhs free dimensions");
}
