//===- InputDiagnostics.h - diagnostics that quote input safely -*- C++ -*-===//
//
// This file declares the diagnostic printer that kiln's commands use for
// errors in graph files. Like MLIR's SourceMgrDiagnosticHandler it prints
// `file:line:col: error: message` and the offending line with a caret, but it
// never copies more than a window of one line, nor a raw control byte or
// invalid UTF-8, to the terminal: a malformed dump can hold a 5 MB word or
// binary garbage, and its error must stay one short, readable message.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_HLO_INPUTDIAGNOSTICS_H
#define KILN_IMPORT_HLO_INPUTDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <optional>
#include <string>

namespace kiln {

/// Prints diagnostics about `sourceMgr`'s buffers to `os`, bounded as the
/// file comment says. Installed for its lifetime, as MLIR's handlers are.
/// A diagnostic whose message and quoted line are short and printable is
/// printed exactly as MLIR prints it, or, with `passOn`, left to the
/// handler installed before (a driver's, or a `-verify-diagnostics`
/// checker): only the unprintable ones are taken over.
class InputDiagnosticHandler : public mlir::SourceMgrDiagnosticHandler {
public:
  InputDiagnosticHandler(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
                         llvm::raw_ostream &os, bool passOn = false);

  /// The most characters of a message, and of the window of a quoted
  /// source line, that are printed once a diagnostic is taken over; the
  /// middle of a longer message is left out, and says so.
  static constexpr size_t kMaxMessage = 400;
  static constexpr size_t kMaxLineWindow = 120;
  /// Up to these lengths (and printable), a diagnostic is printed the usual
  /// way, whole: a long line of a real dump is still one line.
  static constexpr size_t kUsualMaxMessage = 2000;
  static constexpr size_t kUsualMaxLine = 2000;

private:
  /// Whether MLIR's printer would print `diag` within the bounds.
  bool isPrintable(mlir::Diagnostic &diag);
  /// The source line that `loc` points at, if it is in one of the buffers.
  std::optional<llvm::StringRef> findLine(mlir::Location loc,
                                          mlir::FileLineColLoc &position);
  void print(mlir::Diagnostic &diag);
  void printOne(mlir::Location loc, llvm::StringRef message,
                mlir::DiagnosticSeverity severity);

  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
  bool passOn;
};

/// `text` made safe to print: control bytes and bytes of invalid UTF-8 as
/// `\xNN`, and at most `maxLength` characters, the middle of a longer text
/// replaced by `...`.
std::string sanitizeForTerminal(llvm::StringRef text, size_t maxLength);

} // namespace kiln

#endif // KILN_IMPORT_HLO_INPUTDIAGNOSTICS_H
