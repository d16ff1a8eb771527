//===- Collectives.cpp - collectives as calls into the runtime --*- C++ -*-===//
//
// This file lowers kiln's collectives (all_reduce, all_gather,
// reduce_scatter, all_to_all, collective_permute, collective_broadcast) and
// partition_id/replica_id to calls of kiln's runtime collective interface
// (include/kiln/Runtime/RuntimeAbi.h): the operand is copied into a
// buffer of its own, the runtime writes the result's buffer from every
// participant's operand, and the result is that buffer as a tensor. The
// runtime decides who the participants are (threads of one process today;
// a multi-process transport can implement the same calls); with one
// participant every collective is a copy.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Runtime/RuntimeAbi.h"

#include "RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln::runtime_abi;
using kiln::declareRuntimeFunction;
using kiln::getAddress;
using kiln::getConstantArray;
using kiln::getI64;

namespace {

/// The reduction a collective's region computes, if it is one op of its two
/// arguments.
std::optional<Reduction> getReduction(Region &region) {
  if (region.empty() || !region.hasOneBlock())
    return std::nullopt;
  Block &block = region.front();
  if (block.getNumArguments() != 2 || block.getOperations().size() != 2)
    return std::nullopt;
  Operation &op = block.front();
  if (op.getNumOperands() != 2 || op.getOperand(0) != block.getArgument(0) ||
      op.getOperand(1) != block.getArgument(1) ||
      block.back().getOperands() != op.getResults())
    return std::nullopt;
  if (isa<kiln::AddOp>(op))
    return Reduction::Add;
  if (isa<kiln::MultiplyOp>(op))
    return Reduction::Multiply;
  if (isa<kiln::MaximumOp>(op))
    return Reduction::Maximum;
  if (isa<kiln::MinimumOp>(op))
    return Reduction::Minimum;
  if (isa<kiln::AndOp>(op))
    return Reduction::And;
  if (isa<kiln::OrOp>(op))
    return Reduction::Or;
  if (isa<kiln::XorOp>(op))
    return Reduction::Xor;
  return std::nullopt;
}

/// Replica groups as the runtime reads them: every row of one size (rows
/// shorter than the longest are padded with -1), and that size.
std::pair<SmallVector<int64_t>, int64_t> getGroups(Attribute attribute) {
  auto groups = dyn_cast_or_null<DenseIntElementsAttr>(attribute);
  if (!groups || groups.getNumElements() == 0)
    return {{}, 0};
  auto shape = cast<RankedTensorType>(groups.getType()).getShape();
  auto values = llvm::to_vector(groups.getValues<int64_t>());
  int64_t size = shape.size() == 2 ? shape[1] : (int64_t)values.size();
  return {values, size};
}

/// Emits one runtime collective: `operand` (of kiln type `kilnType`) in,
/// a tensor of `resultType` out.
FailureOr<Value> emitCollective(ConversionPatternRewriter &rewriter,
                                Operation *op, Value operand,
                                RankedTensorType kilnType,
                                RankedTensorType resultType,
                                CollectiveKind kind, Reduction reduction,
                                int64_t dimension, ArrayRef<int64_t> groups,
                                int64_t groupSize) {
  Location loc = op->getLoc();
  std::optional<ElementKind> element =
      kiln::getRuntimeElementKind(kilnType.getElementType());
  if (!element || *element == ElementKind::C64 ||
      *element == ElementKind::C128 ||
      (*element == ElementKind::NarrowInteger && reduction != Reduction::None))
    return rewriter.notifyMatchFailure(op, "element type not exchanged");
  auto operandType = cast<RankedTensorType>(operand.getType());
  if (!operandType.hasStaticShape() || !resultType.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "dynamic shape");
  ModuleOp module = op->getParentOfType<ModuleOp>();
  declareRuntimeFunction(module, kCollectiveFunction, kCollectiveArguments, 0,
                         rewriter);

  // The operand in a buffer of its own, the result in a fresh one.
  Value input = kiln::copyToBuffer(rewriter, loc, operand);
  Value output = kiln::allocateBuffer(rewriter, loc, resultType);

  // The operand seen as [outer, extent, inner] around `dimension`.
  int64_t outer = 1, inner = 1;
  ArrayRef<int64_t> shape = operandType.getShape();
  int64_t extent = operandType.getNumElements(),
          resultExtent = resultType.getNumElements();
  if (dimension >= 0) {
    for (int64_t d = 0; d < dimension; ++d)
      outer *= shape[d];
    for (int64_t d = dimension + 1; d < (int64_t)shape.size(); ++d)
      inner *= shape[d];
    extent = shape[dimension];
    resultExtent = resultType.getDimSize(dimension);
  }
  int64_t groupCount = groupSize ? (int64_t)groups.size() / groupSize : 0;
  SmallVector<Value> arguments = {
      getI64(rewriter, loc, (int64_t)kind),
      getI64(rewriter, loc, (int64_t)reduction),
      getI64(rewriter, loc, (int64_t)*element),
      getAddress(rewriter, loc, input),
      getAddress(rewriter, loc, output),
      getI64(rewriter, loc, outer),
      getI64(rewriter, loc, extent),
      getI64(rewriter, loc, resultExtent),
      getI64(rewriter, loc, inner),
      getConstantArray(rewriter, loc, module, groups),
      getI64(rewriter, loc, groupCount),
      getI64(rewriter, loc, groupSize)};
  func::CallOp::create(rewriter, loc, kCollectiveFunction, TypeRange(),
                       arguments);
  return kiln::bufferAsTensor(rewriter, loc, resultType, output);
}

/// HLO's tuple form of all-to-all (no dimension): operand j goes whole to
/// the group's j-th member, whose result i is member i's operand j. The
/// operands, which must share one type, are stacked along a new leading
/// dimension and exchanged as one all_to_all along it.
LogicalResult lowerTupleAllToAll(ConversionPatternRewriter &rewriter,
                                 Operation *op, ValueRange operands,
                                 ArrayRef<int64_t> groups, int64_t groupSize) {
  Location loc = op->getLoc();
  // (The verifier gives every operand one type, and a result each.)
  auto type = cast<RankedTensorType>(operands.front().getType());
  if (!type.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "dynamic shape");
  auto kilnType = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t count = operands.size();
  SmallVector<int64_t> stackedShape = {count};
  llvm::append_range(stackedShape, type.getShape());
  auto stackedType = RankedTensorType::get(stackedShape, type.getElementType());
  int64_t rank = stackedType.getRank();
  SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1)};
  for (int64_t extent : type.getShape())
    sizes.push_back(rewriter.getIndexAttr(extent));
  SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
  auto offsetsAt = [&](int64_t row) {
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    offsets[0] = rewriter.getIndexAttr(row);
    return offsets;
  };
  Value stacked = tensor::EmptyOp::create(rewriter, loc, stackedShape,
                                          type.getElementType());
  for (auto [row, operand] : llvm::enumerate(operands))
    stacked = tensor::InsertSliceOp::create(rewriter, loc, operand, stacked,
                                            offsetsAt(row), sizes, strides);
  FailureOr<Value> exchanged = emitCollective(
      rewriter, op, stacked,
      RankedTensorType::get(stackedShape, kilnType.getElementType()),
      stackedType, CollectiveKind::AllToAll, Reduction::None,
      /*dimension=*/0, groups, groupSize);
  if (failed(exchanged))
    return failure();
  SmallVector<Value> results;
  for (int64_t row = 0; row < count; ++row)
    results.push_back(tensor::ExtractSliceOp::create(
        rewriter, loc, type, *exchanged, offsetsAt(row), sizes, strides));
  rewriter.replaceOp(op, results);
  return success();
}

template <typename OpTy>
struct CollectiveLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CollectiveKind kind;
    Reduction reduction = Reduction::None;
    int64_t dimension = -1;
    SmallVector<int64_t> groups;
    int64_t groupSize = 0;
    Operation *operation = op.getOperation();
    if (auto groupsAttr = operation->getAttr("replica_groups"))
      std::tie(groups, groupSize) = getGroups(groupsAttr);
    if (auto dims = operation->template getAttrOfType<DenseI64ArrayAttr>(
            "dimensions")) {
      if (dims.size() > 1)
        return rewriter.notifyMatchFailure(op, "several dimensions");
      if (dims.size() == 1)
        dimension = dims[0];
    }
    if constexpr (std::is_same_v<OpTy, kiln::AllReduceOp> ||
                  std::is_same_v<OpTy, kiln::ReduceScatterOp>) {
      std::optional<Reduction> found = getReduction(op.getToApply());
      if (!found)
        return rewriter.notifyMatchFailure(op, "reducer is not one op");
      reduction = *found;
    }
    if constexpr (std::is_same_v<OpTy, kiln::AllReduceOp>)
      kind = CollectiveKind::AllReduce;
    else if constexpr (std::is_same_v<OpTy, kiln::AllGatherOp>)
      kind = CollectiveKind::AllGather;
    else if constexpr (std::is_same_v<OpTy, kiln::ReduceScatterOp>)
      kind = CollectiveKind::ReduceScatter;
    else if constexpr (std::is_same_v<OpTy, kiln::AllToAllOp>)
      kind = CollectiveKind::AllToAll;
    else if constexpr (std::is_same_v<OpTy, kiln::CollectiveBroadcastOp>)
      kind = CollectiveKind::Broadcast;
    else
      kind = CollectiveKind::Permute;
    if constexpr (std::is_same_v<OpTy, kiln::CollectivePermuteOp>) {
      auto pairs = op.getSourceTargetPairs();
      groups = llvm::to_vector(pairs.template getValues<int64_t>());
      groupSize = 2;
    }
    bool sharded = kind == CollectiveKind::AllGather ||
                   kind == CollectiveKind::ReduceScatter ||
                   kind == CollectiveKind::AllToAll;
    if (kind == CollectiveKind::AllToAll && dimension < 0)
      return lowerTupleAllToAll(rewriter, operation, adaptor.getOperands(),
                                groups, groupSize);
    if (sharded && dimension < 0)
      return rewriter.notifyMatchFailure(op, "no dimension");

    SmallVector<Value> results;
    for (auto [k, operand] : llvm::enumerate(adaptor.getOperands())) {
      if (k >= operation->getNumResults())
        break;
      // A scalar beside the tensors (PyTorch/XLA's token) has no dimension
      // to split: it passes through, as the verifier and evaluator say.
      if (sharded && cast<RankedTensorType>(operand.getType()).getRank() == 0) {
        results.push_back(operand);
        continue;
      }
      // Groups of one participant each: every collective but a permute
      // gives each its own operand (PyTorch/XLA writes these, even over
      // scalars).
      if (groupSize == 1 && kind != CollectiveKind::Permute &&
          operand.getType() == this->getTypeConverter()->convertType(
                                   operation->getResult(k).getType())) {
        results.push_back(operand);
        continue;
      }
      if (dimension >= 0 &&
          dimension >= cast<RankedTensorType>(operand.getType()).getRank())
        return rewriter.notifyMatchFailure(op, "dimension out of range");
      auto kilnType =
          dyn_cast<RankedTensorType>(operation->getOperand(k).getType());
      auto resultType = dyn_cast_or_null<RankedTensorType>(
          this->getTypeConverter()->convertType(
              operation->getResult(k).getType()));
      if (!kilnType || !resultType)
        return rewriter.notifyMatchFailure(op, "not a tensor");
      FailureOr<Value> result =
          emitCollective(rewriter, operation, operand, kilnType, resultType,
                         kind, reduction, dimension, groups, groupSize);
      if (failed(result))
        return failure();
      results.push_back(*result);
    }
    if (results.size() != operation->getNumResults())
      return rewriter.notifyMatchFailure(op, "results without operands");
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// partition-id and replica-id: the participant's number, from the
/// runtime (one number per participant: kiln runs one replica of
/// num_partitions partitions, or num_replicas replicas of one).
template <typename OpTy>
struct ParticipantIdLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    Location loc = op.getLoc();
    declareRuntimeFunction(op->template getParentOfType<ModuleOp>(),
                           kParticipantFunction, 0, 1, rewriter);
    Value id = func::CallOp::create(rewriter, loc, kParticipantFunction,
                                    TypeRange{rewriter.getI64Type()},
                                    ValueRange())
                   .getResult(0);
    Value narrowed =
        arith::TruncIOp::create(rewriter, loc, type.getElementType(), id);
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, type, narrowed);
    return success();
  }
};

} // namespace

void kiln::populateKilnCollectiveToRuntimePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<CollectiveLowering<kiln::AllReduceOp>,
               CollectiveLowering<kiln::AllGatherOp>,
               CollectiveLowering<kiln::ReduceScatterOp>,
               CollectiveLowering<kiln::AllToAllOp>,
               CollectiveLowering<kiln::CollectivePermuteOp>,
               CollectiveLowering<kiln::CollectiveBroadcastOp>,
               ParticipantIdLowering<kiln::PartitionIdOp>,
               ParticipantIdLowering<kiln::ReplicaIdOp>>(converter,
                                                         patterns.getContext());
}
