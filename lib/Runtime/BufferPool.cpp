//===- BufferPool.cpp - compiled code's temporary buffers -----------------===//
//
// Every buffer carries a header with its size, so that a freed buffer of
// 64 KiB or more goes back to the pool, by size, while the pool holds less
// than kBufferPoolCapacityBytes; an allocation of a size the pool holds
// takes it (pages already mapped), any other comes from the C library.
// Buffers are 64-byte aligned; threads (thread-ranks) share the pool.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/BufferPool.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

namespace {

/// Room for the header below a buffer, keeping it 64-byte aligned.
constexpr uint64_t kHeaderBytes = 64;
/// Smaller buffers are the C library's to reuse.
constexpr uint64_t kPooledBytes = 64 * 1024;

/// What lies just below every buffer: its size, and how far below it the
/// C library's allocation starts (kHeaderBytes, or the alignment when one
/// wider than 64 bytes was asked for; only the former are pooled).
struct Header {
  uint64_t size;
  uint64_t offset;
};

struct Pool {
  std::mutex mutex;
  std::multimap<uint64_t, void *> freeBuffers;
  uint64_t retained = 0;
};

Pool &getPool() {
  // Never destroyed: compiled code may run in threads that outlive main's
  // static destructors.
  static Pool *pool = new Pool;
  return *pool;
}

std::atomic<kiln::AllocationFailureHandler> failureHandler{nullptr};

Header *headerOf(void *buffer) {
  return reinterpret_cast<Header *>(static_cast<char *>(buffer) - kHeaderBytes);
}

void *allocateFromLibrary(uint64_t size, uint64_t offset) {
  // A size that the header and the rounding would wrap around.
  if (size > UINT64_MAX - offset - 63) {
    kiln::reportAllocationFailure(size);
    return nullptr;
  }
  auto *base = static_cast<char *>(
      std::aligned_alloc(offset, (offset + size + 63) / 64 * 64));
  if (!base) {
    kiln::reportAllocationFailure(size);
    return nullptr;
  }
  void *buffer = base + offset;
  *headerOf(buffer) = {size, offset};
  return buffer;
}

extern "C" void *kilnPoolAllocate(uint64_t bytes) {
  if (bytes > UINT64_MAX - 4095) {
    kiln::reportAllocationFailure(bytes);
    return nullptr;
  }
  uint64_t size = bytes < kPooledBytes ? bytes : (bytes + 4095) / 4096 * 4096;
  if (size >= kPooledBytes) {
    Pool &pool = getPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    auto found = pool.freeBuffers.find(size);
    if (found != pool.freeBuffers.end()) {
      void *buffer = found->second;
      pool.freeBuffers.erase(found);
      pool.retained -= size;
      return buffer;
    }
  }
  return allocateFromLibrary(size, kHeaderBytes);
}

extern "C" void *kilnPoolAllocateAligned(uint64_t alignment, uint64_t bytes) {
  if (alignment <= kHeaderBytes)
    return kilnPoolAllocate(bytes);
  // A power of two above 64: the header fits below the buffer.
  return allocateFromLibrary(bytes, alignment);
}

extern "C" void kilnPoolFree(void *buffer) {
  if (!buffer)
    return;
  Header header = *headerOf(buffer);
  if (header.offset == kHeaderBytes && header.size >= kPooledBytes) {
    Pool &pool = getPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    if (pool.retained + header.size <= kiln::kBufferPoolCapacityBytes) {
      pool.freeBuffers.emplace(header.size, buffer);
      pool.retained += header.size;
      return;
    }
  }
  std::free(static_cast<char *>(buffer) - header.offset);
}

} // namespace

std::vector<std::pair<const char *, void *>> kiln::getBufferPoolSymbols() {
  return {
      {"_mlir_memref_to_llvm_alloc",
       reinterpret_cast<void *>(&kilnPoolAllocate)},
      {"_mlir_memref_to_llvm_aligned_alloc",
       reinterpret_cast<void *>(&kilnPoolAllocateAligned)},
      {"_mlir_memref_to_llvm_free", reinterpret_cast<void *>(&kilnPoolFree)}};
}

void kiln::setAllocationFailureHandler(AllocationFailureHandler handler) {
  failureHandler.store(handler);
}

void kiln::reportAllocationFailure(uint64_t bytes) {
  if (AllocationFailureHandler handler = failureHandler.load())
    handler(bytes);
}

uint64_t kiln::getBufferPoolRetainedBytes() {
  Pool &pool = getPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  return pool.retained;
}
