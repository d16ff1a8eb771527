//===- Sort.cpp - kiln.sort to scf loops ------------------------*- C++ -*-===//
//
// This file lowers kiln.sort (any number of operands sorted together along
// one dimension by a comparator region) to a stable insertion sort of each
// line: element i moves left past every element that the comparator says it
// goes before, the comparator inlined as scalar code. The order is the one
// a stable sort gives, as the evaluator's; the work is quadratic in the
// line's length.
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

struct SortLowering : public OpConversionPattern<kiln::SortOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(kiln::SortOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    auto type = cast<RankedTensorType>(inputs.front().getType());
    llvm::ArrayRef<int64_t> shape = type.getShape();
    int64_t rank = shape.size();
    int64_t dimension = op.getDimensions()[0];
    int64_t length = shape[dimension];
    int64_t lines = length ? type.getNumElements() / length : 0;
    auto index = [&](OpBuilder &b, int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    bool built = true;
    auto perLine = scf::ForOp::create(
        rewriter, loc, index(rewriter, 0), index(rewriter, lines),
        index(rewriter, 1), inputs,
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
              [&](OpBuilder &eb, Location, Value i, ValueRange arrays) {
                llvm::SmallVector<Value> keys;
                for (Value array : arrays)
                  keys.push_back(tensor::ExtractOp::create(eb, loc, array, at(i)));
                llvm::SmallVector<Value> state = {i};
                llvm::append_range(state, arrays);
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
                        Value previous =
                            arith::SubIOp::create(cb, loc, j, index(cb, 1));
                        llvm::SmallVector<Value> comparatorArgs;
                        for (auto [key, array] :
                             llvm::zip(keys, args.drop_front())) {
                          comparatorArgs.push_back(key);
                          comparatorArgs.push_back(tensor::ExtractOp::create(
                              cb, loc, array, at(previous)));
                        }
                        FailureOr<llvm::SmallVector<Value>> less =
                            kiln::inlineScalarRegion(cb, op.getToApply(),
                                                     comparatorArgs);
                        Value goesBefore;
                        if (failed(less) || less->size() != 1) {
                          built = false;
                          goesBefore = arith::ConstantOp::create(
                              cb, loc, cb.getBoolAttr(false));
                        } else {
                          goesBefore = (*less)[0];
                        }
                        scf::YieldOp::create(cb, loc, goesBefore);
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
                        Value moved =
                            tensor::ExtractOp::create(ab, loc, array, at(previous));
                        next.push_back(
                            tensor::InsertOp::create(ab, loc, moved, array, at(j)));
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
    rewriter.replaceOp(op, perLine.getResults());
    return success();
  }
};

} // namespace

void kiln::populateKilnSortToScfPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<SortLowering>(converter, patterns.getContext());
}
