//===- IndexingOps.cpp - gather and scatter in the evaluator ----*- C++ -*-===//
//
// This file evaluates gather and scatter with every form of their dimension
// numbers (offset, collapsed or inserted, batching dimensions, any index
// vector dimension), as HLO defines them: gather clamps its start indices,
// scatter skips updates that fall outside the operand, combining each
// update with the operand's element through its region.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"
#include "ScalarRegion.h"

using namespace mlir;
using namespace kiln::interp;

namespace {

/// The start index vector of the batch position `batch` (the index tensor's
/// dimensions but `indexVectorDim`, in order).
llvm::SmallVector<int64_t> startVector(const HostTensor &indices,
                                       llvm::ArrayRef<int64_t> batch,
                                       int64_t indexVectorDim) {
  llvm::ArrayRef<int64_t> shape = indices.shape();
  llvm::SmallVector<int64_t> strides = stridesOf(shape);
  int64_t rank = shape.size();
  int64_t count = indexVectorDim < rank ? shape[indexVectorDim] : 1;
  llvm::SmallVector<int64_t> result;
  for (int64_t k = 0; k < count; ++k) {
    int64_t offset = 0;
    size_t b = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == indexVectorDim)
        offset += k * strides[d];
      else
        offset += batch[b++] * strides[d];
    }
    result.push_back(indices.asIndex(offset));
  }
  return result;
}

/// The index tensor's dimension (not the index vector's) that batch
/// position component `b` stands for.
int64_t indexDimOfBatch(size_t b, int64_t indexVectorDim) {
  return (int64_t)b < indexVectorDim ? b : b + 1;
}

} // namespace

std::optional<LogicalResult>
kiln::interp::evaluateIndexingOp(Operation *op, Operands in, Results &results,
                                 RegionRunner &runner) {
  StringRef name = op->getName().getStringRef();
  if (name == "kiln.gather") {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    results.emplace_back(resultType);
    HostTensor &out = results.back();
    const HostTensor &operand = *in[0], &indices = *in[1];
    llvm::ArrayRef<int64_t> offsetDims = dimsAttr(op, "offset_dims"),
                            collapsed = dimsAttr(op, "collapsed_slice_dims"),
                            operandBatching = dimsAttr(op, "operand_batching_dims"),
                            indicesBatching =
                                dimsAttr(op, "start_indices_batching_dims"),
                            startIndexMap = dimsAttr(op, "start_index_map"),
                            sliceSizes = dimsAttr(op, "slice_sizes");
    int64_t indexVectorDim =
        op->getAttrOfType<IntegerAttr>("index_vector_dim").getInt();
    llvm::ArrayRef<int64_t> outShape = resultType.getShape();
    llvm::ArrayRef<int64_t> operandShape = operand.shape();
    int64_t operandRank = operandShape.size();
    llvm::SmallVector<int64_t> operandStrides = stridesOf(operandShape);
    // The operand dimensions that the offset dimensions index, in order.
    llvm::SmallVector<int64_t> windowDims;
    for (int64_t d = 0; d < operandRank; ++d)
      if (!llvm::is_contained(collapsed, d) &&
          !llvm::is_contained(operandBatching, d))
        windowDims.push_back(d);
    llvm::SmallVector<int64_t> index(outShape.size(), 0);
    for (int64_t i = 0; i < out.size(); ++i, nextIndex(index, outShape)) {
      llvm::SmallVector<int64_t> batch, offsets;
      for (size_t d = 0; d < outShape.size(); ++d)
        (llvm::is_contained(offsetDims, (int64_t)d) ? offsets : batch)
            .push_back(index[d]);
      llvm::SmallVector<int64_t> start =
          startVector(indices, batch, indexVectorDim);
      llvm::SmallVector<int64_t> full(operandRank, 0);
      for (auto [k, d] : llvm::enumerate(startIndexMap))
        full[d] = std::clamp<int64_t>(k < start.size() ? start[k] : 0, 0,
                                      operandShape[d] - sliceSizes[d]);
      for (auto [k, d] : llvm::enumerate(operandBatching)) {
        int64_t indexDim = indicesBatching[k];
        // The batch component for that index dimension.
        for (size_t b = 0; b < batch.size(); ++b)
          if (indexDimOfBatch(b, indexVectorDim) == indexDim)
            full[d] = batch[b];
      }
      int64_t from = 0;
      for (int64_t d = 0; d < operandRank; ++d) {
        int64_t position = full[d];
        auto window = llvm::find(windowDims, d);
        if (window != windowDims.end())
          position += offsets[window - windowDims.begin()];
        from += position * operandStrides[d];
      }
      out.copyElement(operand, from, i);
    }
    return success();
  }
  if (name == "kiln.scatter") {
    size_t count = op->getNumResults();
    if (in.size() != 2 * count + 1)
      return op->emitError("scatter takes as many updates as inputs");
    for (size_t k = 0; k < count; ++k)
      results.push_back(*in[k]);
    const HostTensor &indices = *in[count];
    Operands updates = in.drop_front(count + 1);
    llvm::ArrayRef<int64_t> windowDims = dimsAttr(op, "update_window_dims"),
                            inserted = dimsAttr(op, "inserted_window_dims"),
                            inputBatching = dimsAttr(op, "input_batching_dims"),
                            indicesBatching =
                                dimsAttr(op, "scatter_indices_batching_dims"),
                            toOperand =
                                dimsAttr(op, "scatter_dims_to_operand_dims");
    int64_t indexVectorDim =
        op->getAttrOfType<IntegerAttr>("index_vector_dim").getInt();
    llvm::ArrayRef<int64_t> operandShape = results[0].shape();
    int64_t operandRank = operandShape.size();
    llvm::SmallVector<int64_t> operandStrides = stridesOf(operandShape);
    llvm::SmallVector<int64_t> operandWindowDims;
    for (int64_t d = 0; d < operandRank; ++d)
      if (!llvm::is_contained(inserted, d) &&
          !llvm::is_contained(inputBatching, d))
        operandWindowDims.push_back(d);
    ScalarRegion region(op->getRegion(0), runner);
    llvm::ArrayRef<int64_t> updateShape = updates[0]->shape();
    llvm::SmallVector<int64_t> index(updateShape.size(), 0);
    for (int64_t u = 0; u < updates[0]->size();
         ++u, nextIndex(index, updateShape)) {
      llvm::SmallVector<int64_t> batch, window;
      for (size_t d = 0; d < updateShape.size(); ++d)
        (llvm::is_contained(windowDims, (int64_t)d) ? window : batch)
            .push_back(index[d]);
      llvm::SmallVector<int64_t> start =
          startVector(indices, batch, indexVectorDim);
      llvm::SmallVector<int64_t> full(operandRank, 0);
      for (auto [k, d] : llvm::enumerate(toOperand))
        full[d] = k < start.size() ? start[k] : 0;
      for (auto [k, d] : llvm::enumerate(inputBatching)) {
        for (size_t b = 0; b < batch.size(); ++b)
          if (indexDimOfBatch(b, indexVectorDim) == indicesBatching[k])
            full[d] = batch[b];
      }
      // A start near INT64_MAX plus a window offset is out of bounds, not
      // an overflow.
      bool inBounds = true;
      for (auto [k, d] : llvm::enumerate(operandWindowDims))
        if (__builtin_add_overflow(full[d], window[k], &full[d]))
          inBounds = false;
      int64_t to = 0;
      for (int64_t d = 0; d < operandRank && inBounds; ++d) {
        if (full[d] < 0 || full[d] >= operandShape[d])
          inBounds = false;
        else
          to += full[d] * operandStrides[d];
      }
      if (!inBounds)
        continue;
      if (count == 1) {
        if (failed(region.accumulate(results[0], to, *updates[0], u)))
          return failure();
        continue;
      }
      llvm::SmallVector<const HostTensor *> arguments;
      llvm::SmallVector<int64_t> positions;
      for (size_t k = 0; k < count; ++k) {
        arguments.push_back(&results[k]);
        positions.push_back(to);
      }
      for (size_t k = 0; k < count; ++k) {
        arguments.push_back(updates[k]);
        positions.push_back(u);
      }
      FailureOr<llvm::SmallVector<HostTensor>> combined =
          region.run(arguments, positions);
      if (failed(combined))
        return failure();
      for (size_t k = 0; k < count; ++k)
        results[k].copyElement((*combined)[k], 0, to);
    }
    return success();
  }
  return std::nullopt;
}
