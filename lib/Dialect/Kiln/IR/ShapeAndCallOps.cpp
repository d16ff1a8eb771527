//===- ShapeAndCallOps.cpp - map, fusion, dynamic sizes, conversions -*- C++ -*-===//
//
// This file implements the verifiers of the ops that run a computation
// (map, fusion), of the ops on dynamic sizes (get-dimension-size,
// set-dimension-size, dynamic-reshape), and of stochastic-convert,
// rng-get-and-update-state and domain.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "VerifierHelpers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::verify;

LogicalResult MapOp::verify() {
  FailureOr<RankedTensorType> inputType =
      verifySameShapes(*this, getInputs(), "input");
  if (failed(inputType))
    return failure();
  // The computation maps one scalar of each input to one scalar.
  SmallVector<Type> args;
  for (Value input : getInputs())
    args.push_back(scalarOf(rankedType(input).getElementType()));
  Block &body = getToApply().front();
  if (failed(verifyTypes(*this, "region 'to_apply' argument types", args,
                         body.getArgumentTypes())))
    return failure();
  auto ret = body.empty() ? ReturnOp() : dyn_cast<ReturnOp>(body.back());
  if (!ret)
    return emitOpError() << "region 'to_apply' must end with kiln.return";
  if (ret.getNumOperands() != 1 ||
      cast<RankedTensorType>(ret.getOperand(0).getType()).getRank() != 0)
    return emitOpError() << "region 'to_apply' must return one scalar, got "
                         << formatTypes(ret.getOperandTypes());
  Type element = getElementTypeOrSelf(ret.getOperand(0).getType());
  // XLA's map applies to every dimension, in order.
  ArrayRef<int64_t> dims = getDimensions();
  int64_t rank = inputType->getRank();
  if (!dims.empty() &&
      !llvm::equal(dims, llvm::seq<int64_t>(0, rank)))
    return emitOpError() << "dimensions must be [0, ..., " << rank - 1
                         << "] (map applies to every dimension), got "
                         << formatDims(dims);
  return verifyType(*this, "result type",
                    RankedTensorType::get(inputType->getShape(), element),
                    getOutput().getType(),
                    "the inputs' shape, the computation's element type");
}

LogicalResult FusionOp::verify() {
  if (failed(verifyOneOf(*this, "kind", getKind(),
                         {"kLoop", "kInput", "kOutput", "kCustom"})))
    return failure();
  return verifyRegion(*this, getCalls(), "calls", getOperands().getTypes(),
                      getResultTypes());
}

LogicalResult StochasticConvertOp::verify() {
  RankedTensorType operand = rankedType(getOperand());
  RankedTensorType random = rankedType(getRandom());
  // Shapes are checked by the Elementwise trait.
  if (failed(requireFloat(*this, "operand", operand)))
    return failure();
  auto randomElement = cast<IntegerType>(random.getElementType());
  if (!randomElement.isUnsigned() ||
      (int64_t)randomElement.getWidth() != bitWidth(operand.getElementType()))
    return emitOpError() << "random must have unsigned elements of the "
                            "operand's width ("
                         << bitWidth(operand.getElementType())
                         << " bits), got " << random;
  return success();
}

LogicalResult RngGetAndUpdateStateOp::verify() {
  auto type = cast<RankedTensorType>(getOutput().getType());
  if (type.getDimSize(0) != 2)
    return emitOpError() << "result must be tensor<2xui64>, got " << type;
  return success();
}

LogicalResult GetDimensionSizeOp::verify() {
  FailureOr<int64_t> dim = getSingleDim(*this, getDimensions());
  if (failed(dim))
    return failure();
  return verifyDimIndex(*this, "dimensions[0]", *dim,
                        rankedType(getOperand()).getRank());
}

LogicalResult SetDimensionSizeOp::verify() {
  RankedTensorType operand = rankedType(getOperand());
  FailureOr<int64_t> dim = getSingleDim(*this, getDimensions());
  if (failed(dim) ||
      failed(verifyDimIndex(*this, "dimensions[0]", *dim, operand.getRank())))
    return failure();
  // The result keeps the operand's size as the dimension's bound.
  return verifyType(*this, "result shape and element type",
                    RankedTensorType::get(operand.getShape(),
                                          operand.getElementType()),
                    RankedTensorType::get(rankedType(getOutput()).getShape(),
                                          rankedType(getOutput())
                                              .getElementType()),
                    "the operand's");
}

LogicalResult DynamicReshapeOp::verify() {
  RankedTensorType result = rankedType(getOutput());
  if ((int64_t)getOutputSizes().size() != result.getRank())
    return emitOpError() << "expects one size per result dimension ("
                         << result.getRank() << "), got "
                         << getOutputSizes().size();
  return verifyElementType(*this, "result element type", getOperand().getType(),
                           result, "the operand's");
}

LogicalResult DomainOp::verify() {
  return verifyType(*this, "result type", getOperand().getType(),
                    getOutput().getType(), "the operand's");
}
