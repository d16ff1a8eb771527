//===- BufferPool.h - compiled code's temporary buffers ---------*- C++ -*-===//
//
// Compiled code allocates its temporaries through the runtime (MLIR's
// generic allocation functions), which keeps freed buffers for the next
// call: a training step that allocates hundreds of megabytes of
// temporaries would otherwise have the kernel map and zero every page of
// them again on every call.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_BUFFERPOOL_H
#define KILN_RUNTIME_BUFFERPOOL_H

#include <cstdint>
#include <utility>
#include <vector>

namespace kiln {

/// The allocation functions that compiled code calls, by name
/// (`_mlir_memref_to_llvm_alloc`, `_mlir_memref_to_llvm_aligned_alloc`,
/// `_mlir_memref_to_llvm_free`).
std::vector<std::pair<const char *, void *>> getBufferPoolSymbols();

/// Called with the size of an allocation of compiled code that the C
/// library refused, before null is returned to code that checks nothing:
/// the runtime's handler (Executable.cpp) unwinds to the call that runs
/// the code and reports the size.
using AllocationFailureHandler = void (*)(uint64_t bytes);
void setAllocationFailureHandler(AllocationFailureHandler handler);
/// Calls the handler, if one is set (compiled code's other allocators).
void reportAllocationFailure(uint64_t bytes);

/// Bytes the pool holds for reuse now; what it may hold at most.
uint64_t getBufferPoolRetainedBytes();
constexpr uint64_t kBufferPoolCapacityBytes = uint64_t(1) << 30;

} // namespace kiln

#endif // KILN_RUNTIME_BUFFERPOOL_H
