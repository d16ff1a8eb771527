//===- CheckResults.h - golden checks as results of the entry ---*- C++ -*-===//
//
// This file declares how a golden program's checks survive compilation:
// compiled code cannot report, so each kiln.check of the entry is removed
// and its actual and expected values become two more results, which the
// runtime compares with the evaluator's rules.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_CPU_CHECKRESULTS_H
#define KILN_LIB_TARGET_CPU_CHECKRESULTS_H

#include "kiln/Runtime/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln {

/// Turns the checks of `entry` into results (after its own), in order, and
/// describes each in `checks`. Fails, with an error at the check, on a
/// check whose answer the program uses, or a check outside the entry.
mlir::LogicalResult moveChecksToResults(mlir::func::FuncOp entry,
                                        std::vector<CheckSpec> &checks);

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_CHECKRESULTS_H
