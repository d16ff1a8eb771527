//===- LinalgBuilders.h - generics along one dimension ----------*- C++ -*-===//
//
// This file declares the builders that lowerings of line-wise ops share
// (softmax, normalizations): a generic over a whole shape that also reads
// tensors missing one dimension or holding only it, and reductions along one
// dimension or along all but one.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_LINALGBUILDERS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_LINALGBUILDERS_H

#include "mlir/IR/Builders.h"

namespace kiln {

/// The scalar body of a generic: the element of each operand, in order.
using ScalarFn =
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::ValueRange)>;

/// A generic over `shape` with `element` results, reading `full` operands
/// (the whole shape), `reduced` ones (the shape without dimension `dim`)
/// and `line` ones (only dimension `dim`), in that order.
mlir::Value mapLines(mlir::OpBuilder &b, mlir::Location loc,
                     llvm::ArrayRef<int64_t> shape, mlir::Type element,
                     mlir::ValueRange full, mlir::ValueRange reduced,
                     mlir::ValueRange line, int64_t dim, ScalarFn body);

/// `x` reduced along `dim` from `init` with `combine(accumulator, value)`.
mlir::Value reduceLine(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       int64_t dim, double init, ScalarFn combine);

/// `x` reduced along every dimension but `kept` (a 1-D result).
mlir::Value reduceAllBut(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                         int64_t kept, double init, ScalarFn combine);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_LINALGBUILDERS_H
