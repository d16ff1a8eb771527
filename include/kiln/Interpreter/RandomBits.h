//===- RandomBits.h - XLA's random bit generators ---------------*- C++ -*-===//
//
// This file declares rng_bit_generator's algorithms as XLA computes them,
// bit for bit: ThreeFry-2x32 (20 rounds) and Philox-4x32 (10 rounds, also
// rng_default on CPU), with XLA's state layouts, its ways of filling 32-
// and 64-bit outputs, and of advancing the counter. The evaluator and the
// runtime that compiled code calls share this one implementation.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INTERPRETER_RANDOMBITS_H
#define KILN_INTERPRETER_RANDOMBITS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>

namespace kiln {

/// Fills an output of `shape` with random words of `width` bits (8 to 64),
/// calling `store(i, bits)` for each element in row-major order, from
/// `state` (2 words; 2 or 3 for Philox), and writes the next state to
/// `newState` (as many words).
void generateRandomBits(bool threeFry, llvm::ArrayRef<uint64_t> state,
                        uint64_t *newState, llvm::ArrayRef<int64_t> shape,
                        unsigned width,
                        llvm::function_ref<void(int64_t, uint64_t)> store);

} // namespace kiln

#endif // KILN_INTERPRETER_RANDOMBITS_H
