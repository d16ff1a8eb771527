//===- SpecialFunctions.cpp - CHLO's special functions as runtime calls -*- C++
//-*-===//
//
// This file lowers CHLO's special functions (erf_inv, lgamma, digamma,
// bessel_i1e, polygamma, zeta, next_after), the complex functions the
// complex dialect lacks, and fft to calls of the runtime (RuntimeAbi.h),
// which computes them with the implementations the evaluator uses: the
// operands are copied into buffers, the runtime writes the result's.
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
#include "llvm/ADT/StringSwitch.h"

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
    if (complexOnly != isa<ComplexType>(element))
      return rewriter.notifyMatchFailure(op, "not this pattern's type");
    std::optional<ElementKind> kind = kiln::getRuntimeElementKind(element);
    if (!kind || !isa<FloatType, ComplexType>(element))
      return op.emitError() << op->getName() << " on element type " << element
                            << " is not compiled by the CPU backend";
    ModuleOp module = op->template getParentOfType<ModuleOp>();
    kiln::declareRuntimeFunction(module, kSpecialFunction, kSpecialArguments, 0,
                                 rewriter);
    llvm::SmallVector<Value> addresses;
    for (Value operand : adaptor.getOperands())
      addresses.push_back(kiln::getAddress(
          rewriter, loc, kiln::copyToBuffer(rewriter, loc, operand)));
    if (addresses.size() == 1)
      addresses.push_back(kiln::getI64(rewriter, loc, 0));
    Value output = kiln::allocateBuffer(rewriter, loc, type);
    SmallVector<Value> arguments = {
        kiln::getI64(rewriter, loc, (int64_t)function),
        kiln::getI64(rewriter, loc, (int64_t)*kind),
        addresses[0],
        addresses[1],
        kiln::getAddress(rewriter, loc, output),
        kiln::getI64(rewriter, loc, type.getNumElements())};
    func::CallOp::create(rewriter, loc, kSpecialFunction, TypeRange(),
                         arguments);
    rewriter.replaceOp(op, kiln::bufferAsTensor(rewriter, loc, type, output));
    return success();
  }
};

/// fft as a call of the runtime's kiln_rt_fft: the evaluator's direct
/// transforms of each line.
struct FftLowering : public OpConversionPattern<kiln::FftOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::FftOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(adaptor.getOperand().getType());
    auto resultType =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    std::optional<ElementKind> in =
        kiln::getRuntimeElementKind(inputType.getElementType());
    std::optional<ElementKind> out =
        kiln::getRuntimeElementKind(resultType.getElementType());
    int64_t type = llvm::StringSwitch<int64_t>(op.getFftType())
                       .Case("FFT", 0)
                       .Case("IFFT", 1)
                       .Case("RFFT", 2)
                       .Case("IRFFT", 3)
                       .Default(-1);
    if (!in || !out || type < 0 ||
        !isa<FloatType, ComplexType>(inputType.getElementType()) ||
        !isa<FloatType, ComplexType>(resultType.getElementType()) ||
        !inputType.hasStaticShape() || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "unsupported fft");
    ModuleOp module = op->getParentOfType<ModuleOp>();
    kiln::declareRuntimeFunction(module, kFftFunction, kFftArguments, 0,
                                 rewriter);
    Value input = kiln::copyToBuffer(rewriter, loc, adaptor.getOperand());
    Value output = kiln::allocateBuffer(rewriter, loc, resultType);
    SmallVector<Value> arguments = {
        kiln::getI64(rewriter, loc, type),
        kiln::getI64(rewriter, loc, (int64_t)*in),
        kiln::getI64(rewriter, loc, (int64_t)*out),
        kiln::getAddress(rewriter, loc, input),
        kiln::getAddress(rewriter, loc, output),
        kiln::getConstantArray(rewriter, loc, module, inputType.getShape()),
        kiln::getI64(rewriter, loc, inputType.getRank()),
        kiln::getConstantArray(rewriter, loc, module, op.getFftLength()),
        kiln::getI64(rewriter, loc, op.getFftLength().size()),
        kiln::getI64(rewriter, loc, resultType.getNumElements())};
    func::CallOp::create(rewriter, loc, kFftFunction, TypeRange(), arguments);
    rewriter.replaceOp(op,
                       kiln::bufferAsTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// triangular_solve as a call of the runtime's kiln_rt_triangular_solve:
/// the evaluator's substitution, rounded as it rounds.
struct TriangularSolveLowering
    : public OpConversionPattern<kiln::TriangularSolveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::TriangularSolveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(adaptor.getA().getType());
    auto bType = cast<RankedTensorType>(adaptor.getB().getType());
    std::optional<ElementKind> kind =
        kiln::getRuntimeElementKind(bType.getElementType());
    if (!kind || !isa<FloatType, ComplexType>(bType.getElementType()) ||
        !aType.hasStaticShape() || !bType.hasStaticShape() ||
        aType.getRank() < 2 || bType.getRank() < 2 ||
        aType.getElementType() != bType.getElementType())
      return rewriter.notifyMatchFailure(op, "unsupported triangular_solve");
    ModuleOp module = op->getParentOfType<ModuleOp>();
    kiln::declareRuntimeFunction(module, kTriangularSolveFunction,
                                 kTriangularSolveArguments, 0, rewriter);
    Value a = kiln::copyToBuffer(rewriter, loc, adaptor.getA());
    Value b = kiln::copyToBuffer(rewriter, loc, adaptor.getB());
    Value output = kiln::allocateBuffer(rewriter, loc, bType);
    int64_t flags = (op.getLeftSide() ? 1 : 0) | (op.getLower() ? 2 : 0) |
                    (op.getUnitDiagonal() ? 4 : 0) |
                    (llvm::StringSwitch<int64_t>(op.getTransposeA())
                         .Case("TRANSPOSE", 1)
                         .Case("ADJOINT", 2)
                         .Default(0)
                     << 3);
    SmallVector<Value> arguments = {
        kiln::getI64(rewriter, loc, (int64_t)*kind),
        kiln::getAddress(rewriter, loc, a),
        kiln::getAddress(rewriter, loc, b),
        kiln::getAddress(rewriter, loc, output),
        kiln::getI64(rewriter, loc, aType.getShape().back()),
        kiln::getI64(rewriter, loc, bType.getShape()[bType.getRank() - 2]),
        kiln::getI64(rewriter, loc, bType.getShape().back()),
        kiln::getI64(rewriter, loc, bType.getNumElements()),
        kiln::getI64(rewriter, loc, flags)};
    func::CallOp::create(rewriter, loc, kTriangularSolveFunction, TypeRange(),
                         arguments);
    rewriter.replaceOp(op, kiln::bufferAsTensor(rewriter, loc, bType, output));
    return success();
  }
};

/// cholesky as a call of the runtime's kiln_rt_cholesky: the evaluator's
/// factorization, rounded as it rounds.
struct CholeskyLowering : public OpConversionPattern<kiln::CholeskyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::CholeskyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
    std::optional<ElementKind> kind =
        kiln::getRuntimeElementKind(type.getElementType());
    if (!kind || !isa<FloatType, ComplexType>(type.getElementType()) ||
        !type.hasStaticShape() || type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "unsupported cholesky");
    ModuleOp module = op->getParentOfType<ModuleOp>();
    kiln::declareRuntimeFunction(module, kCholeskyFunction, kCholeskyArguments,
                                 0, rewriter);
    Value a = kiln::copyToBuffer(rewriter, loc, adaptor.getOperand());
    Value output = kiln::allocateBuffer(rewriter, loc, type);
    SmallVector<Value> arguments = {
        kiln::getI64(rewriter, loc, (int64_t)*kind),
        kiln::getAddress(rewriter, loc, a),
        kiln::getAddress(rewriter, loc, output),
        kiln::getI64(rewriter, loc, type.getShape().back()),
        kiln::getI64(rewriter, loc, type.getNumElements()),
        kiln::getI64(rewriter, loc, op.getLower() ? 1 : 0)};
    func::CallOp::create(rewriter, loc, kCholeskyFunction, TypeRange(),
                         arguments);
    rewriter.replaceOp(op, kiln::bufferAsTensor(rewriter, loc, type, output));
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
      SpecialFunctionLowering<kiln::CoshOp, SpecialFunction::ComplexCosh, true>,
      SpecialFunctionLowering<kiln::SinhOp, SpecialFunction::ComplexSinh, true>,
      SpecialFunctionLowering<kiln::AcosOp, SpecialFunction::ComplexAcos, true>,
      SpecialFunctionLowering<kiln::AsinOp, SpecialFunction::ComplexAsin, true>,
      SpecialFunctionLowering<kiln::Atan2Op, SpecialFunction::ComplexAtan2,
                              true>,
      SpecialFunctionLowering<kiln::AcoshOp, SpecialFunction::ComplexAcosh,
                              true>,
      SpecialFunctionLowering<kiln::AsinhOp, SpecialFunction::ComplexAsinh,
                              true>,
      SpecialFunctionLowering<kiln::AtanOp, SpecialFunction::ComplexAtan, true>,
      SpecialFunctionLowering<kiln::AtanhOp, SpecialFunction::ComplexAtanh,
                              true>,
      SpecialFunctionLowering<kiln::CbrtOp, SpecialFunction::ComplexCbrt, true>,
      SpecialFunctionLowering<kiln::LogisticOp,
                              SpecialFunction::ComplexLogistic, true>,
      FftLowering, TriangularSolveLowering, CholeskyLowering>(
      converter, patterns.getContext());
}
