//===- FoldCausalMask.cpp - causal masks into kiln.causal_mask --*- C++ -*-===//
//
// This file implements kiln-fold-causal-mask: with the index-space analysis
// (IndexSpaceAnalysis.h), each value that is a diagonal mask and is used by
// something that is not one becomes a kiln.causal_mask; what computed it is
// left for dead-code elimination. Statistics count the masks, the bytes of
// mask tensors no longer materialized, and the multiply-adds of the scores'
// dot_general that the masked positions make useless.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/PassStatistics.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "IndexSpaceAnalysis.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"

namespace kiln {
#define GEN_PASS_DEF_KILNFOLDCAUSALMASKPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {

/// Positions of `type` that `mask` masks.
int64_t maskedPositions(const DiagonalMask &mask, RankedTensorType type) {
  int64_t rows = type.getDimSize(mask.rowDimension);
  int64_t columns = type.getDimSize(mask.columnDimension);
  int64_t kept = 0;
  for (int64_t i = 0; i < rows; ++i) {
    int64_t low = mask.minDiagonal ? std::max<int64_t>(0, i + *mask.minDiagonal)
                                   : 0;
    int64_t high = mask.maxDiagonal
                       ? std::min<int64_t>(columns - 1, i + *mask.maxDiagonal)
                       : columns - 1;
    kept += std::max<int64_t>(0, high - low + 1);
  }
  int64_t others = type.getNumElements() / std::max<int64_t>(1, rows * columns);
  return (rows * columns - kept) * others;
}

/// The contracted size of the dot_general that computes `value`, through
/// element-wise ops that scale or convert it (scores / sqrt(d)); 0 if none.
int64_t contractionBehind(Value value) {
  for (int depth = 0; depth < 4 && value; ++depth) {
    Operation *op = value.getDefiningOp();
    if (!op)
      return 0;
    if (auto dot = dyn_cast<DotGeneralOp>(op)) {
      int64_t size = 1;
      auto lhs = cast<RankedTensorType>(dot.getLhs().getType());
      for (int64_t d : dot.getLhsContractingDims())
        size *= lhs.getDimSize(d);
      return size;
    }
    StringRef name = op->getName().getStringRef();
    if (name == "kiln.transpose" || name == "kiln.reshape") {
      value = op->getOperand(0);
      continue;
    }
    if (name == "kiln.convert" || name == "kiln.multiply" ||
        name == "kiln.divide" || name == "kiln.add" ||
        name == "kiln.subtract") {
      // Follow the operand that is not a constant.
      Value next;
      for (Value operand : op->getOperands())
        if (!operand.getDefiningOp<ConstantOp>() &&
            !operand.getDefiningOp<BroadcastInDimOp>())
          next = operand;
      value = next;
      continue;
    }
    return 0;
  }
  return 0;
}

/// The multiply-adds of the dot_general behind `scores` (its elements times
/// its contracted size); 0 if none.
int64_t scoresWork(Value scores) {
  auto type = dyn_cast<RankedTensorType>(scores.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  return type.getNumElements() * contractionBehind(scores);
}

/// The multiply-adds of the scores that `mask` (or a mask, predicate or
/// bias made from it) ends up masking: followed forward through and,
/// select, compare, convert, broadcast and reshape, until an op combines it
/// with the output of a dot_general; 0 if none is found.
int64_t maskedContraction(Value mask, int depth = 0) {
  if (depth > 12)
    return 0;
  int64_t best = 0;
  for (OpOperand &use : mask.getUses()) {
    Operation *user = use.getOwner();
    StringRef name = user->getName().getStringRef();
    for (Value operand : user->getOperands())
      if (operand != mask)
        best = std::max(best, scoresWork(operand));
    bool passesOn =
        name == "kiln.and" || name == "kiln.select" ||
        name == "kiln.compare" || name == "kiln.convert" ||
        name == "kiln.broadcast_in_dim" || name == "kiln.reshape" ||
        name == "kiln.add";
    if (passesOn && user->getNumResults() == 1)
      best = std::max(best, maskedContraction(user->getResult(0), depth + 1));
  }
  return best;
}

struct FoldCausalMaskPass
    : public kiln::impl::KilnFoldCausalMaskPassBase<FoldCausalMaskPass> {
  using KilnFoldCausalMaskPassBase::KilnFoldCausalMaskPassBase;

  void runOnOperation() override {
    IndexSpaceAnalysis analysis(getOperation());
    // The masks that something outside the mask's own computation uses.
    llvm::SmallVector<std::pair<Value, DiagonalMask>> frontier;
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() != 1 || isa<CausalMaskOp>(op))
        return;
      Value result = op->getResult(0);
      const IndexValue *value = analysis.lookup(result);
      if (!value)
        return;
      std::optional<DiagonalMask> mask =
          matchDiagonalMask(*value, result.getType());
      if (!mask)
        return;
      bool usedOutside = llvm::any_of(result.getUsers(), [&](Operation *user) {
        if (user->getNumResults() != 1)
          return true;
        const IndexValue *userValue = analysis.lookup(user->getResult(0));
        return !userValue ||
               !matchDiagonalMask(*userValue, user->getResult(0).getType());
      });
      if (usedOutside)
        frontier.push_back({result, *mask});
    });
    int64_t folded = 0, bytes = 0, skippable = 0;
    for (auto &[value, mask] : frontier) {
      auto type = cast<RankedTensorType>(value.getType());
      OpBuilder builder(value.getContext());
      builder.setInsertionPointAfterValue(value);
      auto replacement = CausalMaskOp::create(
          builder, value.getLoc(), type,
          builder.getI64IntegerAttr(mask.rowDimension),
          builder.getI64IntegerAttr(mask.columnDimension),
          mask.minDiagonal ? builder.getI64IntegerAttr(*mask.minDiagonal)
                           : IntegerAttr(),
          mask.maxDiagonal ? builder.getI64IntegerAttr(*mask.maxDiagonal)
                           : IntegerAttr(),
          mask.kept, mask.masked);
      // What a consumer can skip: masked scores of a dot_general.
      int64_t masked = maskedPositions(mask, type);
      // The masked share of the scores' multiply-adds.
      skippable += (int64_t)((double)masked / type.getNumElements() *
                             (double)maskedContraction(value));
      unsigned elementBits = type.getElementTypeBitWidth();
      bytes += type.getNumElements() * std::max(1u, elementBits / 8);
      ++folded;
      value.replaceAllUsesWith(replacement.getResult());
    }
    numMasksFolded += folded;
    numMaskBytes += bytes;
    numSkippableMacs += skippable;
    kiln::recordPassStatistics(
        "KilnFoldCausalMaskPass",
        {{"masks-folded", (uint64_t)folded, "Masks turned into kiln.causal_mask"},
         {"mask-bytes", (uint64_t)bytes,
          "Bytes of mask tensors no longer materialized"},
         {"skippable-macs", (uint64_t)skippable,
          "Multiply-adds of the masked scores' dot_general that a consumer "
          "can skip"}});
    if (report)
      getOperation().emitRemark()
          << "kiln-fold-causal-mask: " << folded << " masks folded, " << bytes
          << " mask bytes no longer materialized, " << skippable
          << " multiply-adds skippable";
  }
};

} // namespace
