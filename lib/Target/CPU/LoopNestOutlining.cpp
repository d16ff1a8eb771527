//===- LoopNestOutlining.cpp - one LLVM function per loop nest ------------===//

#include "LoopNestOutlining.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// Ops made again inside an outlined function rather than passed: views
/// (whose strided types the bare-pointer convention cannot pass) and
/// constants.
bool isRemade(Operation *op) {
  return isa<arith::ConstantOp, memref::SubViewOp, memref::ExpandShapeOp,
             memref::CollapseShapeOp, memref::ReinterpretCastOp, memref::CastOp,
             memref::TransposeOp>(op);
}

/// Whether `value` can be a parameter under the bare-pointer convention.
bool isPassable(Value value) {
  Type type = value.getType();
  if (auto memref = dyn_cast<MemRefType>(type))
    return memref.hasStaticShape() && memref.getLayout().isIdentity() &&
           memref.getNumElements() > 0;
  return type.isIntOrIndexOrFloat();
}

bool isLoopNest(Operation &op) {
  if (op.getNumResults() != 0)
    return false;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp.hasPureBufferSemantics();
  return isa<scf::ForOp, scf::ParallelOp, affine::AffineForOp,
             affine::AffineParallelOp>(op);
}

} // namespace

SmallVector<func::FuncOp> kiln::outlineLoopNests(ModuleOp module) {
  SmallVector<func::FuncOp> entries;
  for (auto function : module.getOps<func::FuncOp>())
    if (function.isPublic() && !function.isExternal())
      entries.push_back(function);
  SmallVector<func::FuncOp> outlined;
  MLIRContext *context = module.getContext();
  auto noinline =
      ArrayAttr::get(context, {StringAttr::get(context, "noinline")});
  for (func::FuncOp entry : entries) {
    // Positions in the entry, taken once: calls put in place of nests
    // would make every isBeforeInBlock renumber the block.
    SmallVector<Operation *> nests;
    llvm::DenseMap<Operation *, unsigned> position;
    for (Operation &op : entry.getBody().front()) {
      position[&op] = position.size();
      if (isLoopNest(op))
        nests.push_back(&op);
    }
    for (Operation *nest : nests) {
      // What the nest uses from outside: remade inside, or passed.
      llvm::SetVector<Value> used(nest->operand_begin(), nest->operand_end());
      getUsedValuesDefinedAbove(nest->getRegions(), used);
      llvm::SetVector<Operation *> remade;
      llvm::SetVector<Value> parameters;
      SmallVector<Value> worklist(used.begin(), used.end());
      bool passable = true;
      while (!worklist.empty() && passable) {
        Value value = worklist.pop_back_val();
        Operation *definition = value.getDefiningOp();
        if (definition && isRemade(definition) &&
            definition->getBlock() == nest->getBlock()) {
          if (remade.insert(definition))
            worklist.append(definition->operand_begin(),
                            definition->operand_end());
          continue;
        }
        passable = isPassable(value);
        parameters.insert(value);
      }
      if (!passable)
        continue;
      SmallVector<Operation *> ordered(remade.begin(), remade.end());
      llvm::sort(ordered, [&](Operation *a, Operation *b) {
        return position.lookup(a) < position.lookup(b);
      });

      OpBuilder builder(entry);
      Location loc = nest->getLoc();
      SmallVector<Type> types;
      for (Value parameter : parameters)
        types.push_back(parameter.getType());
      std::string name =
          (entry.getSymName() + ".nest" + llvm::Twine(outlined.size())).str();
      auto function = func::FuncOp::create(
          builder, loc, name, FunctionType::get(context, types, {}));
      function.setPrivate();
      function->setAttr("passthrough", noinline);
      Block *body = function.addEntryBlock();
      IRMapping mapping;
      for (auto [parameter, argument] :
           llvm::zip(parameters, body->getArguments()))
        mapping.map(parameter, argument);
      OpBuilder inside = OpBuilder::atBlockEnd(body);
      for (Operation *op : ordered)
        inside.clone(*op, mapping);
      inside.clone(*nest, mapping);
      func::ReturnOp::create(inside, loc);

      OpBuilder at(nest);
      func::CallOp::create(at, loc, function, parameters.getArrayRef());
      nest->erase();
      outlined.push_back(function);
    }
  }
  return outlined;
}
