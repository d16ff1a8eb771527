//===- GenericOpBuilder.h - a kiln op built by name -------------*- C++ -*-===//
//
// Passes that assemble kiln ops from other ops' pieces (the StableHLO
// importer's decompositions, the test harness's lowering, the masked
// contractions' lowering) build them by name, as the generic format spells
// them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_GENERICOPBUILDER_H
#define KILN_DIALECT_KILN_IR_GENERICOPBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"

namespace kiln {

/// The one result of op `name` of `operands`, giving `type`, with
/// `attributes`.
inline mlir::Value
buildKilnOp(mlir::OpBuilder &builder, mlir::Location loc, llvm::StringRef name,
            mlir::ValueRange operands, mlir::Type type,
            llvm::ArrayRef<mlir::NamedAttribute> attributes = {}) {
  mlir::OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(type);
  state.addAttributes(attributes);
  return builder.create(state)->getResult(0);
}

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_GENERICOPBUILDER_H
