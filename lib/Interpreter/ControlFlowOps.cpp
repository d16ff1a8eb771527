//===- ControlFlowOps.cpp - while, conditional and pass-through ops -===//
//
// This file evaluates while (the condition region, then the body, until the
// condition is false), conditional (a predicate picks the first or second
// branch; an index out of range picks the last), and the ops that pass their
// operands through unchanged on one device: optimization_barrier, annotate,
// domain, add_dependency, after_all (a token), partition_id and replica_id
// (0: one participant); in a run_parallel harness, infeed (the next of the
// harness's queue functions) and outfeed (whose data has no reader).
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"
#include "kiln/Interpreter/CollectiveGroups.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace kiln::interp;

std::optional<LogicalResult>
kiln::interp::evaluateControlFlow(Operation *op, Operands in, Results &results,
                                  RegionRunner &runner) {
  StringRef name = op->getName().getStringRef();
  auto copyOperands = [&](Operands values) {
    for (const HostTensor *value : values)
      results.push_back(*value);
  };
  if (name == "kiln.while") {
    llvm::SmallVector<HostTensor> state;
    for (const HostTensor *value : in)
      state.push_back(*value);
    for (uint64_t trips = 1;; ++trips) {
      if (failed(runner.countLoopTrip(op, trips)))
        return failure();
      FailureOr<llvm::SmallVector<HostTensor>> condition =
          runner.runRegion(op->getRegion(0), state);
      if (failed(condition) || condition->empty())
        return failure();
      if ((*condition)[0].ints[0] == 0)
        break;
      FailureOr<llvm::SmallVector<HostTensor>> next =
          runner.runRegion(op->getRegion(1), state);
      if (failed(next))
        return failure();
      state = std::move(*next);
    }
    results.append(state.begin(), state.end());
    return success();
  }
  if (name == "kiln.conditional") {
    const HostTensor &index = *in[0];
    unsigned branches = op->getNumRegions();
    unsigned branch;
    if (isa<IntegerType>(index.elementType()) &&
        cast<IntegerType>(index.elementType()).getWidth() == 1)
      branch = index.ints[0] ? 0 : 1; // true, false computations
    else
      branch = (index.ints[0] < 0 || index.ints[0] >= branches)
                   ? branches - 1
                   : (unsigned)index.ints[0];
    llvm::ArrayRef<int64_t> counts = dimsAttr(op, "branch_operand_counts");
    int64_t first = 1;
    for (unsigned b = 0; b < branch && b < counts.size(); ++b)
      first += counts[b];
    int64_t count = branch < counts.size() ? counts[branch] : 0;
    llvm::SmallVector<HostTensor> arguments;
    for (int64_t i = first; i < first + count; ++i)
      arguments.push_back(*in[i]);
    FailureOr<llvm::SmallVector<HostTensor>> returned =
        runner.runRegion(op->getRegion(branch), arguments);
    if (failed(returned))
      return failure();
    results.append(returned->begin(), returned->end());
    return success();
  }
  if (name == "kiln.optimization_barrier" || name == "kiln.annotate" ||
      name == "kiln.domain") {
    copyOperands(in);
    return success();
  }
  if (name == "kiln.add_dependency") {
    copyOperands(in.take_front());
    return success();
  }
  if (name == "kiln.after_all") {
    results.emplace_back(op->getResult(0).getType());
    return success();
  }
  // The harness's feeds (run_parallel's infeed queues): an infeed reads
  // the next queue function's results; an outfeed's data has no reader.
  if (name == "kiln.infeed") {
    std::string queue = runner.nextInfeedQueue();
    if (queue.empty())
      return op->emitError(
          "infeed reads past the run_parallel's infeed queues");
    FailureOr<llvm::SmallVector<HostTensor>> data =
        runner.callFunction(op, queue, {});
    if (failed(data))
      return failure();
    if (data->size() + 1 != op->getNumResults())
      return op->emitError("infeed queue @")
             << queue << " gives " << data->size() << " values for "
             << op->getNumResults() - 1;
    for (HostTensor &value : *data)
      results.push_back(std::move(value));
    results.emplace_back(op->getResults().back().getType());
    return success();
  }
  if (name == "kiln.outfeed") {
    results.emplace_back(op->getResult(0).getType());
    return success();
  }
  if (name == "kiln.partition_id" || name == "kiln.replica_id") {
    // Each rank is one participant: its number, or its place in the grid.
    results.emplace_back(op->getResult(0).getType());
    auto [replicas, partitions] = runner.getGrid();
    int rank = runner.getRank();
    int64_t id = rank;
    if (partitions > 0)
      id = name == "kiln.partition_id" ? rank % partitions : rank / partitions;
    results.back().ints[0] = id;
    return success();
  }
  if (name == "kiln.run_parallel") {
    std::string error;
    std::optional<kiln::RunParallelGrid> grid =
        kiln::getRunParallelGrid(op, error);
    if (!grid)
      return op->emitError(error);
    // Each program takes the next operands, as many as it has parameters.
    auto module = op->getParentOfType<ModuleOp>();
    std::vector<std::vector<HostTensor>> arguments;
    size_t next = 0;
    for (llvm::StringRef function : grid->programs) {
      auto callee = module.lookupSymbol<func::FuncOp>(function);
      if (!callee)
        return op->emitError("program @") << function << " is not a function";
      std::vector<HostTensor> own;
      for (unsigned i = 0; i < callee.getNumArguments(); ++i) {
        if (next >= in.size())
          return op->emitError("too few operands for the programs");
        own.push_back(*in[next++]);
      }
      arguments.push_back(std::move(own));
    }
    FailureOr<std::vector<std::vector<HostTensor>>> outs =
        runner.runPrograms(op, *grid, arguments);
    if (failed(outs))
      return failure();
    for (std::vector<HostTensor> &programResults : *outs)
      for (HostTensor &result : programResults)
        results.push_back(std::move(result));
    return success();
  }
  return std::nullopt;
}
