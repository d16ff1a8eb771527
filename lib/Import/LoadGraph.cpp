//===- LoadGraph.cpp - read a graph file of any supported kind --*- C++ -*-===//
//
// This file implements loadGraph: the file is memory-mapped once and handed
// to the HLO importer or the MLIR parser by its extension.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/LoadGraph.h"
#include "kiln/Import/Hlo/InputDiagnostics.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/Hlo/HloImporter.h"
#include "kiln/Import/StableHlo/StableHloImporter.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

OwningOpRef<ModuleOp> kiln::loadGraph(llvm::StringRef path,
                                      MLIRContext *context,
                                      llvm::raw_ostream &diagnostics,
                                      uint64_t *bytes) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      openInputFile(path, &errorMessage);
  if (!buffer) {
    diagnostics << path << ": error: " << errorMessage << "\n";
    return nullptr;
  }
  if (bytes)
    *bytes = buffer->getBufferSize();
  return loadGraphBuffer(std::move(buffer), context, diagnostics);
}

OwningOpRef<ModuleOp>
kiln::loadGraphBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                      MLIRContext *context, llvm::raw_ostream &diagnostics) {
  // Kiln MLIR may hold StableHLO's quantized element types, and the
  // importer's instruction locations (HloLocation.h).
  context->loadDialect<KilnDialect, func::FuncDialect, quant::QuantDialect,
                       HloLocationDialect>();
  std::string path = buffer->getBufferIdentifier().str();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  InputDiagnosticHandler handler(sourceMgr, context, diagnostics);
  // The content says what the text is; the extension only when it cannot.
  GraphFormat format = detectGraphFormat(
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer(),
      llvm::sys::path::extension(path) == ".mlir" ? GraphFormat::KilnMlir
                                                  : GraphFormat::HloText);
  OwningOpRef<ModuleOp> module;
  if (format == GraphFormat::StableHlo) {
    module = importStableHloText(sourceMgr, context);
  } else if (format == GraphFormat::KilnMlir) {
    if (failed(checkMlirNesting(sourceMgr, context)))
      return nullptr;
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
    if (module && failed(mlir::verify(*module)))
      return nullptr;
  } else {
    return importHloText(sourceMgr, context);
  }
  // One graph per file: a file of several modules (a test file split with
  // `// -----`) is not one.
  if (module && !module->getOps<ModuleOp>().empty()) {
    emitError(FileLineColLoc::get(context, path, 1, 1))
        << "the file holds several modules; kiln reads one graph (one "
           "module) per file";
    return nullptr;
  }
  // MLIR text without a function (empty, comments only) holds no graph.
  if (module && module->getOps<func::FuncOp>().empty()) {
    emitError(FileLineColLoc::get(context, path, 1, 1))
        << "no function in the file: it holds no graph";
    return nullptr;
  }
  return module;
}
