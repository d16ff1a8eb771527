//===- InitAllDialects.h - register kiln's dialects and passes --*- C++ -*-===//
//
// This file gathers the registration of every dialect and pass that kiln's
// tools need, so that each tool's main stays short.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INITALLDIALECTS_H
#define KILN_INITALLDIALECTS_H

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace kiln {

/// Registers the kiln dialect and the upstream dialects kiln uses.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  // Quantized element types (`!quant.uniform`) of StableHLO's quantization.
  registry.insert<kiln::KilnDialect, mlir::func::FuncDialect,
                  mlir::quant::QuantDialect, kiln::HloLocationDialect>();
  // What convert-kiln-to-linalg lowers to.
  registry.insert<mlir::arith::ArithDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::tensor::TensorDialect>();
  mlir::func::registerInlinerExtension(registry);
}

/// Registers kiln's passes and the upstream passes its pipelines use.
inline void registerAllPasses() {
  mlir::registerTransformsPasses();
  kiln::registerKilnPasses();
  kiln::registerKilnPipelines();
  kiln::registerKilnConversionPasses();
}

} // namespace kiln

#endif // KILN_INITALLDIALECTS_H
