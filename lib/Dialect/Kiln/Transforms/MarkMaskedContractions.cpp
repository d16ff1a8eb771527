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

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>

namespace kiln {
#define GEN_PASS_DEF_KILNMARKMASKEDCONTRACTIONSPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// A value that equals `outside` at every position outside the band
/// `minDiagonal <= idx[column] - idx[row] <= maxDiagonal`.
struct Band {
  int64_t row = 0, column = 0;
  std::optional<int64_t> minDiagonal, maxDiagonal;
  double outside = 0;

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
  while (op && isa<kiln::BroadcastInDimOp, kiln::ReshapeOp, kiln::ConvertOp>(op))
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

  std::optional<Band> bandOf(Value value) {
    auto found = bands.find(value);
    if (found == bands.end())
      return std::nullopt;
    return found->second;
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
      std::optional<Band> band = bandOf(op->getOperand(0));
      if (band && (band->outside == 0 || std::isinf(band->outside) ||
                   isNegligible(band->outside)))
        return band;
      return std::nullopt;
    }
    if (auto select = dyn_cast<kiln::SelectOp>(op)) {
      std::optional<Band> predicate = bandOf(select.getPred());
      std::optional<double> fill = splatValue(select.getOnFalse());
      if (predicate && predicate->outside == 0 && fill) {
        Band band = *predicate;
        band.outside = *fill;
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
        if (band && isNegligible(band->outside))
          return band;
      }
      return std::nullopt;
    }
    if (name == "kiln.exponential") {
      std::optional<Band> band = bandOf(op->getOperand(0));
      if (band && isNegligible(band->outside)) {
        band->outside = 0;
        return band;
      }
      return std::nullopt;
    }
    if (name == "kiln.multiply" || name == "kiln.divide") {
      // 0 * finite, 0 / nonzero.
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
        if (use.getOperandNumber() == 1 && predicate &&
            predicate->outside == 0)
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

  static DictionaryAttr describe(MLIRContext *context, StringRef role,
                                 const Band &band) {
    Builder b(context);
    llvm::SmallVector<NamedAttribute> entries = {
        b.getNamedAttr("role", b.getStringAttr(role))};
    if (band.minDiagonal)
      entries.push_back(
          b.getNamedAttr("min_diagonal", b.getI64IntegerAttr(*band.minDiagonal)));
    if (band.maxDiagonal)
      entries.push_back(
          b.getNamedAttr("max_diagonal", b.getI64IntegerAttr(*band.maxDiagonal)));
    return b.getDictionaryAttr(entries);
  }

  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() == 1)
        if (std::optional<Band> band = transfer(op))
          bands[op->getResult(0)] = *band;
    });
    MLIRContext *context = &getContext();
    uint64_t scores = 0, values = 0;
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
          ++numScores;
          ++scores;
          return;
        }
      }
      // Values: the lhs is 0 outside the band of its free and contracting
      // dimensions.
      std::optional<Band> lhsBand = bandOf(dot.getLhs());
      if (!lhsBand || lhsBand->outside != 0)
        return;
      int64_t contractingDim = dot.getLhsContractingDims()[0];
      int64_t freeDim = -1;
      for (int64_t d = 0; d < lhsType.getRank(); ++d)
        if (!llvm::is_contained(dot.getLhsBatchDims(), d) && d != contractingDim)
          freeDim = d;
      if (lhsBand->row == freeDim && lhsBand->column == contractingDim) {
        dot->setAttr("kiln.masked_contraction",
                     describe(context, "values", *lhsBand));
        ++numValues;
        ++values;
      }
    });
    kiln::recordPassStatistics(
        "KilnMarkMaskedContractionsPass",
        {{"scores", scores, "Contractions whose masked outputs are skipped"},
         {"values", values, "Contractions whose masked terms are skipped"}});
  }
};

} // namespace
