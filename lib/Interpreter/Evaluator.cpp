//===- Evaluator.cpp - the reference evaluator of kiln modules --*- C++ -*-===//
//
// This file implements the evaluator's core: it walks a function's block op
// by op, keeps each value's host tensor, hands each op to the family that
// evaluates it (OpEvaluators.h), runs regions and calls, and refuses up
// front a graph whose estimated work is too large.
//
//===----------------------------------------------------------------------===//

#include "kiln/Interpreter/Evaluator.h"

#include "OpEvaluators.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "kiln/Interpreter/RankExchange.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <mutex>
#include <thread>

using namespace mlir;
using namespace kiln::interp;

llvm::ArrayRef<int64_t> kiln::interp::dimsAttr(Operation *op,
                                               llvm::StringRef name) {
  auto array = op->getAttrOfType<DenseI64ArrayAttr>(name);
  return array ? array.asArrayRef() : llvm::ArrayRef<int64_t>();
}

namespace {

/// Work per result element of an op: the size of what it reduces over.
double workPerElement(Operation *op) {
  auto operandSize = [&](unsigned i) -> double {
    if (i >= op->getNumOperands())
      return 1;
    auto type = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
    return type && type.hasStaticShape() ? (double)type.getNumElements() : 1;
  };
  StringRef name = op->getName().getStringRef();
  if (name == "kiln.dot_general") {
    double contracted = 1;
    auto lhs = cast<RankedTensorType>(op->getOperand(0).getType());
    for (int64_t d : dimsAttr(op, "lhs_contracting_dims"))
      contracted *= lhs.getDimSize(d);
    return contracted;
  }
  if (name == "kiln.convolution") {
    auto rhs = cast<RankedTensorType>(op->getOperand(1).getType());
    double kernel = rhs.hasStaticShape() ? (double)rhs.getNumElements() : 1;
    int64_t out =
        op->getAttrOfType<IntegerAttr>("kernel_output_feature_dimension")
            .getInt();
    return kernel / std::max<int64_t>(1, rhs.getDimSize(out));
  }
  if (name == "kiln.reduce_window" || name == "kiln.select_and_scatter") {
    double window = 1;
    for (int64_t size : dimsAttr(op, "window_dimensions"))
      window *= size;
    return window * 8; // a region call per element of the window
  }
  if (name == "kiln.reduce")
    return operandSize(0) * 8;
  if (name == "kiln.sort")
    return 64;
  return 1;
}

} // namespace

/// The element operations of the ops inside `op` (a function, a loop).
static double estimateNestedWork(Operation *root) {
  double work = 0;
  root->walk([&](Operation *op) {
    if (op == root)
      return;
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type);
          tensor && tensor.hasStaticShape())
        work += (double)tensor.getNumElements() *
                (op->getName().getStringRef() == "kiln.reduce"
                     ? 8
                     : workPerElement(op));
  });
  return work;
}

double kiln::interp::estimateWork(func::FuncOp function) {
  return estimateNestedWork(function);
}

/// Runs `run(rank, exchange)` for every rank on a thread of its own; it
/// gives a rank's results, or failure (which aborts the exchange, so that
/// the others stop waiting). The results by rank, once all succeeded.
static FailureOr<std::vector<std::vector<HostTensor>>>
runParticipants(int count,
                llvm::function_ref<FailureOr<std::vector<HostTensor>>(
                    int rank, const std::shared_ptr<RankExchange> &exchange)>
                    run) {
  auto exchange = std::make_shared<RankExchange>(count);
  std::vector<std::vector<HostTensor>> results(count);
  std::vector<char> ok(count, 0);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < count; ++rank)
    threads.emplace_back([&, rank] {
      FailureOr<std::vector<HostTensor>> out = run(rank, exchange);
      exchange->finish(rank);
      if (failed(out)) {
        exchange->abort();
        return;
      }
      results[rank] = std::move(*out);
      ok[rank] = 1;
    });
  for (std::thread &thread : threads)
    thread.join();
  if (llvm::is_contained(ok, 0))
    return failure();
  return results;
}

struct Evaluator::Impl : RegionRunner {
  ModuleOp module;
  SymbolTable symbols;
  EvaluatorOptions options;
  std::vector<CheckOutcome> checks;
  unsigned depth = 0;

  Impl(ModuleOp module, EvaluatorOptions options)
      : module(module), symbols(module), options(options) {}

  FailureOr<SmallVector<HostTensor>> runBlock(Block &block,
                                              llvm::ArrayRef<HostTensor> args);
  LogicalResult evaluateOp(Operation *op, Operands operands, Results &results);

  FailureOr<SmallVector<HostTensor>>
  runRegion(Region &region, llvm::ArrayRef<HostTensor> arguments) override {
    if (region.empty())
      return failure();
    // Regions nest as deep as the graph does: a bound, not the stack's end.
    if (depth > 200)
      return region.getParentOp()->emitError(
          "regions and calls nest deeper than 200");
    ++depth;
    auto result = runBlock(region.front(), arguments);
    --depth;
    return result;
  }

  FailureOr<SmallVector<HostTensor>>
  callFunction(Operation *call, StringRef callee,
               llvm::ArrayRef<HostTensor> arguments) override {
    auto function = symbols.lookup<func::FuncOp>(callee);
    if (!function || function.isExternal())
      return call->emitError("call of @")
             << callee << ", which has no body in the module";
    if (depth > 200)
      return call->emitError("regions and calls nest deeper than 200 "
                             "(recursion?)");
    ++depth;
    auto result = runBlock(function.getBody().front(), arguments);
    --depth;
    return result;
  }

  void recordCheck(CheckOutcome outcome) override {
    checks.push_back(std::move(outcome));
  }

  /// What the checked graph's ops were estimated to cost (checkSize), and
  /// what loop trips have added since.
  double estimatedWork = 0;
  double loopWork = 0;
  llvm::DenseMap<Operation *, double> loopTripWork;

  LogicalResult countLoopTrip(Operation *loop, uint64_t trips) override {
    // The first trip is in the static estimate.
    if (trips == 1)
      return success();
    auto [it, inserted] = loopTripWork.try_emplace(loop, 0.0);
    if (inserted)
      it->second = std::max(1.0, estimateNestedWork(loop));
    loopWork += it->second;
    if (estimatedWork + loopWork <= options.maxWork)
      return success();
    return loop->emitError(llvm::formatv(
        "too large to evaluate: this while loop has run {0} trips, about "
        "{1:e} element operations with the rest of the graph (the limit is "
        "{2:e}, --max-work)",
        trips, estimatedWork + loopWork, options.maxWork));
  }

  int getRank() override { return options.rank; }
  RankExchange *getExchange() override { return options.exchange.get(); }
  uint64_t nextCollective() override { return collectives++; }
  uint64_t collectives = 0;
  std::pair<int, int> getGrid() override {
    return {options.replicas, options.partitions};
  }
  std::string nextInfeedQueue() override {
    return infeeds < options.infeedQueues.size()
               ? options.infeedQueues[infeeds++]
               : std::string();
  }
  size_t infeeds = 0;

  FailureOr<std::vector<std::vector<HostTensor>>>
  runPrograms(Operation *op, const kiln::RunParallelGrid &grid,
              llvm::ArrayRef<std::vector<HostTensor>> arguments) override {
    if (options.partitions > 0)
      return op->emitError("run_parallel inside a program it runs");
    // One queue read by several participants: in what order is the
    // harness's to say, which kiln does not model.
    if (grid.programs.size() > 1 && !grid.infeeds.empty())
      return op->emitError("run_parallel's infeed queues with more than one "
                           "participant are not evaluated");
    return runParticipants(
        grid.programs.size(),
        [&](int rank, const std::shared_ptr<RankExchange> &exchange)
            -> FailureOr<std::vector<HostTensor>> {
          EvaluatorOptions rankOptions = options;
          rankOptions.rank = rank;
          rankOptions.exchange = exchange;
          rankOptions.replicas = grid.replicas;
          rankOptions.partitions = grid.partitions;
          rankOptions.infeedQueues.assign(grid.infeeds.begin(),
                                          grid.infeeds.end());
          Impl participant(module, rankOptions);
          auto function = symbols.lookup<func::FuncOp>(grid.programs[rank]);
          if (!function || function.isExternal())
            return op->emitError("program @")
                   << grid.programs[rank] << " has no body";
          FailureOr<SmallVector<HostTensor>> out =
              participant.runBlock(function.getBody().front(), arguments[rank]);
          for (CheckOutcome &check : participant.checks)
            recordCheckLocked(std::move(check));
          if (failed(out))
            return failure();
          return std::vector<HostTensor>(out->begin(), out->end());
        });
  }

  /// Checks of the programs that runPrograms ran, from their threads.
  void recordCheckLocked(CheckOutcome outcome) {
    std::lock_guard<std::mutex> lock(checksMutex);
    checks.push_back(std::move(outcome));
  }
  std::mutex checksMutex;
};

FailureOr<SmallVector<HostTensor>>
Evaluator::Impl::runBlock(Block &block, llvm::ArrayRef<HostTensor> args) {
  if (args.size() != block.getNumArguments())
    return failure();
  llvm::DenseMap<Value, HostTensor> values;
  for (auto [arg, value] : llvm::zip(block.getArguments(), args))
    values[arg] = value;
  // A value's last use: its tensor is dropped after it, so that a long
  // chain of ops does not keep every intermediate alive.
  llvm::DenseMap<Value, Operation *> lastUse;
  for (Operation &op : block)
    for (Value operand : op.getOperands())
      lastUse[operand] = &op;
  for (Operation &op : block) {
    llvm::SmallVector<const HostTensor *, 4> operands;
    for (Value operand : op.getOperands()) {
      auto found = values.find(operand);
      if (found == values.end())
        return op.emitError("operand defined outside the region (kiln's "
                            "regions are isolated)");
      operands.push_back(&found->second);
    }
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      SmallVector<HostTensor> results;
      for (const HostTensor *operand : operands)
        results.push_back(*operand);
      return results;
    }
    llvm::SmallVector<HostTensor, 2> results;
    if (failed(evaluateOp(&op, operands, results)))
      return failure();
    if (results.size() != op.getNumResults())
      return op.emitError("the evaluator gave ")
             << results.size() << " results for " << op.getNumResults();
    for (Value operand : op.getOperands())
      if (lastUse.lookup(operand) == &op && !isa<BlockArgument>(operand))
        values.erase(operand);
    for (auto [result, value] : llvm::zip(op.getResults(), results))
      values[result] = std::move(value);
  }
  return block.getParentOp()->emitError("a block without a terminator");
}

LogicalResult Evaluator::Impl::evaluateOp(Operation *op, Operands operands,
                                          Results &results) {
  StringRef name = op->getName().getStringRef();
  if (name == "kiln.constant") {
    auto value = dyn_cast<DenseElementsAttr>(op->getAttr("value"));
    FailureOr<HostTensor> tensor =
        value ? HostTensor::fromAttr(value) : FailureOr<HostTensor>(failure());
    if (failed(tensor))
      return op->emitError("constant of type ")
             << op->getResult(0).getType() << " cannot be evaluated";
    results.push_back(std::move(*tensor));
    return success();
  }
  if (name == "kiln.elided_constant")
    return op->emitError("the dump left this constant's value out ({...}); "
                         "it cannot be evaluated");
  if (auto call = dyn_cast<func::CallOp>(op)) {
    llvm::SmallVector<HostTensor> arguments;
    for (const HostTensor *operand : operands)
      arguments.push_back(*operand);
    FailureOr<SmallVector<HostTensor>> returned =
        callFunction(op, call.getCallee(), arguments);
    if (failed(returned))
      return failure();
    results.append(returned->begin(), returned->end());
    return success();
  }
  for (OpEvaluator family :
       {evaluateElementwise, evaluateShapeOp, evaluateIndexingOp,
        evaluateReduction, evaluateContraction, evaluateLinearAlgebra,
        evaluateControlFlow, evaluateCheck, evaluateCustomCall,
        evaluateCollective, evaluateRandom}) {
    std::optional<LogicalResult> handled = family(op, operands, results, *this);
    if (handled)
      return *handled;
    results.clear();
  }
  return op->emitError("'") << name << "' cannot be evaluated";
}

Evaluator::Evaluator(ModuleOp module, EvaluatorOptions options)
    : impl(std::make_unique<Impl>(module, options)) {}

Evaluator::~Evaluator() = default;

func::FuncOp Evaluator::getEntry() const {
  return kiln::getEntryFunction(impl->module);
}

FailureOr<std::vector<HostTensor>>
Evaluator::call(func::FuncOp function, llvm::ArrayRef<HostTensor> arguments) {
  if (arguments.size() != function.getNumArguments())
    return function.emitError("takes ")
           << function.getNumArguments() << " arguments, got "
           << arguments.size();
  for (auto [i, argument] : llvm::enumerate(arguments))
    if (argument.type != function.getArgumentTypes()[i])
      return function.emitError("argument ")
             << i << " must be " << function.getArgumentTypes()[i] << ", got "
             << argument.type;
  if (failed(checkSize(function)))
    return failure();
  FailureOr<SmallVector<HostTensor>> results =
      impl->runBlock(function.getBody().front(), arguments);
  if (failed(results))
    return failure();
  return std::vector<HostTensor>(results->begin(), results->end());
}

LogicalResult Evaluator::checkSize(func::FuncOp function) {
  double work = estimateWork(function);
  for (auto callee : impl->module.getOps<func::FuncOp>())
    if (callee != function)
      work += estimateWork(callee);
  // The largest tensor the graph holds: the evaluator keeps each element
  // in 8 bytes (16 for complex numbers). Shapes must be static and
  // integers at most 64 bits wide; element counts are multiplied in double
  // so that a shape whose count overflows is refused, not wrapped.
  double largest = 0;
  Operation *largestAt = function;
  Operation *unsupportedAt = nullptr;
  Type unsupported;
  auto consider = [&](Type type, Operation *where) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return;
    auto integer = dyn_cast<IntegerType>(tensor.getElementType());
    if ((!tensor.hasStaticShape() || (integer && integer.getWidth() > 64)) &&
        !unsupportedAt) {
      unsupportedAt = where;
      unsupported = type;
      return;
    }
    double count = 1;
    for (int64_t size : tensor.getShape())
      count *= (double)size;
    if (count > largest) {
      largest = count;
      largestAt = where;
    }
  };
  impl->module.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      consider(type, op);
    if (auto callee = dyn_cast<func::FuncOp>(op))
      for (Type type : callee.getArgumentTypes())
        consider(type, op);
  });
  if (unsupportedAt)
    return unsupportedAt->emitError("the evaluator holds static shapes and "
                                    "integers of at most 64 bits, not ")
           << unsupported;
  if (largest > (double)impl->options.maxTensorElements)
    return largestAt->emitError(llvm::formatv(
        "too large to evaluate: a tensor of {0:e} elements (about {1:f1} GB "
        "on the host; the limit is {2} elements)",
        largest, largest * 8 / 1e9, impl->options.maxTensorElements));
  impl->estimatedWork = work;
  if (work > impl->options.maxWork)
    return function.emitError(llvm::formatv(
        "too large to evaluate: about {0:e} element operations (the limit "
        "is {1:e})",
        work, impl->options.maxWork));
  return success();
}

FailureOr<std::vector<std::vector<HostTensor>>>
kiln::interp::runRanks(ModuleOp module, int ranks,
                       llvm::ArrayRef<std::vector<HostTensor>> arguments,
                       EvaluatorOptions options,
                       std::vector<std::vector<CheckOutcome>> *checks) {
  if (checks)
    checks->assign(ranks, {});
  return runParticipants(
      ranks,
      [&](int rank, const std::shared_ptr<RankExchange> &exchange)
          -> FailureOr<std::vector<HostTensor>> {
        EvaluatorOptions rankOptions = options;
        rankOptions.rank = rank;
        rankOptions.exchange = exchange;
        Evaluator evaluator(module, rankOptions);
        FailureOr<std::vector<HostTensor>> out =
            evaluator.call(evaluator.getEntry(), arguments[rank]);
        if (checks)
          (*checks)[rank].assign(evaluator.getChecks().begin(),
                                 evaluator.getChecks().end());
        return out;
      });
}

llvm::ArrayRef<CheckOutcome> Evaluator::getChecks() const {
  return impl->checks;
}
