//===- IndexSpaceAnalysis.cpp - values as functions of their indices -===//
//
// This file implements the index-space analysis: a forward walk that gives
// each op's results a meaning from its operands' (IndexSpaceAnalysis.h),
// and the checks that turn a literal into an arange or a triangular or
// banded predicate only when every element agrees.
//
//===----------------------------------------------------------------------===//

#include "IndexSpaceAnalysis.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace kiln;

namespace {

using Affine = AffineIndexFunction;

/// The largest magnitude below which every integer is exact in `element`.
double exactLimit(Type element) {
  if (auto floating = dyn_cast<FloatType>(element))
    return std::ldexp(1.0, llvm::APFloat::semanticsPrecision(
                               floating.getFloatSemantics()));
  if (auto integer = dyn_cast<IntegerType>(element)) {
    if (integer.getWidth() == 1)
      return 1;
    unsigned bits = integer.isUnsigned() ? integer.getWidth()
                                         : integer.getWidth() - 1;
    return std::ldexp(1.0, std::min(bits, 62u)) - 1;
  }
  return 0;
}

/// Whether every value of `f` over `shape` is an integer exactly held by
/// `element` (and non-negative for unsigned types).
bool isExact(const Affine &f, RankedTensorType type) {
  double low = f.constant, high = f.constant;
  for (auto [d, a] : llvm::enumerate(f.coefficients)) {
    double extent = (double)a * (double)(type.getDimSize(d) - 1);
    (extent < 0 ? low : high) += extent;
  }
  double limit = exactLimit(type.getElementType());
  auto integer = dyn_cast<IntegerType>(type.getElementType());
  if (integer && integer.isUnsigned() && low < 0)
    return false;
  return std::max(std::fabs(low), std::fabs(high)) <= limit;
}

Affine combine(const Affine &a, const Affine &b, int64_t scaleB) {
  Affine result = a;
  for (auto [x, y] : llvm::zip(result.coefficients, b.coefficients))
    x += scaleB * y;
  result.constant += scaleB * b.constant;
  return result;
}

Affine scaled(const Affine &a, int64_t factor) {
  Affine result = a;
  for (int64_t &x : result.coefficients)
    x *= factor;
  result.constant *= factor;
  return result;
}

/// `f >= 0` negated, for integer-valued f: `-f - 1 >= 0`.
Affine negatedHalfSpace(const Affine &f) {
  Affine result = scaled(f, -1);
  result.constant -= 1;
  return result;
}

/// The integer a splat or scalar literal holds, if it is one.
std::optional<int64_t> integralValue(TypedAttr attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getValue().getSExtValue();
  if (auto floating = dyn_cast<FloatAttr>(attr)) {
    double value = floating.getValueAsDouble();
    if (std::isfinite(value) && value == std::trunc(value) &&
        std::fabs(value) < 9e15)
      return (int64_t)value;
  }
  return std::nullopt;
}

/// Each element's bits (integers and floats), for comparing literals.
std::optional<std::vector<uint64_t>> elementBits(DenseElementsAttr value) {
  Type element = value.getElementType();
  std::vector<uint64_t> bits;
  bits.reserve(value.getNumElements());
  if (isa<IntegerType>(element)) {
    for (const llvm::APInt &v : value.getValues<llvm::APInt>())
      bits.push_back(v.getZExtValue());
    return bits;
  }
  if (isa<FloatType>(element)) {
    for (const llvm::APFloat &v : value.getValues<llvm::APFloat>())
      bits.push_back(v.bitcastToAPInt().getZExtValue());
    return bits;
  }
  return std::nullopt;
}

/// A literal that is exactly `c + a * idx[d]` along one dimension.
std::optional<IndexValue> matchArange(DenseElementsAttr value,
                                      RankedTensorType type) {
  llvm::SmallVector<double> elements;
  if (isa<IntegerType>(type.getElementType())) {
    auto integer = cast<IntegerType>(type.getElementType());
    for (const llvm::APInt &v : value.getValues<llvm::APInt>())
      elements.push_back(integer.isUnsigned() ? (double)v.getZExtValue()
                                              : (double)v.getSExtValue());
  } else if (isa<FloatType>(type.getElementType())) {
    for (const llvm::APFloat &v : value.getValues<llvm::APFloat>())
      elements.push_back(v.convertToDouble());
  } else {
    return std::nullopt;
  }
  if (elements.empty() || elements[0] != std::trunc(elements[0]))
    return std::nullopt;
  llvm::ArrayRef<int64_t> shape = type.getShape();
  int64_t stride = 1;
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; stride *= shape[d], --d) {
    if (shape[d] < 2)
      continue;
    double step = elements[stride] - elements[0];
    if (step == 0 || step != std::trunc(step))
      continue;
    bool matches = true;
    for (size_t i = 0; i < elements.size() && matches; ++i) {
      int64_t position = (i / stride) % shape[d];
      matches = elements[i] == elements[0] + step * position;
    }
    if (!matches)
      continue;
    IndexValue result;
    result.kind = IndexValue::Kind::Affine;
    result.affine.coefficients.assign(shape.size(), 0);
    result.affine.coefficients[d] = (int64_t)step;
    result.affine.constant = (int64_t)elements[0];
    if (!isExact(result.affine, type))
      return std::nullopt;
    return result;
  }
  return std::nullopt;
}

/// A literal of two values whose pattern is a band of diagonals over two
/// dimensions (a triangular or banded mask), checked element by element.
std::optional<IndexValue> matchDiagonalLiteral(DenseElementsAttr value,
                                               RankedTensorType type) {
  std::optional<std::vector<uint64_t>> bits = elementBits(value);
  if (!bits || bits->empty())
    return std::nullopt;
  llvm::ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  llvm::SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  bool isPredicate = type.getElementType().isInteger(1);
  // The kept value: true, or the value on the diagonal at the origin.
  uint64_t keptBits = isPredicate ? 1 : (*bits)[0];
  std::optional<uint64_t> maskedBits;
  for (uint64_t b : *bits)
    if (b != keptBits) {
      if (maskedBits && *maskedBits != b)
        return std::nullopt; // more than two values
      maskedBits = b;
    }
  if (!maskedBits)
    return std::nullopt;
  for (int64_t p = 0; p < rank; ++p)
    for (int64_t q = p + 1; q < rank; ++q) {
      if (shape[p] < 2 || shape[q] < 2)
        continue;
      // Per diagonal q - p: kept everywhere, masked everywhere, or mixed.
      int64_t first = -(shape[p] - 1), count = shape[p] + shape[q] - 1;
      std::vector<int8_t> state(count, -1);
      bool consistent = true;
      for (size_t i = 0; i < bits->size() && consistent; ++i) {
        int64_t diagonal = (int64_t)((i / strides[q]) % shape[q]) -
                           (int64_t)((i / strides[p]) % shape[p]);
        int8_t kept = (*bits)[i] == keptBits;
        int8_t &seen = state[diagonal - first];
        consistent = seen < 0 || seen == kept;
        seen = kept;
      }
      if (!consistent)
        continue;
      // The kept diagonals must be one interval.
      int64_t low = -1, high = -1;
      for (int64_t k = 0; k < count && consistent; ++k) {
        if (state[k] != 1)
          continue;
        if (low < 0)
          low = k;
        else if (high != k - 1)
          consistent = false;
        high = k;
      }
      if (!consistent || low < 0)
        continue;
      IndexValue result;
      result.kind = isPredicate ? IndexValue::Kind::Predicate
                                : IndexValue::Kind::Selected;
      auto halfSpace = [&](int64_t sign, int64_t constant) {
        Affine f;
        f.coefficients.assign(rank, 0);
        f.coefficients[q] = sign;
        f.coefficients[p] = -sign;
        f.constant = constant;
        result.halfSpaces.push_back(f);
      };
      if (low > 0)
        halfSpace(1, -(first + low)); // q - p >= first + low
      if (high < count - 1)
        halfSpace(-1, first + high); // q - p <= first + high
      if (!isPredicate) {
        auto values = value.getValues<Attribute>();
        result.kept = cast<TypedAttr>(values[0]);
        for (size_t i = 0; i < bits->size(); ++i)
          if ((*bits)[i] == *maskedBits) {
            result.masked = cast<TypedAttr>(values[i]);
            break;
          }
      }
      return result;
    }
  return std::nullopt;
}

} // namespace

IndexSpaceAnalysis::IndexSpaceAnalysis(Operation *root) {
  root->walk([&](Operation *op) { visit(op); });
}

const IndexValue *IndexSpaceAnalysis::lookup(Value value) const {
  auto found = values.find(value);
  return found == values.end() ? nullptr : &found->second;
}

void IndexSpaceAnalysis::visit(Operation *op) {
  if (op->getNumResults() != 1)
    return;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return;
  int64_t rank = type.getRank();
  StringRef name = op->getName().getStringRef();
  Type element = type.getElementType();
  auto set = [&](IndexValue value) { values[op->getResult(0)] = value; };
  auto operand = [&](unsigned i) -> const IndexValue * {
    return i < op->getNumOperands() ? lookup(op->getOperand(i)) : nullptr;
  };
  auto affine = [&](Affine f) {
    IndexValue value;
    value.kind = IndexValue::Kind::Affine;
    value.affine = std::move(f);
    return value;
  };

  if (name == "kiln.iota") {
    Affine f;
    f.coefficients.assign(rank, 0);
    f.coefficients[op->getAttrOfType<IntegerAttr>("iota_dimension").getInt()] = 1;
    if (isExact(f, type))
      set(affine(f));
    return;
  }
  if (name == "kiln.constant") {
    auto value = dyn_cast<DenseElementsAttr>(op->getAttr("value"));
    if (!value)
      return;
    if (value.isSplat()) {
      TypedAttr splat = value.getSplatValue<TypedAttr>();
      IndexValue result;
      if (element.isInteger(1)) {
        result.kind = IndexValue::Kind::Predicate;
        result.neverTrue = !cast<IntegerAttr>(splat).getValue().getBoolValue();
      } else {
        std::optional<int64_t> integral = integralValue(splat);
        result.kind = IndexValue::Kind::Affine;
        result.affine.coefficients.assign(rank, 0);
        result.affine.constant = integral.value_or(0);
        if (!integral)
          result.kind = IndexValue::Kind::Selected, result.neverTrue = true,
          result.masked = splat;
      }
      result.uniform = splat;
      set(result);
      return;
    }
    if (std::optional<IndexValue> arange = matchArange(value, type))
      return set(*arange);
    if (std::optional<IndexValue> mask = matchDiagonalLiteral(value, type))
      return set(*mask);
    return;
  }
  // Everything else is known only from known operands.
  llvm::SmallVector<const IndexValue *, 3> in;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    const IndexValue *value = operand(i);
    if (!value)
      return;
    in.push_back(value);
  }
  auto operandType = [&](unsigned i) {
    return cast<RankedTensorType>(op->getOperand(i).getType());
  };
  // Index-space changes: a function of the operand's indices as a function
  // of the result's.
  auto remap = [&](const IndexValue &from,
                   llvm::function_ref<int64_t(int64_t)> resultDimOf) {
    IndexValue result = from;
    auto remapOne = [&](Affine &f) {
      Affine g;
      g.coefficients.assign(rank, 0);
      g.constant = f.constant;
      for (auto [d, a] : llvm::enumerate(f.coefficients)) {
        if (a == 0)
          continue;
        int64_t to = resultDimOf(d);
        if (to < 0)
          return false;
        g.coefficients[to] += a;
      }
      f = g;
      return true;
    };
    if (from.kind == IndexValue::Kind::Affine && !remapOne(result.affine))
      return;
    for (Affine &f : result.halfSpaces)
      if (!remapOne(f))
        return;
    set(result);
  };
  if (name == "kiln.broadcast_in_dim") {
    llvm::ArrayRef<int64_t> dims =
        op->getAttrOfType<DenseI64ArrayAttr>("dimensions").asArrayRef();
    RankedTensorType from = operandType(0);
    // An operand dimension of size 1 is index 0 wherever it is broadcast.
    return remap(*in[0], [&](int64_t d) -> int64_t {
      return from.getDimSize(d) == 1 ? -1 : dims[d];
    });
  }
  if (name == "kiln.transpose") {
    llvm::ArrayRef<int64_t> permutation =
        op->getAttrOfType<DenseI64ArrayAttr>("dimensions").asArrayRef();
    return remap(*in[0], [&](int64_t d) -> int64_t {
      return llvm::find(permutation, d) - permutation.begin();
    });
  }
  if (name == "kiln.reshape") {
    // Only reshapes that add or drop dimensions of size 1.
    llvm::SmallVector<int64_t> fromDims, toDims;
    for (auto [d, size] : llvm::enumerate(operandType(0).getShape()))
      if (size != 1)
        fromDims.push_back(d);
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      if (size != 1)
        toDims.push_back(d);
    if (fromDims.size() != toDims.size())
      return;
    for (auto [f, t] : llvm::zip(fromDims, toDims))
      if (operandType(0).getDimSize(f) != type.getDimSize(t))
        return;
    return remap(*in[0], [&](int64_t d) -> int64_t {
      auto found = llvm::find(fromDims, d);
      return found == fromDims.end() ? -1 : toDims[found - fromDims.begin()];
    });
  }
  if (name == "kiln.convert") {
    const IndexValue &from = *in[0];
    if (from.kind == IndexValue::Kind::Affine) {
      if (!element.isInteger(1) && isExact(from.affine, type) &&
          (isa<IntegerType>(element) || isa<FloatType>(element)))
        set(from);
      return;
    }
    if (from.kind == IndexValue::Kind::Predicate &&
        (isa<FloatType>(element) || isa<IntegerType>(element))) {
      // true and false as 1 and 0.
      IndexValue result = from;
      result.kind = IndexValue::Kind::Selected;
      Builder b(op->getContext());
      result.kept = isa<FloatType>(element)
                        ? TypedAttr(b.getFloatAttr(element, 1.0))
                        : TypedAttr(b.getIntegerAttr(element, 1));
      result.masked = isa<FloatType>(element)
                          ? TypedAttr(b.getFloatAttr(element, 0.0))
                          : TypedAttr(b.getIntegerAttr(element, 0));
      set(result);
    }
    return;
  }
  bool bothAffine = in.size() == 2 && in[0]->kind == IndexValue::Kind::Affine &&
                    in[1]->kind == IndexValue::Kind::Affine;
  if ((name == "kiln.add" || name == "kiln.subtract") && bothAffine) {
    Affine f = combine(in[0]->affine, in[1]->affine,
                       name == "kiln.add" ? 1 : -1);
    if (isExact(f, type))
      set(affine(f));
    return;
  }
  if (name == "kiln.multiply" && bothAffine) {
    // A function times a uniform integer.
    for (int k = 0; k < 2; ++k)
      if (llvm::all_of(in[1 - k]->affine.coefficients,
                       [](int64_t a) { return a == 0; })) {
        Affine f = scaled(in[k]->affine, in[1 - k]->affine.constant);
        if (isExact(f, type))
          set(affine(f));
        return;
      }
    return;
  }
  if (name == "kiln.negate" && in[0]->kind == IndexValue::Kind::Affine) {
    Affine f = scaled(in[0]->affine, -1);
    if (isExact(f, type))
      set(affine(f));
    return;
  }
  if (name == "kiln.compare" && bothAffine) {
    StringRef direction = op->getAttrOfType<StringAttr>("direction").getValue();
    Affine difference = combine(in[0]->affine, in[1]->affine, -1);
    IndexValue result;
    result.kind = IndexValue::Kind::Predicate;
    if (direction == "GE")
      result.halfSpaces = {difference};
    else if (direction == "GT")
      result.halfSpaces = {negatedHalfSpace(scaled(difference, -1))};
    else if (direction == "LE")
      result.halfSpaces = {scaled(difference, -1)};
    else if (direction == "LT")
      result.halfSpaces = {negatedHalfSpace(difference)};
    else if (direction == "EQ")
      result.halfSpaces = {difference, scaled(difference, -1)};
    else
      return; // NE is a union
    set(result);
    return;
  }
  auto isPredicate = [](const IndexValue *v) {
    return v->kind == IndexValue::Kind::Predicate;
  };
  auto alwaysTrue = [](const IndexValue *v) {
    return !v->neverTrue && v->halfSpaces.empty();
  };
  if (name == "kiln.and" && in.size() == 2 && isPredicate(in[0]) &&
      isPredicate(in[1])) {
    IndexValue result = *in[0];
    result.halfSpaces.append(in[1]->halfSpaces.begin(),
                             in[1]->halfSpaces.end());
    result.neverTrue |= in[1]->neverTrue;
    result.uniform = {};
    set(result);
    return;
  }
  if (name == "kiln.or" && in.size() == 2 && isPredicate(in[0]) &&
      isPredicate(in[1])) {
    for (int k = 0; k < 2; ++k) {
      if (in[k]->neverTrue)
        return set(*in[1 - k]);
      if (alwaysTrue(in[k]))
        return set(*in[k]);
    }
    return;
  }
  if (name == "kiln.not" && isPredicate(in[0])) {
    IndexValue result = *in[0];
    result.uniform = {};
    if (in[0]->neverTrue) {
      result.neverTrue = false;
    } else if (in[0]->halfSpaces.empty()) {
      result.neverTrue = true;
    } else if (in[0]->halfSpaces.size() == 1) {
      result.halfSpaces = {negatedHalfSpace(in[0]->halfSpaces[0])};
    } else {
      return;
    }
    set(result);
    return;
  }
  if (name == "kiln.select" && in.size() == 3 && isPredicate(in[0]) &&
      in[1]->uniform && in[2]->uniform) {
    IndexValue result;
    result.kind = IndexValue::Kind::Selected;
    result.halfSpaces = in[0]->halfSpaces;
    result.neverTrue = in[0]->neverTrue;
    result.kept = in[1]->uniform;
    result.masked = in[2]->uniform;
    if (element.isInteger(1)) {
      // A select of booleans is a predicate again.
      bool kept = cast<IntegerAttr>(result.kept).getValue().getBoolValue();
      bool masked = cast<IntegerAttr>(result.masked).getValue().getBoolValue();
      if (kept && !masked) {
        result.kind = IndexValue::Kind::Predicate;
      } else {
        return;
      }
    }
    set(result);
    return;
  }
}

std::optional<DiagonalMask> kiln::matchDiagonalMask(const IndexValue &value,
                                                    Type type) {
  if (value.kind == IndexValue::Kind::Affine || value.neverTrue ||
      value.halfSpaces.empty() || value.halfSpaces.size() > 2)
    return std::nullopt;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return std::nullopt;
  DiagonalMask mask;
  std::optional<std::pair<int64_t, int64_t>> pair;
  for (const AffineIndexFunction &f : value.halfSpaces) {
    llvm::SmallVector<int64_t, 2> dims;
    for (auto [d, a] : llvm::enumerate(f.coefficients))
      if (a != 0 && tensor.getDimSize(d) > 1)
        dims.push_back(d);
    if (dims.size() != 2)
      return std::nullopt;
    int64_t p = dims[0], q = dims[1]; // p < q: row, column
    if (pair && *pair != std::make_pair(p, q))
      return std::nullopt;
    pair = {p, q};
    int64_t a = f.coefficients[q];
    if (f.coefficients[p] != -a || (a != 1 && a != -1))
      return std::nullopt;
    // a (q - p) + c >= 0.
    if (a == 1) {
      int64_t bound = -f.constant;
      mask.minDiagonal = mask.minDiagonal ? std::max(*mask.minDiagonal, bound)
                                          : bound;
    } else {
      int64_t bound = f.constant;
      mask.maxDiagonal = mask.maxDiagonal ? std::min(*mask.maxDiagonal, bound)
                                          : bound;
    }
  }
  mask.rowDimension = pair->first;
  mask.columnDimension = pair->second;
  bool complement = false;
  // One bound from below is the complement of one from above: written as
  // the causal form (keep j - i <= k) with the two values swapped.
  if (mask.minDiagonal && !mask.maxDiagonal) {
    mask.maxDiagonal = *mask.minDiagonal - 1;
    mask.minDiagonal.reset();
    complement = true;
  }
  if (mask.minDiagonal && mask.maxDiagonal &&
      *mask.minDiagonal > *mask.maxDiagonal)
    return std::nullopt;
  Builder b(type.getContext());
  if (value.kind == IndexValue::Kind::Predicate) {
    mask.kept = b.getBoolAttr(true);
    mask.masked = b.getBoolAttr(false);
  } else {
    mask.kept = value.kept;
    mask.masked = value.masked;
  }
  if (complement)
    std::swap(mask.kept, mask.masked);
  if (!mask.kept || !mask.masked ||
      mask.kept.getType() != tensor.getElementType() ||
      mask.masked.getType() != tensor.getElementType())
    return std::nullopt;
  return mask;
}
