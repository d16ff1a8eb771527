//===- HostTensor.cpp - a tensor's value in host memory ---------*- C++ -*-===//
//
// This file implements the host representation of the evaluator's values:
// conversion from and to constants, and the rounding and wrapping that keep
// every element a value of its element type.
//
//===----------------------------------------------------------------------===//

#include "kiln/Interpreter/HostTensor.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace kiln::interp;

ElementKind kiln::interp::kindOf(Type element) {
  if (isa<IntegerType, quant::QuantizedType, IndexType>(element))
    return ElementKind::Integer;
  if (isa<FloatType>(element))
    return ElementKind::Float;
  if (isa<ComplexType>(element))
    return ElementKind::Complex;
  return ElementKind::Token;
}

IntegerType kiln::interp::storageIntegerType(Type element) {
  if (auto integer = dyn_cast<IntegerType>(element))
    return integer;
  if (auto quantized = dyn_cast<quant::QuantizedType>(element))
    return IntegerType::get(element.getContext(),
                            quantized.getStorageTypeIntegralWidth(),
                            quantized.isSigned() ? IntegerType::Signless
                                                 : IntegerType::Unsigned);
  return IntegerType::get(element.getContext(), 64);
}

bool kiln::interp::isUnsignedInteger(Type element) {
  IntegerType integer = storageIntegerType(element);
  return integer.isUnsigned() || integer.getWidth() == 1;
}

int64_t kiln::interp::wrapInteger(uint64_t value, Type element) {
  IntegerType integer = storageIntegerType(element);
  unsigned width = integer.getWidth();
  if (width >= 64)
    return static_cast<int64_t>(value);
  uint64_t mask = (uint64_t(1) << width) - 1;
  value &= mask;
  if (!isUnsignedInteger(element) && (value >> (width - 1)) & 1)
    value |= ~mask;
  return static_cast<int64_t>(value);
}

double kiln::interp::roundToFloat(double value, Type element) {
  if (element.isF64())
    return value;
  if (element.isF32())
    return static_cast<double>(static_cast<float>(value));
  auto floatType = cast<FloatType>(element);
  llvm::APFloat wide(value);
  bool losesInfo;
  wide.convert(floatType.getFloatSemantics(),
               llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  wide.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
               &losesInfo);
  return wide.convertToDouble();
}

HostTensor::HostTensor(Type type) : type(type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    kind = ElementKind::Token;
    return;
  }
  kind = kindOf(tensor.getElementType());
  int64_t count = tensor.getNumElements();
  switch (kind) {
  case ElementKind::Integer:
    ints.assign(count, 0);
    break;
  case ElementKind::Float:
    floats.assign(count, 0.0);
    break;
  case ElementKind::Complex:
    complexes.assign(count, {0.0, 0.0});
    break;
  case ElementKind::Token:
    break;
  }
}

int64_t HostTensor::size() const {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? tensor.getNumElements() : 0;
}

/// `value` as a double (exact: double holds every narrower float).
static double toDouble(llvm::APFloat value) {
  bool losesInfo;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

/// `value` in `element`'s semantics (exact for values of that type).
static llvm::APFloat fromDouble(double value, Type element) {
  llvm::APFloat result(value);
  bool losesInfo;
  result.convert(cast<FloatType>(element).getFloatSemantics(),
                 llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

FailureOr<HostTensor> HostTensor::fromAttr(DenseElementsAttr value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return failure();
  HostTensor result(type);
  Type element = type.getElementType();
  switch (result.kind) {
  case ElementKind::Integer: {
    bool isUnsigned = isUnsignedInteger(element);
    int64_t i = 0;
    for (const llvm::APInt &bits : value.getValues<llvm::APInt>())
      result.ints[i++] = isUnsigned ? (int64_t)bits.getZExtValue()
                                    : bits.getSExtValue();
    return result;
  }
  case ElementKind::Float: {
    int64_t i = 0;
    for (const llvm::APFloat &element : value.getValues<llvm::APFloat>())
      result.floats[i++] = toDouble(element);
    return result;
  }
  case ElementKind::Complex: {
    int64_t i = 0;
    for (const std::complex<llvm::APFloat> &element :
         value.getValues<std::complex<llvm::APFloat>>())
      result.complexes[i++] = {toDouble(element.real()),
                               toDouble(element.imag())};
    return result;
  }
  case ElementKind::Token:
    return failure();
  }
  return failure();
}

DenseElementsAttr HostTensor::toAttr() const {
  RankedTensorType tensor = tensorType();
  Type element = tensor.getElementType();
  switch (kind) {
  case ElementKind::Integer: {
    IntegerType storage = storageIntegerType(element);
    llvm::SmallVector<llvm::APInt> values;
    values.reserve(ints.size());
    for (int64_t value : ints)
      values.push_back(llvm::APInt(64, value).trunc(storage.getWidth()));
    return DenseElementsAttr::get(tensor.clone(storage), values);
  }
  case ElementKind::Float: {
    llvm::SmallVector<llvm::APFloat> values;
    values.reserve(floats.size());
    for (double value : floats)
      values.push_back(fromDouble(value, element));
    return DenseElementsAttr::get(tensor, values);
  }
  case ElementKind::Complex: {
    Type part = cast<ComplexType>(element).getElementType();
    llvm::SmallVector<std::complex<llvm::APFloat>> values;
    for (std::complex<double> value : complexes)
      values.push_back({fromDouble(value.real(), part),
                        fromDouble(value.imag(), part)});
    return DenseElementsAttr::get(tensor, values);
  }
  case ElementKind::Token:
    return {};
  }
  return {};
}

int64_t HostTensor::asIndex(int64_t i) const {
  if (kind == ElementKind::Integer) {
    if (isUnsignedInteger(elementType()) && ints[i] < 0)
      return std::numeric_limits<int64_t>::max();
    return ints[i];
  }
  double value = asDouble(i);
  if (std::isnan(value))
    return 0;
  if (value >= 0x1p63)
    return std::numeric_limits<int64_t>::max();
  if (value < -0x1p63)
    return std::numeric_limits<int64_t>::min();
  return (int64_t)value;
}

double HostTensor::asDouble(int64_t i) const {
  switch (kind) {
  case ElementKind::Integer:
    return isUnsignedInteger(elementType()) ? (double)(uint64_t)ints[i]
                                            : (double)ints[i];
  case ElementKind::Float:
    return floats[i];
  case ElementKind::Complex:
    return complexes[i].real();
  case ElementKind::Token:
    return 0;
  }
  return 0;
}

llvm::APInt HostTensor::bitsAt(int64_t i) const {
  Type element = elementType();
  switch (kind) {
  case ElementKind::Integer:
    return llvm::APInt(64, ints[i]).trunc(storageIntegerType(element).getWidth());
  case ElementKind::Float:
    return fromDouble(floats[i], element).bitcastToAPInt();
  default: {
    // Complex: the real part's bits, then the imaginary part's.
    Type part = cast<ComplexType>(element).getElementType();
    llvm::APInt re = fromDouble(complexes[i].real(), part).bitcastToAPInt();
    llvm::APInt im = fromDouble(complexes[i].imag(), part).bitcastToAPInt();
    return im.zext(2 * re.getBitWidth()).shl(re.getBitWidth()) |
           re.zext(2 * re.getBitWidth());
  }
  }
}

void HostTensor::setBits(int64_t i, const llvm::APInt &bits) {
  Type element = elementType();
  switch (kind) {
  case ElementKind::Integer:
    ints[i] = wrapInteger(bits.getZExtValue(), element);
    break;
  case ElementKind::Float:
    floats[i] = toDouble(
        llvm::APFloat(cast<FloatType>(element).getFloatSemantics(), bits));
    break;
  default: {
    Type part = cast<ComplexType>(element).getElementType();
    unsigned width = bits.getBitWidth() / 2;
    const auto &semantics = cast<FloatType>(part).getFloatSemantics();
    complexes[i] = {toDouble(llvm::APFloat(semantics, bits.trunc(width))),
                    toDouble(llvm::APFloat(semantics,
                                           bits.lshr(width).trunc(width)))};
  }
  }
}

llvm::SmallVector<int64_t> kiln::interp::stridesOf(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

bool kiln::interp::nextIndex(llvm::MutableArrayRef<int64_t> index,
                             llvm::ArrayRef<int64_t> shape) {
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    if (++index[d] < shape[d])
      return true;
    index[d] = 0;
  }
  return false;
}

std::string kiln::interp::formatNumber(double value) {
  char text[32];
  snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

FailureOr<std::vector<HostTensor>>
kiln::interp::parseTensorList(llvm::StringRef text, MLIRContext *context,
                              std::string &error) {
  // MLIR's parser recurses once per nested bracket: a literal nested
  // deeper than any tensor's rank is refused before it is parsed.
  constexpr unsigned kMaxNesting = 256;
  unsigned depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      escaped = !escaped && c == '\\';
      if (c == '"' && !escaped)
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '(' || c == '{' || c == '<') {
      if (++depth > kMaxNesting) {
        error = "the literals nest deeper than " + std::to_string(kMaxNesting) +
                " brackets";
        return failure();
      }
    } else if ((c == ']' || c == ')' || c == '}' || c == '>') && depth > 0) {
      --depth;
    }
  }
  Attribute parsed;
  {
    ScopedDiagnosticHandler quiet(context, [](Diagnostic &) {
      return success();
    });
    size_t read = 0;
    parsed = mlir::parseAttribute(text, context, Type(), &read);
    if (parsed && read != text.size())
      parsed = nullptr;
  }
  auto list = dyn_cast_or_null<ArrayAttr>(parsed);
  if (!list) {
    error = "expected a list of tensor literals, [dense<1> : tensor<2xi32>, "
            "...], got '" + text.str() + "'";
    return failure();
  }
  std::vector<HostTensor> tensors;
  for (auto [i, element] : llvm::enumerate(list)) {
    auto dense = dyn_cast<DenseElementsAttr>(element);
    FailureOr<HostTensor> tensor =
        dense ? HostTensor::fromAttr(dense) : FailureOr<HostTensor>(failure());
    if (failed(tensor)) {
      error = "element " + std::to_string(i) +
              " of the list is not a dense literal of a ranked tensor";
      return failure();
    }
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}
