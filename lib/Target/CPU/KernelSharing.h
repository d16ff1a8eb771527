//===- KernelSharing.h - equal loop nests compiled once ---------*- C++ -*-===//
//
// This file declares the sharing of outlined loop nests (kernels) between
// the segments of one graph, and within each. A training step computes
// each layer the same way, on buffers of the same shapes, once per layer
// and once more backward: most of a deep model's kernels are equal, op for
// op, to one before them (1,194 of the 8-layer kiln-synth model's 1,377).
// Each distinct kernel is lowered to LLVM, optimized and compiled once, by
// the first segment that has it; every other nest calls that one.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_CPU_KERNELSHARING_H
#define KILN_LIB_TARGET_CPU_KERNELSHARING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <utility>
#include <vector>

namespace kiln {

/// A kernel's identity: XXH3-128 of what decides what it computes. It
/// holds attributes' addresses, so it means something within one
/// compilation only: never stored, never compared across processes.
using KernelKey = std::pair<uint64_t, uint64_t>;

/// The identity of each of `kernels` (functions of `module`, as
/// outlineLoopNests made them): their functions printed under one name,
/// and the constant globals they read (told apart by their attributes'
/// identity, which the context's uniquing makes equality: the segments of
/// a graph share its context). None for a kernel that uses any other
/// symbol than those and external functions: it is never shared. Each
/// kernel is renamed while it is printed and named back, so segments'
/// kernels may be identified side by side, each segment's module on one
/// thread.
std::vector<std::optional<KernelKey>>
identifyKernels(mlir::ModuleOp module,
                llvm::ArrayRef<mlir::func::FuncOp> kernels);

/// The kernels a graph's segments define, by identity. Segments are handed
/// to it one at a time, in their order (so a kernel is always defined by
/// the first segment that has it, and the code is the same for any number
/// of threads), between their lowering to kernels and the rest of it.
class KernelSharing {
public:
  /// The kernels of a segment (`module`) with their keys
  /// (identifyKernels): each equal to one defined before becomes a call of
  /// that one (dropped where this segment defines that one, a declaration
  /// of it where an earlier segment does, which then exports it); the rest
  /// are defined here.
  void share(mlir::ModuleOp module, llvm::ArrayRef<mlir::func::FuncOp> kernels,
             llvm::ArrayRef<std::optional<KernelKey>> keys);

  /// Forgets the definitions: called once every segment is shared, before
  /// their modules are lowered further or freed (the table holds their
  /// functions). What isExported says stays.
  void finish();

  /// Whether a later segment calls the kernel `name`: its definition must
  /// stay visible to the other segments' objects.
  bool isExported(llvm::StringRef name) const {
    return exported.contains(name);
  }

  /// Kernels handed over, and those of them replaced by an equal one.
  unsigned getKernelCount() const { return kernelCount; }
  unsigned getSharedCount() const { return sharedCount; }

private:
  /// Each distinct kernel's definition, in the module of the segment that
  /// defines it.
  llvm::DenseMap<KernelKey, mlir::func::FuncOp> definitions;
  llvm::StringSet<> exported;
  unsigned kernelCount = 0, sharedCount = 0;
};

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_KERNELSHARING_H
