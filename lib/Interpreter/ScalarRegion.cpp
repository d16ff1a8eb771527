//===- ScalarRegion.cpp - a reducer or comparator region --------*- C++ -*-===//
//
// This file implements the runner of regions on scalars, with the direct
// path for one-op reducers (add, maximum, and, ...), which are most of them.
//
//===----------------------------------------------------------------------===//

#include "ScalarRegion.h"

#include "mlir/IR/Region.h"

using namespace mlir;
using namespace kiln::interp;

ScalarRegion::ScalarRegion(Region &region, RegionRunner &runner)
    : region(region), runner(runner) {
  if (region.empty())
    return;
  Block &block = region.front();
  if (block.getNumArguments() != 2 || !llvm::hasSingleElement(
                                          block.without_terminator()))
    return;
  Operation &op = block.front();
  Operation *terminator = block.getTerminator();
  if (terminator->getNumOperands() != 1 ||
      terminator->getOperand(0) != op.getResult(0) || op.getNumOperands() != 2)
    return;
  Value a = block.getArgument(0), b = block.getArgument(1);
  bool inOrder = op.getOperand(0) == a && op.getOperand(1) == b;
  bool reversed = op.getOperand(0) == b && op.getOperand(1) == a;
  if (!inOrder && !reversed)
    return;
  if (op.getName().getStringRef() == "kiln.compare") {
    if (inOrder)
      compareOp = &op;
    return;
  }
  // Element-wise binary ops on the arguments' own type.
  if (op.getResult(0).getType() != a.getType())
    return;
  binaryOp = op.getName().getStringRef().str();
  swapped = reversed;
}

FailureOr<llvm::SmallVector<HostTensor>>
ScalarRegion::run(llvm::ArrayRef<const HostTensor *> tensors,
                  llvm::ArrayRef<int64_t> indices) {
  Block &block = region.front();
  llvm::SmallVector<HostTensor, 4> arguments;
  for (auto [k, arg] : llvm::enumerate(block.getArguments())) {
    HostTensor scalar(arg.getType());
    scalar.copyElement(*tensors[k], indices[k], 0);
    arguments.push_back(std::move(scalar));
  }
  return runner.runRegion(region, arguments);
}

LogicalResult ScalarRegion::accumulate(HostTensor &acc, int64_t i,
                                       const HostTensor &value, int64_t j) {
  if (!binaryOp.empty()) {
    bool applied = swapped ? applyBinary(binaryOp, value, j, acc, i, acc, i)
                           : applyBinary(binaryOp, acc, i, value, j, acc, i);
    if (applied)
      return success();
  }
  FailureOr<llvm::SmallVector<HostTensor>> results =
      run({&acc, &value}, {i, j});
  if (failed(results) || results->size() != 1)
    return failure();
  acc.copyElement((*results)[0], 0, i);
  return success();
}

FailureOr<bool> ScalarRegion::predicate(const HostTensor &a, int64_t i,
                                        const HostTensor &b, int64_t j) {
  FailureOr<llvm::SmallVector<HostTensor>> results = run({&a, &b}, {i, j});
  if (failed(results) || results->empty())
    return failure();
  return (*results)[0].ints[0] != 0;
}
