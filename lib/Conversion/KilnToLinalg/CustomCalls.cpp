//===- CustomCalls.cpp - kiln custom calls by the registry ------*- C++ -*-===//
//
// This file lowers the custom calls that the registry
// (kiln/Dialect/Kiln/IR/CustomCallTargets.h) knows, as it says they
// compute: identities pass their operands through, the element-wise Neuron
// targets (Gelu and its derivative, Gelu's tanh form, Silu and its
// derivative, Erf) are one generic each, and Softmax, its backward form and
// RmsNorm are reductions along their dimension followed by a generic, all
// computed in f32 (f64 for f64) and rounded once, as the evaluator rounds.
// A target the registry does not know, or one not lowered yet, is an error
// naming it.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/CustomCallTargets.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using kiln::CustomCallTarget;

namespace {

using kiln::ScalarFn;
using kiln::mapLines;
using kiln::reduceLine;

Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

struct CustomCallLowering : public OpConversionPattern<kiln::CustomCallOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(kiln::CustomCallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto targetAttr = op->getAttrOfType<StringAttr>("custom_call_target");
    StringRef name = targetAttr ? targetAttr.getValue() : "";
    std::optional<CustomCallTarget> target = kiln::lookupCustomCallTarget(name);
    if (!target)
      return op.emitError("custom call target '")
             << name << "' is unknown: the CPU backend compiles the targets "
                        "of kiln's registry";
    Location loc = op.getLoc();
    ValueRange operands = adaptor.getOperands();
    if (*target == CustomCallTarget::Identity) {
      if (op->getNumResults() > operands.size())
        return op.emitError("custom call '") << name << "' has more results "
                                                "than operands";
      for (auto [operand, result] : llvm::zip(operands, op->getResults()))
        if (operand.getType() !=
            getTypeConverter()->convertType(result.getType()))
          return op.emitError("custom call '")
                 << name << "' changes a shape: on one device it must not";
      rewriter.replaceOp(op,
                         operands.take_front(op->getNumResults()));
      return success();
    }
    if (op->getNumResults() != 1 || operands.empty())
      return op.emitError("custom call '")
             << name << "' is not compiled by the CPU backend";
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op->getResult(0).getType()));
    Type element = resultType.getElementType();
    if (!element.isBF16() && !element.isF16() && !element.isF32() &&
        !element.isF64())
      return op.emitError("custom call '")
             << name << "' on " << element << " is not compiled";
    Type compute = element.isF64() ? element : rewriter.getF32Type();
    llvm::ArrayRef<int64_t> shape = resultType.getShape();
    int64_t rank = shape.size();
    // Every float operand in the compute type.
    auto widen = [&](Value value) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      if (type.getElementType() == compute)
        return value;
      return mapLines(rewriter, loc, type.getShape(), compute, {value}, {}, {},
                      0, [&](OpBuilder &b, Location at, ValueRange args) {
                        return arith::ExtFOp::create(b, at, compute, args[0])
                            .getResult();
                      });
    };
    auto narrow = [&](Value value) -> Value {
      if (element == compute)
        return value;
      return mapLines(rewriter, loc, shape, element, {value}, {}, {}, 0,
                      [&](OpBuilder &b, Location at, ValueRange args) {
                        return arith::TruncFOp::create(b, at, element, args[0])
                            .getResult();
                      });
    };
    auto c = [&](OpBuilder &b, Location at, double value) {
      return constant(b, at, compute, value);
    };
    Value result;
    switch (*target) {
    case CustomCallTarget::Gelu:
    case CustomCallTarget::GeluDerivative:
    case CustomCallTarget::GeluTanh:
    case CustomCallTarget::Silu:
    case CustomCallTarget::SiluDerivative:
    case CustomCallTarget::Erf: {
      CustomCallTarget kind = *target;
      result = mapLines(
          rewriter, loc, shape, compute, {widen(operands[0])}, {}, {}, 0,
          [&](OpBuilder &b, Location at, ValueRange args) -> Value {
            Value x = args[0];
            auto mul = [&](Value p, Value q) -> Value {
              return arith::MulFOp::create(b, at, p, q);
            };
            auto add = [&](Value p, Value q) -> Value {
              return arith::AddFOp::create(b, at, p, q);
            };
            auto sigmoid = [&](Value v) -> Value {
              Value e = math::ExpOp::create(b, at, arith::NegFOp::create(b, at, v));
              return arith::DivFOp::create(b, at, c(b, at, 1.0),
                                           add(c(b, at, 1.0), e));
            };
            Value half = c(b, at, 0.5), one = c(b, at, 1.0);
            switch (kind) {
            case CustomCallTarget::Gelu:
            case CustomCallTarget::GeluDerivative: {
              // 0.5 x (1 + erf(x / sqrt 2)); its derivative adds
              // x exp(-x^2 / 2) / sqrt(2 pi).
              Value cdf = add(one, math::ErfOp::create(
                                       b, at, mul(x, c(b, at, M_SQRT1_2))));
              if (kind == CustomCallTarget::Gelu)
                return mul(mul(half, x), cdf);
              Value density = math::ExpOp::create(
                  b, at, mul(c(b, at, -0.5), mul(x, x)));
              return add(mul(half, cdf),
                         mul(mul(x, c(b, at, 0.39894228040143267794)), density));
            }
            case CustomCallTarget::GeluTanh: {
              Value cube = mul(mul(x, x), x);
              Value inner = mul(c(b, at, 0.79788456080286535588),
                                add(x, mul(c(b, at, 0.044715), cube)));
              return mul(mul(half, x), add(one, math::TanhOp::create(b, at, inner)));
            }
            case CustomCallTarget::Silu:
              return mul(x, sigmoid(x));
            case CustomCallTarget::SiluDerivative: {
              Value s = sigmoid(x);
              return mul(s, add(one, mul(x, arith::SubFOp::create(b, at, one, s))));
            }
            default:
              return math::ErfOp::create(b, at, x);
            }
          });
      break;
    }
    case CustomCallTarget::Softmax: {
      FailureOr<int64_t> dim = kiln::getCustomCallDimension(op, rank);
      if (failed(dim))
        return failure();
      Value x = widen(operands[0]);
      Value max = reduceLine(rewriter, loc, x, *dim, -INFINITY,
                             [](OpBuilder &b, Location at, ValueRange args) {
                               return arith::MaximumFOp::create(b, at, args[0],
                                                                args[1])
                                   .getResult();
                             });
      Value exp = mapLines(rewriter, loc, shape, compute, {x}, {max}, {}, *dim,
                           [](OpBuilder &b, Location at, ValueRange args) {
                             return math::ExpOp::create(
                                        b, at,
                                        arith::SubFOp::create(b, at, args[0],
                                                              args[1]))
                                 .getResult();
                           });
      Value sum = reduceLine(rewriter, loc, exp, *dim, 0.0,
                             [](OpBuilder &b, Location at, ValueRange args) {
                               return arith::AddFOp::create(b, at, args[0],
                                                            args[1])
                                   .getResult();
                             });
      result = mapLines(rewriter, loc, shape, compute, {exp}, {sum}, {}, *dim,
                        [](OpBuilder &b, Location at, ValueRange args) {
                          return arith::DivFOp::create(b, at, args[0], args[1])
                              .getResult();
                        });
      break;
    }
    case CustomCallTarget::SoftmaxBackward: {
      if (operands.size() != 2)
        return op.emitError("custom call '")
               << name << "' takes the gradient and softmax's output";
      FailureOr<int64_t> dim = kiln::getCustomCallDimension(op, rank);
      if (failed(dim))
        return failure();
      Value grad = widen(operands[0]), y = widen(operands[1]);
      Value product = mapLines(rewriter, loc, shape, compute, {grad, y}, {}, {},
                               0, [](OpBuilder &b, Location at, ValueRange args) {
                                 return arith::MulFOp::create(b, at, args[0],
                                                              args[1])
                                     .getResult();
                               });
      Value dot = reduceLine(rewriter, loc, product, *dim, 0.0,
                             [](OpBuilder &b, Location at, ValueRange args) {
                               return arith::AddFOp::create(b, at, args[0],
                                                            args[1])
                                   .getResult();
                             });
      result = mapLines(
          rewriter, loc, shape, compute, {grad, y}, {dot}, {}, *dim,
          [](OpBuilder &b, Location at, ValueRange args) {
            Value difference = arith::SubFOp::create(b, at, args[0], args[2]);
            return arith::MulFOp::create(b, at, args[1], difference).getResult();
          });
      break;
    }
    case CustomCallTarget::RmsNorm: {
      if (operands.size() != 3)
        return op.emitError("custom call '")
               << name << "' takes x, a weight and epsilon";
      FailureOr<int64_t> dim = kiln::getCustomCallDimension(op, rank);
      if (failed(dim))
        return failure();
      auto weightType = cast<RankedTensorType>(operands[1].getType());
      auto epsilonType = cast<RankedTensorType>(operands[2].getType());
      if (weightType.getRank() != 1 ||
          weightType.getDimSize(0) != shape[*dim] ||
          epsilonType.getNumElements() != 1)
        return op.emitError("custom call '")
               << name << "' takes a weight as long as the normalized "
                          "dimension and a scalar epsilon";
      Value x = widen(operands[0]), weight = widen(operands[1]);
      Value epsilonTensor = widen(operands[2]);
      llvm::SmallVector<Value> zeros(
          epsilonType.getRank(), arith::ConstantIndexOp::create(rewriter, loc, 0));
      Value epsilon =
          tensor::ExtractOp::create(rewriter, loc, epsilonTensor, zeros);
      Value squares = reduceLine(
          rewriter, loc, x, *dim, 0.0,
          [](OpBuilder &b, Location at, ValueRange args) {
            return arith::AddFOp::create(
                       b, at, args[0],
                       arith::MulFOp::create(b, at, args[1], args[1]))
                .getResult();
          });
      double length = shape[*dim];
      result = mapLines(
          rewriter, loc, shape, compute, {x}, {squares}, {weight}, *dim,
          [&](OpBuilder &b, Location at, ValueRange args) {
            Value mean =
                arith::DivFOp::create(b, at, args[1], c(b, at, length));
            Value scale = arith::DivFOp::create(
                b, at, c(b, at, 1.0),
                math::SqrtOp::create(b, at,
                                     arith::AddFOp::create(b, at, mean, epsilon)));
            return arith::MulFOp::create(
                       b, at, arith::MulFOp::create(b, at, args[0], scale),
                       args[2])
                .getResult();
          });
      break;
    }
    default:
      return op.emitError("custom call '")
             << name << "' is not compiled by the CPU backend yet";
    }
    rewriter.replaceOp(op, narrow(result));
    return success();
  }
};

} // namespace

void kiln::populateKilnCustomCallToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<CustomCallLowering>(converter, patterns.getContext());
}
