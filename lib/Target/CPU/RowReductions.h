//===- RowReductions.h - float sums of several rows at once ----*- C++ -*-===//

#ifndef KILN_LIB_TARGET_CPU_ROWREDUCTIONS_H
#define KILN_LIB_TARGET_CPU_ROWREDUCTIONS_H

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// Rows whose sums one loop step advances together: 16 chains of additions
/// keep the adders busy. BandRestriction.cpp steps a band's rows as many at
/// a time, so that its row sums are such tiles already.
constexpr int64_t kInterleavedRows = 16;

/// Reorders each float sum or product along the innermost dimension
/// (softmax's row sums) so that one loop step adds the next element of
/// several rows: each row's sum is a chain of additions in order, which
/// LLVM may not reassociate, so a row at a time waits on the adder's latency
/// for every element. The rows are taken `rows` at a time (the op tiled),
/// each still summed in its own order: the results are the same bit for bit.
/// Returns how many ops it reordered.
unsigned interleaveRowReductions(mlir::ModuleOp module,
                                 int64_t rows = kInterleavedRows);

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_ROWREDUCTIONS_H
