//===- CollectiveOps.cpp - collectives with one participant -----*- C++ -*-===//
//
// This file evaluates collectives as one participant sees them when it is
// alone: all_reduce, all_gather, reduce_scatter, all_to_all and
// collective_broadcast give their operands back, collective_permute its
// operand where a pair sends from 0 to 0 (else zeros). A graph written for
// several participants (result shapes other than the operands') is an error
// naming the op; running N ranks is for a later evaluator.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

using namespace mlir;
using namespace kiln::interp;

std::optional<LogicalResult>
kiln::interp::evaluateCollective(Operation *op, Operands in, Results &results,
                                 RegionRunner &) {
  StringRef name = op->getName().getStringRef();
  bool isCollective =
      llvm::is_contained({"kiln.all_reduce", "kiln.all_gather",
                          "kiln.reduce_scatter", "kiln.all_to_all",
                          "kiln.collective_broadcast",
                          "kiln.collective_permute"},
                         name);
  if (!isCollective)
    return std::nullopt;
  unsigned tensorOperands = 0;
  for (const HostTensor *operand : in)
    tensorOperands += operand->kind != ElementKind::Token;
  if (op->getNumResults() > in.size())
    return op->emitError("'") << name << "' has more results than operands";
  for (auto [k, result] : llvm::enumerate(op->getResults())) {
    if (result.getType() != in[k]->type)
      return op->emitError("'")
             << name << "' is written for several participants (result "
             << result.getType() << " from " << in[k]->type
             << "); the evaluator runs one";
  }
  if (name == "kiln.collective_permute") {
    auto pairs = op->getAttrOfType<DenseIntElementsAttr>("source_target_pairs");
    bool selfPair = false;
    if (pairs) {
      auto values = llvm::to_vector(pairs.getValues<int64_t>());
      for (size_t i = 0; i + 1 < values.size(); i += 2)
        selfPair |= values[i] == 0 && values[i + 1] == 0;
    }
    for (auto [k, result] : llvm::enumerate(op->getResults()))
      results.push_back(selfPair ? *in[k] : HostTensor(result.getType()));
    return success();
  }
  (void)tensorOperands;
  for (unsigned k = 0; k < op->getNumResults(); ++k)
    results.push_back(*in[k]);
  return success();
}
