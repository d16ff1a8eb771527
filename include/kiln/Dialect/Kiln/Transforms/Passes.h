//===- Passes.h - kiln dialect passes ---------------------------*- C++ -*-===//
//
// This file declares the passes of the kiln dialect (see Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace kiln {

#define GEN_PASS_DECL
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

/// Options of the kiln-frontend pipeline.
struct FrontendPipelineOptions
    : public mlir::PassPipelineOptions<FrontendPipelineOptions> {
  Option<bool> foldCausalMask{
      *this, "fold-causal-mask",
      llvm::cl::desc("Turn causal masks into kiln.causal_mask (a compile "
                     "option: `kiln ... --no-fold-causal-mask` turns it off)"),
      llvm::cl::init(true)};
  Option<bool> foldConstants{
      *this, "fold-constants",
      llvm::cl::desc("Fold ops whose operands are constants (a compile "
                     "option: `--option fold-constants=false` turns it off)"),
      llvm::cl::init(true)};
  Option<bool> reportMasks{
      *this, "report-masks",
      llvm::cl::desc("Print kiln-fold-causal-mask's statistics as a remark"),
      llvm::cl::init(false)};
  Option<int64_t> maxConstantElements{
      *this, "max-constant-elements",
      llvm::cl::desc("The largest literal constant folding may create"),
      llvm::cl::init(4096)};
};

/// Adds the front-end pipeline to `pm`: kiln-inline, kiln-fold-causal-mask
/// (if asked), kiln-fold-constants (if asked), kiln-dce.
void buildFrontendPipeline(mlir::OpPassManager &pm,
                           const FrontendPipelineOptions &options);

/// Registers `kiln-frontend` with kiln-opt.
void registerKilnPipelines();

} // namespace kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
