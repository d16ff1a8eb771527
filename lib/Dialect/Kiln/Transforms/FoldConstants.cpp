//===- FoldConstants.cpp - kiln-fold-constants ------------------*- C++ -*-===//
//
// This file implements kiln-fold-constants: an op whose operands are all
// kiln.constant literals, without regions or effects, is evaluated by the
// reference evaluator (the same numerics as `kiln run`) and replaced by its
// result when that literal is small (or a splat). Iotas and causal masks,
// which have no operands, are never expanded.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Interpreter/Evaluator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln {
#define GEN_PASS_DEF_KILNFOLDCONSTANTSPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {

struct FoldConstantsPass
    : public kiln::impl::KilnFoldConstantsPassBase<FoldConstantsPass> {
  using KilnFoldConstantsPassBase::KilnFoldConstantsPassBase;

  /// Evaluates `op` on its literal operands, in a module of its own.
  FailureOr<llvm::SmallVector<DenseElementsAttr>> evaluate(Operation *op) {
    MLIRContext *context = op->getContext();
    OpBuilder builder(context);
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(op->getLoc());
    builder.setInsertionPointToEnd(scratch->getBody());
    auto function = func::FuncOp::create(
        builder, op->getLoc(), "fold",
        builder.getFunctionType({}, op->getResultTypes()));
    builder.setInsertionPointToEnd(function.addEntryBlock());
    IRMapping mapping;
    for (Value operand : op->getOperands())
      mapping.map(operand, builder.clone(*operand.getDefiningOp())->getResult(0));
    Operation *copy = builder.clone(*op, mapping);
    func::ReturnOp::create(builder, op->getLoc(), copy->getResults());
    // The evaluator's errors are not the graph's: an op it cannot evaluate
    // is left as it is.
    ScopedDiagnosticHandler quiet(context, [](Diagnostic &) {
      return success();
    });
    interp::Evaluator evaluator(*scratch);
    FailureOr<std::vector<interp::HostTensor>> results =
        evaluator.call(function, {});
    if (failed(results))
      return failure();
    llvm::SmallVector<DenseElementsAttr> literals;
    for (const interp::HostTensor &result : *results) {
      if (result.kind == interp::ElementKind::Token)
        return failure();
      DenseElementsAttr literal = result.toAttr();
      if (!literal || literal.getType() != result.type)
        return failure();
      literals.push_back(literal);
    }
    return literals;
  }

  void runOnOperation() override {
    // A folded op may make its users foldable: rounds until none folds.
    for (unsigned round = 0; round < 16; ++round)
      if (!foldRound())
        break;
  }

  /// Folds every op whose operands are literals now; whether any folded.
  bool foldRound() {
    bool changed = false;
    llvm::SmallVector<Operation *> candidates;
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() == 0 || op->getNumOperands() == 0 ||
          op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
          op->getDialect() != op->getContext()->getLoadedDialect<KilnDialect>())
        return;
      if (!llvm::all_of(op->getOperands(), [](Value operand) {
            return operand.getDefiningOp<ConstantOp>() != nullptr;
          }))
        return;
      // Small results only, unless the op keeps a splat a splat.
      int64_t elements = 0;
      for (Type type : op->getResultTypes()) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (!tensor || !tensor.hasStaticShape())
          return;
        elements += tensor.getNumElements();
      }
      bool splatIn = llvm::all_of(op->getOperands(), [](Value operand) {
        auto value = dyn_cast<DenseElementsAttr>(
            operand.getDefiningOp<ConstantOp>().getValue());
        return value && value.isSplat();
      });
      bool keepsSplat = splatIn && isa<BroadcastInDimOp, ReshapeOp, ConvertOp,
                                       TransposeOp>(op);
      if (elements > maxElements && !keepsSplat)
        return;
      candidates.push_back(op);
    });
    for (Operation *op : candidates) {
      llvm::SmallVector<DenseElementsAttr> literals;
      bool keepsSplat = isa<BroadcastInDimOp, ReshapeOp, TransposeOp>(op) &&
                        op->getNumOperands() == 1;
      if (keepsSplat) {
        // The same value everywhere, whatever the shape.
        auto value = cast<DenseElementsAttr>(
            op->getOperand(0).getDefiningOp<ConstantOp>().getValue());
        auto type = cast<ShapedType>(op->getResult(0).getType());
        if (!value.isSplat())
          continue;
        literals.push_back(value.resizeSplat(type));
      } else {
        FailureOr<llvm::SmallVector<DenseElementsAttr>> evaluated =
            evaluate(op);
        if (failed(evaluated))
          continue;
        literals = std::move(*evaluated);
      }
      OpBuilder builder(op);
      for (auto [result, literal] : llvm::zip(op->getResults(), literals)) {
        auto constant =
            ConstantOp::create(builder, op->getLoc(), literal.getType(), literal);
        result.replaceAllUsesWith(constant.getResult());
      }
      op->erase();
      ++numFolded;
      changed = true;
    }
    return changed;
  }
};

} // namespace
