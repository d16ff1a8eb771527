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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// One tensor per result, of its (lowered) type, filled with its 0-d init
/// value: where a reduction's accumulators start.
void fillWithInitValues(OpBuilder &b, Location loc,
                        const TypeConverter &converter, ValueRange initValues,
                        ValueRange results, llvm::SmallVector<Value> &outputs,
                        llvm::SmallVector<Type> &outputTypes) {
  for (auto [init, result] : llvm::zip(initValues, results)) {
    auto type =
        cast<RankedTensorType>(converter.convertType(result.getType()));
    Value scalar = tensor::ExtractOp::create(b, loc, init, ValueRange{});
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                          type.getElementType());
    outputs.push_back(
        linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
            .getResult(0));
    outputTypes.push_back(type);
  }
}

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
    fillWithInitValues(rewriter, loc, *getTypeConverter(),
                       adaptor.getInitValues(), op.getResults(), outputs,
                       outputTypes);
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
    // Reads the blocks of a causal band only (BandRestriction.cpp).
    if (Attribute band = op->getAttr("kiln.band"))
      generic->setAttr("kiln.band", band);
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// reduce_window: a generic over the result's dimensions and the window's
/// (a window-shaped operand that is never read gives the window loops their
/// bounds). Each window position reads the input where it falls: through
/// the stride, the window and base dilations and the padding; positions in
/// the padding or in a base dilation's holes are skipped, which is what
/// combining them with the init value does for HLO's reducers.
struct ReduceWindowLowering : public OpConversionPattern<kiln::ReduceWindowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::ReduceWindowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    int64_t count = inputs.size();
    auto inputType = cast<RankedTensorType>(inputs.front().getType());
    llvm::ArrayRef<int64_t> inputShape = inputType.getShape();
    int64_t rank = inputShape.size();
    llvm::ArrayRef<int64_t> window = op.getWindowDimensions(),
                            strides = op.getWindowStrides(),
                            baseDilations = op.getBaseDilations(),
                            windowDilations = op.getWindowDilations(),
                            paddingLow = op.getPaddingLow();
    auto dimOr = [](llvm::ArrayRef<int64_t> values, int64_t d, int64_t fallback) {
      return values.empty() ? fallback : values[d];
    };
    llvm::SmallVector<Value> outputs;
    llvm::SmallVector<Type> outputTypes;
    fillWithInitValues(rewriter, loc, *getTypeConverter(),
                       adaptor.getInitValues(), op.getResults(), outputs,
                       outputTypes);
    Value windowShape = tensor::EmptyOp::create(rewriter, loc, window,
                                                rewriter.getI8Type());
    llvm::SmallVector<AffineExpr> windowExprs, resultExprs;
    for (int64_t d = 0; d < rank; ++d) {
      resultExprs.push_back(rewriter.getAffineDimExpr(d));
      windowExprs.push_back(rewriter.getAffineDimExpr(rank + d));
    }
    llvm::SmallVector<AffineMap> maps = {
        AffineMap::get(2 * rank, 0, windowExprs, rewriter.getContext())};
    maps.append(count,
                AffineMap::get(2 * rank, 0, resultExprs, rewriter.getContext()));
    llvm::SmallVector<utils::IteratorType> iterators(
        rank, utils::IteratorType::parallel);
    iterators.append(rank, utils::IteratorType::reduction);
    bool built = true;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, outputTypes, ValueRange{windowShape}, outputs, maps,
        iterators, [&](OpBuilder &b, Location, ValueRange args) {
          auto constant = [&](int64_t value) -> Value {
            return arith::ConstantIndexOp::create(b, loc, value);
          };
          Value inBounds = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
          llvm::SmallVector<Value> position;
          for (int64_t d = 0; d < rank; ++d) {
            Value out = linalg::IndexOp::create(b, loc, d);
            Value offset = linalg::IndexOp::create(b, loc, rank + d);
            // out * stride + offset * window dilation - low padding
            Value at = arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(b, loc, out,
                                      constant(dimOr(strides, d, 1))),
                arith::MulIOp::create(b, loc, offset,
                                      constant(dimOr(windowDilations, d, 1))));
            at = arith::SubIOp::create(b, loc, at,
                                       constant(dimOr(paddingLow, d, 0)));
            int64_t dilation = dimOr(baseDilations, d, 1);
            int64_t dilatedSize =
                inputShape[d] == 0 ? 0 : (inputShape[d] - 1) * dilation + 1;
            auto compare = [&](arith::CmpIPredicate predicate, Value x,
                               Value y) -> Value {
              return arith::CmpIOp::create(b, loc, predicate, x, y);
            };
            Value ok = arith::AndIOp::create(
                b, loc, compare(arith::CmpIPredicate::sge, at, constant(0)),
                compare(arith::CmpIPredicate::slt, at, constant(dilatedSize)));
            Value index = at;
            if (dilation != 1) {
              Value remainder = arith::RemSIOp::create(b, loc, at,
                                                       constant(dilation));
              ok = arith::AndIOp::create(
                  b, loc, ok,
                  compare(arith::CmpIPredicate::eq, remainder, constant(0)));
              index = arith::DivSIOp::create(b, loc, at, constant(dilation));
            }
            inBounds = arith::AndIOp::create(b, loc, inBounds, ok);
            // A position that is read must be in range even when skipped.
            index = arith::MaxSIOp::create(b, loc, index, constant(0));
            index = arith::MinSIOp::create(
                b, loc, index, constant(std::max<int64_t>(inputShape[d] - 1, 0)));
            position.push_back(index);
          }
          ValueRange accumulators = args.drop_front(1);
          llvm::SmallVector<Value> reducerArgs(accumulators);
          for (Value input : inputs)
            reducerArgs.push_back(
                tensor::ExtractOp::create(b, loc, input, position));
          FailureOr<llvm::SmallVector<Value>> combined =
              kiln::inlineScalarRegion(b, op.getToApply(), reducerArgs);
          if (failed(combined)) {
            built = false;
            linalg::YieldOp::create(b, loc, accumulators);
            return;
          }
          llvm::SmallVector<Value> results;
          for (auto [value, accumulator] : llvm::zip(*combined, accumulators))
            results.push_back(
                arith::SelectOp::create(b, loc, inBounds, value, accumulator));
          linalg::YieldOp::create(b, loc, results);
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
  patterns.add<ReduceLowering, ReduceWindowLowering>(converter,
                                                     patterns.getContext());
}
