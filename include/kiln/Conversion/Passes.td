//===- Passes.td - kiln's conversion passes ----------------*- tablegen -*-===//
//
// Conversions out of the kiln dialect: to linalg, tensor, arith, math and
// scf on tensors, from where MLIR's bufferization and LLVM lowering take
// over (lib/Target/CPU).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_PASSES_TD
#define KILN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertKilnToLinalgPass : Pass<"convert-kiln-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower kiln ops to linalg, tensor, arith, math and scf";
  let description = [{
    Every kiln op that the CPU backend compiles becomes structured ops on
    builtin tensors: element-wise ops one linalg.generic each (the scalar
    op picked from the kiln element type, so that `ui32` divides unsigned
    although the lowered tensor is `i32`), data movement tensor and linalg
    ops, dot_general a contraction, reduce a reduction whose body is the
    reducer region made scalar, while and conditional scf ops, and
    kiln.causal_mask an index comparison that fuses into its consumer.
    Narrow floats (bf16, f16) are computed in f32 and rounded after each
    op, as XLA's CPU backend does. Unsigned integer types become signless.
    An op that is not lowered is an error at its place in the dump, naming
    the op.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::complex::ComplexDialect",
    "mlir::memref::MemRefDialect",
    "mlir::bufferization::BufferizationDialect"
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
