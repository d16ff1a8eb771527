//===- CheckCompilable.cpp - reject graphs that cannot compile --*- C++ -*-===//
//
// This file implements kiln-check-compilable: every constant whose value the
// dump elided, and every op that the backend does not compile, is reported
// where it stands in the dump and at the Python line it came from, and the
// pass fails.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/HloOpcodes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/StringSet.h"

namespace kiln {
#define GEN_PASS_DEF_KILNCHECKCOMPILABLEPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
/// Adds the Python side of an imported op's location to `diag`: the error
/// itself points into the dump.
void noteSource(InFlightDiagnostic &diag, Operation *op) {
  HloLocation where = decodeHloLocation(op->getLoc());
  if (!where.source && where.opName.empty())
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  if (where.source)
    os << where.source->getFilename().getValue() << ':'
       << where.source->getLine();
  if (!where.opName.empty())
    os << (where.source ? ", " : "") << where.opName;
  diag.attachNote() << "from " << text;
}

struct CheckCompilablePass
    : public kiln::impl::KilnCheckCompilablePassBase<CheckCompilablePass> {
  using KilnCheckCompilablePassBase::KilnCheckCompilablePassBase;

  void runOnOperation() override {
    bool compilable = true;
    llvm::StringSet<> unsupported;
    for (const std::string &name : unsupportedOps)
      unsupported.insert(name);
    getOperation().walk([&](Operation *op) {
      if (auto elided = dyn_cast<ElidedConstantOp>(op)) {
        InFlightDiagnostic diag =
            elided.emitError("the value of this ")
            << elided.getType()
            << " constant was left out of the dump ({...}), so the graph "
               "cannot be compiled; dump it again with its constants (for "
               "XLA: XLA_FLAGS=--xla_dump_large_constants)";
        noteSource(diag, op);
        compilable = false;
        return;
      }
      llvm::StringRef name = op->getName().getStringRef();
      if (!unsupported.contains(name))
        return;
      llvm::StringRef opcode = hloOpcodeForKilnOpName(name);
      InFlightDiagnostic diag = op->emitError("'") << name << "'";
      if (!opcode.empty())
        diag << " (HLO " << opcode << ")";
      diag << " is not supported by this backend; the graph imports and "
              "hashes, but cannot be compiled here";
      noteSource(diag, op);
      compilable = false;
    });
    if (!compilable)
      signalPassFailure();
  }
};
} // namespace
