//===- CompileTimeModel.h - compile times estimated from size ---*- C++ -*-===//
//
// This file declares how precompile estimates the compile time of a graph
// never compiled before: from the compile times the cache remembers of
// other graphs, fitted against their sizes (ops), so that the estimate is
// this machine's and this compiler's, not a constant measured elsewhere.
// Estimates order the queue (largest first) and give the progress line
// its ETA.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DRIVER_COMPILETIMEMODEL_H
#define KILN_DRIVER_COMPILETIMEMODEL_H

#include <cstddef>
#include <string>
#include <vector>

namespace kiln {

/// One remembered compilation.
struct CompileTimeSample {
  double ops = 0;
  double seconds = 0;
};

/// seconds = perGraph + perOp * ops.
struct CompileTimeModel {
  double perGraph = 0.05;
  double perOp = 0.003;
  /// How many compilations it was fitted on; 0: the defaults above (kiln's
  /// CPU backend on the bundled corpus).
  size_t samples = 0;

  double estimate(double ops) const { return perGraph + perOp * ops; }
  /// "fitted on 12 compilations: 0.20 s + 4.1 ms per op", or "default: ...".
  std::string describe() const;
};

/// The least-squares line through `samples` (non-negative coefficients:
/// through the origin when the intercept would be negative; a constant
/// when the slope would be); one sample, or samples of one size, scale in
/// proportion to size. No samples: the defaults.
CompileTimeModel fitCompileTimes(const std::vector<CompileTimeSample> &samples);

} // namespace kiln

#endif // KILN_DRIVER_COMPILETIMEMODEL_H
