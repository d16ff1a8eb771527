//===- RowReductions.cpp - float sums of several rows at once ------------===//
//
// A row sum of floats computed as written (for each row, for each column)
// is one chain of dependent additions per row: LLVM keeps their order,
// since float addition does not reassociate, so each element waits for the
// one before it (about three cycles), whatever the width of the machine.
// Several rows' chains are independent. The op is tiled to `rows` rows at a
// time and its loops put column first, row second, so that a step adds one
// element to each of those rows' sums: the chains interleave and the adder
// is busy, while each row still adds its elements in the same order.
//
//===----------------------------------------------------------------------===//

#include "RowReductions.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

/// Whether `op` is a float sum or product over its innermost loop alone,
/// of one operand read along that loop, with an innermost parallel loop
/// whose extent the rows divide.
bool isLatencyBoundRowReduction(linalg::GenericOp op, int64_t rows) {
  unsigned loops = op.getNumLoops();
  if (loops < 2 || op.getNumReductionLoops() != 1 ||
      op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() ||
      !linalg::isReductionIterator(op.getIteratorTypesArray()[loops - 1]))
    return false;
  AffineMap input = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  if (!input.isIdentity())
    return false;
  // The reducer: one float addition or multiplication of the accumulator.
  llvm::SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || !isa<arith::AddFOp, arith::MulFOp>(combiners[0]))
    return false;
  int64_t inner = op.getStaticLoopRanges()[loops - 2];
  return !ShapedType::isDynamic(inner) && inner % rows == 0;
}

} // namespace

unsigned kiln::interleaveRowReductions(ModuleOp module, int64_t rows) {
  llvm::SmallVector<linalg::GenericOp> candidates;
  module.walk([&](linalg::GenericOp op) {
    if (isLatencyBoundRowReduction(op, rows))
      candidates.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  unsigned reordered = 0;
  for (linalg::GenericOp op : candidates) {
    unsigned loops = op.getNumLoops();
    llvm::SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    linalg::GenericOp tile = op;
    // Outer loops a row at a time, the innermost parallel one `rows` at a
    // time, the reduction whole. A tile of a band's block is `rows` rows
    // already where BandRestriction.cpp steps as many rows (16 both).
    bool tiled = llvm::any_of(llvm::drop_end(ranges, 1),
                              [&](int64_t range) { return range != 1; }) &&
                 ranges[loops - 2] != rows;
    if (tiled) {
      if (llvm::any_of(llvm::drop_end(ranges, 2), ShapedType::isDynamic))
        continue;
      llvm::SmallVector<OpFoldResult> sizes(loops - 2,
                                            rewriter.getIndexAttr(1));
      sizes.push_back(rewriter.getIndexAttr(rows));
      sizes.push_back(rewriter.getIndexAttr(0));
      scf::SCFTilingOptions options;
      options.setTileSizes(sizes);
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(result))
        continue;
      if (result->tiledOps.size() != 1) {
        // Not the one tile expected: the op stays as it was.
        rewriter.eraseOp(result->loops.front());
        continue;
      }
      rewriter.replaceOp(op, result->replacements);
      tile = dyn_cast<linalg::GenericOp>(result->tiledOps.front());
      if (!tile)
        continue;
    }
    // Column (the reduction) before the rows.
    llvm::SmallVector<unsigned> order;
    for (unsigned d = 0; d + 2 < loops; ++d)
      order.push_back(d);
    order.push_back(loops - 1);
    order.push_back(loops - 2);
    rewriter.setInsertionPoint(tile);
    if (succeeded(linalg::interchangeGenericOp(rewriter, tile, order)))
      ++reordered;
  }
  return reordered;
}
