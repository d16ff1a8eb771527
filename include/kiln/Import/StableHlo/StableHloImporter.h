//===- StableHloImporter.h - StableHLO text into the kiln dialect -*- C++ -*-===//
//
// This file declares the StableHLO importer: MLIR text as JAX writes it
// (`jax.jit(f).lower(...).as_text()`, `jax.export`), in StableHLO's pretty or
// generic form, with `func`, `stablehlo` and `chlo` ops, into a kiln module.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_STABLEHLO_STABLEHLOIMPORTER_H
#define KILN_IMPORT_STABLEHLO_STABLEHLOIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace kiln {

/// Fails (with an error at the place) when brackets and regions of MLIR
/// text nest deeper than 512 levels: MLIR's parser recurses per level and
/// would run out of stack on a hostile file first.
mlir::LogicalResult checkMlirNesting(llvm::SourceMgr &sourceMgr,
                                     mlir::MLIRContext *context);


/// Imports the StableHLO module held in `sourceMgr`'s main buffer. Returns
/// null after reporting `file:line:col: error: ...` through the context's
/// diagnostic handler; never aborts. The result verifies.
mlir::OwningOpRef<mlir::ModuleOp>
importStableHloText(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context);

/// The kinds of graph text kiln reads.
enum class GraphFormat { HloText, StableHlo, KilnMlir };

/// Tells the kind of a graph's text from its content: HLO text starts with
/// `HloModule`; MLIR text with `stablehlo.` or `chlo.` ops is StableHLO;
/// other MLIR text is taken as kiln's. `fallback` decides when the content
/// says nothing (an empty file).
GraphFormat detectGraphFormat(llvm::StringRef text, GraphFormat fallback);

/// Registers `--import-stablehlo` with mlir-translate-style drivers.
void registerImportStableHloTranslation();

} // namespace kiln

#endif // KILN_IMPORT_STABLEHLO_STABLEHLOIMPORTER_H
