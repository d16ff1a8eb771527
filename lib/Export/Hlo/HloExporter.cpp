//===- HloExporter.cpp - kiln dialect to XLA HLO text -----------*- C++ -*-===//
#include "kiln/Export/Hlo/HloExporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

LogicalResult kiln::exportHloText(ModuleOp module, llvm::raw_ostream &os) {
  return module.emitError("export is not implemented");
}

void kiln::registerExportHloTranslation() {
  TranslateFromMLIRRegistration registration(
      "export-hlo", "export the kiln dialect as XLA HLO text",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        return exportHloText(module, os);
      },
      [](DialectRegistry &registry) {
        registry.insert<KilnDialect, func::FuncDialect>();
      });
}
