//===- CustomCalls.cpp - the custom-call targets the evaluator knows -===//
//
// This file is the one registry of custom-call targets: for each known
// target, how it evaluates. Sharding annotations and host/device placement
// are identities on one device; TopK is the top k along the last dimension,
// largest first. An unknown target is an error naming it (and, through the
// op's location, its source line).
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

#include "llvm/ADT/StringMap.h"

#include <numeric>

using namespace mlir;
using namespace kiln::interp;

namespace {

using TargetEvaluator = LogicalResult (*)(Operation *op, Operands in,
                                          Results &results);

LogicalResult identity(Operation *op, Operands in, Results &results) {
  if (op->getNumResults() > in.size())
    return op->emitError("custom call has more results than operands");
  for (auto [k, result] : llvm::enumerate(op->getResults())) {
    if (result.getType() != in[k]->type)
      return op->emitError("custom call changes the shape (")
             << in[k]->type << " to " << result.getType()
             << "): on one device it must not";
    results.push_back(*in[k]);
  }
  return success();
}

/// TopK(operand) -> (values, indices): the k largest along the last
/// dimension, largest first, ties by lower index.
LogicalResult topK(Operation *op, Operands in, Results &results) {
  if (op->getNumResults() != 2 || in.empty())
    return op->emitError("TopK takes one operand and gives values and indices");
  const HostTensor &x = *in[0];
  results.emplace_back(op->getResult(0).getType());
  results.emplace_back(op->getResult(1).getType());
  int64_t length = x.shape().empty() ? 1 : x.shape().back();
  int64_t k = results[0].shape().empty() ? 1 : results[0].shape().back();
  int64_t lines = length ? x.size() / length : 0;
  for (int64_t l = 0; l < lines; ++l) {
    std::vector<int64_t> order(length);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      double va = x.asDouble(l * length + a), vb = x.asDouble(l * length + b);
      if (std::isnan(va) || std::isnan(vb))
        return std::isnan(va) && !std::isnan(vb);
      return va > vb;
    });
    for (int64_t p = 0; p < k && p < length; ++p) {
      results[0].copyElement(x, l * length + order[p], l * k + p);
      results[1].ints[l * k + p] = order[p];
    }
  }
  return success();
}

const llvm::StringMap<TargetEvaluator> &registry() {
  static const llvm::StringMap<TargetEvaluator> targets = {
      {"Sharding", identity},
      {"SPMDFullToShardShape", identity},
      {"SPMDShardToFullShape", identity},
      {"annotate_device_placement", identity},
      {"MoveToDevice", identity},
      {"MoveToHost", identity},
      {"LayoutConstraint", identity},
      {"TopK", topK},
  };
  return targets;
}

} // namespace

std::optional<LogicalResult>
kiln::interp::evaluateCustomCall(Operation *op, Operands in, Results &results,
                                 RegionRunner &) {
  if (op->getName().getStringRef() != "kiln.custom_call")
    return std::nullopt;
  auto target = op->getAttrOfType<StringAttr>("custom_call_target");
  StringRef name = target ? target.getValue() : "";
  auto found = registry().find(name);
  if (found == registry().end())
    return op->emitError("custom call target '")
           << name << "' is unknown to the evaluator";
  return found->second(op, in, results);
}
