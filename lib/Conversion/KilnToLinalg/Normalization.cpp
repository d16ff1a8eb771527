//===- Normalization.cpp - kiln batch norm ops to linalg --------*- C++ -*-===//
//
// This file lowers batch_norm_training, batch_norm_inference and
// batch_norm_grad (PyTorch/XLA writes layer norms as batch_norm_training
// over a reshaped operand): the per-feature statistics are reductions over
// every other dimension, and the outputs generics that read them along the
// feature dimension, all in f32 (f64 for f64) and rounded once, with the
// evaluator's formulas (biased variance, epsilon inside the square root).
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace {

/// What the three lowerings share: types, the compute type, conversions
/// in and out of it, and scalar helpers.
struct NormBuilder {
  OpBuilder &b;
  Location loc;
  Type element, compute;
  llvm::ArrayRef<int64_t> shape;
  int64_t feature;
  double count;

  Value widen(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType() == compute)
      return value;
    return kiln::mapLines(b, loc, type.getShape(), compute, {value}, {}, {}, 0,
                          [&](OpBuilder &nb, Location at, ValueRange args) {
                            return arith::ExtFOp::create(nb, at, compute,
                                                         args[0])
                                .getResult();
                          });
  }
  Value narrow(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    if (element == compute)
      return value;
    return kiln::mapLines(b, loc, type.getShape(), element, {value}, {}, {}, 0,
                          [&](OpBuilder &nb, Location at, ValueRange args) {
                            return arith::TruncFOp::create(nb, at, element,
                                                           args[0])
                                .getResult();
                          });
  }
  Value sumAllBut(Value x) {
    return kiln::reduceAllBut(b, loc, x, feature, 0.0,
                              [](OpBuilder &nb, Location at, ValueRange args) {
                                return arith::AddFOp::create(nb, at, args[0],
                                                             args[1])
                                    .getResult();
                              });
  }
  /// Over the features only (1-D tensors).
  Value perFeature(ValueRange values, kiln::ScalarFn body) {
    int64_t features = shape[feature];
    return kiln::mapLines(b, loc, {features}, compute, values, {}, {}, 0, body);
  }
  /// Over the whole shape, with `lines` read along the feature dimension.
  Value overAll(ValueRange full, ValueRange lines, kiln::ScalarFn body) {
    return kiln::mapLines(b, loc, shape, compute, full, {}, lines, feature,
                          body);
  }
};

Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

/// Per feature: mean, and the biased variance.
std::pair<Value, Value> moments(NormBuilder &n, Value x) {
  double count = n.count;
  Type compute = n.compute;
  Value mean = n.perFeature({n.sumAllBut(x)}, [&](OpBuilder &b, Location at,
                                                 ValueRange args) {
    return arith::DivFOp::create(b, at, args[0], constant(b, at, compute, count))
        .getResult();
  });
  Value squares = n.overAll({x}, {mean}, [](OpBuilder &b, Location at,
                                             ValueRange args) {
    Value d = arith::SubFOp::create(b, at, args[0], args[1]);
    return arith::MulFOp::create(b, at, d, d).getResult();
  });
  Value variance =
      n.perFeature({n.sumAllBut(squares)}, [&](OpBuilder &b, Location at,
                                               ValueRange args) {
        return arith::DivFOp::create(b, at, args[0],
                                     constant(b, at, compute, count))
            .getResult();
      });
  return {mean, variance};
}

/// scale (x - mean) / sqrt(variance + epsilon) + offset.
Value normalize(NormBuilder &n, Value x, Value scale, Value offset, Value mean,
                Value variance, double epsilon) {
  Type compute = n.compute;
  return n.overAll({x}, {scale, offset, mean, variance},
                   [&](OpBuilder &b, Location at, ValueRange args) {
                     Value centered = arith::SubFOp::create(b, at, args[0],
                                                            args[3]);
                     Value deviation = math::SqrtOp::create(
                         b, at,
                         arith::AddFOp::create(
                             b, at, args[4], constant(b, at, compute, epsilon)));
                     Value scaled = arith::DivFOp::create(
                         b, at, arith::MulFOp::create(b, at, args[1], centered),
                         deviation);
                     return arith::AddFOp::create(b, at, scaled, args[2])
                         .getResult();
                   });
}

template <typename OpTy>
FailureOr<NormBuilder> makeBuilder(OpTy op, ConversionPatternRewriter &rewriter) {
  auto type = cast<RankedTensorType>(op.getOperand().getType());
  Type element = type.getElementType();
  if (!element.isBF16() && !element.isF16() && !element.isF32() &&
      !element.isF64()) {
    op.emitError() << op->getName() << " on " << element
                   << " is not compiled by the CPU backend";
    return failure();
  }
  int64_t feature = op.getFeatureIndex();
  int64_t features = type.getDimSize(feature);
  double count =
      features ? (double)type.getNumElements() / features : 0.0;
  return NormBuilder{rewriter, op.getLoc(), element,
                     element.isF64() ? element : rewriter.getF32Type(),
                     type.getShape(), feature, count};
}

struct BatchNormTrainingLowering
    : public OpConversionPattern<kiln::BatchNormTrainingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::BatchNormTrainingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<NormBuilder> n = makeBuilder(op, rewriter);
    if (failed(n))
      return failure();
    Value x = n->widen(adaptor.getOperand());
    auto [mean, variance] = moments(*n, x);
    Value output = normalize(*n, x, n->widen(adaptor.getScale()),
                             n->widen(adaptor.getOffset()), mean, variance,
                             op.getEpsilon().convertToDouble());
    rewriter.replaceOp(op, {n->narrow(output), n->narrow(mean),
                            n->narrow(variance)});
    return success();
  }
};

struct BatchNormInferenceLowering
    : public OpConversionPattern<kiln::BatchNormInferenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::BatchNormInferenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<NormBuilder> n = makeBuilder(op, rewriter);
    if (failed(n))
      return failure();
    Value output =
        normalize(*n, n->widen(adaptor.getOperand()),
                  n->widen(adaptor.getScale()), n->widen(adaptor.getOffset()),
                  n->widen(adaptor.getMean()), n->widen(adaptor.getVariance()),
                  op.getEpsilon().convertToDouble());
    rewriter.replaceOp(op, n->narrow(output));
    return success();
  }
};

struct BatchNormGradLowering
    : public OpConversionPattern<kiln::BatchNormGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::BatchNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<NormBuilder> n = makeBuilder(op, rewriter);
    if (failed(n))
      return failure();
    double epsilon = op.getEpsilon().convertToDouble();
    Type compute = n->compute;
    Value x = n->widen(adaptor.getOperand());
    Value scale = n->widen(adaptor.getScale());
    Value mean = n->widen(adaptor.getMean());
    Value variance = n->widen(adaptor.getVariance());
    Value gradOut = n->widen(adaptor.getGradOutput());
    // 1 / sqrt(variance + epsilon), per feature.
    Value inverse = n->perFeature({variance}, [&](OpBuilder &b, Location at,
                                                  ValueRange args) {
      Value deviation = math::SqrtOp::create(
          b, at,
          arith::AddFOp::create(b, at, args[0],
                                constant(b, at, compute, epsilon)));
      return arith::DivFOp::create(b, at, constant(b, at, compute, 1.0),
                                   deviation)
          .getResult();
    });
    Value xhat = n->overAll({x}, {mean, inverse}, [](OpBuilder &b, Location at,
                                                     ValueRange args) {
      return arith::MulFOp::create(
                 b, at, arith::SubFOp::create(b, at, args[0], args[1]), args[2])
          .getResult();
    });
    Value sumGrad = n->sumAllBut(gradOut);
    Value gradXhat = n->overAll({gradOut, xhat}, {}, [](OpBuilder &b,
                                                         Location at,
                                                         ValueRange args) {
      return arith::MulFOp::create(b, at, args[0], args[1]).getResult();
    });
    Value sumGradXhat = n->sumAllBut(gradXhat);
    double count = n->count;
    Value gradOperand = n->overAll(
        {gradOut, xhat}, {scale, inverse, sumGrad, sumGradXhat},
        [&](OpBuilder &b, Location at, ValueRange args) {
          Value c = constant(b, at, compute, count);
          Value meanGrad = arith::DivFOp::create(b, at, args[4], c);
          Value meanGradXhat = arith::DivFOp::create(b, at, args[5], c);
          Value inner = arith::SubFOp::create(
              b, at, arith::SubFOp::create(b, at, args[0], meanGrad),
              arith::MulFOp::create(b, at, args[1], meanGradXhat));
          return arith::MulFOp::create(
                     b, at, arith::MulFOp::create(b, at, args[2], args[3]),
                     inner)
              .getResult();
        });
    rewriter.replaceOp(op, {n->narrow(gradOperand), n->narrow(sumGradXhat),
                            n->narrow(sumGrad)});
    return success();
  }
};

} // namespace

void kiln::populateKilnNormalizationToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<BatchNormTrainingLowering, BatchNormInferenceLowering,
               BatchNormGradLowering>(converter, patterns.getContext());
}
