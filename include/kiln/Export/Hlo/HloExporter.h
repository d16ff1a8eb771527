//===- HloExporter.h - kiln dialect to XLA HLO text -------------*- C++ -*-===//
//
// This file declares the translation from a kiln module back to HLO text, so
// that external compilers can be fed and import/export can round-trip.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_EXPORT_HLO_HLOEXPORTER_H
#define KILN_EXPORT_HLO_HLOEXPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

/// Writes `module` as HLO text. Fails, after a diagnostic naming the op, on
/// ops that have no HLO form.
mlir::LogicalResult exportHloText(mlir::ModuleOp module, llvm::raw_ostream &os);

/// Registers `--export-hlo` with mlir-translate-style drivers.
void registerExportHloTranslation();

} // namespace kiln

#endif // KILN_EXPORT_HLO_HLOEXPORTER_H
