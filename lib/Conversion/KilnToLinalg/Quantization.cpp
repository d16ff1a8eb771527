//===- Quantization.cpp - quantized types to their storage integers -*- C++
//-*-===//
//
// This file lowers StableHLO's uniform quantization. Quantized tensors are
// their storage integers after conversion (getSignlessType).
// uniform_quantize and uniform_dequantize become element-wise generics that
// compute as the reference evaluator does, in the expressed type: a value
// is (stored - zero point) * scale, and quantizing rounds value / scale +
// zero point to even (NaN to 0) and clamps it to the storage range; a
// per-axis type reads its scale and zero point at the element's index
// along its axis. Every other op on quantized tensors computes in the
// expressed type (StableHLO's meaning): before the conversion, its
// quantized operands are dequantized, it is rebuilt on the expressed
// types, and its quantized results quantized again; ops that only move
// elements keep moving the stored integers.
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace {

quant::QuantizedType getQuantized(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return dyn_cast<quant::QuantizedType>(shaped.getElementType());
  return nullptr;
}

/// `type` with its quantized element type replaced by the expressed type.
Type getExpressed(Type type) {
  auto quantized = getQuantized(type);
  if (!quantized)
    return type;
  return cast<RankedTensorType>(type).clone(quantized.getExpressedType());
}

/// Ops that only move elements: they move stored integers as they are (a
/// bitcast_convert reads a quantized value's stored integers).
bool movesElementsOnly(Operation *op) {
  if (isa<kiln::BitcastConvertOp>(op))
    return true;
  return isa<kiln::ConstantOp, kiln::ReshapeOp, kiln::TransposeOp,
             kiln::BroadcastInDimOp, kiln::SliceOp, kiln::ConcatenateOp,
             kiln::ReverseOp, kiln::UniformQuantizeOp,
             kiln::UniformDequantizeOp>(op);
}

/// A value rounded to `expressed` (computed in f32 when narrower), as the
/// evaluator rounds after each step.
Value roundTo(OpBuilder &b, Location loc, Value value, FloatType expressed) {
  if (expressed.getWidth() >= 32)
    return value;
  Value narrow = arith::TruncFOp::create(b, loc, expressed, value);
  return arith::ExtFOp::create(b, loc, value.getType(), narrow);
}

/// `value` as `compute` holds it, rounded to `expressed` first (the type
/// whose values quantization works with).
llvm::APFloat roundThrough(double value, FloatType expressed,
                           FloatType compute) {
  llvm::APFloat result(value);
  bool losesInfo;
  result.convert(expressed.getFloatSemantics(),
                 llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  result.convert(compute.getFloatSemantics(),
                 llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

/// The scale and zero point of `quantized` for the element at `indices`:
/// constants, or for a per-axis type, lookups at the index along its axis.
std::pair<Value, Value> getParameters(OpBuilder &b, Location loc,
                                      quant::QuantizedType quantized,
                                      FloatType compute, ValueRange indices) {
  auto expressed = cast<FloatType>(quantized.getExpressedType());
  auto scaleOf = [&](double scale) -> Value {
    return arith::ConstantOp::create(
        b, loc, compute,
        b.getFloatAttr(compute, roundThrough(scale, expressed, compute)));
  };
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(quantized))
    return {scaleOf(uniform.getScale()),
            arith::ConstantOp::create(
                b, loc, compute,
                b.getFloatAttr(compute, (double)uniform.getZeroPoint()))};
  auto perAxis = cast<quant::UniformQuantizedPerAxisType>(quantized);
  int64_t channels = perAxis.getScales().size();
  llvm::SmallVector<llvm::APFloat> scales, zeroPoints;
  for (double scale : perAxis.getScales())
    scales.push_back(roundThrough(scale, expressed, compute));
  // Zero points are integers, exact in every float type used here.
  for (int64_t zeroPoint : perAxis.getZeroPoints())
    zeroPoints.push_back(roundThrough((double)zeroPoint, compute, compute));
  auto table = RankedTensorType::get({channels}, compute);
  Value channel = indices[perAxis.getQuantizedDimension()];
  Value scale = tensor::ExtractOp::create(
      b, loc,
      arith::ConstantOp::create(b, loc, table,
                                DenseElementsAttr::get(table, scales)),
      channel);
  Value zeroPoint = tensor::ExtractOp::create(
      b, loc,
      arith::ConstantOp::create(b, loc, table,
                                DenseElementsAttr::get(table, zeroPoints)),
      channel);
  return {scale, zeroPoint};
}

/// The real value of stored integer `stored` of `quantized`, in `compute`
/// rounded to the expressed type.
Value dequantizeScalar(OpBuilder &b, Location loc, Value stored,
                       quant::QuantizedType quantized, FloatType compute,
                       ValueRange indices) {
  auto [scale, zeroPoint] = getParameters(b, loc, quantized, compute, indices);
  Value value = quantized.isSigned()
                    ? (Value)arith::SIToFPOp::create(b, loc, compute, stored)
                    : (Value)arith::UIToFPOp::create(b, loc, compute, stored);
  Value centered = arith::SubFOp::create(b, loc, value, zeroPoint);
  return roundTo(b, loc, arith::MulFOp::create(b, loc, centered, scale),
                 cast<FloatType>(quantized.getExpressedType()));
}

/// The stored integer for real value `value` (in `compute`).
Value quantizeScalar(OpBuilder &b, Location loc, Value value,
                     quant::QuantizedType quantized, FloatType compute,
                     ValueRange indices) {
  auto expressed = cast<FloatType>(quantized.getExpressedType());
  auto [scale, zeroPoint] = getParameters(b, loc, quantized, compute, indices);
  Value scaled =
      roundTo(b, loc, arith::DivFOp::create(b, loc, value, scale), expressed);
  scaled = roundTo(b, loc, arith::AddFOp::create(b, loc, scaled, zeroPoint),
                   expressed);
  Value rounded = math::RoundEvenOp::create(b, loc, scaled);
  auto bound = [&](int64_t limit) -> Value {
    return arith::ConstantOp::create(b, loc, compute,
                                     b.getFloatAttr(compute, (double)limit));
  };
  Value clamped = arith::MinimumFOp::create(
      b, loc,
      arith::MaximumFOp::create(b, loc, rounded,
                                bound(quantized.getStorageTypeMin())),
      bound(quantized.getStorageTypeMax()));
  // NaN becomes 0, as XLA converts NaN to integers (not the zero point).
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                      clamped, clamped);
  clamped = arith::SelectOp::create(
      b, loc, isNaN,
      arith::ConstantOp::create(b, loc, compute, b.getFloatAttr(compute, 0)),
      clamped);
  auto storage =
      IntegerType::get(b.getContext(), quantized.getStorageTypeIntegralWidth());
  return quantized.isSigned()
             ? (Value)arith::FPToSIOp::create(b, loc, storage, clamped)
             : (Value)arith::FPToUIOp::create(b, loc, storage, clamped);
}

/// uniform_quantize and uniform_dequantize as one element-wise generic.
template <typename OpTy>
struct QuantizationLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type from = op->getOperand(0).getType(), to = op.getType();
    quant::QuantizedType fromQuantized = getQuantized(from),
                         toQuantized = getQuantized(to);
    Type fromExpressed = fromQuantized
                             ? fromQuantized.getExpressedType()
                             : cast<ShapedType>(from).getElementType();
    Type toExpressed = toQuantized ? toQuantized.getExpressedType()
                                   : cast<ShapedType>(to).getElementType();
    if (!isa<FloatType>(fromExpressed) || !isa<FloatType>(toExpressed))
      return rewriter.notifyMatchFailure(op, "not a float expressed type");
    auto resultType =
        cast<RankedTensorType>(this->getTypeConverter()->convertType(to));
    if (!resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    FloatType compute = rewriter.getF32Type();
    if (cast<FloatType>(fromExpressed).getWidth() > 32 ||
        cast<FloatType>(toExpressed).getWidth() > 32)
      compute = rewriter.getF64Type();
    int64_t rank = resultType.getRank();
    auto identity = rewriter.getMultiDimIdentityMap(rank);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType},
            ValueRange{adaptor.getOperand()},
            ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                               resultType.getShape(),
                                               resultType.getElementType())},
            llvm::SmallVector<AffineMap>{identity, identity},
            llvm::SmallVector<utils::IteratorType>(
                rank, utils::IteratorType::parallel),
            [&](OpBuilder &b, Location nested, ValueRange args) {
              llvm::SmallVector<Value> indices;
              for (int64_t d = 0; d < rank; ++d)
                indices.push_back(linalg::IndexOp::create(b, nested, d));
              Value value = args[0];
              if (fromQuantized)
                value = dequantizeScalar(b, nested, value, fromQuantized,
                                         compute, indices);
              else if (value.getType() != compute)
                value =
                    compute.getWidth() > value.getType().getIntOrFloatBitWidth()
                        ? (Value)arith::ExtFOp::create(b, nested, compute,
                                                       value)
                        : (Value)arith::TruncFOp::create(b, nested, compute,
                                                         value);
              if (toQuantized) {
                value = quantizeScalar(b, nested, value, toQuantized, compute,
                                       indices);
              } else if (value.getType() != resultType.getElementType()) {
                Type element = resultType.getElementType();
                value = element.getIntOrFloatBitWidth() > compute.getWidth()
                            ? (Value)arith::ExtFOp::create(b, nested, element,
                                                           value)
                            : (Value)arith::TruncFOp::create(b, nested, element,
                                                             value);
              }
              linalg::YieldOp::create(b, nested, value);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

LogicalResult kiln::dequantizeComputations(Operation *root) {
  llvm::SmallVector<Operation *> quantizedOps;
  root->walk([&](Operation *op) {
    if (!isa_and_nonnull<kiln::KilnDialect>(op->getDialect()) ||
        movesElementsOnly(op) || isa<kiln::CheckOp, kiln::ReturnOp>(op))
      return;
    bool quantized = llvm::any_of(op->getOperandTypes(), getQuantized) ||
                     llvm::any_of(op->getResultTypes(), getQuantized);
    if (quantized)
      quantizedOps.push_back(op);
  });
  for (Operation *op : quantizedOps) {
    // Regions over quantized scalars (a reducer) would need the same
    // rewriting inside; none is written by JAX.
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (getQuantized(type))
            return op->emitError("a region over quantized values is not "
                                 "compiled by the CPU backend");
    OpBuilder builder(op);
    Location loc = op->getLoc();
    IRMapping mapping;
    for (Value operand : op->getOperands()) {
      if (!getQuantized(operand.getType()))
        continue;
      mapping.map(operand,
                  kiln::UniformDequantizeOp::create(
                      builder, loc, getExpressed(operand.getType()), operand)
                      .getResult());
    }
    Operation *computed = builder.clone(*op, mapping);
    for (OpResult result : computed->getResults())
      result.setType(getExpressed(result.getType()));
    builder.setInsertionPointAfter(computed);
    for (auto [old, now] :
         llvm::zip(op->getResults(), computed->getResults())) {
      Value replacement = now;
      if (getQuantized(old.getType()))
        replacement =
            kiln::UniformQuantizeOp::create(builder, loc, old.getType(), now)
                .getResult();
      old.replaceAllUsesWith(replacement);
    }
    op->erase();
  }
  return success();
}

void kiln::populateKilnQuantizationToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<QuantizationLowering<kiln::UniformQuantizeOp>,
               QuantizationLowering<kiln::UniformDequantizeOp>>(
      converter, patterns.getContext());
}
