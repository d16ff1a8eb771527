//===- ScalarRegion.h - a reducer or comparator region ----------*- C++ -*-===//
//
// This file declares the runner of a region on scalars (the reducer of
// reduce, reduce_window and scatter, the selector of select_and_scatter,
// sort's comparator): a region that is one binary element-wise op of its two
// arguments is applied directly; any other region is run by the evaluator.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_INTERPRETER_SCALARREGION_H
#define KILN_LIB_INTERPRETER_SCALARREGION_H

#include "OpEvaluators.h"

namespace kiln::interp {

class ScalarRegion {
public:
  ScalarRegion(mlir::Region &region, RegionRunner &runner);

  /// Runs the region on element `indices[k]` of `tensors[k]`, for each k (the
  /// region's arguments in order); its results, one scalar each.
  mlir::FailureOr<llvm::SmallVector<HostTensor>>
  run(llvm::ArrayRef<const HostTensor *> tensors,
      llvm::ArrayRef<int64_t> indices);

  /// For a two-argument region: `acc[i] = region(acc[i], value[j])`.
  mlir::LogicalResult accumulate(HostTensor &acc, int64_t i,
                                 const HostTensor &value, int64_t j);

  /// For a region that gives one predicate: region(a[i], b[j]).
  mlir::FailureOr<bool> predicate(const HostTensor &a, int64_t i,
                                  const HostTensor &b, int64_t j);

private:
  mlir::Region &region;
  RegionRunner &runner;
  /// The op's name when the region is `return op(arg0, arg1)`.
  std::string binaryOp;
  /// Whether that op takes its arguments swapped (`op(arg1, arg0)`).
  bool swapped = false;
  /// For a predicate region `return compare(arg0, arg1)`.
  mlir::Operation *compareOp = nullptr;
};

} // namespace kiln::interp

#endif // KILN_LIB_INTERPRETER_SCALARREGION_H
