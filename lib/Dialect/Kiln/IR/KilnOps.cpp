//===- KilnOps.cpp - kiln dialect operations --------------------*- C++ -*-===//
//
// This file implements the verifiers and folders of the kiln operations. The
// verifiers check operand and result shapes and element types as HLO defines
// them, so that a malformed graph is rejected at import with a message that
// names the op, not later in a compiler.
//
// A dynamic dimension (`?`) agrees with any size: dumps are static, but a pass
// may relax a shape, and the verifiers must not reject the graph for that.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <numeric>
#include <optional>

using namespace mlir;
using namespace kiln;

//===----------------------------------------------------------------------===//
// Helpers shared by the verifiers
//===----------------------------------------------------------------------===//

namespace {
/// How strictly a type must match the one HLO's shape rules give. XLA's
/// reducer checks (reduce, reduce-window, scatter, all-reduce,
/// reduce-scatter) ignore floating-point precision, so that a bf16 reduction
/// may accumulate in f32; everywhere else types must be equal.
enum class TypeMatch { Exact, IgnoreFpPrecision };
} // namespace

/// Formats one dimension size, `?` for a dynamic one, so that messages never
/// show the sentinel value that stands for it.
static std::string formatDim(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

/// Formats a shape or a list of dimension numbers as "[2, ?, 3]".
static std::string formatDims(ArrayRef<int64_t> dims) {
  std::string text = "[";
  llvm::interleave(
      dims, [&](int64_t dim) { text += formatDim(dim); },
      [&] { text += ", "; });
  return text + "]";
}

/// Formats a list of types as "(tensor<f32>, !kiln.token)". Streamed into a
/// diagnostic one by one, each type would get its own quotes.
static std::string formatTypes(TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '(';
  llvm::interleaveComma(types, os);
  os << ')';
  return text;
}

/// Whether two dimension sizes can be the same: a dynamic size agrees with
/// any other.
static bool dimsAgree(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs) || lhs == rhs;
}

/// Whether element types `expected` and `actual` agree under `match`.
static bool elementTypesAgree(Type expected, Type actual, TypeMatch match) {
  return expected == actual ||
         (match == TypeMatch::IgnoreFpPrecision && isa<FloatType>(expected) &&
          isa<FloatType>(actual));
}

/// Whether `actual` can be the type that HLO's rules give (`expected`): the
/// same type, up to dynamic dimensions and, under `match`, float precision.
/// Tokens agree only with tokens.
static bool typesAgree(Type expected, Type actual,
                       TypeMatch match = TypeMatch::Exact) {
  if (expected == actual)
    return true;
  auto expectedTensor = dyn_cast<RankedTensorType>(expected);
  auto actualTensor = dyn_cast<RankedTensorType>(actual);
  return expectedTensor && actualTensor &&
         succeeded(verifyCompatibleShape(expectedTensor.getShape(),
                                         actualTensor.getShape())) &&
         elementTypesAgree(expectedTensor.getElementType(),
                           actualTensor.getElementType(), match);
}

/// The type of a value that ODS has already constrained to a ranked tensor.
static RankedTensorType rankedType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// A rank-0 tensor of `elementType`: HLO's scalars (reducer arguments, init
/// values, rng bounds) are rank-0 tensors here.
static RankedTensorType scalarOf(Type elementType) {
  return RankedTensorType::get({}, elementType);
}

/// Appends " (why)" when there is a reason to give.
static void appendWhy(InFlightDiagnostic &diag, const Twine &why) {
  if (!why.isTriviallyEmpty())
    diag << " (" << why << ")";
}

/// Checks that `actual` is `expected`, the type that HLO's shape rules give;
/// `what` names the checked value and `why` the rule.
static LogicalResult verifyType(Operation *op, const Twine &what, Type expected,
                                Type actual, const Twine &why = "") {
  if (typesAgree(expected, actual))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << what << " must be " << expected;
  appendWhy(diag, why);
  return diag << ", got " << actual;
}

/// Checks a list of types (results, region arguments) against the types HLO
/// requires; the list is quoted whole, which shows a missing entry as well as
/// a wrong one.
static LogicalResult verifyTypes(Operation *op, const Twine &what,
                                 TypeRange expected, TypeRange actual,
                                 TypeMatch match = TypeMatch::Exact) {
  if (expected.size() == actual.size() &&
      llvm::all_of(llvm::zip_equal(expected, actual), [&](auto pair) {
        return typesAgree(std::get<0>(pair), std::get<1>(pair), match);
      }))
    return success();
  return op->emitOpError() << what << " must be " << formatTypes(expected)
                           << ", got " << formatTypes(actual);
}

/// Checks a shape alone, for ops whose result element type is free (convert,
/// dot_general) or checked elsewhere.
static LogicalResult verifyShape(Operation *op, const Twine &what,
                                 ArrayRef<int64_t> expected,
                                 ArrayRef<int64_t> actual,
                                 const Twine &why = "") {
  if (succeeded(verifyCompatibleShape(expected, actual)))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << what << " must be " << formatDims(expected);
  appendWhy(diag, why);
  return diag << ", got " << formatDims(actual);
}

/// Checks that two values have the same element type where HLO requires it,
/// whatever their shapes.
static LogicalResult verifyElementType(Operation *op, const Twine &what,
                                       Type expected, Type actual,
                                       const Twine &why,
                                       TypeMatch match = TypeMatch::Exact) {
  Type expectedElement = getElementTypeOrSelf(expected);
  Type actualElement = getElementTypeOrSelf(actual);
  if (elementTypesAgree(expectedElement, actualElement, match))
    return success();
  return op->emitOpError() << what << " must be " << expectedElement << " ("
                           << why << "), got " << actualElement;
}

/// Rejects unranked tensors where ODS allows them (pred and index operands):
/// HLO has no unranked shapes, and the shape rules need a rank.
static FailureOr<RankedTensorType> requireRanked(Operation *op, StringRef name,
                                                 Type type) {
  if (auto ranked = dyn_cast<RankedTensorType>(type))
    return ranked;
  return op->emitOpError() << name << " must be a ranked tensor, got " << type;
}

/// Checks that a value has a floating-point element type, for ops that HLO
/// defines on floats only.
static LogicalResult requireFloat(Operation *op, StringRef name, Type type) {
  if (isa<FloatType>(getElementTypeOrSelf(type)))
    return success();
  return op->emitOpError() << name << " must have a float element type, got "
                           << type;
}

/// Checks a single dimension number (iota_dimension, feature_index, the
/// concatenation dimension) against the rank it indexes.
static LogicalResult verifyDimIndex(Operation *op, const Twine &name,
                                    int64_t dim, int64_t rank) {
  if (dim >= 0 && dim < rank)
    return success();
  return op->emitOpError() << name << " must be in [0, " << rank << "), got "
                           << dim;
}

/// Checks the length of a per-dimension attribute; `rule` says what each
/// entry stands for ("one entry per operand dimension").
static LogicalResult verifyDimsSize(Operation *op, StringRef name, size_t size,
                                    int64_t expected, StringRef rule) {
  if (static_cast<int64_t>(size) == expected)
    return success();
  return op->emitOpError() << name << " must have " << rule << " (" << expected
                           << "), got " << size;
}

/// Whether every entry of `dims` is in [0, bound) and none repeats.
static bool allUniqueInRange(ArrayRef<int64_t> dims, int64_t bound) {
  SmallVector<bool> seen(std::max<int64_t>(bound, 0), false);
  for (int64_t dim : dims) {
    if (dim < 0 || dim >= bound || seen[dim])
      return false;
    seen[dim] = true;
  }
  return true;
}

/// Checks a list of dimension numbers: in [0, bound), each at most once, and
/// in increasing order where HLO requires it (offset_dims,
/// collapsed_slice_dims, ...), since the shape rules walk them in order.
static LogicalResult verifyDims(Operation *op, const Twine &name,
                                ArrayRef<int64_t> dims, int64_t bound,
                                bool sorted = false) {
  if (allUniqueInRange(dims, bound) && (!sorted || llvm::is_sorted(dims)))
    return success();
  return op->emitOpError() << name << " must be "
                           << (sorted ? "sorted, unique" : "unique")
                           << " and in [0, " << bound << "), got "
                           << formatDims(dims);
}

/// Checks that `dims` reorders [0, rank) (transpose).
static LogicalResult verifyPermutation(Operation *op, StringRef name,
                                       ArrayRef<int64_t> dims, int64_t rank) {
  if (static_cast<int64_t>(dims.size()) == rank && allUniqueInRange(dims, rank))
    return success();
  return op->emitOpError() << name << " must be a permutation of [0, " << rank
                           << "), got " << formatDims(dims);
}

/// Checks that two dimension lists of one operand share no dimension: a
/// dimension cannot be both collapsed and a batch dimension, for example.
static LogicalResult verifyDisjoint(Operation *op, StringRef lhsName,
                                    ArrayRef<int64_t> lhs, StringRef rhsName,
                                    ArrayRef<int64_t> rhs) {
  for (int64_t dim : lhs)
    if (llvm::is_contained(rhs, dim))
      return op->emitOpError()
             << lhsName << " and " << rhsName << " must be disjoint, got "
             << dim << " in both";
  return success();
}

/// Returns the dimension of the ops that carry HLO's one-element
/// `dimensions={d}` (concatenate, sort, all-gather, reduce-scatter).
static FailureOr<int64_t> getSingleDim(Operation *op, ArrayRef<int64_t> dims) {
  if (dims.size() == 1)
    return dims.front();
  return op->emitOpError() << "dimensions must have exactly one entry, got "
                           << formatDims(dims);
}

/// Checks that `value` is one of the names HLO spells for an enumeration
/// (comparison direction, rng distribution, ...).
static LogicalResult verifyOneOf(Operation *op, StringRef name, StringRef value,
                                 ArrayRef<StringRef> allowed) {
  if (llvm::is_contained(allowed, value))
    return success();
  return op->emitOpError() << name << " must be one of "
                           << llvm::join(allowed, ", ") << ", got '" << value
                           << "'";
}

/// Checks that a variadic op has at least one of what it folds, sorts or
/// combines: HLO's shape rules start from the first one.
static LogicalResult requireNonEmpty(Operation *op, ValueRange values,
                                     StringRef what) {
  if (!values.empty())
    return success();
  return op->emitOpError() << "expects at least one " << what;
}

/// Checks that all of `values` (the inputs of a variadic reduce or sort)
/// have the shape of the first, and returns the first's type.
static FailureOr<RankedTensorType>
verifySameShapes(Operation *op, ValueRange values, StringRef what) {
  if (failed(requireNonEmpty(op, values, what)))
    return failure();
  RankedTensorType first = rankedType(values.front());
  for (auto [i, value] : llvm::enumerate(values.drop_front()))
    if (failed(verifyShape(op, Twine(what) + " " + Twine(i + 1) + " shape",
                           first.getShape(), rankedType(value).getShape(),
                           Twine(what) + " 0's")))
      return failure();
  return first;
}

/// Checks a bound of clamp or select's predicate: HLO lets it be a scalar
/// that applies to every element, or else it must have the full shape.
static LogicalResult verifyScalarOrShape(Operation *op, StringRef name,
                                         RankedTensorType type,
                                         ArrayRef<int64_t> shape,
                                         StringRef owner) {
  if (type.getRank() == 0 ||
      succeeded(verifyCompatibleShape(type.getShape(), shape)))
    return success();
  return op->emitOpError() << name << " must be a scalar or have shape "
                           << formatDims(shape) << " (" << owner << "'s), got "
                           << type;
}

/// Checks a sub-computation against the signature that the op gives it:
/// HLO computations are typed functions, so a region that takes or returns
/// other types than the op passes in or expects out is malformed. Runs
/// before the region's own ops are verified, so it does not assume a
/// terminator.
static LogicalResult verifyRegion(Operation *op, Region &region,
                                  const Twine &name, TypeRange args,
                                  TypeRange results,
                                  TypeMatch match = TypeMatch::Exact) {
  Block &block = region.front();
  if (failed(verifyTypes(op, "region '" + name + "' argument types", args,
                         block.getArgumentTypes(), match)))
    return failure();
  auto ret = block.empty() ? ReturnOp() : dyn_cast<ReturnOp>(block.back());
  if (!ret)
    return op->emitOpError()
           << "region '" << name << "' must end with kiln.return";
  return verifyTypes(op, "region '" + name + "' result types", results,
                     ret.getOperandTypes(), match);
}

/// Checks what HLO reduce and reduce-window share: scalar init values of the
/// inputs' element types, results of `resultShape` with the init values'
/// element types, and a reducer (accumulators..., values...) ->
/// accumulators....
static LogicalResult verifyReduction(Operation *op, ValueRange inputs,
                                     ValueRange initValues,
                                     ArrayRef<int64_t> resultShape,
                                     Region &reducer) {
  SmallVector<Type> accumulators, values, results;
  for (auto [i, input, init] : llvm::enumerate(inputs, initValues)) {
    RankedTensorType initType = rankedType(init);
    Type inputElement = rankedType(input).getElementType();
    if (initType.getRank() != 0)
      return op->emitOpError()
             << "init value " << i << " must be a scalar, got " << initType;
    if (failed(verifyElementType(op, "init value " + Twine(i) + " element type",
                                 inputElement, initType,
                                 "input " + Twine(i) + "'s",
                                 TypeMatch::IgnoreFpPrecision)))
      return failure();
    accumulators.push_back(initType);
    values.push_back(scalarOf(inputElement));
    results.push_back(
        RankedTensorType::get(resultShape, initType.getElementType()));
  }
  if (failed(verifyTypes(op, "result types", results, op->getResultTypes())))
    return failure();
  SmallVector<Type> args(accumulators);
  llvm::append_range(args, values);
  return verifyRegion(op, reducer, "to_apply", args, accumulators,
                      TypeMatch::IgnoreFpPrecision);
}

/// Returns the first value that occurs twice in `values`, if any.
template <typename Range>
static std::optional<int64_t> findDuplicate(Range &&values) {
  llvm::DenseSet<int64_t> seen;
  for (int64_t value : values)
    if (!seen.insert(value).second)
      return value;
  return std::nullopt;
}

/// Checks replica_groups ([groups x group size], expanded from whatever form
/// the dump used) and returns the group size, or 0 when the groups are empty
/// (0x0), which in HLO means one group of all replicas: a size only known at
/// run time.
static FailureOr<int64_t> verifyReplicaGroups(Operation *op,
                                              DenseIntElementsAttr groups) {
  auto type = cast<ShapedType>(groups.getType());
  if (type.getRank() != 2)
    return op->emitOpError()
           << "replica_groups must be a 2-D tensor, got " << type;
  if (std::optional<int64_t> dup = findDuplicate(groups.getValues<int64_t>()))
    return op->emitOpError() << "replica_groups must not repeat a replica, got "
                             << *dup << " twice";
  return type.getNumElements() == 0 ? 0 : type.getDimSize(1);
}

/// Checks that the collective splits `dim` of `operand` evenly among
/// `groupSize` participants.
static LogicalResult verifyDivisible(Operation *op, size_t operandIndex,
                                     RankedTensorType operand, int64_t dim,
                                     int64_t groupSize) {
  int64_t size = operand.getDimSize(dim);
  if (ShapedType::isDynamic(size) || size % groupSize == 0)
    return success();
  return op->emitOpError() << "operand " << operandIndex << " dimension " << dim
                           << " (size " << size
                           << ") must be divisible by the group size ("
                           << groupSize << ")";
}

/// Checks that a collective has operands and one result for each.
static LogicalResult verifyCollectiveArity(Operation *op, ValueRange operands) {
  if (failed(requireNonEmpty(op, operands, "operand")))
    return failure();
  if (op->getNumResults() == operands.size())
    return success();
  return op->emitOpError() << "expects " << operands.size()
                           << " results (one per operand), got "
                           << op->getNumResults();
}

/// Checks all-gather (`gather` true) and reduce-scatter: result i is operand
/// i with dimensions[0] multiplied (gather) or divided (scatter) by the
/// number of participants. That number is replica_groups' group size, except
/// when the groups are empty or, with a channel_id and without
/// use_global_device_ids, list replicas while the group also spans every
/// partition; then, as XLA's verifier does, it is inferred from the first
/// operand and result.
static LogicalResult verifyShardedCollective(Operation *op, ValueRange operands,
                                             ArrayRef<int64_t> dimensions,
                                             DenseIntElementsAttr replicaGroups,
                                             bool hasChannelId,
                                             bool useGlobalDeviceIds,
                                             bool gather) {
  FailureOr<int64_t> groupSize = verifyReplicaGroups(op, replicaGroups);
  if (failed(groupSize) || failed(verifyCollectiveArity(op, operands)))
    return failure();
  FailureOr<int64_t> dim = getSingleDim(op, dimensions);
  if (failed(dim))
    return failure();
  int64_t participants = hasChannelId && !useGlobalDeviceIds ? 0 : *groupSize;
  for (auto [i, operand, result] :
       llvm::enumerate(operands, op->getResultTypes())) {
    RankedTensorType operandType = rankedType(operand);
    std::string what = ("result " + Twine(i) + " type").str();
    // torch-xla gathers and scatters a scalar beside the real operands
    // (corpus/hlo/torch-xla/nxd_llama2_tp4_pp2.hlo); it has no dimension to
    // split and passes through unchanged.
    if (operandType.getRank() == 0) {
      if (failed(verifyType(op, what, operandType, result,
                            "a scalar operand passes through")))
        return failure();
      continue;
    }
    if (failed(
            verifyDimIndex(op, "dimensions[0]", *dim, operandType.getRank())))
      return failure();
    int64_t in = operandType.getDimSize(*dim);
    auto resultType = cast<RankedTensorType>(result);
    int64_t out = resultType.getRank() == operandType.getRank()
                      ? resultType.getDimSize(*dim)
                      : ShapedType::kDynamic;
    if (!participants && !ShapedType::isDynamic(in) &&
        !ShapedType::isDynamic(out) && in > 0 && out > 0)
      participants =
          gather ? llvm::divideCeil(out, in) : llvm::divideCeil(in, out);
    SmallVector<int64_t> shape(operandType.getShape());
    if (!participants || ShapedType::isDynamic(in)) {
      shape[*dim] = ShapedType::kDynamic;
    } else if (gather) {
      shape[*dim] = in * participants;
    } else {
      if (failed(verifyDivisible(op, i, operandType, *dim, participants)))
        return failure();
      shape[*dim] = in / participants;
    }
    std::string why =
        ("operand " + Twine(i) + (gather ? " gathered" : " scattered") +
         " over " + Twine(participants) + " participants along dimension " +
         Twine(*dim))
            .str();
    if (failed(verifyType(
            op, what,
            RankedTensorType::get(shape, operandType.getElementType()), result,
            why)))
      return failure();
  }
  return success();
}

/// The index dimension attributes that HLO gather and scatter share, under
/// their op-specific names.
struct IndexDims {
  StringRef indicesName;
  StringRef collapsedName;
  ArrayRef<int64_t> collapsed;
  StringRef operandBatchingName;
  ArrayRef<int64_t> operandBatching;
  StringRef indicesBatchingName;
  ArrayRef<int64_t> indicesBatching;
  StringRef indexMapName;
  ArrayRef<int64_t> indexMap;
  int64_t indexVectorDim;
};

/// Checks the part of gather's and scatter's rules that relates the operand
/// to the indices: index_vector_dim in range, an index vector entry per
/// start_index_map / scatter_dims_to_operand_dims entry, and batching
/// dimensions paired one to one.
static LogicalResult verifyIndexDims(Operation *op, const IndexDims &dims,
                                     RankedTensorType operand,
                                     RankedTensorType indices) {
  int64_t operandRank = operand.getRank(), indicesRank = indices.getRank();
  if (dims.indexVectorDim < 0 || dims.indexVectorDim > indicesRank)
    return op->emitOpError()
           << "index_vector_dim must be in [0, " << indicesRank << "] (the "
           << dims.indicesName << " rank), got " << dims.indexVectorDim;
  if (failed(verifyDims(op, dims.collapsedName, dims.collapsed, operandRank,
                        /*sorted=*/true)) ||
      failed(verifyDims(op, dims.operandBatchingName, dims.operandBatching,
                        operandRank, /*sorted=*/true)) ||
      failed(verifyDisjoint(op, dims.collapsedName, dims.collapsed,
                            dims.operandBatchingName, dims.operandBatching)) ||
      failed(verifyDims(op, dims.indicesBatchingName, dims.indicesBatching,
                        indicesRank)) ||
      failed(verifyDimsSize(op, dims.indicesBatchingName,
                            dims.indicesBatching.size(),
                            dims.operandBatching.size(),
                            "one entry per operand batching dimension")) ||
      failed(verifyDims(op, dims.indexMapName, dims.indexMap, operandRank)) ||
      failed(verifyDisjoint(op, dims.indexMapName, dims.indexMap,
                            dims.operandBatchingName, dims.operandBatching)))
    return failure();
  if (llvm::is_contained(dims.indicesBatching, dims.indexVectorDim))
    return op->emitOpError()
           << dims.indicesBatchingName << " must not contain index_vector_dim ("
           << dims.indexVectorDim << ")";
  int64_t indexVectorSize = dims.indexVectorDim < indicesRank
                                ? indices.getDimSize(dims.indexVectorDim)
                                : 1;
  if (ShapedType::isDynamic(indexVectorSize))
    return success();
  return verifyDimsSize(op, dims.indexMapName, dims.indexMap.size(),
                        indexVectorSize, "one entry per index vector element");
}

/// The batch dimensions of gather and scatter indices: every dimension but
/// index_vector_dim.
static SmallVector<int64_t> indicesBatchShape(RankedTensorType indices,
                                              int64_t indexVectorDim) {
  SmallVector<int64_t> shape(indices.getShape());
  if (indexVectorDim < indices.getRank())
    shape.erase(shape.begin() + indexVectorDim);
  return shape;
}

/// Checks what the three batch-norm ops share: the operand is float,
/// feature_index names one of its dimensions, and every per-feature value
/// (scale, offset, mean, ...) is 1-D of that dimension's size.
static LogicalResult
verifyBatchNorm(Operation *op, RankedTensorType operand, int64_t featureIndex,
                ArrayRef<std::pair<StringRef, Type>> perFeature) {
  if (failed(requireFloat(op, "operand", operand)) ||
      failed(
          verifyDimIndex(op, "feature_index", featureIndex, operand.getRank())))
    return failure();
  auto expected = RankedTensorType::get({operand.getDimSize(featureIndex)},
                                        operand.getElementType());
  for (auto [name, type] : perFeature)
    if (failed(verifyType(op, name + " type", expected, type,
                          "1-D, of the feature dimension's size")))
      return failure();
  return success();
}

/// Bits per element, or 0 for types without a fixed width (index, opaque
/// element types), so that bitcasts between them are refused.
static int64_t bitWidth(Type elementType) {
  if (auto complex = dyn_cast<ComplexType>(elementType))
    return 2 * bitWidth(complex.getElementType());
  return elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 0;
}

/// Checks the start index operands of dynamic_slice and dynamic_update_slice:
/// one scalar per operand dimension, all of one type as HLO requires.
static LogicalResult verifyStartIndices(Operation *op, ValueRange indices,
                                        int64_t rank) {
  if (static_cast<int64_t>(indices.size()) != rank)
    return op->emitOpError()
           << "expects one start index per operand dimension (" << rank
           << "), got " << indices.size();
  for (auto [i, index] : llvm::enumerate(indices))
    if (failed(verifyType(op, "start index " + Twine(i) + " type",
                          indices.front().getType(), index.getType(),
                          "start index 0's")))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::verify() {
  // AllTypesMatch<["value", "output"]> already ties the literal's type to the
  // result type, which is all that HLO asks of a constant.
  return success();
}

LogicalResult IotaOp::verify() {
  return verifyDimIndex(*this, "iota_dimension",
                        getIotaDimensionAttr().getInt(),
                        rankedType(getOutput()).getRank());
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  RankedTensorType resultType = rankedType(getOutput());
  ArrayRef<int64_t> dims = getDimensions();
  if (failed(verifyElementType(*this, "result element type", operandType,
                               resultType, "the operand's")) ||
      failed(verifyDimsSize(*this, "dimensions", dims.size(),
                            operandType.getRank(),
                            "one entry per operand dimension")) ||
      failed(verifyDims(*this, "dimensions", dims, resultType.getRank())))
    return failure();
  for (auto [i, dim] : llvm::enumerate(dims)) {
    int64_t in = operandType.getDimSize(i), out = resultType.getDimSize(dim);
    if (!dimsAgree(in, out))
      return emitOpError() << "operand dimension " << i << " (size " << in
                           << ") must equal result dimension " << dim
                           << " (size " << out << ")";
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  RankedTensorType resultType = rankedType(getOutput());
  if (failed(verifyElementType(*this, "result element type", operandType,
                               resultType, "the operand's")))
    return failure();
  if (!operandType.hasStaticShape() || !resultType.hasStaticShape() ||
      operandType.getNumElements() == resultType.getNumElements())
    return success();
  return emitOpError() << "result must have " << operandType.getNumElements()
                       << " elements (the operand's), got "
                       << resultType.getNumElements();
}

LogicalResult TransposeOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  ArrayRef<int64_t> perm = getDimensions();
  if (failed(
          verifyPermutation(*this, "dimensions", perm, operandType.getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t dim : perm)
    shape.push_back(operandType.getDimSize(dim));
  return verifyType(*this, "result type",
                    RankedTensorType::get(shape, operandType.getElementType()),
                    getOutput().getType());
}

LogicalResult ReverseOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  if (failed(verifyDims(*this, "dimensions", getDimensions(),
                        operandType.getRank())))
    return failure();
  return verifyType(*this, "result type", operandType, getOutput().getType(),
                    "the operand's");
}

LogicalResult SliceOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  int64_t rank = operandType.getRank();
  ArrayRef<int64_t> starts = getStartIndices(), limits = getLimitIndices(),
                    strides = getStrides();
  for (auto [name, list] : {std::pair(StringRef("start_indices"), starts),
                            std::pair(StringRef("limit_indices"), limits),
                            std::pair(StringRef("strides"), strides)})
    if (failed(verifyDimsSize(*this, name, list.size(), rank,
                              "one entry per operand dimension")))
      return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = operandType.getDimSize(i);
    if (starts[i] < 0 || starts[i] > limits[i] ||
        (!ShapedType::isDynamic(size) && limits[i] > size))
      return emitOpError() << "dimension " << i << " must satisfy 0 <= start ("
                           << starts[i] << ") <= limit (" << limits[i]
                           << ") <= size (" << formatDim(size) << ")";
    if (strides[i] < 1)
      return emitOpError() << "strides must be >= 1, got "
                           << formatDims(strides);
    shape.push_back((limits[i] - starts[i] + strides[i] - 1) / strides[i]);
  }
  return verifyType(*this, "result type",
                    RankedTensorType::get(shape, operandType.getElementType()),
                    getOutput().getType());
}

LogicalResult DynamicSliceOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  ArrayRef<int64_t> sizes = getDynamicSliceSizes();
  if (failed(verifyStartIndices(*this, getStartIndices(),
                                operandType.getRank())) ||
      failed(verifyDimsSize(*this, "dynamic_slice_sizes", sizes.size(),
                            operandType.getRank(),
                            "one entry per operand dimension")))
    return failure();
  for (auto [i, size] : llvm::enumerate(sizes)) {
    int64_t dim = operandType.getDimSize(i);
    if (size < 0 || (!ShapedType::isDynamic(dim) && size > dim))
      return emitOpError() << "dynamic_slice_sizes[" << i << "] must be in [0, "
                           << formatDim(dim)
                           << "] (the operand dimension), got " << size;
  }
  return verifyType(*this, "result type",
                    RankedTensorType::get(sizes, operandType.getElementType()),
                    getOutput().getType(), "dynamic_slice_sizes");
}

LogicalResult DynamicUpdateSliceOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  RankedTensorType updateType = rankedType(getUpdate());
  if (updateType.getRank() != operandType.getRank())
    return emitOpError() << "update must have rank " << operandType.getRank()
                         << " (the operand's), got " << updateType;
  if (failed(verifyElementType(*this, "update element type", operandType,
                               updateType, "the operand's")))
    return failure();
  for (int64_t i = 0, e = operandType.getRank(); i < e; ++i) {
    int64_t in = operandType.getDimSize(i), size = updateType.getDimSize(i);
    if (!ShapedType::isDynamic(in) && !ShapedType::isDynamic(size) && size > in)
      return emitOpError() << "update dimension " << i << " (size " << size
                           << ") must not exceed operand dimension " << i
                           << " (size " << in << ")";
  }
  if (failed(
          verifyStartIndices(*this, getStartIndices(), operandType.getRank())))
    return failure();
  return verifyType(*this, "result type", operandType, getOutput().getType(),
                    "the operand's");
}

LogicalResult ConcatenateOp::verify() {
  if (failed(requireNonEmpty(*this, getInputs(), "input")))
    return failure();
  FailureOr<int64_t> dim = getSingleDim(*this, getDimensions());
  if (failed(dim))
    return failure();
  RankedTensorType first = rankedType(getInputs().front());
  if (failed(verifyDimIndex(*this, "dimensions[0]", *dim, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, input] : llvm::enumerate(getInputs().drop_front())) {
    RankedTensorType type = rankedType(input);
    bool matches = type.getRank() == first.getRank() &&
                   type.getElementType() == first.getElementType();
    for (int64_t d = 0; matches && d < first.getRank(); ++d)
      matches = d == *dim || dimsAgree(type.getDimSize(d), shape[d]);
    if (!matches)
      return emitOpError() << "input " << i + 1 << " (" << type
                           << ") must match input 0 (" << first
                           << ") in every dimension but " << *dim;
    int64_t size = type.getDimSize(*dim);
    shape[*dim] =
        ShapedType::isDynamic(shape[*dim]) || ShapedType::isDynamic(size)
            ? ShapedType::kDynamic
            : shape[*dim] + size;
  }
  return verifyType(*this, "result type",
                    RankedTensorType::get(shape, first.getElementType()),
                    getOutput().getType());
}

LogicalResult PadOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  int64_t rank = operandType.getRank();
  ArrayRef<int64_t> low = getEdgePaddingLow(), high = getEdgePaddingHigh(),
                    interior = getInteriorPadding();
  if (failed(verifyType(*this, "padding_value type",
                        scalarOf(operandType.getElementType()),
                        getPaddingValue().getType(),
                        "a scalar of the operand's element type")))
    return failure();
  for (auto [name, list] : {std::pair(StringRef("edge_padding_low"), low),
                            std::pair(StringRef("edge_padding_high"), high),
                            std::pair(StringRef("interior_padding"), interior)})
    if (failed(verifyDimsSize(*this, name, list.size(), rank,
                              "one entry per operand dimension")))
      return failure();
  if (llvm::any_of(interior, [](int64_t pad) { return pad < 0; }))
    return emitOpError() << "interior_padding must be non-negative, got "
                         << formatDims(interior);
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = operandType.getDimSize(i);
    if (ShapedType::isDynamic(size)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    // Edge padding may be negative (it crops), so the size can drop below 0.
    int64_t padded =
        low[i] + high[i] + size + std::max<int64_t>(size - 1, 0) * interior[i];
    if (padded < 0)
      return emitOpError() << "padding gives dimension " << i
                           << " a negative size (" << padded << ")";
    shape.push_back(padded);
  }
  return verifyType(*this, "result type",
                    RankedTensorType::get(shape, operandType.getElementType()),
                    getOutput().getType());
}

LogicalResult ConvertOp::verify() {
  return verifyShape(*this, "result shape", rankedType(getOperand()).getShape(),
                     rankedType(getOutput()).getShape(), "the operand's");
}

LogicalResult BitcastConvertOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  RankedTensorType resultType = rankedType(getOutput());
  int64_t inWidth = bitWidth(operandType.getElementType());
  int64_t outWidth = bitWidth(resultType.getElementType());
  if (!inWidth || !outWidth || (inWidth % outWidth && outWidth % inWidth))
    return emitOpError() << "element bit widths must divide one another, got "
                         << operandType.getElementType() << " and "
                         << resultType.getElementType();
  // HLO: a narrower result adds a last dimension of the width ratio; a wider
  // one consumes the operand's last dimension, which must be that ratio.
  SmallVector<int64_t> shape(operandType.getShape());
  if (inWidth > outWidth) {
    shape.push_back(inWidth / outWidth);
  } else if (inWidth < outWidth) {
    int64_t ratio = outWidth / inWidth;
    if (shape.empty() || !dimsAgree(shape.back(), ratio))
      return emitOpError()
             << "operand's last dimension must be " << ratio
             << " (the ratio of result to operand bit width), got "
             << operandType;
    shape.pop_back();
  }
  return verifyShape(*this, "result shape", shape, resultType.getShape());
}

LogicalResult ReducePrecisionOp::verify() {
  if (failed(requireFloat(*this, "operand", getOperand().getType())))
    return failure();
  int64_t exponentBits = getExponentBitsAttr().getInt();
  int64_t mantissaBits = getMantissaBitsAttr().getInt();
  if (exponentBits < 1)
    return emitOpError() << "exponent_bits must be >= 1, got " << exponentBits;
  if (mantissaBits < 0)
    return emitOpError() << "mantissa_bits must be >= 0, got " << mantissaBits;
  return verifyType(*this, "result type", getOperand().getType(),
                    getOutput().getType(), "the operand's");
}

LogicalResult BitcastOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  RankedTensorType resultType = rankedType(getOutput());
  int64_t inWidth = bitWidth(operandType.getElementType());
  int64_t outWidth = bitWidth(resultType.getElementType());
  if (!operandType.hasStaticShape() || !resultType.hasStaticShape() ||
      !inWidth || !outWidth)
    return success();
  int64_t inBits = operandType.getNumElements() * inWidth;
  int64_t outBits = resultType.getNumElements() * outWidth;
  if (inBits == outBits)
    return success();
  return emitOpError() << "result must have " << inBits
                       << " bits (the operand's), got " << outBits;
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

// The Elementwise trait has already checked that operands and results have
// one shape; these verifiers check what it cannot.

LogicalResult IsFiniteOp::verify() {
  return requireFloat(*this, "operand", getOperand().getType());
}

LogicalResult CompareOp::verify() {
  if (failed(verifyType(*this, "rhs type", getLhs().getType(),
                        getRhs().getType(), "the lhs type")) ||
      failed(verifyOneOf(*this, "direction", getDirection(),
                         {"EQ", "NE", "LT", "LE", "GT", "GE"})))
    return failure();
  if (std::optional<StringRef> type = getType())
    return verifyOneOf(*this, "type", *type,
                       {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"});
  return success();
}

LogicalResult SelectOp::verify() {
  FailureOr<RankedTensorType> predType =
      requireRanked(*this, "pred", getPred().getType());
  RankedTensorType onTrueType = rankedType(getOnTrue());
  if (failed(predType) ||
      failed(verifyType(*this, "on_false type", onTrueType,
                        getOnFalse().getType(), "on_true's")) ||
      failed(verifyType(*this, "result type", onTrueType, getOutput().getType(),
                        "on_true's")))
    return failure();
  return verifyScalarOrShape(*this, "pred", *predType, onTrueType.getShape(),
                             "on_true");
}

LogicalResult ClampOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  for (auto [name, bound] : {std::pair(StringRef("min"), getMin()),
                             std::pair(StringRef("max"), getMax())})
    if (failed(verifyElementType(*this, name + " element type", operandType,
                                 bound.getType(), "the operand's")) ||
        failed(verifyScalarOrShape(*this, name, rankedType(bound),
                                   operandType.getShape(), "the operand")))
      return failure();
  return verifyType(*this, "result type", operandType, getOutput().getType(),
                    "the operand's");
}

//===----------------------------------------------------------------------===//
// Contractions, reductions, sorting, indexing
//===----------------------------------------------------------------------===//

LogicalResult DotGeneralOp::verify() {
  RankedTensorType lhsType = rankedType(getLhs());
  RankedTensorType rhsType = rankedType(getRhs());
  ArrayRef<int64_t> lhsBatch = getLhsBatchDims(), rhsBatch = getRhsBatchDims();
  ArrayRef<int64_t> lhsContracting = getLhsContractingDims(),
                    rhsContracting = getRhsContractingDims();
  struct Pairing {
    StringRef kind;
    ArrayRef<int64_t> lhs, rhs;
  };
  for (const Pairing &pairing :
       {Pairing{"batch", lhsBatch, rhsBatch},
        Pairing{"contracting", lhsContracting, rhsContracting}})
    if (pairing.lhs.size() != pairing.rhs.size())
      return emitOpError() << "lhs_" << pairing.kind << "_dims and rhs_"
                           << pairing.kind
                           << "_dims must have the same length, got "
                           << formatDims(pairing.lhs) << " and "
                           << formatDims(pairing.rhs);
  SmallVector<int64_t> lhsPaired(lhsBatch), rhsPaired(rhsBatch);
  llvm::append_range(lhsPaired, lhsContracting);
  llvm::append_range(rhsPaired, rhsContracting);
  if (failed(verifyDims(*this, "lhs_batch_dims and lhs_contracting_dims",
                        lhsPaired, lhsType.getRank())) ||
      failed(verifyDims(*this, "rhs_batch_dims and rhs_contracting_dims",
                        rhsPaired, rhsType.getRank())))
    return failure();
  for (auto [i, lhsDim, rhsDim] : llvm::enumerate(lhsPaired, rhsPaired)) {
    int64_t lhsSize = lhsType.getDimSize(lhsDim);
    int64_t rhsSize = rhsType.getDimSize(rhsDim);
    if (!dimsAgree(lhsSize, rhsSize))
      return emitOpError() << (i < lhsBatch.size() ? "batch" : "contracting")
                           << " dimension sizes must match, got lhs dimension "
                           << lhsDim << " of size " << lhsSize
                           << " and rhs dimension " << rhsDim << " of size "
                           << rhsSize;
  }
  // Result: batch dimensions, then lhs free dimensions, then rhs free ones.
  SmallVector<int64_t> shape;
  for (auto [lhsDim, rhsDim] : llvm::zip_equal(lhsBatch, rhsBatch)) {
    int64_t size = lhsType.getDimSize(lhsDim);
    shape.push_back(ShapedType::isDynamic(size) ? rhsType.getDimSize(rhsDim)
                                                : size);
  }
  for (auto [type, paired] : {std::pair(lhsType, ArrayRef<int64_t>(lhsPaired)),
                              std::pair(rhsType, ArrayRef<int64_t>(rhsPaired))})
    for (int64_t d = 0, e = type.getRank(); d < e; ++d)
      if (!llvm::is_contained(paired, d))
        shape.push_back(type.getDimSize(d));
  return verifyShape(*this, "result shape", shape,
                     rankedType(getOutput()).getShape(),
                     "batch, lhs free, rhs free dimensions");
}

LogicalResult ReduceOp::verify() {
  FailureOr<RankedTensorType> inputType =
      verifySameShapes(*this, getInputs(), "input");
  if (failed(inputType) ||
      failed(verifyDims(*this, "dimensions", getDimensions(),
                        inputType->getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0, e = inputType->getRank(); d < e; ++d)
    if (!llvm::is_contained(getDimensions(), d))
      shape.push_back(inputType->getDimSize(d));
  return verifyReduction(*this, getInputs(), getInitValues(), shape,
                         getToApply());
}

LogicalResult ReduceWindowOp::verify() {
  FailureOr<RankedTensorType> inputType =
      verifySameShapes(*this, getInputs(), "input");
  if (failed(inputType))
    return failure();
  int64_t rank = inputType->getRank();
  ArrayRef<int64_t> window = getWindowDimensions(),
                    strides = getWindowStrides(),
                    baseDilations = getBaseDilations(),
                    windowDilations = getWindowDilations(),
                    low = getPaddingLow(), high = getPaddingHigh();
  std::pair<StringRef, ArrayRef<int64_t>> lists[] = {
      {"window_dimensions", window},
      {"window_strides", strides},
      {"base_dilations", baseDilations},
      {"window_dilations", windowDilations},
      {"padding_low", low},
      {"padding_high", high}};
  for (auto [name, list] : lists)
    if (failed(verifyDimsSize(*this, name, list.size(), rank,
                              "one entry per input dimension")))
      return failure();
  // Window sizes, strides and dilations must be positive; padding may be
  // anything, as XLA's window rule below allows.
  for (auto [name, list] : ArrayRef(lists).take_front(4))
    if (llvm::any_of(list, [](int64_t value) { return value < 1; }))
      return emitOpError() << name << " must be >= 1, got " << formatDims(list);
  // XLA's window shape rule: dilate the base and the window, pad the base,
  // then count the strided positions where the window fits.
  auto dilate = [](int64_t size, int64_t dilation) {
    return size == 0 ? 0 : 1 + dilation * (size - 1);
  };
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = inputType->getDimSize(i);
    if (ShapedType::isDynamic(size)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t base = low[i] + dilate(size, baseDilations[i]) + high[i];
    int64_t span = dilate(window[i], windowDilations[i]);
    shape.push_back(span > base ? 0 : (base - span) / strides[i] + 1);
  }
  return verifyReduction(*this, getInputs(), getInitValues(), shape,
                         getToApply());
}

LogicalResult SortOp::verify() {
  FailureOr<RankedTensorType> inputType =
      verifySameShapes(*this, getInputs(), "input");
  if (failed(inputType))
    return failure();
  FailureOr<int64_t> dim = getSingleDim(*this, getDimensions());
  if (failed(dim) ||
      failed(
          verifyDimIndex(*this, "dimensions[0]", *dim, inputType->getRank())) ||
      failed(verifyTypes(*this, "result types", getInputs().getTypes(),
                         getResultTypes())))
    return failure();
  // The comparator takes (lhs, rhs) scalars of each input in turn.
  SmallVector<Type> args;
  for (Value input : getInputs())
    args.append(2, scalarOf(rankedType(input).getElementType()));
  return verifyRegion(*this, getToApply(), "to_apply", args,
                      {scalarOf(IntegerType::get(getContext(), 1))});
}

LogicalResult TopKOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  FailureOr<RankedTensorType> indicesType =
      requireRanked(*this, "indices", getIndices().getType());
  if (failed(indicesType))
    return failure();
  if (operandType.getRank() == 0)
    return emitOpError() << "operand must have rank >= 1, got " << operandType;
  int64_t k = getKAttr().getInt();
  int64_t last = operandType.getShape().back();
  if (k < 0 || (!ShapedType::isDynamic(last) && k > last))
    return emitOpError() << "k must be in [0, " << formatDim(last)
                         << "] (the last operand dimension), got " << k;
  SmallVector<int64_t> shape(operandType.getShape());
  shape.back() = k;
  if (failed(
          verifyType(*this, "values type",
                     RankedTensorType::get(shape, operandType.getElementType()),
                     getValues().getType(), "the operand's with k last")))
    return failure();
  return verifyShape(*this, "indices shape", shape, indicesType->getShape(),
                     "the values shape");
}

LogicalResult GatherOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  FailureOr<RankedTensorType> indicesType =
      requireRanked(*this, "start_indices", getStartIndices().getType());
  if (failed(indicesType))
    return failure();
  int64_t operandRank = operandType.getRank();
  int64_t indexVectorDim = getIndexVectorDimAttr().getInt();
  ArrayRef<int64_t> collapsed = getCollapsedSliceDims(),
                    batching = getOperandBatchingDims(),
                    sliceSizes = getSliceSizes(), offsetDims = getOffsetDims();
  IndexDims dims{"start_indices",
                 "collapsed_slice_dims",
                 collapsed,
                 "operand_batching_dims",
                 batching,
                 "start_indices_batching_dims",
                 getStartIndicesBatchingDims(),
                 "start_index_map",
                 getStartIndexMap(),
                 indexVectorDim};
  if (failed(verifyIndexDims(*this, dims, operandType, *indicesType)) ||
      failed(verifyDimsSize(*this, "slice_sizes", sliceSizes.size(),
                            operandRank, "one entry per operand dimension")))
    return failure();
  SmallVector<int64_t> offsetSizes;
  for (auto [i, size] : llvm::enumerate(sliceSizes)) {
    int64_t dim = operandType.getDimSize(i);
    if (size < 0 || (!ShapedType::isDynamic(dim) && size > dim))
      return emitOpError() << "slice_sizes[" << i << "] must be in [0, "
                           << formatDim(dim)
                           << "] (the operand dimension), got " << size;
    bool dropped = llvm::is_contained(collapsed, static_cast<int64_t>(i)) ||
                   llvm::is_contained(batching, static_cast<int64_t>(i));
    if (dropped && size > 1)
      return emitOpError() << "slice_sizes[" << i
                           << "] must be 0 or 1 for a collapsed or batching "
                              "dimension, got "
                           << size;
    if (!dropped)
      offsetSizes.push_back(size);
  }
  if (failed(verifyDimsSize(*this, "offset_dims", offsetDims.size(),
                            offsetSizes.size(),
                            "one entry per operand dimension neither "
                            "collapsed nor batching")))
    return failure();
  // Result: offset_dims take the slice sizes, the other dimensions take the
  // indices' batch dimensions, each in order.
  SmallVector<int64_t> batchShape =
      indicesBatchShape(*indicesType, indexVectorDim);
  int64_t resultRank = batchShape.size() + offsetDims.size();
  if (failed(verifyDims(*this, "offset_dims", offsetDims, resultRank,
                        /*sorted=*/true)))
    return failure();
  SmallVector<int64_t> shape;
  auto nextOffset = offsetSizes.begin(), nextBatch = batchShape.begin();
  for (int64_t d = 0; d < resultRank; ++d)
    shape.push_back(llvm::is_contained(offsetDims, d) ? *nextOffset++
                                                      : *nextBatch++);
  return verifyType(*this, "result type",
                    RankedTensorType::get(shape, operandType.getElementType()),
                    getOutput().getType(),
                    "indices batch dimensions with slices at offset_dims");
}

LogicalResult ScatterOp::verify() {
  FailureOr<RankedTensorType> inputType =
      verifySameShapes(*this, getInputs(), "input");
  if (failed(inputType))
    return failure();
  FailureOr<RankedTensorType> updateType =
      verifySameShapes(*this, getUpdates(), "update");
  FailureOr<RankedTensorType> indicesType =
      requireRanked(*this, "scatter_indices", getScatterIndices().getType());
  if (failed(updateType) || failed(indicesType) ||
      failed(verifyTypes(*this, "result types", getInputs().getTypes(),
                         getResultTypes())))
    return failure();
  int64_t indexVectorDim = getIndexVectorDimAttr().getInt();
  ArrayRef<int64_t> inserted = getInsertedWindowDims(),
                    batching = getInputBatchingDims(),
                    windowDims = getUpdateWindowDims();
  IndexDims dims{"scatter_indices",
                 "inserted_window_dims",
                 inserted,
                 "input_batching_dims",
                 batching,
                 "scatter_indices_batching_dims",
                 getScatterIndicesBatchingDims(),
                 "scatter_dims_to_operand_dims",
                 getScatterDimsToOperandDims(),
                 indexVectorDim};
  if (failed(verifyIndexDims(*this, dims, *inputType, *indicesType)) ||
      failed(verifyDims(*this, "update_window_dims", windowDims,
                        updateType->getRank(), /*sorted=*/true)))
    return failure();
  SmallVector<int64_t> windowInputDims;
  for (int64_t d = 0, e = inputType->getRank(); d < e; ++d)
    if (!llvm::is_contained(inserted, d) && !llvm::is_contained(batching, d))
      windowInputDims.push_back(d);
  if (failed(verifyDimsSize(*this, "update_window_dims", windowDims.size(),
                            windowInputDims.size(),
                            "one entry per input dimension neither "
                            "inserted nor batching")))
    return failure();
  SmallVector<int64_t> batchShape =
      indicesBatchShape(*indicesType, indexVectorDim);
  int64_t updateRank = batchShape.size() + windowDims.size();
  if (updateType->getRank() != updateRank)
    return emitOpError() << "updates must have rank " << updateRank
                         << " (update_window_dims plus the scatter_indices "
                            "batch dimensions), got "
                         << *updateType;
  // Update window dimensions index into the input, the others follow the
  // indices' batch dimensions.
  auto nextWindow = windowInputDims.begin(), nextBatch = batchShape.begin();
  for (int64_t d = 0; d < updateRank; ++d) {
    int64_t size = updateType->getDimSize(d);
    if (llvm::is_contained(windowDims, d)) {
      int64_t inputDim = *nextWindow++;
      int64_t bound = inputType->getDimSize(inputDim);
      if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(bound) &&
          size > bound)
        return emitOpError() << "update dimension " << d << " (size " << size
                             << ") must not exceed input dimension " << inputDim
                             << " (size " << bound << ")";
    } else if (int64_t batch = *nextBatch++; !dimsAgree(size, batch)) {
      return emitOpError() << "update dimension " << d << " (size " << size
                           << ") must equal the scatter_indices batch "
                              "dimension of size "
                           << batch;
    }
  }
  // The combiner takes (current..., update...) scalars and returns the new
  // input elements; XLA ignores float precision here as for reduce.
  SmallVector<Type> args, results;
  for (auto [i, input, update] : llvm::enumerate(getInputs(), getUpdates())) {
    Type inputElement = rankedType(input).getElementType();
    if (failed(verifyElementType(*this, "update " + Twine(i) + " element type",
                                 inputElement, update.getType(),
                                 "input " + Twine(i) + "'s",
                                 TypeMatch::IgnoreFpPrecision)))
      return failure();
    results.push_back(scalarOf(inputElement));
  }
  args.append(results);
  for (Value update : getUpdates())
    args.push_back(scalarOf(rankedType(update).getElementType()));
  return verifyRegion(*this, getToApply(), "to_apply", args, results,
                      TypeMatch::IgnoreFpPrecision);
}

LogicalResult BatchNormTrainingOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  if (failed(verifyBatchNorm(*this, operandType, getFeatureIndexAttr().getInt(),
                             {{"scale", getScale().getType()},
                              {"offset", getOffset().getType()},
                              {"batch_mean", getBatchMean().getType()},
                              {"batch_var", getBatchVar().getType()}})))
    return failure();
  return verifyType(*this, "output type", operandType, getOutput().getType(),
                    "the operand's");
}

LogicalResult BatchNormInferenceOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  if (failed(verifyBatchNorm(*this, operandType, getFeatureIndexAttr().getInt(),
                             {{"scale", getScale().getType()},
                              {"offset", getOffset().getType()},
                              {"mean", getMean().getType()},
                              {"variance", getVariance().getType()}})))
    return failure();
  return verifyType(*this, "output type", operandType, getOutput().getType(),
                    "the operand's");
}

LogicalResult BatchNormGradOp::verify() {
  RankedTensorType operandType = rankedType(getOperand());
  if (failed(verifyBatchNorm(*this, operandType, getFeatureIndexAttr().getInt(),
                             {{"scale", getScale().getType()},
                              {"mean", getMean().getType()},
                              {"variance", getVariance().getType()},
                              {"grad_scale", getGradScale().getType()},
                              {"grad_offset", getGradOffset().getType()}})) ||
      failed(verifyType(*this, "grad_output type", operandType,
                        getGradOutput().getType(), "the operand's")))
    return failure();
  return verifyType(*this, "grad_operand type", operandType,
                    getGradOperand().getType(), "the operand's");
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

LogicalResult RngOp::verify() {
  StringRef distribution = getDistribution();
  if (failed(verifyOneOf(*this, "distribution", distribution,
                         {"rng_uniform", "rng_normal"})))
    return failure();
  Type element = rankedType(getOutput()).getElementType();
  for (auto [name, bound] :
       {std::pair(StringRef("a"), getA()), std::pair(StringRef("b"), getB())})
    if (failed(verifyType(*this, name + " type", scalarOf(element),
                          bound.getType(),
                          "a scalar of the result's element type")))
      return failure();
  if (distribution == "rng_normal")
    return requireFloat(*this, "rng_normal result", getOutput().getType());
  return success();
}

LogicalResult RngBitGeneratorOp::verify() {
  if (failed(verifyOneOf(*this, "algorithm", getAlgorithm(),
                         {"rng_default", "rng_three_fry", "rng_philox"})))
    return failure();
  RankedTensorType stateType = rankedType(getInitialState());
  if (stateType.getRank() != 1)
    return emitOpError() << "initial_state must be 1-D, got " << stateType;
  return verifyType(*this, "output_state type", stateType,
                    getOutputState().getType(), "the initial_state's");
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult WhileOp::verify() {
  TypeRange types = getOperands().getTypes();
  if (failed(verifyTypes(*this, "result types", types, getResultTypes())) ||
      failed(verifyRegion(*this, getCondition(), "condition", types,
                          {scalarOf(IntegerType::get(getContext(), 1))})))
    return failure();
  return verifyRegion(*this, getBody(), "body", types, types);
}

LogicalResult ConditionalOp::verify() {
  size_t numBranches = getBranches().size();
  if (getIndex().getType().getElementType().isInteger(1) && numBranches != 2)
    return emitOpError() << "expects 2 branches with a tensor<i1> index, got "
                         << numBranches;
  if (numBranches == 0)
    return emitOpError() << "expects at least one branch";
  ArrayRef<int64_t> counts = getBranchOperandCounts();
  if (failed(verifyDimsSize(*this, "branch_operand_counts", counts.size(),
                            numBranches, "one entry per branch")))
    return failure();
  if (llvm::any_of(counts, [](int64_t count) { return count < 0; }))
    return emitOpError() << "branch_operand_counts must be non-negative, got "
                         << formatDims(counts);
  size_t numOperands = getBranchOperands().size();
  if (static_cast<size_t>(std::accumulate(counts.begin(), counts.end(),
                                          int64_t(0))) != numOperands)
    return emitOpError() << "branch_operand_counts must add up to the "
                         << numOperands << " branch operands, got "
                         << formatDims(counts);
  TypeRange operandTypes = getBranchOperands().getTypes();
  for (auto [i, branch, count] : llvm::enumerate(getBranches(), counts)) {
    if (failed(verifyRegion(*this, branch, "branches[" + Twine(i) + "]",
                            operandTypes.take_front(count), getResultTypes())))
      return failure();
    operandTypes = operandTypes.drop_front(count);
  }
  return success();
}

LogicalResult AnnotateOp::verify() {
  if (getHloOpcode() != "tuple" && getHloOpcode() != "get-tuple-element" &&
      getHloOpcode() != "parameter")
    return emitOpError("hlo_opcode must be 'tuple', 'get-tuple-element' or "
                       "'parameter', got '")
           << getHloOpcode() << "'";
  // A region's parameter: the annotated values are the block's arguments.
  if (getHloOpcode() == "parameter" &&
      !llvm::all_of(getOperands(), [&](Value operand) {
        auto arg = dyn_cast<BlockArgument>(operand);
        return arg && arg.getOwner() == (*this)->getBlock();
      }))
    return emitOpError("with hlo_opcode 'parameter' annotates only the "
                       "arguments of its own block");
  if (getOperandTypes() != getResultTypes())
    return emitOpError("result types must equal the operand types");
  return success();
}

LogicalResult OptimizationBarrierOp::verify() {
  return verifyTypes(*this, "result types", getOperands().getTypes(),
                     getResultTypes());
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::verify() {
  if (failed(verifyReplicaGroups(*this, getReplicaGroups())) ||
      failed(verifyCollectiveArity(*this, getOperands())) ||
      failed(verifyTypes(*this, "result types", getOperands().getTypes(),
                         getResultTypes())))
    return failure();
  // One scalar reducer combines the elements of every operand.
  RankedTensorType scalar =
      scalarOf(rankedType(getOperands().front()).getElementType());
  return verifyRegion(*this, getToApply(), "to_apply", {scalar, scalar},
                      {scalar}, TypeMatch::IgnoreFpPrecision);
}

LogicalResult AllGatherOp::verify() {
  return verifyShardedCollective(*this, getOperands(), getDimensions(),
                                 getReplicaGroups(), getChannelId().has_value(),
                                 getUseGlobalDeviceIds(), /*gather=*/true);
}

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyShardedCollective(
          *this, getOperands(), getDimensions(), getReplicaGroups(),
          getChannelId().has_value(), getUseGlobalDeviceIds(),
          /*gather=*/false)))
    return failure();
  RankedTensorType scalar =
      scalarOf(rankedType(getOperands().front()).getElementType());
  return verifyRegion(*this, getToApply(), "to_apply", {scalar, scalar},
                      {scalar}, TypeMatch::IgnoreFpPrecision);
}

LogicalResult AllToAllOp::verify() {
  FailureOr<int64_t> groupSize = verifyReplicaGroups(*this, getReplicaGroups());
  if (failed(groupSize) ||
      failed(verifyCollectiveArity(*this, getOperands())) ||
      failed(verifyTypes(*this, "result types", getOperands().getTypes(),
                         getResultTypes())))
    return failure();
  // Without dimensions (HLO's tuple form) each operand is sent whole.
  ArrayRef<int64_t> dims = getDimensions();
  if (dims.empty())
    return success();
  FailureOr<int64_t> dim = getSingleDim(*this, dims);
  if (failed(dim))
    return failure();
  for (auto [i, operand] : llvm::enumerate(getOperands())) {
    RankedTensorType type = rankedType(operand);
    if (failed(verifyDimIndex(*this, "dimensions[0]", *dim, type.getRank())) ||
        (*groupSize &&
         failed(verifyDivisible(*this, i, type, *dim, *groupSize))))
      return failure();
  }
  return success();
}

LogicalResult CollectivePermuteOp::verify() {
  DenseIntElementsAttr pairs = getSourceTargetPairs();
  auto type = cast<ShapedType>(pairs.getType());
  if (type.getNumElements() != 0 &&
      (type.getRank() != 2 || type.getDimSize(1) != 2))
    return emitOpError() << "source_target_pairs must have shape Nx2, got "
                         << type;
  // Each replica sends at most once and receives at most once.
  SmallVector<int64_t> values(pairs.getValues<int64_t>());
  const char *roles[] = {"source", "target"};
  for (auto [column, role] : llvm::enumerate(roles)) {
    auto ids = llvm::map_range(
        llvm::seq<size_t>(0, values.size() / 2),
        [&, column = column](size_t row) { return values[2 * row + column]; });
    if (std::optional<int64_t> dup = findDuplicate(ids))
      return emitOpError() << "source_target_pairs must not repeat a " << role
                           << ", got " << *dup << " twice";
  }
  return verifyType(*this, "result type", getOperand().getType(),
                    getOutput().getType(), "the operand's");
}

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"
