//===- HloLocationTest.cpp - the importer's instruction locations ---------===//
//
// This file checks the location the HLO importer gives an instruction with
// metadata in memory: one HloInstructionLoc, which the lit tests never see
// (every printer and MLIR diagnostic handler gets the builtin form), so an
// importer that went back to a position and a fused location would pass
// them all and lose only speed.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Import/Hlo/HloImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace mlir;

TEST(HloLocation, AnInstructionWithMetadataHasOneLocation) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          "HloModule m\n"
          "ENTRY %main (x: f32[4]) -> f32[4] {\n"
          "  %x = f32[4]{0} parameter(0)\n"
          "  ROOT %n = f32[4]{0} negate(%x), metadata={op_name=\"jit(f)/neg\" "
          "source_file=\"model.py\" source_line=13}\n"
          "}\n",
          "m.hlo"),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module = kiln::importHloText(sourceMgr, &context);
  ASSERT_TRUE(module);
  Operation *negate = nullptr;
  module->walk([&](Operation *op) {
    if (op->getName().getStringRef() == "kiln.negate")
      negate = op;
  });
  ASSERT_TRUE(negate);

  auto instruction = dyn_cast<kiln::HloInstructionLoc>(negate->getLoc());
  ASSERT_TRUE(instruction);
  EXPECT_EQ(instruction.getFilename().getValue(), "m.hlo");
  EXPECT_EQ(instruction.getLine(), 4u);
  EXPECT_EQ(instruction.getColumn(), 3u);

  // Read as its builtin form is read.
  kiln::HloLocation parts = kiln::decodeHloLocation(negate->getLoc());
  ASSERT_TRUE(parts.dumpPosition);
  EXPECT_EQ(parts.dumpPosition->getLine(), 4u);
  EXPECT_EQ(parts.opName, "jit(f)/neg");
  ASSERT_TRUE(parts.source);
  EXPECT_EQ(parts.source->getFilename().getValue(), "model.py");
  EXPECT_EQ(parts.source->getLine(), 13u);

  // The builtin form: fused[position, metadata], and nothing of kiln's.
  auto fused = dyn_cast<FusedLoc>(kiln::toBuiltinLocation(negate->getLoc()));
  ASSERT_TRUE(fused);
  ASSERT_EQ(fused.getLocations().size(), 2u);
  EXPECT_EQ(fused.getLocations()[0], Location(instruction.getPosition()));
  EXPECT_EQ(fused.getLocations()[1], Location(instruction.getMetadata()));
  kiln::useBuiltinLocations(*module);
  EXPECT_EQ(negate->getLoc(), Location(fused));

  // An instruction without metadata keeps its plain position.
  module->walk([&](func::FuncOp function) {
    EXPECT_TRUE(isa<FileLineColLoc>(function.getArgument(0).getLoc()));
  });
}
