//===- ShapeOps.cpp - data movement ops of the evaluator --------*- C++ -*-===//
//
// This file evaluates the ops that move elements without computing on them:
// iota, broadcast_in_dim, reshape, transpose, reverse, slice, concatenate,
// pad (negative and interior padding), dynamic_slice and
// dynamic_update_slice (start indices clamped, as HLO does), and
// get_dimension_size.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

using namespace mlir;
using namespace kiln::interp;

namespace {

/// The start indices of a dynamic slice or update, clamped so that a
/// window of `sizes` fits in `shape`.
llvm::SmallVector<int64_t> clampedStarts(Operands indices,
                                         llvm::ArrayRef<int64_t> shape,
                                         llvm::ArrayRef<int64_t> sizes) {
  llvm::SmallVector<int64_t> starts;
  for (auto [d, index] : llvm::enumerate(indices)) {
    int64_t start = index->asIndex(0);
    starts.push_back(std::clamp<int64_t>(start, 0, shape[d] - sizes[d]));
  }
  return starts;
}

} // namespace

std::optional<LogicalResult>
kiln::interp::evaluateShapeOp(Operation *op, Operands in, Results &results,
                              RegionRunner &) {
  StringRef name = op->getName().getStringRef();
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return std::nullopt;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  llvm::ArrayRef<int64_t> outShape = resultType.getShape();
  auto makeResult = [&]() -> HostTensor & {
    results.emplace_back(resultType);
    return results.back();
  };

  if (name == "kiln.iota") {
    HostTensor &out = makeResult();
    int64_t dimension = op->getAttrOfType<IntegerAttr>("iota_dimension").getInt();
    llvm::SmallVector<int64_t> index(outShape.size(), 0);
    for (int64_t i = 0; i < out.size(); ++i, nextIndex(index, outShape)) {
      int64_t v = index[dimension];
      if (out.kind == ElementKind::Integer)
        out.ints[i] = wrapInteger(v, resultType.getElementType());
      else if (out.kind == ElementKind::Float)
        out.floats[i] = roundToFloat((double)v, resultType.getElementType());
      else
        out.complexes[i] = {(double)v, 0};
    }
    return success();
  }
  if (name == "kiln.causal_mask") {
    HostTensor &out = makeResult();
    auto scalar = [&](StringRef attrName) -> FailureOr<HostTensor> {
      auto value = op->getAttrOfType<TypedAttr>(attrName);
      return HostTensor::fromAttr(DenseElementsAttr::get(
          RankedTensorType::get({}, value.getType()), value));
    };
    FailureOr<HostTensor> kept = scalar("kept"), masked = scalar("masked");
    if (failed(kept) || failed(masked))
      return op->emitError("causal_mask values cannot be evaluated");
    int64_t row = op->getAttrOfType<IntegerAttr>("row_dimension").getInt();
    int64_t column =
        op->getAttrOfType<IntegerAttr>("column_dimension").getInt();
    auto minDiagonal = op->getAttrOfType<IntegerAttr>("min_diagonal");
    auto maxDiagonal = op->getAttrOfType<IntegerAttr>("max_diagonal");
    llvm::SmallVector<int64_t> index(outShape.size(), 0);
    for (int64_t i = 0; i < out.size(); ++i, nextIndex(index, outShape)) {
      int64_t diagonal = index[column] - index[row];
      bool keep = (!minDiagonal || diagonal >= minDiagonal.getInt()) &&
                  (!maxDiagonal || diagonal <= maxDiagonal.getInt());
      out.copyElement(keep ? *kept : *masked, 0, i);
    }
    return success();
  }
  if (name == "kiln.broadcast_in_dim") {
    HostTensor &out = makeResult();
    const HostTensor &x = *in[0];
    llvm::ArrayRef<int64_t> dims = dimsAttr(op, "dimensions");
    llvm::SmallVector<int64_t> inStrides = stridesOf(x.shape());
    llvm::SmallVector<int64_t> index(outShape.size(), 0);
    for (int64_t i = 0; i < out.size(); ++i, nextIndex(index, outShape)) {
      int64_t from = 0;
      for (auto [d, outDim] : llvm::enumerate(dims))
        from += (x.shape()[d] == 1 ? 0 : index[outDim]) * inStrides[d];
      out.copyElement(x, from, i);
    }
    return success();
  }
  if (name == "kiln.reshape" || name == "kiln.bitcast" ||
      name == "kiln.dynamic_reshape") {
    HostTensor out = *in[0];
    out.type = resultType;
    results.push_back(std::move(out));
    return success();
  }
  if (name == "kiln.transpose") {
    HostTensor &out = makeResult();
    const HostTensor &x = *in[0];
    llvm::ArrayRef<int64_t> permutation = dimsAttr(op, "dimensions");
    llvm::SmallVector<int64_t> inStrides = stridesOf(x.shape());
    llvm::SmallVector<int64_t> index(outShape.size(), 0);
    for (int64_t i = 0; i < out.size(); ++i, nextIndex(index, outShape)) {
      int64_t from = 0;
      for (auto [d, source] : llvm::enumerate(permutation))
        from += index[d] * inStrides[source];
      out.copyElement(x, from, i);
    }
    return success();
  }
  if (name == "kiln.reverse") {
    HostTensor &out = makeResult();
    const HostTensor &x = *in[0];
    llvm::ArrayRef<int64_t> reversed = dimsAttr(op, "dimensions");
    llvm::SmallVector<int64_t> strides = stridesOf(outShape);
    llvm::SmallVector<int64_t> index(outShape.size(), 0);
    for (int64_t i = 0; i < out.size(); ++i, nextIndex(index, outShape)) {
      int64_t from = 0;
      for (size_t d = 0; d < outShape.size(); ++d) {
        int64_t position = llvm::is_contained(reversed, (int64_t)d)
                               ? outShape[d] - 1 - index[d]
                               : index[d];
        from += position * strides[d];
      }
      out.copyElement(x, from, i);
    }
    return success();
  }
  if (name == "kiln.slice") {
    HostTensor &out = makeResult();
    const HostTensor &x = *in[0];
    llvm::ArrayRef<int64_t> starts = dimsAttr(op, "start_indices");
    llvm::ArrayRef<int64_t> strides = dimsAttr(op, "strides");
    llvm::SmallVector<int64_t> inStrides = stridesOf(x.shape());
    llvm::SmallVector<int64_t> index(outShape.size(), 0);
    for (int64_t i = 0; i < out.size(); ++i, nextIndex(index, outShape)) {
      int64_t from = 0;
      for (size_t d = 0; d < outShape.size(); ++d)
        from += (starts[d] + index[d] * strides[d]) * inStrides[d];
      out.copyElement(x, from, i);
    }
    return success();
  }
  if (name == "kiln.concatenate") {
    HostTensor &out = makeResult();
    int64_t axis = dimsAttr(op, "dimensions").front();
    llvm::SmallVector<int64_t> outStrides = stridesOf(outShape);
    int64_t offset = 0;
    for (const HostTensor *x : in) {
      llvm::SmallVector<int64_t> index(x->shape().size(), 0);
      for (int64_t i = 0; i < x->size(); ++i, nextIndex(index, x->shape())) {
        int64_t to = 0;
        for (size_t d = 0; d < outShape.size(); ++d)
          to += (index[d] + (d == (size_t)axis ? offset : 0)) * outStrides[d];
        out.copyElement(*x, i, to);
      }
      offset += x->shape()[axis];
    }
    return success();
  }
  if (name == "kiln.pad") {
    HostTensor &out = makeResult();
    const HostTensor &x = *in[0], &fill = *in[1];
    for (int64_t i = 0; i < out.size(); ++i)
      out.copyElement(fill, 0, i);
    llvm::ArrayRef<int64_t> low = dimsAttr(op, "edge_padding_low");
    llvm::ArrayRef<int64_t> interior = dimsAttr(op, "interior_padding");
    llvm::SmallVector<int64_t> outStrides = stridesOf(outShape);
    llvm::SmallVector<int64_t> index(x.shape().size(), 0);
    for (int64_t i = 0; i < x.size(); ++i, nextIndex(index, x.shape())) {
      int64_t to = 0;
      bool inside = true;
      for (size_t d = 0; d < outShape.size(); ++d) {
        int64_t position = low[d] + index[d] * (interior[d] + 1);
        if (position < 0 || position >= outShape[d]) {
          inside = false;
          break;
        }
        to += position * outStrides[d];
      }
      if (inside)
        out.copyElement(x, i, to);
    }
    return success();
  }
  if (name == "kiln.dynamic_slice") {
    HostTensor &out = makeResult();
    const HostTensor &x = *in[0];
    llvm::SmallVector<int64_t> starts =
        clampedStarts(in.drop_front(), x.shape(), outShape);
    llvm::SmallVector<int64_t> inStrides = stridesOf(x.shape());
    llvm::SmallVector<int64_t> index(outShape.size(), 0);
    for (int64_t i = 0; i < out.size(); ++i, nextIndex(index, outShape)) {
      int64_t from = 0;
      for (size_t d = 0; d < outShape.size(); ++d)
        from += (starts[d] + index[d]) * inStrides[d];
      out.copyElement(x, from, i);
    }
    return success();
  }
  if (name == "kiln.dynamic_update_slice") {
    HostTensor out = *in[0];
    const HostTensor &update = *in[1];
    llvm::SmallVector<int64_t> starts =
        clampedStarts(in.drop_front(2), out.shape(), update.shape());
    llvm::SmallVector<int64_t> outStrides = stridesOf(outShape);
    llvm::SmallVector<int64_t> index(update.shape().size(), 0);
    for (int64_t i = 0; i < update.size();
         ++i, nextIndex(index, update.shape())) {
      int64_t to = 0;
      for (size_t d = 0; d < outShape.size(); ++d)
        to += (starts[d] + index[d]) * outStrides[d];
      out.copyElement(update, i, to);
    }
    results.push_back(std::move(out));
    return success();
  }
  if (name == "kiln.get_dimension_size") {
    HostTensor &out = makeResult();
    int64_t dimension = dimsAttr(op, "dimensions").empty()
                            ? 0
                            : dimsAttr(op, "dimensions").front();
    if (auto attr = op->getAttrOfType<IntegerAttr>("dimension"))
      dimension = attr.getInt();
    out.ints[0] = in[0]->shape()[dimension];
    return success();
  }
  return std::nullopt;
}
