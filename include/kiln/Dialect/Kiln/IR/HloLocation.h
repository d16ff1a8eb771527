//===- HloLocation.h - the locations of imported HLO ops --------*- C++ -*-===//
//
// This file declares how the location of an op imported from HLO text reads:
// `fused[<dump file:line:col>, <metadata>]`, where the metadata part is
// `"op_name"(<source>)` or just the source, and the source is the user's
// `file:line:col`, named by its function and nested in call sites when the
// dump had a stack. The importer writes this; the exporter, `kiln diff` and
// `kiln cache explain` read it through here.
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
};

HloLocation decodeHloLocation(mlir::Location loc);

/// `dump:line:col (source.py:line, op_name)`, leaving out what is unknown.
std::string describeHloLocation(mlir::Location loc);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_HLOLOCATION_H
