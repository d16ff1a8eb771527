//===- KilnToLinalgPass.cpp - the convert-kiln-to-linalg pass ---*- C++ -*-===//
//
// This file implements convert-kiln-to-linalg: the type converter (signed
// and unsigned integers become signless, in tensors and function
// signatures) and the pass, a full conversion that joins every op family's
// patterns, so that a kiln op left over is an error at its place in the
// dump, naming it.
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace kiln {
#define GEN_PASS_DEF_CONVERTKILNTOLINALGPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

kiln::KilnTypeConverter::KilnTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](IntegerType type) -> Type { return getSignlessType(type); });
  addConversion([](RankedTensorType type) -> Type {
    return type.clone(getSignlessType(type.getElementType()));
  });
  auto cast = [](OpBuilder &builder, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

void kiln::populateKilnToLinalgPatterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  populateKilnElementwiseToLinalgPatterns(converter, patterns);
  populateKilnDataMovementToLinalgPatterns(converter, patterns);
  populateKilnIndirectDataMovementToLinalgPatterns(converter, patterns);
  populateKilnContractionToLinalgPatterns(converter, patterns);
  populateKilnReductionToLinalgPatterns(converter, patterns);
  populateKilnControlFlowToScfPatterns(converter, patterns);
  populateKilnCustomCallToLinalgPatterns(converter, patterns);
  populateKilnNormalizationToLinalgPatterns(converter, patterns);
  populateKilnSortToScfPatterns(converter, patterns);
  populateKilnCollectiveToRuntimePatterns(converter, patterns);
  populateKilnRandomToRuntimePatterns(converter, patterns);
  populateKilnQuantizationToLinalgPatterns(converter, patterns);
  populateKilnSpecialFunctionToRuntimePatterns(converter, patterns);
}

namespace {

struct ConvertKilnToLinalgPass
    : public kiln::impl::ConvertKilnToLinalgPassBase<ConvertKilnToLinalgPass> {
  using ConvertKilnToLinalgPassBase::ConvertKilnToLinalgPassBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    if (failed(kiln::dequantizeComputations(getOperation())))
      return signalPassFailure();
    kiln::KilnTypeConverter converter;
    ConversionTarget target(*context);
    target.addIllegalDialect<kiln::KilnDialect>();
    target.addLegalOp<ModuleOp, UnrealizedConversionCastOp>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect,
                           LLVM::LLVMDialect, complex::ComplexDialect,
                           memref::MemRefDialect,
                           bufferization::BufferizationDialect>();
    // scf and func ops are legal once their types are.
    target.addDynamicallyLegalDialect<scf::SCFDialect>(
        [&](Operation *op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });

    RewritePatternSet patterns(context);
    kiln::populateKilnToLinalgPatterns(converter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    if (failed(applyFullConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
