//===- ContractionOps.cpp - dot_general, convolution, batch norm -*- C++ -*-===//
//
// This file evaluates the contractions: dot_general (batch, contracting and
// free dimensions), convolution (any dimension numbers, padding, dilations,
// window reversal, feature and batch groups) and the batch norm ops. Sums
// are accumulated in double (complex<double>, or int64 for integers) and
// rounded once to the result type; quantized operands take part with their
// real values.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>

using namespace mlir;
using namespace kiln::interp;

namespace {

/// Element `i` of `t` as a complex number: a quantized integer's real
/// value, an integer's or float's value.
std::complex<double> valueAt(const HostTensor &t, int64_t i) {
  Type element = t.elementType();
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(element))
    return (double)(t.ints[i] - uniform.getZeroPoint()) * uniform.getScale();
  if (t.kind == ElementKind::Complex)
    return t.complexes[i];
  return t.asDouble(i);
}

/// The type in which XLA accumulates products for a float result type:
/// f32 for f32 and narrower floats, the type itself for f64 (complex: the
/// part type, likewise); null for integers and quantized results, which
/// are accumulated exactly.
Type accumulationType(Type element) {
  if (auto complex = dyn_cast<ComplexType>(element))
    element = complex.getElementType();
  auto floating = dyn_cast<FloatType>(element);
  if (!floating)
    return nullptr;
  if (floating.isF64())
    return floating;
  return Float32Type::get(element.getContext());
}

/// `sum + a * b` with each operation rounded to `type` (as code compiled
/// for that type computes it); in double when `type` is null.
std::complex<double> multiplyAdd(std::complex<double> sum,
                                 std::complex<double> a,
                                 std::complex<double> b, Type type,
                                 bool isComplex) {
  if (!type)
    return sum + a * b;
  auto r = [&](double v) { return roundToFloat(v, type); };
  if (!isComplex)
    return r(sum.real() + r(a.real() * b.real()));
  double re = r(r(a.real() * b.real()) - r(a.imag() * b.imag()));
  double im = r(r(a.real() * b.imag()) + r(a.imag() * b.real()));
  return {r(sum.real() + re), r(sum.imag() + im)};
}

/// Stores a sum into element `i` of `out`, rounded (or wrapped, or
/// quantized) to its element type.
void store(HostTensor &out, int64_t i, std::complex<double> sum,
           int64_t integerSum) {
  Type element = out.elementType();
  switch (out.kind) {
  case ElementKind::Float:
    out.floats[i] = roundToFloat(sum.real(), element);
    break;
  case ElementKind::Complex: {
    Type part = cast<ComplexType>(element).getElementType();
    out.complexes[i] = {roundToFloat(sum.real(), part),
                        roundToFloat(sum.imag(), part)};
    break;
  }
  case ElementKind::Integer:
    if (auto uniform = dyn_cast<quant::UniformQuantizedType>(element)) {
      double stored = std::nearbyint(sum.real() / uniform.getScale()) +
                      uniform.getZeroPoint();
      out.ints[i] = (int64_t)std::clamp(stored,
                                        (double)uniform.getStorageTypeMin(),
                                        (double)uniform.getStorageTypeMax());
    } else {
      out.ints[i] = wrapInteger((uint64_t)integerSum, element);
    }
    break;
  case ElementKind::Token:
    break;
  }
}

bool isPlainInteger(const HostTensor &t) {
  return t.kind == ElementKind::Integer &&
         !isa<quant::QuantizedType>(t.elementType());
}

/// The index arithmetic of a dot: the batch, free and contracting
/// dimensions of both operands, in the order of the result's dimensions
/// (batch, lhs free, rhs free). ragged_dot's group dimension is left out
/// of rhs's free ones.
struct DotGeometry {
  llvm::ArrayRef<int64_t> lhsBatch, rhsBatch, lhsContract, rhsContract;
  llvm::SmallVector<int64_t> lhsStrides, rhsStrides, lhsFree, rhsFree;
  llvm::SmallVector<int64_t> contractShape;
  int64_t contractCount = 1;

  DotGeometry(Operation *op, const HostTensor &lhs, const HostTensor &rhs,
              int64_t rhsGroupDim = -1)
      : lhsBatch(dimsAttr(op, "lhs_batch_dims")),
        rhsBatch(dimsAttr(op, "rhs_batch_dims")),
        lhsContract(dimsAttr(op, "lhs_contracting_dims")),
        rhsContract(dimsAttr(op, "rhs_contracting_dims")),
        lhsStrides(stridesOf(lhs.shape())), rhsStrides(stridesOf(rhs.shape())) {
    for (int64_t d = 0; d < (int64_t)lhs.shape().size(); ++d)
      if (!llvm::is_contained(lhsBatch, d) &&
          !llvm::is_contained(lhsContract, d))
        lhsFree.push_back(d);
    for (int64_t d = 0; d < (int64_t)rhs.shape().size(); ++d)
      if (!llvm::is_contained(rhsBatch, d) &&
          !llvm::is_contained(rhsContract, d) && d != rhsGroupDim)
        rhsFree.push_back(d);
    for (int64_t d : lhsContract)
      contractShape.push_back(lhs.shape()[d]);
    for (int64_t size : contractShape)
      contractCount *= size;
  }

  /// Where result element `index` starts in lhs and rhs; `lhsIndex` gets
  /// the lhs index along each free dimension.
  void bases(llvm::ArrayRef<int64_t> index, int64_t &lhsBase, int64_t &rhsBase,
             llvm::SmallVectorImpl<int64_t> *lhsIndex = nullptr) const {
    lhsBase = rhsBase = 0;
    size_t p = 0;
    for (size_t k = 0; k < lhsBatch.size(); ++k, ++p) {
      lhsBase += index[p] * lhsStrides[lhsBatch[k]];
      rhsBase += index[p] * rhsStrides[rhsBatch[k]];
    }
    if (lhsIndex)
      lhsIndex->assign(lhsStrides.size(), 0);
    for (int64_t d : lhsFree) {
      if (lhsIndex)
        (*lhsIndex)[d] = index[p];
      lhsBase += index[p++] * lhsStrides[d];
    }
    for (int64_t d : rhsFree)
      rhsBase += index[p++] * rhsStrides[d];
  }

  /// The elements of lhs and rhs at contracting position `c` from bases.
  void at(llvm::ArrayRef<int64_t> c, int64_t &l, int64_t &r) const {
    for (size_t k = 0; k < c.size(); ++k) {
      l += c[k] * lhsStrides[lhsContract[k]];
      r += c[k] * rhsStrides[rhsContract[k]];
    }
  }
};

LogicalResult evaluateDot(Operation *op, Operands in, Results &results) {
  const HostTensor &lhs = *in[0], &rhs = *in[1];
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  DotGeometry dot(op, lhs, rhs);
  bool integers = isPlainInteger(lhs) && isPlainInteger(rhs) &&
                  isPlainInteger(out);
  // Products are accumulated in order, rounded as XLA's CPU code rounds
  // them, so that sums with cancellation come out as JAX's did.
  Type accumulate = isa<quant::QuantizedType>(out.elementType())
                        ? Type()
                        : accumulationType(out.elementType());
  bool isComplex = out.kind == ElementKind::Complex;
  llvm::ArrayRef<int64_t> outShape = out.shape();
  llvm::SmallVector<int64_t> index(outShape.size(), 0);
  for (int64_t o = 0; o < out.size(); ++o, nextIndex(index, outShape)) {
    int64_t lhsBase, rhsBase;
    dot.bases(index, lhsBase, rhsBase);
    std::complex<double> sum = 0;
    int64_t integerSum = 0;
    llvm::SmallVector<int64_t> c(dot.contractShape.size(), 0);
    for (int64_t n = 0; n < dot.contractCount;
         ++n, nextIndex(c, dot.contractShape)) {
      int64_t l = lhsBase, r = rhsBase;
      dot.at(c, l, r);
      if (integers)
        integerSum += (int64_t)((uint64_t)lhs.ints[l] * (uint64_t)rhs.ints[r]);
      else
        sum = multiplyAdd(sum, valueAt(lhs, l), valueAt(rhs, r), accumulate,
                          isComplex);
    }
    store(out, o, sum, integerSum);
  }
  return success();
}

/// ragged_dot with its ragged dimension among lhs's free dimensions (the
/// mixture-of-experts form): lhs row r belongs to the group whose range of
/// `group_sizes` holds it, and is multiplied with that group's slice of rhs;
/// rows past the last group give zeros.
LogicalResult evaluateRaggedDot(Operation *op, Operands in, Results &results) {
  const HostTensor &lhs = *in[0], &rhs = *in[1], &sizes = *in[2];
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  llvm::ArrayRef<int64_t> ragged = dimsAttr(op, "lhs_ragged_dims"),
                          groupDims = dimsAttr(op, "rhs_group_dims");
  llvm::ArrayRef<int64_t> lhsBatch = dimsAttr(op, "lhs_batch_dims"),
                          lhsContract = dimsAttr(op, "lhs_contracting_dims");
  if (ragged.size() != 1 || groupDims.size() != 1 ||
      llvm::is_contained(lhsContract, ragged[0]) ||
      llvm::is_contained(lhsBatch, ragged[0]) || sizes.shape().size() != 1)
    return op->emitError("ragged_dot is evaluated when its ragged dimension "
                         "is one of lhs's free dimensions, with 1-D "
                         "group_sizes");
  llvm::SmallVector<int64_t> groupEnds;
  int64_t end = 0;
  for (int64_t g = 0; g < sizes.size(); ++g)
    groupEnds.push_back(end += (int64_t)sizes.asDouble(g));
  DotGeometry dot(op, lhs, rhs, groupDims[0]);
  Type accumulate = accumulationType(out.elementType());
  bool isComplex = out.kind == ElementKind::Complex;
  llvm::ArrayRef<int64_t> outShape = out.shape();
  llvm::SmallVector<int64_t> index(outShape.size(), 0), lhsIndex;
  for (int64_t o = 0; o < out.size(); ++o, nextIndex(index, outShape)) {
    int64_t lhsBase, rhsBase;
    dot.bases(index, lhsBase, rhsBase, &lhsIndex);
    int64_t row = lhsIndex[ragged[0]];
    int64_t group = llvm::upper_bound(groupEnds, row) - groupEnds.begin();
    std::complex<double> sum = 0;
    if (group < (int64_t)groupEnds.size()) {
      rhsBase += group * dot.rhsStrides[groupDims[0]];
      llvm::SmallVector<int64_t> c(dot.contractShape.size(), 0);
      for (int64_t n = 0; n < dot.contractCount;
           ++n, nextIndex(c, dot.contractShape)) {
        int64_t l = lhsBase, r = rhsBase;
        dot.at(c, l, r);
        sum = multiplyAdd(sum, valueAt(lhs, l), valueAt(rhs, r), accumulate,
                          isComplex);
      }
    }
    store(out, o, sum, 0);
  }
  return success();
}

LogicalResult evaluateConvolution(Operation *op, Operands in,
                                  Results &results) {
  const HostTensor &lhs = *in[0], &rhs = *in[1];
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  auto integer = [&](StringRef name) {
    return op->getAttrOfType<IntegerAttr>(name).getInt();
  };
  int64_t inBatch = integer("input_batch_dimension"),
          inFeature = integer("input_feature_dimension"),
          kIn = integer("kernel_input_feature_dimension"),
          kOut = integer("kernel_output_feature_dimension"),
          outBatch = integer("output_batch_dimension"),
          outFeature = integer("output_feature_dimension");
  llvm::ArrayRef<int64_t> inSpatial = dimsAttr(op, "input_spatial_dimensions"),
                          kSpatial = dimsAttr(op, "kernel_spatial_dimensions"),
                          outSpatial = dimsAttr(op, "output_spatial_dimensions");
  llvm::ArrayRef<int64_t> strides = dimsAttr(op, "window_strides"),
                          low = dimsAttr(op, "padding_low"),
                          lhsDilation = dimsAttr(op, "base_dilations"),
                          rhsDilation = dimsAttr(op, "window_dilations");
  auto reversalAttr = op->getAttrOfType<DenseBoolArrayAttr>("window_reversal");
  int64_t featureGroups = 1, batchGroups = 1;
  if (auto attr = op->getAttrOfType<IntegerAttr>("feature_group_count"))
    featureGroups = attr.getInt();
  if (auto attr = op->getAttrOfType<IntegerAttr>("batch_group_count"))
    batchGroups = attr.getInt();
  auto at = [](llvm::ArrayRef<int64_t> values, size_t i, int64_t dflt) {
    return i < values.size() ? values[i] : dflt;
  };
  llvm::ArrayRef<int64_t> lhsShape = lhs.shape(), rhsShape = rhs.shape(),
                          outShape = out.shape();
  llvm::SmallVector<int64_t> lhsStrides = stridesOf(lhsShape),
                             rhsStrides = stridesOf(rhsShape);
  size_t spatialRank = inSpatial.size();
  int64_t kernelInFeatures = rhsShape[kIn];
  int64_t outFeatures = outShape[outFeature];
  int64_t outBatchSize = outShape[outBatch];
  int64_t perFeatureGroup = outFeatures / featureGroups;
  int64_t perBatchGroup = outFeatures / batchGroups;
  llvm::SmallVector<int64_t> kernelShape;
  for (int64_t d : kSpatial)
    kernelShape.push_back(rhsShape[d]);
  int64_t kernelCount = 1;
  for (int64_t size : kernelShape)
    kernelCount *= size;
  bool integers = isPlainInteger(lhs) && isPlainInteger(rhs) &&
                  isPlainInteger(out);
  llvm::SmallVector<int64_t> index(outShape.size(), 0);
  for (int64_t o = 0; o < out.size(); ++o, nextIndex(index, outShape)) {
    int64_t batch = index[outBatch], feature = index[outFeature];
    int64_t featureGroup = feature / perFeatureGroup;
    int64_t batchGroup = feature / perBatchGroup;
    int64_t lhsBatchIndex = batchGroup * outBatchSize + batch;
    std::complex<double> sum = 0;
    int64_t integerSum = 0;
    llvm::SmallVector<int64_t> k(spatialRank, 0);
    for (int64_t n = 0; n < kernelCount; ++n, nextIndex(k, kernelShape)) {
      int64_t lhsOffset = lhsBatchIndex * lhsStrides[inBatch];
      int64_t rhsOffset = feature * rhsStrides[kOut];
      bool inside = true;
      for (size_t s = 0; s < spatialRank; ++s) {
        int64_t kernelPosition = k[s];
        if (reversalAttr && s < reversalAttr.size() && reversalAttr[s])
          kernelPosition = kernelShape[s] - 1 - k[s];
        int64_t p = index[outSpatial[s]] * at(strides, s, 1) +
                    k[s] * at(rhsDilation, s, 1) - at(low, s, 0);
        int64_t dilation = at(lhsDilation, s, 1);
        if (p < 0 || p % dilation != 0 || p / dilation >= lhsShape[inSpatial[s]]) {
          inside = false;
          break;
        }
        lhsOffset += (p / dilation) * lhsStrides[inSpatial[s]];
        rhsOffset += kernelPosition * rhsStrides[kSpatial[s]];
      }
      if (!inside)
        continue;
      for (int64_t i = 0; i < kernelInFeatures; ++i) {
        int64_t l = lhsOffset +
                    (featureGroup * kernelInFeatures + i) * lhsStrides[inFeature];
        int64_t r = rhsOffset + i * rhsStrides[kIn];
        if (integers)
          integerSum +=
              (int64_t)((uint64_t)lhs.ints[l] * (uint64_t)rhs.ints[r]);
        else
          sum += valueAt(lhs, l) * valueAt(rhs, r);
      }
    }
    store(out, o, sum, integerSum);
  }
  return success();
}

/// Per feature, the mean and (biased) variance of `x` over every other
/// dimension.
void featureMoments(const HostTensor &x, int64_t featureDim,
                    std::vector<double> &mean, std::vector<double> &variance) {
  llvm::ArrayRef<int64_t> shape = x.shape();
  int64_t features = shape[featureDim];
  llvm::SmallVector<int64_t> strides = stridesOf(shape);
  int64_t count = x.size() / std::max<int64_t>(1, features);
  mean.assign(features, 0);
  variance.assign(features, 0);
  for (int64_t i = 0; i < x.size(); ++i)
    mean[(i / strides[featureDim]) % features] += x.floats[i];
  for (double &m : mean)
    m /= count;
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t f = (i / strides[featureDim]) % features;
    double d = x.floats[i] - mean[f];
    variance[f] += d * d;
  }
  for (double &v : variance)
    v /= count;
}

LogicalResult evaluateBatchNorm(Operation *op, StringRef name, Operands in,
                                Results &results) {
  for (Type type : op->getResultTypes())
    results.emplace_back(type);
  const HostTensor &x = *in[0];
  double epsilon =
      op->getAttrOfType<FloatAttr>("epsilon").getValueAsDouble();
  int64_t featureDim = op->getAttrOfType<IntegerAttr>("feature_index").getInt();
  llvm::SmallVector<int64_t> strides = stridesOf(x.shape());
  int64_t features = x.shape()[featureDim];
  auto featureOf = [&](int64_t i) {
    return (i / strides[featureDim]) % features;
  };
  Type element = x.elementType();
  std::vector<double> mean, variance;
  if (name == "kiln.batch_norm_inference") {
    const HostTensor &scale = *in[1], &offset = *in[2];
    for (int64_t f = 0; f < features; ++f) {
      mean.push_back(in[3]->floats[f]);
      variance.push_back(in[4]->floats[f]);
    }
    for (int64_t i = 0; i < x.size(); ++i) {
      int64_t f = featureOf(i);
      results[0].floats[i] = roundToFloat(
          scale.floats[f] * (x.floats[i] - mean[f]) /
                  std::sqrt(variance[f] + epsilon) +
              offset.floats[f],
          element);
    }
    return success();
  }
  if (name == "kiln.batch_norm_training") {
    const HostTensor &scale = *in[1], &offset = *in[2];
    featureMoments(x, featureDim, mean, variance);
    for (int64_t i = 0; i < x.size(); ++i) {
      int64_t f = featureOf(i);
      results[0].floats[i] = roundToFloat(
          scale.floats[f] * (x.floats[i] - mean[f]) /
                  std::sqrt(variance[f] + epsilon) +
              offset.floats[f],
          element);
    }
    for (int64_t f = 0; f < features; ++f) {
      results[1].floats[f] = roundToFloat(mean[f], element);
      results[2].floats[f] = roundToFloat(variance[f], element);
    }
    return success();
  }
  // batch_norm_grad(operand, scale, mean, variance, grad_output).
  const HostTensor &scale = *in[1], &meanIn = *in[2], &varianceIn = *in[3],
                   &gradOut = *in[4];
  int64_t count = x.size() / std::max<int64_t>(1, features);
  std::vector<double> sumGrad(features, 0), sumGradXhat(features, 0);
  auto xhat = [&](int64_t i) {
    int64_t f = featureOf(i);
    return (x.floats[i] - meanIn.floats[f]) /
           std::sqrt(varianceIn.floats[f] + epsilon);
  };
  for (int64_t i = 0; i < x.size(); ++i) {
    sumGrad[featureOf(i)] += gradOut.floats[i];
    sumGradXhat[featureOf(i)] += gradOut.floats[i] * xhat(i);
  }
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t f = featureOf(i);
    double inverse = 1 / std::sqrt(varianceIn.floats[f] + epsilon);
    results[0].floats[i] = roundToFloat(
        scale.floats[f] * inverse *
            (gradOut.floats[i] - sumGrad[f] / count -
             xhat(i) * sumGradXhat[f] / count),
        element);
  }
  for (int64_t f = 0; f < features; ++f) {
    results[1].floats[f] = roundToFloat(sumGradXhat[f], element);
    results[2].floats[f] = roundToFloat(sumGrad[f], element);
  }
  return success();
}

} // namespace

std::optional<LogicalResult>
kiln::interp::evaluateContraction(Operation *op, Operands in, Results &results,
                                  RegionRunner &) {
  StringRef name = op->getName().getStringRef();
  if (name == "kiln.dot_general")
    return evaluateDot(op, in, results);
  if (name == "kiln.convolution")
    return evaluateConvolution(op, in, results);
  if (name == "kiln.ragged_dot")
    return evaluateRaggedDot(op, in, results);
  if (name.starts_with("kiln.batch_norm_"))
    return evaluateBatchNorm(op, name, in, results);
  return std::nullopt;
}
