//===- CheckCompilable.cpp - reject graphs that cannot compile --*- C++ -*-===//
//
// This file implements kiln-check-compilable: every constant whose value the
// dump elided is reported where it stands in the dump, and the pass fails.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

namespace kiln {
#define GEN_PASS_DEF_KILNCHECKCOMPILABLEPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
struct CheckCompilablePass
    : public kiln::impl::KilnCheckCompilablePassBase<CheckCompilablePass> {
  void runOnOperation() override {
    bool compilable = true;
    getOperation().walk([&](ElidedConstantOp op) {
      op.emitError("the value of this ")
          << op.getType()
          << " constant was left out of the dump ({...}), so the graph "
             "cannot be compiled; dump it again with its constants (for "
             "XLA: XLA_FLAGS=--xla_dump_large_constants)";
      compilable = false;
    });
    if (!compilable)
      signalPassFailure();
  }
};
} // namespace
