//===- BandRestriction.cpp - ops computed in a causal band's blocks ------===//
//
// This file computes the element-wise ops and reductions that
// kiln-mark-masked-contractions marked `kiln.band` only in the square blocks
// that meet the band of their causal mask, as the masked contractions are
// (Contraction.cpp): a loop over steps of 16 rows, each computing the
// blocks of columns that meet the band in its block of rows, and the loops
// of one attention (the contractions', the softmax's) then fused into one
// loop over blocks of rows. An element-wise op's other blocks
// hold its value outside the band; a reduction reads the blocks that meet
// the band and takes the outside value once for each row that has masked
// positions. Blocks are tiles of the op itself (TilingInterface); the
// producers that are cheap to compute again in a tile (broadcasts, iota,
// the mask) are computed in it, and in blocks wholly inside the band the
// mask is its constant "kept" value, so that those blocks are not masked.
//
//===----------------------------------------------------------------------===//

#include "BandRestriction.h"
#include "RowReductions.h"

#include "kiln/Dialect/Kiln/Transforms/BandBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;

namespace {

/// The band of a `kiln.band` or `kiln.causal_mask` attribute: positions
/// with `minDiagonal <= idx[column] - idx[row] <= maxDiagonal`.
struct BandSpec {
  int64_t row = 0, column = 0;
  std::optional<int64_t> minDiagonal, maxDiagonal;

  static BandSpec read(DictionaryAttr attr) {
    BandSpec band;
    band.row = attr.getAs<IntegerAttr>("row").getInt();
    band.column = attr.getAs<IntegerAttr>("column").getInt();
    if (auto value = attr.getAs<IntegerAttr>("min_diagonal"))
      band.minDiagonal = value.getInt();
    if (auto value = attr.getAs<IntegerAttr>("max_diagonal"))
      band.maxDiagonal = value.getInt();
    return band;
  }

  bool operator==(const BandSpec &other) const {
    return row == other.row && column == other.column &&
           minDiagonal == other.minDiagonal && maxDiagonal == other.maxDiagonal;
  }
  bool operator!=(const BandSpec &other) const { return !(*this == other); }
};

/// Rows of a band computed in one step of a loop: a chain of 16 rows of
/// 2,048 f32 scores and their exponentials (256 KiB at most) stays in L2,
/// and a step's row sums are the tiles whose rows interleaveRowReductions
/// sums together.
constexpr int64_t kRowStep = kiln::kInterleavedRows;

/// A producer that a tile computes again rather than reads: every operand
/// of a lower rank than its loops (a broadcast), or none (iota, a mask).
bool isCheapProducer(linalg::GenericOp producer) {
  if (producer->getNumResults() != 1 || producer.getNumReductionLoops() != 0)
    return false;
  unsigned loops = producer.getNumLoops();
  return llvm::all_of(producer.getDpsInputOperands(), [&](OpOperand *input) {
    return producer.getMatchingIndexingMap(input).getNumResults() < loops;
  });
}

/// A loop over steps of a band's rows: the band, the rows per step, the
/// value of the first row in its body and, per result, the dimension that
/// holds the rows.
struct RowLoop {
  scf::ForOp loop;
  BandSpec band;
  int64_t step;
  Value rowStart;
  llvm::SmallVector<int64_t> rowDims;
};

class BandRestriction {
public:
  BandRestriction(linalg::GenericOp op, DictionaryAttr mark)
      : op(op), band(BandSpec::read(mark)),
        outside(mark.getAs<FloatAttr>("outside").getValueAsDouble()),
        filled(!mark.get("unread_outside")), ranges(op.getStaticLoopRanges()) {}

  /// Whether the op is one this file computes by blocks: an element-wise
  /// generic with one result in the order of its loops, or a reduction of
  /// one operand in the order of its loops over the band's column only.
  LogicalResult check() {
    int64_t loops = op.getNumLoops();
    if (op->getNumResults() != 1 || band.row >= loops || band.column >= loops ||
        band.row == band.column || ShapedType::isDynamicShape(ranges))
      return failure();
    block = kiln::getBandBlockSize(ranges[band.row], ranges[band.column]);
    if (block == 0)
      return failure();
    reduction = op.getNumReductionLoops() != 0;
    if (!reduction)
      return success(
          op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity());
    llvm::SmallVector<unsigned> reduced;
    op.getReductionDims(reduced);
    if (reduced.size() != 1 || (int64_t)reduced[0] != band.column)
      return failure();
    // The result's dimensions are the loops' but the column, in order
    // (getResultRowDim).
    AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    if (result.getNumResults() != loops - 1)
      return failure();
    for (int64_t d = 0, next = 0; d < loops; ++d)
      if (d != band.column &&
          result.getResult(next++) != getAffineDimExpr(d, op.getContext()))
        return failure();
    // The reducer: one binary op of the accumulator and the element.
    Value yielded = op.getBody()->getTerminator()->getOperand(0);
    combiner = yielded.getDefiningOp();
    Value accumulator = op.getBody()->getArguments().back();
    if (!combiner || combiner->getBlock() != op.getBody() ||
        combiner->getNumOperands() != 2 ||
        !llvm::is_contained(combiner->getOperands(), accumulator))
      return failure();
    return success(llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *in) {
      AffineMap map = op.getMatchingIndexingMap(in);
      return map.isIdentity() || map.getNumResults() < map.getNumDims();
    }));
  }

  /// Rewrites the op as a loop over steps of its rows, which it returns.
  RowLoop rewrite() {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value init = op.getDpsInits()[0];
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type element = resultType.getElementType();
    outsideValue = arith::ConstantOp::create(b, loc, element,
                                             b.getFloatAttr(element, outside));
    // An element-wise op's blocks outside the band hold the outside value
    // where something reads them, in a buffer of its own: two equal fills
    // that CSE made one would cost a copy of the whole value.
    if (!reduction) {
      b.getContext()->getOrLoadDialect<bufferization::BufferizationDialect>();
      init = bufferization::AllocTensorOp::create(b, loc, resultType,
                                                  ValueRange{});
      if (filled)
        init = linalg::FillOp::create(b, loc, ValueRange{outsideValue},
                                      ValueRange{init})
                   .getResult(0);
    }
    int64_t rows = ranges[band.row], columns = ranges[band.column];
    step = std::min(block, kRowStep);
    Value rowStart;
    auto rowLoop = scf::ForOp::create(
        b, loc, index(b, 0), index(b, rows / step), index(b, 1),
        ValueRange{init},
        [&](OpBuilder &outer, Location, Value rowStep, ValueRange args) {
          rowStart =
              arith::MulIOp::create(outer, loc, rowStep, index(outer, step));
          Value result =
              computeRowBlock(outer, loc, rowStart, columns, args[0]);
          scf::YieldOp::create(outer, loc, result);
        });
    op->getResult(0).replaceAllUsesWith(rowLoop.getResult(0));
    op.erase();
    return RowLoop{rowLoop, band, step, rowStart, {getResultRowDim()}};
  }

private:
  linalg::GenericOp op;
  BandSpec band;
  double outside;
  /// Whether anything reads the blocks outside the band.
  bool filled;
  llvm::SmallVector<int64_t> ranges;
  int64_t block = 0;
  /// Rows computed in one step of the loop: a few, so that a chain of ops
  /// fused into one loop (fuseRowLoops) reads what the one before wrote
  /// while it is in L1 or L2, not a block of rows that L2 may not hold.
  int64_t step = 0;
  bool reduction = false;
  /// A reduction's reducer, in its body.
  Operation *combiner = nullptr;
  Value outsideValue;

  /// The dimension of the result that holds the band's rows.
  int64_t getResultRowDim() const {
    if (!reduction)
      return band.row;
    return band.row - (band.column < band.row ? 1 : 0);
  }

  static Value index(OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, b.getUnknownLoc(), value);
  }

  /// `value` clamped to [0, columns], divided by the block size, rounded
  /// down or up.
  Value blockOf(OpBuilder &b, Location loc, Value value, int64_t columns,
                bool roundUp) {
    value = arith::MaxSIOp::create(b, loc, value, index(b, 0));
    value = arith::MinSIOp::create(b, loc, value, index(b, columns));
    if (roundUp)
      value = arith::AddIOp::create(b, loc, value, index(b, block - 1));
    return arith::DivUIOp::create(b, loc, value, index(b, block));
  }

  /// The blocks of the rows [rowStart, rowStart + step): those that meet
  /// the band in their block of rows (what readers of the op read), in up
  /// to three loops (blocks on its edges, wholly inside it for these rows,
  /// on its other edge) folded into `accumulated`.
  Value computeRowBlock(OpBuilder &b, Location loc, Value rowStart,
                        int64_t columns, Value accumulated) {
    // The first row of the block of rows that holds these.
    Value blockStart = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, rowStart, index(b, block)),
        index(b, block));
    auto offset = [&](Value start, int64_t k) {
      return arith::AddIOp::create(b, loc, start, index(b, k));
    };
    // Meeting the band in the block of rows: j >= blockStart + min,
    // j <= blockStart + block - 1 + max. A reader of the op reads all of
    // those blocks, for every row of the block.
    Value first = index(b, 0), last = index(b, columns / block);
    // Wholly inside for these rows: j >= rowStart + step - 1 + min,
    // j <= rowStart + max.
    Value fullFirst = first, fullLast = last;
    if (band.minDiagonal) {
      first = blockOf(b, loc, offset(blockStart, *band.minDiagonal), columns,
                      false);
      fullFirst =
          blockOf(b, loc, offset(rowStart, step - 1 + *band.minDiagonal),
                  columns, true);
    }
    if (band.maxDiagonal) {
      last = blockOf(b, loc, offset(blockStart, block + *band.maxDiagonal),
                     columns, true);
      fullLast = blockOf(b, loc, offset(rowStart, *band.maxDiagonal + 1),
                         columns, false);
    }
    // [first, fullFirst) and [fullLast, last) are on the band's edges.
    fullFirst = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, fullFirst, first), last);
    fullLast = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, fullLast, fullFirst), last);
    // Each range of blocks is one tile, whose rows are contiguous runs
    // that the hardware prefetches.
    if (!readsMask()) {
      accumulated =
          computeBlocks(b, loc, rowStart, first, last, false, accumulated);
    } else {
      // A band without a lower (upper) edge has no blocks on it: no code.
      if (band.minDiagonal)
        accumulated = computeBlocks(b, loc, rowStart, first, fullFirst, false,
                                    accumulated);
      accumulated = computeBlocks(b, loc, rowStart, fullFirst, fullLast, true,
                                  accumulated);
      if (band.maxDiagonal)
        accumulated =
            computeBlocks(b, loc, rowStart, fullLast, last, false, accumulated);
    }
    if (reduction)
      accumulated = takeOutsideValue(b, loc, rowStart, columns, accumulated);
    return accumulated;
  }

  /// Whether an operand is a causal mask of this band, which blocks wholly
  /// inside it need not read.
  bool readsMask() {
    return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
      return maskOf(input->get()).has_value();
    });
  }

  /// The value inside the band of `value` when it is a causal mask of this
  /// band read in the order of the loops.
  std::optional<TypedAttr> maskOf(Value value) {
    auto producer = value.getDefiningOp<linalg::GenericOp>();
    if (!producer)
      return std::nullopt;
    auto mask = producer->getAttrOfType<DictionaryAttr>("kiln.causal_mask");
    if (!mask || !(BandSpec::read(mask) == band))
      return std::nullopt;
    for (OpOperand *input : op.getDpsInputOperands())
      if (input->get() == value &&
          !op.getMatchingIndexingMap(input).isIdentity())
        return std::nullopt;
    return mask.getAs<TypedAttr>("kept");
  }

  /// The one element of a splat constant tensor, if `value` is one.
  static std::optional<TypedAttr> splatValueOf(Value value) {
    auto constant = value.getDefiningOp<arith::ConstantOp>();
    auto elements =
        constant ? dyn_cast<SplatElementsAttr>(constant.getValue()) : nullptr;
    if (!elements)
      return std::nullopt;
    return elements.getSplatValue<TypedAttr>();
  }

  /// The column blocks [from, to) of the rows from `rowStart`: the op
  /// tiled to them, reading `accumulated` as its output, with its cheap
  /// producers computed in the tile (a mask wholly `inside` the band is its
  /// constant kept value, which the fusion of fills folds into the op).
  Value computeBlocks(OpBuilder &b, Location loc, Value rowStart, Value from,
                      Value to, bool inside, Value accumulated) {
    Value columnStart = arith::MulIOp::create(b, loc, from, index(b, block));
    Value width = arith::MulIOp::create(
        b, loc, arith::SubIOp::create(b, loc, to, from), index(b, block));
    llvm::SmallVector<OpFoldResult> offsets, sizes;
    for (auto [d, range] : llvm::enumerate(ranges)) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(range));
    }
    offsets[band.row] = rowStart;
    offsets[band.column] = columnStart;
    sizes[band.row] = b.getIndexAttr(step);
    sizes[band.column] = width;
    IRMapping mapping;
    mapping.map(op.getDpsInits()[0], accumulated);
    auto clone = cast<linalg::GenericOp>(b.clone(*op, mapping));
    clone->removeAttr("kiln.band");
    auto tileable = cast<TilingInterface>(clone.getOperation());
    FailureOr<TilingResult> tiled =
        tileable.getTiledImplementation(b, offsets, sizes);
    llvm::SmallVector<OpFoldResult> resultOffsets, resultSizes;
    bool placed = succeeded(tiled) &&
                  succeeded(tileable.getResultTilePosition(
                      b, 0, offsets, sizes, resultOffsets, resultSizes));
    clone.erase();
    // check() admitted only generics, which tile whatever the offsets.
    assert(placed && "a linalg.generic that does not tile");
    (void)placed;
    for (Operation *generated : tiled->generatedSlices) {
      auto slice = dyn_cast<tensor::ExtractSliceOp>(generated);
      if (!slice)
        continue;
      OpBuilder at(slice);
      // A slice of one value everywhere (the kept value of a mask wholly
      // inside the band, or a splat constant such as the -inf a select
      // puts outside it) is a fill, which the fusion of fills folds into
      // the op as a scalar: a slice of a splat constant would keep the
      // whole constant (16 MB at S = 2048) in the artifact and make every
      // block read it.
      std::optional<TypedAttr> fillValue = splatValueOf(slice.getSource());
      auto producer = slice.getSource().getDefiningOp<linalg::GenericOp>();
      if (!fillValue && producer && isCheapProducer(producer) && inside)
        fillValue = maskOf(slice.getSource());
      if (fillValue) {
        Value constant = arith::ConstantOp::create(at, loc, *fillValue);
        Value filled =
            linalg::FillOp::create(at, loc, ValueRange{constant},
                                   ValueRange{tensor::EmptyOp::create(
                                       at, loc, slice.getMixedSizes(),
                                       slice.getResultType().getElementType())})
                .getResult(0);
        slice.getResult().replaceAllUsesWith(filled);
        slice.erase();
        continue;
      }
      if (!producer || !isCheapProducer(producer))
        continue;
      FailureOr<TilingResult> fused =
          tensor::replaceExtractSliceWithTiledProducer(
              at, slice, cast<OpResult>(slice.getSource()));
      if (failed(fused))
        continue;
      slice.getResult().replaceAllUsesWith(fused->tiledValues[0]);
      slice.erase();
    }
    llvm::SmallVector<OpFoldResult> strides(resultOffsets.size(),
                                            b.getIndexAttr(1));
    return tensor::InsertSliceOp::create(b, loc, tiled->tiledValues[0],
                                         accumulated, resultOffsets,
                                         resultSizes, strides);
  }

  /// A reduction's rows [rowStart, rowStart + step) that have masked
  /// positions combined once with the outside value (the reducer is max,
  /// min, a sum of zeros or a product of ones, for which once is every
  /// time).
  Value takeOutsideValue(OpBuilder &b, Location loc, Value rowStart,
                         int64_t columns, Value accumulated) {
    int64_t rank = ranges.size() - 1;
    int64_t rowPosition = getResultRowDim();
    llvm::SmallVector<OpFoldResult> offsets, sizes, strides;
    for (auto [d, range] : llvm::enumerate(ranges)) {
      if ((int64_t)d == band.column)
        continue;
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(range));
      strides.push_back(b.getIndexAttr(1));
    }
    offsets[rowPosition] = rowStart;
    sizes[rowPosition] = b.getIndexAttr(step);
    Value part = tensor::ExtractSliceOp::create(b, loc, accumulated, offsets,
                                                sizes, strides);
    Value accumulator = op.getBody()->getArguments().back();
    auto combined = linalg::GenericOp::create(
        b, loc, TypeRange{part.getType()}, ValueRange{}, ValueRange{part},
        llvm::ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
        llvm::SmallVector<utils::IteratorType>(rank,
                                               utils::IteratorType::parallel),
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          // Row i has masked positions where some j in [0, columns) has
          // j - i < min or j - i > max.
          Value i = arith::AddIOp::create(
              nested, nestedLoc,
              linalg::IndexOp::create(nested, nestedLoc, rowPosition),
              rowStart);
          Value masked = arith::ConstantOp::create(nested, nestedLoc,
                                                   nested.getBoolAttr(false));
          if (band.minDiagonal)
            masked = arith::OrIOp::create(
                nested, nestedLoc, masked,
                arith::CmpIOp::create(
                    nested, nestedLoc, arith::CmpIPredicate::sgt,
                    arith::AddIOp::create(nested, nestedLoc, i,
                                          index(nested, *band.minDiagonal)),
                    index(nested, 0)));
          if (band.maxDiagonal)
            masked = arith::OrIOp::create(
                nested, nestedLoc, masked,
                arith::CmpIOp::create(
                    nested, nestedLoc, arith::CmpIPredicate::slt,
                    arith::AddIOp::create(nested, nestedLoc, i,
                                          index(nested, *band.maxDiagonal)),
                    index(nested, columns - 1)));
          // The reducer of the accumulator and the outside value.
          IRMapping mapping;
          for (Value operand : combiner->getOperands())
            mapping.map(operand,
                        operand == accumulator ? args[0] : outsideValue);
          Value reduced = nested.clone(*combiner, mapping)->getResult(0);
          linalg::YieldOp::create(
              nested, nestedLoc,
              ValueRange{arith::SelectOp::create(nested, nestedLoc, masked,
                                                 reduced, args[0])});
        });
    return tensor::InsertSliceOp::create(b, loc, combined.getResult(0),
                                         accumulated, offsets, sizes, strides);
  }
};

/// Whether a marked op only selects (a mask applied): cheap enough to be
/// computed again in each of its readers rather than written once.
bool onlySelects(linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0 || op->getNumResults() != 1)
    return false;
  return llvm::all_of(op.getBody()->without_terminator(), [](Operation &inner) {
    return isa<arith::SelectOp, arith::CmpIOp, arith::CmpFOp, arith::AddIOp,
               arith::SubIOp, arith::AndIOp, arith::OrIOp, arith::ConstantOp,
               linalg::IndexOp>(inner);
  });
}

/// Fuses marked element-wise ops into the marked ops of the same band that
/// read them, keeping the reader's mark, as linalg-fuse-elementwise-ops does
/// for unmarked ops (which would drop the marks): one that only one op
/// reads (the subtraction of softmax into its exp), and a select that only
/// marked ops read, into each of them (the mask applied where the max and
/// the exp read the scores, never written out).
void fuseBandChains(ModuleOp module) {
  IRRewriter rewriter(module.getContext());
  llvm::SmallVector<linalg::GenericOp> marked;
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr("kiln.band"))
      marked.push_back(op);
  });
  auto bandOf = [](Operation *op) -> std::optional<BandSpec> {
    auto band =
        op ? op->getAttrOfType<DictionaryAttr>("kiln.band") : DictionaryAttr();
    if (!band)
      return std::nullopt;
    return BandSpec::read(band);
  };
  // In order, so that each producer was itself fused before its readers.
  for (linalg::GenericOp consumer : marked) {
    BandSpec band = *bandOf(consumer);
    for (bool fused = true; fused;) {
      fused = false;
      for (OpOperand &operand : consumer->getOpOperands()) {
        auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
        if (!producer || bandOf(producer) != band ||
            producer.getNumReductionLoops() != 0)
          continue;
        if (!producer->hasOneUse()) {
          bool allMarked =
              llvm::all_of(producer->getUsers(), [&](Operation *user) {
                return bandOf(user) == band;
              });
          if (!allMarked || !onlySelects(producer))
            continue;
          // A copy of its own for this reader.
          rewriter.setInsertionPoint(producer);
          operand.set(rewriter.clone(*producer)->getResult(0));
          producer = operand.get().getDefiningOp<linalg::GenericOp>();
        }
        if (!linalg::areElementwiseOpsFusable(&operand))
          continue;
        rewriter.setInsertionPoint(consumer);
        FailureOr<linalg::ElementwiseOpFusionResult> result =
            linalg::fuseElementwiseOps(rewriter, &operand);
        if (failed(result))
          continue;
        result->fusedOp->setAttr("kiln.band", consumer->getAttr("kiln.band"));
        for (auto [original, replacement] : result->replacements)
          rewriter.replaceAllUsesExcept(original, replacement, result->fusedOp);
        rewriter.eraseOp(consumer);
        if (producer->use_empty())
          rewriter.eraseOp(producer);
        consumer = cast<linalg::GenericOp>(result->fusedOp);
        fused = true;
        break;
      }
    }
  }
}

/// Whether `consumer`'s body reads `producer`'s results only in its own
/// step's rows [rowStart, rowStart + step): every use is a slice of those
/// rows, and none is the consumer's initial value (which would be the
/// producer's final value). Where the producer's steps take the same rows
/// (fuseBandLoops), or the consumer is nested in the producer's blocks of
/// rows (fuseContractions), each step of the fused loop then reads what the
/// producer's part of it wrote.
bool readsOnlyItsRows(const RowLoop &producer, const RowLoop &consumer) {
  scf::ForOp producerLoop = producer.loop, consumerLoop = consumer.loop;
  for (auto [result, rowDim] :
       llvm::zip(producerLoop.getResults(), producer.rowDims))
    for (OpOperand &use : result.getUses()) {
      if (use.getOwner() == consumerLoop.getOperation())
        return false;
      if (!consumer.loop->isProperAncestor(use.getOwner()))
        continue;
      auto slice = dyn_cast<tensor::ExtractSliceOp>(use.getOwner());
      if (!slice || slice.getSource() != result)
        return false;
      llvm::SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
      llvm::SmallVector<OpFoldResult> strides = slice.getMixedStrides();
      std::optional<int64_t> size =
          getConstantIntValue(slice.getMixedSizes()[rowDim]);
      std::optional<int64_t> stride = getConstantIntValue(strides[rowDim]);
      if (llvm::dyn_cast_if_present<Value>(offsets[rowDim]) !=
              consumer.rowStart ||
          !size || *size > consumer.step || stride != 1)
        return false;
    }
  return true;
}

/// Whether an op after `from` and before `to` (in one block) reads a
/// result of `producer`.
bool readsBetween(Operation *producer, Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op != to; op = op->getNextNode()) {
    bool reads = false;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        reads |= operand.getDefiningOp() == producer;
    });
    if (reads)
      return true;
  }
  return false;
}

/// Whether `producer`, followed in its block by `consumer`, can be moved
/// down to it: nothing in between reads its results.
bool nothingBetweenReads(const RowLoop &producer, const RowLoop &consumer) {
  return !readsBetween(producer.loop, producer.loop, consumer.loop);
}

/// Clones the body of `loop` but its yield with `builder`, for induction
/// variable `iv` and iteration arguments `args` (recorded in `mapping`, which
/// may map values of the body already: an op whose results all are is not
/// cloned). Returns the values it yields.
llvm::SmallVector<Value> cloneLoopBody(OpBuilder &builder, scf::ForOp loop,
                                       Value iv, ValueRange args,
                                       IRMapping &mapping) {
  mapping.map(loop.getInductionVar(), iv);
  mapping.map(loop.getRegionIterArgs(), args);
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (op.getNumResults() != 0 &&
        llvm::all_of(op.getResults(),
                     [&](Value result) { return mapping.contains(result); }))
      continue;
    builder.clone(op, mapping);
  }
  llvm::SmallVector<Value> yielded;
  for (Value value : loop.getBody()->getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(value));
  return yielded;
}

/// The loops of `producer` and `consumer`, which take as many rows per
/// step, each computing its first row in its body, as one, at the
/// consumer's place:
/// each step computes the producer's rows, then the consumer's, which read
/// them while they are in the cache. Its results are the producer's, then
/// the consumer's.
RowLoop fuseRowLoops(const RowLoop &producer, const RowLoop &consumer) {
  scf::ForOp first = producer.loop, second = consumer.loop;
  OpBuilder b(second);
  llvm::SmallVector<Value> inits(first.getInitArgs());
  llvm::append_range(inits, second.getInitArgs());
  IRMapping mapping;
  auto fused = scf::ForOp::create(
      b, second.getLoc(), second.getLowerBound(), second.getUpperBound(),
      second.getStep(), inits,
      [&](OpBuilder &body, Location loc, Value iv, ValueRange args) {
        unsigned count = first.getNumResults();
        llvm::SmallVector<Value> yielded =
            cloneLoopBody(body, first, iv, args.take_front(count), mapping);
        // The consumer reads the producer's values as this step left them,
        // and its first row is the producer's (both are the same product):
        // what it reads is visibly the rows the step wrote.
        mapping.map(first.getResults(), ValueRange(yielded));
        mapping.map(consumer.rowStart, mapping.lookup(producer.rowStart));
        llvm::append_range(
            yielded,
            cloneLoopBody(body, second, iv, args.drop_front(count), mapping));
        scf::YieldOp::create(body, loc, yielded);
      });
  RowLoop result{fused, consumer.band, consumer.step,
                 mapping.lookup(producer.rowStart), producer.rowDims};
  llvm::append_range(result.rowDims, consumer.rowDims);
  unsigned count = first.getNumResults();
  second->replaceAllUsesWith(fused.getResults().drop_front(count));
  first->replaceAllUsesWith(fused.getResults().take_front(count));
  second.erase();
  first.erase();
  return result;
}

/// Erases the ops between `from` and `to` (in one block) that nothing
/// uses: what the rewrites left behind (the producers that each tile
/// computes again, reshapes read no more) would keep a loop in its place.
/// Loops stay: a later fusion may hold one.
void eraseDeadOpsBetween(Operation *from, Operation *to) {
  for (Operation *op = to->getPrevNode(); op != from;) {
    Operation *previous = op->getPrevNode();
    if (!isa<scf::ForOp>(op) && isOpTriviallyDead(op))
      op->erase();
    op = previous;
  }
}

/// Fuses the loops of each run of a band's ops (softmax's max, exp, sum and
/// division) into one: every value between the contractions was otherwise
/// written to memory whole and read again by the next op, four passes over
/// a matrix of S x S scores that the caches do not hold. Returns the loops
/// left.
llvm::SmallVector<RowLoop> fuseBandLoops(llvm::ArrayRef<RowLoop> loops) {
  llvm::SmallVector<RowLoop> fused;
  for (RowLoop next : loops) {
    RowLoop *current = fused.empty() ? nullptr : &fused.back();
    bool sameBlock =
        current && current->loop->getBlock() == next.loop->getBlock();
    if (sameBlock)
      eraseDeadOpsBetween(current->loop, next.loop);
    bool fusable =
        sameBlock && current->band == next.band && current->step == next.step &&
        getConstantIntValue(current->loop.getUpperBound()) ==
            getConstantIntValue(next.loop.getUpperBound()) &&
        readsOnlyItsRows(*current, next) && nothingBetweenReads(*current, next);
    if (fusable)
      *current = fuseRowLoops(*current, next);
    else
      fused.push_back(next);
  }
  return fused;
}

/// The loop of a contraction computed by blocks of a band
/// (buildMaskedContraction marks it with its rows per step), as a RowLoop:
/// its result's rows are dimension 1.
std::optional<RowLoop> contractionLoopOf(Value value) {
  auto loop = value.getDefiningOp<scf::ForOp>();
  auto rows =
      loop ? loop->getAttrOfType<IntegerAttr>("kiln.band_rows") : nullptr;
  if (!rows || loop->getNumResults() != 1)
    return std::nullopt;
  for (Operation &op : *loop.getBody())
    if (auto start = dyn_cast<arith::MulIOp>(op))
      if (start.getLhs() == loop.getInductionVar() &&
          getConstantIntValue(start.getRhs()) == rows.getInt())
        return RowLoop{loop, BandSpec(), rows.getInt(), start, {1}};
  return std::nullopt;
}

/// The value under `value`'s reshapes when they only add or drop
/// dimensions of one element (a dot_general's result grouped as a batch
/// matmul's and back).
Value throughUnitReshapes(Value value) {
  if (!isa<RankedTensorType>(value.getType()))
    return value;
  Value source = value;
  for (;;) {
    if (auto collapse = source.getDefiningOp<tensor::CollapseShapeOp>())
      source = collapse.getSrc();
    else if (auto expand = source.getDefiningOp<tensor::ExpandShapeOp>())
      source = expand.getSrc();
    else
      break;
  }
  auto nonUnit = [](Value v) {
    llvm::SmallVector<int64_t> sizes;
    for (int64_t size : cast<RankedTensorType>(v.getType()).getShape())
      if (size != 1)
        sizes.push_back(size);
    return sizes;
  };
  auto type = cast<RankedTensorType>(source.getType());
  if (!type.hasStaticShape() ||
      !cast<RankedTensorType>(value.getType()).hasStaticShape() ||
      nonUnit(source) != nonUnit(value))
    return value;
  return source;
}

/// Rewrites `slice`, of unit reshapes of `source`, as a slice of `source`
/// itself, reshaped to the slice's type. Fails (changing nothing) where a
/// unit dimension of the reshaped value is not taken whole.
LogicalResult sliceThroughReshapes(tensor::ExtractSliceOp slice, Value source) {
  ArrayRef<int64_t> reshaped = slice.getSourceType().getShape();
  ArrayRef<int64_t> shape = cast<RankedTensorType>(source.getType()).getShape();
  llvm::SmallVector<OpFoldResult> offsets, sizes, strides;
  llvm::SmallVector<OpFoldResult> oldOffsets = slice.getMixedOffsets(),
                                  oldSizes = slice.getMixedSizes(),
                                  oldStrides = slice.getMixedStrides();
  OpBuilder b(slice);
  unsigned next = 0;
  for (int64_t size : shape) {
    if (size == 1) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(1));
      strides.push_back(b.getIndexAttr(1));
      continue;
    }
    for (; reshaped[next] == 1; ++next)
      if (getConstantIntValue(oldOffsets[next]) != 0 ||
          getConstantIntValue(oldSizes[next]) != 1)
        return failure();
    offsets.push_back(oldOffsets[next]);
    sizes.push_back(oldSizes[next]);
    strides.push_back(oldStrides[next]);
    ++next;
  }
  for (; next < reshaped.size(); ++next)
    if (getConstantIntValue(oldOffsets[next]) != 0 ||
        getConstantIntValue(oldSizes[next]) != 1)
      return failure();
  Location loc = slice.getLoc();
  auto sourceType = cast<RankedTensorType>(source.getType());
  RankedTensorType takenType =
      tensor::ExtractSliceOp::inferResultType(sourceType, sizes);
  RankedTensorType wanted = slice.getResultType();
  Value taken;
  if (takenType.getRank() >= wanted.getRank()) {
    // Dropping unit dimensions: a rank-reducing slice, a view of the
    // source (a collapse_shape of a strided slice would be copied).
    if (isRankReducedType(takenType, wanted) !=
        SliceVerificationResult::Success)
      return failure();
    taken = tensor::ExtractSliceOp::create(b, loc, wanted, source, offsets,
                                           sizes, strides);
  } else {
    // Adding them: the slice, expanded.
    std::optional<llvm::SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForReshape(wanted, takenType);
    if (!groups || !wanted.hasStaticShape())
      return failure();
    taken = tensor::ExpandShapeOp::create(
        b, loc, wanted,
        tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes, strides),
        *groups);
  }
  slice.getResult().replaceAllUsesWith(taken);
  slice.erase();
  return success();
}

/// Makes `consumer`'s body read `producer`'s result directly where it read
/// unit reshapes of it. Fails where a read is not such a slice (then some
/// reads may have been rewritten: they read the same elements).
LogicalResult readDirectly(scf::ForOp producer, scf::ForOp consumer) {
  llvm::SmallVector<tensor::ExtractSliceOp> slices;
  bool other = false;
  consumer.getBody()->walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      if (operand.getDefiningOp() == producer ||
          throughUnitReshapes(operand).getDefiningOp() != producer)
        continue;
      auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
      if (slice && slice.getSource() == operand)
        slices.push_back(slice);
      else
        other = true;
    }
  });
  if (other)
    return failure();
  for (tensor::ExtractSliceOp slice : slices)
    if (failed(sliceThroughReshapes(slice,
                                    throughUnitReshapes(slice.getSource()))))
      return failure();
  return success();
}

/// `inner` as a loop over blocks of `rows` rows, each a loop over its steps
/// in order: the same iterations, grouped as a contraction's loop groups
/// them.
RowLoop nestRowLoop(RowLoop inner, int64_t rows) {
  scf::ForOp loop = inner.loop;
  int64_t ratio = rows / inner.step;
  int64_t steps = *getConstantIntValue(loop.getUpperBound());
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto index = [&](OpBuilder &builder, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value rowStart;
  auto outer = scf::ForOp::create(
      b, loc, index(b, 0), index(b, steps / ratio), index(b, 1),
      loop.getInitArgs(),
      [&](OpBuilder &outerBuilder, Location, Value block, ValueRange args) {
        rowStart = arith::MulIOp::create(outerBuilder, loc, block,
                                         index(outerBuilder, rows));
        Value first = arith::MulIOp::create(outerBuilder, loc, block,
                                            index(outerBuilder, ratio));
        auto steps = scf::ForOp::create(
            outerBuilder, loc, index(outerBuilder, 0),
            index(outerBuilder, ratio), index(outerBuilder, 1), args,
            [&](OpBuilder &body, Location, Value step, ValueRange stepArgs) {
              IRMapping mapping;
              scf::YieldOp::create(
                  body, loc,
                  cloneLoopBody(body, loop,
                                arith::AddIOp::create(body, loc, first, step),
                                stepArgs, mapping));
            });
        scf::YieldOp::create(outerBuilder, loc, steps.getResults());
      });
  loop->replaceAllUsesWith(outer.getResults());
  loop.erase();
  return RowLoop{outer, inner.band, rows, rowStart, inner.rowDims};
}

/// Runs the contraction that computes the scores a fused softmax reads, the
/// softmax, and the contraction that weighs the values by it in one loop
/// over blocks of rows, as FlashAttention does: a block's scores are read
/// back while L2 holds them, and its weights are read by the contraction
/// with V while they are in L2, instead of each going to memory whole (two
/// matrices of S x S) and back. A contraction that does not qualify stays
/// a loop of its own.
void fuseContractions(RowLoop softmax) {
  // The scores: a contraction loop that the softmax reads in its rows.
  std::optional<RowLoop> scores;
  softmax.loop.getBody()->walk([&](tensor::ExtractSliceOp slice) {
    if (!scores)
      scores = contractionLoopOf(throughUnitReshapes(slice.getSource()));
  });
  if (scores && (scores->loop->getBlock() != softmax.loop->getBlock() ||
                 scores->step % softmax.step != 0 ||
                 failed(readDirectly(scores->loop, softmax.loop)) ||
                 !readsOnlyItsRows(*scores, softmax)))
    scores.reset();
  // The weighted sum: the next contraction loop, if it reads the softmax's
  // results (in its rows, checked below).
  std::optional<RowLoop> values;
  for (Operation *op = softmax.loop->getNextNode(); op && !values;
       op = op->getNextNode())
    if (op->getNumResults() == 1)
      values = contractionLoopOf(op->getResult(0));
  if (values && (values->step % softmax.step != 0 ||
                 (scores && values->step != scores->step)))
    values.reset();
  if (values && failed(readDirectly(softmax.loop, values->loop)))
    values.reset();
  if (values) {
    bool reads = false;
    for (Value result : softmax.loop->getResults())
      for (Operation *user : result.getUsers())
        reads |= values->loop->isProperAncestor(user);
    if (!reads)
      values.reset();
  }
  if (!scores && !values)
    return;
  int64_t rows = scores ? scores->step : values->step;
  int64_t steps = *getConstantIntValue(softmax.loop.getUpperBound());
  auto tripsOf = [](RowLoop loop) {
    return getConstantIntValue(loop.loop.getUpperBound()).value_or(-1);
  };
  // Every check before the softmax is nested, so that a softmax that joins
  // neither stays as it is: nesting replaces its loop in place, with the
  // same results in the same dimensions and the same reads.
  if (scores) {
    eraseDeadOpsBetween(scores->loop, softmax.loop);
    if (tripsOf(*scores) * rows != steps * softmax.step ||
        !nothingBetweenReads(*scores, softmax))
      scores.reset();
  }
  if (values) {
    eraseDeadOpsBetween(softmax.loop, values->loop);
    // The scores move down with the softmax: nothing between may read them
    // either.
    if (tripsOf(*values) * rows != steps * softmax.step ||
        !readsOnlyItsRows(softmax, *values) ||
        !nothingBetweenReads(softmax, *values) ||
        (scores && (readsBetween(scores->loop, softmax.loop, values->loop) ||
                    !readsOnlyItsRows(*scores, *values))))
      values.reset();
  }
  if (!scores && !values)
    return;
  RowLoop current = nestRowLoop(softmax, rows);
  if (scores)
    current = fuseRowLoops(*scores, current);
  if (values)
    current = fuseRowLoops(current, *values);
}

} // namespace

LogicalResult kiln::restrictToBands(ModuleOp module) {
  fuseBandChains(module);
  llvm::SmallVector<linalg::GenericOp> marked;
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr("kiln.band"))
      marked.push_back(op);
  });
  llvm::SmallVector<RowLoop> loops;
  for (linalg::GenericOp op : marked) {
    BandRestriction restriction(op,
                                op->getAttrOfType<DictionaryAttr>("kiln.band"));
    if (failed(restriction.check()))
      return op.emitError("a value marked to be computed in the blocks of a "
                          "causal band is not an element-wise op or a "
                          "reduction over the band's columns");
    loops.push_back(restriction.rewrite());
  }
  for (const RowLoop &softmax : fuseBandLoops(loops))
    fuseContractions(softmax);
  module.walk([](scf::ForOp loop) { loop->removeAttr("kiln.band_rows"); });
  // Masks no block reads any more go with the dead code; their marks with
  // those that stay.
  module.walk([](linalg::GenericOp op) { op->removeAttr("kiln.causal_mask"); });
  return success();
}
