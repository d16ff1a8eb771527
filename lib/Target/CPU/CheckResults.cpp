//===- CheckResults.cpp - golden checks as results of the entry -*- C++ -*-===//
//
// This file moves the kiln.check ops of a program's entry into its results:
// each check gives two results (actual, expected) and a CheckSpec with its
// comparison, so that `kiln run` compares the compiled program's values as
// the evaluator compares its own.
//
//===----------------------------------------------------------------------===//

#include "CheckResults.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;

LogicalResult kiln::moveChecksToResults(func::FuncOp entry,
                                        std::vector<CheckSpec> &checks) {
  ModuleOp module = entry->getParentOfType<ModuleOp>();
  bool outside = false;
  module.walk([&](kiln::CheckOp check) {
    if (check->getParentOp() != entry.getOperation()) {
      check.emitError("a check outside the entry's body is not compiled");
      outside = true;
    }
  });
  if (outside)
    return failure();
  auto returnOp = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
  llvm::SmallVector<Value> results(returnOp.getOperands());
  llvm::SmallVector<kiln::CheckOp> found;
  entry.walk([&](kiln::CheckOp check) { found.push_back(check); });
  for (kiln::CheckOp check : found) {
    CheckSpec spec;
    // A program that returns whether its check passed (StableHLO's
    // quantized tests) returns true in compiled code; the runtime writes the
    // answer it computes there. An answer used otherwise is not compiled.
    if (Value passed = check.getPassed()) {
      for (OpOperand &use : passed.getUses())
        if (use.getOwner() != returnOp.getOperation())
          return check.emitError("a check whose answer the program computes "
                                 "with is not compiled");
      if (!passed.use_empty()) {
        OpBuilder builder(check);
        auto type = cast<RankedTensorType>(passed.getType());
        Value yes = kiln::ConstantOp::create(
            builder, check.getLoc(), type,
            DenseElementsAttr::get(type, true));
        for (auto [i, result] : llvm::enumerate(results))
          if (result == passed) {
            results[i] = yes;
            spec.answerResults.push_back(i);
          }
        passed.replaceAllUsesWith(yes);
      }
    }
    spec.actual = results.size();
    spec.comparison = check.getComparison().str();
    if (auto tolerance = check.getTolerance())
      spec.tolerance = tolerance->convertToDouble();
    if (auto ulps = check.getMaxUlpDifference())
      spec.maxUlps = *ulps;
    if (auto ulps = check.getMinUlpDifference())
      spec.minUlps = *ulps;
    spec.location = describeHloLocation(check.getLoc());
    checks.push_back(std::move(spec));
    results.push_back(check.getActual());
    results.push_back(check.getExpected());
    check.erase();
  }
  if (found.empty())
    return success();
  OpBuilder builder(returnOp);
  func::ReturnOp::create(builder, returnOp.getLoc(), results);
  returnOp.erase();
  entry.setFunctionType(FunctionType::get(entry.getContext(),
                                          entry.getArgumentTypes(),
                                          ValueRange(results).getTypes()));
  // Results gained: drop result attributes that no longer line up.
  entry.removeResAttrsAttr();
  return success();
}
