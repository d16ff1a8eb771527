//===- LoadGraph.h - read a graph file of any supported kind ----*- C++ -*-===//
//
// This file declares the one entry point that kiln's commands use to read a
// graph: HLO text (`.hlo`, `.txt`) or a kiln-dialect MLIR file (`.mlir`).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_LOADGRAPH_H
#define KILN_IMPORT_LOADGRAPH_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

/// Reads and imports the graph at `path`. Diagnostics (`file:line:col:
/// error: ...`) go to `diagnostics`, which lets parallel callers keep each
/// file's messages together. Returns null on any error.
mlir::OwningOpRef<mlir::ModuleOp> loadGraph(llvm::StringRef path,
                                            mlir::MLIRContext *context,
                                            llvm::raw_ostream &diagnostics,
                                            uint64_t *bytes = nullptr);

/// Imports a graph held in memory; the buffer's identifier names it in
/// diagnostics and, by its extension, says its kind as a path would.
mlir::OwningOpRef<mlir::ModuleOp>
loadGraphBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                mlir::MLIRContext *context, llvm::raw_ostream &diagnostics);

} // namespace kiln

#endif // KILN_IMPORT_LOADGRAPH_H
