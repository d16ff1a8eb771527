//===- RandomBits.cpp - rng_bit_generator as a runtime call -----*- C++ -*-===//
//
// This file lowers kiln.rng_bit_generator to a call of the runtime's
// kiln_rt_random_bits (RuntimeAbi.h), which runs XLA's generators bit for
// bit through the implementation the evaluator uses
// (kiln/Interpreter/RandomBits.h): the state is copied into a buffer, the
// runtime writes the next state and the bits into fresh ones.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Runtime/RuntimeAbi.h"

#include "RuntimeCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln::runtime_abi;

namespace {

struct RngBitGeneratorLowering
    : public OpConversionPattern<kiln::RngBitGeneratorOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(kiln::RngBitGeneratorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto stateType = dyn_cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getOutputState().getType()));
    auto outputType = dyn_cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getOutput().getType()));
    if (!stateType || !outputType || !stateType.hasStaticShape() ||
        !outputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    auto element = dyn_cast<IntegerType>(outputType.getElementType());
    unsigned width = element ? element.getWidth() : 0;
    bool threeFry = op.getAlgorithm() == "rng_three_fry";
    int64_t words = stateType.getNumElements();
    if (!stateType.getElementType().isInteger(64) ||
        !llvm::is_contained({8u, 16u, 32u, 64u}, width) ||
        (threeFry ? words != 2 : words != 2 && words != 3))
      return rewriter.notifyMatchFailure(op, "unsupported state or output");
    ModuleOp module = op->getParentOfType<ModuleOp>();
    kiln::declareRuntimeFunction(module, kRandomBitsFunction,
                                 kRandomBitsArguments, 0, rewriter);
    Value state = kiln::copyToBuffer(rewriter, loc, adaptor.getInitialState());
    Value next = kiln::allocateBuffer(rewriter, loc, stateType);
    Value bits = kiln::allocateBuffer(rewriter, loc, outputType);
    SmallVector<Value> arguments = {
        kiln::getI64(rewriter, loc, threeFry),
        kiln::getAddress(rewriter, loc, state),
        kiln::getI64(rewriter, loc, words),
        kiln::getAddress(rewriter, loc, next),
        kiln::getAddress(rewriter, loc, bits),
        kiln::getI64(rewriter, loc, width),
        kiln::getConstantArray(rewriter, loc, module, outputType.getShape()),
        kiln::getI64(rewriter, loc, outputType.getRank())};
    rewriter.create<func::CallOp>(loc, kRandomBitsFunction, TypeRange(),
                                  arguments);
    rewriter.replaceOp(op,
                       {kiln::bufferAsTensor(rewriter, loc, stateType, next),
                        kiln::bufferAsTensor(rewriter, loc, outputType, bits)});
    return success();
  }
};

} // namespace

void kiln::populateKilnRandomToRuntimePatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<RngBitGeneratorLowering>(converter, patterns.getContext());
}
