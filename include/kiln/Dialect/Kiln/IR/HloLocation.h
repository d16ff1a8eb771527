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
// The importer writes `fused[<dump position>, <metadata>]` as one
// HloInstructionLoc, which means the same: MLIR uniques every location in
// its context, and one location per instruction instead of a position and a
// fused location takes an eighth off the import. Everything that reads
// locations here knows both forms. MLIR prints and parses it as a dialect
// attribute, but its diagnostic handlers would show the metadata's source
// position in it, not the dump's: kiln's handlers read it here, hand MLIR's
// a copy in builtin form (toBuiltinLocation), and modules are printed in
// builtin form (useBuiltinLocations).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_HLOLOCATION_H
#define KILN_DIALECT_KILN_IR_HLOLOCATION_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/TypeID.h"

#include <optional>
#include <string>

namespace mlir {
class Diagnostic;
class Operation;
} // namespace mlir

namespace kiln {

namespace detail {
struct HloInstructionLocStorage;
} // namespace detail

/// An imported instruction's location that has metadata: its position in
/// the dump and its metadata's location, as `fused[dump:line:col,
/// metadata]` has them, in one uniqued attribute.
class HloInstructionLoc
    : public mlir::Attribute::AttrBase<HloInstructionLoc, mlir::LocationAttr,
                                       detail::HloInstructionLocStorage,
                                       mlir::AttributeTrait::IsLocation> {
public:
  using Base::Base;
  static constexpr llvm::StringLiteral name = "kiln_hlo.instruction";

  static HloInstructionLoc get(mlir::StringAttr filename, unsigned line,
                               unsigned column, mlir::LocationAttr metadata);
  mlir::StringAttr getFilename() const;
  unsigned getLine() const;
  unsigned getColumn() const;
  mlir::LocationAttr getMetadata() const;
  mlir::FileLineColLoc getPosition() const;
  /// The same location in builtin form: fused[file:line:col, metadata].
  mlir::Location toBuiltin() const;
};

/// The dialect of HloInstructionLoc, loaded by the HLO importer; it prints
/// and parses `#kiln_hlo.instruction<"file":line:col, loc(metadata)>`.
class HloLocationDialect : public mlir::Dialect {
public:
  explicit HloLocationDialect(mlir::MLIRContext *context);
  static constexpr llvm::StringLiteral getDialectNamespace() {
    return "kiln_hlo";
  }
  mlir::Attribute parseAttribute(mlir::DialectAsmParser &parser,
                                 mlir::Type type) const override;
  void printAttribute(mlir::Attribute attr,
                      mlir::DialectAsmPrinter &printer) const override;
};

/// `loc` with every HloInstructionLoc in it in builtin form.
mlir::Location toBuiltinLocation(mlir::Location loc);

/// Puts the locations of `root` and of everything in it (ops and block
/// arguments) in builtin form, before the module is printed with them.
void useBuiltinLocations(mlir::Operation *root);

/// Whether `diag` or one of its notes is at an HloInstructionLoc.
bool hasHloInstructionLoc(const mlir::Diagnostic &diag);

/// A copy of `diag` (message, severity, notes) at builtin locations, for
/// MLIR's diagnostic handlers.
mlir::Diagnostic withBuiltinLocations(const mlir::Diagnostic &diag);

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

MLIR_DECLARE_EXPLICIT_TYPE_ID(kiln::HloInstructionLoc)
MLIR_DECLARE_EXPLICIT_TYPE_ID(kiln::HloLocationDialect)

#endif // KILN_DIALECT_KILN_IR_HLOLOCATION_H
