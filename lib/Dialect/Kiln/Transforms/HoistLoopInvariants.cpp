//===- HoistLoopInvariants.cpp - kiln-hoist-loop-invariants -----*- C++ -*-===//
//
// This file implements kiln-hoist-loop-invariants: the work of a while
// body that does not depend on the loop (no block argument reaches it) is
// done once, before the loop, instead of on every trip, as XLA's while-loop
// invariant code motion does. kiln.while is isolated from above, so what
// the body still uses of the hoisted work enters as new loop state that
// the body passes through unchanged. Only ops without effects move, never
// collectives, random numbers, custom calls, checks or loops (which might
// not end), and only when what becomes loop state is small (a large value
// carried through every trip could cost more than it saves).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_KILNHOISTLOOPINVARIANTSPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Ops that never move out of a loop, effects declared or not: what
/// talks to other participants, draws random numbers, or reaches outside
/// the graph; and loops, which might not end (a loop that ran no trips
/// would then hang before it).
bool isPinned(Operation *op) {
  llvm::StringRef name = op->getName().getStringRef();
  for (llvm::StringRef prefix :
       {"kiln.all_", "kiln.reduce_scatter", "kiln.collective",
        "kiln.partition_id", "kiln.replica_id", "kiln.rng", "kiln.custom_call",
        "kiln.infeed", "kiln.outfeed", "kiln.send", "kiln.recv", "kiln.check",
        "kiln.after_all", "kiln.async", "kiln.optimization_barrier",
        "kiln.while"})
    if (name.starts_with(prefix))
      return true;
  return false;
}

/// Whether `op` or an op inside it is pinned (one walk).
bool mayNeverMove(Operation *op) {
  return op->walk([](Operation *nested) {
             return isPinned(nested) ? WalkResult::interrupt()
                                     : WalkResult::advance();
           })
      .wasInterrupted();
}

int64_t countElements(Value value) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor || !tensor.hasStaticShape())
    return -1;
  return tensor.getNumElements();
}

struct HoistLoopInvariantsPass
    : public kiln::impl::KilnHoistLoopInvariantsPassBase<
          HoistLoopInvariantsPass> {
  using KilnHoistLoopInvariantsPassBase::KilnHoistLoopInvariantsPassBase;

  /// Hoists what `loop`'s body does not need the loop for; true if it
  /// changed the loop (which is then replaced).
  bool hoist(kiln::WhileOp loop) {
    Block &body = loop.getBody().front();
    // The body's ops whose operands are all invariant, in order.
    llvm::SetVector<Operation *> invariant;
    for (Operation &op : body.without_terminator()) {
      if (!isMemoryEffectFree(&op) || mayNeverMove(&op))
        continue;
      bool fromInvariants = llvm::all_of(op.getOperands(), [&](Value value) {
        Operation *definer = value.getDefiningOp();
        return definer && invariant.contains(definer);
      });
      // Values from above cannot reach an isolated region's ops: their
      // nested regions use only their own arguments, checked by the verifier.
      if (fromInvariants)
        invariant.insert(&op);
    }
    // What the rest of the body uses of them becomes loop state; a
    // constant is not carried (the body keeps its own copy).
    auto isConstant = [](Operation *op) { return isa<kiln::ConstantOp>(op); };
    llvm::SetVector<Value> carried;
    for (Operation *op : invariant) {
      if (isConstant(op))
        continue;
      for (Value result : op->getResults())
        for (OpOperand &use : result.getUses())
          if (!invariant.contains(use.getOwner()))
            carried.insert(result);
    }
    // Only work worth a trip moves, and not when the state to carry is
    // large.
    bool work = llvm::any_of(invariant, [&](Operation *op) {
      return !isConstant(op);
    });
    int64_t elements = 0;
    for (Value value : carried) {
      int64_t count = countElements(value);
      if (count < 0)
        return false;
      elements += count;
    }
    if (!work || elements > maxCarriedElements)
      return false;

    OpBuilder builder(loop);
    IRMapping outside;
    llvm::SmallVector<Operation *> clones;
    for (Operation *op : invariant)
      clones.push_back(builder.clone(*op, outside));
    llvm::SmallVector<Value> operands(loop.getOperands());
    for (Value value : carried)
      operands.push_back(outside.lookup(value));
    llvm::SmallVector<Type> types(loop.getResultTypes());
    for (Value value : carried)
      types.push_back(value.getType());
    auto hoisted = kiln::WhileOp::create(builder, loop.getLoc(), types,
                                         operands, loop->getAttrs());
    hoisted.getCondition().takeBody(loop.getCondition());
    hoisted.getBody().takeBody(loop.getBody());
    Block &condition = hoisted.getCondition().front();
    Block &newBody = hoisted.getBody().front();
    for (Value value : carried) {
      condition.addArgument(value.getType(), value.getLoc());
      BlockArgument argument =
          newBody.addArgument(value.getType(), value.getLoc());
      value.replaceAllUsesWith(argument);
    }
    Operation *terminator = newBody.getTerminator();
    llvm::SmallVector<Value> returned(terminator->getOperands());
    for (BlockArgument argument :
         newBody.getArguments().take_back(carried.size()))
      returned.push_back(argument);
    terminator->setOperands(returned);
    for (Operation *op : llvm::reverse(invariant))
      if (op->use_empty())
        op->erase();
    loop.replaceAllUsesWith(
        hoisted.getResults().take_front(loop.getNumResults()));
    loop.erase();
    // Clones that nothing outside needs (constants the body kept) go.
    for (Operation *clone : llvm::reverse(clones))
      if (clone->use_empty())
        clone->erase();
    numHoisted += invariant.size();
    return true;
  }

  void runOnOperation() override {
    // Innermost loops first, so that what an inner loop hoists can move
    // on out of the outer one.
    llvm::SmallVector<kiln::WhileOp> loops;
    getOperation()->walk<WalkOrder::PostOrder>(
        [&](kiln::WhileOp loop) { loops.push_back(loop); });
    for (kiln::WhileOp loop : loops)
      hoist(loop);
  }
};

} // namespace
