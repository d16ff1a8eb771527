//===- RunParallelLowering.cpp - StableHLO's test harness compiled --------===//

#include "RunParallelLowering.h"

#include "kiln/Dialect/Kiln/IR/GenericOpBuilder.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/RunParallelGrid.h"
#include "kiln/Interpreter/CollectiveGroups.h"
#include "kiln/Target/CPU/CpuCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <set>

using namespace mlir;

namespace {

Value constant(OpBuilder &builder, Location loc, Attribute value) {
  return kiln::buildKilnOp(builder, loc, "kiln.constant", {},
                  cast<TypedAttr>(value).getType(),
                  {builder.getNamedAttr("value", value)});
}

/// Groups as an [groups, size] attribute, short rows padded with -1.
DenseIntElementsAttr groupsAttr(OpBuilder &builder,
                                const std::set<SmallVector<int64_t>> &groups) {
  size_t size = 0;
  for (const auto &group : groups)
    size = std::max(size, group.size());
  SmallVector<int64_t> values;
  for (const auto &group : groups) {
    values.append(group.begin(), group.end());
    values.append(size - group.size(), -1);
  }
  auto type = RankedTensorType::get({(int64_t)groups.size(), (int64_t)size},
                                    builder.getI64Type());
  return DenseIntElementsAttr::get(type, values);
}

/// Resolves the collectives and ids of `program` for a grid of
/// `replicas` x `partitions`: groups and pairs become participant numbers.
LogicalResult resolveProgram(func::FuncOp program, int64_t replicas,
                             int64_t partitions) {
  int64_t participants = replicas * partitions;
  SmallVector<Operation *> ops;
  program.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (name == "kiln.partition_id" || name == "kiln.replica_id" ||
        name == "kiln.all_reduce" || name == "kiln.all_gather" ||
        name == "kiln.reduce_scatter" || name == "kiln.all_to_all" ||
        name == "kiln.collective_broadcast" ||
        name == "kiln.collective_permute")
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    StringRef name = op->getName().getStringRef();
    if (name == "kiln.partition_id" || name == "kiln.replica_id") {
      // The participant's number, replica * partitions + partition.
      Type type = op->getResult(0).getType();
      Value flat = kiln::buildKilnOp(builder, loc, "kiln.partition_id", {}, type);
      Value count = constant(
          builder, loc,
          DenseElementsAttr::get(
              cast<ShapedType>(type),
              builder.getIntegerAttr(cast<ShapedType>(type).getElementType(),
                                     partitions)));
      Value id = kiln::buildKilnOp(builder, loc,
                          name == "kiln.partition_id" ? "kiln.remainder"
                                                      : "kiln.divide",
                          {flat, count}, type);
      op->getResult(0).replaceAllUsesWith(id);
      op->erase();
      continue;
    }
    if (name == "kiln.collective_permute") {
      auto pairs =
          op->getAttrOfType<DenseIntElementsAttr>("source_target_pairs");
      auto values = llvm::to_vector(pairs.getValues<int64_t>());
      auto channel = op->getAttrOfType<IntegerAttr>("channel_id");
      bool byPartition = channel && channel.getInt() > 0;
      SmallVector<int64_t> flat;
      int64_t outer = byPartition ? replicas : partitions;
      for (int64_t o = 0; o < outer; ++o)
        for (size_t i = 0; i + 1 < values.size(); i += 2)
          for (int64_t id : {values[i], values[i + 1]})
            flat.push_back(byPartition ? o * partitions + id
                                       : id * partitions + o);
      auto type = RankedTensorType::get({(int64_t)flat.size() / 2, 2},
                                        builder.getI64Type());
      op->setAttr("source_target_pairs", DenseIntElementsAttr::get(type, flat));
      continue;
    }
    std::set<SmallVector<int64_t>> groups;
    for (int64_t rank = 0; rank < participants; ++rank) {
      std::optional<SmallVector<int64_t>> group =
          kiln::interp::gridGroupOf(op, name, rank, replicas, partitions);
      // Outside every group of a collective_broadcast: zeros (the runtime
      // gives them to a participant no group names).
      if (!group && name == "kiln.collective_broadcast")
        continue;
      if (!group)
        return op->emitError("participant ")
               << rank << " is in no replica group of '" << name << "'";
      groups.insert(*group);
    }
    op->setAttr("replica_groups", groupsAttr(builder, groups));
  }
  return success();
}

/// Resolves `program`'s infeeds and outfeeds for a harness of one
/// participant: the k-th infeed the program runs reads the k-th of
/// `queues` (a call of it), and an outfeed's data has no reader in the
/// harness. Each one's token is its operand's.
LogicalResult resolveFeeds(func::FuncOp program,
                           llvm::ArrayRef<StringRef> queues,
                           int64_t participants) {
  SmallVector<Operation *> feeds;
  program.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (name == "kiln.infeed" || name == "kiln.outfeed")
      feeds.push_back(op);
  });
  if (feeds.empty())
    return success();
  auto module = program->getParentOfType<ModuleOp>();
  unsigned next = 0;
  for (Operation *feed : feeds) {
    bool isInfeed = feed->getName().getStringRef() == "kiln.infeed";
    if (participants != 1 || feed->getParentOp() != program.getOperation())
      return feed->emitError()
             << "'" << feed->getName()
             << "' is compiled by the CPU backend only in run_parallel's "
                "program of one participant, outside loops and branches "
                "(its queue is read in program order when compiled)";
    Value token = feed->getOperands().back();
    OpBuilder builder(feed);
    if (isInfeed) {
      if (next >= queues.size())
        return feed->emitError(
            "infeed reads past the run_parallel's infeed queues");
      StringRef queue = queues[next++];
      auto function = module.lookupSymbol<func::FuncOp>(queue);
      if (!function || TypeRange(function.getResultTypes()) !=
                           TypeRange(feed->getResultTypes()).drop_back())
        return feed->emitError("infeed queue @")
               << queue << " is not a function of the infeed's data types";
      auto call =
          func::CallOp::create(builder, feed->getLoc(), function, ValueRange());
      for (auto [data, value] :
           llvm::zip(feed->getResults().drop_back(), call.getResults()))
        data.replaceAllUsesWith(value);
    }
    feed->getResults().back().replaceAllUsesWith(token);
    feed->erase();
  }
  return success();
}

} // namespace

int64_t kiln::getRunParallelParticipants(ModuleOp module) {
  int64_t participants = 1;
  module.walk([&](Operation *op) {
    std::string error;
    if (op->getName().getStringRef() == "kiln.run_parallel")
      if (auto grid = kiln::getRunParallelGrid(op, error))
        participants = grid->replicas * grid->partitions;
  });
  return participants;
}

LogicalResult kiln::lowerRunParallel(ModuleOp module) {
  SmallVector<Operation *> harnesses;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "kiln.run_parallel")
      harnesses.push_back(op);
  });
  if (harnesses.empty())
    return success();
  if (harnesses.size() > 1)
    return harnesses[1]->emitError(
        "one run_parallel a graph is compiled by the CPU backend");
  Operation *harness = harnesses.front();
  std::string error;
  std::optional<kiln::RunParallelGrid> grid =
      kiln::getRunParallelGrid(harness, error);
  if (!grid)
    return harness->emitError(error);
  // Every participant runs the same program (on its own slot's operands).
  auto program = module.lookupSymbol<func::FuncOp>(grid->programs.front());
  if (!program || program.isExternal())
    return harness->emitError("programs must name functions");
  for (StringRef name : grid->programs)
    if (name != grid->programs.front())
      return harness->emitError(
          "run_parallel of different programs is not compiled by the CPU "
          "backend (every participant runs one)");
  int64_t participants = grid->replicas * grid->partitions;
  for (Type type : harness->getResultTypes())
    if (!isa<RankedTensorType>(type) &&
        !(participants == 1 && isa<kiln::TokenType>(type)))
      return harness->emitError(
          "run_parallel of several participants with token results is not "
          "compiled by the CPU backend");
  unsigned arguments = program.getNumArguments();
  unsigned resultCount = program.getNumResults();
  if (harness->getNumOperands() != arguments * participants ||
      harness->getNumResults() != resultCount * participants)
    return harness->emitError("the programs' operands and results do not "
                              "match run_parallel's");
  if (failed(resolveProgram(program, grid->replicas, grid->partitions)) ||
      failed(resolveFeeds(program, grid->infeeds, participants)))
    return failure();

  // Each slot's results are its participant's, zeros on the others.
  OpBuilder builder(harness);
  Location loc = harness->getLoc();
  auto u32 = RankedTensorType::get({}, builder.getIntegerType(32, false));
  Value flat = kiln::buildKilnOp(builder, loc, "kiln.partition_id", {}, u32);
  auto pred = RankedTensorType::get({}, builder.getI1Type());
  SmallVector<Value> isSlot;
  for (int64_t k = 0; k < participants; ++k) {
    Value number =
        constant(builder, loc,
                 DenseElementsAttr::get(
                     u32, builder.getIntegerAttr(u32.getElementType(), k)));
    isSlot.push_back(kiln::buildKilnOp(
        builder, loc, "kiln.compare", {flat, number}, pred,
        {builder.getNamedAttr("direction", builder.getStringAttr("EQ"))}));
  }
  auto pick = [&](Value onTrue, Value onFalse, int64_t k) {
    return kiln::buildKilnOp(builder, loc, "kiln.select", {isSlot[k], onTrue, onFalse},
                    onTrue.getType());
  };
  SmallVector<Value> mine;
  for (unsigned a = 0; a < arguments; ++a) {
    Value value = harness->getOperand(a);
    for (int64_t k = 1; k < participants; ++k)
      value = pick(harness->getOperand(k * arguments + a), value, k);
    mine.push_back(value);
  }
  auto call = func::CallOp::create(builder, loc, program, mine);
  SmallVector<Value> slotResults;
  for (int64_t k = 0; k < participants; ++k)
    for (unsigned r = 0; r < resultCount; ++r) {
      // A token (of the one participant) is the program's own.
      auto type = dyn_cast<RankedTensorType>(call.getResult(r).getType());
      if (!type) {
        slotResults.push_back(call.getResult(r));
        continue;
      }
      slotResults.push_back(
          pick(call.getResult(r),
               constant(builder, loc, builder.getZeroAttr(type)), k));
    }
  // Every participant gets every slot's results: a sum over all of them.
  SmallVector<int64_t> everyone;
  for (int64_t p = 0; p < participants; ++p)
    everyone.push_back(p);
  auto groups = DenseIntElementsAttr::get(
      RankedTensorType::get({1, participants}, builder.getI64Type()), everyone);
  for (auto [i, result] : llvm::enumerate(harness->getResults())) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type) {
      result.replaceAllUsesWith(slotResults[i]);
      continue;
    }
    OperationState reduce(loc, "kiln.all_reduce");
    reduce.addOperands(slotResults[i]);
    reduce.addTypes(type);
    reduce.addAttribute("replica_groups", groups);
    reduce.addRegion();
    Operation *allReduce = builder.create(reduce);
    Block *block = new Block();
    allReduce->getRegion(0).push_back(block);
    auto scalar = RankedTensorType::get({}, type.getElementType());
    block->addArgument(scalar, loc);
    block->addArgument(scalar, loc);
    OpBuilder body = OpBuilder::atBlockEnd(block);
    Value sum =
        kiln::buildKilnOp(body, loc, "kiln.add",
                 {block->getArgument(0), block->getArgument(1)}, scalar);
    OperationState returned(loc, "kiln.return");
    returned.addOperands(sum);
    body.create(returned);
    result.replaceAllUsesWith(allReduce->getResult(0));
  }
  harness->erase();
  return success();
}
