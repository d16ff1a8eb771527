//===- EightBitFloats.cpp - 8-bit floats as integer code --------*- C++ -*-===//
//
// This file rewrites conversions between 8-bit floats and f32 or f64 as
// integer code (EightBitFloats.h). A format is read off its APFloat
// semantics once: its precision and bias, and its 256 codes classified.
//
//===----------------------------------------------------------------------===//

#include "EightBitFloats.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <bitset>
#include <cmath>

using namespace mlir;

namespace {

/// Which codes of a format are one kind (its NaNs, its infinities): none,
/// one code, or a range of magnitudes (the low 7 bits) with either sign.
struct CodeSet {
  enum { None, One, Magnitudes } kind = None;
  uint8_t code = 0, low = 0, high = 0;
};

/// What the rewrites need of an 8-bit float format.
struct Format {
  /// Stored mantissa bits, the exponent of the smallest normal, and the
  /// exponent field's bias.
  int mantissa = 0, minExponent = 0, bias = 0;
  double largest = 0;
  bool hasInfinity = false, hasNegativeZero = false;
  uint8_t nanCode = 0, infinityMagnitude = 0;
  CodeSet nans, infinities;
};

std::optional<CodeSet> describeCodes(const std::bitset<256> &codes) {
  CodeSet set;
  if (codes.none())
    return set;
  if (codes.count() == 1) {
    set.kind = CodeSet::One;
    for (unsigned code = 0; code < 256; ++code)
      if (codes[code])
        set.code = code;
    return set;
  }
  // Either sign, and the magnitudes one range.
  int low = -1, high = -1;
  for (unsigned magnitude = 0; magnitude < 128; ++magnitude) {
    if (codes[magnitude] != codes[magnitude | 0x80])
      return std::nullopt;
    if (!codes[magnitude])
      continue;
    if (low < 0)
      low = magnitude;
    else if (high + 1 != (int)magnitude)
      return std::nullopt;
    high = magnitude;
  }
  set.kind = CodeSet::Magnitudes;
  set.low = low;
  set.high = high;
  return set;
}

std::optional<Format> describeFormat(FloatType type) {
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  Format format;
  format.mantissa = llvm::APFloatBase::semanticsPrecision(semantics) - 1;
  format.minExponent = llvm::APFloatBase::semanticsMinExponent(semantics);
  format.bias = 1 - format.minExponent;
  format.largest = llvm::APFloat::getLargest(semantics).convertToDouble();
  format.hasInfinity = llvm::APFloatBase::semanticsHasInf(semantics);
  std::bitset<256> nans, infinities;
  for (unsigned code = 0; code < 256; ++code) {
    llvm::APFloat value(semantics, llvm::APInt(8, code));
    nans[code] = value.isNaN();
    infinities[code] = value.isInfinity();
    if (value.isInfinity() && !value.isNegative())
      format.infinityMagnitude = code;
    if (value.isZero() && value.isNegative())
      format.hasNegativeZero = true;
  }
  format.nanCode =
      llvm::APFloat::getNaN(semantics).bitcastToAPInt().getZExtValue();
  std::optional<CodeSet> nanSet = describeCodes(nans);
  std::optional<CodeSet> infinitySet = describeCodes(infinities);
  if (!nanSet || !infinitySet || format.mantissa < 1 || format.mantissa > 6)
    return std::nullopt;
  format.nans = *nanSet;
  format.infinities = *infinitySet;
  return format;
}

bool isEightBitFloat(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  return floatType && floatType.getWidth() == 8;
}

/// Integer and float constants and ops at one place.
struct Emitter {
  OpBuilder &b;
  Location loc;

  Value integer(Type type, int64_t value) {
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value));
  }
  Value real(Type type, double value) {
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
  }
  Value equal(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  /// Whether `code` (the i32 code, its magnitude) is in `set`.
  Value contains(const CodeSet &set, Value code, Value magnitude) {
    Type type = code.getType();
    if (set.kind == CodeSet::One)
      return equal(code, integer(type, set.code));
    Value atLeast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          magnitude, integer(type, set.low));
    Value atMost = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                         magnitude, integer(type, set.high));
    return arith::AndIOp::create(b, loc, atLeast, atMost);
  }
};

/// `value`, an 8-bit float of `format`, widened exactly to f32.
Value widen(OpBuilder &b, Location loc, const Format &format, Value value) {
  Emitter e{b, loc};
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Value code = arith::ExtUIOp::create(
      b, loc, i32, arith::BitcastOp::create(b, loc, b.getI8Type(), value));
  Value sign = arith::ShRUIOp::create(b, loc, code, e.integer(i32, 7));
  Value magnitude = arith::AndIOp::create(b, loc, code, e.integer(i32, 0x7f));
  Value exponent = arith::ShRUIOp::create(b, loc, magnitude,
                                          e.integer(i32, format.mantissa));
  Value mantissa = arith::AndIOp::create(
      b, loc, magnitude, e.integer(i32, (1 << format.mantissa) - 1));
  // A normal number: the fields moved to f32's places, the exponent
  // rebiased.
  Value normal = arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, sign, e.integer(i32, 31)),
      arith::OrIOp::create(
          b, loc,
          arith::ShLIOp::create(
              b, loc,
              arith::AddIOp::create(b, loc, exponent,
                                    e.integer(i32, 127 - format.bias)),
              e.integer(i32, 23)),
          arith::ShLIOp::create(b, loc, mantissa,
                                e.integer(i32, 23 - format.mantissa))));
  // A subnormal one (or zero): the mantissa times the smallest subnormal.
  Value subnormal = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, f32, mantissa),
      e.real(f32, std::ldexp(1.0, format.minExponent - format.mantissa)));
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, sign,
                                         e.integer(i32, 0));
  subnormal = arith::SelectOp::create(
      b, loc, negative, arith::NegFOp::create(b, loc, subnormal), subnormal);
  Value result = arith::SelectOp::create(
      b, loc, e.equal(exponent, e.integer(i32, 0)), subnormal,
      arith::BitcastOp::create(b, loc, f32, normal));
  if (format.infinities.kind != CodeSet::None)
    result = arith::SelectOp::create(
        b, loc, e.contains(format.infinities, code, magnitude),
        arith::SelectOp::create(b, loc, negative, e.real(f32, -INFINITY),
                                e.real(f32, INFINITY)),
        result);
  if (format.nans.kind != CodeSet::None)
    result = arith::SelectOp::create(b, loc,
                                     e.contains(format.nans, code, magnitude),
                                     e.real(f32, NAN), result);
  return result;
}

/// `value` (f32 or f64) rounded to an 8-bit float of `format`, `type`.
Value narrow(OpBuilder &b, Location loc, const Format &format, Type type,
             Value value) {
  Emitter e{b, loc};
  auto source = cast<FloatType>(value.getType());
  unsigned width = source.getWidth();
  int sourceMantissa = source.getFPMantissaWidth() - 1;
  int sourceBias = width == 64 ? 1023 : 127;
  Type bits = b.getIntegerType(width);
  auto exponentOf = [&](Value x) {
    Value field = arith::ShRUIOp::create(
        b, loc, arith::BitcastOp::create(b, loc, bits, x),
        e.integer(bits, sourceMantissa));
    return arith::SubIOp::create(b, loc, field, e.integer(bits, sourceBias));
  };
  Value sign = arith::ShRUIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, bits, value),
      e.integer(bits, width - 1));
  Value magnitude = math::AbsFOp::create(b, loc, value);
  // The format's spacing at the magnitude (its subnormals' below the
  // smallest normal), a power of two; the magnitude rounded to a multiple
  // of it, ties to even.
  Value spacingExponent = arith::SubIOp::create(
      b, loc,
      arith::MaxSIOp::create(b, loc, exponentOf(magnitude),
                             e.integer(bits, format.minExponent)),
      e.integer(bits, format.mantissa));
  Value spacing = arith::BitcastOp::create(
      b, loc, source,
      arith::ShLIOp::create(b, loc,
                            arith::AddIOp::create(b, loc, spacingExponent,
                                                  e.integer(bits, sourceBias)),
                            e.integer(bits, sourceMantissa)));
  Value rounded = arith::MulFOp::create(
      b, loc,
      // LLVM's intrinsic, an instruction (math-to-libm would make it a
      // call of roundevenf per element).
      LLVM::RoundEvenOp::create(
          b, loc, arith::DivFOp::create(b, loc, magnitude, spacing)),
      spacing);
  // Its code: the exponent rebiased and the top mantissa bits, or, below
  // the smallest normal, the count of subnormal steps.
  Value exponent = exponentOf(rounded);
  Value normal = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, exponent, e.integer(bits, format.bias)),
          e.integer(bits, format.mantissa)),
      arith::AndIOp::create(
          b, loc,
          arith::ShRUIOp::create(
              b, loc, arith::BitcastOp::create(b, loc, bits, rounded),
              e.integer(bits, sourceMantissa - format.mantissa)),
          e.integer(bits, (1 << format.mantissa) - 1)));
  Value subnormal = arith::FPToUIOp::create(
      b, loc, bits,
      arith::DivFOp::create(
          b, loc, rounded,
          e.real(source,
                 std::ldexp(1.0, format.minExponent - format.mantissa))));
  Value code = arith::SelectOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, exponent,
                            e.integer(bits, format.minExponent)),
      subnormal, normal);
  Value signedCode = arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, sign, e.integer(bits, 7)), code);
  if (!format.hasNegativeZero)
    signedCode = arith::SelectOp::create(
        b, loc, e.equal(code, e.integer(bits, 0)), code, signedCode);
  // Too large: an infinity of its sign, or NaN in a format without one.
  Value overflow =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, rounded,
                            e.real(source, format.largest));
  // NaN keeps the sign where the format has signed NaNs (not the FNUZ
  // ones, whose one NaN is 0x80).
  Value signBit = arith::ShLIOp::create(b, loc, sign, e.integer(bits, 7));
  Value nan = e.integer(bits, format.nanCode);
  if (format.hasNegativeZero)
    nan = arith::OrIOp::create(b, loc, nan, signBit);
  Value overflowCode =
      format.hasInfinity
          ? (Value)arith::OrIOp::create(
                b, loc, signBit, e.integer(bits, format.infinityMagnitude))
          : nan;
  signedCode =
      arith::SelectOp::create(b, loc, overflow, overflowCode, signedCode);
  Value isNan =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, value, value);
  signedCode = arith::SelectOp::create(b, loc, isNan, nan, signedCode);
  return arith::BitcastOp::create(
      b, loc, type, arith::TruncIOp::create(b, loc, b.getI8Type(), signedCode));
}

} // namespace

LogicalResult kiln::expandEightBitFloats(ModuleOp module) {
  // The side of each conversion (or the constant) that is an 8-bit float:
  // a scalar one is rewritten, a vector of them refused.
  auto eightBitSide = [](Operation *op) -> Type {
    if (isa<arith::ExtFOp>(op))
      return op->getOperand(0).getType();
    if (isa<arith::TruncFOp, arith::ConstantOp>(op))
      return op->getResult(0).getType();
    return Type();
  };
  llvm::SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    Type side = eightBitSide(op);
    if (side && isEightBitFloat(getElementTypeOrSelf(side)))
      ops.push_back(op);
  });
  // Each format read off its semantics once.
  llvm::DenseMap<Type, std::optional<Format>> formats;
  for (Operation *op : ops) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    Type eightBit = eightBitSide(op);
    auto [known, added] = formats.try_emplace(eightBit);
    if (added && isEightBitFloat(eightBit))
      known->second = describeFormat(cast<FloatType>(eightBit));
    const std::optional<Format> &format = known->second;
    if (!format)
      return op->emitError() << op->getName() << " on " << eightBit
                             << " is not compiled by the CPU backend";
    Value replacement;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto value = cast<FloatAttr>(constant.getValue());
      replacement = arith::BitcastOp::create(
          builder, loc, eightBit,
          arith::ConstantOp::create(
              builder, loc, builder.getI8Type(),
              builder.getIntegerAttr(builder.getI8Type(),
                                     value.getValue().bitcastToAPInt())));
    } else if (isa<arith::ExtFOp>(op)) {
      // Widened to f32, then to f64 or (exactly: every 8-bit format's
      // values are bf16's or f16's) to a narrower float.
      replacement = widen(builder, loc, *format, op->getOperand(0));
      Type result = op->getResult(0).getType();
      if (result.getIntOrFloatBitWidth() > 32)
        replacement = arith::ExtFOp::create(builder, loc, result, replacement);
      else if (!result.isF32())
        replacement =
            arith::TruncFOp::create(builder, loc, result, replacement);
    } else {
      Value source = op->getOperand(0);
      if (!source.getType().isF32() && !source.getType().isF64())
        source =
            arith::ExtFOp::create(builder, loc, builder.getF32Type(), source);
      replacement = narrow(builder, loc, *format, eightBit, source);
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
  return success();
}
