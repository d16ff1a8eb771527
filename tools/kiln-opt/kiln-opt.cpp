//===- kiln-opt.cpp - mlir-opt-compatible driver for kiln -------*- C++ -*-===//
//
// This file implements kiln-opt: mlir-opt with the kiln dialect, the dialects
// it lowers to, and kiln's passes registered. The lit suites use it.
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAllDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kiln optimizer driver\n", registry));
}
