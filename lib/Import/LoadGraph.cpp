//===- LoadGraph.cpp - read a graph file of any supported kind --*- C++ -*-===//
//
// This file implements loadGraph: the file is memory-mapped once and handed
// to the HLO importer or the MLIR parser by its extension.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/LoadGraph.h"
#include "kiln/Import/Hlo/InputDiagnostics.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/Hlo/HloImporter.h"
#include "kiln/Import/StableHlo/StableHloImporter.h"

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
  context->loadDialect<KilnDialect, func::FuncDialect>();
  std::string path = buffer->getBufferIdentifier().str();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  InputDiagnosticHandler handler(sourceMgr, context, diagnostics);
  // The content says what the text is; the extension only when it cannot.
  GraphFormat format = detectGraphFormat(
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer(),
      llvm::sys::path::extension(path) == ".mlir" ? GraphFormat::KilnMlir
                                                  : GraphFormat::HloText);
  if (format == GraphFormat::StableHlo)
    return importStableHloText(sourceMgr, context);
  if (format == GraphFormat::KilnMlir) {
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
    if (module && failed(mlir::verify(*module)))
      return nullptr;
    return module;
  }
  return importHloText(sourceMgr, context);
}
