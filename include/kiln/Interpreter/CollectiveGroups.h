//===- CollectiveGroups.h - replica groups on a harness grid ----*- C++ -*-===//
//
// This file declares how a collective's replica groups name participants
// on the grid of replicas x partitions that StableHLO's interpreter tests
// run (`interpreter.run_parallel`), by the op's mode. The evaluator reads
// them at run time; the CPU backend resolves them to participant numbers
// when it compiles such a harness. Groups that name more participants than
// run are said in one way by the evaluator and by compiled code's runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INTERPRETER_COLLECTIVEGROUPS_H
#define KILN_INTERPRETER_COLLECTIVEGROUPS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace kiln::interp {

/// The rows of an op's replica groups (none: one row of `all` ids), the
/// padding of unequal rows (-1) left out.
llvm::SmallVector<llvm::SmallVector<int64_t>> groupRows(mlir::Operation *op,
                                                        int64_t all);

/// The participants (replica * partitions + partition) of `rank`'s group
/// of collective `name` (`kiln.all_reduce`, ...) on a grid, as StableHLO
/// reads replica groups by mode: no channel, cross-replica; a channel,
/// cross-replica-and-partition, or flattened ids with
/// use_global_device_ids; all_to_all and collective_broadcast with a
/// channel, cross-partition.
std::optional<llvm::SmallVector<int64_t>>
gridGroupOf(mlir::Operation *op, llvm::StringRef name, int64_t rank,
            int replicas, int partitions);

/// What the evaluator and compiled code's runtime say of a collective
/// whose replica groups (`pairs`: a permute's source-target pairs) name
/// participant `highest` while `running` run: how many to run.
std::string describeTooFewParticipants(int64_t highest, int64_t running,
                                       bool pairs);

} // namespace kiln::interp

#endif // KILN_INTERPRETER_COLLECTIVEGROUPS_H
