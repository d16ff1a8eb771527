//===- KernelSharing.h - equal loop nests compiled once ---------*- C++ -*-===//
//
// This file declares the sharing of outlined loop nests (kernels) between
// the segments of one graph, and within each. A training step computes
// each layer the same way, on buffers of the same shapes, once per layer
// and once more backward: most of a deep model's kernels are equal, op for
// op, to one before them (1,263 of the 8-layer kiln-synth model's 1,383).
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

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace kiln {

/// The kernels a graph's segments have defined, by what they compute.
/// Segments take their turns in order of their index, whichever thread
/// reaches its turn first, so a kernel is always defined by the first
/// segment that has it and the code is the same for any number of threads.
/// Segments may be lowered side by side: only the turns wait, each for the
/// turn before it.
class KernelSharing {
public:
  /// With `exported`, the kernels a segment defines are made public, for
  /// the other segments' objects to call (a graph in several segments):
  /// which of them a later segment calls is known only after this
  /// segment's code is made.
  explicit KernelSharing(bool exported) : exported(exported) {}

  /// Segment `index`'s turn, once its loop nests are outlined into
  /// `kernels` (functions of `module`, as outlineLoopNests made them):
  /// waits for every earlier turn, then makes each kernel equal to one
  /// defined before a declaration of that one (or drops it, where this
  /// segment defines that one) and calls it in its place. Returns the
  /// names of the kernels this segment defines and exports. Each index
  /// takes one turn, here or in skipTurn; thread-safe.
  std::vector<std::string> share(size_t index, mlir::ModuleOp module,
                                 llvm::ArrayRef<mlir::func::FuncOp> kernels);

  /// Segment `index`'s turn without kernels (its lowering failed before
  /// its nests were outlined), so that later turns do not wait for it.
  void skipTurn(size_t index);

  /// Kernels seen, and those of them replaced by an equal one: for the
  /// compile report.
  unsigned getKernelCount() const { return kernelCount; }
  unsigned getSharedCount() const { return sharedCount; }

private:
  /// A kernel's identity: XXH3-128 of what decides what it computes.
  using Key = std::pair<uint64_t, uint64_t>;
  struct Definition {
    std::string name;
    size_t segment;
  };

  /// Waits for turn `index`; the lock is held on return.
  std::unique_lock<std::mutex> waitForTurn(size_t index);
  /// Ends the current turn: the next one may begin.
  void endTurn(std::unique_lock<std::mutex> lock);

  bool exported;
  std::mutex mutex;
  std::condition_variable turnEnded;
  size_t nextTurn = 0;
  llvm::DenseMap<Key, Definition> definitions;
  unsigned kernelCount = 0, sharedCount = 0;
};

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_KERNELSHARING_H
