//===- ScalarOps.h - kiln element-wise ops as scalar ops --------*- C++ -*-===//
//
// This file declares what every kiln lowering that computes element by
// element shares: the scalar arith/math code of one kiln element-wise op,
// picked from the kiln element types (signed, unsigned, float, narrow
// float), and the inlining of a kiln region of 0-d tensors (a reducer, a
// comparator) as scalar code.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_SCALAROPS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_SCALAROPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace kiln {

/// Whether `op` is an element-wise kiln op that buildScalarOp computes.
bool hasScalarLowering(mlir::Operation *op);

/// The scalar value of element-wise kiln op `op` on `args`: signless
/// scalars whose kiln element types are `argTypes`, giving a value of
/// kiln element type `resultType` (returned signless). Narrow floats are
/// computed in f32 and rounded. Null, with an error at `op`, for element
/// types it does not compute.
mlir::Value buildScalarOp(mlir::OpBuilder &builder, mlir::Operation *op,
                          mlir::TypeRange argTypes, mlir::Type resultType,
                          mlir::ValueRange args);

/// An index operand's signless `scalar` (of kiln integer type `kilnType`)
/// as `index`: signed ones sign-extended, unsigned ones zero-extended, and
/// unsigned ones too large for a signed index (a ui64 past INT64_MAX)
/// saturated to its largest value, so that clamping it as HLO does gives
/// the last position, not the first.
mlir::Value castToIndex(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value scalar, mlir::Type kilnType);

/// The signless form of a kiln element type (`ui8` is `i8`).
mlir::Type getSignlessType(mlir::Type type);

/// Whether `type` is a float computed in f32 and rounded after each op, as
/// HLO computes it: bf16, f16, and the 8-bit floats that have a sign and a
/// zero (f8E4M3FN, f8E5M2, f8E3M4, ...; their conversions to and from f32
/// become integer code in the CPU pipeline, EightBitFloats.h).
bool isNarrowFloat(mlir::Type type);

/// Inlines the single block of `region` (kiln ops on 0-d tensors, ending in
/// kiln.return) at `builder`'s point, with its arguments bound to the
/// scalars `args`; the scalars it returns. Fails, with an error at the op,
/// on an op that is not element-wise.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
inlineScalarRegion(mlir::OpBuilder &builder, mlir::Region &region,
                   mlir::ValueRange args);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_SCALAROPS_H
