//===- RunParallelGrid.h - the grid of a run_parallel harness ---*- C++ -*-===//
//
// This file declares how kiln.run_parallel (StableHLO's interpreter
// harness, `interpreter.run_parallel`) names the programs it runs and the
// infeed queues they read. The StableHLO importer checks it with this, and
// the evaluator and the CPU backend read it with it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_RUNPARALLELGRID_H
#define KILN_DIALECT_KILN_IR_RUNPARALLELGRID_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace kiln {

/// The grid of a run_parallel harness: `programs` holds a row of function
/// names per replica, one per partition.
struct RunParallelGrid {
  int64_t replicas = 0, partitions = 0;
  llvm::SmallVector<llvm::StringRef> programs; ///< row-major
  /// The infeed queues (functions), in order: the k-th infeed a program
  /// runs reads the k-th one's results.
  llvm::SmallVector<llvm::StringRef> infeeds;
};

/// `op`'s (a run_parallel's) grid, or none with `error` set: programs are
/// rows of one length, `infeed` a list, and every name a function of the
/// module.
std::optional<RunParallelGrid> getRunParallelGrid(mlir::Operation *op,
                                                  std::string &error);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_RUNPARALLELGRID_H
