//===- Contraction.cpp - kiln.dot_general to linalg -------------*- C++ -*-===//
//
// This file lowers dot_general to a linalg contraction: loops over the
// batch dimensions, lhs free, rhs free and contracting dimensions, in that
// order, so that the result's dimensions (batch, lhs free, rhs free) are
// the leading loops. bf16 and f16 operands are multiplied and accumulated
// in f32 and rounded once at the end, as the reference evaluator and XLA's
// CPU code accumulate; integers are extended to the result's width by the
// operands' signedness.
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

/// Brings `value` (of kiln element type `kilnType`) to the accumulator type
/// `accumulator`.
Value extendTo(OpBuilder &b, Location loc, Value value, Type kilnType,
               Type accumulator) {
  if (value.getType() == accumulator)
    return value;
  if (isa<FloatType>(accumulator)) {
    if (isa<IntegerType>(value.getType()))
      return cast<IntegerType>(kilnType).isUnsigned()
                 ? (Value)arith::UIToFPOp::create(b, loc, accumulator, value)
                 : (Value)arith::SIToFPOp::create(b, loc, accumulator, value);
    if (value.getType().getIntOrFloatBitWidth() <
        accumulator.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, accumulator, value);
    return arith::TruncFOp::create(b, loc, accumulator, value);
  }
  unsigned from = value.getType().getIntOrFloatBitWidth();
  unsigned to = accumulator.getIntOrFloatBitWidth();
  if (from > to)
    return arith::TruncIOp::create(b, loc, accumulator, value);
  auto integer = cast<IntegerType>(kilnType);
  return integer.isUnsigned() || integer.getWidth() == 1
             ? (Value)arith::ExtUIOp::create(b, loc, accumulator, value)
             : (Value)arith::ExtSIOp::create(b, loc, accumulator, value);
}

struct DotGeneralLowering : public OpConversionPattern<kiln::DotGeneralOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    Type resultElement = resultType.getElementType();
    for (Type type : {lhsType.getElementType(), rhsType.getElementType(),
                      op.getType().getElementType()})
      if (!isa<IntegerType>(type) && !type.isBF16() && !type.isF16() &&
          !type.isF32() && !type.isF64())
        return op.emitError() << "dot_general on element type " << type
                              << " is not compiled by the CPU backend";
    bool narrow = resultElement.isBF16() || resultElement.isF16();
    Type accumulator = narrow ? rewriter.getF32Type() : resultElement;

    llvm::ArrayRef<int64_t> lhsBatch = op.getLhsBatchDims(),
                            rhsBatch = op.getRhsBatchDims(),
                            lhsContracting = op.getLhsContractingDims(),
                            rhsContracting = op.getRhsContractingDims();
    int64_t batch = lhsBatch.size(), contracting = lhsContracting.size();
    int64_t lhsFree = lhsType.getRank() - batch - contracting;
    int64_t rhsFree = rhsType.getRank() - batch - contracting;
    int64_t loops = batch + lhsFree + rhsFree + contracting;
    auto dim = [&](int64_t d) { return rewriter.getAffineDimExpr(d); };
    auto operandMap = [&](int64_t rank, llvm::ArrayRef<int64_t> batchDims,
                          llvm::ArrayRef<int64_t> contractingDims,
                          int64_t freeStart) {
      llvm::SmallVector<AffineExpr> exprs;
      int64_t free = freeStart;
      for (int64_t d = 0; d < rank; ++d) {
        if (auto it = llvm::find(batchDims, d); it != batchDims.end())
          exprs.push_back(dim(it - batchDims.begin()));
        else if (auto it = llvm::find(contractingDims, d);
                 it != contractingDims.end())
          exprs.push_back(
              dim(batch + lhsFree + rhsFree + (it - contractingDims.begin())));
        else
          exprs.push_back(dim(free++));
      }
      return AffineMap::get(loops, 0, exprs, rewriter.getContext());
    };
    llvm::SmallVector<AffineExpr> resultExprs;
    for (int64_t d = 0; d < batch + lhsFree + rhsFree; ++d)
      resultExprs.push_back(dim(d));
    llvm::SmallVector<AffineMap> maps = {
        operandMap(lhsType.getRank(), lhsBatch, lhsContracting, batch),
        operandMap(rhsType.getRank(), rhsBatch, rhsContracting,
                   batch + lhsFree),
        AffineMap::get(loops, 0, resultExprs, rewriter.getContext())};
    llvm::SmallVector<utils::IteratorType> iterators(
        batch + lhsFree + rhsFree, utils::IteratorType::parallel);
    iterators.append(contracting, utils::IteratorType::reduction);

    auto accumulatorType =
        RankedTensorType::get(resultType.getShape(), accumulator);
    Value zero = arith::ConstantOp::create(rewriter, loc, accumulator,
                                           rewriter.getZeroAttr(accumulator));
    Value init =
        linalg::FillOp::create(
            rewriter, loc, ValueRange{zero},
            ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                               accumulatorType.getShape(),
                                               accumulator)})
            .getResult(0);
    Type lhsKiln = lhsType.getElementType(), rhsKiln = rhsType.getElementType();
    auto contraction = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accumulatorType},
        ValueRange{adaptor.getLhs(), adaptor.getRhs()}, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location nested, ValueRange args) {
          Value x = extendTo(b, nested, args[0], lhsKiln, accumulator);
          Value y = extendTo(b, nested, args[1], rhsKiln, accumulator);
          Value sum;
          if (isa<FloatType>(accumulator))
            sum = arith::AddFOp::create(b, nested, args[2],
                                        arith::MulFOp::create(b, nested, x, y));
          else if (accumulator.getIntOrFloatBitWidth() == 1)
            sum = arith::OrIOp::create(b, nested, args[2],
                                       arith::AndIOp::create(b, nested, x, y));
          else
            sum = arith::AddIOp::create(b, nested, args[2],
                                        arith::MulIOp::create(b, nested, x, y));
          linalg::YieldOp::create(b, nested, sum);
        });
    Value result = contraction.getResult(0);
    if (narrow) {
      int64_t rank = resultType.getRank();
      result =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{resultType}, ValueRange{result},
              ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                                 resultType.getShape(),
                                                 resultElement)},
              llvm::SmallVector<AffineMap>(2,
                                           rewriter.getMultiDimIdentityMap(rank)),
              llvm::SmallVector<utils::IteratorType>(
                  rank, utils::IteratorType::parallel),
              [&](OpBuilder &b, Location nested, ValueRange args) {
                linalg::YieldOp::create(
                    b, nested,
                    arith::TruncFOp::create(b, nested, resultElement, args[0])
                        .getResult());
              })
              .getResult(0);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A dot_general that is exactly a matmul ([M,K] x [K,N]) or a
/// batch_matmul ([B,M,K] x [B,K,N]) of one float type: the named op, which
/// the CPU pipeline tiles for registers and caches. Preferred to the
/// generic contraction.
struct DotGeneralToNamedMatmul : public OpConversionPattern<kiln::DotGeneralOp> {
  DotGeneralToNamedMatmul(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(kiln::DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    if ((!element.isF32() && !element.isF64()) ||
        lhsType.getElementType() != element ||
        rhsType.getElementType() != element)
      return failure();
    auto is = [](llvm::ArrayRef<int64_t> dims,
                 std::initializer_list<int64_t> expected) {
      return dims == llvm::ArrayRef<int64_t>(expected);
    };
    bool matmul = lhsType.getRank() == 2 && rhsType.getRank() == 2 &&
                  op.getLhsBatchDims().empty() &&
                  is(op.getLhsContractingDims(), {1}) &&
                  is(op.getRhsContractingDims(), {0});
    bool batched = lhsType.getRank() == 3 && rhsType.getRank() == 3 &&
                   is(op.getLhsBatchDims(), {0}) &&
                   is(op.getRhsBatchDims(), {0}) &&
                   is(op.getLhsContractingDims(), {2}) &&
                   is(op.getRhsContractingDims(), {1});
    if (!matmul && !batched)
      return failure();
    Location loc = op.getLoc();
    Value zero = arith::ConstantOp::create(rewriter, loc, element,
                                           rewriter.getZeroAttr(element));
    Value init =
        linalg::FillOp::create(
            rewriter, loc, ValueRange{zero},
            ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                               resultType.getShape(), element)})
            .getResult(0);
    llvm::SmallVector<Value> inputs = {adaptor.getLhs(), adaptor.getRhs()};
    Operation *named =
        matmul ? linalg::MatmulOp::create(rewriter, loc, TypeRange{resultType},
                                          inputs, ValueRange{init})
                     .getOperation()
               : linalg::BatchMatmulOp::create(rewriter, loc,
                                               TypeRange{resultType}, inputs,
                                               ValueRange{init})
                     .getOperation();
    rewriter.replaceOp(op, named->getResults());
    return success();
  }
};

} // namespace

void kiln::populateKilnContractionToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotGeneralLowering, DotGeneralToNamedMatmul>(
      converter, patterns.getContext());
}
