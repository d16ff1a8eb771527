//===- DumpDiagnostics.cpp - errors at the dump's positions -----*- C++ -*-===//
//
// This file implements the handler that prints kiln's diagnostics where
// the user can find them: the op's line in the dump, and the Python line.
//
//===----------------------------------------------------------------------===//

#include "DumpDiagnostics.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

llvm::StringRef severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Remark:
    return "remark";
  case DiagnosticSeverity::Note:
    return "note";
  }
  return "error";
}

void print(Diagnostic &diagnostic, llvm::StringRef input, llvm::raw_ostream &os,
           bool isNote = false) {
  kiln::HloLocation where = kiln::decodeHloLocation(diagnostic.getLocation());
  std::string position = input.str();
  if (where.dumpPosition)
    position = llvm::formatv("{0}:{1}:{2}",
                             where.dumpPosition->getFilename().getValue(),
                             where.dumpPosition->getLine(),
                             where.dumpPosition->getColumn())
                   .str();
  os << position << ": " << severityName(diagnostic.getSeverity()) << ": "
     << diagnostic.str() << "\n";
  if (!isNote && (where.source || !where.opName.empty())) {
    os << position << ": note: from ";
    if (where.source)
      os << where.source->getFilename().getValue() << ':'
         << where.source->getLine() << (where.opName.empty() ? "" : ", ");
    os << where.opName << "\n";
  }
  for (Diagnostic &note : diagnostic.getNotes())
    print(note, input, os, /*isNote=*/true);
}

} // namespace

kiln::DumpDiagnosticHandler::DumpDiagnosticHandler(MLIRContext *context,
                                                   std::string inputPath,
                                                   llvm::raw_ostream *out,
                                                   bool quoteOps)
    : ScopedDiagnosticHandler(context), context(context),
      quotedOps(context->shouldPrintOpOnDiagnostic()),
      input(std::move(inputPath)) {
  if (!quoteOps)
    context->printOpOnDiagnostic(false);
  setHandler([this, out](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    std::string printed;
    llvm::raw_string_ostream os(printed);
    print(diagnostic, input, os);
    if (!printedOnce.insert(printed).second)
      return success();
    (out ? *out : llvm::errs()) << printed;
    text += printed;
    return success();
  });
}

kiln::DumpDiagnosticHandler::~DumpDiagnosticHandler() {
  context->printOpOnDiagnostic(quotedOps);
}
