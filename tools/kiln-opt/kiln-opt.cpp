//===- kiln-opt.cpp - mlir-opt-compatible driver for kiln -------*- C++ -*-===//
//
// This file implements kiln-opt: mlir-opt with the kiln dialect, the dialects
// it lowers to, and kiln's passes registered. The lit suites use it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/PassStatistics.h"
#include "kiln/InitAllDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  // LLVM's release builds compile pass statistics out: under
  // -mlir-pass-statistics, kiln's passes count for themselves, and their
  // report follows MLIR's.
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.ltrim('-').starts_with("mlir-pass-statistics") &&
        !arg.contains("display"))
      kiln::setPassStatisticsEnabled(true);
  }
  mlir::LogicalResult result =
      mlir::MlirOptMain(argc, argv, "kiln optimizer driver\n", registry);
  kiln::printPassStatistics(llvm::errs());
  return mlir::asMainReturnCode(result);
}
