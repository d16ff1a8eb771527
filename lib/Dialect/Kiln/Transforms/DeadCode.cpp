//===- DeadCode.cpp - kiln-dce ----------------------------------*- C++ -*-===//
//
// This file implements kiln-dce: every block, innermost regions included,
// is swept from its last op to its first, erasing ops that are trivially
// dead (no uses, no effects), so that whole dead chains go in one sweep.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Transforms/RegionUtils.h"

namespace kiln {
#define GEN_PASS_DEF_KILNDEADCODEPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct DeadCodePass : public kiln::impl::KilnDeadCodePassBase<DeadCodePass> {
  using KilnDeadCodePassBase::KilnDeadCodePassBase;

  void sweep(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
      if (isOpTriviallyDead(&op)) {
        op.erase();
        ++numErased;
        continue;
      }
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          sweep(nested);
    }
  }

  void runOnOperation() override {
    for (Region &region : getOperation()->getRegions())
      for (Block &block : region)
        sweep(block);
  }
};

} // namespace
