//===- Folders.cpp - folders and canonicalization of kiln ops ---*- C++ -*-===//
//
// This file holds the folders of kiln's data-movement ops: an op that
// leaves its operand as it is (a reshape or broadcast to the same type, an
// identity transpose, a reverse of nothing, a full slice, a pad of nothing,
// a copy, a convert to the same type) folds to its operand, and one applied
// to a splat literal folds to the splat of its result type; and the
// canonicalization of reshape chains (a reshape of a reshape is one
// reshape). They run wherever MLIR folds: `--canonicalize`, the greedy
// rewriter, `OpBuilder::createOrFold`.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace kiln;

namespace {

/// A splat literal operand, resized to `type`: what a data-movement op
/// gives for it.
OpFoldResult foldSplat(Attribute operand, Type type) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(operand);
  auto shaped = dyn_cast<ShapedType>(type);
  if (!splat || !shaped || !shaped.hasStaticShape() ||
      splat.getElementType() != shaped.getElementType())
    return {};
  return splat.resizeSplat(shaped);
}

bool isIdentity(llvm::ArrayRef<int64_t> permutation) {
  for (auto [i, p] : llvm::enumerate(permutation))
    if ((int64_t)i != p)
      return false;
  return true;
}

} // namespace

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return foldSplat(adaptor.getOperand(), getType());
}

namespace {
/// reshape(reshape(x)) -> reshape(x): only the final shape matters.
struct FoldReshapeChain : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getOperandMutable().assign(inner.getOperand()); });
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<FoldReshapeChain>(context);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (isIdentity(getDimensions()) && getOperand().getType() == getType())
    return getOperand();
  return foldSplat(adaptor.getOperand(), getType());
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType() && isIdentity(getDimensions()))
    return getOperand();
  return foldSplat(adaptor.getOperand(), getType());
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return {};
}

OpFoldResult ReverseOp::fold(FoldAdaptor adaptor) {
  if (getDimensions().empty())
    return getOperand();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getOperand()))
    return splat;
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return foldSplat(adaptor.getOperand(), getType());
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType() &&
      llvm::all_of(getEdgePaddingLow(), [](int64_t v) { return v == 0; }) &&
      llvm::all_of(getInteriorPadding(), [](int64_t v) { return v == 0; }))
    return getOperand();
  return {};
}

OpFoldResult CopyOp::fold(FoldAdaptor) { return getOperand(); }

Operation *KilnDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
