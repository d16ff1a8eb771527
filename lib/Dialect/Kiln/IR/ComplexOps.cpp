//===- ComplexOps.cpp - complex numbers and Fourier transforms ----*- C++ -*-===//
//
// This file implements the verifiers of the ops that make or take apart
// complex numbers (real, imag, complex, abs) and of fft, with the shape rules
// of XLA's shape inference.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "VerifierHelpers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::verify;

/// The element type of a complex number's parts, or `type` itself when it is
/// not complex.
static Type partType(Type type) {
  if (auto complex = dyn_cast<ComplexType>(type))
    return complex.getElementType();
  return type;
}

/// real and imag: a complex (or float) operand, the parts' type as result.
static LogicalResult verifyPartOp(Operation *op, RankedTensorType operand,
                                  Type result) {
  Type element = operand.getElementType();
  if (!isa<ComplexType, FloatType>(element))
    return op->emitOpError()
           << "operand must have a complex or float element type, got "
           << operand;
  return verifyType(op, "result type",
                    RankedTensorType::get(operand.getShape(),
                                          partType(element)),
                    result, "the operand's shape, the type of its parts");
}

LogicalResult RealOp::verify() {
  return verifyPartOp(*this, rankedType(getOperand()), getOutput().getType());
}

LogicalResult ImagOp::verify() {
  return verifyPartOp(*this, rankedType(getOperand()), getOutput().getType());
}

LogicalResult ComplexOp::verify() {
  RankedTensorType lhs = rankedType(getLhs());
  if (!lhs.getElementType().isF32() && !lhs.getElementType().isF64())
    return emitOpError() << "lhs must have element type f32 or f64, got "
                         << lhs;
  if (failed(verifyType(*this, "rhs type", lhs, getRhs().getType(),
                        "the lhs type")))
    return failure();
  return verifyType(
      *this, "result type",
      RankedTensorType::get(lhs.getShape(),
                            ComplexType::get(lhs.getElementType())),
      getOutput().getType(), "complex of the lhs type");
}

LogicalResult AbsOp::verify() {
  RankedTensorType operand = rankedType(getOperand());
  // The modulus of a complex number is real.
  return verifyType(*this, "result type",
                    RankedTensorType::get(operand.getShape(),
                                          partType(operand.getElementType())),
                    getOutput().getType(),
                    isa<ComplexType>(operand.getElementType())
                        ? "the operand's shape, the type of its parts"
                        : "the operand's");
}

LogicalResult FftOp::verify() {
  StringRef fftType = getFftType();
  if (failed(verifyOneOf(*this, "fft_type", fftType,
                         {"FFT", "IFFT", "RFFT", "IRFFT"})))
    return failure();
  ArrayRef<int64_t> lengths = getFftLength();
  RankedTensorType operand = rankedType(getOperand());
  int64_t rank = operand.getRank();
  if (lengths.empty() || lengths.size() > 3)
    return emitOpError() << "fft_length must have 1 to 3 entries, got "
                         << formatDims(lengths);
  if ((int64_t)lengths.size() > rank)
    return emitOpError() << "fft_length has " << lengths.size()
                         << " entries but the operand has rank " << rank;
  if (llvm::any_of(lengths, [](int64_t length) { return length < 0; }))
    return emitOpError() << "fft_length must not be negative, got "
                         << formatDims(lengths);
  Type element = operand.getElementType();
  bool complexIn = fftType != "RFFT";
  if (complexIn ? !isa<ComplexType>(element)
                : !(element.isF32() || element.isF64()))
    return emitOpError() << fftType << " needs "
                         << (complexIn ? "a complex" : "an f32 or f64")
                         << " operand, got " << operand;
  // The transformed dimensions of the operand, and of the result.
  size_t first = rank - lengths.size();
  SmallVector<int64_t> expectedIn(lengths), resultShape(operand.getShape());
  if (fftType == "IRFFT" && !expectedIn.empty() && expectedIn.back() != 0)
    expectedIn.back() = expectedIn.back() / 2 + 1;
  for (size_t i = 0; i < lengths.size(); ++i) {
    int64_t size = operand.getDimSize(first + i);
    if (!dimsAgree(size, expectedIn[i]))
      return emitOpError() << "operand dimension " << first + i << " must be "
                           << expectedIn[i] << " (fft_length "
                           << formatDims(lengths) << " for " << fftType
                           << "), got " << size;
  }
  Type resultElement = element;
  if (fftType == "RFFT") {
    resultElement = ComplexType::get(element);
    if (lengths.back() != 0)
      resultShape.back() = lengths.back() / 2 + 1;
  } else if (fftType == "IRFFT") {
    resultElement = partType(element);
    resultShape.back() = lengths.back();
  }
  return verifyType(*this, "result type",
                    RankedTensorType::get(resultShape, resultElement),
                    getOutput().getType(), "XLA's fft shape rule");
}
