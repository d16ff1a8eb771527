//===- KilnOps.h - kiln dialect, types and operations -----------*- C++ -*-===//
//
// This file declares the kiln dialect, its token type and its operations.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPS_H
#define KILN_DIALECT_KILN_IR_KILNOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kiln/Dialect/Kiln/IR/KilnOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.h.inc"

namespace kiln {

/// A graph's entry: its public function with a body (importers make it the
/// only one); null if there is none. What the evaluator runs, the compiler
/// compiles and a diff compares.
mlir::func::FuncOp getEntryFunction(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_KILNOPS_H
