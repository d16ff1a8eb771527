//===- StableHloBench.h - kiln-bench stablehlo ------------------*- C++ -*-===//
//
// This file declares the conformance run over StableHLO's golden programs:
// how many import, per op family, the first error of each that does not,
// and the import speed against HLO text's.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_STABLEHLOBENCH_H
#define KILN_TOOLS_KILN_BENCH_STABLEHLOBENCH_H

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace kiln::bench {

struct StableHloBenchOptions {
  std::string directory = "../shared/stablehlo-testdata";
  /// HLO text to compare the import speed with.
  std::vector<std::string> hloCorpus = {"test/Inputs/corpus/hlo"};
  bool allFamilies = false;
  /// Also export each imported module to HLO text, import that again and
  /// compare signatures (a column per family, a line per file that differs).
  bool exportRoundTrip = false;
  /// Also run each imported module's checks with the evaluator (columns
  /// evaluated and passed, a line per file whose checks do not pass).
  bool evaluate = false;
  /// Also compile every imported module with the CPU backend (constant
  /// folding off, so that the checks test compiled code) and run its checks
  /// in a child process (a column per family: compiled, and passed).
  bool compile = false;
  /// With compile: exit 1 when fewer files than this percentage (outside
  /// dynamic/) compile and pass.
  double requireCompiledPercent = 0;
  /// Exit 1 when fewer files than this percentage (outside dynamic/) pass
  /// their checks; 0: never.
  double requirePassedPercent = 0;
  /// Exit 1 when fewer files than this percentage (outside dynamic/)
  /// import; 0: never.
  double requirePercent = 0;
};

int runStableHloBench(const StableHloBenchOptions &options,
                      llvm::raw_ostream &os);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_STABLEHLOBENCH_H
