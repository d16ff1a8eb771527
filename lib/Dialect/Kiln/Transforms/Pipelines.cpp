//===- Pipelines.cpp - the kiln-frontend pipeline ---------------*- C++ -*-===//
//
// This file builds the front-end pipeline that runs before compilation:
// calls inlined (so that masks built in helpers are seen whole), causal
// masks folded (unless turned off: a compile option, part of the key),
// small constant computations folded, dead code removed (kiln-dce, a sweep
// that costs a fraction of the canonicalizer's time).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::buildFrontendPipeline(OpPassManager &pm,
                                 const FrontendPipelineOptions &options) {
  pm.addPass(createKilnInlinePass());
  if (options.foldCausalMask) {
    KilnFoldCausalMaskPassOptions maskOptions;
    maskOptions.report = options.reportMasks;
    pm.addPass(createKilnFoldCausalMaskPass(maskOptions));
  }
  if (options.foldConstants) {
    KilnFoldConstantsPassOptions foldOptions;
    foldOptions.maxElements = options.maxConstantElements;
    pm.addPass(createKilnFoldConstantsPass(foldOptions));
  }
  // A while body's work that does not depend on the loop, done once.
  pm.addPass(createKilnHoistLoopInvariantsPass());
  // What nothing uses any more (ops without effects), among them the iotas
  // and compares a mask was made of.
  pm.addPass(createKilnDeadCodePass());
}

void kiln::registerKilnPipelines() {
  PassPipelineRegistration<FrontendPipelineOptions>(
      "kiln-frontend",
      "The front-end pipeline run before compilation: kiln-inline, "
      "kiln-fold-causal-mask, kiln-fold-constants, "
      "kiln-hoist-loop-invariants, kiln-dce",
      buildFrontendPipeline);
}
