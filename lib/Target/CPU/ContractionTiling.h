//===- ContractionTiling.h - contractions tiled and vectorized --*- C++ -*-===//
//
// This file declares the CPU backend's code generation for contractions:
// matmuls are tiled for the caches, then for the target's vector
// registers, and vectorized into outer products whose accumulators stay in
// registers across the contraction (hoisted after bufferization).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_CPU_CONTRACTIONTILING_H
#define KILN_LIB_TARGET_CPU_CONTRACTIONTILING_H

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// The tile sizes of one target: a cache tile (rows, depth) and a register
/// tile (rows, columns), columns a whole number of vectors. The cache
/// tile's columns are always one register tile's: its rhs block is a panel
/// of `cacheDepth` rows of `registerColumns`, contiguous once packed, that
/// stays in L1 while every register tile of the cache tile's rows reads it
/// (a wider rhs block has rows a power-of-two stride apart, which share a
/// few sets of L1 and came from L2 on every step); the lhs block (512 x
/// 256 f32, half a MiB) is packed once for all the panels.
struct ContractionTiles {
  int64_t cacheRows = 512, cacheDepth = 256;
  int64_t registerRows = 4, registerColumns = 16;
  /// Steps of the contraction per register tile, unrolled.
  int64_t registerDepth = 8;
};

/// Tiles for a target whose vectors hold `lanes` f32 values (16 with
/// AVX-512, 8 with AVX2, 4 with SSE or NEON).
ContractionTiles getContractionTiles(unsigned lanes);

/// Tiles and vectorizes every linalg.matmul and linalg.batch_matmul of
/// `module` (on tensors, before bufferization).
mlir::LogicalResult tileAndVectorizeContractions(mlir::ModuleOp module,
                                                 const ContractionTiles &tiles);

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_CONTRACTIONTILING_H
