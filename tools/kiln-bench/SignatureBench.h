//===- SignatureBench.h - kiln-bench signature ------------------*- C++ -*-===//
//
// This file declares `kiln-bench signature`, which measures what keying a
// graph costs: the import, the signature on the imported module, and the
// floor of reading the file and hashing its bytes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_SIGNATUREBENCH_H
#define KILN_TOOLS_KILN_BENCH_SIGNATUREBENCH_H

#include <string>
#include <vector>

namespace kiln::bench {

/// Options of `kiln-bench signature`.
struct SignatureBenchOptions {
  std::vector<std::string> paths;
  unsigned repeat = 5;
  /// Threads for the whole-corpus run (each with its own MLIRContext).
  unsigned jobs = 2;
};

/// Runs the benchmark and prints its table. Asserts nothing; returns 0.
int runSignatureBench(const SignatureBenchOptions &options);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_SIGNATUREBENCH_H
