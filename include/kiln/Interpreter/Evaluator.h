//===- Evaluator.h - the reference evaluator of kiln modules ----*- C++ -*-===//
//
// This file declares kiln's reference evaluator: it runs a kiln module's
// functions on host tensors, op by op, with HLO's numerics. It is the ground
// truth that constant folding and compiled code are compared with, and it
// is itself checked against outputs that JAX computed (StableHLO's golden
// programs). An op it cannot evaluate is an error at that op.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INTERPRETER_EVALUATOR_H
#define KILN_INTERPRETER_EVALUATOR_H

#include "kiln/Interpreter/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace kiln::interp {

class RankExchange;

/// What one kiln.check found.
struct CheckOutcome {
  mlir::Location loc;
  /// eq, almost_eq or close.
  std::string comparison;
  bool passed = false;
  /// Elements compared, and how many were out of bounds.
  int64_t elements = 0;
  int64_t failing = 0;
  /// The largest difference found: absolute for almost_eq, in ULPs for
  /// close (floats), 0 or 1 for eq; and where, as `[i,j]: got vs want`.
  double worstError = 0;
  std::string worst;
};

/// How a check compares: `eq`, `almost_eq` (within `tolerance`, absolute
/// or relative) or `close` (between `minUlps` and `maxUlps` units in the
/// last place).
struct CheckRule {
  std::string comparison = "eq";
  double tolerance = 1e-4;
  double maxUlps = 3, minUlps = 0;
};

/// Compares `actual` with `expected` (same element type and count) as a
/// kiln.check at `loc` does; compiled golden programs are checked with it.
CheckOutcome compareCheckValues(const CheckRule &rule, const HostTensor &actual,
                                const HostTensor &expected, mlir::Location loc);

struct EvaluatorOptions {
  /// Graphs whose estimated work (element operations) exceeds this are
  /// refused before anything runs.
  double maxWork = 2e10;
  /// Graphs with a parameter or an op result of more elements than this
  /// (each held in 8 or 16 bytes) are refused before anything runs.
  int64_t maxTensorElements = int64_t(1) << 28;
  /// The participant this evaluator runs (partition_id and replica_id give
  /// it), and where it meets the others at collectives; without an
  /// exchange, collectives have one participant.
  int rank = 0;
  std::shared_ptr<RankExchange> exchange;
  /// The grid of StableHLO's interpreter harness (kiln.run_parallel):
  /// rank = replica * partitions + partition, and collectives read their
  /// replica groups by their mode (cross-replica, cross-partition, ...).
  /// 0: no grid; ranks are flat ids that replica groups name directly.
  int replicas = 0, partitions = 0;
  /// The harness's infeed queues (functions): the k-th infeed a program
  /// runs reads the k-th one's results.
  std::vector<std::string> infeedQueues;
};

/// Runs `module`'s entry as `ranks` participants, one thread each, every
/// rank on its own arguments; the results by rank, and each rank's checks
/// into `checks` when given. Collectives exchange data between the ranks.
/// Errors are reported through the context (which must allow threading).
mlir::FailureOr<std::vector<std::vector<HostTensor>>>
runRanks(mlir::ModuleOp module, int ranks,
         llvm::ArrayRef<std::vector<HostTensor>> arguments,
         EvaluatorOptions options = {},
         std::vector<std::vector<CheckOutcome>> *checks = nullptr);

/// Estimated element operations to evaluate `function` once (loops counted
/// once per trip they cannot be seen to make: once).
double estimateWork(mlir::func::FuncOp function);

class Evaluator {
public:
  explicit Evaluator(mlir::ModuleOp module, EvaluatorOptions options = {});
  ~Evaluator();

  /// The module's entry (its public function).
  mlir::func::FuncOp getEntry() const;

  /// Runs `function` on `arguments` (one per parameter, of its types).
  /// Reports an error at the op it cannot evaluate, and fails.
  mlir::FailureOr<std::vector<HostTensor>>
  call(mlir::func::FuncOp function, llvm::ArrayRef<HostTensor> arguments);

  /// Refuses (with an error) a graph too large to evaluate: its estimated
  /// work or its largest tensor above the options' limits. `call` checks
  /// this first; a caller that builds large inputs checks before.
  mlir::LogicalResult checkSize(mlir::func::FuncOp function);

  /// The checks that ran, in order.
  llvm::ArrayRef<CheckOutcome> getChecks() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace kiln::interp

#endif // KILN_INTERPRETER_EVALUATOR_H
