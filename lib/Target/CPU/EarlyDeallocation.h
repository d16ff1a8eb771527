//===- EarlyDeallocation.h - buffers freed after their last use -*- C++ -*-===//

#ifndef KILN_LIB_TARGET_CPU_EARLYDEALLOCATION_H
#define KILN_LIB_TARGET_CPU_EARLYDEALLOCATION_H

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// Moves each memref.dealloc of a buffer allocated in the same block to
/// just after the block's last op that uses the buffer or may alias it
/// (after bufferization's deallocation, which frees at the block's end),
/// so that a step's peak memory is what is live at once, not the sum of its
/// temporaries. A buffer that may leave the block keeps its place. Returns
/// how many it moved.
unsigned deallocateAfterLastUse(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_EARLYDEALLOCATION_H
