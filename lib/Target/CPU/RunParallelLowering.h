//===- RunParallelLowering.h - StableHLO's test harness compiled -*- C++
//-*-===//
//
// This file declares how the CPU backend compiles `kiln.run_parallel`, the
// harness of StableHLO's interpreter tests of collectives: a grid of
// replicas x partitions, each running a program. Compiled, every
// participant runs the same entry on its own thread (the runtime's
// participants): it runs its own program, and the programs' results are
// then summed over all participants (each gives zeros for the others'),
// so that every participant holds all of them, as the harness's caller
// expects. The programs' collectives and ids are resolved for the grid.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_CPU_RUNPARALLELLOWERING_H
#define KILN_LIB_TARGET_CPU_RUNPARALLELLOWERING_H

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// Rewrites `module`'s run_parallel (at most one) as above; the compiled
/// entry must then run on getRunParallelParticipants's participants.
mlir::LogicalResult lowerRunParallel(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_LIB_TARGET_CPU_RUNPARALLELLOWERING_H
