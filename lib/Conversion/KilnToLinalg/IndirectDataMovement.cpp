//===- IndirectDataMovement.cpp - kiln scatter and gather -------*- C++ -*-===//
//
// This file lowers the ops that move data to or from positions read at run
// time. Gather is a generic whose body reads the operand at each element's
// clamped position. Scatter becomes one scf.for over the update elements, carrying the
// results: each element's position in the operand is its start index (read
// from the index tensor), its batch position and its window offset, an
// element that falls outside the operand is skipped, and one that lands is
// combined with the update computation inlined as scalar code, in the
// updates' row-major order, exactly as the reference evaluator does.
// select_and_scatter is a loop of the same kind over its source.
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

/// Where in the operand a gather's or scatter's element starts: for each
/// `startMap[k]`, component k of the start vector that the index tensor
/// holds at the element's `batch` position (index_vector_dim adding k),
/// passed through `adjust` (gather clamps it; scatter does not); for each
/// operand batching dimension, the batch position's component of the
/// matching index batching dimension; 0 elsewhere.
llvm::SmallVector<Value>
startPosition(OpBuilder &b, Location loc, Value indices, Type indexElement,
              ValueRange batch, int64_t indexVectorDim,
              llvm::ArrayRef<int64_t> startMap,
              llvm::ArrayRef<int64_t> operandBatching,
              llvm::ArrayRef<int64_t> indicesBatching, int64_t operandRank,
              llvm::function_ref<Value(int64_t dim, Value start)> adjust) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  auto indicesType = cast<RankedTensorType>(indices.getType());
  int64_t indicesRank = indicesType.getRank();
  int64_t starts =
      indexVectorDim < indicesRank ? indicesType.getDimSize(indexVectorDim) : 1;
  llvm::SmallVector<Value> full(operandRank, constant(0));
  for (auto [k, d] : llvm::enumerate(startMap)) {
    if ((int64_t)k >= starts)
      break;
    llvm::SmallVector<Value> position;
    size_t next = 0;
    for (int64_t i = 0; i < indicesRank; ++i)
      position.push_back(i == indexVectorDim ? constant(k) : batch[next++]);
    Value scalar = tensor::ExtractOp::create(b, loc, indices, position);
    full[d] = adjust(d, kiln::castToIndex(b, loc, scalar, indexElement));
  }
  for (auto [k, d] : llvm::enumerate(operandBatching))
    for (size_t position = 0; position < batch.size(); ++position) {
      int64_t indexDim =
          (int64_t)position < indexVectorDim ? position : position + 1;
      if (indexDim == indicesBatching[k])
        full[d] = batch[position];
    }
  return full;
}

struct ScatterLowering : public OpConversionPattern<kiln::ScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::ScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    ValueRange updates = adaptor.getUpdates();
    Value indices = adaptor.getScatterIndices();
    size_t count = inputs.size();
    auto operandType = cast<RankedTensorType>(inputs.front().getType());
    auto updateType = cast<RankedTensorType>(updates.front().getType());
    Type indexElement =
        cast<RankedTensorType>(op.getScatterIndices().getType()).getElementType();
    llvm::ArrayRef<int64_t> operandShape = operandType.getShape();
    llvm::ArrayRef<int64_t> updateShape = updateType.getShape();
    int64_t operandRank = operandShape.size(), updateRank = updateShape.size();
    int64_t indexVectorDim = op.getIndexVectorDim();
    llvm::ArrayRef<int64_t> windowDims = op.getUpdateWindowDims(),
                            inserted = op.getInsertedWindowDims(),
                            inputBatching = op.getInputBatchingDims(),
                            indicesBatching = op.getScatterIndicesBatchingDims(),
                            toOperand = op.getScatterDimsToOperandDims();
    llvm::SmallVector<int64_t> operandWindowDims;
    for (int64_t d = 0; d < operandRank; ++d)
      if (!llvm::is_contained(inserted, d) &&
          !llvm::is_contained(inputBatching, d))
        operandWindowDims.push_back(d);

    auto constant = [&](OpBuilder &b, int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    Value zero = constant(rewriter, 0), one = constant(rewriter, 1);
    Value total = constant(rewriter, updateType.getNumElements());
    bool built = true;
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, total, one, inputs,
        [&](OpBuilder &b, Location, Value u, ValueRange accumulators) {
          // The update element's index, row-major.
          llvm::SmallVector<Value> updateIndex(updateRank);
          Value rest = u;
          for (int64_t d = updateRank - 1; d >= 0; --d) {
            Value size = constant(b, updateShape[d]);
            updateIndex[d] = arith::RemUIOp::create(b, loc, rest, size);
            rest = arith::DivUIOp::create(b, loc, rest, size);
          }
          llvm::SmallVector<Value> batch, window;
          for (int64_t d = 0; d < updateRank; ++d)
            (llvm::is_contained(windowDims, d) ? window : batch)
                .push_back(updateIndex[d]);
          llvm::SmallVector<Value> full = startPosition(
              b, loc, indices, indexElement, batch, indexVectorDim, toOperand,
              inputBatching, indicesBatching, operandRank,
              [](int64_t, Value start) { return start; });
          for (auto [k, d] : llvm::enumerate(operandWindowDims))
            full[d] = arith::AddIOp::create(b, loc, full[d], window[k]);
          Value inBounds = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
          for (int64_t d = 0; d < operandRank; ++d) {
            Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                              full[d], constant(b, 0));
            Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                               full[d],
                                               constant(b, operandShape[d]));
            inBounds = arith::AndIOp::create(
                b, loc, inBounds, arith::AndIOp::create(b, loc, low, high));
          }
          auto update = scf::IfOp::create(
              b, loc, inBounds,
              [&](OpBuilder &then, Location) {
                llvm::SmallVector<Value> arguments;
                for (Value accumulator : accumulators)
                  arguments.push_back(
                      tensor::ExtractOp::create(then, loc, accumulator, full));
                for (Value values : updates)
                  arguments.push_back(
                      tensor::ExtractOp::create(then, loc, values, updateIndex));
                FailureOr<llvm::SmallVector<Value>> combined =
                    kiln::inlineScalarRegion(then, op.getToApply(), arguments);
                if (failed(combined)) {
                  built = false;
                  scf::YieldOp::create(then, loc, accumulators);
                  return;
                }
                llvm::SmallVector<Value> written;
                for (size_t k = 0; k < count; ++k)
                  written.push_back(tensor::InsertOp::create(
                      then, loc, (*combined)[k], accumulators[k], full));
                scf::YieldOp::create(then, loc, written);
              },
              [&](OpBuilder &otherwise, Location) {
                scf::YieldOp::create(otherwise, loc, accumulators);
              });
          scf::YieldOp::create(b, loc, update.getResults());
        });
    if (!built)
      return failure();
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

/// gather: a generic over the result whose body computes each element's
/// operand position (start indices read from the index tensor and clamped
/// so that the slice fits, as HLO clamps them, plus the window offset) and
/// reads the operand there.
struct GatherLowering : public OpConversionPattern<kiln::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    Value indices = adaptor.getStartIndices();
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    auto operandType = cast<RankedTensorType>(operand.getType());
    Type indexElement =
        cast<RankedTensorType>(op.getStartIndices().getType()).getElementType();
    llvm::ArrayRef<int64_t> operandShape = operandType.getShape();
    int64_t operandRank = operandShape.size();
    int64_t resultRank = resultType.getRank();
    int64_t indexVectorDim = op.getIndexVectorDim();
    llvm::ArrayRef<int64_t> offsetDims = op.getOffsetDims(),
                            collapsed = op.getCollapsedSliceDims(),
                            operandBatching = op.getOperandBatchingDims(),
                            indicesBatching = op.getStartIndicesBatchingDims(),
                            startIndexMap = op.getStartIndexMap(),
                            sliceSizes = op.getSliceSizes();
    llvm::SmallVector<int64_t> windowDims;
    for (int64_t d = 0; d < operandRank; ++d)
      if (!llvm::is_contained(collapsed, d) &&
          !llvm::is_contained(operandBatching, d))
        windowDims.push_back(d);
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{}, ValueRange{init},
        llvm::ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(resultRank)},
        llvm::SmallVector<utils::IteratorType>(resultRank,
                                               utils::IteratorType::parallel),
        [&](OpBuilder &b, Location, ValueRange) {
          auto constant = [&](int64_t value) -> Value {
            return arith::ConstantIndexOp::create(b, loc, value);
          };
          llvm::SmallVector<Value> batch, offsets;
          for (int64_t d = 0; d < resultRank; ++d)
            (llvm::is_contained(offsetDims, d) ? offsets : batch)
                .push_back(linalg::IndexOp::create(b, loc, d));
          // Starts clamped so that the slice fits, as HLO clamps them.
          llvm::SmallVector<Value> full = startPosition(
              b, loc, indices, indexElement, batch, indexVectorDim,
              startIndexMap, operandBatching, indicesBatching, operandRank,
              [&](int64_t d, Value start) -> Value {
                start = arith::MinSIOp::create(
                    b, loc, start, constant(operandShape[d] - sliceSizes[d]));
                return arith::MaxSIOp::create(b, loc, start, constant(0));
              });
          for (auto [k, d] : llvm::enumerate(windowDims))
            full[d] = arith::AddIOp::create(b, loc, full[d], offsets[k]);
          Value value = tensor::ExtractOp::create(b, loc, operand, full);
          linalg::YieldOp::create(b, loc, value);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// select_and_scatter (max-pooling's gradient): the output starts as the
/// init value everywhere; one scf.for over the source elements, carrying
/// the output, finds each window's selected element (an inner loop over the
/// window: the first element that `select` prefers to every later one,
/// padding and base-dilation holes taking no part) and combines the source
/// element into it with `scatter`, both regions inlined as scalar code, in
/// the source's row-major order, as the reference evaluator does.
struct SelectAndScatterLowering
    : public OpConversionPattern<kiln::SelectAndScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::SelectAndScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand(), source = adaptor.getSource();
    auto operandType = cast<RankedTensorType>(operand.getType());
    auto sourceType = cast<RankedTensorType>(source.getType());
    auto resultType =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    if (!operandType.hasStaticShape() || !sourceType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    llvm::ArrayRef<int64_t> inShape = operandType.getShape(),
                            sourceShape = sourceType.getShape(),
                            windowShape = op.getWindowDimensions();
    int64_t rank = inShape.size();
    auto at = [](llvm::ArrayRef<int64_t> values, int64_t i, int64_t dflt) {
      return i < (int64_t)values.size() ? values[i] : dflt;
    };
    llvm::ArrayRef<int64_t> strides = op.getWindowStrides(),
                            baseDilations = op.getBaseDilations(),
                            windowDilations = op.getWindowDilations(),
                            low = op.getPaddingLow();
    int64_t windowElements = 1;
    for (int64_t size : windowShape)
      windowElements *= size;
    auto constant = [&](OpBuilder &b, int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    auto delinearize = [&](OpBuilder &b, Value linear,
                           llvm::ArrayRef<int64_t> shape) {
      llvm::SmallVector<Value> index(shape.size());
      for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
        Value size = constant(b, shape[d]);
        index[d] = arith::RemUIOp::create(b, loc, linear, size);
        linear = arith::DivUIOp::create(b, loc, linear, size);
      }
      return index;
    };
    Value init = tensor::ExtractOp::create(rewriter, loc,
                                           adaptor.getInitValue(), ValueRange());
    Value start =
        linalg::FillOp::create(
            rewriter, loc, ValueRange{init},
            ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                               resultType.getShape(),
                                               resultType.getElementType())})
            .getResult(0);
    bool built = true;
    auto loop = scf::ForOp::create(
        rewriter, loc, constant(rewriter, 0),
        constant(rewriter, sourceType.getNumElements()),
        constant(rewriter, 1), ValueRange{start},
        [&](OpBuilder &b, Location, Value s, ValueRange carried) {
          llvm::SmallVector<Value> position = delinearize(b, s, sourceShape);
          // (found, selected index...) over the window.
          llvm::SmallVector<Value> initial = {
              arith::ConstantOp::create(b, loc, b.getBoolAttr(false))};
          for (int64_t d = 0; d < rank; ++d)
            initial.push_back(constant(b, 0));
          auto search = scf::ForOp::create(
              b, loc, constant(b, 0), constant(b, windowElements),
              constant(b, 1), initial,
              [&](OpBuilder &wb, Location, Value n, ValueRange state) {
                llvm::SmallVector<Value> w = delinearize(wb, n, windowShape);
                Value inside =
                    arith::ConstantOp::create(wb, loc, wb.getBoolAttr(true));
                llvm::SmallVector<Value> element;
                for (int64_t d = 0; d < rank; ++d) {
                  Value p = arith::AddIOp::create(
                      wb, loc,
                      arith::MulIOp::create(wb, loc, position[d],
                                            constant(wb, at(strides, d, 1))),
                      arith::MulIOp::create(
                          wb, loc, w[d],
                          constant(wb, at(windowDilations, d, 1))));
                  p = arith::SubIOp::create(wb, loc, p,
                                            constant(wb, at(low, d, 0)));
                  Value dilation = constant(wb, at(baseDilations, d, 1));
                  Value q = arith::DivSIOp::create(wb, loc, p, dilation);
                  Value ok = arith::AndIOp::create(
                      wb, loc,
                      arith::CmpIOp::create(wb, loc, arith::CmpIPredicate::sge,
                                            p, constant(wb, 0)),
                      arith::CmpIOp::create(
                          wb, loc, arith::CmpIPredicate::eq,
                          arith::RemSIOp::create(wb, loc, p, dilation),
                          constant(wb, 0)));
                  ok = arith::AndIOp::create(
                      wb, loc, ok,
                      arith::CmpIOp::create(wb, loc, arith::CmpIPredicate::slt,
                                            q, constant(wb, inShape[d])));
                  inside = arith::AndIOp::create(wb, loc, inside, ok);
                  element.push_back(q);
                }
                auto step = scf::IfOp::create(
                    wb, loc, inside,
                    [&](OpBuilder &then, Location) {
                      Value found = state[0];
                      ValueRange selected = state.drop_front();
                      // The first element is taken; a later one replaces
                      // the selection unless `select` keeps it.
                      auto choose = scf::IfOp::create(
                          then, loc, found,
                          [&](OpBuilder &keepBuilder, Location) {
                            Value current = tensor::ExtractOp::create(
                                keepBuilder, loc, operand, selected);
                            Value candidate = tensor::ExtractOp::create(
                                keepBuilder, loc, operand, element);
                            FailureOr<llvm::SmallVector<Value>> keep =
                                kiln::inlineScalarRegion(
                                    keepBuilder, op.getSelect(),
                                    {current, candidate});
                            Value kept =
                                succeeded(keep)
                                    ? keep->front()
                                    : arith::ConstantOp::create(
                                          keepBuilder, loc,
                                          keepBuilder.getBoolAttr(true));
                            built &= succeeded(keep);
                            scf::YieldOp::create(keepBuilder, loc, kept);
                          },
                          [&](OpBuilder &first, Location) {
                            scf::YieldOp::create(
                                first, loc,
                                ValueRange{arith::ConstantOp::create(
                                    first, loc, first.getBoolAttr(false))});
                          });
                      Value keep = choose.getResult(0);
                      llvm::SmallVector<Value> next = {arith::ConstantOp::create(
                          then, loc, then.getBoolAttr(true))};
                      for (int64_t d = 0; d < rank; ++d)
                        next.push_back(arith::SelectOp::create(
                            then, loc, keep, selected[d], element[d]));
                      scf::YieldOp::create(then, loc, next);
                    },
                    [&](OpBuilder &otherwise, Location) {
                      scf::YieldOp::create(otherwise, loc, state);
                    });
                scf::YieldOp::create(wb, loc, step.getResults());
              });
          Value found = search.getResult(0);
          llvm::SmallVector<Value> selected(search.getResults().drop_front());
          auto scatter = scf::IfOp::create(
              b, loc, found,
              [&](OpBuilder &then, Location) {
                Value accumulated =
                    tensor::ExtractOp::create(then, loc, carried[0], selected);
                Value value =
                    tensor::ExtractOp::create(then, loc, source, position);
                FailureOr<llvm::SmallVector<Value>> combined =
                    kiln::inlineScalarRegion(then, op.getScatter(),
                                             {accumulated, value});
                if (failed(combined)) {
                  built = false;
                  scf::YieldOp::create(then, loc, carried);
                  return;
                }
                scf::YieldOp::create(
                    then, loc,
                    ValueRange{tensor::InsertOp::create(
                        then, loc, combined->front(), carried[0], selected)});
              },
              [&](OpBuilder &otherwise, Location) {
                scf::YieldOp::create(otherwise, loc, carried);
              });
          scf::YieldOp::create(b, loc, scatter.getResults());
        });
    if (!built)
      return failure();
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

} // namespace

void kiln::populateKilnIndirectDataMovementToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ScatterLowering, GatherLowering, SelectAndScatterLowering>(
      converter, patterns.getContext());
}
