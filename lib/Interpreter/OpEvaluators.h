//===- OpEvaluators.h - the evaluator's op families -------------*- C++ -*-===//
//
// This file declares, per family of ops, the functions that evaluate one op
// on host tensors. Each returns std::nullopt when the op is not of its
// family, else success or failure (with an error reported at the op).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_INTERPRETER_OPEVALUATORS_H
#define KILN_LIB_INTERPRETER_OPEVALUATORS_H

#include "kiln/Dialect/Kiln/IR/RunParallelGrid.h"
#include "kiln/Interpreter/CollectiveGroups.h"
#include "kiln/Interpreter/Evaluator.h"
#include "kiln/Interpreter/RankExchange.h"

#include "mlir/IR/Operation.h"

#include <cmath>
#include <optional>

namespace kiln::interp {

/// Whether `a` comes before `b` in top_k's order, as XLA orders them:
/// greater first, a positive NaN above +inf and a negative NaN below -inf.
inline bool comesFirstInTopK(double a, double b) {
  bool aHigh = std::isnan(a) && !std::signbit(a);
  bool bHigh = std::isnan(b) && !std::signbit(b);
  if (aHigh || bHigh)
    return aHigh && !bHigh;
  bool aLow = std::isnan(a), bLow = std::isnan(b);
  if (aLow || bLow)
    return !aLow && bLow;
  return a > b;
}

using Operands = llvm::ArrayRef<const HostTensor *>;
using Results = llvm::SmallVectorImpl<HostTensor>;

/// What an op evaluator needs from the evaluator: running a region (a
/// reducer, a comparator, a loop body) or a function.
class RegionRunner {
public:
  virtual ~RegionRunner() = default;
  virtual mlir::FailureOr<llvm::SmallVector<HostTensor>>
  runRegion(mlir::Region &region, llvm::ArrayRef<HostTensor> arguments) = 0;
  virtual mlir::FailureOr<llvm::SmallVector<HostTensor>>
  callFunction(mlir::Operation *call, llvm::StringRef callee,
               llvm::ArrayRef<HostTensor> arguments) = 0;
  virtual void recordCheck(CheckOutcome outcome) = 0;
  /// Counts one more trip of `loop` (a while): its regions' work is added
  /// to what the evaluation has done, and a total past --max-work is an
  /// error at the loop (a static estimate cannot know a loop's trips).
  virtual mlir::LogicalResult countLoopTrip(mlir::Operation *loop,
                                            uint64_t trips) = 0;
  /// The participant this evaluator runs.
  virtual int getRank() = 0;
  /// Where the participants meet at collectives; null for one participant.
  virtual RankExchange *getExchange() = 0;
  /// The number of the next collective (counted per rank).
  virtual uint64_t nextCollective() = 0;
  /// The harness grid (replicas, partitions), or (0, 0) for flat ranks.
  virtual std::pair<int, int> getGrid() = 0;
  /// The function whose results the next infeed reads (the harness's
  /// queues in order); empty when none is left.
  virtual std::string nextInfeedQueue() = 0;
  /// Runs `grid`'s programs (row-major over its replicas x partitions) as
  /// the participants, one thread each, on `arguments`, reading its infeed
  /// queues; their results.
  virtual mlir::FailureOr<std::vector<std::vector<HostTensor>>>
  runPrograms(mlir::Operation *op, const RunParallelGrid &grid,
              llvm::ArrayRef<std::vector<HostTensor>> arguments) = 0;
};

using OpEvaluator = std::optional<mlir::LogicalResult> (*)(
    mlir::Operation *op, Operands operands, Results &results,
    RegionRunner &runner);

std::optional<mlir::LogicalResult>
evaluateElementwise(mlir::Operation *op, Operands operands, Results &results,
                    RegionRunner &runner);
std::optional<mlir::LogicalResult>
evaluateShapeOp(mlir::Operation *op, Operands operands, Results &results,
                RegionRunner &runner);
std::optional<mlir::LogicalResult>
evaluateIndexingOp(mlir::Operation *op, Operands operands, Results &results,
                   RegionRunner &runner);
std::optional<mlir::LogicalResult>
evaluateReduction(mlir::Operation *op, Operands operands, Results &results,
                  RegionRunner &runner);
std::optional<mlir::LogicalResult>
evaluateContraction(mlir::Operation *op, Operands operands, Results &results,
                    RegionRunner &runner);
std::optional<mlir::LogicalResult>
evaluateLinearAlgebra(mlir::Operation *op, Operands operands, Results &results,
                      RegionRunner &runner);
std::optional<mlir::LogicalResult>
evaluateControlFlow(mlir::Operation *op, Operands operands, Results &results,
                    RegionRunner &runner);
std::optional<mlir::LogicalResult>
evaluateCheck(mlir::Operation *op, Operands operands, Results &results,
              RegionRunner &runner);
std::optional<mlir::LogicalResult>
evaluateCustomCall(mlir::Operation *op, Operands operands, Results &results,
                   RegionRunner &runner);
std::optional<mlir::LogicalResult>
evaluateCollective(mlir::Operation *op, Operands operands, Results &results,
                   RegionRunner &runner);
std::optional<mlir::LogicalResult>
evaluateRandom(mlir::Operation *op, Operands operands, Results &results,
               RegionRunner &runner);

/// Element-wise helpers shared with the reductions' fast paths.
/// Applies the binary element-wise kiln op `opName` to element `i` of `lhs`
/// and `j` of `rhs`, into element `k` of `out`; false if it is not one.
bool applyBinary(llvm::StringRef opName, const HostTensor &lhs, int64_t i,
                 const HostTensor &rhs, int64_t j, HostTensor &out, int64_t k);

/// Calls `line(base, stride, length)` for each line of a row-major array of
/// `shape` along `dimension` (sort, softmax, top-k work line by line).
template <typename Fn>
void forEachLine(llvm::ArrayRef<int64_t> shape, int64_t dimension, Fn line) {
  llvm::SmallVector<int64_t> strides = stridesOf(shape);
  llvm::SmallVector<int64_t> lineShape(shape);
  lineShape[dimension] = 1;
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  int64_t lines = 1;
  for (int64_t size : lineShape)
    lines *= size;
  for (int64_t l = 0; l < lines; ++l, nextIndex(index, lineShape)) {
    int64_t base = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      base += index[d] * strides[d];
    line(base, strides[dimension], shape[dimension]);
  }
}

/// An integer attribute list (`array<i64: ...>`), empty when absent.
llvm::ArrayRef<int64_t> dimsAttr(mlir::Operation *op, llvm::StringRef name);

} // namespace kiln::interp

#endif // KILN_LIB_INTERPRETER_OPEVALUATORS_H
