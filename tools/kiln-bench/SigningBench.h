//===- SigningBench.h - kiln-bench signing ----------------------*- C++ -*-===//
//
// This file declares `kiln-bench signing`, which measures what signed
// entries add to a lookup: checking a large artifact's XXH3-128 checksum
// alone (what every verified lookup does) against the checksum and the
// signature check (BLAKE2b digest and ed25519 verification), and signing
// it, in the same run on the same bytes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_SIGNINGBENCH_H
#define KILN_TOOLS_KILN_BENCH_SIGNINGBENCH_H

#include <string>

namespace kiln::bench {

struct SigningBenchOptions {
  unsigned megabytes = 100; ///< MiB
  unsigned repeat = 7;      ///< best of
  std::string directory;    ///< for the key file (default: $TMPDIR, /tmp)
};

/// Runs the benchmark and prints its table; asserts nothing.
int runSigningBench(const SigningBenchOptions &options);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_SIGNINGBENCH_H
