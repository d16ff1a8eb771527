//===- StableHloToKiln.h - StableHLO operations into kiln ops ---*- C++ -*-===//
//
// This file declares the conversion of the operations that the StableHLO
// syntax dialects read into kiln ops.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_IMPORT_STABLEHLO_STABLEHLOTOKILN_H
#define KILN_LIB_IMPORT_STABLEHLO_STABLEHLOTOKILN_H

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// Replaces every `stablehlo.*` and `chlo.*` operation of `module` by its
/// kiln op. Fails, with an error at the op, on one that kiln cannot
/// represent; the module is then half converted and must be dropped.
mlir::LogicalResult convertStableHloToKiln(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_LIB_IMPORT_STABLEHLO_STABLEHLOTOKILN_H
