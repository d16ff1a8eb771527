//===- Sort.cpp - kiln.sort to scf loops ------------------------*- C++ -*-===//
//
// This file lowers kiln.sort (any number of operands sorted together along
// one dimension by a comparator region) to a stable insertion sort of each
// line: element i moves left past every element that the comparator says it
// goes before, the comparator inlined as scalar code. The order is the one
// a stable sort gives, as the evaluator's; the work is quadratic in the
// line's length. topk sorts each line with its positions, greatest first,
// and keeps the first k.
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// Whether the element `keys` goes before `previous` (one per array).
using GoesBefore = llvm::function_ref<FailureOr<Value>(
    OpBuilder &, Location, ValueRange keys, ValueRange previous)>;

/// `arrays` (one shape) sorted together along `dimension`, each line by a
/// stable insertion sort under `goesBefore`; failure when it fails.
FailureOr<llvm::SmallVector<Value>> sortLines(OpBuilder &rewriter, Location loc,
                                              ValueRange arrays,
                                              int64_t dimension,
                                              GoesBefore goesBefore) {
  auto type = cast<RankedTensorType>(arrays.front().getType());
  llvm::ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  int64_t length = shape[dimension];
  int64_t lines = length ? type.getNumElements() / length : 0;
  auto index = [&](OpBuilder &b, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  bool built = true;
  auto perLine = scf::ForOp::create(
      rewriter, loc, index(rewriter, 0), index(rewriter, lines),
      index(rewriter, 1), arrays,
      [&](OpBuilder &b, Location, Value line, ValueRange lineArrays) {
        // The line's position in the other dimensions, row-major.
        llvm::SmallVector<Value> position(rank);
        Value rest = line;
        for (int64_t d = rank - 1; d >= 0; --d) {
          if (d == dimension)
            continue;
          Value size = index(b, shape[d]);
          position[d] = arith::RemUIOp::create(b, loc, rest, size);
          rest = arith::DivUIOp::create(b, loc, rest, size);
        }
        auto at = [&](Value k) {
          llvm::SmallVector<Value> indices(position);
          indices[dimension] = k;
          return indices;
        };
        auto perElement = scf::ForOp::create(
            b, loc, index(b, 1), index(b, std::max<int64_t>(length, 1)),
            index(b, 1), lineArrays,
            [&](OpBuilder &eb, Location, Value i, ValueRange current) {
              llvm::SmallVector<Value> keys;
              for (Value array : current)
                keys.push_back(
                    tensor::ExtractOp::create(eb, loc, array, at(i)));
              llvm::SmallVector<Value> state = {i};
              llvm::append_range(state, current);
              llvm::SmallVector<Type> stateTypes;
              for (Value value : state)
                stateTypes.push_back(value.getType());
              auto shift = scf::WhileOp::create(
                  eb, loc, stateTypes, state,
                  [&](OpBuilder &cb, Location, ValueRange args) {
                    Value j = args[0];
                    Value positive = arith::CmpIOp::create(
                        cb, loc, arith::CmpIPredicate::sgt, j, index(cb, 0));
                    auto before = scf::IfOp::create(
                        cb, loc, TypeRange{cb.getI1Type()}, positive,
                        /*withElseRegion=*/true);
                    {
                      OpBuilder::InsertionGuard guard(cb);
                      cb.setInsertionPointToStart(before.thenBlock());
                      Value previousIndex =
                          arith::SubIOp::create(cb, loc, j, index(cb, 1));
                      llvm::SmallVector<Value> previous;
                      for (Value array : args.drop_front())
                        previous.push_back(tensor::ExtractOp::create(
                            cb, loc, array, at(previousIndex)));
                      FailureOr<Value> less =
                          goesBefore(cb, loc, keys, previous);
                      if (failed(less)) {
                        built = false;
                        less = arith::ConstantOp::create(cb, loc,
                                                         cb.getBoolAttr(false))
                                   .getResult();
                      }
                      scf::YieldOp::create(cb, loc, *less);
                      cb.setInsertionPointToStart(before.elseBlock());
                      scf::YieldOp::create(
                          cb, loc,
                          ValueRange{arith::ConstantOp::create(
                              cb, loc, cb.getBoolAttr(false))});
                    }
                    scf::ConditionOp::create(cb, loc, before.getResult(0),
                                             args);
                  },
                  [&](OpBuilder &ab, Location, ValueRange args) {
                    Value j = args[0];
                    Value previous =
                        arith::SubIOp::create(ab, loc, j, index(ab, 1));
                    llvm::SmallVector<Value> next = {previous};
                    for (Value array : args.drop_front()) {
                      Value moved = tensor::ExtractOp::create(ab, loc, array,
                                                              at(previous));
                      next.push_back(tensor::InsertOp::create(ab, loc, moved,
                                                              array, at(j)));
                    }
                    scf::YieldOp::create(ab, loc, next);
                  });
              Value slot = shift.getResult(0);
              llvm::SmallVector<Value> placed;
              for (auto [key, array] :
                   llvm::zip(keys, shift.getResults().drop_front()))
                placed.push_back(
                    tensor::InsertOp::create(eb, loc, key, array, at(slot)));
              scf::YieldOp::create(eb, loc, placed);
            });
        scf::YieldOp::create(b, loc, perElement.getResults());
      });
  if (!built)
    return failure();
  return llvm::SmallVector<Value>(perLine.getResults());
}

struct SortLowering : public OpConversionPattern<kiln::SortOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(kiln::SortOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<llvm::SmallVector<Value>> sorted = sortLines(
        rewriter, op.getLoc(), adaptor.getInputs(), op.getDimensions()[0],
        [&](OpBuilder &b, Location, ValueRange keys,
            ValueRange previous) -> FailureOr<Value> {
          // The comparator takes (lhs, rhs) pairs, operand by operand.
          llvm::SmallVector<Value> args;
          for (auto [key, before] : llvm::zip(keys, previous)) {
            args.push_back(key);
            args.push_back(before);
          }
          FailureOr<llvm::SmallVector<Value>> less =
              kiln::inlineScalarRegion(b, op.getToApply(), args);
          if (failed(less) || less->size() != 1)
            return failure();
          return (*less)[0];
        });
    if (failed(sorted))
      return failure();
    rewriter.replaceOp(op, *sorted);
    return success();
  }
};

/// topk: the line sorted with its positions, greatest first (a positive
/// NaN above +inf and a negative NaN below -inf, as XLA orders them; ties
/// by position, as the evaluator orders them), and its first k kept.
struct TopKLowering : public OpConversionPattern<kiln::TopKOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(kiln::TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    auto type = cast<RankedTensorType>(operand.getType());
    Type kilnElement =
        cast<RankedTensorType>(op.getOperand().getType()).getElementType();
    auto valuesType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op->getResult(0).getType()));
    auto indicesType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op->getResult(1).getType()));
    if (type.getRank() == 0 ||
        (!isa<FloatType>(kilnElement) && !isa<IntegerType>(kilnElement)))
      return op.emitError("topk on ") << kilnElement << " is not compiled";
    int64_t last = type.getRank() - 1;
    // Positions along the last dimension, in the indices' type.
    auto positionsType =
        RankedTensorType::get(type.getShape(), indicesType.getElementType());
    Value positions =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{positionsType}, ValueRange{},
            ValueRange{tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                               indicesType.getElementType())},
            llvm::ArrayRef<AffineMap>{
                rewriter.getMultiDimIdentityMap(type.getRank())},
            llvm::SmallVector<utils::IteratorType>(
                type.getRank(), utils::IteratorType::parallel),
            [&](OpBuilder &b, Location at, ValueRange) {
              Value i = linalg::IndexOp::create(b, at, last);
              linalg::YieldOp::create(
                  b, at,
                  arith::IndexCastOp::create(b, at,
                                             indicesType.getElementType(), i)
                      .getResult());
            })
            .getResult(0);
    bool isFloat = isa<FloatType>(kilnElement);
    bool isUnsigned =
        cast<IntegerType>(isFloat ? rewriter.getI1Type() : kilnElement)
            .isUnsigned();
    FailureOr<llvm::SmallVector<Value>> sorted = sortLines(
        rewriter, loc, ValueRange{operand, positions}, last,
        [&](OpBuilder &b, Location at, ValueRange keys,
            ValueRange previous) -> FailureOr<Value> {
          Value x = keys[0], y = previous[0];
          if (!isFloat)
            return arith::CmpIOp::create(b, at,
                                         isUnsigned ? arith::CmpIPredicate::ugt
                                                    : arith::CmpIPredicate::sgt,
                                         x, y)
                .getResult();
          // 8-bit floats compared in f32 (LLVM has no type for them).
          if (x.getType().getIntOrFloatBitWidth() == 8) {
            x = arith::ExtFOp::create(b, at, b.getF32Type(), x);
            y = arith::ExtFOp::create(b, at, b.getF32Type(), y);
          }
          // A positive NaN above everything, a negative NaN below
          // everything; otherwise greater.
          Value trueValue =
              arith::ConstantOp::create(b, at, b.getBoolAttr(true));
          auto negate = [&](Value v) -> Value {
            return arith::XOrIOp::create(b, at, v, trueValue);
          };
          auto classify = [&](Value v) -> std::pair<Value, Value> {
            Value nan =
                arith::CmpFOp::create(b, at, arith::CmpFPredicate::UNO, v, v);
            unsigned width = v.getType().getIntOrFloatBitWidth();
            Type bitsType = b.getIntegerType(width);
            Value bits = arith::BitcastOp::create(b, at, bitsType, v);
            Value negative = arith::CmpIOp::create(
                b, at, arith::CmpIPredicate::slt, bits,
                arith::ConstantOp::create(b, at, b.getIntegerAttr(bitsType, 0)));
            Value high =
                arith::AndIOp::create(b, at, nan, negate(negative));
            Value low = arith::AndIOp::create(b, at, nan, negative);
            return {high, low};
          };
          auto [xHigh, xLow] = classify(x);
          auto [yHigh, yLow] = classify(y);
          Value anyHigh = arith::OrIOp::create(b, at, xHigh, yHigh);
          Value anyLow = arith::OrIOp::create(b, at, xLow, yLow);
          Value highFirst = arith::AndIOp::create(b, at, xHigh, negate(yHigh));
          Value lowLast = arith::AndIOp::create(b, at, negate(xLow), yLow);
          Value greater =
              arith::CmpFOp::create(b, at, arith::CmpFPredicate::OGT, x, y);
          Value numbers =
              arith::SelectOp::create(b, at, anyLow, lowLast, greater);
          return arith::SelectOp::create(b, at, anyHigh, highFirst, numbers)
              .getResult();
        });
    if (failed(sorted))
      return failure();
    auto keep = [&](Value value, RankedTensorType resultType) -> Value {
      llvm::SmallVector<int64_t> offsets(type.getRank(), 0),
          strides(type.getRank(), 1);
      return tensor::ExtractSliceOp::create(
          rewriter, loc, resultType, value, ValueRange{}, ValueRange{},
          ValueRange{}, offsets, resultType.getShape(), strides);
    };
    rewriter.replaceOp(
        op, {keep((*sorted)[0], valuesType), keep((*sorted)[1], indicesType)});
    return success();
  }
};

} // namespace

void kiln::populateKilnSortToScfPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<SortLowering, TopKLowering>(converter, patterns.getContext());
}
