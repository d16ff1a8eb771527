//===- CollectiveOps.cpp - collectives across evaluator ranks ---*- C++ -*-===//
//
// This file evaluates collectives. With one participant, all_reduce,
// all_gather, reduce_scatter, all_to_all and collective_broadcast give their
// operands back, collective_permute its operand where a pair sends from 0
// to 0 (else zeros), and a graph written for several participants is an
// error naming the op. With several ranks (runRanks), each collective
// exchanges every rank's operands (RankExchange.h) and computes this rank's
// result as HLO defines it, within its replica group (one group of every
// rank when none is given): all_reduce with its reducer in group order,
// all_gather concatenating in group order, reduce_scatter keeping this
// member's slice of the reduction, all_to_all sending the k-th slice (or
// operand) to the k-th member, collective_permute by its (source, target)
// pairs, collective_broadcast from the group's first member. A scalar among
// the operands of all_gather, reduce_scatter or all_to_all (PyTorch/XLA's
// token) has no dimension to split and passes through.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"
#include "ScalarRegion.h"
#include "kiln/Interpreter/CollectiveGroups.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace kiln::interp;

/// The rows of an op's replica groups (none: one row of `all` ids).
llvm::SmallVector<llvm::SmallVector<int64_t>>
kiln::interp::groupRows(Operation *op, int64_t all) {
  llvm::SmallVector<llvm::SmallVector<int64_t>> rows;
  auto groups = op->getAttrOfType<DenseIntElementsAttr>("replica_groups");
  if (!groups || groups.getNumElements() == 0) {
    rows.emplace_back();
    for (int64_t id = 0; id < all; ++id)
      rows.back().push_back(id);
    return rows;
  }
  auto shape = cast<RankedTensorType>(groups.getType()).getShape();
  auto values = llvm::to_vector(groups.getValues<int64_t>());
  int64_t size = shape.size() == 2 ? shape[1] : values.size();
  // Groups of unequal sizes are padded with -1.
  for (size_t begin = 0; size > 0 && begin + size <= values.size();
       begin += size) {
    rows.emplace_back();
    for (int64_t id : llvm::ArrayRef<int64_t>(values).slice(begin, size))
      if (id >= 0)
        rows.back().push_back(id);
  }
  return rows;
}

/// On a harness grid: the ranks of `rank`'s process group, as StableHLO
/// reads replica groups by the op's mode (no channel: cross-replica; a
/// channel: cross-replica-and-partition, or flattened ids with
/// use_global_device_ids; all_to_all and collective_broadcast with a
/// channel: cross-partition).
std::optional<llvm::SmallVector<int64_t>>
kiln::interp::gridGroupOf(Operation *op, StringRef name, int64_t rank,
                          int replicas, int partitions) {
  auto channel = op->getAttrOfType<IntegerAttr>("channel_id");
  bool hasChannel = channel && channel.getInt() > 0;
  auto global = op->getAttrOfType<BoolAttr>("use_global_device_ids");
  bool flattened = global && global.getValue();
  int64_t replica = rank / partitions, partition = rank % partitions;
  bool reduces = name == "kiln.all_reduce" || name == "kiln.all_gather" ||
                 name == "kiln.reduce_scatter";
  llvm::SmallVector<int64_t> members;
  if (reduces && hasChannel && flattened) {
    for (auto &row : groupRows(op, (int64_t)replicas * partitions))
      if (llvm::is_contained(row, rank))
        return row;
    return std::nullopt;
  }
  if (!reduces && hasChannel) {
    for (auto &row : groupRows(op, partitions))
      if (llvm::is_contained(row, partition)) {
        for (int64_t p : row)
          members.push_back(replica * partitions + p);
        return members;
      }
    return std::nullopt;
  }
  for (auto &row : groupRows(op, replicas))
    if (llvm::is_contained(row, replica)) {
      if (reduces && hasChannel) {
        for (int64_t p = 0; p < partitions; ++p)
          for (int64_t r : row)
            members.push_back(r * partitions + p);
      } else {
        for (int64_t r : row)
          members.push_back(r * partitions + partition);
      }
      return members;
    }
  return std::nullopt;
}

namespace {

/// The members of `rank`'s replica group, in order.
std::optional<llvm::SmallVector<int64_t>> groupOf(Operation *op, int64_t rank,
                                                  int ranks) {
  auto groups = op->getAttrOfType<DenseIntElementsAttr>("replica_groups");
  llvm::SmallVector<int64_t> all;
  if (!groups || groups.getNumElements() == 0) {
    for (int64_t r = 0; r < ranks; ++r)
      all.push_back(r);
    return all;
  }
  auto shape = cast<RankedTensorType>(groups.getType()).getShape();
  auto values = llvm::to_vector(groups.getValues<int64_t>());
  int64_t size = shape.size() == 2 ? shape[1] : values.size();
  for (size_t begin = 0; begin + size <= values.size(); begin += size) {
    llvm::ArrayRef<int64_t> group(values.data() + begin, size);
    if (llvm::is_contained(group, rank)) {
      llvm::SmallVector<int64_t> members;
      for (int64_t id : group)
        if (id >= 0) // padding of unequal groups
          members.push_back(id);
      return members;
    }
  }
  return std::nullopt;
}

/// The highest participant that `op`'s replica groups (a permute's
/// source-target pairs) name anywhere; -1 when they name none (all
/// participants are one group).
int64_t highestParticipant(Operation *op) {
  bool isPermute = op->getName().getStringRef() == "kiln.collective_permute";
  auto ids = op->getAttrOfType<DenseIntElementsAttr>(
      isPermute ? "source_target_pairs" : "replica_groups");
  int64_t highest = -1;
  if (ids)
    for (int64_t id : ids.getValues<int64_t>())
      highest = std::max(highest, id);
  return highest;
}

/// The error for a collective whose groups name participant `highest`
/// while `ranks` run: it says how many to run, as the compiled code's
/// runtime does.
LogicalResult emitTooFewRanks(Operation *op, int64_t highest, int64_t ranks) {
  bool isPermute = op->getName().getStringRef() == "kiln.collective_permute";
  return op->emitError(
      kiln::interp::describeTooFewParticipants(highest, ranks, isPermute));
}

/// Copies the block of `source` at `offset` along `dimension` (of
/// `target`'s extent there) into `target`.
void copyBlock(const HostTensor &source, HostTensor &target, int64_t dimension,
               int64_t offset) {
  llvm::ArrayRef<int64_t> targetShape = target.shape();
  llvm::SmallVector<int64_t> sourceStrides = stridesOf(source.shape());
  llvm::SmallVector<int64_t> index(targetShape.size(), 0);
  for (int64_t i = 0; i < target.size(); ++i, nextIndex(index, targetShape)) {
    int64_t from = 0;
    for (size_t d = 0; d < targetShape.size(); ++d)
      from += (index[d] + ((int64_t)d == dimension ? offset : 0)) *
              sourceStrides[d];
    target.copyElement(source, from, i);
  }
}

/// Places `block` into `target` at `offset` along `dimension`.
void placeBlock(const HostTensor &block, HostTensor &target, int64_t dimension,
                int64_t offset) {
  llvm::ArrayRef<int64_t> blockShape = block.shape();
  llvm::SmallVector<int64_t> targetStrides = stridesOf(target.shape());
  llvm::SmallVector<int64_t> index(blockShape.size(), 0);
  for (int64_t i = 0; i < block.size(); ++i, nextIndex(index, blockShape)) {
    int64_t to = 0;
    for (size_t d = 0; d < blockShape.size(); ++d)
      to += (index[d] + ((int64_t)d == dimension ? offset : 0)) *
            targetStrides[d];
    target.copyElement(block, i, to);
  }
}

LogicalResult evaluateAcrossRanks(Operation *op, StringRef name, Operands in,
                                  Results &results, RegionRunner &runner) {
  RankExchange &exchange = *runner.getExchange();
  int rank = runner.getRank();
  std::vector<HostTensor> mine;
  for (const HostTensor *operand : in)
    mine.push_back(*operand);
  std::optional<std::vector<std::vector<HostTensor>>> all =
      exchange.exchange(runner.nextCollective(), rank, std::move(mine));
  if (!all)
    return op->emitError("another participant failed, or finished without "
                         "reaching '")
           << name << "' (do the programs run the same collectives?)";
  auto [replicas, partitions] = runner.getGrid();
  // Without a grid, the groups name ranks: all of those named must run.
  if (partitions <= 0) {
    int64_t highest = highestParticipant(op);
    if (highest >= exchange.getRanks())
      return emitTooFewRanks(op, highest, exchange.getRanks());
  }
  if (name == "kiln.collective_permute") {
    auto pairs = op->getAttrOfType<DenseIntElementsAttr>("source_target_pairs");
    auto values = llvm::to_vector(pairs.getValues<int64_t>());
    for (Type type : op->getResultTypes())
      results.emplace_back(type);
    // On a grid, pairs name partitions (with a channel) or replicas.
    auto channel = op->getAttrOfType<IntegerAttr>("channel_id");
    bool byPartition = channel && channel.getInt() > 0;
    auto global = [&](int64_t id) -> int64_t {
      if (partitions <= 0)
        return id;
      return byPartition ? (rank / partitions) * partitions + id
                         : id * partitions + rank % partitions;
    };
    for (size_t i = 0; i + 1 < values.size(); i += 2) {
      int64_t source = global(values[i]), target = global(values[i + 1]);
      if (target != rank || source < 0 || source >= (int64_t)all->size())
        continue;
      // The source must send what this participant receives: as many
      // operands, of the same types.
      const std::vector<HostTensor> &sent = (*all)[source];
      bool same = sent.size() == results.size();
      for (size_t k = 0; same && k < sent.size(); ++k)
        same = sent[k].type == results[k].type;
      if (!same)
        return op->emitError("participant ")
               << source << " sends '" << name << "' other operand types "
               << "than participant " << rank << " receives";
      for (size_t k = 0; k < results.size(); ++k)
        results[k] = sent[k];
    }
    return success();
  }
  std::optional<llvm::SmallVector<int64_t>> group =
      partitions > 0 ? gridGroupOf(op, name, rank, replicas, partitions)
                     : groupOf(op, rank, exchange.getRanks());
  // A participant in no group of a collective_broadcast gets zeros, as
  // StableHLO defines it; of any other collective it is an error.
  if (!group && name == "kiln.collective_broadcast") {
    for (Type type : op->getResultTypes())
      results.emplace_back(type);
    return success();
  }
  if (!group)
    return op->emitError("rank ")
           << rank << " is in no replica group of '" << name << "'";
  for (int64_t member : *group)
    if (member >= exchange.getRanks())
      return emitTooFewRanks(op, *llvm::max_element(*group),
                             exchange.getRanks());
  int64_t position = llvm::find(*group, rank) - group->begin();
  int64_t size = group->size();
  llvm::ArrayRef<int64_t> dims = dimsAttr(op, "dimensions");
  // The ops that split or gather along dimensions[0] (a scalar among their
  // operands passes through).
  bool alongDim = name == "kiln.all_gather" || name == "kiln.reduce_scatter" ||
                  (name == "kiln.all_to_all" && !dims.empty());
  // Every member must give what this rank gives, and the result types must
  // be what the op makes of them: anything else would read out of bounds.
  for (int64_t member : *group) {
    const std::vector<HostTensor> &theirs = (*all)[member];
    bool same = theirs.size() == in.size();
    for (size_t k = 0; same && k < in.size(); ++k)
      same = theirs[k].type == in[k]->type;
    if (!same)
      return op->emitError("participant ")
             << member << " gives '" << name
             << "' other operand types than participant " << rank;
  }
  for (unsigned k = 0; k < op->getNumResults(); ++k) {
    auto result = dyn_cast<RankedTensorType>(op->getResult(k).getType());
    if (!result || in[k]->kind == ElementKind::Token)
      return op->emitError("'") << name << "' over tokens is not evaluated";
    llvm::ArrayRef<int64_t> operandShape = in[k]->shape();
    bool fits = true;
    if (alongDim && operandShape.empty()) {
      // A scalar beside the tensors passes through (the verifier's rule).
      fits = result == in[k]->type;
    } else if (alongDim) {
      int64_t d = dims.empty() ? -1 : dims[0];
      fits = d >= 0 && d < (int64_t)operandShape.size() &&
             result.getRank() == (int64_t)operandShape.size() &&
             result.getElementType() == in[k]->elementType();
      for (int64_t i = 0; fits && i < result.getRank(); ++i) {
        int64_t want = operandShape[i];
        if (i == d && name == "kiln.all_gather")
          want = operandShape[i] * size;
        if (i == d && name == "kiln.reduce_scatter")
          fits = operandShape[i] % size == 0, want = operandShape[i] / size;
        if (i == d && name == "kiln.all_to_all")
          fits = operandShape[i] % size == 0;
        fits = fits && result.getDimSize(i) == want;
      }
    } else if (name == "kiln.all_to_all") {
      fits = (int64_t)in.size() == size && k < in.size() &&
             result == (*all)[(*group)[k]][position].type;
    } else {
      fits = result == in[k]->type;
    }
    if (!fits)
      return op->emitError("'")
             << name << "' gives " << result << " from " << in[k]->type
             << " for a group of " << size << ": not what it makes of them";
  }
  auto reduced = [&](unsigned k) -> FailureOr<HostTensor> {
    HostTensor sum = (*all)[(*group)[0]][k];
    ScalarRegion reducer(op->getRegion(0), runner);
    for (int64_t m = 1; m < size; ++m)
      for (int64_t i = 0; i < sum.size(); ++i)
        if (failed(reducer.accumulate(sum, i, (*all)[(*group)[m]][k], i)))
          return failure();
    return sum;
  };
  for (unsigned k = 0; k < op->getNumResults(); ++k) {
    Type type = op->getResult(k).getType();
    if (alongDim && in[k]->shape().empty()) {
      results.push_back(*in[k]);
      continue;
    }
    if (name == "kiln.all_reduce") {
      FailureOr<HostTensor> sum = reduced(k);
      if (failed(sum))
        return failure();
      results.push_back(std::move(*sum));
    } else if (name == "kiln.all_gather") {
      results.emplace_back(type);
      int64_t extent = in[k]->shape()[dims[0]];
      for (int64_t m = 0; m < size; ++m)
        placeBlock((*all)[(*group)[m]][k], results.back(), dims[0], m * extent);
    } else if (name == "kiln.reduce_scatter") {
      FailureOr<HostTensor> sum = reduced(k);
      if (failed(sum))
        return failure();
      results.emplace_back(type);
      int64_t extent = results.back().shape()[dims[0]];
      copyBlock(*sum, results.back(), dims[0], position * extent);
    } else if (name == "kiln.all_to_all") {
      results.emplace_back(type);
      if (dims.empty()) {
        // Tuple form: operand `position` of member m is result m.
        results.back() = (*all)[(*group)[k]][position];
        continue;
      }
      int64_t chunk = in[k]->shape()[dims[0]] / size;
      for (int64_t m = 0; m < size; ++m) {
        HostTensor block(RankedTensorType::get(
            [&] {
              llvm::SmallVector<int64_t> shape(in[k]->shape());
              shape[dims[0]] = chunk;
              return shape;
            }(),
            in[k]->elementType()));
        copyBlock((*all)[(*group)[m]][k], block, dims[0], position * chunk);
        placeBlock(block, results.back(), dims[0], m * chunk);
      }
    } else { // collective_broadcast
      results.push_back((*all)[(*group)[0]][k]);
    }
  }
  return success();
}

} // namespace

std::optional<LogicalResult>
kiln::interp::evaluateCollective(Operation *op, Operands in, Results &results,
                                 RegionRunner &runner) {
  StringRef name = op->getName().getStringRef();
  bool isCollective = llvm::is_contained(
      {"kiln.all_reduce", "kiln.all_gather", "kiln.reduce_scatter",
       "kiln.all_to_all", "kiln.collective_broadcast",
       "kiln.collective_permute"},
      name);
  if (!isCollective)
    return std::nullopt;
  if (op->getNumResults() > in.size())
    return op->emitError("'") << name << "' has more results than operands";
  if (runner.getExchange() && runner.getExchange()->getRanks() > 1)
    return evaluateAcrossRanks(op, name, in, results, runner);
  for (auto [k, result] : llvm::enumerate(op->getResults())) {
    if (result.getType() != in[k]->type)
      return op->emitError("'")
             << name << "' is written for several participants (result "
             << result.getType() << " from " << in[k]->type
             << "); run it with --ranks N";
  }
  // On one participant, a collective is the identity (a permute without a
  // pair to itself gives zeros), unless its groups name others: then it
  // needs them, and says how many.
  if (int64_t highest = highestParticipant(op); highest > 0)
    return emitTooFewRanks(op, highest, 1);
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
  for (unsigned k = 0; k < op->getNumResults(); ++k)
    results.push_back(*in[k]);
  return success();
}

std::string kiln::interp::describeTooFewParticipants(int64_t highest,
                                                     int64_t running,
                                                     bool pairs) {
  return "the graph's collectives need " + std::to_string(highest + 1) +
         " participants (its " +
         (pairs ? "source-target pairs" : "replica groups") +
         " name participant " + std::to_string(highest) + "), but " +
         std::to_string(running) + (running == 1 ? " runs" : " run") +
         ": run it with --ranks " + std::to_string(highest + 1);
}
