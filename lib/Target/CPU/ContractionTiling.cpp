//===- ContractionTiling.cpp - contractions tiled and vectorized -*- C++ -*-=//
//
// This file applies one transform-dialect script to the lowered module,
// which blocks each matmul (and batch_matmul) as BLAS libraries do: cache
// tiles of rows x one register tile's columns x depth, their loops running
// rows, depth, then columns; the lhs block of a (rows, depth) packed once
// into a buffer of its own, which L2 holds, and each rhs panel (depth x
// register columns) packed into one that stays in L1 while every register
// tile of the rows reads it. Contiguous, neither aliases in L1, as the
// rows of whole operands (or of blocks of them) a power-of-two stride apart
// do. The cache tiles are then tiled into register tiles of
// `rows x columns` outputs over one step of the contraction, which are
// vectorized (masked where a tile is partial) and lowered to outer
// products: per step, one broadcast of each row's lhs element and one load
// of the rhs row feed rows x columns / lanes FMAs. The tile sizes come from
// one place, getContractionTiles, which knows the target's vector width.
//
//===----------------------------------------------------------------------===//

#include "ContractionTiling.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <tuple>

using namespace mlir;

kiln::ContractionTiles kiln::getContractionTiles(unsigned lanes) {
  ContractionTiles tiles;
  // Two vectors of columns; rows so that the accumulators take half the
  // vector registers (16 of 32 with AVX-512, 8 of 16 with AVX2), leaving
  // room for the rhs vectors and the broadcasts.
  tiles.registerColumns = 2 * lanes;
  tiles.registerRows = lanes >= 16 ? 8 : 4;
  return tiles;
}

namespace {

/// The largest tile of at most `wanted` that is a multiple of `step` and
/// divides `size` (so that no tile is partial); 0 when there is none.
int64_t dividingTile(int64_t size, int64_t wanted, int64_t step) {
  for (int64_t tile = std::min(wanted, size) / step * step; tile >= step;
       tile -= step)
    if (size % tile == 0)
      return tile;
  return 0;
}

/// Whether `operand` is a block of a larger tensor whose rows are longer
/// than the block's, so that the block's rows are not contiguous.
bool isRowsOfLargerMatrix(Value operand) {
  auto slice = operand.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return false;
  ArrayRef<int64_t> source = slice.getSourceType().getShape();
  ArrayRef<int64_t> block = slice.getResultType().getShape();
  return !source.empty() && !block.empty() && source.back() != block.back();
}

} // namespace

LogicalResult kiln::tileAndVectorizeContractions(ModuleOp module,
                                                 const ContractionTiles &t) {
  // Each matmul whose shape the register tile divides gets tile sizes
  // (cache tiles that divide it too), and a mark the script finds it by.
  // Others (odd shapes) stay loops.
  // Matmuls with the same tile sizes share one mark and one foreach of the
  // script: a match walks the whole module, so one per op would make
  // compile time quadratic in the number of matmuls.
  std::string sequences;
  std::map<std::tuple<bool, int64_t, int64_t, int64_t, bool, bool, int64_t>,
           int64_t>
      configs;
  int64_t id = 0;
  MLIRContext *context = module.getContext();
  module.walk([&](linalg::LinalgOp op) {
    bool batched = isa<linalg::BatchMatmulOp>(op);
    if (!isa<linalg::MatmulOp>(op) && !batched)
      return;
    llvm::SmallVector<AffineMap> defaults =
        batched ? linalg::BatchMatmulOp::getDefaultIndexingMaps(context)
                : linalg::MatmulOp::getDefaultIndexingMaps(context);
    if (op.getIndexingMapsArray() != ArrayRef<AffineMap>(defaults) ||
        !op.hasPureTensorSemantics())
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return;
    Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    if (!element.isF32() && !element.isF64())
      return;
    size_t first = batched ? 1 : 0;
    int64_t m = ranges[first], n = ranges[first + 1], k = ranges[first + 2];
    if (m % t.registerRows || n % t.registerColumns)
      return;
    int64_t cacheRows = dividingTile(m, t.cacheRows, t.registerRows);
    // One rhs panel (ContractionTiles), which divides n as checked above.
    int64_t cacheColumns = t.registerColumns;
    int64_t cacheDepth = dividingTile(k, t.cacheDepth, 1);
    // Steps of the contraction a register tile takes at once (unrolled
    // outer products): as many as divide the cache tile, up to
    // registerDepth.
    int64_t registerDepth = dividingTile(cacheDepth, t.registerDepth, 1);
    // Packing pays where the operands are larger than the cache tiles, or
    // are blocks of larger matrices (causal attention's blocks of the
    // band): rows a power-of-two stride apart share a few sets of L1, so
    // a register tile reading them in place misses on every row. A
    // matmul that is one tile of contiguous operands reads them in place.
    bool pack = cacheRows < m || cacheColumns < n || cacheDepth < k ||
                llvm::any_of(op.getDpsInputs(), isRowsOfLargerMatrix);
    auto config = std::make_tuple(batched, cacheRows, cacheColumns, cacheDepth,
                                  element.isF64(), pack, registerDepth);
    auto [found, inserted] = configs.insert({config, id});
    op->setAttr("kiln.contraction_tile",
                IntegerAttr::get(IntegerType::get(context, 64), found->second));
    if (!inserted)
      return;
    std::string batch = batched ? "1, " : "";
    std::string type = element.isF64() ? "f64" : "f32";
    std::string packing =
        pack ? llvm::formatv(
                   "      %packed{0}, %pads{0}, %copies{0} = "
                   "transform.structured.pad %cache{0} {{padding_values = "
                   "[0.0 : {1}, 0.0 : {1}, 0.0 : {1}], padding_dimensions = "
                   "[0, 1, 2], nofold_flags = [1, 1, 0], copy_back_op = "
                   "\"none\"} : (!transform.any_op) -> (!transform.any_op, "
                   "!transform.any_op, !transform.any_op)",
                   id, type)
                   .str()
             : llvm::formatv("      %packed{0} = transform.cast %cache{0} : "
                             "!transform.any_op to !transform.any_op",
                             id)
                   .str();
    // The lhs block is packed once for all the rhs panels of its rows and
    // depth: the cache tile's loops run rows, depth, then columns (the
    // innermost), and the lhs block's packing leaves the columns' loop.
    // Should hoist_pad refuse a shape (none of the lit tests' or the
    // StableHLO conformance run's did, run with failures propagated), the
    // block is packed in that loop instead: slower, never wrong.
    std::string hoisting = pack ? llvm::formatv(
                                      R"(
      transform.sequence %packed{0} : !transform.any_op failures(suppress) {{
      ^bb1(%p{0}: !transform.any_op):
        %lhsPad{0} = transform.get_producer_of_operand %p{0}[0] : (!transform.any_op) -> !transform.any_op
        %hoisted{0} = transform.structured.hoist_pad %lhsPad{0} by 1 loops : (!transform.any_op) -> !transform.any_op
      }
)",
                                      id)
                                      .str()
                                : "";
    std::string interchange =
        batched ? "interchange = [0, 1, 3, 2]" : "interchange = [0, 2, 1]";
    std::string handles = batched ? ", !transform.any_op" : "";
    sequences += llvm::formatv(
        R"(
    %ops{0} = transform.structured.match ops{{["{1}"]} attributes{{kiln.contraction_tile = {0} : i64} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %ops{0} : !transform.any_op {{
    ^bb0(%op{0}: !transform.any_op):
      %cache{0}, %cl{0}:{8} = transform.structured.tile_using_for %op{0} tile_sizes [{2}{3}, {4}, {5}] {12} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op{9})
{10}{13}
      %regs{0}, %rl{0}:{8} = transform.structured.tile_using_for %packed{0} tile_sizes [{2}{6}, {7}, {11}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op{9})
      transform.structured.vectorize %regs{0} : !transform.any_op
    }
)",
        id, op->getName().getStringRef(), batch, cacheRows, cacheColumns,
        cacheDepth, t.registerRows, t.registerColumns, batched ? 4 : 3, handles,
        packing, registerDepth, interchange, hoisting);
    ++id;
  });
  if (id == 0)
    return success();
  std::string script = R"(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
)" + sequences + R"(
    %functions = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %functions {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_patterns to %functions {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
)";
  OwningOpRef<ModuleOp> transforms =
      parseSourceString<ModuleOp>(script, module.getContext());
  if (!transforms)
    return module.emitError("the contraction tiling script does not parse");
  Operation *entry = transform::detail::findTransformEntryPoint(
      module, *transforms, "__transform_main");
  if (!entry)
    return module.emitError("the contraction tiling script has no entry");
  transform::TransformOptions options;
  LogicalResult result = transform::applyTransformNamedSequence(
      module, entry, *transforms, options);
  module.walk([](Operation *op) { op->removeAttr("kiln.contraction_tile"); });
  return result;
}
