//===- BandBlocks.h - The block size of a causal band's loops ---*- C++ -*-===//
//
// One rule for the size of the square blocks in which the CPU backend
// computes the values that kiln-mark-masked-contractions marks: the
// analysis marks only what divides into blocks, and every op of one band
// must see the same blocks (a consumer reads only the blocks its producer
// computed).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_BANDBLOCKS_H
#define KILN_DIALECT_KILN_TRANSFORMS_BANDBLOCKS_H

#include <cstdint>

namespace kiln {

/// The side of the blocks of a band over `rows` x `columns`: the largest of
/// 128, 64 and 32 that divides both; 0 when none does (the value is then
/// computed whole).
inline int64_t getBandBlockSize(int64_t rows, int64_t columns) {
  for (int64_t candidate : {128, 64, 32})
    if (rows > 0 && columns > 0 && rows % candidate == 0 &&
        columns % candidate == 0)
      return candidate;
  return 0;
}

} // namespace kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_BANDBLOCKS_H
