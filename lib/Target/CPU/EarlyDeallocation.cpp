//===- EarlyDeallocation.cpp - buffers freed after their last use ---------===//
//
// MLIR's ownership-based deallocation frees the buffers a block allocates
// at the block's end: in the entry of a training step, every temporary of
// the step lives to its end, so its peak memory is the sum of them all.
// This file moves each unconditional memref.dealloc of a buffer that the
// same block allocated to just after the block's last op that uses the
// buffer or anything that may carry it (views of it, and whatever an op
// that takes it returns: a buffer, or its address as an integer for a
// runtime call). The runtime's pool then hands the
// buffer to the next allocation of its size in the same call.
//
//===----------------------------------------------------------------------===//

#include "EarlyDeallocation.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace {

/// The last op of `block` (by `position`) that uses `buffer` or a value
/// that may alias it (null when none does); none when one of them leaves
/// the block (through its terminator).
std::optional<Operation *>
lastUse(Value buffer, Block &block,
        const llvm::DenseMap<Operation *, unsigned> &position,
        Operation *dealloc) {
  llvm::SmallVector<Value> worklist = {buffer};
  llvm::SmallPtrSet<Value, 8> seen = {buffer};
  Operation *last = nullptr;
  unsigned lastPosition = 0;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc)
        continue;
      Operation *top = block.findAncestorOpInBlock(*user);
      if (!top || top->hasTrait<OpTrait::IsTerminator>())
        return std::nullopt;
      // Whatever a user returns may carry the buffer on: a view, or its
      // address as an integer that a runtime call reads later.
      for (Value result : user->getResults())
        if (seen.insert(result).second)
          worklist.push_back(result);
      // A yield inside a region passes it to its parent's results.
      if (user != top && user->hasTrait<OpTrait::IsTerminator>())
        for (Operation *parent = user->getParentOp(); parent;
             parent = parent->getParentOp()) {
          for (Value result : parent->getResults())
            if (seen.insert(result).second)
              worklist.push_back(result);
          if (parent == top)
            break;
        }
      unsigned at = position.lookup(top);
      if (!last || at > lastPosition) {
        last = top;
        lastPosition = at;
      }
    }
  }
  return last;
}

} // namespace

unsigned kiln::deallocateAfterLastUse(ModuleOp module) {
  unsigned moved = 0;
  module.walk([&](Block *block) {
    llvm::SmallVector<memref::DeallocOp> deallocs;
    for (Operation &op : *block)
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        if (auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>())
          if (alloc->getBlock() == block)
            deallocs.push_back(dealloc);
    if (deallocs.empty())
      return;
    llvm::DenseMap<Operation *, unsigned> position;
    for (Operation &op : *block)
      position[&op] = position.size();
    for (memref::DeallocOp dealloc : deallocs) {
      std::optional<Operation *> used =
          lastUse(dealloc.getMemref(), *block, position, dealloc);
      if (!used)
        continue;
      Operation *last = *used ? *used : dealloc.getMemref().getDefiningOp();
      // Only earlier: never past where the pipeline put it.
      if (position.lookup(last) + 1 >= position.lookup(dealloc))
        continue;
      dealloc->moveAfter(last);
      ++moved;
    }
  });
  return moved;
}
