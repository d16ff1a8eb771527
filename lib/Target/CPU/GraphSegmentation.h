//===- GraphSegmentation.h - a large graph compiled in pieces ---*- C++ -*-===//
//
// This file declares how the CPU backend splits a large graph into
// segments that it compiles one at a time: runs of consecutive top-level
// ops of the entry, each a module of its own whose public function takes a
// pointer per input and per output. What MLIR's and LLVM's passes cost
// grows faster than the function or module they work on (one-shot
// bufferization's alias sets, deallocation's simplification, instruction
// numbering in a block, caches); segments of bounded size make a graph's
// compile time grow with its size and no faster.
//
// A value that one segment computes and a later one reads lives in a
// temporary buffer that the entry allocates before the writer runs and
// frees after the last reader; a graph result is written by its segment
// into the caller's buffer directly. Constants and what is computed from
// constants alone (a broadcast zero, a causal mask's iotas) are recomputed
// in each segment that reads them rather than stored. Cuts are placed
// where the fewest bytes cross, and never across a causal band's ops.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_CPU_GRAPHSEGMENTATION_H
#define KILN_LIB_TARGET_CPU_GRAPHSEGMENTATION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// One segment: its module, and which buffers its function takes, in
/// order (inputs, then outputs). Buffers are numbered as in
/// SegmentedGraph.
struct GraphSegment {
  /// Null for a graph compiled whole.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The public function's name, unique among the segments.
  std::string function;
  std::vector<unsigned> inputs, outputs;
};

/// A graph as segments, called in order by the entry. Buffer i is the
/// entry's parameter i for i < parameters, its result i - parameters for
/// i < parameters + results, and temporary i - parameters - results after
/// that.
struct SegmentedGraph {
  std::vector<GraphSegment> segments;
  unsigned parameters = 0, results = 0;
  /// Each temporary's size in bytes (at least one element's), and the last
  /// segment that reads it (after which the entry frees it).
  std::vector<uint64_t> temporaryBytes;
  std::vector<unsigned> temporaryLastReader;
};

/// Splits `entry` of `module` into segments of at most about `maxOps` ops
/// each, nested ops included (one top-level op with a larger body is a
/// segment of its own, as is what follows an op whose result cannot be a
/// buffer and is read further on); `module` is left as it was. A graph
/// that fits in one segment is one segment without a module of its own:
/// `module` is compiled whole, its entry taking the parameters' and the
/// results' buffers.
SegmentedGraph splitIntoSegments(mlir::ModuleOp module,
                                 mlir::func::FuncOp entry, size_t maxOps);

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_GRAPHSEGMENTATION_H
