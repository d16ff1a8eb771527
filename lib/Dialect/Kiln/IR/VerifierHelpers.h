//===- VerifierHelpers.h - shape rules shared by kiln verifiers -*- C++ -*-===//
//
// This file holds the checks that the verifiers of every op family share:
// type and shape agreement (a dynamic size agrees with any), dimension lists,
// enumerations, regions as typed sub-computations, reductions, replica
// groups and index dimensions. The verifiers live in one file per op family
// (KilnOps.cpp, WindowOps.cpp, ComplexOps.cpp, ...); the rules live here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_KILN_IR_VERIFIERHELPERS_H
#define KILN_LIB_DIALECT_KILN_IR_VERIFIERHELPERS_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <optional>

namespace kiln {
namespace verify {
using namespace mlir;

//===----------------------------------------------------------------------===//
// Helpers shared by the verifiers
//===----------------------------------------------------------------------===//

/// How strictly a type must match the one HLO's shape rules give. XLA's
/// reducer checks (reduce, reduce-window, scatter, all-reduce,
/// reduce-scatter) ignore floating-point precision, so that a bf16 reduction
/// may accumulate in f32; everywhere else types must be equal.
enum class TypeMatch { Exact, IgnoreFpPrecision };

/// Formats one dimension size, `?` for a dynamic one, so that messages never
/// show the sentinel value that stands for it.
inline std::string formatDim(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

/// Formats a shape or a list of dimension numbers as "[2, ?, 3]".
inline std::string formatDims(ArrayRef<int64_t> dims) {
  std::string text = "[";
  llvm::interleave(
      dims, [&](int64_t dim) { text += formatDim(dim); },
      [&] { text += ", "; });
  return text + "]";
}

/// Formats a list of types as "(tensor<f32>, !kiln.token)". Streamed into a
/// diagnostic one by one, each type would get its own quotes.
inline std::string formatTypes(TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '(';
  llvm::interleaveComma(types, os);
  os << ')';
  return text;
}

/// Whether two dimension sizes can be the same: a dynamic size agrees with
/// any other.
inline bool dimsAgree(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs) || lhs == rhs;
}

/// Whether element types `expected` and `actual` agree under `match`.
inline bool elementTypesAgree(Type expected, Type actual, TypeMatch match) {
  return expected == actual ||
         (match == TypeMatch::IgnoreFpPrecision && isa<FloatType>(expected) &&
          isa<FloatType>(actual));
}

/// Whether `actual` can be the type that HLO's rules give (`expected`): the
/// same type, up to dynamic dimensions and, under `match`, float precision.
/// Tokens agree only with tokens.
inline bool typesAgree(Type expected, Type actual,
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
inline RankedTensorType rankedType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// A rank-0 tensor of `elementType`: HLO's scalars (reducer arguments, init
/// values, rng bounds) are rank-0 tensors here.
inline RankedTensorType scalarOf(Type elementType) {
  return RankedTensorType::get({}, elementType);
}

/// Appends " (why)" when there is a reason to give.
inline void appendWhy(InFlightDiagnostic &diag, const Twine &why) {
  if (!why.isTriviallyEmpty())
    diag << " (" << why << ")";
}

/// Checks that `actual` is `expected`, the type that HLO's shape rules give;
/// `what` names the checked value and `why` the rule.
inline LogicalResult verifyType(Operation *op, const Twine &what, Type expected,
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
inline LogicalResult verifyTypes(Operation *op, const Twine &what,
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
inline LogicalResult verifyShape(Operation *op, const Twine &what,
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
inline LogicalResult verifyElementType(Operation *op, const Twine &what,
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
inline FailureOr<RankedTensorType> requireRanked(Operation *op, StringRef name,
                                                 Type type) {
  if (auto ranked = dyn_cast<RankedTensorType>(type))
    return ranked;
  return op->emitOpError() << name << " must be a ranked tensor, got " << type;
}

/// Checks that a value has a floating-point element type, for ops that HLO
/// defines on floats only.
inline LogicalResult requireFloat(Operation *op, StringRef name, Type type) {
  if (isa<FloatType>(getElementTypeOrSelf(type)))
    return success();
  return op->emitOpError() << name << " must have a float element type, got "
                           << type;
}

/// Checks a single dimension number (iota_dimension, feature_index, the
/// concatenation dimension) against the rank it indexes.
inline LogicalResult verifyDimIndex(Operation *op, const Twine &name,
                                    int64_t dim, int64_t rank) {
  if (dim >= 0 && dim < rank)
    return success();
  return op->emitOpError() << name << " must be in [0, " << rank << "), got "
                           << dim;
}

/// Checks the length of a per-dimension attribute; `rule` says what each
/// entry stands for ("one entry per operand dimension").
inline LogicalResult verifyDimsSize(Operation *op, StringRef name, size_t size,
                                    int64_t expected, StringRef rule) {
  if (static_cast<int64_t>(size) == expected)
    return success();
  return op->emitOpError() << name << " must have " << rule << " (" << expected
                           << "), got " << size;
}

/// Whether every entry of `dims` is in [0, bound) and none repeats.
inline bool allUniqueInRange(ArrayRef<int64_t> dims, int64_t bound) {
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
inline LogicalResult verifyDims(Operation *op, const Twine &name,
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
inline LogicalResult verifyPermutation(Operation *op, StringRef name,
                                       ArrayRef<int64_t> dims, int64_t rank) {
  if (static_cast<int64_t>(dims.size()) == rank && allUniqueInRange(dims, rank))
    return success();
  return op->emitOpError() << name << " must be a permutation of [0, " << rank
                           << "), got " << formatDims(dims);
}

/// Checks that two dimension lists of one operand share no dimension: a
/// dimension cannot be both collapsed and a batch dimension, for example.
inline LogicalResult verifyDisjoint(Operation *op, StringRef lhsName,
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
inline FailureOr<int64_t> getSingleDim(Operation *op, ArrayRef<int64_t> dims) {
  if (dims.size() == 1)
    return dims.front();
  return op->emitOpError() << "dimensions must have exactly one entry, got "
                           << formatDims(dims);
}

/// Checks that `value` is one of the names HLO spells for an enumeration
/// (comparison direction, rng distribution, ...).
inline LogicalResult verifyOneOf(Operation *op, StringRef name, StringRef value,
                                 ArrayRef<StringRef> allowed) {
  if (llvm::is_contained(allowed, value))
    return success();
  return op->emitOpError() << name << " must be one of "
                           << llvm::join(allowed, ", ") << ", got '" << value
                           << "'";
}

/// Checks that a variadic op has at least one of what it folds, sorts or
/// combines: HLO's shape rules start from the first one.
inline LogicalResult requireNonEmpty(Operation *op, ValueRange values,
                                     StringRef what) {
  if (!values.empty())
    return success();
  return op->emitOpError() << "expects at least one " << what;
}

/// Checks that all of `values` (the inputs of a variadic reduce or sort)
/// have the shape of the first, and returns the first's type.
inline FailureOr<RankedTensorType>
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
inline LogicalResult verifyScalarOrShape(Operation *op, StringRef name,
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
inline LogicalResult verifyRegion(Operation *op, Region &region,
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
inline LogicalResult verifyReduction(Operation *op, ValueRange inputs,
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
std::optional<int64_t> findDuplicate(Range &&values) {
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
inline FailureOr<int64_t> verifyReplicaGroups(Operation *op,
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
inline LogicalResult verifyDivisible(Operation *op, size_t operandIndex,
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
inline LogicalResult verifyCollectiveArity(Operation *op, ValueRange operands) {
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
inline LogicalResult verifyShardedCollective(Operation *op, ValueRange operands,
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
inline LogicalResult verifyIndexDims(Operation *op, const IndexDims &dims,
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
inline SmallVector<int64_t> indicesBatchShape(RankedTensorType indices,
                                              int64_t indexVectorDim) {
  SmallVector<int64_t> shape(indices.getShape());
  if (indexVectorDim < indices.getRank())
    shape.erase(shape.begin() + indexVectorDim);
  return shape;
}

/// Checks what the three batch-norm ops share: the operand is float,
/// feature_index names one of its dimensions, and every per-feature value
/// (scale, offset, mean, ...) is 1-D of that dimension's size.
inline LogicalResult
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
inline int64_t bitWidth(Type elementType) {
  if (auto complex = dyn_cast<ComplexType>(elementType))
    return 2 * bitWidth(complex.getElementType());
  // A quantized element is stored as its storage type.
  if (auto quantized = dyn_cast<quant::QuantizedType>(elementType))
    return bitWidth(quantized.getStorageType());
  return elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 0;
}

/// Checks the start index operands of dynamic_slice and dynamic_update_slice:
/// one scalar per operand dimension, all of one type as HLO requires.
inline LogicalResult verifyStartIndices(Operation *op, ValueRange indices,
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


/// Checks what all-reduce and all-reduce-start share: replica groups, one
/// result of its operand's type per operand, and one scalar reducer that
/// combines the elements of every operand.
inline LogicalResult verifyAllReduce(Operation *op, ValueRange operands,
                                     DenseIntElementsAttr replicaGroups,
                                     Region &reducer) {
  if (failed(verifyReplicaGroups(op, replicaGroups)) ||
      failed(verifyCollectiveArity(op, operands)) ||
      failed(verifyTypes(op, "result types", operands.getTypes(),
                         op->getResultTypes())))
    return failure();
  RankedTensorType scalar =
      scalarOf(rankedType(operands.front()).getElementType());
  return verifyRegion(op, reducer, "to_apply", {scalar, scalar}, {scalar},
                      TypeMatch::IgnoreFpPrecision);
}

/// Checks the dimension numbers of a dot (dot_general, ragged_dot,
/// scaled_dot): batch and contracting lists of equal length, unique, in
/// range, of matching sizes; returns the result shape: batch dimensions,
/// then lhs free dimensions, then rhs free ones. `rhsExcluded` lists rhs
/// dimensions that are neither free nor paired (ragged_dot's group
/// dimension).
inline FailureOr<SmallVector<int64_t>>
verifyDotDimensions(Operation *op, RankedTensorType lhsType,
                    RankedTensorType rhsType, ArrayRef<int64_t> lhsBatchDims,
                    ArrayRef<int64_t> lhsContractingDims,
                    ArrayRef<int64_t> rhsBatchDims,
                    ArrayRef<int64_t> rhsContractingDims,
                    ArrayRef<int64_t> rhsExcluded = {}) {
  ArrayRef<int64_t> lhsBatch = lhsBatchDims, rhsBatch = rhsBatchDims;
  ArrayRef<int64_t> lhsContracting = lhsContractingDims,
                    rhsContracting = rhsContractingDims;
  struct Pairing {
    StringRef kind;
    ArrayRef<int64_t> lhs, rhs;
  };
  for (const Pairing &pairing :
       {Pairing{"batch", lhsBatch, rhsBatch},
        Pairing{"contracting", lhsContracting, rhsContracting}})
    if (pairing.lhs.size() != pairing.rhs.size())
      return op->emitOpError() << "lhs_" << pairing.kind << "_dims and rhs_"
                           << pairing.kind
                           << "_dims must have the same length, got "
                           << formatDims(pairing.lhs) << " and "
                           << formatDims(pairing.rhs);
  SmallVector<int64_t> lhsPaired(lhsBatch), rhsPaired(rhsBatch);
  llvm::append_range(lhsPaired, lhsContracting);
  llvm::append_range(rhsPaired, rhsContracting);
  if (failed(verifyDims(op, "lhs_batch_dims and lhs_contracting_dims",
                        lhsPaired, lhsType.getRank())) ||
      failed(verifyDims(op, "rhs_batch_dims and rhs_contracting_dims",
                        rhsPaired, rhsType.getRank())))
    return failure();
  for (auto [i, lhsDim, rhsDim] : llvm::enumerate(lhsPaired, rhsPaired)) {
    int64_t lhsSize = lhsType.getDimSize(lhsDim);
    int64_t rhsSize = rhsType.getDimSize(rhsDim);
    if (!dimsAgree(lhsSize, rhsSize))
      return op->emitOpError() << (i < lhsBatch.size() ? "batch" : "contracting")
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
  llvm::append_range(rhsPaired, rhsExcluded);
  for (auto [type, paired] : {std::pair(lhsType, ArrayRef<int64_t>(lhsPaired)),
                              std::pair(rhsType, ArrayRef<int64_t>(rhsPaired))})
    for (int64_t d = 0, e = type.getRank(); d < e; ++d)
      if (!llvm::is_contained(paired, d))
        shape.push_back(type.getDimSize(d));
  return shape;
}

/// The window attributes of reduce_window, select_and_scatter and
/// convolution, one entry per windowed dimension.
struct Window {
  ArrayRef<int64_t> dimensions, strides, baseDilations, windowDilations,
      paddingLow, paddingHigh;
};

/// The window attributes of any windowed op (reduce_window,
/// select_and_scatter, convolution): they share the attribute names.
template <typename WindowedOp> Window windowOf(WindowedOp op) {
  return Window{op.getWindowDimensions(), op.getWindowStrides(),
                op.getBaseDilations(),    op.getWindowDilations(),
                op.getPaddingLow(),       op.getPaddingHigh()};
}


/// Checks that every window attribute has `rank` entries (`rule` says per
/// what) and that sizes, strides and dilations are positive; padding may be
/// anything, as XLA's window rule allows.
inline LogicalResult verifyWindow(Operation *op, const Window &window,
                                  int64_t rank, StringRef rule) {
  std::pair<StringRef, ArrayRef<int64_t>> lists[] = {
      {"window_dimensions", window.dimensions},
      {"window_strides", window.strides},
      {"base_dilations", window.baseDilations},
      {"window_dilations", window.windowDilations},
      {"padding_low", window.paddingLow},
      {"padding_high", window.paddingHigh}};
  for (auto [name, list] : lists)
    if (failed(verifyDimsSize(op, name, list.size(), rank, rule)))
      return failure();
  for (auto [name, list] : ArrayRef(lists).take_front(4))
    if (llvm::any_of(list, [](int64_t value) { return value < 1; }))
      return op->emitOpError()
             << name << " must be >= 1, got " << formatDims(list);
  return success();
}

/// XLA's window shape rule for one dimension of size `size`: dilate the base
/// and the window, pad the base, then count the strided positions where the
/// window fits. None when the arithmetic overflows 64 bits (a malformed
/// window: no real graph comes near).
inline std::optional<int64_t> windowedSize(int64_t size, const Window &window,
                                           size_t i) {
  if (ShapedType::isDynamic(size))
    return ShapedType::kDynamic;
  auto dilate = [](int64_t extent,
                   int64_t dilation) -> std::optional<int64_t> {
    if (extent == 0)
      return 0;
    std::optional<int64_t> scaled = llvm::checkedMul(dilation, extent - 1);
    return scaled ? llvm::checkedAdd(*scaled, int64_t(1)) : std::nullopt;
  };
  std::optional<int64_t> dilatedBase = dilate(size, window.baseDilations[i]);
  std::optional<int64_t> span =
      dilate(window.dimensions[i], window.windowDilations[i]);
  if (!dilatedBase || !span)
    return std::nullopt;
  std::optional<int64_t> padded =
      llvm::checkedAdd(window.paddingLow[i], *dilatedBase);
  std::optional<int64_t> base =
      padded ? llvm::checkedAdd(*padded, window.paddingHigh[i]) : std::nullopt;
  if (!base)
    return std::nullopt;
  if (*span > *base)
    return 0;
  std::optional<int64_t> room = llvm::checkedSub(*base, *span);
  if (!room)
    return std::nullopt;
  return *room / window.strides[i] + 1;
}

/// windowedSize for every dimension, or an error naming the one whose
/// arithmetic overflows.
inline FailureOr<SmallVector<int64_t>>
windowedShape(Operation *op, llvm::ArrayRef<int64_t> sizes,
              const Window &window) {
  SmallVector<int64_t> shape;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::optional<int64_t> size = windowedSize(sizes[i], window, i);
    if (!size)
      return op->emitOpError()
             << "window of dimension " << i
             << " overflows 64-bit sizes (size, padding, dilation)";
    shape.push_back(*size);
  }
  return shape;
}

} // namespace verify
} // namespace kiln

#endif // KILN_LIB_DIALECT_KILN_IR_VERIFIERHELPERS_H
