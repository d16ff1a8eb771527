//===- BenchTable.h - the figures of one benchmark run ----------*- C++ -*-===//
//
// This file declares the table that `kiln-bench table` prints: each
// benchmark records its headline figures beside the floor or baseline it
// measured in the same run, and the table lists them all at the end.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_BENCHTABLE_H
#define KILN_TOOLS_KILN_BENCH_BENCHTABLE_H

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln::bench {

/// One row: a figure, its floor or baseline, and how they compare.
struct Figure {
  std::string area;     ///< "import", "cache", "compile", ...
  std::string measure;  ///< what was measured, on what
  std::string value;    ///< the figure, with its unit
  std::string baseline; ///< the floor or baseline, with its unit
  std::string ratio;    ///< the figure against the baseline
};

/// Adds `figure` to this run's table.
void recordFigure(Figure figure);

/// Prints the recorded figures as a Markdown table.
void printFigureTable(llvm::raw_ostream &os);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_BENCHTABLE_H
