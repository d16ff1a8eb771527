//===- DumpDiagnostics.h - errors at the dump's positions -------*- C++ -*-===//
//
// This file declares the diagnostic handler for errors met in a graph once
// it is imported (by `kiln run`, `kiln compile`, and the signature and
// export of `kiln hash`, `diff`, `cache` and `precompile`): an error at an
// op is printed at the op's position in the dump (`file:line:col: error:
// ...`), with the Python line and op name that the framework recorded as a
// note.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_DUMPDIAGNOSTICS_H
#define KILN_TOOLS_KILN_DUMPDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>

namespace kiln {

/// Prints every diagnostic of `context` to stderr at its dump position,
/// `input` when it has none; notes attached to a diagnostic follow it.
class DumpDiagnosticHandler : public mlir::ScopedDiagnosticHandler {
public:
  /// Prints to `os` when given (a file's diagnostics kept together while
  /// other threads read other files), else to stderr. Without `quoteOps`,
  /// an error at an op does not quote the op (MLIR's "see current
  /// operation"): at a function or the module, that is the whole graph.
  DumpDiagnosticHandler(mlir::MLIRContext *context, std::string input,
                        llvm::raw_ostream *os = nullptr, bool quoteOps = true);
  ~DumpDiagnosticHandler();

  /// How many errors were printed.
  unsigned getErrorCount() const { return errors; }

  /// Everything printed so far (a failed compilation's log).
  const std::string &getText() const { return text; }

private:
  mlir::MLIRContext *context;
  bool quotedOps;
  std::string input;
  unsigned errors = 0;
  std::string text;
  /// What was printed, each diagnostic with its notes: the participants of
  /// a multi-rank run meet the same error at the same op, said once.
  std::set<std::string> printedOnce;
};

} // namespace kiln

#endif // KILN_TOOLS_KILN_DUMPDIAGNOSTICS_H
