//===- HloImporter.h - XLA HLO text to the kiln dialect ---------*- C++ -*-===//
//
// This file declares the translation from HLO text, as JAX, PyTorch/XLA and
// XLA itself dump it, into a module of the kiln dialect.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_HLO_HLOIMPORTER_H
#define KILN_IMPORT_HLO_HLOIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace kiln {

/// Imports the HLO text module held in `sourceMgr`'s main buffer. Returns
/// null after reporting `file:line:col: error: ...` through the context's
/// diagnostic handler when the text is malformed or describes an invalid
/// graph; never aborts. The result verifies.
mlir::OwningOpRef<mlir::ModuleOp> importHloText(llvm::SourceMgr &sourceMgr,
                                                mlir::MLIRContext *context);

/// The spelling the importer keeps of a structured value it holds as text
/// (a frontend attribute's `{...}`): its tokens with the least spacing that
/// keeps them apart. Other importers use it so that one value from two
/// formats is one text.
std::string canonicalizeHloText(llvm::StringRef text);

/// Registers `--import-hlo` with mlir-translate-style drivers.
void registerImportHloTranslation();

} // namespace kiln

#endif // KILN_IMPORT_HLO_HLOIMPORTER_H
