//===- KilnToLinalg.h - kiln to linalg, tensor, arith and scf ---*- C++ -*-===//
//
// This file declares the patterns that lower the kiln dialect, one
// populate function per op family (element-wise, data movement,
// contractions, reductions, control flow), and the type converter they
// share: kiln's signed and unsigned integer types become signless, and
// what signedness meant is read from the kiln type when each scalar op is
// chosen.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H
#define KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H

#include "mlir/Transforms/DialectConversion.h"

namespace kiln {

/// Types as the lowered code holds them: integers signless (`ui32` becomes
/// `i32`), in tensors and as scalars; every other type unchanged.
class KilnTypeConverter : public mlir::TypeConverter {
public:
  KilnTypeConverter();
};

/// Element-wise ops (arithmetic, math functions, compare, select, clamp,
/// convert, bit operations): one linalg.generic each.
void populateKilnElementwiseToLinalgPatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// Constants, iota, kiln.causal_mask, broadcast, reshape, transpose,
/// reverse, slices (static and dynamic), concatenate, pad, identities.
void populateKilnDataMovementToLinalgPatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// gather and scatter (every dimension-number form, any combiner): a
/// generic that reads at computed positions, and a loop over the updates.
void populateKilnIndirectDataMovementToLinalgPatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// dot_general: linalg.matmul and linalg.batch_matmul where the dimension
/// numbers fit them, else a generic contraction.
void populateKilnContractionToLinalgPatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// reduce (any number of operands, any reducer made of element-wise ops).
void populateKilnReductionToLinalgPatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// while, conditional and the collectives of one participant.
void populateKilnControlFlowToScfPatterns(const mlir::TypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);

/// batch_norm_training, batch_norm_inference and batch_norm_grad.
void populateKilnNormalizationToLinalgPatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// Custom calls, as the registry of targets says they compute.
void populateKilnCustomCallToLinalgPatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// sort (any number of operands, any comparator): a stable insertion
/// sort of each line.
/// Collectives and participant ids as calls of the runtime's collective
/// interface (kiln/Runtime/RuntimeAbi.h).
void populateKilnCollectiveToRuntimePatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// uniform_quantize and uniform_dequantize (per-tensor and per-axis), on
/// quantized tensors lowered to their storage integers.
void populateKilnQuantizationToLinalgPatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// Rewrites every kiln op on quantized tensors but those that only move
/// elements to compute in the expressed type: dequantize its operands,
/// quantize its results (StableHLO's meaning). Runs before the conversion.
mlir::LogicalResult dequantizeComputations(mlir::Operation *root);

/// CHLO's special functions (erf_inv, lgamma, digamma, bessel_i1e,
/// polygamma, zeta, next_after) as calls of the runtime.
void populateKilnSpecialFunctionToRuntimePatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// rng_bit_generator as a call of the runtime's generators.
void populateKilnRandomToRuntimePatterns(const mlir::TypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);

void populateKilnSortToScfPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

/// Every pattern above.
void populateKilnToLinalgPatterns(const mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H
