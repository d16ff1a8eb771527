//===- MarkMaskedContractions.cpp - kiln-mark-masked-contractions -*- C++ -*-=//
//
// This file implements the analysis that lets the backend skip the masked
// half of causal attention: which values are one constant outside the band
// of a kiln.causal_mask, and so which contractions produce scores that are
// masked before anything reads them, or sum products whose lhs is zero
// outside the band (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/PassStatistics.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "kiln/Dialect/Kiln/Transforms/BandBlocks.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

namespace kiln {
#define GEN_PASS_DEF_KILNMARKMASKEDCONTRACTIONSPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// A value that equals `outside` at every position outside the band
/// `minDiagonal <= idx[column] - idx[row] <= maxDiagonal` (when `exact`), or
/// is there below -1e30 or -inf, which exp takes to exactly 0 (when not:
/// `outside` is then one such value).
struct Band {
  int64_t row = 0, column = 0;
  std::optional<int64_t> minDiagonal, maxDiagonal;
  double outside = 0;
  bool exact = true;

  bool sameBand(const Band &other) const {
    return row == other.row && column == other.column &&
           minDiagonal == other.minDiagonal && maxDiagonal == other.maxDiagonal;
  }
};

/// A fill that makes exp give exactly 0 whatever finite value is
/// subtracted from it: -inf, or below -1e30 (finfo.min and JAX's default
/// mask value are about -3.4e38 and -2.4e38).
bool isNegligible(double value) { return value < -1e30; }

/// The scalar of a splat constant, possibly broadcast.
std::optional<double> splatValue(Value value) {
  Operation *op = value.getDefiningOp();
  while (op &&
         isa<kiln::BroadcastInDimOp, kiln::ReshapeOp, kiln::ConvertOp>(op))
    op = op->getOperand(0).getDefiningOp();
  auto constant = dyn_cast_or_null<kiln::ConstantOp>(op);
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  Attribute element = dense.getSplatValue<Attribute>();
  if (auto floatAttr = dyn_cast<FloatAttr>(element))
    return floatAttr.getValueAsDouble();
  if (auto intAttr = dyn_cast<IntegerAttr>(element))
    return (double)intAttr.getValue().getZExtValue();
  return std::nullopt;
}

struct MarkMaskedContractionsPass
    : public kiln::impl::KilnMarkMaskedContractionsPassBase<
          MarkMaskedContractionsPass> {
  using KilnMarkMaskedContractionsPassBase::KilnMarkMaskedContractionsPassBase;

  llvm::DenseMap<Value, Band> bands;
  /// The element-wise ops and reductions computed in a band's blocks.
  llvm::SetVector<Operation *> marked;
  llvm::DenseMap<Operation *, Band> reduced;

  std::optional<Band> bandOf(Value value) {
    auto found = bands.find(value);
    if (found == bands.end())
      return std::nullopt;
    return found->second;
  }

  /// Whether every row of `type` has a position inside `band`: row i meets
  /// it where i + max >= 0 and i + min <= columns - 1.
  static bool everyRowMeetsBand(Type type, const Band &band) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked || !ranked.hasStaticShape())
      return false;
    int64_t rows = ranked.getDimSize(band.row),
            columns = ranked.getDimSize(band.column);
    return (!band.maxDiagonal || *band.maxDiagonal >= 0) &&
           (!band.minDiagonal || rows - 1 + *band.minDiagonal <= columns - 1);
  }

  /// What `op`'s result is outside a band, from its operands' facts.
  std::optional<Band> transfer(Operation *op) {
    if (auto mask = dyn_cast<kiln::CausalMaskOp>(op)) {
      Band band;
      band.row = mask.getRowDimension();
      band.column = mask.getColumnDimension();
      if (auto attr = mask.getMinDiagonalAttr())
        band.minDiagonal = attr.getInt();
      if (auto attr = mask.getMaxDiagonalAttr())
        band.maxDiagonal = attr.getInt();
      band.exact = true;
      TypedAttr masked = mask.getMasked();
      if (auto floatAttr = dyn_cast<FloatAttr>(masked))
        band.outside = floatAttr.getValueAsDouble();
      else if (auto intAttr = dyn_cast<IntegerAttr>(masked))
        band.outside = (double)intAttr.getValue().getZExtValue();
      else
        return std::nullopt;
      return band;
    }
    if (auto broadcast = dyn_cast<kiln::BroadcastInDimOp>(op)) {
      std::optional<Band> band = bandOf(broadcast.getOperand());
      if (!band)
        return std::nullopt;
      auto operandType =
          cast<RankedTensorType>(broadcast.getOperand().getType());
      auto resultType = cast<RankedTensorType>(broadcast.getType());
      llvm::ArrayRef<int64_t> dims = broadcast.getDimensions();
      // The band's dimensions must keep their extents.
      if (operandType.getDimSize(band->row) !=
              resultType.getDimSize(dims[band->row]) ||
          operandType.getDimSize(band->column) !=
              resultType.getDimSize(dims[band->column]))
        return std::nullopt;
      band->row = dims[band->row];
      band->column = dims[band->column];
      return band;
    }
    StringRef name = op->getName().getStringRef();
    if (name == "kiln.convert") {
      // To a float type only: an integer holds neither the infinities nor
      // the fills below -1e30 as they are.
      if (!isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType())))
        return std::nullopt;
      std::optional<Band> band = bandOf(op->getOperand(0));
      if (band && (band->outside == 0 || std::isinf(band->outside) ||
                   isNegligible(band->outside))) {
        // 0 and infinities convert exactly; a finite fill may round.
        band->exact =
            band->exact && (band->outside == 0 || std::isinf(band->outside));
        return band;
      }
      return std::nullopt;
    }
    if (auto select = dyn_cast<kiln::SelectOp>(op)) {
      std::optional<Band> predicate = bandOf(select.getPred());
      std::optional<double> fill = splatValue(select.getOnFalse());
      if (predicate && predicate->outside == 0 && fill) {
        Band band = *predicate;
        band.outside = *fill;
        band.exact = true;
        return band;
      }
      return std::nullopt;
    }
    if (name == "kiln.add" || name == "kiln.subtract") {
      // x + bias (or bias + x), x - finite: still below -1e30 or -inf.
      for (unsigned k = 0; k < 2; ++k) {
        if (name == "kiln.subtract" && k == 1)
          break;
        std::optional<Band> band = bandOf(op->getOperand(k));
        if (band && isNegligible(band->outside)) {
          // What is subtracted is softmax's row max: the fill itself on a
          // row with no position inside the band, where x - max is 0.
          if (name == "kiln.subtract" && !splatValue(op->getOperand(1)) &&
              !everyRowMeetsBand(op->getResult(0).getType(), *band))
            return std::nullopt;
          band->exact = false;
          return band;
        }
      }
      return std::nullopt;
    }
    if (name == "kiln.exponential") {
      std::optional<Band> band = bandOf(op->getOperand(0));
      if (band && isNegligible(band->outside)) {
        band->outside = 0;
        band->exact = true;
        return band;
      }
      return std::nullopt;
    }
    if (name == "kiln.multiply" || name == "kiln.divide") {
      // 0 * finite, 0 / nonzero (not 0 / 0: a divisor that is 0 outside
      // the band too).
      if (name == "kiln.divide")
        if (std::optional<Band> divisor = bandOf(op->getOperand(1)))
          if (divisor->outside == 0)
            return std::nullopt;
      std::optional<Band> band = bandOf(op->getOperand(0));
      if (!band && name == "kiln.multiply")
        band = bandOf(op->getOperand(1));
      if (band && band->outside == 0)
        return band;
      return std::nullopt;
    }
    return std::nullopt;
  }

  /// The band by which every use of `value` masks it before anything reads
  /// its positions outside the band (through constant scaling and
  /// conversions, then a select that discards them or an add of a bias
  /// below -1e30); none if a use reads them or the uses' bands differ.
  std::optional<Band> maskingBand(Value value, int depth = 0) {
    if (depth > 8 || value.use_empty())
      return std::nullopt;
    std::optional<Band> common;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      StringRef name = user->getName().getStringRef();
      std::optional<Band> band;
      if (auto select = dyn_cast<kiln::SelectOp>(user)) {
        std::optional<Band> predicate = bandOf(select.getPred());
        if (use.getOperandNumber() == 1 && predicate && predicate->outside == 0)
          band = predicate;
      } else if (name == "kiln.add") {
        std::optional<Band> bias =
            bandOf(user->getOperand(1 - use.getOperandNumber()));
        if (bias && isNegligible(bias->outside))
          band = bias;
      } else {
        bool scaling = (name == "kiln.multiply" || name == "kiln.divide") &&
                       splatValue(user->getOperand(1 - use.getOperandNumber()));
        if ((scaling || name == "kiln.convert") && user->getNumResults() == 1 &&
            cast<ShapedType>(user->getResult(0).getType()).getShape() ==
                cast<ShapedType>(value.getType()).getShape())
          band = maskingBand(user->getResult(0), depth + 1);
      }
      if (!band || (common && !common->sameBand(*band)))
        return std::nullopt;
      common = band;
    }
    return common;
  }

  /// The band of a contraction's lhs when it is 0 outside the band of its
  /// one free and one contracting dimension: the masked terms of the sums
  /// are zeros ("values").
  std::optional<Band> valuesBand(kiln::DotGeneralOp dot) {
    auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
    if (dot.getLhsContractingDims().size() != 1 ||
        lhsType.getRank() - (int64_t)dot.getLhsBatchDims().size() != 2)
      return std::nullopt;
    std::optional<Band> lhsBand = bandOf(dot.getLhs());
    if (!lhsBand || lhsBand->outside != 0)
      return std::nullopt;
    int64_t contractingDim = dot.getLhsContractingDims()[0];
    int64_t freeDim = -1;
    for (int64_t d = 0; d < lhsType.getRank(); ++d)
      if (!llvm::is_contained(dot.getLhsBatchDims(), d) && d != contractingDim)
        freeDim = d;
    if (lhsBand->row == freeDim && lhsBand->column == contractingDim)
      return lhsBand;
    return std::nullopt;
  }

  /// The element-wise ops that the backend can compute in a band's blocks
  /// (each is one linalg.generic there).
  static bool isBandElementwise(Operation *op) {
    if (!isa<kiln::SelectOp>(op)) {
      StringRef name = op->getName().getStringRef();
      if (name != "kiln.add" && name != "kiln.subtract" &&
          name != "kiln.multiply" && name != "kiln.divide" &&
          name != "kiln.exponential" && name != "kiln.convert")
        return false;
    }
    if (op->getNumResults() != 1)
      return false;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    return type && type.hasStaticShape() &&
           isa<FloatType>(type.getElementType());
  }

  /// Whether the band's dimensions of `type` divide into blocks.
  static bool hasBlocks(Type type, const Band &band) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    return ranked && ranked.hasStaticShape() && band.row < ranked.getRank() &&
           band.column < ranked.getRank() &&
           kiln::getBandBlockSize(ranked.getDimSize(band.row),
                                  ranked.getDimSize(band.column)) != 0;
  }

  /// A reduce of f32 (whose reducer the backend's body is one op of) of one
  /// banded operand over the band's column dimension whose
  /// reducer, applied once to the outside value, gives what applying it
  /// to every outside position gives: max and min (idempotent), a sum of
  /// zeros, a product of ones.
  std::optional<Band> reducedBand(kiln::ReduceOp reduce) {
    if (reduce.getInputs().size() != 1 || reduce->getNumResults() != 1)
      return std::nullopt;
    std::optional<Band> band = bandOf(reduce.getInputs()[0]);
    if (!band || !band->exact ||
        reduce.getDimensions() != llvm::ArrayRef<int64_t>{band->column} ||
        !hasBlocks(reduce.getInputs()[0].getType(), *band) ||
        !getElementTypeOrSelf(reduce->getResult(0).getType()).isF32())
      return std::nullopt;
    Block &body = reduce.getToApply().front();
    if (body.getOperations().size() != 2)
      return std::nullopt;
    Operation &combiner = body.front();
    if (combiner.getNumOperands() != 2 ||
        !llvm::is_contained(combiner.getOperands(), body.getArgument(0)) ||
        !llvm::is_contained(combiner.getOperands(), body.getArgument(1)) ||
        body.back().getOperand(0) != combiner.getResult(0))
      return std::nullopt;
    StringRef name = combiner.getName().getStringRef();
    if (name == "kiln.maximum" || name == "kiln.minimum" ||
        (name == "kiln.add" && band->outside == 0) ||
        (name == "kiln.multiply" && band->outside == 1))
      return band;
    return std::nullopt;
  }

  /// Marks the element-wise ops and reductions that the backend computes
  /// only in the band's blocks (`kiln.band`): an element-wise op whose
  /// result is one constant outside the band is filled with it there; one
  /// whose result is only below -1e30 there, when every op that reads it is
  /// itself computed in the blocks (they read what it computed, never its
  /// fill); a reduction takes the outside value once.
  void markBandOps(uint64_t &elementwise, uint64_t &reductions) {
    llvm::SmallVector<Operation *> elementwiseOps;
    getOperation().walk([&](Operation *op) {
      if (isBandElementwise(op))
        elementwiseOps.push_back(op);
      else if (auto reduce = dyn_cast<kiln::ReduceOp>(op))
        if (std::optional<Band> band = reducedBand(reduce))
          reduced[reduce] = *band;
    });
    for (Operation *op : elementwiseOps) {
      std::optional<Band> band = bandOf(op->getResult(0));
      if (band && hasBlocks(op->getResult(0).getType(), *band))
        marked.insert(op);
    }
    // Inexact values whose readers are not all computed in the same blocks
    // are computed whole, until nothing changes.
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *op : llvm::to_vector(marked)) {
        Band band = *bandOf(op->getResult(0));
        if (band.exact)
          continue;
        bool blocked = llvm::all_of(op->getUsers(), [&](Operation *user) {
          return marked.contains(user) &&
                 bandOf(user->getResult(0))->sameBand(band);
        });
        if (!blocked) {
          marked.remove(op);
          changed = true;
        }
      }
    }
    // An element-wise op that only marked ops of one band read (the scaling
    // of the scores before their mask) need not be computed outside the
    // band's blocks either, whatever it holds there; last readers first.
    for (Operation *op : llvm::reverse(elementwiseOps)) {
      if (marked.contains(op) || op->use_empty())
        continue;
      std::optional<Band> common;
      for (Operation *user : op->getUsers()) {
        if (!marked.contains(user) ||
            (common && !bandOf(user->getResult(0))->sameBand(*common))) {
          common.reset();
          break;
        }
        common = *bandOf(user->getResult(0));
      }
      if (!common || !hasBlocks(op->getResult(0).getType(), *common))
        continue;
      common->exact = false;
      common->outside = 0;
      bands[op->getResult(0)] = *common;
      marked.insert(op);
    }
    for (Operation *op : marked) {
      Band band = *bandOf(op->getResult(0));
      DictionaryAttr description = describeBand(op->getContext(), band);
      if (readsBlocksOnly(op->getResult(0), band))
        description = withUnreadOutside(description);
      op->setAttr("kiln.band", description);
      ++elementwise;
    }
    for (auto &[op, band] : reduced) {
      op->setAttr("kiln.band", describeBand(op->getContext(), band));
      ++reductions;
    }
  }

  /// Whether only ops that read a band's blocks read `value`: its blocks
  /// outside the band need not be written then. Such a reader is a marked
  /// element-wise op or reduction of the same band, or the lhs (only) of a
  /// contraction marked "values" (not "scores", whose lhs rows are read
  /// whole) that the backend computes by blocks: one float type of f32,
  /// f64, bf16, f16 (the named matmul path).
  bool readsBlocksOnly(Value value, const Band &band) {
    return llvm::all_of(value.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (marked.contains(user))
        return bandOf(user->getResult(0))->sameBand(band);
      if (auto found = reduced.find(user); found != reduced.end())
        return found->second.sameBand(band);
      auto dot = dyn_cast<kiln::DotGeneralOp>(user);
      if (!dot)
        return false;
      auto mark = dot->getAttrOfType<DictionaryAttr>("kiln.masked_contraction");
      std::optional<Band> lhsBand = valuesBand(dot);
      Type element = getElementTypeOrSelf(dot.getType());
      return mark && mark.getAs<StringAttr>("role").getValue() == "values" &&
             use.getOperandNumber() == 0 && lhsBand &&
             lhsBand->sameBand(band) && dot.getRhs() != dot.getLhs() &&
             (element.isF32() || element.isF64() || element.isBF16() ||
              element.isF16()) &&
             getElementTypeOrSelf(dot.getLhs().getType()) == element &&
             getElementTypeOrSelf(dot.getRhs().getType()) == element;
    });
  }

  /// `description` with `unread_outside`: nothing reads the value outside
  /// the band's blocks.
  static DictionaryAttr withUnreadOutside(DictionaryAttr description) {
    NamedAttrList entries(description);
    entries.set("unread_outside", UnitAttr::get(description.getContext()));
    return entries.getDictionary(description.getContext());
  }

  /// `kiln.band`: the band's dimensions and diagonals, and the value
  /// outside it.
  static DictionaryAttr describeBand(MLIRContext *context, const Band &band) {
    Builder b(context);
    return describeDiagonals(
        b, band,
        {b.getNamedAttr("row", b.getI64IntegerAttr(band.row)),
         b.getNamedAttr("column", b.getI64IntegerAttr(band.column)),
         b.getNamedAttr("outside", b.getF64FloatAttr(band.outside))});
  }

  static DictionaryAttr describe(MLIRContext *context, StringRef role,
                                 const Band &band) {
    Builder b(context);
    return describeDiagonals(b, band,
                             {b.getNamedAttr("role", b.getStringAttr(role))});
  }

  /// `entries` and the band's diagonals, as one dictionary.
  static DictionaryAttr
  describeDiagonals(Builder &b, const Band &band,
                    llvm::SmallVector<NamedAttribute> entries) {
    if (band.minDiagonal)
      entries.push_back(b.getNamedAttr("min_diagonal",
                                       b.getI64IntegerAttr(*band.minDiagonal)));
    if (band.maxDiagonal)
      entries.push_back(b.getNamedAttr("max_diagonal",
                                       b.getI64IntegerAttr(*band.maxDiagonal)));
    return b.getDictionaryAttr(entries);
  }

  void runOnOperation() override {
    // A pass manager may run the pass again: nothing of an earlier run.
    bands.clear();
    marked.clear();
    reduced.clear();
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() == 1)
        if (std::optional<Band> band = transfer(op))
          bands[op->getResult(0)] = *band;
    });
    MLIRContext *context = &getContext();
    uint64_t scores = 0, values = 0, elementwise = 0, reductions = 0;
    // Roles first: which ops read only a band's blocks depends on them.
    llvm::SmallVector<std::pair<kiln::DotGeneralOp, Band>> scoreContractions;
    getOperation().walk([&](kiln::DotGeneralOp dot) {
      auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
      auto rhsType = cast<RankedTensorType>(dot.getRhs().getType());
      int64_t batch = dot.getLhsBatchDims().size();
      int64_t contracting = dot.getLhsContractingDims().size();
      int64_t lhsFree = lhsType.getRank() - batch - contracting;
      int64_t rhsFree = rhsType.getRank() - batch - contracting;
      if (lhsFree != 1 || contracting != 1)
        return;
      // Scores: one free dimension each side, the band over them.
      if (rhsFree == 1) {
        std::optional<Band> band = maskingBand(dot.getResult());
        if (band && band->row == batch && band->column == batch + 1 &&
            (band->minDiagonal || band->maxDiagonal)) {
          dot->setAttr("kiln.masked_contraction",
                       describe(context, "scores", *band));
          scoreContractions.push_back({dot, *band});
          ++numScores;
          ++scores;
          return;
        }
      }
      if (std::optional<Band> lhsBand = valuesBand(dot)) {
        dot->setAttr("kiln.masked_contraction",
                     describe(context, "values", *lhsBand));
        ++numValues;
        ++values;
      }
    });
    markBandOps(elementwise, reductions);
    numElementwise += elementwise;
    numReductions += reductions;
    // Skipped blocks of scores that only ops computed in the same blocks
    // read need not be zeroed.
    for (auto &[dot, band] : scoreContractions)
      if (readsBlocksOnly(dot.getResult(), band))
        dot->setAttr("kiln.masked_contraction",
                     withUnreadOutside(dot->getAttrOfType<DictionaryAttr>(
                         "kiln.masked_contraction")));
    kiln::recordPassStatistics(
        "KilnMarkMaskedContractionsPass",
        {{"scores", scores, "Contractions whose masked outputs are skipped"},
         {"values", values, "Contractions whose masked terms are skipped"},
         {"elementwise", elementwise,
          "Element-wise ops computed in the band's blocks only"},
         {"reductions", reductions,
          "Reductions that read the band's blocks only"}});
  }
};

} // namespace
