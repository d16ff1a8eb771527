//===- BufferPoolTest.cpp - compiled code's temporary buffers -------------===//

#include "kiln/Runtime/BufferPool.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

/// The pool as compiled code sees it: through the functions it links.
struct PoolFunctions {
  void *(*allocate)(uint64_t);
  void *(*allocateAligned)(uint64_t, uint64_t);
  void (*release)(void *);

  PoolFunctions() {
    std::map<std::string, void *> byName;
    for (auto [name, address] : kiln::getBufferPoolSymbols())
      byName[name] = address;
    allocate = reinterpret_cast<void *(*)(uint64_t)>(
        byName.at("_mlir_memref_to_llvm_alloc"));
    allocateAligned = reinterpret_cast<void *(*)(uint64_t, uint64_t)>(
        byName.at("_mlir_memref_to_llvm_aligned_alloc"));
    release = reinterpret_cast<void (*)(void *)>(
        byName.at("_mlir_memref_to_llvm_free"));
  }
};

TEST(BufferPoolTest, ReusesFreedBuffersOfTheSameSize) {
  PoolFunctions pool;
  constexpr uint64_t bytes = 1 << 20;
  void *first = pool.allocate(bytes);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
  std::memset(first, 1, bytes);
  uint64_t before = kiln::getBufferPoolRetainedBytes();
  pool.release(first);
  EXPECT_EQ(kiln::getBufferPoolRetainedBytes(), before + bytes);
  // The same size takes the buffer back; another size does not.
  void *other = pool.allocate(bytes * 2);
  EXPECT_NE(other, first);
  void *again = pool.allocate(bytes);
  EXPECT_EQ(again, first);
  EXPECT_EQ(kiln::getBufferPoolRetainedBytes(), before);
  pool.release(again);
  pool.release(other);
}

TEST(BufferPoolTest, SmallBuffersAreNotKept) {
  PoolFunctions pool;
  uint64_t before = kiln::getBufferPoolRetainedBytes();
  void *small = pool.allocate(100);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  pool.release(small);
  EXPECT_EQ(kiln::getBufferPoolRetainedBytes(), before);
  pool.release(nullptr);
}

TEST(BufferPoolTest, WideAlignmentsAreHonouredAndFreed) {
  PoolFunctions pool;
  for (uint64_t alignment : {16, 64, 128, 4096}) {
    void *buffer = pool.allocateAligned(alignment, 200000);
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer) % alignment, 0u);
    std::memset(buffer, 2, 200000);
    pool.release(buffer);
  }
}

TEST(BufferPoolTest, RetainsNoMoreThanItsCapacity) {
  PoolFunctions pool;
  // Buffers of a quarter of the capacity each: freeing five keeps four at
  // most.
  constexpr uint64_t quarter = kiln::kBufferPoolCapacityBytes / 4;
  std::vector<void *> buffers;
  for (int i = 0; i < 5; ++i)
    buffers.push_back(pool.allocate(quarter));
  for (void *buffer : buffers)
    pool.release(buffer);
  EXPECT_LE(kiln::getBufferPoolRetainedBytes(),
            kiln::kBufferPoolCapacityBytes);
  // Give them back to the C library for the other tests' sake.
  for (int i = 0; i < 5; ++i)
    buffers[i] = pool.allocate(quarter);
  for (void *buffer : buffers)
    pool.release(buffer);
}

TEST(BufferPoolTest, ThreadsShareThePool) {
  PoolFunctions pool;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 200; ++i) {
        uint64_t bytes = (64 + (i + t) % 4) * 1024;
        auto *buffer = static_cast<unsigned char *>(pool.allocate(bytes));
        buffer[0] = buffer[bytes - 1] = (unsigned char)t;
        pool.release(buffer);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_LE(kiln::getBufferPoolRetainedBytes(),
            kiln::kBufferPoolCapacityBytes);
}

} // namespace

TEST(BufferPoolTest, RefusesSizesWhoseRoundingWouldOverflow) {
  // Rounded up to pages, or with the header added, these sizes would wrap
  // around to a few bytes: the pool must give no buffer rather than a
  // tiny one.
  PoolFunctions pool;
  for (uint64_t bytes : {UINT64_MAX, UINT64_MAX - 100, UINT64_MAX - 5000}) {
    EXPECT_EQ(pool.allocate(bytes), nullptr) << bytes;
    EXPECT_EQ(pool.allocateAligned(256, bytes), nullptr) << bytes;
  }
}
