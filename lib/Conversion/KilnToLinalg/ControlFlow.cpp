//===- ControlFlow.cpp - kiln while and conditional to scf ------*- C++ -*-===//
//
// This file lowers kiln.while to scf.while (the condition region returns a
// 0-d predicate, which scf.condition reads) and kiln.conditional to scf.if
// (a predicate: branch 0 when true) or scf.index_switch (an index: out of
// range runs the last branch, as HLO says). The regions move into the scf
// ops and their kiln ops are lowered in place; a kiln.return left in an
// scf region becomes its terminator.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

bool hasTokens(TypeRange types) {
  return llvm::any_of(types, [](Type type) { return isa<kiln::TokenType>(type); });
}

struct WhileLowering : public OpConversionPattern<kiln::WhileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::WhileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (hasTokens(op->getResultTypes()))
      return rewriter.notifyMatchFailure(op, "a loop that carries tokens");
    llvm::SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    // Regions without blocks: the kiln regions move in whole.
    auto loop = scf::WhileOp::create(rewriter, op.getLoc(), types,
                                     adaptor.getOperands(),
                                     llvm::ArrayRef<NamedAttribute>{});
    rewriter.inlineRegionBefore(op.getCondition(), loop.getBefore(),
                                loop.getBefore().end());
    rewriter.inlineRegionBefore(op.getBody(), loop.getAfter(),
                                loop.getAfter().end());
    if (failed(rewriter.convertRegionTypes(&loop.getBefore(),
                                           *getTypeConverter())) ||
        failed(rewriter.convertRegionTypes(&loop.getAfter(),
                                           *getTypeConverter())))
      return failure();
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

struct ConditionalLowering : public OpConversionPattern<kiln::ConditionalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::ConditionalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (hasTokens(op->getResultTypes()) ||
        hasTokens(op.getBranchOperands().getTypes()))
      return rewriter.notifyMatchFailure(op, "a conditional on tokens");
    Location loc = op.getLoc();
    llvm::SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    // Each branch's operands, in order.
    llvm::SmallVector<ValueRange> branchOperands;
    ValueRange all = adaptor.getBranchOperands();
    int64_t offset = 0;
    for (int64_t count : op.getBranchOperandCounts()) {
      branchOperands.push_back(all.slice(offset, count));
      offset += count;
    }
    Value index = tensor::ExtractOp::create(rewriter, loc, adaptor.getIndex(),
                                            ValueRange{});
    auto moveBranch = [&](unsigned i, Region &into) {
      Block *block = rewriter.createBlock(&into);
      rewriter.mergeBlocks(&op.getBranches()[i].front(), block,
                           branchOperands[i]);
    };
    unsigned branches = op.getBranches().size();
    if (index.getType().isInteger(1) && branches == 2) {
      auto conditional = scf::IfOp::create(rewriter, loc, types, index,
                                           /*withElseRegion=*/true);
      // Drop the blocks scf.if made, and move the branches in.
      for (Region *region : {&conditional.getThenRegion(),
                             &conditional.getElseRegion()})
        while (!region->empty())
          rewriter.eraseBlock(&region->front());
      moveBranch(0, conditional.getThenRegion());
      moveBranch(1, conditional.getElseRegion());
      rewriter.replaceOp(op, conditional.getResults());
      return success();
    }
    Value position = arith::IndexCastOp::create(rewriter, loc,
                                                rewriter.getIndexType(), index);
    llvm::SmallVector<int64_t> cases;
    for (unsigned i = 0; i + 1 < branches; ++i)
      cases.push_back(i);
    auto switchOp = scf::IndexSwitchOp::create(rewriter, loc, types, position,
                                               cases, cases.size());
    for (unsigned i = 0; i + 1 < branches; ++i)
      moveBranch(i, switchOp.getCaseRegions()[i]);
    moveBranch(branches - 1, switchOp.getDefaultRegion());
    rewriter.replaceOp(op, switchOp.getResults());
    return success();
  }
};

/// A kiln.return whose region moved into an scf op: scf.condition in a
/// loop's condition, scf.yield elsewhere.
struct ReturnLowering : public OpConversionPattern<kiln::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *parent = op->getParentOp();
    if (auto loop = dyn_cast<scf::WhileOp>(parent)) {
      if (op->getParentRegion() == &loop.getBefore()) {
        Value condition = tensor::ExtractOp::create(
            rewriter, op.getLoc(), adaptor.getResults()[0], ValueRange{});
        rewriter.replaceOpWithNewOp<scf::ConditionOp>(
            op, condition, loop.getBefore().front().getArguments());
        return success();
      }
      rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getResults());
      return success();
    }
    if (isa<scf::IfOp, scf::IndexSwitchOp>(parent)) {
      rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getResults());
      return success();
    }
    return failure();
  }
};

} // namespace

void kiln::populateKilnControlFlowToScfPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<WhileLowering, ConditionalLowering, ReturnLowering>(
      converter, patterns.getContext());
}
