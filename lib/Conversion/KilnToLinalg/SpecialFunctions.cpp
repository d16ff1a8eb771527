//===- SpecialFunctions.cpp - CHLO's special functions as runtime calls -*- C++ -*-===//
//
// This file lowers CHLO's special functions (erf_inv, lgamma, digamma,
// bessel_i1e, polygamma, zeta, next_after) to a call of the runtime's
// kiln_rt_special (RuntimeAbi.h), which computes them element by element
// with the implementations the evaluator uses: the operands are copied
// into buffers, the runtime writes the result's.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Runtime/RuntimeAbi.h"

#include "RuntimeCalls.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln::runtime_abi;

namespace {

/// With `complexOnly`, the op on complex elements only (its other element
/// types are the scalar table's): tried before the scalar table.
template <typename OpTy, SpecialFunction function, bool complexOnly = false>
struct SpecialFunctionLowering : public OpConversionPattern<OpTy> {
  SpecialFunctionLowering(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern<OpTy>(converter, context,
                                  /*benefit=*/complexOnly ? 2 : 1) {}
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = dyn_cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    Type element = type.getElementType();
    auto complexType = dyn_cast<ComplexType>(element);
    if (complexOnly != bool(complexType))
      return rewriter.notifyMatchFailure(op, "not this pattern's type");
    ElementKind kind;
    if (complexType && complexType.getElementType().isF32())
      kind = ElementKind::C64;
    else if (complexType && complexType.getElementType().isF64())
      kind = ElementKind::C128;
    else if (complexType)
      return rewriter.notifyMatchFailure(op, "complex of another type");
    else if (element.isF32())
      kind = ElementKind::F32;
    else if (element.isF64())
      kind = ElementKind::F64;
    else if (element.isBF16())
      kind = ElementKind::BF16;
    else if (element.isF16())
      kind = ElementKind::F16;
    else
      return op.emitError() << op->getName() << " on element type " << element
                            << " is not compiled by the CPU backend";
    ModuleOp module = op->template getParentOfType<ModuleOp>();
    kiln::declareRuntimeFunction(module, kSpecialFunction, kSpecialArguments,
                                 0, rewriter);
    auto bufferType = MemRefType::get(type.getShape(), element);
    llvm::SmallVector<Value> addresses;
    for (Value operand : adaptor.getOperands()) {
      Value buffer = memref::AllocOp::create(rewriter, loc, bufferType);
      auto copy = bufferization::MaterializeInDestinationOp::create(
          rewriter, loc, TypeRange(), operand, buffer);
      copy.setRestrict(true);
      copy.setWritable(true);
      addresses.push_back(kiln::getAddress(rewriter, loc, buffer));
    }
    if (addresses.size() == 1)
      addresses.push_back(kiln::getI64(rewriter, loc, 0));
    Value output = memref::AllocOp::create(rewriter, loc, bufferType);
    SmallVector<Value> arguments = {
        kiln::getI64(rewriter, loc, (int64_t)function),
        kiln::getI64(rewriter, loc, (int64_t)kind),
        addresses[0],
        addresses[1],
        kiln::getAddress(rewriter, loc, output),
        kiln::getI64(rewriter, loc, type.getNumElements())};
    func::CallOp::create(rewriter, loc, kSpecialFunction, TypeRange(),
                         arguments);
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, type, output, /*restrict=*/true, /*writable=*/true);
    return success();
  }
};

} // namespace

void kiln::populateKilnSpecialFunctionToRuntimePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<
      SpecialFunctionLowering<kiln::ErfInvOp, SpecialFunction::ErfInv>,
      SpecialFunctionLowering<kiln::LgammaOp, SpecialFunction::Lgamma>,
      SpecialFunctionLowering<kiln::DigammaOp, SpecialFunction::Digamma>,
      SpecialFunctionLowering<kiln::BesselI1eOp, SpecialFunction::BesselI1e>,
      SpecialFunctionLowering<kiln::PolygammaOp, SpecialFunction::Polygamma>,
      SpecialFunctionLowering<kiln::ZetaOp, SpecialFunction::Zeta>,
      SpecialFunctionLowering<kiln::NextAfterOp, SpecialFunction::NextAfter>,
      SpecialFunctionLowering<kiln::CoshOp, SpecialFunction::ComplexCosh,
                              true>,
      SpecialFunctionLowering<kiln::SinhOp, SpecialFunction::ComplexSinh,
                              true>,
      SpecialFunctionLowering<kiln::AcoshOp, SpecialFunction::ComplexAcosh,
                              true>,
      SpecialFunctionLowering<kiln::AsinhOp, SpecialFunction::ComplexAsinh,
                              true>,
      SpecialFunctionLowering<kiln::AtanOp, SpecialFunction::ComplexAtan,
                              true>,
      SpecialFunctionLowering<kiln::AtanhOp, SpecialFunction::ComplexAtanh,
                              true>,
      SpecialFunctionLowering<kiln::CbrtOp, SpecialFunction::ComplexCbrt,
                              true>,
      SpecialFunctionLowering<kiln::LogisticOp,
                              SpecialFunction::ComplexLogistic, true>>(
      converter, patterns.getContext());
}
