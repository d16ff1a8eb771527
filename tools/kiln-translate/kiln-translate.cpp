//===- kiln-translate.cpp - HLO text <-> kiln dialect -----------*- C++ -*-===//
//
// This file implements kiln-translate: mlir-translate with kiln's
// translations, `--import-hlo` (HLO text to the kiln dialect) and
// `--export-hlo` (back to HLO text).
//
//===----------------------------------------------------------------------===//

#include "kiln/Export/Hlo/HloExporter.h"
#include "kiln/Import/Hlo/HloImporter.h"
#include "kiln/Import/StableHlo/StableHloImporter.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  kiln::registerImportHloTranslation();
  kiln::registerImportStableHloTranslation();
  kiln::registerExportHloTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "kiln translation driver\n"));
}
