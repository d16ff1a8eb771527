//===- ScalarOps.cpp - kiln element-wise ops as scalar ops ------*- C++ -*-===//
//
// This file implements the one table that every element-wise lowering uses:
// from a kiln op and the kiln element types of its operands to arith and
// math ops on signless scalars. Signedness is erased from the lowered
// types, so it is read here from the kiln types (`ui32` divides with
// divui). HLO's integer rules are kept (division and remainder by zero,
// the overflowing signed division, shifts past the width), float-to-int
// conversion saturates and sends NaN to 0, and bf16 and f16 are computed in
// f32 and rounded after each op, as the reference evaluator and XLA's CPU
// code do.
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace mlir;

namespace {

/// Element-wise kiln ops (without the dialect prefix) that have a scalar
/// lowering.
const llvm::StringSet<> &scalarOpNames() {
  static const llvm::StringSet<> names = {"add",
                                          "subtract",
                                          "multiply",
                                          "divide",
                                          "remainder",
                                          "maximum",
                                          "minimum",
                                          "power",
                                          "atan2",
                                          "and",
                                          "or",
                                          "xor",
                                          "shift_left",
                                          "shift_right_logical",
                                          "shift_right_arithmetic",
                                          "negate",
                                          "abs",
                                          "exponential",
                                          "exponential_minus_one",
                                          "log",
                                          "log_plus_one",
                                          "sqrt",
                                          "rsqrt",
                                          "cbrt",
                                          "tanh",
                                          "logistic",
                                          "sine",
                                          "cosine",
                                          "tan",
                                          "erf",
                                          "erfc",
                                          "floor",
                                          "ceil",
                                          "round_nearest_afz",
                                          "round_nearest_even",
                                          "sign",
                                          "not",
                                          "popcnt",
                                          "count_leading_zeros",
                                          "acos",
                                          "asin",
                                          "atan",
                                          "acosh",
                                          "asinh",
                                          "atanh",
                                          "cosh",
                                          "sinh",
                                          "is_finite",
                                          "compare",
                                          "select",
                                          "clamp",
                                          "convert",
                                          "copy",
                                          "bitcast_convert",
                                          "mulhi",
                                          "reduce_precision",
                                          "real",
                                          "imag",
                                          "complex"};
  return names;
}

/// `OpTy` on the first operand of `args`, or on the first two.
template <typename OpTy>
Value unary(OpBuilder &b, Location loc, ValueRange args) {
  return OpTy::create(b, loc, args[0]);
}
template <typename OpTy>
Value binary(OpBuilder &b, Location loc, ValueRange args) {
  return OpTy::create(b, loc, args[0], args[1]);
}

bool isUnsignedKilnInteger(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && (integer.isUnsigned() || integer.getWidth() == 1);
}

/// Float types the backend computes with: f32 and f64, and the narrow
/// ones computed in f32.
bool isCompiledFloat(Type type) {
  return kiln::isNarrowFloat(type) || type.isF32() || type.isF64();
}

using kiln::isNarrowFloat;

/// The type a float element is computed in.
Type computeType(Type type) {
  return isNarrowFloat(type) ? Float32Type::get(type.getContext()) : type;
}

Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

Value intConstant(OpBuilder &b, Location loc, Type type, const APInt &value) {
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}

Value intConstant(OpBuilder &b, Location loc, Type type, int64_t value) {
  unsigned width = type.getIntOrFloatBitWidth();
  return intConstant(b, loc, type, APInt(width, value, /*isSigned=*/true));
}

/// The builder of one scalar computation: the op, where, and its types.
struct ScalarBuilder {
  OpBuilder &b;
  Operation *op;
  Location loc;
  StringRef name;

  Value emitUnsupported(Type type) {
    op->emitError() << op->getName() << " on element type " << type
                    << " is not compiled by the CPU backend";
    return nullptr;
  }

  Value floatOp(Type kilnType, ValueRange args) {
    Type type = args.front().getType();
    if (name == "add")
      return binary<arith::AddFOp>(b, loc, args);
    if (name == "subtract")
      return binary<arith::SubFOp>(b, loc, args);
    if (name == "multiply")
      return binary<arith::MulFOp>(b, loc, args);
    if (name == "divide")
      return binary<arith::DivFOp>(b, loc, args);
    if (name == "remainder")
      return binary<arith::RemFOp>(b, loc, args);
    if (name == "maximum")
      return binary<arith::MaximumFOp>(b, loc, args);
    if (name == "minimum")
      return binary<arith::MinimumFOp>(b, loc, args);
    if (name == "power")
      return binary<math::PowFOp>(b, loc, args);
    if (name == "atan2")
      return binary<math::Atan2Op>(b, loc, args);
    if (name == "negate")
      return unary<arith::NegFOp>(b, loc, args);
    if (name == "abs")
      return unary<math::AbsFOp>(b, loc, args);
    // A real number is its own real part; its imaginary part is 0.
    if (name == "real")
      return args[0];
    if (name == "imag")
      return floatConstant(b, loc, type, 0);
    if (name == "exponential")
      return unary<math::ExpOp>(b, loc, args);
    if (name == "exponential_minus_one")
      return unary<math::ExpM1Op>(b, loc, args);
    if (name == "log")
      return unary<math::LogOp>(b, loc, args);
    if (name == "log_plus_one")
      return unary<math::Log1pOp>(b, loc, args);
    if (name == "sqrt")
      return unary<math::SqrtOp>(b, loc, args);
    if (name == "rsqrt") {
      Value one = floatConstant(b, loc, type, 1.0);
      return arith::DivFOp::create(b, loc, one,
                                   math::SqrtOp::create(b, loc, args[0]));
    }
    if (name == "cbrt")
      return unary<math::CbrtOp>(b, loc, args);
    if (name == "tanh")
      return unary<math::TanhOp>(b, loc, args);
    if (name == "logistic") {
      Value one = floatConstant(b, loc, type, 1.0);
      Value exp =
          math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, args[0]));
      return arith::DivFOp::create(b, loc, one,
                                   arith::AddFOp::create(b, loc, one, exp));
    }
    if (name == "sine")
      return unary<math::SinOp>(b, loc, args);
    if (name == "cosine")
      return unary<math::CosOp>(b, loc, args);
    if (name == "tan")
      return unary<math::TanOp>(b, loc, args);
    if (name == "erf")
      return unary<math::ErfOp>(b, loc, args);
    if (name == "erfc")
      return unary<math::ErfcOp>(b, loc, args);
    if (name == "floor")
      return unary<math::FloorOp>(b, loc, args);
    if (name == "ceil")
      return unary<math::CeilOp>(b, loc, args);
    if (name == "round_nearest_afz")
      return unary<math::RoundOp>(b, loc, args);
    if (name == "round_nearest_even")
      return unary<math::RoundEvenOp>(b, loc, args);
    if (name == "acos")
      return unary<math::AcosOp>(b, loc, args);
    if (name == "asin")
      return unary<math::AsinOp>(b, loc, args);
    if (name == "atan")
      return unary<math::AtanOp>(b, loc, args);
    if (name == "acosh")
      return unary<math::AcoshOp>(b, loc, args);
    if (name == "asinh")
      return unary<math::AsinhOp>(b, loc, args);
    if (name == "atanh")
      return unary<math::AtanhOp>(b, loc, args);
    if (name == "cosh")
      return unary<math::CoshOp>(b, loc, args);
    if (name == "sinh")
      return unary<math::SinhOp>(b, loc, args);
    if (name == "sign") {
      // +-0 and NaN are their own sign.
      Value zero = floatConstant(b, loc, type, 0.0);
      Value one = floatConstant(b, loc, type, 1.0);
      Value minusOne = floatConstant(b, loc, type, -1.0);
      Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                             args[0], zero);
      Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                             args[0], zero);
      Value result =
          arith::SelectOp::create(b, loc, negative, minusOne, args[0]);
      return arith::SelectOp::create(b, loc, positive, one, result);
    }
    if (name == "clamp") {
      Value low = arith::MaximumFOp::create(b, loc, args[1], args[0]);
      return arith::MinimumFOp::create(b, loc, low, args[2]);
    }
    return emitUnsupported(kilnType);
  }

  Value intOp(Type kilnType, ValueRange args) {
    Type type = args.front().getType();
    unsigned width = type.getIntOrFloatBitWidth();
    bool isUnsigned = isUnsignedKilnInteger(kilnType);
    Value a = args[0];
    Value bArg = args.size() > 1 ? args[1] : Value();
    auto allOnes = [&] {
      return intConstant(b, loc, type, APInt::getAllOnes(width));
    };
    auto zero = [&] { return intConstant(b, loc, type, 0); };
    auto cmp = [&](arith::CmpIPredicate predicate, Value x, Value y) -> Value {
      return arith::CmpIOp::create(b, loc, predicate, x, y);
    };
    auto select = [&](Value c, Value x, Value y) -> Value {
      return arith::SelectOp::create(b, loc, c, x, y);
    };
    if (name == "add")
      return width == 1 ? (Value)arith::OrIOp::create(b, loc, a, bArg)
                        : (Value)arith::AddIOp::create(b, loc, a, bArg);
    if (name == "subtract")
      return width == 1 ? (Value)arith::XOrIOp::create(b, loc, a, bArg)
                        : (Value)arith::SubIOp::create(b, loc, a, bArg);
    if (name == "multiply")
      return width == 1 ? (Value)arith::AndIOp::create(b, loc, a, bArg)
                        : (Value)arith::MulIOp::create(b, loc, a, bArg);
    if (name == "divide" || name == "remainder") {
      // x / 0 is all ones and x % 0 is x; INT_MIN / -1 is INT_MIN and
      // INT_MIN % -1 is 0. The divisor is made safe first: LLVM's division
      // by zero is undefined.
      Value isZero = cmp(arith::CmpIPredicate::eq, bArg, zero());
      Value overflow;
      Value unsafe = isZero;
      if (!isUnsigned && width > 1) {
        Value minimum =
            intConstant(b, loc, type, APInt::getSignedMinValue(width));
        overflow = arith::AndIOp::create(
            b, loc, cmp(arith::CmpIPredicate::eq, a, minimum),
            cmp(arith::CmpIPredicate::eq, bArg, allOnes()));
        unsafe = arith::OrIOp::create(b, loc, isZero, overflow);
      }
      Value safe = select(unsafe, intConstant(b, loc, type, 1), bArg);
      if (name == "divide") {
        Value quotient = isUnsigned
                             ? (Value)arith::DivUIOp::create(b, loc, a, safe)
                             : (Value)arith::DivSIOp::create(b, loc, a, safe);
        if (overflow)
          quotient = select(overflow, a, quotient);
        return select(isZero, allOnes(), quotient);
      }
      Value remainder = isUnsigned
                            ? (Value)arith::RemUIOp::create(b, loc, a, safe)
                            : (Value)arith::RemSIOp::create(b, loc, a, safe);
      if (overflow)
        remainder = select(overflow, zero(), remainder);
      return select(isZero, a, remainder);
    }
    if (name == "maximum")
      return isUnsigned ? (Value)arith::MaxUIOp::create(b, loc, a, bArg)
                        : (Value)arith::MaxSIOp::create(b, loc, a, bArg);
    if (name == "minimum")
      return isUnsigned ? (Value)arith::MinUIOp::create(b, loc, a, bArg)
                        : (Value)arith::MinSIOp::create(b, loc, a, bArg);
    if (name == "clamp") {
      // clamp(min, x, max)
      Value x = args[1], low = args[0], high = args[2];
      Value raised = isUnsigned ? (Value)arith::MaxUIOp::create(b, loc, x, low)
                                : (Value)arith::MaxSIOp::create(b, loc, x, low);
      return isUnsigned ? (Value)arith::MinUIOp::create(b, loc, raised, high)
                        : (Value)arith::MinSIOp::create(b, loc, raised, high);
    }
    if (name == "and")
      return arith::AndIOp::create(b, loc, a, bArg);
    if (name == "or")
      return arith::OrIOp::create(b, loc, a, bArg);
    if (name == "xor")
      return arith::XOrIOp::create(b, loc, a, bArg);
    if (name == "not")
      return arith::XOrIOp::create(b, loc, a, allOnes());
    if (name == "shift_left" || name == "shift_right_logical" ||
        name == "shift_right_arithmetic") {
      // Amounts are unsigned; past the width a shift gives 0, or the sign
      // for an arithmetic right shift.
      Value widthValue = intConstant(b, loc, type, width);
      Value past = cmp(arith::CmpIPredicate::uge, bArg, widthValue);
      if (name == "shift_right_arithmetic") {
        Value last = intConstant(b, loc, type, width - 1);
        return arith::ShRSIOp::create(b, loc, a, select(past, last, bArg));
      }
      Value amount = select(past, zero(), bArg);
      Value shifted = name == "shift_left"
                          ? (Value)arith::ShLIOp::create(b, loc, a, amount)
                          : (Value)arith::ShRUIOp::create(b, loc, a, amount);
      return select(past, zero(), shifted);
    }
    if (name == "negate")
      return arith::SubIOp::create(b, loc, zero(), a);
    if (name == "abs")
      return isUnsigned ? a
                        : select(cmp(arith::CmpIPredicate::slt, a, zero()),
                                 arith::SubIOp::create(b, loc, zero(), a), a);
    if (name == "sign") {
      Value one = intConstant(b, loc, type, 1);
      if (isUnsigned)
        return select(cmp(arith::CmpIPredicate::ne, a, zero()), one, zero());
      Value result =
          select(cmp(arith::CmpIPredicate::slt, a, zero()), allOnes(), zero());
      return select(cmp(arith::CmpIPredicate::sgt, a, zero()), one, result);
    }
    // LLVM's intrinsics directly: math-to-libm would refuse math's forms.
    if (name == "popcnt")
      return LLVM::CtPopOp::create(b, loc, type, a);
    if (name == "mulhi" && width > 1) {
      // The high half of the double-width product.
      Type wide = b.getIntegerType(2 * width);
      auto extend = [&](Value x) -> Value {
        return isUnsigned ? (Value)arith::ExtUIOp::create(b, loc, wide, x)
                          : (Value)arith::ExtSIOp::create(b, loc, wide, x);
      };
      Value product = arith::MulIOp::create(b, loc, extend(a), extend(bArg));
      Value high = arith::ShRUIOp::create(b, loc, product,
                                          intConstant(b, loc, wide, width));
      return arith::TruncIOp::create(b, loc, type, high);
    }
    if (name == "power" && width > 1) {
      // Square and multiply over the exponent's bits; a negative exponent
      // gives 1 for a base of 1, +-1 for -1 and 0 otherwise.
      Value one = intConstant(b, loc, type, 1);
      auto loop = scf::ForOp::create(
          b, loc, arith::ConstantIndexOp::create(b, loc, 0),
          arith::ConstantIndexOp::create(b, loc, width),
          arith::ConstantIndexOp::create(b, loc, 1), ValueRange{one, a, bArg},
          [&](OpBuilder &inner, Location nested, Value, ValueRange state) {
            Value result = state[0], base = state[1], exponent = state[2];
            Value bit = arith::AndIOp::create(inner, nested, exponent, one);
            Value odd =
                arith::CmpIOp::create(inner, nested, arith::CmpIPredicate::ne,
                                      bit, intConstant(inner, nested, type, 0));
            Value times = arith::MulIOp::create(inner, nested, result, base);
            result = arith::SelectOp::create(inner, nested, odd, times, result);
            base = arith::MulIOp::create(inner, nested, base, base);
            exponent = arith::ShRUIOp::create(inner, nested, exponent, one);
            scf::YieldOp::create(inner, nested,
                                 ValueRange{result, base, exponent});
          });
      Value positive = loop.getResult(0);
      if (isUnsigned)
        return positive;
      Value negative = cmp(arith::CmpIPredicate::slt, bArg, zero());
      Value isOne = cmp(arith::CmpIPredicate::eq, a, one);
      Value isMinusOne = cmp(arith::CmpIPredicate::eq, a, allOnes());
      Value oddExponent = cmp(arith::CmpIPredicate::ne,
                              arith::AndIOp::create(b, loc, bArg, one), zero());
      Value minusOnePower = select(oddExponent, allOnes(), one);
      Value small =
          select(isOne, one, select(isMinusOne, minusOnePower, zero()));
      return select(negative, small, positive);
    }
    if (name == "count_leading_zeros")
      return LLVM::CountLeadingZerosOp::create(b, loc, type, a,
                                               b.getBoolAttr(false));
    return emitUnsupported(kilnType);
  }

  Value compare(Type kilnType, ValueRange args) {
    StringRef direction = op->getAttrOfType<StringAttr>("direction").getValue();
    StringRef kind;
    if (auto attr = op->getAttrOfType<StringAttr>("type"))
      kind = attr.getValue();
    Value lhs = args[0], rhs = args[1];
    if (isa<FloatType>(kilnType) && kind == "TOTALORDER") {
      // Total order: the bits as a signed integer, with the magnitude bits
      // of negative numbers flipped, so that -NaN < -inf < ... < -0 < +0 <
      // ... < +inf < +NaN.
      unsigned width = kilnType.getIntOrFloatBitWidth();
      Type bits = b.getIntegerType(width);
      auto key = [&](Value x) -> Value {
        Value raw = arith::BitcastOp::create(b, loc, bits, x);
        Value sign = arith::ShRSIOp::create(
            b, loc, raw, intConstant(b, loc, bits, width - 1));
        Value magnitude =
            intConstant(b, loc, bits, APInt::getSignedMaxValue(width));
        return arith::XOrIOp::create(
            b, loc, raw, arith::AndIOp::create(b, loc, sign, magnitude));
      };
      lhs = key(lhs);
      rhs = key(rhs);
      kilnType = bits;
      kind = "SIGNED";
    }
    if (isa<FloatType>(kilnType)) {
      auto predicate = llvm::StringSwitch<arith::CmpFPredicate>(direction)
                           .Case("EQ", arith::CmpFPredicate::OEQ)
                           .Case("NE", arith::CmpFPredicate::UNE)
                           .Case("LT", arith::CmpFPredicate::OLT)
                           .Case("LE", arith::CmpFPredicate::OLE)
                           .Case("GT", arith::CmpFPredicate::OGT)
                           .Default(arith::CmpFPredicate::OGE);
      return arith::CmpFOp::create(b, loc, predicate, lhs, rhs);
    }
    bool isUnsigned = kind == "UNSIGNED" ||
                      (kind != "SIGNED" && isUnsignedKilnInteger(kilnType));
    using P = arith::CmpIPredicate;
    auto predicate = llvm::StringSwitch<P>(direction)
                         .Case("EQ", P::eq)
                         .Case("NE", P::ne)
                         .Case("LT", isUnsigned ? P::ult : P::slt)
                         .Case("LE", isUnsigned ? P::ule : P::sle)
                         .Case("GT", isUnsigned ? P::ugt : P::sgt)
                         .Default(isUnsigned ? P::uge : P::sge);
    return arith::CmpIOp::create(b, loc, predicate, lhs, rhs);
  }

  Value convert(Type from, Type to, Value x) {
    Type signlessTo = kiln::getSignlessType(to);
    if (from == to)
      return x;
    auto toInteger = dyn_cast<IntegerType>(to);
    if (toInteger && toInteger.getWidth() == 1) {
      // Anything nonzero is true (NaN too).
      if (isa<FloatType>(from))
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                     floatConstant(b, loc, x.getType(), 0.0));
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                   intConstant(b, loc, x.getType(), 0));
    }
    if (isa<IntegerType>(from) && toInteger) {
      unsigned fromWidth = from.getIntOrFloatBitWidth();
      if (fromWidth == toInteger.getWidth())
        return x;
      if (fromWidth > toInteger.getWidth())
        return arith::TruncIOp::create(b, loc, signlessTo, x);
      return isUnsignedKilnInteger(from)
                 ? (Value)arith::ExtUIOp::create(b, loc, signlessTo, x)
                 : (Value)arith::ExtSIOp::create(b, loc, signlessTo, x);
    }
    if (isa<IntegerType>(from)) {
      Type target = computeType(to);
      Value result = isUnsignedKilnInteger(from)
                         ? (Value)arith::UIToFPOp::create(b, loc, target, x)
                         : (Value)arith::SIToFPOp::create(b, loc, target, x);
      return roundTo(result, to);
    }
    // From a float (already in its compute type).
    if (isa<FloatType>(to)) {
      // An 8-bit float is rounded from f64 once, not through f32.
      if (isNarrowFloat(to) && to.getIntOrFloatBitWidth() == 8 &&
          x.getType().isF64())
        return arith::TruncFOp::create(b, loc, to, x);
      Type target = computeType(to);
      unsigned have = x.getType().getIntOrFloatBitWidth();
      unsigned want = target.getIntOrFloatBitWidth();
      if (have < want)
        x = arith::ExtFOp::create(b, loc, target, x);
      else if (have > want)
        x = arith::TruncFOp::create(b, loc, target, x);
      return roundTo(x, to);
    }
    // Float to integer: NaN to 0, toward zero, saturating.
    unsigned width = toInteger.getWidth();
    bool isUnsigned = isUnsignedKilnInteger(to);
    Type floatType = x.getType();
    Value isNan =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    double limit = std::ldexp(1.0, isUnsigned ? width : width - 1);
    Value tooBig =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                              floatConstant(b, loc, floatType, limit));
    Value tooSmall = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OLE, x,
        floatConstant(b, loc, floatType, isUnsigned ? 0.0 : -limit));
    Value unsafe = arith::OrIOp::create(
        b, loc, isNan, arith::OrIOp::create(b, loc, tooBig, tooSmall));
    Value safe = arith::SelectOp::create(
        b, loc, unsafe, floatConstant(b, loc, floatType, 0.0), x);
    Value result =
        isUnsigned ? (Value)arith::FPToUIOp::create(b, loc, signlessTo, safe)
                   : (Value)arith::FPToSIOp::create(b, loc, signlessTo, safe);
    APInt high =
        isUnsigned ? APInt::getAllOnes(width) : APInt::getSignedMaxValue(width);
    APInt low =
        isUnsigned ? APInt::getZero(width) : APInt::getSignedMinValue(width);
    result = arith::SelectOp::create(
        b, loc, tooSmall, intConstant(b, loc, signlessTo, low), result);
    return arith::SelectOp::create(
        b, loc, tooBig, intConstant(b, loc, signlessTo, high), result);
  }

  /// `x` (in `kilnType`'s compute type) rounded to `kilnType`.
  Value roundTo(Value x, Type kilnType) {
    if (isNarrowFloat(kilnType) && x.getType() != kilnType)
      return arith::TruncFOp::create(b, loc, kilnType, x);
    return x;
  }
};

/// reduce_precision on the bits of `x`'s own type, as XLA computes it: the
/// mantissa rounded to `mantissa_bits` (ties to even), then exponents above
/// the reduced range overflow to a signed infinity and those below its
/// smallest normal flush to a signed zero; a NaN stays a NaN (infinity when
/// no mantissa bit is left to carry it).
Value buildReducePrecision(OpBuilder &b, Operation *op, Type type, Value x) {
  Location loc = op->getLoc();
  auto floatType = cast<FloatType>(type);
  unsigned width = floatType.getWidth();
  // The bit arithmetic below assumes IEEE's layout (bias, infinities),
  // which the 8-bit formats do not all share.
  if (width == 8) {
    op->emitError() << op->getName() << " on element type " << type
                    << " is not compiled by the CPU backend";
    return nullptr;
  }
  int64_t sourceMantissa = floatType.getFPMantissaWidth() - 1;
  int64_t sourceExponent = width - 1 - sourceMantissa;
  int64_t exponentBits =
      op->getAttrOfType<IntegerAttr>("exponent_bits").getInt();
  int64_t mantissaBits =
      op->getAttrOfType<IntegerAttr>("mantissa_bits").getInt();
  Type bitsType = b.getIntegerType(width);
  auto bitsOf = [&](const APInt &value) {
    return intConstant(b, loc, bitsType, value);
  };
  auto apint = [&](uint64_t value) { return APInt(width, value); };
  Value bits = arith::BitcastOp::create(b, loc, bitsType, x);
  if (mantissaBits < sourceMantissa) {
    int64_t shift = sourceMantissa - mantissaBits;
    APInt lastBit = APInt(width, 1).shl(shift);
    APInt baseBias = lastBit.lshr(1) - 1;
    Value last = arith::ShRUIOp::create(
        b, loc, arith::AndIOp::create(b, loc, bits, bitsOf(lastBit)),
        bitsOf(apint(shift)));
    Value bias = arith::AddIOp::create(b, loc, last, bitsOf(baseBias));
    Value rounded = arith::AddIOp::create(b, loc, bits, bias);
    bits = arith::AndIOp::create(b, loc, rounded, bitsOf(~(lastBit - 1)));
  }
  if (exponentBits < sourceExponent) {
    APInt signMask = APInt::getSignMask(width);
    APInt exponentMask =
        APInt::getLowBitsSet(width, sourceExponent).shl(sourceMantissa);
    int64_t bias = (int64_t(1) << (sourceExponent - 1)) - 1;
    int64_t reducedBias = (int64_t(1) << (exponentBits - 1)) - 1;
    Value exponent = arith::AndIOp::create(b, loc, bits, bitsOf(exponentMask));
    Value overflows = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ugt, exponent,
        bitsOf(apint(bias + reducedBias).shl(sourceMantissa)));
    Value underflows = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ule, exponent,
        bitsOf(apint(bias - reducedBias).shl(sourceMantissa)));
    Value signedZero = arith::AndIOp::create(b, loc, bits, bitsOf(signMask));
    Value signedInfinity =
        arith::OrIOp::create(b, loc, signedZero, bitsOf(exponentMask));
    bits = arith::SelectOp::create(
        b, loc, overflows, signedInfinity,
        arith::SelectOp::create(b, loc, underflows, signedZero, bits));
  }
  Value result = arith::BitcastOp::create(b, loc, type, bits);
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value nan = x;
  if (mantissaBits == 0) {
    Value sign = arith::AndIOp::create(
        b, loc, arith::BitcastOp::create(b, loc, bitsType, x),
        bitsOf(APInt::getSignMask(width)));
    Value infinity = arith::OrIOp::create(
        b, loc, sign,
        bitsOf(
            APInt::getLowBitsSet(width, sourceExponent).shl(sourceMantissa)));
    nan = arith::BitcastOp::create(b, loc, type, infinity);
  }
  return arith::SelectOp::create(b, loc, isNan, nan, result);
}

bool isCompiledElement(Type type) {
  if (isa<IntegerType>(type))
    return true;
  if (auto complex = dyn_cast<ComplexType>(type))
    return complex.getElementType().isF32() || complex.getElementType().isF64();
  return isCompiledFloat(type);
}

/// An element-wise op on complex numbers (complex<f32>, complex<f64>),
/// through the complex dialect; null, with an error, where there is none.
Value buildComplexOp(OpBuilder &b, Operation *op, StringRef name,
                     TypeRange argTypes, Type resultType, ValueRange args) {
  Location loc = op->getLoc();
  // A bitcast to the same complex type keeps the value.
  if ((name == "bitcast_convert" || name == "copy") &&
      args[0].getType() == resultType)
    return args[0];
  if (name == "maximum" || name == "minimum") {
    // Lexicographic, as the evaluator orders complex numbers: the real
    // parts, then the imaginary parts.
    Value ra = complex::ReOp::create(b, loc, args[0]);
    Value rb = complex::ReOp::create(b, loc, args[1]);
    Value ia = complex::ImOp::create(b, loc, args[0]);
    Value ib = complex::ImOp::create(b, loc, args[1]);
    Value less = arith::OrIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, ra, rb),
        arith::AndIOp::create(
            b, loc,
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, ra, rb),
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, ia, ib)));
    return name == "maximum"
               ? arith::SelectOp::create(b, loc, less, args[1], args[0])
               : arith::SelectOp::create(b, loc, less, args[0], args[1]);
  }
  if (name == "add")
    return binary<complex::AddOp>(b, loc, args);
  if (name == "subtract")
    return binary<complex::SubOp>(b, loc, args);
  if (name == "multiply")
    return binary<complex::MulOp>(b, loc, args);
  if (name == "divide")
    return binary<complex::DivOp>(b, loc, args);
  if (name == "power")
    return binary<complex::PowOp>(b, loc, args);
  if (name == "atan2") {
    // atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2)), as the evaluator.
    auto type = cast<ComplexType>(args[0].getType());
    Type part = type.getElementType();
    auto constant = [&](double re, double im) -> Value {
      return complex::ConstantOp::create(
          b, loc, type,
          b.getArrayAttr({b.getFloatAttr(part, re), b.getFloatAttr(part, im)}));
    };
    Value y = args[0], x = args[1];
    Value numerator = complex::AddOp::create(
        b, loc, x, complex::MulOp::create(b, loc, constant(0, 1), y));
    Value squares =
        complex::AddOp::create(b, loc, complex::MulOp::create(b, loc, x, x),
                               complex::MulOp::create(b, loc, y, y));
    Value quotient = complex::DivOp::create(
        b, loc, numerator, complex::SqrtOp::create(b, loc, squares));
    return complex::MulOp::create(b, loc, constant(0, -1),
                                  complex::LogOp::create(b, loc, quotient));
  }
  if (name == "negate")
    return unary<complex::NegOp>(b, loc, args);
  if (name == "exponential")
    return unary<complex::ExpOp>(b, loc, args);
  if (name == "exponential_minus_one")
    return unary<complex::Expm1Op>(b, loc, args);
  if (name == "log")
    return unary<complex::LogOp>(b, loc, args);
  if (name == "log_plus_one")
    return unary<complex::Log1pOp>(b, loc, args);
  if (name == "sqrt")
    return unary<complex::SqrtOp>(b, loc, args);
  if (name == "rsqrt")
    return unary<complex::RsqrtOp>(b, loc, args);
  if (name == "tanh")
    return unary<complex::TanhOp>(b, loc, args);
  if (name == "tan")
    return unary<complex::TanOp>(b, loc, args);
  if (name == "sine")
    return unary<complex::SinOp>(b, loc, args);
  if (name == "cosine")
    return unary<complex::CosOp>(b, loc, args);
  if (name == "sign")
    return unary<complex::SignOp>(b, loc, args);
  if (name == "abs")
    return unary<complex::AbsOp>(b, loc, args);
  if (name == "real")
    return unary<complex::ReOp>(b, loc, args);
  if (name == "imag")
    return unary<complex::ImOp>(b, loc, args);
  if (name == "compare") {
    StringRef direction = op->getAttrOfType<StringAttr>("direction").getValue();
    if (direction == "EQ")
      return binary<complex::EqualOp>(b, loc, args);
    if (direction == "NE")
      return binary<complex::NotEqualOp>(b, loc, args);
  }
  if (name == "convert" && isa<FloatType>(resultType)) {
    // A complex number converts by its real part.
    Value re = complex::ReOp::create(b, loc, args[0]);
    unsigned have = re.getType().getIntOrFloatBitWidth();
    unsigned want = resultType.getIntOrFloatBitWidth();
    if (have < want)
      return arith::ExtFOp::create(b, loc, resultType, re);
    if (have > want)
      return arith::TruncFOp::create(b, loc, resultType, re);
    return re;
  }
  if (name == "convert" && isa<ComplexType>(resultType)) {
    Type part = cast<ComplexType>(resultType).getElementType();
    Value re = complex::ReOp::create(b, loc, args[0]);
    Value im = complex::ImOp::create(b, loc, args[0]);
    auto resize = [&](Value value) -> Value {
      unsigned have = value.getType().getIntOrFloatBitWidth();
      unsigned want = part.getIntOrFloatBitWidth();
      if (have < want)
        return arith::ExtFOp::create(b, loc, part, value);
      if (have > want)
        return arith::TruncFOp::create(b, loc, part, value);
      return value;
    };
    return complex::CreateOp::create(b, loc, resultType, resize(re),
                                     resize(im));
  }
  op->emitError() << op->getName() << " on element type " << argTypes[0]
                  << " is not compiled by the CPU backend";
  return nullptr;
}

} // namespace

bool kiln::isNarrowFloat(Type type) {
  if (type.isBF16() || type.isF16())
    return true;
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType || floatType.getWidth() != 8)
    return false;
  const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
  return llvm::APFloatBase::semanticsHasZero(semantics) &&
         llvm::APFloatBase::semanticsHasSignedRepr(semantics);
}

Value kiln::castToIndex(OpBuilder &b, Location loc, Value scalar,
                        Type kilnType) {
  auto integer = cast<IntegerType>(kilnType);
  if (!integer.isUnsigned())
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), scalar);
  Value position =
      arith::IndexCastUIOp::create(b, loc, b.getIndexType(), scalar);
  if (integer.getWidth() < 64)
    return position;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value largest = arith::ConstantIndexOp::create(
      b, loc, std::numeric_limits<int64_t>::max());
  Value wrapped = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        position, zero);
  return arith::SelectOp::create(b, loc, wrapped, largest, position);
}

Type kiln::getSignlessType(Type type) {
  // Quantized values are their storage integers.
  if (auto quantized = dyn_cast<quant::QuantizedType>(type))
    return IntegerType::get(type.getContext(),
                            quantized.getStorageTypeIntegralWidth());
  if (auto integer = dyn_cast<IntegerType>(type))
    if (!integer.isSignless())
      return IntegerType::get(type.getContext(), integer.getWidth());
  return type;
}

bool kiln::hasScalarLowering(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return name.consume_front("kiln.") && scalarOpNames().contains(name);
}

Value kiln::buildScalarOp(OpBuilder &builder, Operation *op, TypeRange argTypes,
                          Type resultType, ValueRange args) {
  StringRef name = op->getName().getStringRef().drop_front(strlen("kiln."));
  ScalarBuilder scalar{builder, op, op->getLoc(), name};
  // A bitcast of quantized values reads their stored integers.
  llvm::SmallVector<Type> storedTypes;
  if (name == "bitcast_convert") {
    for (Type type : argTypes)
      storedTypes.push_back(
          isa<quant::QuantizedType>(type) ? getSignlessType(type) : type);
    if (isa<quant::QuantizedType>(resultType))
      resultType = getSignlessType(resultType);
    argTypes = storedTypes;
  }
  for (Type type : argTypes)
    if (!isCompiledElement(type))
      return scalar.emitUnsupported(type);
  if (!isCompiledElement(resultType))
    return scalar.emitUnsupported(resultType);
  Location loc = op->getLoc();
  if (name == "copy")
    return args[0];
  if (name == "complex") {
    // complex(re, im): the parts in the result's part type.
    return complex::CreateOp::create(builder, loc, resultType, args[0],
                                     args[1]);
  }
  if (name == "convert" && isa<ComplexType>(argTypes[0]) &&
      isa<IntegerType>(resultType)) {
    // A complex number converts to an integer by its real part.
    Type part = cast<ComplexType>(argTypes[0]).getElementType();
    return scalar.convert(part, resultType,
                          complex::ReOp::create(builder, loc, args[0]));
  }
  if (!argTypes.empty() && isa<ComplexType>(argTypes.back()) &&
      name != "select")
    return buildComplexOp(builder, op, name, argTypes, resultType, args);
  if (isa<ComplexType>(resultType) && name == "convert") {
    // A real number as a complex one.
    Type part = cast<ComplexType>(resultType).getElementType();
    Value re = args[0];
    if (isNarrowFloat(argTypes[0]))
      re = arith::ExtFOp::create(builder, loc, computeType(argTypes[0]), re);
    re = scalar.convert(argTypes[0].isF64() || isa<FloatType>(argTypes[0])
                            ? computeType(argTypes[0])
                            : argTypes[0],
                        part, re);
    Value im = floatConstant(builder, loc, part, 0.0);
    return complex::CreateOp::create(builder, loc, resultType, re, im);
  }
  if (name == "select")
    return arith::SelectOp::create(builder, loc, args[0], args[1], args[2]);
  if (name == "bitcast_convert") {
    if (getSignlessType(argTypes[0]).getIntOrFloatBitWidth() !=
        getSignlessType(resultType).getIntOrFloatBitWidth())
      return scalar.emitUnsupported(argTypes[0]);
    Type to = getSignlessType(resultType);
    if (args[0].getType() == to)
      return args[0];
    return arith::BitcastOp::create(builder, loc, to, args[0]);
  }
  if (name == "reduce_precision")
    return buildReducePrecision(builder, op, argTypes[0], args[0]);
  // Floats in their compute type; the comparison's total order reads the
  // bits of the type itself.
  bool totalOrder = false;
  if (auto kind = op->getAttrOfType<StringAttr>("type"))
    totalOrder = kind.getValue() == "TOTALORDER";
  llvm::SmallVector<Value> computed;
  for (auto [arg, type] : llvm::zip(args, argTypes)) {
    if (isNarrowFloat(type) && !(name == "compare" && totalOrder))
      computed.push_back(
          arith::ExtFOp::create(builder, loc, computeType(type), arg));
    else
      computed.push_back(arg);
  }
  if (name == "compare")
    return scalar.compare(argTypes[0], computed);
  if (name == "convert")
    return scalar.convert(argTypes[0], resultType, computed[0]);
  if (name == "is_finite") {
    Value magnitude = math::AbsFOp::create(builder, loc, computed[0]);
    Value infinity =
        floatConstant(builder, loc, computed[0].getType(), INFINITY);
    return arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OLT,
                                 magnitude, infinity);
  }
  // The operand whose type decides the kind (clamp's is the middle one).
  Type kilnType = name == "clamp" ? argTypes[1] : argTypes[0];
  if (isa<FloatType>(kilnType)) {
    Value result = scalar.floatOp(kilnType, computed);
    return result ? scalar.roundTo(result, resultType) : result;
  }
  return scalar.intOp(kilnType, computed);
}

FailureOr<llvm::SmallVector<Value>>
kiln::inlineScalarRegion(OpBuilder &builder, Region &region, ValueRange args) {
  Block &block = region.front();
  IRMapping mapping;
  for (auto [arg, value] : llvm::zip(block.getArguments(), args))
    mapping.map(arg, value);
  auto elementOf = [](Type type) {
    if (auto shaped = dyn_cast<ShapedType>(type))
      return shaped.getElementType();
    return type;
  };
  for (Operation &op : block) {
    StringRef name = op.getName().getStringRef();
    if (name == "kiln.return") {
      llvm::SmallVector<Value> results;
      for (Value operand : op.getOperands())
        results.push_back(mapping.lookup(operand));
      return results;
    }
    if (name == "kiln.constant") {
      auto value = cast<DenseElementsAttr>(op.getAttr("value"));
      if (!value.isSplat())
        return op.emitError("a constant of more than one element in a "
                            "region is not compiled");
      Attribute element = value.getSplatValue<Attribute>();
      Type type = getSignlessType(elementOf(value.getType()));
      if (auto integer = dyn_cast<IntegerAttr>(element))
        element = IntegerAttr::get(type, integer.getValue());
      Value scalar = arith::ConstantOp::create(builder, op.getLoc(), type,
                                               cast<TypedAttr>(element));
      mapping.map(op.getResult(0), scalar);
      continue;
    }
    // Identities on 0-d values.
    if ((name == "kiln.reshape" || name == "kiln.broadcast_in_dim" ||
         name == "kiln.annotate" || name == "kiln.bitcast") &&
        op.getNumOperands() == 1 &&
        elementOf(op.getOperand(0).getType()) ==
            elementOf(op.getResult(0).getType())) {
      mapping.map(op.getResult(0), mapping.lookup(op.getOperand(0)));
      continue;
    }
    if (!hasScalarLowering(&op))
      return op.emitError() << op.getName()
                            << " in a region is not compiled by the CPU "
                               "backend";
    llvm::SmallVector<Type> argTypes;
    llvm::SmallVector<Value> operands;
    for (Value operand : op.getOperands()) {
      argTypes.push_back(elementOf(operand.getType()));
      operands.push_back(mapping.lookup(operand));
    }
    Value result = buildScalarOp(
        builder, &op, argTypes, elementOf(op.getResult(0).getType()), operands);
    if (!result)
      return failure();
    mapping.map(op.getResult(0), result);
  }
  return region.front().getParentOp()->emitError(
      "a region without kiln.return");
}
