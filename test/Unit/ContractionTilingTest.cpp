//===- ContractionTilingTest.cpp - where a matmul packs its lhs -*- C++ -*-===//
//
// This file checks the loop structure that the contraction tiling gives a
// matmul, which its results cannot show: the lhs block is packed once per
// cache tile of rows and depth, outside the loop over the rhs panels. The
// hoisting runs in a sequence whose failures are suppressed (a shape it
// refuses is packed in the panels' loop instead: slower, never wrong), so
// without this test a change that stopped it would pass every other test.
//
//===----------------------------------------------------------------------===//

#include "ContractionTiling.h"
#include "kiln/Target/CPU/CpuCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseSet.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir;

namespace {

/// Whether `value` is computed from `induction` (through any ops).
bool dependsOn(Value value, Value induction) {
  llvm::SmallVector<Value> worklist{value};
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    if (current == induction)
      return true;
    if (!seen.insert(current).second)
      continue;
    if (Operation *producer = current.getDefiningOp())
      worklist.append(producer->operand_begin(), producer->operand_end());
  }
  return false;
}

/// Tiles a matmul of `lhs` x `rhs` into `result` with AVX2's tiles and
/// tells whether each packed lhs block is packed in no loop that does not
/// move it: every scf.for around its tensor.pad picks a different block.
/// A pack left in the loop over the rhs panels would be repeated for each
/// panel. False also when the lhs is not packed at all.
bool lhsPackedOncePerBlock(MLIRContext &context, llvm::StringRef lhs,
                           llvm::StringRef rhs, llvm::StringRef result,
                           llvm::StringRef op = "linalg.matmul") {
  std::string source =
      ("func.func @f(%a: " + lhs + ", %b: " + rhs + ", %c: " + result +
       ") -> " + result + " {\n  %r = " + op + " ins(%a, %b : " + lhs + ", " +
       rhs + ") outs(%c : " + result + ") -> " + result +
       "\n  return %r : " + result + "\n}\n")
          .str();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module || failed(kiln::tileAndVectorizeContractions(
                     *module, kiln::getContractionTiles(8))))
    return false;
  func::FuncOp function = *module->getOps<func::FuncOp>().begin();
  Value lhsArgument = function.getArgument(0);
  unsigned lhsPacks = 0;
  bool once = true;
  module->walk([&](tensor::PadOp pad) {
    if (!dependsOn(pad.getSource(), lhsArgument))
      return;
    ++lhsPacks;
    for (auto loop = pad->getParentOfType<scf::ForOp>(); loop;
         loop = loop->getParentOfType<scf::ForOp>())
      once &= dependsOn(pad.getSource(), loop.getInductionVar());
  });
  if (lhsPacks == 0 || !once) {
    module->print(llvm::errs());
    return false;
  }
  return true;
}

class ContractionTiling : public ::testing::Test {
protected:
  ContractionTiling() {
    DialectRegistry registry;
    kiln::registerCpuCompilerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};

} // namespace

// Loops over rows, depth, then the rhs panels: the lhs block is packed in
// the first two, once for all the panels of its rows and depth.
TEST_F(ContractionTiling, LhsBlockPackedOutsideThePanelsLoop) {
  EXPECT_TRUE(lhsPackedOncePerBlock(context, "tensor<1024x512xf32>",
                                    "tensor<512x256xf32>",
                                    "tensor<1024x256xf32>"));
}

// The same for f64, a single rhs panel (no panels' loop) and a batch.
TEST_F(ContractionTiling, LhsBlockHoistedForOtherShapes) {
  EXPECT_TRUE(lhsPackedOncePerBlock(context, "tensor<520x1000xf64>",
                                    "tensor<1000x48xf64>",
                                    "tensor<520x48xf64>"));
  EXPECT_TRUE(lhsPackedOncePerBlock(context, "tensor<1024x512xf32>",
                                    "tensor<512x16xf32>",
                                    "tensor<1024x16xf32>"));
  EXPECT_TRUE(lhsPackedOncePerBlock(
      context, "tensor<2x520x32xf32>", "tensor<2x32x32xf32>",
      "tensor<2x520x32xf32>", "linalg.batch_matmul"));
}
