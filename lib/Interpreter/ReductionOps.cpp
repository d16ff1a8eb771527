//===- ReductionOps.cpp - ops with reducer or comparator regions -*- C++ -*-===//
//
// This file evaluates the ops that run a region over many elements: reduce
// (in row-major order of the reduced dimensions), reduce_window (padding
// and base-dilation holes hold the init value, as HLO pads), select_and_
// scatter, sort (stable when asked, any number of operands, any
// comparator), topk and map.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"
#include "ScalarRegion.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <numeric>

using namespace mlir;
using namespace kiln::interp;

namespace {

LogicalResult evaluateReduce(Operation *op, Operands in, Results &results,
                             RegionRunner &runner) {
  size_t count = op->getNumResults();
  llvm::ArrayRef<int64_t> reduced = dimsAttr(op, "dimensions");
  for (size_t k = 0; k < count; ++k) {
    results.emplace_back(op->getResult(k).getType());
    for (int64_t i = 0; i < results[k].size(); ++i)
      results[k].copyElement(*in[count + k], 0, i);
  }
  ScalarRegion region(op->getRegion(0), runner);
  llvm::ArrayRef<int64_t> shape = in[0]->shape();
  llvm::SmallVector<int64_t> outStrides =
      stridesOf(results[0].shape());
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < in[0]->size(); ++i, nextIndex(index, shape)) {
    int64_t to = 0, o = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      if (!llvm::is_contained(reduced, (int64_t)d))
        to += index[d] * outStrides[o++];
    if (count == 1) {
      if (failed(region.accumulate(results[0], to, *in[0], i)))
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
      arguments.push_back(in[k]);
      positions.push_back(i);
    }
    FailureOr<llvm::SmallVector<HostTensor>> combined =
        region.run(arguments, positions);
    if (failed(combined) || combined->size() != count)
      return failure();
    for (size_t k = 0; k < count; ++k)
      results[k].copyElement((*combined)[k], 0, to);
  }
  return success();
}

/// The window geometry shared by reduce_window and select_and_scatter.
struct Window {
  llvm::ArrayRef<int64_t> size, stride, baseDilation, windowDilation, low;
  explicit Window(Operation *op)
      : size(dimsAttr(op, "window_dimensions")),
        stride(dimsAttr(op, "window_strides")),
        baseDilation(dimsAttr(op, "base_dilations")),
        windowDilation(dimsAttr(op, "window_dilations")),
        low(dimsAttr(op, "padding_low")) {}
  int64_t get(llvm::ArrayRef<int64_t> values, size_t d, int64_t dflt) const {
    return d < values.size() ? values[d] : dflt;
  }
  /// The input element at output `out`, window position `w`; -1 for
  /// padding and base-dilation holes.
  int64_t inputElement(llvm::ArrayRef<int64_t> out, llvm::ArrayRef<int64_t> w,
                       llvm::ArrayRef<int64_t> inputShape,
                       llvm::ArrayRef<int64_t> inputStrides) const {
    int64_t offset = 0;
    for (size_t d = 0; d < inputShape.size(); ++d) {
      int64_t p = out[d] * get(stride, d, 1) +
                  w[d] * get(windowDilation, d, 1) - get(low, d, 0);
      int64_t dilation = get(baseDilation, d, 1);
      if (p < 0 || p % dilation != 0)
        return -1;
      int64_t q = p / dilation;
      if (q >= inputShape[d])
        return -1;
      offset += q * inputStrides[d];
    }
    return offset;
  }
};

LogicalResult evaluateReduceWindow(Operation *op, Operands in,
                                   Results &results, RegionRunner &runner) {
  size_t count = op->getNumResults();
  Window window(op);
  for (size_t k = 0; k < count; ++k)
    results.emplace_back(op->getResult(k).getType());
  ScalarRegion region(op->getRegion(0), runner);
  llvm::ArrayRef<int64_t> inputShape = in[0]->shape();
  llvm::SmallVector<int64_t> inputStrides = stridesOf(inputShape);
  llvm::ArrayRef<int64_t> outShape = results[0].shape();
  llvm::SmallVector<int64_t> out(outShape.size(), 0);
  for (int64_t o = 0; o < results[0].size(); ++o, nextIndex(out, outShape)) {
    for (size_t k = 0; k < count; ++k)
      results[k].copyElement(*in[count + k], 0, o);
    llvm::SmallVector<int64_t> w(window.size.size(), 0);
    int64_t windowElements = 1;
    for (int64_t size : window.size)
      windowElements *= size;
    for (int64_t n = 0; n < windowElements; ++n, nextIndex(w, window.size)) {
      int64_t from = window.inputElement(out, w, inputShape, inputStrides);
      if (count == 1) {
        const HostTensor &source = from < 0 ? *in[1] : *in[0];
        if (failed(region.accumulate(results[0], o, source,
                                     from < 0 ? 0 : from)))
          return failure();
        continue;
      }
      llvm::SmallVector<const HostTensor *> arguments;
      llvm::SmallVector<int64_t> positions;
      for (size_t k = 0; k < count; ++k) {
        arguments.push_back(&results[k]);
        positions.push_back(o);
      }
      for (size_t k = 0; k < count; ++k) {
        arguments.push_back(from < 0 ? in[count + k] : in[k]);
        positions.push_back(from < 0 ? 0 : from);
      }
      FailureOr<llvm::SmallVector<HostTensor>> combined =
          region.run(arguments, positions);
      if (failed(combined) || combined->size() != count)
        return failure();
      for (size_t k = 0; k < count; ++k)
        results[k].copyElement((*combined)[k], 0, o);
    }
  }
  return success();
}

LogicalResult evaluateSelectAndScatter(Operation *op, Operands in,
                                       Results &results, RegionRunner &runner) {
  const HostTensor &operand = *in[0], &source = *in[1], &init = *in[2];
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  for (int64_t i = 0; i < out.size(); ++i)
    out.copyElement(init, 0, i);
  Window window(op);
  ScalarRegion select(op->getRegion(0), runner);
  ScalarRegion scatter(op->getRegion(1), runner);
  llvm::ArrayRef<int64_t> inputShape = operand.shape();
  llvm::SmallVector<int64_t> inputStrides = stridesOf(inputShape);
  llvm::ArrayRef<int64_t> sourceShape = source.shape();
  llvm::SmallVector<int64_t> position(sourceShape.size(), 0);
  int64_t windowElements = 1;
  for (int64_t size : window.size)
    windowElements *= size;
  for (int64_t s = 0; s < source.size(); ++s, nextIndex(position, sourceShape)) {
    // The selected element: the first that the selector prefers to every
    // later one (padding takes no part).
    int64_t selected = -1;
    llvm::SmallVector<int64_t> w(window.size.size(), 0);
    for (int64_t n = 0; n < windowElements; ++n, nextIndex(w, window.size)) {
      int64_t from = window.inputElement(position, w, inputShape, inputStrides);
      if (from < 0)
        continue;
      if (selected < 0) {
        selected = from;
        continue;
      }
      FailureOr<bool> keep = select.predicate(operand, selected, operand, from);
      if (failed(keep))
        return failure();
      if (!*keep)
        selected = from;
    }
    if (selected < 0)
      continue;
    if (failed(scatter.accumulate(out, selected, source, s)))
      return failure();
  }
  return success();
}

LogicalResult evaluateSort(Operation *op, Operands in, Results &results,
                           RegionRunner &runner) {
  size_t count = op->getNumResults();
  int64_t dimension = dimsAttr(op, "dimensions").front();
  llvm::ArrayRef<int64_t> shape = in[0]->shape();
  llvm::SmallVector<int64_t> strides = stridesOf(shape);
  for (size_t k = 0; k < count; ++k)
    results.push_back(*in[k]);
  ScalarRegion comparator(op->getRegion(0), runner);
  int64_t length = shape[dimension], stride = strides[dimension];
  // Each line along `dimension` is sorted on its own; the comparator gets
  // (lhs0, rhs0, lhs1, rhs1, ...).
  bool failedCompare = false;
  if (length == 0)
    return success();
  forEachLine(shape, dimension, [&](int64_t base, int64_t, int64_t) {
    if (failedCompare)
      return;
    std::vector<int64_t> order(length);
    std::iota(order.begin(), order.end(), 0);
    auto less = [&](int64_t a, int64_t b) {
      if (failedCompare)
        return false;
      llvm::SmallVector<const HostTensor *> arguments;
      llvm::SmallVector<int64_t> positions;
      for (size_t k = 0; k < count; ++k) {
        arguments.append({in[k], in[k]});
        positions.append({base + a * stride, base + b * stride});
      }
      FailureOr<llvm::SmallVector<HostTensor>> result =
          comparator.run(arguments, positions);
      if (failed(result) || result->empty()) {
        failedCompare = true;
        return false;
      }
      return (*result)[0].ints[0] != 0;
    };
    // Stable either way: an unstable sort may keep equal elements in order.
    std::stable_sort(order.begin(), order.end(), less);
    for (size_t k = 0; k < count; ++k)
      for (int64_t p = 0; p < length; ++p)
        results[k].copyElement(*in[k], base + order[p] * stride,
                               base + p * stride);
  });
  return failure(failedCompare);
}

LogicalResult evaluateTopk(Operation *op, Operands in, Results &results) {
  const HostTensor &x = *in[0];
  results.emplace_back(op->getResult(0).getType());
  results.emplace_back(op->getResult(1).getType());
  HostTensor &values = results[0], &indices = results[1];
  llvm::ArrayRef<int64_t> shape = x.shape();
  int64_t length = shape.back();
  int64_t k = values.shape().back();
  int64_t lines = length ? x.size() / length : 0;
  for (int64_t l = 0; l < lines; ++l) {
    std::vector<int64_t> order(length);
    std::iota(order.begin(), order.end(), 0);
    auto greater = [&](int64_t a, int64_t b) {
      double va = x.asDouble(l * length + a), vb = x.asDouble(l * length + b);
      if (x.kind == ElementKind::Integer &&
          !isUnsignedInteger(x.elementType()))
        return x.ints[l * length + a] > x.ints[l * length + b];
      return comesFirstInTopK(va, vb);
    };
    std::stable_sort(order.begin(), order.end(), greater);
    for (int64_t p = 0; p < k; ++p) {
      values.copyElement(x, l * length + order[p], l * k + p);
      indices.ints[l * k + p] = order[p];
    }
  }
  return success();
}

LogicalResult evaluateMap(Operation *op, Operands in, Results &results,
                          RegionRunner &runner) {
  results.emplace_back(op->getResult(0).getType());
  HostTensor &out = results.back();
  ScalarRegion region(op->getRegion(0), runner);
  for (int64_t i = 0; i < out.size(); ++i) {
    llvm::SmallVector<int64_t> positions(in.size(), i);
    FailureOr<llvm::SmallVector<HostTensor>> value =
        region.run(llvm::ArrayRef<const HostTensor *>(in.begin(), in.end()),
                   positions);
    if (failed(value) || value->empty())
      return failure();
    out.copyElement((*value)[0], 0, i);
  }
  return success();
}

} // namespace

std::optional<LogicalResult>
kiln::interp::evaluateReduction(Operation *op, Operands in, Results &results,
                                RegionRunner &runner) {
  StringRef name = op->getName().getStringRef();
  if (name == "kiln.reduce")
    return evaluateReduce(op, in, results, runner);
  if (name == "kiln.reduce_window")
    return evaluateReduceWindow(op, in, results, runner);
  if (name == "kiln.select_and_scatter")
    return evaluateSelectAndScatter(op, in, results, runner);
  if (name == "kiln.sort")
    return evaluateSort(op, in, results, runner);
  if (name == "kiln.topk")
    return evaluateTopk(op, in, results);
  if (name == "kiln.map")
    return evaluateMap(op, in, results, runner);
  return std::nullopt;
}
