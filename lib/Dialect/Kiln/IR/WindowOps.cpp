//===- WindowOps.cpp - convolution and select-and-scatter ---------*- C++ -*-===//
//
// This file implements the verifiers of the windowed ops other than
// reduce_window: convolution, whose output shape follows from its window and
// dimension numbers, and select_and_scatter, whose source has the shape of
// the operand's windows.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "VerifierHelpers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::verify;

/// Checks one operand's dimension numbers (`batch` and `feature`, or the
/// kernel's input and output features, then the spatial dimensions): each in
/// [0, rank), none twice, and as many spatial dimensions as the rank leaves.
static LogicalResult verifyConvDims(Operation *op, StringRef what,
                                    int64_t rank, int64_t first,
                                    int64_t second,
                                    ArrayRef<int64_t> spatial) {
  if ((int64_t)spatial.size() + 2 != rank)
    return op->emitOpError()
           << what << " has rank " << rank << " but "
           << spatial.size() << " spatial dimensions (rank must be 2 more)";
  SmallVector<int64_t> all = {first, second};
  llvm::append_range(all, spatial);
  return verifyDims(op, Twine(what) + " dimension numbers", all, rank);
}

LogicalResult ConvolutionOp::verify() {
  RankedTensorType lhs = rankedType(getLhs()), rhs = rankedType(getRhs());
  auto result = cast<RankedTensorType>(getOutput().getType());
  ArrayRef<int64_t> inputSpatial = getInputSpatialDimensions(),
                    kernelSpatial = getKernelSpatialDimensions(),
                    outputSpatial = getOutputSpatialDimensions();
  if (failed(verifyConvDims(*this, "lhs", lhs.getRank(),
                            getInputBatchDimension(),
                            getInputFeatureDimension(), inputSpatial)) ||
      failed(verifyConvDims(*this, "rhs", rhs.getRank(),
                            getKernelInputFeatureDimension(),
                            getKernelOutputFeatureDimension(),
                            kernelSpatial)) ||
      failed(verifyConvDims(*this, "result", result.getRank(),
                            getOutputBatchDimension(),
                            getOutputFeatureDimension(), outputSpatial)))
    return failure();
  size_t spatialCount = inputSpatial.size();
  if (kernelSpatial.size() != spatialCount ||
      outputSpatial.size() != spatialCount)
    return emitOpError() << "lhs, rhs and result must have the same number "
                            "of spatial dimensions, got "
                         << spatialCount << ", " << kernelSpatial.size()
                         << " and " << outputSpatial.size();
  int64_t featureGroups = getFeatureGroupCount();
  int64_t batchGroups = getBatchGroupCount();
  if (featureGroups < 1 || batchGroups < 1)
    return emitOpError() << "feature_group_count and batch_group_count must "
                            "be >= 1, got "
                         << featureGroups << " and " << batchGroups;
  if (featureGroups > 1 && batchGroups > 1)
    return emitOpError() << "feature_group_count and batch_group_count "
                            "cannot both be above 1";
  if (auto precision = getOperandPrecision())
    for (Attribute word : *precision)
      if (failed(verifyOneOf(*this, "operand_precision",
                             cast<StringAttr>(word).getValue(),
                             {"DEFAULT", "HIGH", "HIGHEST", "default", "high",
                              "highest"})))
        return failure();

  // The window: one entry per spatial dimension; its size is the kernel's.
  Window window = windowOf(*this);
  if (failed(verifyWindow(*this, window, spatialCount,
                          "one entry per spatial dimension")))
    return failure();
  if (auto reversal = getWindowReversal())
    if (failed(verifyDimsSize(*this, "window_reversal", reversal->size(),
                              spatialCount,
                              "one entry per spatial dimension")))
      return failure();
  for (size_t i = 0; i < spatialCount; ++i) {
    int64_t kernelSize = rhs.getDimSize(kernelSpatial[i]);
    if (!dimsAgree(kernelSize, window.dimensions[i]))
      return emitOpError() << "window_dimensions[" << i << "] must be "
                           << kernelSize << " (the size of rhs dimension "
                           << kernelSpatial[i] << "), got "
                           << window.dimensions[i];
  }

  // Features: the input's are split among feature groups, each of which the
  // kernel's input features must match.
  int64_t inputFeatures = lhs.getDimSize(getInputFeatureDimension());
  int64_t kernelInputFeatures =
      rhs.getDimSize(getKernelInputFeatureDimension());
  int64_t kernelOutputFeatures =
      rhs.getDimSize(getKernelOutputFeatureDimension());
  int64_t inputBatch = lhs.getDimSize(getInputBatchDimension());
  bool known = !ShapedType::isDynamic(inputFeatures) &&
               !ShapedType::isDynamic(kernelInputFeatures);
  if (known && inputFeatures % featureGroups != 0)
    return emitOpError() << "lhs feature dimension (size " << inputFeatures
                         << ") must be divisible by feature_group_count ("
                         << featureGroups << ")";
  if (known && inputFeatures / featureGroups != kernelInputFeatures)
    return emitOpError() << "rhs input feature dimension must be "
                         << inputFeatures / featureGroups
                         << " (lhs features / feature_group_count), got "
                         << kernelInputFeatures;
  if (!ShapedType::isDynamic(kernelOutputFeatures)) {
    int64_t groups = std::max(featureGroups, batchGroups);
    if (kernelOutputFeatures % groups != 0)
      return emitOpError() << "rhs output feature dimension (size "
                           << kernelOutputFeatures
                           << ") must be divisible by the group count ("
                           << groups << ")";
  }
  if (!ShapedType::isDynamic(inputBatch) && inputBatch % batchGroups != 0)
    return emitOpError() << "lhs batch dimension (size " << inputBatch
                         << ") must be divisible by batch_group_count ("
                         << batchGroups << ")";

  SmallVector<int64_t> shape(result.getRank(), 0);
  shape[getOutputBatchDimension()] =
      ShapedType::isDynamic(inputBatch) ? inputBatch : inputBatch / batchGroups;
  shape[getOutputFeatureDimension()] = kernelOutputFeatures;
  SmallVector<int64_t> inputSizes;
  for (int64_t dim : inputSpatial)
    inputSizes.push_back(lhs.getDimSize(dim));
  FailureOr<SmallVector<int64_t>> spatial =
      windowedShape(*this, inputSizes, window);
  if (failed(spatial))
    return failure();
  for (size_t i = 0; i < spatialCount; ++i)
    shape[outputSpatial[i]] = (*spatial)[i];
  return verifyShape(*this, "result shape", shape, result.getShape(),
                     "XLA's convolution shape rule");
}

LogicalResult SelectAndScatterOp::verify() {
  RankedTensorType operand = rankedType(getOperand());
  RankedTensorType source = rankedType(getSource());
  RankedTensorType init = rankedType(getInitValue());
  int64_t rank = operand.getRank();
  Window window = windowOf(*this);
  if (failed(verifyWindow(*this, window, rank,
                          "one entry per operand dimension")))
    return failure();
  FailureOr<SmallVector<int64_t>> windows =
      windowedShape(*this, operand.getShape(), window);
  if (failed(windows))
    return failure();
  if (failed(verifyShape(*this, "source shape", *windows, source.getShape(),
                         "one element per window of the operand")))
    return failure();
  if (init.getRank() != 0)
    return emitOpError() << "init_value must be a scalar, got " << init;
  if (failed(verifyElementType(*this, "source element type", operand, source,
                               "the operand's")) ||
      failed(verifyElementType(*this, "init_value element type", operand,
                               init, "the operand's")) ||
      failed(verifyType(*this, "result type", operand, getOutput().getType(),
                        "the operand's")))
    return failure();
  RankedTensorType scalar = scalarOf(operand.getElementType());
  RankedTensorType pred =
      scalarOf(IntegerType::get(getContext(), 1));
  if (failed(verifyRegion(*this, getSelect(), "select", {scalar, scalar},
                          {pred})))
    return failure();
  return verifyRegion(*this, getScatter(), "scatter", {scalar, scalar},
                      {scalar});
}
