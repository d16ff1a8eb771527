//===- EightBitFloats.h - 8-bit floats as integer code -----------*- C++
//-*-===//
//
// This file declares how the CPU backend computes with 8-bit floats
// (f8E4M3FN, f8E5M2, f8E3M4, f8E4M3, their FNUZ forms, ...), which LLVM
// has no type for: kiln computes them in f32 and rounds after each op, as
// HLO does, and the conversions between them and f32 or f64 become integer
// code here, derived from each format's APFloat semantics (its bias,
// precision, and which codes are infinities and NaNs). Widening is exact;
// narrowing rounds to nearest, ties to even, with subnormals; a value too
// large becomes an infinity, or NaN in a format without one; NaN becomes
// the format's NaN.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_CPU_EIGHTBITFLOATS_H
#define KILN_LIB_TARGET_CPU_EIGHTBITFLOATS_H

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// Rewrites every scalar arith.extf from, arith.truncf to, and
/// arith.constant of an 8-bit float in `module` as integer code. Fails,
/// with an error, on one it cannot (a vector of them, a format whose NaNs
/// are not one code or one range of codes).
mlir::LogicalResult expandEightBitFloats(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_EIGHTBITFLOATS_H
