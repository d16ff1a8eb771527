//===- RuntimeCalls.h - calls of kiln's runtime from lowered code -*- C++
//-*-===//
//
// What the lowerings that call kiln's runtime (RuntimeAbi.h) share: buffer
// addresses as i64, the functions' declarations, constant arrays.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_RUNTIMECALLS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_RUNTIMECALLS_H

#include "kiln/Runtime/RuntimeAbi.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace kiln {

/// The i64 address of `buffer`'s first element.
mlir::Value getAddress(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Value buffer);

/// An i64 constant.
mlir::Value getI64(mlir::OpBuilder &builder, mlir::Location loc, int64_t value);

/// Declares `name` (`count` i64 arguments, `results` i64 results) in the
/// module, once.
void declareRuntimeFunction(mlir::ModuleOp module, llvm::StringRef name,
                            unsigned count, unsigned results,
                            mlir::OpBuilder &builder);

/// The address of a constant array of `values` (replica groups, pairs, a
/// shape): a private global of the module, one per distinct array.
mlir::Value getConstantArray(mlir::OpBuilder &builder, mlir::Location loc,
                             mlir::ModuleOp module,
                             llvm::ArrayRef<int64_t> values);

/// The runtime's element kind of a kiln element type (signedness is the
/// kiln type's, before the type converter makes integers signless); none
/// for a type the runtime does not take.
std::optional<runtime_abi::ElementKind> getRuntimeElementKind(mlir::Type type);

/// A fresh buffer holding `tensor`'s elements, for the runtime to read.
mlir::Value copyToBuffer(mlir::OpBuilder &builder, mlir::Location loc,
                         mlir::Value tensor);

/// A fresh buffer of `type`'s shape and element type, for the runtime to
/// write.
mlir::Value allocateBuffer(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::RankedTensorType type);

/// `buffer`, which the runtime wrote and nothing else aliases, as a tensor
/// of `type`.
mlir::Value bufferAsTensor(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::RankedTensorType type, mlir::Value buffer);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_RUNTIMECALLS_H
