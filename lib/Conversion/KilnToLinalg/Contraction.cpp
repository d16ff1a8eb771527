//===- Contraction.cpp - dot_general and convolution to linalg --*- C++ -*-===//
//
// This file lowers dot_general to a linalg contraction: loops over the
// batch dimensions, lhs free, rhs free and contracting dimensions, in that
// order, so that the result's dimensions (batch, lhs free, rhs free) are
// the leading loops. A convolution is the same kind of contraction over
// its input padded and dilated first (an index computation per element),
// with the window's strides, dilations, reversal and feature and batch
// groups in the input's indexing map. bf16 and f16 operands are multiplied and
// accumulated in f32 and rounded once at the end, as the reference evaluator
// and XLA's CPU code accumulate; integers are extended to the result's width by
// the operands' signedness.
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/GenericOpBuilder.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/BandBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// The contraction of `lhs` and `rhs` (of kiln element types `lhsKiln`,
/// `rhsKiln`) by `maps` and `iterators` (the result's loops first): the
/// products accumulated from zero in `accumulator` (complex numbers through
/// the complex dialect, predicates as an or of ands), and rounded once to
/// the result's element type when that is narrower.
Value buildContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                       Type lhsKiln, Type rhsKiln, RankedTensorType resultType,
                       Type accumulator, llvm::ArrayRef<AffineMap> maps,
                       llvm::ArrayRef<utils::IteratorType> iterators) {
  auto accumulatorType =
      RankedTensorType::get(resultType.getShape(), accumulator);
  Value zero;
  if (auto complexType = dyn_cast<ComplexType>(accumulator)) {
    Attribute part = b.getFloatAttr(complexType.getElementType(), 0);
    zero = complex::ConstantOp::create(b, loc, complexType,
                                       b.getArrayAttr({part, part}));
  } else {
    zero = arith::ConstantOp::create(b, loc, accumulator,
                                     b.getZeroAttr(accumulator));
  }
  Value init = linalg::FillOp::create(
                   b, loc, ValueRange{zero},
                   ValueRange{tensor::EmptyOp::create(
                       b, loc, accumulatorType.getShape(), accumulator)})
                   .getResult(0);
  Value result =
      linalg::GenericOp::create(
          b, loc, TypeRange{accumulatorType}, ValueRange{lhs, rhs},
          ValueRange{init}, maps, iterators,
          [&](OpBuilder &nb, Location nested, ValueRange args) {
            Value sum;
            if (isa<ComplexType>(accumulator)) {
              sum = complex::AddOp::create(
                  nb, nested, args[2],
                  complex::MulOp::create(nb, nested, args[0], args[1]));
            } else {
              Value x = extendTo(nb, nested, args[0], lhsKiln, accumulator);
              Value y = extendTo(nb, nested, args[1], rhsKiln, accumulator);
              if (isa<FloatType>(accumulator))
                sum = arith::AddFOp::create(
                    nb, nested, args[2],
                    arith::MulFOp::create(nb, nested, x, y));
              else if (accumulator.getIntOrFloatBitWidth() == 1)
                sum = arith::OrIOp::create(
                    nb, nested, args[2],
                    arith::AndIOp::create(nb, nested, x, y));
              else
                sum = arith::AddIOp::create(
                    nb, nested, args[2],
                    arith::MulIOp::create(nb, nested, x, y));
            }
            linalg::YieldOp::create(nb, nested, sum);
          })
          .getResult(0);
  Type resultElement = resultType.getElementType();
  if (accumulator == resultElement)
    return result;
  int64_t rank = resultType.getRank();
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{result},
             ValueRange{tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                                resultElement)},
             llvm::SmallVector<AffineMap>(2, b.getMultiDimIdentityMap(rank)),
             llvm::SmallVector<utils::IteratorType>(
                 rank, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nested, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nested,
                   arith::TruncFOp::create(nb, nested, resultElement, args[0])
                       .getResult());
             })
      .getResult(0);
}

/// Whether `op` is a weighted sum by the band's blocks whose lhs is not
/// written outside them.
bool readsUnwrittenBlocks(kiln::DotGeneralOp op) {
  auto mask = op->getAttrOfType<DictionaryAttr>("kiln.masked_contraction");
  if (!mask || mask.getAs<StringAttr>("role").getValue() != "values")
    return false;
  Operation *producer = op.getLhs().getDefiningOp();
  if (!producer)
    return false;
  for (llvm::StringRef name : {"kiln.band", "kiln.masked_contraction"})
    if (auto mark = producer->getAttrOfType<DictionaryAttr>(name))
      if (mark.get("unread_outside"))
        return true;
  return false;
}

struct DotGeneralLowering : public OpConversionPattern<kiln::DotGeneralOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // A weighted sum whose lhs is left unwritten outside the band
    // (MarkMaskedContractions decided so because the band's blocks are all
    // that DotGeneralToNamedMatmul reads) must not be computed whole here.
    if (readsUnwrittenBlocks(op))
      return op.emitOpError(
          "marked to read its lhs by the band's blocks, which are unwritten "
          "outside the band, is not computed by blocks");
    Location loc = op.getLoc();
    auto resultType =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    Type resultElement = resultType.getElementType();
    // Complex numbers multiply and add through the complex dialect, all
    // three of one type.
    bool isComplex = isa<ComplexType>(resultElement);
    for (Type type : {lhsType.getElementType(), rhsType.getElementType(),
                      op.getType().getElementType()})
      if (isComplex ? type != resultElement
                    : !isa<IntegerType>(type) && !kiln::isNarrowFloat(type) &&
                          !type.isF32() && !type.isF64())
        return op.emitError() << "dot_general on element type " << type
                              << " is not compiled by the CPU backend";
    bool narrow = kiln::isNarrowFloat(resultElement);
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

    Value result =
        buildContraction(rewriter, loc, adaptor.getLhs(), adaptor.getRhs(),
                         lhsType.getElementType(), rhsType.getElementType(),
                         resultType, accumulator, maps, iterators);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `value` with its dimensions permuted to `order` (a copy unless the
/// order is the identity).
Value permute(OpBuilder &b, Location loc, Value value,
              llvm::ArrayRef<int64_t> order) {
  if (llvm::equal(order, llvm::seq<int64_t>(0, order.size())))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  llvm::SmallVector<int64_t> shape;
  for (int64_t d : order)
    shape.push_back(type.getDimSize(d));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, value, init, order)->getResult(0);
}

/// `value` with consecutive dimensions collapsed into groups of the given
/// sizes (a group of size 0 becomes a dimension of extent 1).
Value collapseGroups(OpBuilder &b, Location loc, Value value,
                     llvm::ArrayRef<int64_t> groupSizes) {
  auto type = cast<RankedTensorType>(value.getType());
  llvm::SmallVector<ReassociationIndices> groups;
  llvm::SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t size : groupSizes) {
    ReassociationIndices group;
    int64_t extent = 1;
    for (int64_t k = 0; k < size; ++k) {
      group.push_back(next);
      extent *= type.getDimSize(next++);
    }
    groups.push_back(group);
    shape.push_back(extent);
  }
  auto collapsedType = RankedTensorType::get(shape, type.getElementType());
  // Empty groups (no batch, no free dimension) need a unit dimension: expand
  // first, through a reshape of the whole.
  if (llvm::any_of(groupSizes, [](int64_t size) { return size == 0; })) {
    ReassociationIndices all;
    for (int64_t d = 0; d < type.getRank(); ++d)
      all.push_back(d);
    Value flat =
        type.getRank() == 1
            ? value
            : (type.getRank() == 0
                   ? tensor::ExpandShapeOp::create(
                         b, loc,
                         RankedTensorType::get({1}, type.getElementType()),
                         value, llvm::ArrayRef<ReassociationIndices>{})
                         .getResult()
                   : tensor::CollapseShapeOp::create(
                         b, loc,
                         RankedTensorType::get({type.getNumElements()},
                                               type.getElementType()),
                         value, llvm::ArrayRef<ReassociationIndices>{all})
                         .getResult());
    ReassociationIndices target;
    for (size_t d = 0; d < shape.size(); ++d)
      target.push_back(d);
    return tensor::ExpandShapeOp::create(
        b, loc, collapsedType, flat,
        llvm::ArrayRef<ReassociationIndices>{target});
  }
  return tensor::CollapseShapeOp::create(b, loc, collapsedType, value, groups);
}

/// The contraction of [batch, rows, depth] x [batch, depth, columns]
/// operands block by block, skipping the blocks that lie wholly outside the
/// band `minDiagonal <= j - i <= maxDiagonal` (the analysis of
/// kiln-mark-masked-contractions): for "scores" the band is over (rows,
/// columns) and a skipped block stays 0 (its positions are masked before
/// anything reads them); for "values" it is over (rows, depth) and a
/// skipped block of terms is 0 (the sums add the others, in order). Blocks
/// are static batch matmuls, which the pipeline tiles and vectorizes. Null
/// when no block size divides the shape.
Value buildMaskedContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                             DictionaryAttr mask) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Type element = lhsType.getElementType();
  int64_t batch = lhsType.getDimSize(0), rows = lhsType.getDimSize(1),
          depth = lhsType.getDimSize(2), columns = rhsType.getDimSize(2);
  bool scores = mask.getAs<StringAttr>("role").getValue() == "scores";
  // The band's second dimension: columns for scores, depth for values.
  int64_t banded = scores ? columns : depth;
  int64_t block = kiln::getBandBlockSize(rows, banded);
  if (block == 0)
    return nullptr;
  std::optional<int64_t> minDiagonal, maxDiagonal;
  if (auto attr = mask.getAs<IntegerAttr>("min_diagonal"))
    minDiagonal = attr.getInt();
  if (auto attr = mask.getAs<IntegerAttr>("max_diagonal"))
    maxDiagonal = attr.getInt();
  auto index = [&](OpBuilder &builder, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value zero =
      arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
  llvm::SmallVector<int64_t> resultShape = {batch, rows, columns};
  // Scores whose skipped blocks only ops computed in the same blocks read
  // (kiln.band) are left unwritten there.
  Value result;
  if (scores && mask.get("unread_outside"))
    result = bufferization::AllocTensorOp::create(
        b, loc, RankedTensorType::get(resultShape, element), ValueRange{});
  else
    result =
        linalg::FillOp::create(
            b, loc, ValueRange{zero},
            ValueRange{tensor::EmptyOp::create(b, loc, resultShape, element)})
            .getResult(0);
  auto staticSizes = [&](std::initializer_list<int64_t> sizes) {
    llvm::SmallVector<OpFoldResult> folded;
    for (int64_t size : sizes)
      folded.push_back(b.getIndexAttr(size));
    return folded;
  };
  auto ones = staticSizes({1, 1, 1});
  auto loop = scf::ForOp::create(
      b, loc, index(b, 0), index(b, rows / block), index(b, 1),
      ValueRange{result},
      [&](OpBuilder &outer, Location, Value rowBlock, ValueRange rowArgs) {
        Value rowStart =
            arith::MulIOp::create(outer, loc, rowBlock, index(outer, block));
        // The blocks of the banded dimension that meet the band for rows
        // [rowStart, rowStart + block): j >= rowStart + min and
        // j <= rowStart + block - 1 + max.
        Value first = index(outer, 0);
        Value last = index(outer, banded / block);
        if (minDiagonal) {
          Value low = arith::AddIOp::create(outer, loc, rowStart,
                                            index(outer, *minDiagonal));
          low = arith::MaxSIOp::create(outer, loc, low, index(outer, 0));
          low = arith::MinSIOp::create(outer, loc, low, index(outer, banded));
          first = arith::DivSIOp::create(outer, loc, low, index(outer, block));
        }
        if (maxDiagonal) {
          Value high = arith::AddIOp::create(
              outer, loc, rowStart, index(outer, block + *maxDiagonal));
          high = arith::MaxSIOp::create(outer, loc, high, index(outer, 0));
          high = arith::MinSIOp::create(outer, loc, high, index(outer, banded));
          // Blocks up to the one holding position high - 1.
          last = arith::DivSIOp::create(
              outer, loc,
              arith::AddIOp::create(outer, loc, high, index(outer, block - 1)),
              index(outer, block));
        }
        auto inner = scf::ForOp::create(
            outer, loc, first, last, index(outer, 1), rowArgs,
            [&](OpBuilder &builder, Location, Value blockIndex,
                ValueRange args) {
              Value start = arith::MulIOp::create(builder, loc, blockIndex,
                                                  index(builder, block));
              Value accumulated = args[0];
              auto slice = [&](Value source, OpFoldResult a, OpFoldResult c,
                               int64_t sizeA, int64_t sizeC,
                               int64_t sizeB) -> Value {
                llvm::SmallVector<OpFoldResult> offsets = {
                    builder.getIndexAttr(0), a, c};
                auto type =
                    RankedTensorType::get({sizeB, sizeA, sizeC}, element);
                return tensor::ExtractSliceOp::create(
                    builder, loc, type, source, offsets,
                    staticSizes({sizeB, sizeA, sizeC}), ones);
              };
              OpFoldResult zeroIndex = builder.getIndexAttr(0);
              Value lhsBlock, rhsBlock, outBlock;
              OpFoldResult outColumn;
              if (scores) {
                lhsBlock = slice(lhs, rowStart, zeroIndex, block, depth, batch);
                rhsBlock = slice(rhs, zeroIndex, start, depth, block, batch);
                outColumn = start;
                // Zeroed in place: the block of the result it is written to.
                outBlock = linalg::FillOp::create(
                               builder, loc, ValueRange{zero},
                               ValueRange{slice(accumulated, rowStart, start,
                                                block, block, batch)})
                               .getResult(0);
              } else {
                lhsBlock = slice(lhs, rowStart, start, block, block, batch);
                rhsBlock = slice(rhs, start, zeroIndex, block, columns, batch);
                outColumn = zeroIndex;
                outBlock = slice(accumulated, rowStart, zeroIndex, block,
                                 columns, batch);
              }
              llvm::SmallVector<Value> inputs = {lhsBlock, rhsBlock};
              Value product = linalg::BatchMatmulOp::create(
                                  builder, loc, TypeRange{outBlock.getType()},
                                  inputs, ValueRange{outBlock})
                                  ->getResult(0);
              llvm::SmallVector<OpFoldResult> offsets = {zeroIndex, rowStart,
                                                         outColumn};
              auto outShape =
                  cast<RankedTensorType>(product.getType()).getShape();
              Value inserted = tensor::InsertSliceOp::create(
                  builder, loc, product, accumulated, offsets,
                  staticSizes({outShape[0], outShape[1], outShape[2]}), ones);
              scf::YieldOp::create(builder, loc, inserted);
            });
        scf::YieldOp::create(outer, loc, inner.getResults());
      });
  // The CPU backend runs this loop and the softmax's over the same blocks of
  // rows as one (BandRestriction.cpp): rows `block` at a time, in dimension
  // 1 of the result.
  loop->setAttr("kiln.band_rows", b.getI64IntegerAttr(block));
  return loop.getResult(0);
}

/// `value`'s elements converted to the float type `to` (extended, or
/// rounded to nearest even).
Value convertFloats(OpBuilder &b, Location loc, Value value, Type to) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  bool widen = to.getIntOrFloatBitWidth() >
               type.getElementType().getIntOrFloatBitWidth();
  return linalg::GenericOp::create(
             b, loc, TypeRange{type.clone(to)}, ValueRange{value},
             ValueRange{tensor::EmptyOp::create(b, loc, type.getShape(), to)},
             llvm::SmallVector<AffineMap>(2, b.getMultiDimIdentityMap(rank)),
             llvm::SmallVector<utils::IteratorType>(
                 rank, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nested, ValueRange args) {
               Value converted =
                   widen ? (Value)arith::ExtFOp::create(nb, nested, to, args[0])
                         : (Value)arith::TruncFOp::create(nb, nested, to,
                                                          args[0]);
               linalg::YieldOp::create(nb, nested, converted);
             })
      .getResult(0);
}

/// A dot_general of one float type (f32, f64; bf16 and f16 computed in
/// f32) in any dimension order: the
/// operands are transposed (when they must be) to [batch, rows, depth] and
/// [batch, depth, columns] with each group collapsed to one dimension, and
/// multiplied by linalg.batch_matmul (linalg.matmul without batch
/// dimensions), which the CPU pipeline tiles for registers and caches. The
/// sums run over the contracting dimensions in the same row-major order as
/// the generic contraction's, so the result is the same (bf16 and f16
/// products are exact in f32, and the sums are rounded once, at the end, as
/// the evaluator rounds them). Preferred to the generic contraction.
struct DotGeneralToNamedMatmul
    : public OpConversionPattern<kiln::DotGeneralOp> {
  DotGeneralToNamedMatmul(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(kiln::DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    // What the products are summed in: f64, or f32 for f32 and the narrow
    // floats (bf16, f16, f8: whose products f32 holds exactly).
    auto isNarrow = [](Type type) { return kiln::isNarrowFloat(type); };
    Type compute;
    if (element.isF64())
      compute = element;
    else if (element.isF32() || isNarrow(element))
      compute = rewriter.getF32Type();
    auto computable = [&](Type type) {
      return type == compute || (compute.isF32() && isNarrow(type));
    };
    if (!compute || !computable(lhsType.getElementType()) ||
        !computable(rhsType.getElementType()) || !lhsType.hasStaticShape() ||
        !rhsType.hasStaticShape())
      return failure();
    llvm::ArrayRef<int64_t> lhsBatch = op.getLhsBatchDims(),
                            rhsBatch = op.getRhsBatchDims(),
                            lhsContracting = op.getLhsContractingDims(),
                            rhsContracting = op.getRhsContractingDims();
    auto freeDims = [](int64_t rank, llvm::ArrayRef<int64_t> batch,
                       llvm::ArrayRef<int64_t> contracting) {
      llvm::SmallVector<int64_t> free;
      for (int64_t d = 0; d < rank; ++d)
        if (!llvm::is_contained(batch, d) &&
            !llvm::is_contained(contracting, d))
          free.push_back(d);
      return free;
    };
    llvm::SmallVector<int64_t> lhsFree =
        freeDims(lhsType.getRank(), lhsBatch, lhsContracting);
    llvm::SmallVector<int64_t> rhsFree =
        freeDims(rhsType.getRank(), rhsBatch, rhsContracting);
    Location loc = op.getLoc();
    // [batch, free, contracting] and [batch, contracting, free].
    llvm::SmallVector<int64_t> lhsOrder(lhsBatch), rhsOrder(rhsBatch);
    llvm::append_range(lhsOrder, lhsFree);
    llvm::append_range(lhsOrder, lhsContracting);
    llvm::append_range(rhsOrder, rhsContracting);
    llvm::append_range(rhsOrder, rhsFree);
    Value lhs = permute(rewriter, loc, adaptor.getLhs(), lhsOrder);
    Value rhs = permute(rewriter, loc, adaptor.getRhs(), rhsOrder);
    int64_t batch = lhsBatch.size(), contracting = lhsContracting.size();
    lhs = collapseGroups(rewriter, loc, lhs,
                         {batch, (int64_t)lhsFree.size(), contracting});
    rhs = collapseGroups(rewriter, loc, rhs,
                         {batch, contracting, (int64_t)rhsFree.size()});
    // Narrow operands are widened just before the product reads them (a
    // reshape between would let linalg's fusion turn the matmul into a
    // generic, which is not tiled).
    auto widen = [&](Value value) {
      if (getElementTypeOrSelf(value.getType()) == compute)
        return value;
      return convertFloats(rewriter, loc, value, compute);
    };
    auto lhsCollapsed = cast<RankedTensorType>(lhs.getType());
    auto rhsCollapsed = cast<RankedTensorType>(rhs.getType());
    llvm::SmallVector<int64_t> productShape = {lhsCollapsed.getDimSize(0),
                                               lhsCollapsed.getDimSize(1),
                                               rhsCollapsed.getDimSize(2)};
    Value zero = arith::ConstantOp::create(rewriter, loc, compute,
                                           rewriter.getZeroAttr(compute));
    Value masked;
    if (auto mask =
            op->getAttrOfType<DictionaryAttr>("kiln.masked_contraction"))
      if (lhsFree.size() == 1 && contracting == 1)
        masked =
            buildMaskedContraction(rewriter, loc, widen(lhs), widen(rhs), mask);
    Operation *product = nullptr;
    if (masked) {
      // The blocks skipped outside the band.
    } else if (batch == 0) {
      // Drop the unit batch dimension: a plain matmul.
      auto drop = [&](Value value) -> Value {
        auto type = cast<RankedTensorType>(value.getType());
        return tensor::CollapseShapeOp::create(
            rewriter, loc,
            RankedTensorType::get(type.getShape().drop_front(),
                                  type.getElementType()),
            value, llvm::ArrayRef<ReassociationIndices>{{0, 1}, {2}});
      };
      lhs = widen(drop(lhs));
      rhs = widen(drop(rhs));
      llvm::SmallVector<int64_t> shape(productShape.begin() + 1,
                                       productShape.end());
      Value init = linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                          ValueRange{tensor::EmptyOp::create(
                                              rewriter, loc, shape, compute)})
                       .getResult(0);
      llvm::SmallVector<Value> inputs = {lhs, rhs};
      product = linalg::MatmulOp::create(
          rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init});
    } else {
      Value init =
          linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                 ValueRange{tensor::EmptyOp::create(
                                     rewriter, loc, productShape, compute)})
              .getResult(0);
      lhs = widen(lhs);
      rhs = widen(rhs);
      llvm::SmallVector<Value> inputs = {lhs, rhs};
      product = linalg::BatchMatmulOp::create(
          rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init});
    }
    Value result = masked ? masked : product->getResult(0);
    if (compute != element)
      result = convertFloats(rewriter, loc, result, element);
    auto converted =
        cast<RankedTensorType>(getTypeConverter()->convertType(resultType));
    // Back to [batch..., lhs free..., rhs free...].
    if (cast<RankedTensorType>(result.getType()).getShape() !=
        converted.getShape()) {
      auto type = cast<RankedTensorType>(result.getType());
      ReassociationIndices all;
      for (int64_t d = 0; d < type.getRank(); ++d)
        all.push_back(d);
      Value flat = tensor::CollapseShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({type.getNumElements()}, element), result,
          llvm::ArrayRef<ReassociationIndices>{all});
      if (converted.getRank() == 0) {
        result = tensor::CollapseShapeOp::create(
            rewriter, loc, converted, flat,
            llvm::ArrayRef<ReassociationIndices>{});
      } else if (converted.getRank() == 1) {
        result = flat;
      } else {
        ReassociationIndices target;
        for (int64_t d = 0; d < converted.getRank(); ++d)
          target.push_back(d);
        result = tensor::ExpandShapeOp::create(
            rewriter, loc, converted, flat,
            llvm::ArrayRef<ReassociationIndices>{target});
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The lhs of a convolution with its padding (negative: cropping) and base
/// dilation applied, as one element-wise computation from indices: an
/// element between dilated ones or in the padding is 0. Null when there is
/// nothing to apply.
Value padAndDilate(OpBuilder &b, Location loc, Value input,
                   llvm::ArrayRef<int64_t> spatialDims,
                   llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                   llvm::ArrayRef<int64_t> dilations) {
  auto type = cast<RankedTensorType>(input.getType());
  auto at = [](llvm::ArrayRef<int64_t> values, size_t i, int64_t dflt) {
    return i < values.size() ? values[i] : dflt;
  };
  bool trivial = true;
  llvm::SmallVector<int64_t> shape(type.getShape());
  for (auto [s, d] : llvm::enumerate(spatialDims)) {
    int64_t l = at(low, s, 0), h = at(high, s, 0), dil = at(dilations, s, 1);
    trivial &= l == 0 && h == 0 && dil == 1;
    int64_t size = type.getDimSize(d);
    shape[d] = (size > 0 ? (size - 1) * dil + 1 : 0) + l + h;
    if (shape[d] < 0)
      shape[d] = 0;
  }
  if (trivial)
    return input;
  Type element = type.getElementType();
  auto paddedType = RankedTensorType::get(shape, element);
  int64_t rank = type.getRank();
  return linalg::GenericOp::create(
             b, loc, TypeRange{paddedType}, ValueRange{},
             ValueRange{tensor::EmptyOp::create(b, loc, shape, element)},
             llvm::SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank)},
             llvm::SmallVector<utils::IteratorType>(
                 rank, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nested, ValueRange) {
               auto constant = [&](int64_t value) -> Value {
                 return arith::ConstantIndexOp::create(nb, nested, value);
               };
               Value inside =
                   arith::ConstantIntOp::create(nb, nested, nb.getI1Type(), 1);
               llvm::SmallVector<Value> indices;
               for (int64_t d = 0; d < rank; ++d) {
                 Value q = linalg::IndexOp::create(nb, nested, d);
                 auto spatial = llvm::find(spatialDims, d);
                 if (spatial == spatialDims.end()) {
                   indices.push_back(q);
                   continue;
                 }
                 size_t s = spatial - spatialDims.begin();
                 int64_t dil = at(dilations, s, 1);
                 Value source = arith::SubIOp::create(nb, nested, q,
                                                      constant(at(low, s, 0)));
                 Value index =
                     arith::DivSIOp::create(nb, nested, source, constant(dil));
                 Value ok = arith::AndIOp::create(
                     nb, nested,
                     arith::CmpIOp::create(nb, nested,
                                           arith::CmpIPredicate::sge, source,
                                           constant(0)),
                     arith::CmpIOp::create(
                         nb, nested, arith::CmpIPredicate::eq,
                         arith::RemSIOp::create(nb, nested, source,
                                                constant(dil)),
                         constant(0)));
                 ok = arith::AndIOp::create(
                     nb, nested, ok,
                     arith::CmpIOp::create(nb, nested,
                                           arith::CmpIPredicate::slt, index,
                                           constant(type.getDimSize(d))));
                 inside = arith::AndIOp::create(nb, nested, inside, ok);
                 indices.push_back(arith::SelectOp::create(nb, nested, ok,
                                                           index, constant(0)));
               }
               Value value =
                   tensor::ExtractOp::create(nb, nested, input, indices);
               Value zero = arith::ConstantOp::create(nb, nested, element,
                                                      nb.getZeroAttr(element));
               linalg::YieldOp::create(
                   nb, nested,
                   arith::SelectOp::create(nb, nested, inside, value, zero)
                       .getResult());
             })
      .getResult(0);
}

/// convolution as a linalg contraction: loops over the output's
/// dimensions, then the kernel's input feature and spatial dimensions.
/// The padded, dilated input is read at out * stride + k * window
/// dilation (k counted from the end where the window is reversed), its
/// feature offset by the output feature's group and its batch by the
/// output feature's batch group; floats narrower than f32 accumulate in
/// f32, as for dot_general.
struct ConvolutionLowering : public OpConversionPattern<kiln::ConvolutionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::ConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    for (Type type : {lhsType.getElementType(), rhsType.getElementType(),
                      op.getType().getElementType()})
      if (!isa<IntegerType>(type) && !kiln::isNarrowFloat(type) &&
          !type.isF32() && !type.isF64())
        return op.emitError() << "convolution on element type " << type
                              << " is not compiled by the CPU backend";
    if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape() ||
        !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    Type resultElement = resultType.getElementType();
    bool narrow = kiln::isNarrowFloat(resultElement);
    Type accumulator = narrow ? rewriter.getF32Type() : resultElement;
    auto at = [](llvm::ArrayRef<int64_t> values, size_t i, int64_t dflt) {
      return i < values.size() ? values[i] : dflt;
    };
    llvm::ArrayRef<int64_t> inSpatial = op.getInputSpatialDimensions(),
                            kSpatial = op.getKernelSpatialDimensions(),
                            outSpatial = op.getOutputSpatialDimensions(),
                            strides = op.getWindowStrides(),
                            windowDilations = op.getWindowDilations();
    std::optional<llvm::ArrayRef<bool>> reversal = op.getWindowReversal();
    int64_t inBatch = op.getInputBatchDimension(),
            inFeature = op.getInputFeatureDimension(),
            kIn = op.getKernelInputFeatureDimension(),
            kOut = op.getKernelOutputFeatureDimension(),
            outBatch = op.getOutputBatchDimension(),
            outFeature = op.getOutputFeatureDimension();
    int64_t featureGroups = op.getFeatureGroupCount(),
            batchGroups = op.getBatchGroupCount();
    size_t spatialRank = inSpatial.size();
    int64_t rank = resultType.getRank();
    int64_t loops = rank + 1 + spatialRank;
    int64_t outFeatures = resultType.getDimSize(outFeature);
    int64_t kernelInFeatures = rhsType.getDimSize(kIn);
    if (featureGroups < 1 || batchGroups < 1 || outFeatures % featureGroups ||
        outFeatures % batchGroups)
      return rewriter.notifyMatchFailure(op, "groups do not divide features");

    Value input = padAndDilate(rewriter, loc, adaptor.getLhs(), inSpatial,
                               op.getPaddingLow(), op.getPaddingHigh(),
                               op.getBaseDilations());
    auto dim = [&](int64_t d) { return rewriter.getAffineDimExpr(d); };
    AffineExpr feature = dim(outFeature);
    llvm::SmallVector<AffineExpr> inputExprs(lhsType.getRank());
    inputExprs[inBatch] = batchGroups > 1
                              ? feature.floorDiv(outFeatures / batchGroups) *
                                        resultType.getDimSize(outBatch) +
                                    dim(outBatch)
                              : dim(outBatch);
    inputExprs[inFeature] =
        featureGroups > 1
            ? feature.floorDiv(outFeatures / featureGroups) * kernelInFeatures +
                  dim(rank)
            : dim(rank);
    llvm::SmallVector<AffineExpr> kernelExprs(rhsType.getRank());
    kernelExprs[kIn] = dim(rank);
    kernelExprs[kOut] = feature;
    for (size_t s = 0; s < spatialRank; ++s) {
      AffineExpr k = dim(rank + 1 + s);
      kernelExprs[kSpatial[s]] = k;
      AffineExpr position = k;
      if (reversal && s < reversal->size() && (*reversal)[s])
        position = (rhsType.getDimSize(kSpatial[s]) - 1) - k;
      inputExprs[inSpatial[s]] = dim(outSpatial[s]) * at(strides, s, 1) +
                                 position * at(windowDilations, s, 1);
    }
    llvm::SmallVector<AffineExpr> outputExprs;
    for (int64_t d = 0; d < rank; ++d)
      outputExprs.push_back(dim(d));
    MLIRContext *context = rewriter.getContext();
    llvm::SmallVector<AffineMap> maps = {
        AffineMap::get(loops, 0, inputExprs, context),
        AffineMap::get(loops, 0, kernelExprs, context),
        AffineMap::get(loops, 0, outputExprs, context)};
    llvm::SmallVector<utils::IteratorType> iterators(
        rank, utils::IteratorType::parallel);
    iterators.append(1 + spatialRank, utils::IteratorType::reduction);

    Value result = buildContraction(
        rewriter, loc, input, adaptor.getRhs(), lhsType.getElementType(),
        rhsType.getElementType(), resultType, accumulator, maps, iterators);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ragged_dot in its mixture-of-experts form (lhs [m, k] ragged along m,
/// rhs [groups, k, n] or [groups, n, k], 1-D group sizes) as kiln ops: lhs
/// copied once per group with the rows outside that group zeroed, then one
/// dot_general contracting the groups and k together. A row sums its own
/// group's products and exact zeros, as the evaluator computes it.
struct RaggedDotLowering : public OpConversionPattern<kiln::RaggedDotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::RaggedDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs(),
          sizes = adaptor.getGroupSizes();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    auto sizesType = cast<RankedTensorType>(sizes.getType());
    auto dims = [&](StringRef name) {
      auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name);
      return attr ? llvm::to_vector(attr.asArrayRef())
                  : llvm::SmallVector<int64_t>();
    };
    llvm::SmallVector<int64_t> lhsContract = dims("lhs_contracting_dims"),
                               rhsContract = dims("rhs_contracting_dims"),
                               lhsBatch = dims("lhs_batch_dims"),
                               rhsBatch = dims("rhs_batch_dims"),
                               ragged = dims("lhs_ragged_dims"),
                               group = dims("rhs_group_dims");
    // Batch dimensions lead lhs (then the ragged rows, then k) and follow
    // rhs's group dimension.
    int64_t batch = lhsBatch.size();
    llvm::SmallVector<int64_t> leading, afterGroup;
    for (int64_t d = 0; d < batch; ++d) {
      leading.push_back(d);
      afterGroup.push_back(d + 1);
    }
    if (lhsBatch != leading || rhsBatch != afterGroup ||
        lhsType.getRank() != batch + 2 || rhsType.getRank() != batch + 3 ||
        ragged != llvm::SmallVector<int64_t>{batch} ||
        group != llvm::SmallVector<int64_t>{0} ||
        lhsContract != llvm::SmallVector<int64_t>{batch + 1} ||
        rhsContract.size() != 1 || rhsContract[0] <= batch ||
        sizesType.getRank() != 1 || !lhsType.hasStaticShape() ||
        !rhsType.hasStaticShape() || !isa<FloatType>(lhsType.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "ragged_dot outside its mixture-of-experts form");
    Location loc = op.getLoc();
    int64_t m = lhsType.getDimSize(batch), k = lhsType.getDimSize(batch + 1),
            groups = rhsType.getDimSize(0);
    Type index = sizesType.getElementType();
    auto make = [&](StringRef name, ValueRange operands, Type type,
                    llvm::ArrayRef<NamedAttribute> attributes = {}) {
      return kiln::buildKilnOp(rewriter, loc, name, operands, type,
                               attributes);
    };
    auto dimsAttr = [&](StringRef name, llvm::ArrayRef<int64_t> values) {
      return rewriter.getNamedAttr(name, rewriter.getDenseI64ArrayAttr(values));
    };
    // Each group's first row: the sizes before it (a strictly lower
    // triangular matrix of ones times the sizes), and its end.
    llvm::SmallVector<Attribute> below;
    for (int64_t i = 0; i < groups; ++i)
      for (int64_t j = 0; j < groups; ++j)
        below.push_back(rewriter.getIntegerAttr(index, j < i ? 1 : 0));
    auto square = RankedTensorType::get({groups, groups}, index);
    Value triangle = make("kiln.constant", {}, square,
                          {rewriter.getNamedAttr(
                              "value", DenseElementsAttr::get(square, below))});
    Value starts = make("kiln.dot_general", {triangle, sizes}, sizesType,
                        {dimsAttr("lhs_contracting_dims", {1}),
                         dimsAttr("rhs_contracting_dims", {0})});
    Value ends = make("kiln.add", {starts, sizes}, sizesType);
    auto rowsType = RankedTensorType::get({m, groups}, index);
    Value rows = make("kiln.iota", {}, rowsType,
                      {rewriter.getNamedAttr("iota_dimension",
                                             rewriter.getI64IntegerAttr(0))});
    auto predType = RankedTensorType::get({m, groups}, rewriter.getI1Type());
    auto compare = [&](Value a, Value b, StringRef direction) {
      return make("kiln.compare", {a, b}, predType,
                  {rewriter.getNamedAttr("direction",
                                         rewriter.getStringAttr(direction))});
    };
    auto along = [&](Value v) {
      return make("kiln.broadcast_in_dim", {v}, rowsType,
                  {dimsAttr("dimensions", {1})});
    };
    Value inGroup = make(
        "kiln.and",
        {compare(rows, along(starts), "GE"), compare(rows, along(ends), "LT")},
        predType);
    // lhs per group: [batch..., m, groups, k], zero outside the group's
    // rows.
    llvm::SmallVector<int64_t> expandedShape(
        lhsType.getShape().take_front(batch));
    expandedShape.append({m, groups, k});
    auto expandedType =
        RankedTensorType::get(expandedShape, lhsType.getElementType());
    llvm::SmallVector<int64_t> lhsPlaces = leading;
    lhsPlaces.append({batch, batch + 2});
    Value copies = make("kiln.broadcast_in_dim", {lhs}, expandedType,
                        {dimsAttr("dimensions", lhsPlaces)});
    Value mask =
        make("kiln.broadcast_in_dim", {inGroup},
             RankedTensorType::get(expandedShape, rewriter.getI1Type()),
             {dimsAttr("dimensions", {batch, batch + 1})});
    Value zeros = make(
        "kiln.constant", {}, expandedType,
        {rewriter.getNamedAttr("value", rewriter.getZeroAttr(expandedType))});
    Value masked = make("kiln.select", {mask, copies, zeros}, expandedType);
    Value result =
        make("kiln.dot_general", {masked, rhs}, op.getType(),
             {dimsAttr("lhs_batch_dims", leading),
              dimsAttr("rhs_batch_dims", afterGroup),
              dimsAttr("lhs_contracting_dims", {batch + 1, batch + 2}),
              dimsAttr("rhs_contracting_dims", {0, rhsContract[0]})});
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kiln::populateKilnContractionToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotGeneralLowering, DotGeneralToNamedMatmul, ConvolutionLowering,
               RaggedDotLowering>(converter, patterns.getContext());
}
