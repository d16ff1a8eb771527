//===- RowReductionsTest.cpp - which reductions interleave rows -*- C++ -*-===//
//
// This file checks which reductions interleaveRowReductions reorders and
// the loops it gives them, which their results cannot show: a float row sum
// computed a row at a time gives the same bits, only slower.
//
//===----------------------------------------------------------------------===//

#include "RowReductions.h"
#include "kiln/Target/CPU/CpuCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir;

namespace {

class RowReductions : public ::testing::Test {
protected:
  RowReductions() {
    DialectRegistry registry;
    kiln::registerCpuCompilerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// A function reducing `input` to `result` with `combiner` (an arith op
  /// of the element and the accumulator) over the dimensions whose
  /// iterator is "reduction" in `iterators`, reading the input by
  /// `inputMap` and writing by `resultMap`.
  OwningOpRef<ModuleOp> parse(llvm::StringRef input, llvm::StringRef result,
                              llvm::StringRef inputMap,
                              llvm::StringRef resultMap,
                              llvm::StringRef iterators,
                              llvm::StringRef combiner = "arith.addf") {
    std::string in = input.str(), out = result.str();
    std::string source =
        "func.func @f(%x: " + in + ", %init: " + out + ") -> " + out +
        " {\n  %r = linalg.generic {indexing_maps = [" + inputMap.str() + ", " +
        resultMap.str() + "], iterator_types = [" + iterators.str() +
        "]} ins(%x : " + in + ") outs(%init : " + out +
        ") {\n  ^bb0(%e: f32, %acc: f32):\n    %s = " + combiner.str() +
        " %e, %acc : f32\n    linalg.yield %s : f32\n  } -> " + out +
        "\n  return %r : " + out + "\n}\n";
    return parseSourceString<ModuleOp>(source, &context);
  }

  /// How many reductions interleaveRowReductions reorders in `module`: -1
  /// when it did not parse, -2 when the result does not verify.
  int reorder(OwningOpRef<ModuleOp> &module) {
    if (!module)
      return -1;
    unsigned reordered = kiln::interleaveRowReductions(*module);
    return succeeded(verify(*module)) ? (int)reordered : -2;
  }

  /// The iterator types of the one linalg.generic left, outermost first,
  /// and how many scf.for loops hold it.
  std::pair<std::string, unsigned> structure(ModuleOp module) {
    std::string iterators;
    unsigned loops = 0;
    module.walk([&](linalg::GenericOp op) {
      for (utils::IteratorType type : op.getIteratorTypesArray())
        iterators += type == utils::IteratorType::reduction ? "r" : "p";
      for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
           loop = loop->getParentOfType<scf::ForOp>())
        ++loops;
    });
    return {iterators, loops};
  }

  MLIRContext context;
};

constexpr llvm::StringLiteral kRows2 = "affine_map<(d0, d1) -> (d0, d1)>";
constexpr llvm::StringLiteral kRow2 = "affine_map<(d0, d1) -> (d0)>";
constexpr llvm::StringLiteral kRowColumn = "\"parallel\", \"reduction\"";

} // namespace

// A row sum: 16 rows at a time (one loop), the column outside the row.
TEST_F(RowReductions, RowSumTakesSixteenRowsAColumnAtATime) {
  OwningOpRef<ModuleOp> module =
      parse("tensor<64x512xf32>", "tensor<64xf32>", kRows2, kRow2, kRowColumn);
  ASSERT_EQ(reorder(module), 1);
  EXPECT_EQ(structure(*module), std::make_pair(std::string("rp"), 1u));
  bool sixteenRows = false;
  module->walk([&](linalg::GenericOp op) {
    sixteenRows =
        op.getStaticLoopRanges() == llvm::SmallVector<int64_t>{512, 16};
  });
  EXPECT_TRUE(sixteenRows);
}

// Products too; batches of rows a row at a time.
TEST_F(RowReductions, ProductsAndBatches) {
  OwningOpRef<ModuleOp> product =
      parse("tensor<32x100xf32>", "tensor<32xf32>", kRows2, kRow2, kRowColumn,
            "arith.mulf");
  EXPECT_EQ(reorder(product), 1);
  OwningOpRef<ModuleOp> batch =
      parse("tensor<3x32x100xf32>", "tensor<3x32xf32>",
            "affine_map<(d0, d1, d2) -> (d0, d1, d2)>",
            "affine_map<(d0, d1, d2) -> (d0, d1)>",
            "\"parallel\", \"parallel\", \"reduction\"");
  ASSERT_EQ(reorder(batch), 1);
  EXPECT_EQ(structure(*batch), std::make_pair(std::string("prp"), 2u));
}

// Left as they are: a maximum (LLVM vectorizes it along the row, since
// its order does not matter), rows that 16 does not divide, and a sum over
// the outer dimension (each step already adds to many sums).
TEST_F(RowReductions, OthersLeftAlone) {
  OwningOpRef<ModuleOp> maximum =
      parse("tensor<64x512xf32>", "tensor<64xf32>", kRows2, kRow2, kRowColumn,
            "arith.maximumf");
  EXPECT_EQ(reorder(maximum), 0);
  OwningOpRef<ModuleOp> fewRows =
      parse("tensor<4x512xf32>", "tensor<4xf32>", kRows2, kRow2, kRowColumn);
  EXPECT_EQ(reorder(fewRows), 0);
  OwningOpRef<ModuleOp> columns =
      parse("tensor<64x512xf32>", "tensor<512xf32>", kRows2,
            "affine_map<(d0, d1) -> (d1)>", "\"reduction\", \"parallel\"");
  ASSERT_EQ(reorder(columns), 0);
  EXPECT_EQ(structure(*columns), std::make_pair(std::string("rp"), 0u));
}

// A tile of a band's block (BandRestriction.cpp): 16 rows already, of a
// width known only at run time: reordered in place, with no loop of its
// own.
TEST_F(RowReductions, BandTileReorderedInPlace) {
  OwningOpRef<ModuleOp> tile =
      parse("tensor<16x?xf32>", "tensor<16xf32>", kRows2, kRow2, kRowColumn);
  ASSERT_EQ(reorder(tile), 1);
  EXPECT_EQ(structure(*tile), std::make_pair(std::string("rp"), 0u));
}
