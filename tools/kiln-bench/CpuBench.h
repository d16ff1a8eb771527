//===- CpuBench.h - kiln-bench cpu: compiled code's speed -------*- C++ -*-===//
//
// This file declares the benchmark of the CPU backend's code: a dot_general
// against OpenBLAS's sgemm (loaded at run time, never linked into kiln) and
// a naive loop, both on one core in the same run, with this machine's peak
// FMA throughput; and causal attention with the mask folded against the same
// graph compiled without folding.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_CPUBENCH_H
#define KILN_TOOLS_KILN_BENCH_CPUBENCH_H

#include <string>

namespace kiln::bench {

struct CpuBenchOptions {
  /// The contraction's size (M = N = K).
  int size = 1024;
  /// Attention's sequence length and head dimension.
  int sequence = 2048;
  int headDim = 128;
  /// The MLP block's hidden and intermediate sizes (kiln-bench blocks).
  int hidden = 256;
  int intermediate = 688;
  /// Runs of each measurement; the best is printed.
  int repeat = 3;
  /// The CPU the code is built for (empty: the portable default).
  std::string cpu;
};

/// `kiln-bench cpu`: prints each figure beside its baseline.
int runCpuBench(const CpuBenchOptions &options);

/// `kiln-bench blocks`: a Llama MLP block and causal attention, f32 and
/// bf16, compiled, against textbook loops and the evaluator, with the
/// compiled code's error against the evaluator.
int runBlockBench(const CpuBenchOptions &options);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_CPUBENCH_H
