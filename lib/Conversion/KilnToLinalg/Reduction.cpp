//===- Reduction.cpp - kiln.reduce to linalg --------------------*- C++ -*-===//
//
// This file lowers kiln.reduce, with any number of operands, to one
// linalg.generic whose reduction loops are the reduced dimensions and
// whose body is the reducer region inlined as scalar code (ScalarOps.h):
// sums, maxima and argmax-style (value, index) pairs alike. The
// accumulators start at the init values and are combined in index order,
// as the reference evaluator combines them.
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

struct ReduceLowering : public OpConversionPattern<kiln::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    int64_t count = inputs.size();
    auto inputType = cast<RankedTensorType>(inputs.front().getType());
    int64_t rank = inputType.getRank();
    llvm::ArrayRef<int64_t> reduced = op.getDimensions();

    llvm::SmallVector<Value> outputs;
    llvm::SmallVector<Type> outputTypes;
    for (auto [init, result] :
         llvm::zip(adaptor.getInitValues(), op.getResults())) {
      auto type = cast<RankedTensorType>(
          getTypeConverter()->convertType(result.getType()));
      Value scalar = tensor::ExtractOp::create(rewriter, loc, init, ValueRange{});
      Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                            type.getElementType());
      outputs.push_back(
          linalg::FillOp::create(rewriter, loc, ValueRange{scalar},
                                 ValueRange{empty})
              .getResult(0));
      outputTypes.push_back(type);
    }
    llvm::SmallVector<AffineExpr> kept;
    llvm::SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      bool isReduced = llvm::is_contained(reduced, d);
      iterators.push_back(isReduced ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (!isReduced)
        kept.push_back(rewriter.getAffineDimExpr(d));
    }
    llvm::SmallVector<AffineMap> maps(count,
                                      rewriter.getMultiDimIdentityMap(rank));
    maps.append(count, AffineMap::get(rank, 0, kept, rewriter.getContext()));

    bool built = true;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, outputTypes, inputs, outputs, maps, iterators,
        [&](OpBuilder &b, Location nested, ValueRange args) {
          // The reducer takes the accumulators first, then the inputs.
          llvm::SmallVector<Value> reducerArgs(args.drop_front(count));
          llvm::append_range(reducerArgs, args.take_front(count));
          FailureOr<llvm::SmallVector<Value>> results =
              kiln::inlineScalarRegion(b, op.getToApply(), reducerArgs);
          if (failed(results)) {
            built = false;
            linalg::YieldOp::create(b, nested, args.drop_front(count));
            return;
          }
          linalg::YieldOp::create(b, nested, *results);
        });
    if (!built)
      return failure();
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void kiln::populateKilnReductionToLinalgPatterns(const TypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<ReduceLowering>(converter, patterns.getContext());
}
