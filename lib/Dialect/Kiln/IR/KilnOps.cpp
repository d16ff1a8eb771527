//===- KilnOps.cpp - kiln dialect operations --------------------*- C++ -*-===//
//
// This file implements the verifiers and folders of the kiln operations. The
// verifiers check operand and result shapes and element types as HLO defines
// them, so that a malformed graph is rejected at import with a message that
// names the op, not later in a compiler.
//
// A dynamic dimension (`?`) agrees with any size: dumps are static, but a pass
// may relax a shape, and the verifiers must not reject the graph for that.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "VerifierHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <numeric>
#include <optional>

using namespace mlir;
using namespace kiln;
using namespace kiln::verify;

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::verify() {
  // AllTypesMatch<["value", "output"]> already ties the literal's type to the
  // result type, which is all that HLO asks of a constant.
  return success();
}

LogicalResult IotaOp::verify() {
  return verifyDimIndex(*this, "iota_dimension",
                        getIotaDimensionAttr().getInt(),
                        rankedType(getOutput()).getRank());
}

LogicalResult CausalMaskOp::verify() {
  int64_t rank = rankedType(getOutput()).getRank();
  if (failed(verifyDimIndex(*this, "row_dimension",
                            getRowDimensionAttr().getInt(), rank)) ||
      failed(verifyDimIndex(*this, "column_dimension",
                            getColumnDimensionAttr().getInt(), rank)))
    return failure();
  if (getRowDimension() == getColumnDimension())
    return emitOpError("row_dimension and column_dimension must differ");
  if (!getMinDiagonalAttr() && !getMaxDiagonalAttr())
    return emitOpError("needs min_diagonal, max_diagonal or both");
  // The accessors give I64Attr's unsigned values: the attributes' signed
  // ones are what bound the diagonals.
  if (getMinDiagonalAttr() && getMaxDiagonalAttr() &&
      getMinDiagonalAttr().getInt() > getMaxDiagonalAttr().getInt())
    return emitOpError("min_diagonal ")
           << getMinDiagonalAttr().getInt() << " is above max_diagonal "
           << getMaxDiagonalAttr().getInt();
  Type element = rankedType(getOutput()).getElementType();
  for (auto [name, value] : {std::pair(StringRef("kept"), getKept()),
                             std::pair(StringRef("masked"), getMasked())})
    if (value.getType() != element)
      return emitOpError() << name << " must be a " << element << ", got "
                           << value;
  return success();
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  RankedTensorType resultType = rankedType(getOutput());
  ArrayRef<int64_t> dims = getDimensions();
  if (failed(verifyElementType(*this, "result element type", operandType,
                               resultType, "the operand's")) ||
      failed(verifyDimsSize(*this, "dimensions", dims.size(),
                            operandType.getRank(),
                            "one entry per operand dimension")) ||
      failed(verifyDims(*this, "dimensions", dims, resultType.getRank())))
    return failure();
  for (auto [i, dim] : llvm::enumerate(dims)) {
    int64_t in = operandType.getDimSize(i), out = resultType.getDimSize(dim);
    if (!dimsAgree(in, out))
      return emitOpError() << "operand dimension " << i << " (size " << in
                           << ") must equal result dimension " << dim
                           << " (size " << out << ")";
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  RankedTensorType resultType = rankedType(getOutput());
  if (failed(verifyElementType(*this, "result element type", operandType,
                               resultType, "the operand's")))
    return failure();
  if (!operandType.hasStaticShape() || !resultType.hasStaticShape() ||
      operandType.getNumElements() == resultType.getNumElements())
    return success();
  return emitOpError() << "result must have " << operandType.getNumElements()
                       << " elements (the operand's), got "
                       << resultType.getNumElements();
}

LogicalResult TransposeOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  ArrayRef<int64_t> perm = getDimensions();
  if (failed(
          verifyPermutation(*this, "dimensions", perm, operandType.getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t dim : perm)
    shape.push_back(operandType.getDimSize(dim));
  return verifyType(*this, "result type",
                    RankedTensorType::get(shape, operandType.getElementType()),
                    getOutput().getType());
}

LogicalResult ReverseOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  if (failed(verifyDims(*this, "dimensions", getDimensions(),
                        operandType.getRank())))
    return failure();
  return verifyType(*this, "result type", operandType, getOutput().getType(),
                    "the operand's");
}

LogicalResult SliceOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  int64_t rank = operandType.getRank();
  ArrayRef<int64_t> starts = getStartIndices(), limits = getLimitIndices(),
                    strides = getStrides();
  for (auto [name, list] : {std::pair(StringRef("start_indices"), starts),
                            std::pair(StringRef("limit_indices"), limits),
                            std::pair(StringRef("strides"), strides)})
    if (failed(verifyDimsSize(*this, name, list.size(), rank,
                              "one entry per operand dimension")))
      return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = operandType.getDimSize(i);
    if (starts[i] < 0 || starts[i] > limits[i] ||
        (!ShapedType::isDynamic(size) && limits[i] > size))
      return emitOpError() << "dimension " << i << " must satisfy 0 <= start ("
                           << starts[i] << ") <= limit (" << limits[i]
                           << ") <= size (" << formatDim(size) << ")";
    if (strides[i] < 1)
      return emitOpError() << "strides must be >= 1, got "
                           << formatDims(strides);
    shape.push_back((limits[i] - starts[i] + strides[i] - 1) / strides[i]);
  }
  return verifyType(*this, "result type",
                    RankedTensorType::get(shape, operandType.getElementType()),
                    getOutput().getType());
}

LogicalResult DynamicSliceOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  ArrayRef<int64_t> sizes = getDynamicSliceSizes();
  if (failed(verifyStartIndices(*this, getStartIndices(),
                                operandType.getRank())) ||
      failed(verifyDimsSize(*this, "dynamic_slice_sizes", sizes.size(),
                            operandType.getRank(),
                            "one entry per operand dimension")))
    return failure();
  for (auto [i, size] : llvm::enumerate(sizes)) {
    int64_t dim = operandType.getDimSize(i);
    if (size < 0 || (!ShapedType::isDynamic(dim) && size > dim))
      return emitOpError() << "dynamic_slice_sizes[" << i << "] must be in [0, "
                           << formatDim(dim)
                           << "] (the operand dimension), got " << size;
  }
  return verifyType(*this, "result type",
                    RankedTensorType::get(sizes, operandType.getElementType()),
                    getOutput().getType(), "dynamic_slice_sizes");
}

LogicalResult DynamicUpdateSliceOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  RankedTensorType updateType = rankedType(getUpdate());
  if (updateType.getRank() != operandType.getRank())
    return emitOpError() << "update must have rank " << operandType.getRank()
                         << " (the operand's), got " << updateType;
  if (failed(verifyElementType(*this, "update element type", operandType,
                               updateType, "the operand's")))
    return failure();
  for (int64_t i = 0, e = operandType.getRank(); i < e; ++i) {
    int64_t in = operandType.getDimSize(i), size = updateType.getDimSize(i);
    if (!ShapedType::isDynamic(in) && !ShapedType::isDynamic(size) && size > in)
      return emitOpError() << "update dimension " << i << " (size " << size
                           << ") must not exceed operand dimension " << i
                           << " (size " << in << ")";
  }
  if (failed(
          verifyStartIndices(*this, getStartIndices(), operandType.getRank())))
    return failure();
  return verifyType(*this, "result type", operandType, getOutput().getType(),
                    "the operand's");
}

LogicalResult ConcatenateOp::verify() {
  if (failed(requireNonEmpty(*this, getInputs(), "input")))
    return failure();
  FailureOr<int64_t> dim = getSingleDim(*this, getDimensions());
  if (failed(dim))
    return failure();
  RankedTensorType first = rankedType(getInputs().front());
  if (failed(verifyDimIndex(*this, "dimensions[0]", *dim, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, input] : llvm::enumerate(getInputs().drop_front())) {
    RankedTensorType type = rankedType(input);
    bool matches = type.getRank() == first.getRank() &&
                   type.getElementType() == first.getElementType();
    for (int64_t d = 0; matches && d < first.getRank(); ++d)
      matches = d == *dim || dimsAgree(type.getDimSize(d), shape[d]);
    if (!matches)
      return emitOpError() << "input " << i + 1 << " (" << type
                           << ") must match input 0 (" << first
                           << ") in every dimension but " << *dim;
    int64_t size = type.getDimSize(*dim);
    shape[*dim] =
        ShapedType::isDynamic(shape[*dim]) || ShapedType::isDynamic(size)
            ? ShapedType::kDynamic
            : shape[*dim] + size;
  }
  return verifyType(*this, "result type",
                    RankedTensorType::get(shape, first.getElementType()),
                    getOutput().getType());
}

LogicalResult PadOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  int64_t rank = operandType.getRank();
  ArrayRef<int64_t> low = getEdgePaddingLow(), high = getEdgePaddingHigh(),
                    interior = getInteriorPadding();
  if (failed(verifyType(*this, "padding_value type",
                        scalarOf(operandType.getElementType()),
                        getPaddingValue().getType(),
                        "a scalar of the operand's element type")))
    return failure();
  for (auto [name, list] : {std::pair(StringRef("edge_padding_low"), low),
                            std::pair(StringRef("edge_padding_high"), high),
                            std::pair(StringRef("interior_padding"), interior)})
    if (failed(verifyDimsSize(*this, name, list.size(), rank,
                              "one entry per operand dimension")))
      return failure();
  if (llvm::any_of(interior, [](int64_t pad) { return pad < 0; }))
    return emitOpError() << "interior_padding must be non-negative, got "
                         << formatDims(interior);
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = operandType.getDimSize(i);
    if (ShapedType::isDynamic(size)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    // Edge padding may be negative (it crops), so the size can drop below 0.
    int64_t padded =
        low[i] + high[i] + size + std::max<int64_t>(size - 1, 0) * interior[i];
    if (padded < 0)
      return emitOpError() << "padding gives dimension " << i
                           << " a negative size (" << padded << ")";
    shape.push_back(padded);
  }
  return verifyType(*this, "result type",
                    RankedTensorType::get(shape, operandType.getElementType()),
                    getOutput().getType());
}

LogicalResult ConvertOp::verify() {
  return verifyShape(*this, "result shape", rankedType(getOperand()).getShape(),
                     rankedType(getOutput()).getShape(), "the operand's");
}

LogicalResult BitcastConvertOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  RankedTensorType resultType = rankedType(getOutput());
  int64_t inWidth = bitWidth(operandType.getElementType());
  int64_t outWidth = bitWidth(resultType.getElementType());
  if (!inWidth || !outWidth || (inWidth % outWidth && outWidth % inWidth))
    return emitOpError() << "element bit widths must divide one another, got "
                         << operandType.getElementType() << " and "
                         << resultType.getElementType();
  // HLO: a narrower result adds a last dimension of the width ratio; a wider
  // one consumes the operand's last dimension, which must be that ratio.
  SmallVector<int64_t> shape(operandType.getShape());
  if (inWidth > outWidth) {
    shape.push_back(inWidth / outWidth);
  } else if (inWidth < outWidth) {
    int64_t ratio = outWidth / inWidth;
    if (shape.empty() || !dimsAgree(shape.back(), ratio))
      return emitOpError()
             << "operand's last dimension must be " << ratio
             << " (the ratio of result to operand bit width), got "
             << operandType;
    shape.pop_back();
  }
  return verifyShape(*this, "result shape", shape, resultType.getShape());
}

LogicalResult ReducePrecisionOp::verify() {
  if (failed(requireFloat(*this, "operand", getOperand().getType())))
    return failure();
  int64_t exponentBits = getExponentBitsAttr().getInt();
  int64_t mantissaBits = getMantissaBitsAttr().getInt();
  if (exponentBits < 1)
    return emitOpError() << "exponent_bits must be >= 1, got " << exponentBits;
  if (mantissaBits < 0)
    return emitOpError() << "mantissa_bits must be >= 0, got " << mantissaBits;
  return verifyType(*this, "result type", getOperand().getType(),
                    getOutput().getType(), "the operand's");
}

LogicalResult BitcastOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  RankedTensorType resultType = rankedType(getOutput());
  int64_t inWidth = bitWidth(operandType.getElementType());
  int64_t outWidth = bitWidth(resultType.getElementType());
  if (!operandType.hasStaticShape() || !resultType.hasStaticShape() ||
      !inWidth || !outWidth)
    return success();
  int64_t inBits = operandType.getNumElements() * inWidth;
  int64_t outBits = resultType.getNumElements() * outWidth;
  if (inBits == outBits)
    return success();
  return emitOpError() << "result must have " << inBits
                       << " bits (the operand's), got " << outBits;
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

// The Elementwise trait has already checked that operands and results have
// one shape; these verifiers check what it cannot.

/// Whether `type`'s elements are quantized (`!quant.*`).
static bool isQuantized(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.getElementType().getDialect().getNamespace() == "quant";
}

LogicalResult UniformQuantizeOp::verify() {
  if (!isQuantized(getOutput().getType()))
    return emitOpError("result must have a quantized element type, got ")
           << getOutput().getType();
  return success();
}

LogicalResult UniformDequantizeOp::verify() {
  if (!isQuantized(getOperand().getType()))
    return emitOpError("operand must have a quantized element type, got ")
           << getOperand().getType();
  auto element = getElementTypeOrSelf(getOutput().getType());
  if (!isa<FloatType>(element))
    return emitOpError("result must be floating point, got ")
           << getOutput().getType();
  return success();
}

LogicalResult CheckOp::verify() {
  StringRef comparison = getComparison();
  if (comparison != "eq" && comparison != "almost_eq" && comparison != "close")
    return emitOpError("comparison must be eq, almost_eq or close, got '")
           << comparison << "'";
  if (getActual().getType() != getExpected().getType())
    return emitOpError("compares values of different types: ")
           << getActual().getType() << " and " << getExpected().getType();
  if (getTolerance() && comparison != "almost_eq")
    return emitOpError("a tolerance goes with almost_eq");
  if ((getMaxUlpDifference() || getMinUlpDifference()) && comparison != "close")
    return emitOpError("ULP differences go with close");
  return success();
}

LogicalResult IsFiniteOp::verify() {
  return requireFloat(*this, "operand", getOperand().getType());
}

LogicalResult CompareOp::verify() {
  if (failed(verifyType(*this, "rhs type", getLhs().getType(),
                        getRhs().getType(), "the lhs type")) ||
      failed(verifyOneOf(*this, "direction", getDirection(),
                         {"EQ", "NE", "LT", "LE", "GT", "GE"})))
    return failure();
  if (std::optional<StringRef> type = getType())
    return verifyOneOf(*this, "type", *type,
                       {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"});
  return success();
}

LogicalResult SelectOp::verify() {
  FailureOr<RankedTensorType> predType =
      requireRanked(*this, "pred", getPred().getType());
  RankedTensorType onTrueType = rankedType(getOnTrue());
  if (failed(predType) ||
      failed(verifyType(*this, "on_false type", onTrueType,
                        getOnFalse().getType(), "on_true's")) ||
      failed(verifyType(*this, "result type", onTrueType, getOutput().getType(),
                        "on_true's")))
    return failure();
  return verifyScalarOrShape(*this, "pred", *predType, onTrueType.getShape(),
                             "on_true");
}

LogicalResult ClampOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  for (auto [name, bound] : {std::pair(StringRef("min"), getMin()),
                             std::pair(StringRef("max"), getMax())})
    if (failed(verifyElementType(*this, name + " element type", operandType,
                                 bound.getType(), "the operand's")) ||
        failed(verifyScalarOrShape(*this, name, rankedType(bound),
                                   operandType.getShape(), "the operand")))
      return failure();
  return verifyType(*this, "result type", operandType, getOutput().getType(),
                    "the operand's");
}

//===----------------------------------------------------------------------===//
// Contractions, reductions, sorting, indexing
//===----------------------------------------------------------------------===//

LogicalResult DotGeneralOp::verify() {
  FailureOr<SmallVector<int64_t>> shape = verifyDotDimensions(
      *this, rankedType(getLhs()), rankedType(getRhs()), getLhsBatchDims(),
      getLhsContractingDims(), getRhsBatchDims(), getRhsContractingDims());
  if (failed(shape))
    return failure();
  return verifyShape(*this, "result shape", *shape,
                     rankedType(getOutput()).getShape(),
                     "batch, lhs free, rhs free dimensions");
}

LogicalResult ReduceOp::verify() {
  FailureOr<RankedTensorType> inputType =
      verifySameShapes(*this, getInputs(), "input");
  if (failed(inputType) ||
      failed(verifyDims(*this, "dimensions", getDimensions(),
                        inputType->getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0, e = inputType->getRank(); d < e; ++d)
    if (!llvm::is_contained(getDimensions(), d))
      shape.push_back(inputType->getDimSize(d));
  return verifyReduction(*this, getInputs(), getInitValues(), shape,
                         getToApply());
}

LogicalResult ReduceWindowOp::verify() {
  FailureOr<RankedTensorType> inputType =
      verifySameShapes(*this, getInputs(), "input");
  if (failed(inputType))
    return failure();
  int64_t rank = inputType->getRank();
  Window window = windowOf(*this);
  if (failed(verifyWindow(*this, window, rank,
                          "one entry per input dimension")))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      windowedShape(*this, inputType->getShape(), window);
  if (failed(shape))
    return failure();
  return verifyReduction(*this, getInputs(), getInitValues(), *shape,
                         getToApply());
}

LogicalResult SortOp::verify() {
  FailureOr<RankedTensorType> inputType =
      verifySameShapes(*this, getInputs(), "input");
  if (failed(inputType))
    return failure();
  FailureOr<int64_t> dim = getSingleDim(*this, getDimensions());
  if (failed(dim) ||
      failed(
          verifyDimIndex(*this, "dimensions[0]", *dim, inputType->getRank())) ||
      failed(verifyTypes(*this, "result types", getInputs().getTypes(),
                         getResultTypes())))
    return failure();
  // The comparator takes (lhs, rhs) scalars of each input in turn.
  SmallVector<Type> args;
  for (Value input : getInputs())
    args.append(2, scalarOf(rankedType(input).getElementType()));
  return verifyRegion(*this, getToApply(), "to_apply", args,
                      {scalarOf(IntegerType::get(getContext(), 1))});
}

LogicalResult TopKOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  FailureOr<RankedTensorType> indicesType =
      requireRanked(*this, "indices", getIndices().getType());
  if (failed(indicesType))
    return failure();
  if (operandType.getRank() == 0)
    return emitOpError() << "operand must have rank >= 1, got " << operandType;
  int64_t k = getKAttr().getInt();
  int64_t last = operandType.getShape().back();
  if (k < 0 || (!ShapedType::isDynamic(last) && k > last))
    return emitOpError() << "k must be in [0, " << formatDim(last)
                         << "] (the last operand dimension), got " << k;
  SmallVector<int64_t> shape(operandType.getShape());
  shape.back() = k;
  if (failed(
          verifyType(*this, "values type",
                     RankedTensorType::get(shape, operandType.getElementType()),
                     getValues().getType(), "the operand's with k last")))
    return failure();
  return verifyShape(*this, "indices shape", shape, indicesType->getShape(),
                     "the values shape");
}

LogicalResult GatherOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  FailureOr<RankedTensorType> indicesType =
      requireRanked(*this, "start_indices", getStartIndices().getType());
  if (failed(indicesType))
    return failure();
  int64_t operandRank = operandType.getRank();
  int64_t indexVectorDim = getIndexVectorDimAttr().getInt();
  ArrayRef<int64_t> collapsed = getCollapsedSliceDims(),
                    batching = getOperandBatchingDims(),
                    sliceSizes = getSliceSizes(), offsetDims = getOffsetDims();
  IndexDims dims{"start_indices",
                 "collapsed_slice_dims",
                 collapsed,
                 "operand_batching_dims",
                 batching,
                 "start_indices_batching_dims",
                 getStartIndicesBatchingDims(),
                 "start_index_map",
                 getStartIndexMap(),
                 indexVectorDim};
  if (failed(verifyIndexDims(*this, dims, operandType, *indicesType)) ||
      failed(verifyDimsSize(*this, "slice_sizes", sliceSizes.size(),
                            operandRank, "one entry per operand dimension")))
    return failure();
  SmallVector<int64_t> offsetSizes;
  for (auto [i, size] : llvm::enumerate(sliceSizes)) {
    int64_t dim = operandType.getDimSize(i);
    if (size < 0 || (!ShapedType::isDynamic(dim) && size > dim))
      return emitOpError() << "slice_sizes[" << i << "] must be in [0, "
                           << formatDim(dim)
                           << "] (the operand dimension), got " << size;
    bool dropped = llvm::is_contained(collapsed, static_cast<int64_t>(i)) ||
                   llvm::is_contained(batching, static_cast<int64_t>(i));
    if (dropped && size > 1)
      return emitOpError() << "slice_sizes[" << i
                           << "] must be 0 or 1 for a collapsed or batching "
                              "dimension, got "
                           << size;
    if (!dropped)
      offsetSizes.push_back(size);
  }
  if (failed(verifyDimsSize(*this, "offset_dims", offsetDims.size(),
                            offsetSizes.size(),
                            "one entry per operand dimension neither "
                            "collapsed nor batching")))
    return failure();
  // Result: offset_dims take the slice sizes, the other dimensions take the
  // indices' batch dimensions, each in order.
  SmallVector<int64_t> batchShape =
      indicesBatchShape(*indicesType, indexVectorDim);
  int64_t resultRank = batchShape.size() + offsetDims.size();
  if (failed(verifyDims(*this, "offset_dims", offsetDims, resultRank,
                        /*sorted=*/true)))
    return failure();
  SmallVector<int64_t> shape;
  auto nextOffset = offsetSizes.begin(), nextBatch = batchShape.begin();
  for (int64_t d = 0; d < resultRank; ++d)
    shape.push_back(llvm::is_contained(offsetDims, d) ? *nextOffset++
                                                      : *nextBatch++);
  return verifyType(*this, "result type",
                    RankedTensorType::get(shape, operandType.getElementType()),
                    getOutput().getType(),
                    "indices batch dimensions with slices at offset_dims");
}

LogicalResult ScatterOp::verify() {
  FailureOr<RankedTensorType> inputType =
      verifySameShapes(*this, getInputs(), "input");
  if (failed(inputType))
    return failure();
  FailureOr<RankedTensorType> updateType =
      verifySameShapes(*this, getUpdates(), "update");
  FailureOr<RankedTensorType> indicesType =
      requireRanked(*this, "scatter_indices", getScatterIndices().getType());
  if (failed(updateType) || failed(indicesType) ||
      failed(verifyTypes(*this, "result types", getInputs().getTypes(),
                         getResultTypes())))
    return failure();
  int64_t indexVectorDim = getIndexVectorDimAttr().getInt();
  ArrayRef<int64_t> inserted = getInsertedWindowDims(),
                    batching = getInputBatchingDims(),
                    windowDims = getUpdateWindowDims();
  IndexDims dims{"scatter_indices",
                 "inserted_window_dims",
                 inserted,
                 "input_batching_dims",
                 batching,
                 "scatter_indices_batching_dims",
                 getScatterIndicesBatchingDims(),
                 "scatter_dims_to_operand_dims",
                 getScatterDimsToOperandDims(),
                 indexVectorDim};
  if (failed(verifyIndexDims(*this, dims, *inputType, *indicesType)) ||
      failed(verifyDims(*this, "update_window_dims", windowDims,
                        updateType->getRank(), /*sorted=*/true)))
    return failure();
  SmallVector<int64_t> windowInputDims;
  for (int64_t d = 0, e = inputType->getRank(); d < e; ++d)
    if (!llvm::is_contained(inserted, d) && !llvm::is_contained(batching, d))
      windowInputDims.push_back(d);
  if (failed(verifyDimsSize(*this, "update_window_dims", windowDims.size(),
                            windowInputDims.size(),
                            "one entry per input dimension neither "
                            "inserted nor batching")))
    return failure();
  SmallVector<int64_t> batchShape =
      indicesBatchShape(*indicesType, indexVectorDim);
  int64_t updateRank = batchShape.size() + windowDims.size();
  if (updateType->getRank() != updateRank)
    return emitOpError() << "updates must have rank " << updateRank
                         << " (update_window_dims plus the scatter_indices "
                            "batch dimensions), got "
                         << *updateType;
  // Update window dimensions index into the input, the others follow the
  // indices' batch dimensions.
  auto nextWindow = windowInputDims.begin(), nextBatch = batchShape.begin();
  for (int64_t d = 0; d < updateRank; ++d) {
    int64_t size = updateType->getDimSize(d);
    if (llvm::is_contained(windowDims, d)) {
      int64_t inputDim = *nextWindow++;
      int64_t bound = inputType->getDimSize(inputDim);
      if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(bound) &&
          size > bound)
        return emitOpError() << "update dimension " << d << " (size " << size
                             << ") must not exceed input dimension " << inputDim
                             << " (size " << bound << ")";
    } else if (int64_t batch = *nextBatch++; !dimsAgree(size, batch)) {
      return emitOpError() << "update dimension " << d << " (size " << size
                           << ") must equal the scatter_indices batch "
                              "dimension of size "
                           << batch;
    }
  }
  // The combiner takes (current..., update...) scalars and returns the new
  // input elements; XLA ignores float precision here as for reduce.
  SmallVector<Type> args, results;
  for (auto [i, input, update] : llvm::enumerate(getInputs(), getUpdates())) {
    Type inputElement = rankedType(input).getElementType();
    if (failed(verifyElementType(*this, "update " + Twine(i) + " element type",
                                 inputElement, update.getType(),
                                 "input " + Twine(i) + "'s",
                                 TypeMatch::IgnoreFpPrecision)))
      return failure();
    results.push_back(scalarOf(inputElement));
  }
  args.append(results);
  for (Value update : getUpdates())
    args.push_back(scalarOf(rankedType(update).getElementType()));
  return verifyRegion(*this, getToApply(), "to_apply", args, results,
                      TypeMatch::IgnoreFpPrecision);
}

LogicalResult BatchNormTrainingOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  if (failed(verifyBatchNorm(*this, operandType, getFeatureIndexAttr().getInt(),
                             {{"scale", getScale().getType()},
                              {"offset", getOffset().getType()},
                              {"batch_mean", getBatchMean().getType()},
                              {"batch_var", getBatchVar().getType()}})))
    return failure();
  return verifyType(*this, "output type", operandType, getOutput().getType(),
                    "the operand's");
}

LogicalResult BatchNormInferenceOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  if (failed(verifyBatchNorm(*this, operandType, getFeatureIndexAttr().getInt(),
                             {{"scale", getScale().getType()},
                              {"offset", getOffset().getType()},
                              {"mean", getMean().getType()},
                              {"variance", getVariance().getType()}})))
    return failure();
  return verifyType(*this, "output type", operandType, getOutput().getType(),
                    "the operand's");
}

LogicalResult BatchNormGradOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  if (failed(verifyBatchNorm(*this, operandType, getFeatureIndexAttr().getInt(),
                             {{"scale", getScale().getType()},
                              {"mean", getMean().getType()},
                              {"variance", getVariance().getType()},
                              {"grad_scale", getGradScale().getType()},
                              {"grad_offset", getGradOffset().getType()}})) ||
      failed(verifyType(*this, "grad_output type", operandType,
                        getGradOutput().getType(), "the operand's")))
    return failure();
  return verifyType(*this, "grad_operand type", operandType,
                    getGradOperand().getType(), "the operand's");
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

LogicalResult RngOp::verify() {
  StringRef distribution = getDistribution();
  if (failed(verifyOneOf(*this, "distribution", distribution,
                         {"rng_uniform", "rng_normal"})))
    return failure();
  Type element = rankedType(getOutput()).getElementType();
  for (auto [name, bound] :
       {std::pair(StringRef("a"), getA()), std::pair(StringRef("b"), getB())})
    if (failed(verifyType(*this, name + " type", scalarOf(element),
                          bound.getType(),
                          "a scalar of the result's element type")))
      return failure();
  if (distribution == "rng_normal")
    return requireFloat(*this, "rng_normal result", getOutput().getType());
  return success();
}

LogicalResult RngBitGeneratorOp::verify() {
  if (failed(verifyOneOf(*this, "algorithm", getAlgorithm(),
                         {"rng_default", "rng_three_fry", "rng_philox"})))
    return failure();
  RankedTensorType stateType = rankedType(getInitialState());
  if (stateType.getRank() != 1)
    return emitOpError() << "initial_state must be 1-D, got " << stateType;
  return verifyType(*this, "output_state type", stateType,
                    getOutputState().getType(), "the initial_state's");
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult WhileOp::verify() {
  TypeRange types = getOperands().getTypes();
  if (failed(verifyTypes(*this, "result types", types, getResultTypes())) ||
      failed(verifyRegion(*this, getCondition(), "condition", types,
                          {scalarOf(IntegerType::get(getContext(), 1))})))
    return failure();
  return verifyRegion(*this, getBody(), "body", types, types);
}

LogicalResult ConditionalOp::verify() {
  size_t numBranches = getBranches().size();
  if (getIndex().getType().getElementType().isInteger(1) && numBranches != 2)
    return emitOpError() << "expects 2 branches with a tensor<i1> index, got "
                         << numBranches;
  if (numBranches == 0)
    return emitOpError() << "expects at least one branch";
  ArrayRef<int64_t> counts = getBranchOperandCounts();
  if (failed(verifyDimsSize(*this, "branch_operand_counts", counts.size(),
                            numBranches, "one entry per branch")))
    return failure();
  if (llvm::any_of(counts, [](int64_t count) { return count < 0; }))
    return emitOpError() << "branch_operand_counts must be non-negative, got "
                         << formatDims(counts);
  size_t numOperands = getBranchOperands().size();
  if (static_cast<size_t>(std::accumulate(counts.begin(), counts.end(),
                                          int64_t(0))) != numOperands)
    return emitOpError() << "branch_operand_counts must add up to the "
                         << numOperands << " branch operands, got "
                         << formatDims(counts);
  TypeRange operandTypes = getBranchOperands().getTypes();
  for (auto [i, branch, count] : llvm::enumerate(getBranches(), counts)) {
    if (failed(verifyRegion(*this, branch, "branches[" + Twine(i) + "]",
                            operandTypes.take_front(count), getResultTypes())))
      return failure();
    operandTypes = operandTypes.drop_front(count);
  }
  return success();
}

LogicalResult AnnotateOp::verify() {
  if (getHloOpcode() != "tuple" && getHloOpcode() != "get-tuple-element" &&
      getHloOpcode() != "parameter")
    return emitOpError("hlo_opcode must be 'tuple', 'get-tuple-element' or "
                       "'parameter', got '")
           << getHloOpcode() << "'";
  // A region's parameter: the annotated values are the block's arguments.
  if (getHloOpcode() == "parameter" &&
      !llvm::all_of(getOperands(), [&](Value operand) {
        auto arg = dyn_cast<BlockArgument>(operand);
        return arg && arg.getOwner() == (*this)->getBlock();
      }))
    return emitOpError("with hlo_opcode 'parameter' annotates only the "
                       "arguments of its own block");
  if (getOperandTypes() != getResultTypes())
    return emitOpError("result types must equal the operand types");
  return success();
}

LogicalResult OptimizationBarrierOp::verify() {
  return verifyTypes(*this, "result types", getOperands().getTypes(),
                     getResultTypes());
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::verify() {
  return verifyAllReduce(*this, getOperands(), getReplicaGroups(),
                         getToApply());
}

LogicalResult AllGatherOp::verify() {
  return verifyShardedCollective(*this, getOperands(), getDimensions(),
                                 getReplicaGroups(), getChannelId().has_value(),
                                 getUseGlobalDeviceIds(), /*gather=*/true);
}

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyShardedCollective(
          *this, getOperands(), getDimensions(), getReplicaGroups(),
          getChannelId().has_value(), getUseGlobalDeviceIds(),
          /*gather=*/false)))
    return failure();
  RankedTensorType scalar =
      scalarOf(rankedType(getOperands().front()).getElementType());
  return verifyRegion(*this, getToApply(), "to_apply", {scalar, scalar},
                      {scalar}, TypeMatch::IgnoreFpPrecision);
}

LogicalResult AllToAllOp::verify() {
  FailureOr<int64_t> groupSize = verifyReplicaGroups(*this, getReplicaGroups());
  if (failed(groupSize) ||
      failed(verifyCollectiveArity(*this, getOperands())) ||
      failed(verifyTypes(*this, "result types", getOperands().getTypes(),
                         getResultTypes())))
    return failure();
  // Without dimensions (HLO's tuple form) each operand is sent whole, the
  // j-th to the group's j-th member, so all have one type (as XLA checks).
  ArrayRef<int64_t> dims = getDimensions();
  if (dims.empty()) {
    for (auto [i, operand] : llvm::enumerate(getOperands()))
      if (operand.getType() != getOperands().front().getType())
        return emitOpError() << "operand " << i << " type "
                             << operand.getType()
                             << " must equal operand 0's ("
                             << getOperands().front().getType()
                             << ") in the tuple form (without dimensions)";
    // One operand for each member of the group.
    if (*groupSize && (int64_t)getOperands().size() != *groupSize)
      return emitOpError() << "takes one operand per member of its group ("
                           << *groupSize << ") in the tuple form, got "
                           << getOperands().size();
    return success();
  }
  FailureOr<int64_t> dim = getSingleDim(*this, dims);
  if (failed(dim))
    return failure();
  for (auto [i, operand] : llvm::enumerate(getOperands())) {
    RankedTensorType type = rankedType(operand);
    // A scalar beside the tensors (PyTorch/XLA's token) has no dimension to
    // split and passes through, as in all_gather and reduce_scatter.
    if (type.getRank() == 0)
      continue;
    if (failed(verifyDimIndex(*this, "dimensions[0]", *dim, type.getRank())) ||
        (*groupSize &&
         failed(verifyDivisible(*this, i, type, *dim, *groupSize))))
      return failure();
  }
  return success();
}

LogicalResult CollectivePermuteOp::verify() {
  DenseIntElementsAttr pairs = getSourceTargetPairs();
  auto type = cast<ShapedType>(pairs.getType());
  if (type.getNumElements() != 0 &&
      (type.getRank() != 2 || type.getDimSize(1) != 2))
    return emitOpError() << "source_target_pairs must have shape Nx2, got "
                         << type;
  // Each replica sends at most once and receives at most once.
  SmallVector<int64_t> values(pairs.getValues<int64_t>());
  const char *roles[] = {"source", "target"};
  for (auto [column, role] : llvm::enumerate(roles)) {
    auto ids = llvm::map_range(
        llvm::seq<size_t>(0, values.size() / 2),
        [&, column = column](size_t row) { return values[2 * row + column]; });
    if (std::optional<int64_t> dup = findDuplicate(ids))
      return emitOpError() << "source_target_pairs must not repeat a " << role
                           << ", got " << *dup << " twice";
  }
  if (failed(verifyCollectiveArity(*this, getOperands())))
    return failure();
  return verifyTypes(*this, "result types", getOperands().getTypes(),
                     getResultTypes());
}

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"

mlir::func::FuncOp kiln::getEntryFunction(mlir::ModuleOp module) {
  for (auto function : module.getOps<mlir::func::FuncOp>())
    if (function.isPublic() && !function.isExternal())
      return function;
  return nullptr;
}
