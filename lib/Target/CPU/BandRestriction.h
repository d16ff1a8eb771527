//===- BandRestriction.h - ops computed in a causal band's blocks -*- C++ -*-=//

#ifndef KILN_LIB_TARGET_CPU_BANDRESTRICTION_H
#define KILN_LIB_TARGET_CPU_BANDRESTRICTION_H

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// Computes each linalg.generic marked `kiln.band` (element-wise ops and
/// reductions of causal attention, which kiln-mark-masked-contractions
/// marks) only in the blocks that meet its band, so that masked work is
/// skipped. Fails, naming the op, on a mark it cannot honour: its readers
/// rely on it not reading what lies outside the band.
mlir::LogicalResult restrictToBands(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_BANDRESTRICTION_H
