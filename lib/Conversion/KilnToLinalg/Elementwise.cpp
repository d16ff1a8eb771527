//===- Elementwise.cpp - kiln element-wise ops to linalg.generic -*- C++ -*-=//
//
// This file lowers every element-wise kiln op with one pattern: a
// linalg.generic over the result's shape whose body is the scalar op that
// ScalarOps.cpp picks for the kiln element types. Operands of rank 0 where
// the result has a higher rank (select's predicate, clamp's bounds) are
// read as scalars, without a broadcast.
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

struct ElementwiseToGeneric : public ConversionPattern {
  ElementwiseToGeneric(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!kiln::hasScalarLowering(op) || op->getNumResults() != 1)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType)
      return failure();
    auto loweredType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(resultType));
    if (!loweredType)
      return failure();
    Location loc = op->getLoc();
    int64_t rank = resultType.getRank();
    llvm::SmallVector<AffineMap> maps;
    llvm::SmallVector<Type> argTypes;
    for (Value operand : op->getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      argTypes.push_back(type.getElementType());
      maps.push_back(type.getRank() == rank
                         ? rewriter.getMultiDimIdentityMap(rank)
                         : AffineMap::get(rank, 0, {}, rewriter.getContext()));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    Value init = tensor::EmptyOp::create(rewriter, loc, loweredType.getShape(),
                                         loweredType.getElementType());
    bool built = true;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{loweredType}, operands, ValueRange{init}, maps,
        llvm::SmallVector<utils::IteratorType>(rank,
                                               utils::IteratorType::parallel),
        [&](OpBuilder &builder, Location nested, ValueRange args) {
          Value result = kiln::buildScalarOp(builder, op, argTypes,
                                             resultType.getElementType(),
                                             args.drop_back());
          if (!result) {
            built = false;
            result = args.back();
          }
          linalg::YieldOp::create(builder, nested, result);
        });
    if (!built)
      return failure();
    // Computed in the blocks of a causal band only (BandRestriction.cpp).
    if (Attribute band = op->getAttr("kiln.band"))
      generic->setAttr("kiln.band", band);
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void kiln::populateKilnElementwiseToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ElementwiseToGeneric>(converter, patterns.getContext());
}
