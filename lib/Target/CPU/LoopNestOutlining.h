//===- LoopNestOutlining.h - one LLVM function per loop nest ----*- C++ -*-===//
//
// This file declares the CPU backend's outlining of a graph's loop nests
// into functions of their own, so that LLVM optimizes many small functions
// rather than one function holding the whole graph: several of LLVM's loop
// passes recompute function-wide analyses for each loop they change, which
// makes one function of N loop nests cost O(N^2) to optimize.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_CPU_LOOPNESTOUTLINING_H
#define KILN_LIB_TARGET_CPU_LOOPNESTOUTLINING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

namespace kiln {

/// Moves each top-level loop nest (a structured linalg op on buffers, an
/// scf or affine loop) of `module`'s public functions into a private
/// function marked noinline and calls it in its place. The views and
/// constants the nest uses are made again inside; the buffers and scalars
/// it uses are passed. A nest that would need a parameter the bare-pointer
/// calling convention cannot pass (a strided view with no cloneable
/// definition, a buffer without elements or of dynamic shape) stays where
/// it is. Returns the functions made, in the order of their nests.
llvm::SmallVector<mlir::func::FuncOp> outlineLoopNests(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_LOOPNESTOUTLINING_H
