//===- HloLocation.h - the locations of imported HLO ops --------*- C++ -*-===//
//
// This file declares how the location of an op imported from HLO text reads:
// `fused[<dump file:line:col>, <metadata>]`, where the metadata part is
// `"op_name"(<source>)`, or a bare `file:line:col` source without op_name.
// A source from the dump's StackFrames is a frame, `"function"(file:line:
// col)`, nested in call sites of its callers; it always has the op_name
// layer in front, empty when the dump had no op_name. An op with several
// results may carry, as the fused location's metadata, an array of one
// location per result: the metadata of the get-tuple-elements that took them
// apart. The importer writes this; the exporter, `kiln diff` and `kiln cache
// explain` read it through here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_HLOLOCATION_H
#define KILN_DIALECT_KILN_IR_HLOLOCATION_H

#include "mlir/IR/Location.h"

#include <optional>
#include <string>

namespace kiln {

/// The parts of an imported op's location.
struct HloLocation {
  /// Where the instruction stands in the dump.
  std::optional<mlir::FileLineColLoc> dumpPosition;
  /// The metadata's op_name (JAX's and PyTorch/XLA's name of the operation).
  std::string opName;
  /// The innermost source position (the user's Python line), if any.
  std::optional<mlir::FileLineColLoc> source;
  /// The whole call stack (a frame, or call sites of frames), if any.
  std::optional<mlir::Location> stack;
};

HloLocation decodeHloLocation(mlir::Location loc);

/// `dump:line:col (source.py:line, op_name)`, leaving out what is unknown.
std::string describeHloLocation(mlir::Location loc);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_HLOLOCATION_H
