//===- DataMovement.cpp - kiln data movement to tensor and linalg -*- C++ -*-=//
//
// This file lowers the kiln ops that move or make data without computing
// on it: constants, iota and kiln.causal_mask (generics that compute each
// element from its indices, so that a mask fuses into its consumer and is
// never materialized), broadcast_in_dim, reshape, transpose, reverse,
// static and dynamic slices (start indices clamped as HLO clamps them),
// concatenate, pad (negative and interior padding), and the identities
// (annotate, optimization barriers, placement custom calls).
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

RankedTensorType lowered(const TypeConverter *converter, Type type) {
  return cast<RankedTensorType>(converter->convertType(type));
}

Value emptyLike(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

llvm::SmallVector<utils::IteratorType> parallel(int64_t rank) {
  return llvm::SmallVector<utils::IteratorType>(rank,
                                                utils::IteratorType::parallel);
}

/// A scalar constant of kiln element type attribute `value`, signless.
Value scalarConstant(OpBuilder &b, Location loc, TypedAttr value) {
  Type type = kiln::getSignlessType(value.getType());
  if (auto integer = dyn_cast<IntegerAttr>(value))
    value = IntegerAttr::get(type, integer.getValue());
  return arith::ConstantOp::create(b, loc, type, value);
}

/// `value` (any static shape) with the shape of `to` (same element count),
/// through one collapse and one expand.
Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType to) {
  auto from = cast<RankedTensorType>(value.getType());
  if (from.getShape() == to.getShape())
    return value;
  if (from.getRank() == 0)
    return tensor::ExpandShapeOp::create(
        b, loc, to, value, llvm::ArrayRef<ReassociationIndices>{});
  if (to.getRank() == 0)
    return tensor::CollapseShapeOp::create(
        b, loc, to, value, llvm::ArrayRef<ReassociationIndices>{});
  auto all = [](int64_t rank) {
    ReassociationIndices group;
    for (int64_t i = 0; i < rank; ++i)
      group.push_back(i);
    return llvm::SmallVector<ReassociationIndices>{group};
  };
  Value flat = value;
  if (from.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(
        b, loc,
        RankedTensorType::get({from.getNumElements()}, from.getElementType()),
        value, all(from.getRank()));
  if (to.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, to, flat, all(to.getRank()));
}

struct ConstantLowering : public OpConversionPattern<kiln::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    Attribute value = op.getValue();
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      if (dense.getType() != type)
        value = dense.bitcast(type.getElementType());
    } else if (cast<TypedAttr>(value).getType() != type) {
      return rewriter.notifyMatchFailure(op,
                                         "a constant of unsigned resources");
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type,
                                                   cast<TypedAttr>(value));
    return success();
  }
};

/// iota and kiln.causal_mask: a generic that computes each element from its
/// indices.
struct IotaLowering : public OpConversionPattern<kiln::IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    Type kilnElement = op.getType().getElementType();
    if (!isa<IntegerType, FloatType, ComplexType>(kilnElement))
      return rewriter.notifyMatchFailure(op, "iota of this element type");
    int64_t dimension = op.getIotaDimension();
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{},
        ValueRange{emptyLike(rewriter, op.getLoc(), type)},
        llvm::ArrayRef<AffineMap>{
            rewriter.getMultiDimIdentityMap(type.getRank())},
        parallel(type.getRank()), [&](OpBuilder &b, Location loc, ValueRange) {
          Value index = linalg::IndexOp::create(b, loc, dimension);
          Type element = type.getElementType();
          auto complexType = dyn_cast<ComplexType>(element);
          if (complexType)
            element = complexType.getElementType();
          Value value;
          if (isa<IntegerType>(element)) {
            value = arith::IndexCastOp::create(b, loc, element, index);
          } else {
            Value wide =
                arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
            Type compute = element.getIntOrFloatBitWidth() < 32
                               ? (Type)b.getF32Type()
                               : element;
            value = arith::SIToFPOp::create(b, loc, compute, wide);
            if (compute != element)
              value = arith::TruncFOp::create(b, loc, element, value);
          }
          if (complexType)
            value = complex::CreateOp::create(
                b, loc, complexType, value,
                arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0)));
          linalg::YieldOp::create(b, loc, value);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct CausalMaskLowering : public OpConversionPattern<kiln::CausalMaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::CausalMaskOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    int64_t row = op.getRowDimension(), column = op.getColumnDimension();
    std::optional<int64_t> minDiagonal, maxDiagonal;
    if (auto attr = op.getMinDiagonalAttr())
      minDiagonal = attr.getInt();
    if (auto attr = op.getMaxDiagonalAttr())
      maxDiagonal = attr.getInt();
    TypedAttr kept = op.getKept(), masked = op.getMasked();
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{},
        ValueRange{emptyLike(rewriter, op.getLoc(), type)},
        llvm::ArrayRef<AffineMap>{
            rewriter.getMultiDimIdentityMap(type.getRank())},
        parallel(type.getRank()), [&](OpBuilder &b, Location loc, ValueRange) {
          // kept where min <= j - i <= max.
          Value i = linalg::IndexOp::create(b, loc, row);
          Value j = linalg::IndexOp::create(b, loc, column);
          Value diagonal = arith::SubIOp::create(b, loc, j, i);
          Value keep = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
          if (minDiagonal)
            keep = arith::AndIOp::create(
                b, loc, keep,
                arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::sge, diagonal,
                    arith::ConstantIndexOp::create(b, loc, *minDiagonal)));
          if (maxDiagonal)
            keep = arith::AndIOp::create(
                b, loc, keep,
                arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::sle, diagonal,
                    arith::ConstantIndexOp::create(b, loc, *maxDiagonal)));
          Value value = arith::SelectOp::create(b, loc, keep,
                                                scalarConstant(b, loc, kept),
                                                scalarConstant(b, loc, masked));
          linalg::YieldOp::create(b, loc, value);
        });
    // The mask's band and its value inside: blocks wholly inside the band
    // read that constant, not the mask (BandRestriction.cpp).
    TypedAttr keptValue = kept;
    if (auto integer = dyn_cast<IntegerAttr>(kept))
      keptValue = IntegerAttr::get(kiln::getSignlessType(kept.getType()),
                                   integer.getValue());
    llvm::SmallVector<NamedAttribute> description = {
        rewriter.getNamedAttr("row", rewriter.getI64IntegerAttr(row)),
        rewriter.getNamedAttr("column", rewriter.getI64IntegerAttr(column)),
        rewriter.getNamedAttr("kept", keptValue)};
    if (minDiagonal)
      description.push_back(rewriter.getNamedAttr(
          "min_diagonal", rewriter.getI64IntegerAttr(*minDiagonal)));
    if (maxDiagonal)
      description.push_back(rewriter.getNamedAttr(
          "max_diagonal", rewriter.getI64IntegerAttr(*maxDiagonal)));
    generic->setAttr("kiln.causal_mask",
                     rewriter.getDictionaryAttr(description));
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct BroadcastInDimLowering
    : public OpConversionPattern<kiln::BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    auto operandType = cast<RankedTensorType>(op.getOperand().getType());
    llvm::SmallVector<AffineExpr> exprs;
    for (auto [k, dimension] : llvm::enumerate(op.getDimensions())) {
      if (operandType.getDimSize(k) == 1 && type.getDimSize(dimension) != 1)
        exprs.push_back(rewriter.getAffineConstantExpr(0));
      else
        exprs.push_back(rewriter.getAffineDimExpr(dimension));
    }
    int64_t rank = type.getRank();
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type},
        ValueRange{adaptor.getOperand()},
        ValueRange{emptyLike(rewriter, op.getLoc(), type)},
        llvm::ArrayRef<AffineMap>{
            AffineMap::get(rank, 0, exprs, rewriter.getContext()),
            rewriter.getMultiDimIdentityMap(rank)},
        parallel(rank), [&](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// reshape, and bitcast (a reinterpretation of the same bytes in another
/// layout: a reshape of the logical shape, layouts being row-major here).
template <typename OpTy>
struct ReshapeLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(this->getTypeConverter(), op.getType());
    Value operand = adaptor.getOperand();
    if (cast<RankedTensorType>(operand.getType()).getElementType() !=
        type.getElementType())
      return rewriter.notifyMatchFailure(op, "a bitcast between element types");
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), operand, type));
    return success();
  }
};

struct TransposeLowering : public OpConversionPattern<kiln::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getOperand(),
        emptyLike(rewriter, op.getLoc(), type), op.getDimensions());
    rewriter.replaceOp(op, transpose->getResults());
    return success();
  }
};

struct ReverseLowering : public OpConversionPattern<kiln::ReverseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::ReverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    int64_t rank = type.getRank();
    llvm::SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      exprs.push_back(rewriter.getAffineDimExpr(d));
    for (int64_t d : op.getDimensions())
      exprs[d] = rewriter.getAffineConstantExpr(type.getDimSize(d) - 1) -
                 rewriter.getAffineDimExpr(d);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type},
        ValueRange{adaptor.getOperand()},
        ValueRange{emptyLike(rewriter, op.getLoc(), type)},
        llvm::ArrayRef<AffineMap>{
            AffineMap::get(rank, 0, exprs, rewriter.getContext()),
            rewriter.getMultiDimIdentityMap(rank)},
        parallel(rank), [&](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct SliceLowering : public OpConversionPattern<kiln::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getOperand(), ValueRange{}, ValueRange{},
        ValueRange{}, op.getStartIndices(), type.getShape(), op.getStrides());
    return success();
  }
};

struct ConcatenateLowering : public OpConversionPattern<kiln::ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::ConcatenateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    int64_t dimension = op.getDimensions()[0];
    Value result = emptyLike(rewriter, op.getLoc(), type);
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      llvm::SmallVector<int64_t> offsets(type.getRank(), 0);
      offsets[dimension] = offset;
      result = tensor::InsertSliceOp::create(
          rewriter, op.getLoc(), input, result, ValueRange{}, ValueRange{},
          ValueRange{}, offsets, inputType.getShape(),
          llvm::SmallVector<int64_t>(type.getRank(), 1));
      offset += inputType.getDimSize(dimension);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PadLowering : public OpConversionPattern<kiln::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    Value operand = adaptor.getOperand();
    auto operandType = cast<RankedTensorType>(operand.getType());
    Value fill = tensor::ExtractOp::create(
        rewriter, loc, adaptor.getPaddingValue(), ValueRange{});
    // Positive padding first (edges and interior), then negative edges cut
    // off with a slice.
    int64_t rank = type.getRank();
    llvm::SmallVector<int64_t> low, high, paddedShape, strides, cut;
    bool negative = false;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t l = op.getEdgePaddingLow()[d], h = op.getEdgePaddingHigh()[d];
      int64_t interior = op.getInteriorPadding()[d];
      int64_t size = operandType.getDimSize(d);
      int64_t spread = size == 0 ? 0 : size + (size - 1) * interior;
      low.push_back(std::max<int64_t>(l, 0));
      high.push_back(std::max<int64_t>(h, 0));
      paddedShape.push_back(low.back() + spread + high.back());
      strides.push_back(interior + 1);
      cut.push_back(std::max<int64_t>(-l, 0));
      negative |= l < 0 || h < 0;
    }
    auto paddedType = RankedTensorType::get(paddedShape, type.getElementType());
    Value filled =
        linalg::FillOp::create(rewriter, loc, ValueRange{fill},
                               ValueRange{emptyLike(rewriter, loc, paddedType)})
            .getResult(0);
    Value padded = tensor::InsertSliceOp::create(
        rewriter, loc, operand, filled, ValueRange{}, ValueRange{},
        ValueRange{}, low, operandType.getShape(), strides);
    if (negative)
      padded = tensor::ExtractSliceOp::create(
          rewriter, loc, type, padded, ValueRange{}, ValueRange{}, ValueRange{},
          cut, type.getShape(), llvm::SmallVector<int64_t>(rank, 1));
    rewriter.replaceOp(op, padded);
    return success();
  }
};

/// Start indices of a dynamic slice, each clamped to [0, size - window].
llvm::SmallVector<OpFoldResult>
clampedStarts(OpBuilder &b, Location loc, ValueRange kilnIndices,
              ValueRange indices, llvm::ArrayRef<int64_t> operandShape,
              llvm::ArrayRef<int64_t> windowShape) {
  llvm::SmallVector<OpFoldResult> starts;
  for (auto [d, pair] : llvm::enumerate(llvm::zip(kilnIndices, indices))) {
    auto [kilnIndex, index] = pair;
    Value scalar = tensor::ExtractOp::create(b, loc, index, ValueRange{});
    auto kilnType = cast<IntegerType>(
        cast<RankedTensorType>(kilnIndex.getType()).getElementType());
    Value position = kiln::castToIndex(b, loc, scalar, kilnType);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value last = arith::ConstantIndexOp::create(
        b, loc, std::max<int64_t>(operandShape[d] - windowShape[d], 0));
    position = arith::MaxSIOp::create(b, loc, position, zero);
    position = arith::MinSIOp::create(b, loc, position, last);
    starts.push_back(position);
  }
  return starts;
}

struct DynamicSliceLowering : public OpConversionPattern<kiln::DynamicSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::DynamicSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    auto operandType = cast<RankedTensorType>(adaptor.getOperand().getType());
    llvm::SmallVector<OpFoldResult> starts = clampedStarts(
        rewriter, op.getLoc(), op.getStartIndices(), adaptor.getStartIndices(),
        operandType.getShape(), type.getShape());
    llvm::SmallVector<OpFoldResult> sizes, strides;
    for (int64_t size : type.getShape()) {
      sizes.push_back(rewriter.getIndexAttr(size));
      strides.push_back(rewriter.getIndexAttr(1));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getOperand(), starts, sizes, strides);
    return success();
  }
};

struct DynamicUpdateSliceLowering
    : public OpConversionPattern<kiln::DynamicUpdateSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::DynamicUpdateSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto operandType = cast<RankedTensorType>(adaptor.getOperand().getType());
    auto updateType = cast<RankedTensorType>(adaptor.getUpdate().getType());
    llvm::SmallVector<OpFoldResult> starts = clampedStarts(
        rewriter, op.getLoc(), op.getStartIndices(), adaptor.getStartIndices(),
        operandType.getShape(), updateType.getShape());
    llvm::SmallVector<OpFoldResult> sizes, strides;
    for (int64_t size : updateType.getShape()) {
      sizes.push_back(rewriter.getIndexAttr(size));
      strides.push_back(rewriter.getIndexAttr(1));
    }
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getUpdate(), adaptor.getOperand(), starts, sizes, strides);
    return success();
  }
};

/// bitcast_convert between element types of different widths: the narrow
/// side has a last dimension of the ratio, whose elements are the wide
/// element's bits, lowest first.
struct WidthChangingBitcastLowering
    : public OpConversionPattern<kiln::BitcastConvertOp> {
  WidthChangingBitcastLowering(const TypeConverter &converter,
                               MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(kiln::BitcastConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value operand = adaptor.getOperands().front();
    auto inType = cast<RankedTensorType>(operand.getType());
    RankedTensorType outType = lowered(getTypeConverter(), op.getType());
    Type inElement = inType.getElementType(),
         outElement = outType.getElementType();
    // A complex number is its real part's bits, then its imaginary part's.
    auto widthOf = [](Type type) -> unsigned {
      if (auto complex = dyn_cast<ComplexType>(type))
        return 2 * complex.getElementType().getIntOrFloatBitWidth();
      return type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 0;
    };
    if (!widthOf(inElement) || !widthOf(outElement) ||
        !inType.hasStaticShape() || !outType.hasStaticShape())
      return failure();
    unsigned inWidth = widthOf(inElement);
    unsigned outWidth = widthOf(outElement);
    if (inWidth == outWidth)
      return failure();
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    auto bitsOf = [](OpBuilder &b, Location loc, Value value) -> Value {
      Type type = value.getType();
      if (isa<IntegerType>(type))
        return value;
      if (auto complex = dyn_cast<ComplexType>(type)) {
        unsigned part = complex.getElementType().getIntOrFloatBitWidth();
        Type partBits = b.getIntegerType(part),
             all = b.getIntegerType(2 * part);
        auto widened = [&](Value x) -> Value {
          return arith::ExtUIOp::create(
              b, loc, all, arith::BitcastOp::create(b, loc, partBits, x));
        };
        Value re = widened(complex::ReOp::create(b, loc, value));
        Value im = widened(complex::ImOp::create(b, loc, value));
        Value high = arith::ShLIOp::create(
            b, loc, im,
            arith::ConstantOp::create(b, loc, b.getIntegerAttr(all, part)));
        return arith::OrIOp::create(b, loc, re, high);
      }
      return arith::BitcastOp::create(
          b, loc, b.getIntegerType(type.getIntOrFloatBitWidth()), value);
    };
    auto fromBits = [](OpBuilder &b, Location loc, Value bits,
                       Type type) -> Value {
      if (auto complex = dyn_cast<ComplexType>(type)) {
        Type part = complex.getElementType();
        unsigned width = part.getIntOrFloatBitWidth();
        Type partBits = b.getIntegerType(width);
        Value re = arith::TruncIOp::create(b, loc, partBits, bits);
        Value im = arith::TruncIOp::create(
            b, loc, partBits,
            arith::ShRUIOp::create(
                b, loc, bits,
                arith::ConstantOp::create(
                    b, loc, b.getIntegerAttr(bits.getType(), width))));
        return complex::CreateOp::create(
            b, loc, complex, arith::BitcastOp::create(b, loc, part, re),
            arith::BitcastOp::create(b, loc, part, im));
      }
      return isa<IntegerType>(type)
                 ? bits
                 : (Value)arith::BitcastOp::create(b, loc, type, bits);
    };
    bool widen = outWidth > inWidth;
    RankedTensorType wide = widen ? outType : inType;
    int64_t rank = wide.getRank();
    // Iterations over the narrow side's dimensions: the wide side drops
    // the last one.
    AffineMap all = AffineMap::getMultiDimIdentityMap(rank + 1, context);
    llvm::SmallVector<AffineExpr> leading;
    for (int64_t d = 0; d < rank; ++d)
      leading.push_back(getAffineDimExpr(d, context));
    AffineMap dropLast = AffineMap::get(rank + 1, 0, leading, context);
    unsigned narrowWidth = widen ? inWidth : outWidth;
    unsigned wideWidth = widen ? outWidth : inWidth;
    Type wideBits = rewriter.getIntegerType(wideWidth);
    auto shiftOf = [&](OpBuilder &b, Location loc) -> Value {
      Value index = linalg::IndexOp::create(b, loc, rank);
      Value position = arith::IndexCastOp::create(b, loc, wideBits, index);
      return arith::MulIOp::create(
          b, loc, position,
          arith::ConstantOp::create(b, loc,
                                    b.getIntegerAttr(wideBits, narrowWidth)));
    };
    linalg::GenericOp generic;
    if (widen) {
      Value zero = arith::ConstantOp::create(
          rewriter, loc, rewriter.getIntegerAttr(wideBits, 0));
      auto accumulatorType =
          RankedTensorType::get(outType.getShape(), wideBits);
      Value init = linalg::FillOp::create(
                       rewriter, loc, zero,
                       ValueRange{emptyLike(rewriter, loc, accumulatorType)})
                       .getResult(0);
      llvm::SmallVector<utils::IteratorType> iterators = parallel(rank);
      iterators.push_back(utils::IteratorType::reduction);
      generic = linalg::GenericOp::create(
          rewriter, loc, TypeRange{accumulatorType}, ValueRange{operand},
          ValueRange{init}, llvm::ArrayRef<AffineMap>{all, dropLast}, iterators,
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value part = arith::ExtUIOp::create(b, loc, wideBits,
                                                bitsOf(b, loc, args[0]));
            Value placed = arith::ShLIOp::create(b, loc, part, shiftOf(b, loc));
            linalg::YieldOp::create(
                b, loc, Value(arith::OrIOp::create(b, loc, args[1], placed)));
          });
      Value result = generic.getResult(0);
      if (!isa<IntegerType>(outElement)) {
        auto converted = linalg::GenericOp::create(
            rewriter, loc, TypeRange{outType}, ValueRange{result},
            ValueRange{emptyLike(rewriter, loc, outType)},
            llvm::SmallVector<AffineMap>(
                2, rewriter.getMultiDimIdentityMap(outType.getRank())),
            parallel(outType.getRank()),
            [&](OpBuilder &b, Location loc, ValueRange args) {
              linalg::YieldOp::create(b, loc,
                                      fromBits(b, loc, args[0], outElement));
            });
        result = converted.getResult(0);
      }
      rewriter.replaceOp(op, result);
      return success();
    }
    generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{operand},
        ValueRange{emptyLike(rewriter, loc, outType)},
        llvm::ArrayRef<AffineMap>{dropLast, all}, parallel(rank + 1),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value bits = bitsOf(b, loc, args[0]);
          Value shifted = arith::ShRUIOp::create(b, loc, bits, shiftOf(b, loc));
          Value part = arith::TruncIOp::create(
              b, loc, b.getIntegerType(narrowWidth), shifted);
          linalg::YieldOp::create(b, loc, fromBits(b, loc, part, outElement));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// get_dimension_size of a static shape: the size, a constant.
struct GetDimensionSizeLowering
    : public OpConversionPattern<kiln::GetDimensionSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::GetDimensionSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto operandType = cast<RankedTensorType>(op.getOperand().getType());
    llvm::ArrayRef<int64_t> dimensions = op.getDimensions();
    if (dimensions.size() != 1 || operandType.isDynamicDim(dimensions.front()))
      return rewriter.notifyMatchFailure(op, "a dynamic dimension");
    auto type = RankedTensorType::get({}, rewriter.getI32Type());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(
                type, rewriter.getI32IntegerAttr(
                          operandType.getDimSize(dimensions.front()))));
    return success();
  }
};

/// dynamic_reshape whose result shape is static: a reshape.
struct DynamicReshapeLowering
    : public OpConversionPattern<kiln::DynamicReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::DynamicReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "a dynamic result shape");
    RankedTensorType type = lowered(getTypeConverter(), resultType);
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(),
                                         adaptor.getOperands().front(), type));
    return success();
  }
};

/// map: a generic whose body is the mapped computation on scalars.
struct MapLowering : public OpConversionPattern<kiln::MapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::MapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = lowered(getTypeConverter(), op.getType());
    int64_t rank = type.getRank();
    llvm::SmallVector<AffineMap> maps(adaptor.getInputs().size() + 1,
                                      rewriter.getMultiDimIdentityMap(rank));
    bool built = true;
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, adaptor.getInputs(),
        ValueRange{emptyLike(rewriter, op.getLoc(), type)}, maps,
        parallel(rank), [&](OpBuilder &b, Location loc, ValueRange args) {
          FailureOr<llvm::SmallVector<Value>> results =
              kiln::inlineScalarRegion(b, op.getToApply(), args.drop_back());
          if (failed(results) || results->size() != 1) {
            built = false;
            linalg::YieldOp::create(b, loc, args.back());
            return;
          }
          linalg::YieldOp::create(b, loc, results->front());
        });
    if (!built) {
      rewriter.eraseOp(generic);
      return rewriter.notifyMatchFailure(op, "a computation not compiled");
    }
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// Ops that are identities on one device: annotate, optimization barriers.
template <typename OpTy>
struct IdentityLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumOperands() != op->getNumResults())
      return failure();
    for (auto [operand, result] :
         llvm::zip(adaptor.getOperands(), op->getResults()))
      if (operand.getType() !=
          this->getTypeConverter()->convertType(result.getType()))
        return rewriter.notifyMatchFailure(op,
                                           "an identity that changes types");
    rewriter.replaceOp(op, adaptor.getOperands());
    return success();
  }
};

} // namespace

void kiln::populateKilnDataMovementToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns
      .add<ConstantLowering, IotaLowering, CausalMaskLowering,
           BroadcastInDimLowering, ReshapeLowering<kiln::ReshapeOp>,
           ReshapeLowering<kiln::BitcastOp>, TransposeLowering, ReverseLowering,
           SliceLowering, ConcatenateLowering, PadLowering,
           DynamicSliceLowering, DynamicUpdateSliceLowering,
           IdentityLowering<kiln::AnnotateOp>, GetDimensionSizeLowering,
           DynamicReshapeLowering, MapLowering, WidthChangingBitcastLowering,
           IdentityLowering<kiln::OptimizationBarrierOp>>(
          converter, patterns.getContext());
}
