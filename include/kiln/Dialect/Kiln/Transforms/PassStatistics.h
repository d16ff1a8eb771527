//===- PassStatistics.h - kiln's pass statistics, in any build --*- C++ -*-===//
//
// This file declares how kiln's passes report their statistics where
// LLVM's release builds (Debian's among them) compile pass statistics out:
// each pass records its counters here when statistics are asked for, and
// kiln-opt prints them under `-mlir-pass-statistics` in MLIR's own format.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSSTATISTICS_H
#define KILN_DIALECT_KILN_TRANSFORMS_PASSSTATISTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace kiln {

/// One counter of a pass: its name, value and description.
struct PassCounter {
  llvm::StringRef name;
  uint64_t value;
  llvm::StringRef description;
};

/// Whether passes record their counters (kiln-opt turns it on for
/// `-mlir-pass-statistics`); off by default, so that compilation pays
/// nothing.
void setPassStatisticsEnabled(bool enabled);
bool arePassStatisticsEnabled();

/// Adds `counters` to the totals of the pass named `pass` (its C++ name,
/// as MLIR's report names passes).
void recordPassStatistics(llvm::StringRef pass,
                          std::initializer_list<PassCounter> counters);

/// Prints the totals in MLIR's pass statistics format, passes in the
/// order they first recorded.
void printPassStatistics(llvm::raw_ostream &os);

} // namespace kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSSTATISTICS_H
