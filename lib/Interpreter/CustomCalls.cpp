//===- CustomCalls.cpp - the custom-call targets the evaluator knows -===//
//
// This file says how each custom-call target of the registry
// (kiln/Dialect/Kiln/IR/CustomCallTargets.h) evaluates. Sharding annotations and host/device placement
// are identities on one device; TopK is the top k along the last dimension,
// largest first. The AWS Neuron targets that PyTorch/XLA dumps carry compute
// what torch-neuronx emits them for: Gelu (the erf form) and its derivative,
// the tanh-approximated Gelu, Silu and its derivative, Erf, Softmax and its
// backward form (the dimension in backend_config, else the last),
// RmsNorm(x, weight, epsilon), ArgMax/ArgMin and TopK (k in backend_config);
// TransferWithStaticRing passes its operand through. An unknown target is an
// error naming it (and, through the op's location, its source line).
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

#include "kiln/Dialect/Kiln/IR/CustomCallTargets.h"

#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace kiln::interp;

namespace {

using TargetEvaluator = LogicalResult (*)(Operation *op, Operands in,
                                          Results &results);

LogicalResult identity(Operation *op, Operands in, Results &results) {
  if (op->getNumResults() > in.size())
    return op->emitError("custom call has more results than operands");
  for (auto [k, result] : llvm::enumerate(op->getResults())) {
    if (result.getType() != in[k]->type)
      return op->emitError("custom call changes the shape (")
             << in[k]->type << " to " << result.getType()
             << "): on one device it must not";
    results.push_back(*in[k]);
  }
  return success();
}

/// TopK(operand) -> (values, indices): the k largest along the last
/// dimension, largest first, ties by lower index; as XLA orders them, a
/// positive NaN above +inf and a negative NaN below -inf.
LogicalResult topK(Operation *op, Operands in, Results &results) {
  if (op->getNumResults() != 2 || in.empty())
    return op->emitError("TopK takes one operand and gives values and indices");
  const HostTensor &x = *in[0];
  results.emplace_back(op->getResult(0).getType());
  results.emplace_back(op->getResult(1).getType());
  int64_t length = x.shape().empty() ? 1 : x.shape().back();
  int64_t k = results[0].shape().empty() ? 1 : results[0].shape().back();
  int64_t lines = length ? x.size() / length : 0;
  for (int64_t l = 0; l < lines; ++l) {
    std::vector<int64_t> order(length);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      double va = x.asDouble(l * length + a), vb = x.asDouble(l * length + b);
      return comesFirstInTopK(va, vb);
    });
    for (int64_t p = 0; p < k && p < length; ++p) {
      results[0].copyElement(x, l * length + order[p], l * k + p);
      results[1].ints[l * k + p] = order[p];
    }
  }
  return success();
}

/// A one-operand element-wise target: f(x) per element, computed in double
/// and rounded to the result's type.
template <double (*F)(double)>
LogicalResult elementwise(Operation *op, Operands in, Results &results) {
  if (in.size() != 1 || op->getNumResults() != 1 ||
      in[0]->kind != ElementKind::Float)
    return op->emitError("takes one float operand and gives one result");
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  for (int64_t i = 0; i < out.size(); ++i)
    out.floats[i] = roundToFloat(F(in[0]->floats[i]), out.elementType());
  return success();
}

constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kInverseSqrt2Pi = 0.39894228040143267794;
double gelu(double x) { return 0.5 * x * (1 + std::erf(x * kSqrtHalf)); }
double geluDerivative(double x) {
  return 0.5 * (1 + std::erf(x * kSqrtHalf)) +
         x * kInverseSqrt2Pi * std::exp(-0.5 * x * x);
}
double geluTanh(double x) {
  return 0.5 * x *
         (1 + std::tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double silu(double x) { return x * sigmoid(x); }
double siluDerivative(double x) {
  double s = sigmoid(x);
  return s * (1 + x * (1 - s));
}
double erfFunction(double x) { return std::erf(x); }

FailureOr<int64_t> configDimension(Operation *op, int64_t rank) {
  return kiln::getCustomCallDimension(op, rank);
}

/// AwsNeuronSoftmax(x): exp(x - max) / sum(exp(x - max)) along the
/// dimension.
LogicalResult softmax(Operation *op, Operands in, Results &results) {
  const HostTensor &x = *in[0];
  FailureOr<int64_t> dimension = configDimension(op, x.shape().size());
  if (failed(dimension))
    return failure();
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  forEachLine(x.shape(), *dimension, [&](int64_t base, int64_t stride,
                                         int64_t length) {
    double max = -INFINITY, sum = 0;
    for (int64_t k = 0; k < length; ++k)
      max = std::max(max, x.floats[base + k * stride]);
    for (int64_t k = 0; k < length; ++k)
      sum += std::exp(x.floats[base + k * stride] - max);
    for (int64_t k = 0; k < length; ++k)
      out.floats[base + k * stride] = roundToFloat(
          std::exp(x.floats[base + k * stride] - max) / sum,
          out.elementType());
  });
  return success();
}

/// AwsNeuronSoftmaxBackward(grad, y): y * (grad - sum(grad * y)).
LogicalResult softmaxBackward(Operation *op, Operands in, Results &results) {
  if (in.size() != 2)
    return op->emitError("takes the gradient and softmax's output");
  const HostTensor &grad = *in[0], &y = *in[1];
  FailureOr<int64_t> dimension = configDimension(op, y.shape().size());
  if (failed(dimension))
    return failure();
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  forEachLine(y.shape(), *dimension, [&](int64_t base, int64_t stride,
                                         int64_t length) {
    double dot = 0;
    for (int64_t k = 0; k < length; ++k)
      dot += grad.floats[base + k * stride] * y.floats[base + k * stride];
    for (int64_t k = 0; k < length; ++k) {
      int64_t i = base + k * stride;
      out.floats[i] =
          roundToFloat(y.floats[i] * (grad.floats[i] - dot), out.elementType());
    }
  });
  return success();
}

/// AwsNeuronRmsNorm(x, weight, epsilon): x / sqrt(mean(x^2) + epsilon) *
/// weight along the dimension.
LogicalResult rmsNorm(Operation *op, Operands in, Results &results) {
  if (in.size() != 3)
    return op->emitError("takes x, the weight and epsilon");
  const HostTensor &x = *in[0], &weight = *in[1];
  double epsilon = in[2]->asDouble(0);
  FailureOr<int64_t> dimension = configDimension(op, x.shape().size());
  if (failed(dimension))
    return failure();
  if (weight.size() != x.shape()[*dimension])
    return op->emitError("AwsNeuronRmsNorm's weight has ")
           << weight.size() << " elements, the normalized dimension "
           << x.shape()[*dimension];
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  forEachLine(x.shape(), *dimension, [&](int64_t base, int64_t stride,
                                         int64_t length) {
    double squares = 0;
    for (int64_t k = 0; k < length; ++k)
      squares += x.floats[base + k * stride] * x.floats[base + k * stride];
    double scale = 1 / std::sqrt(squares / length + epsilon);
    for (int64_t k = 0; k < length; ++k)
      out.floats[base + k * stride] = roundToFloat(
          x.floats[base + k * stride] * scale * weight.asDouble(k),
          out.elementType());
  });
  return success();
}

/// AwsNeuronArgMax / AwsNeuronArgMin(x): the first index of the largest
/// (smallest) element along the dimension, the dimension removed.
template <bool Max>
LogicalResult argExtreme(Operation *op, Operands in, Results &results) {
  const HostTensor &x = *in[0];
  FailureOr<int64_t> dimension = configDimension(op, x.shape().size());
  if (failed(dimension))
    return failure();
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  int64_t next = 0;
  forEachLine(x.shape(), *dimension, [&](int64_t base, int64_t stride,
                                         int64_t length) {
    int64_t best = 0;
    for (int64_t k = 1; k < length; ++k) {
      double value = x.asDouble(base + k * stride),
             current = x.asDouble(base + best * stride);
      if (Max ? value > current : value < current)
        best = k;
    }
    if (next < out.size())
      out.ints[next++] = best;
  });
  return success();
}

/// How each kind of known target (CustomCallTargets.h, the one registry)
/// evaluates.
TargetEvaluator evaluatorOf(kiln::CustomCallTarget target) {
  using kiln::CustomCallTarget;
  switch (target) {
  case CustomCallTarget::Identity:
    return identity;
  case CustomCallTarget::TopK:
    return topK;
  case CustomCallTarget::Gelu:
    return elementwise<gelu>;
  case CustomCallTarget::GeluDerivative:
    return elementwise<geluDerivative>;
  case CustomCallTarget::GeluTanh:
    return elementwise<geluTanh>;
  case CustomCallTarget::Silu:
    return elementwise<silu>;
  case CustomCallTarget::SiluDerivative:
    return elementwise<siluDerivative>;
  case CustomCallTarget::Erf:
    return elementwise<erfFunction>;
  case CustomCallTarget::Softmax:
    return softmax;
  case CustomCallTarget::SoftmaxBackward:
    return softmaxBackward;
  case CustomCallTarget::RmsNorm:
    return rmsNorm;
  case CustomCallTarget::ArgMax:
    return argExtreme<true>;
  case CustomCallTarget::ArgMin:
    return argExtreme<false>;
  }
  return identity;
}

/// The shapes a known target needs before it reads any element: the
/// float targets give one result of their first operand's float type;
/// ArgMax/ArgMin an integer result; TopK values of the operand's element
/// type and integer indices, of one shape, at most as long as the
/// operand's last dimension.
LogicalResult checkTargetTypes(Operation *op, StringRef name,
                               kiln::CustomCallTarget target, Operands in) {
  auto fail = [&](const char *what) {
    return op->emitError("custom call '") << name << "': " << what;
  };
  if (in.empty() || in[0]->kind == ElementKind::Token)
    return fail("needs a tensor operand");
  if (target == kiln::CustomCallTarget::Identity)
    return success(); // checked by identity()
  auto resultType = [&](unsigned i) {
    return dyn_cast<RankedTensorType>(op->getResult(i).getType());
  };
  if (target == kiln::CustomCallTarget::TopK) {
    if (op->getNumResults() != 2 || !resultType(0) || !resultType(1))
      return fail("gives values and indices");
    auto values = resultType(0), indices = resultType(1);
    llvm::ArrayRef<int64_t> shape = in[0]->shape();
    if (values.getShape() != indices.getShape() ||
        values.getElementType() != in[0]->elementType() ||
        !isa<IntegerType>(indices.getElementType()) || shape.empty() ||
        values.getRank() != (int64_t)shape.size() ||
        values.getShape().drop_back() != shape.drop_back() ||
        values.getShape().back() > shape.back())
      return fail("values must have the operand's element type and shape "
                  "but the last dimension (at most as long), indices the "
                  "same shape in integers");
    return success();
  }
  if (target == kiln::CustomCallTarget::ArgMax ||
      target == kiln::CustomCallTarget::ArgMin) {
    if (op->getNumResults() != 1 || !resultType(0) ||
        !isa<IntegerType>(resultType(0).getElementType()) ||
        resultType(0).getNumElements() * std::max<int64_t>(
            1, in[0]->shape().empty() ? 1 : 1) > in[0]->size() ||
        in[0]->kind == ElementKind::Complex)
      return fail("gives one integer result, the operand's shape without "
                  "the reduced dimension");
    return success();
  }
  // The float targets.
  if (op->getNumResults() != 1 || op->getResult(0).getType() != in[0]->type ||
      in[0]->kind != ElementKind::Float)
    return fail("takes a float tensor and gives one of its type");
  for (const HostTensor *operand : in.drop_front())
    if (operand->kind != ElementKind::Float)
      return fail("takes float operands");
  if (target == kiln::CustomCallTarget::SoftmaxBackward &&
      (in.size() != 2 || in[1]->type != in[0]->type))
    return fail("takes the gradient and softmax's output, of one type");
  if (target == kiln::CustomCallTarget::RmsNorm) {
    if (in.size() != 3 || in[2]->size() != 1 ||
        in[1]->shape().size() != 1 || in[0]->shape().empty())
      return fail("takes x, a 1-D weight and a scalar epsilon");
  }
  return success();
}

} // namespace

std::optional<LogicalResult>
kiln::interp::evaluateCustomCall(Operation *op, Operands in, Results &results,
                                 RegionRunner &) {
  if (op->getName().getStringRef() != "kiln.custom_call")
    return std::nullopt;
  auto target = op->getAttrOfType<StringAttr>("custom_call_target");
  StringRef name = target ? target.getValue() : "";
  std::optional<kiln::CustomCallTarget> known =
      kiln::lookupCustomCallTarget(name);
  if (!known)
    return op->emitError("custom call target '")
           << name << "' is unknown to the evaluator";
  if (failed(checkTargetTypes(op, name, *known, in)))
    return failure();
  return evaluatorOf(*known)(op, in, results);
}
