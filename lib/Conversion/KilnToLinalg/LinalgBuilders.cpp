//===- LinalgBuilders.cpp - generics along one dimension --------*- C++ -*-===//
//
// This file builds the generics that line-wise lowerings share.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

Value filledTensor(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
                   Type element, double init) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, element);
  Value value = arith::ConstantOp::create(b, loc, element,
                                          b.getFloatAttr(element, init));
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty})
      .getResult(0);
}

/// `x` reduced along the dimensions `reduced` says.
Value reduceWhere(OpBuilder &b, Location loc, Value x,
                  llvm::function_ref<bool(int64_t)> reduced, double init,
                  kiln::ScalarFn combine) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<AffineExpr> kept;
  llvm::SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    iterators.push_back(reduced(d) ? utils::IteratorType::reduction
                                   : utils::IteratorType::parallel);
    if (!reduced(d)) {
      shape.push_back(type.getDimSize(d));
      kept.push_back(b.getAffineDimExpr(d));
    }
  }
  Value filled = filledTensor(b, loc, shape, type.getElementType(), init);
  return linalg::GenericOp::create(
             b, loc, TypeRange{filled.getType()}, ValueRange{x},
             ValueRange{filled},
             llvm::ArrayRef<AffineMap>{
                 b.getMultiDimIdentityMap(rank),
                 AffineMap::get(rank, 0, kept, b.getContext())},
             iterators,
             [&](OpBuilder &nested, Location at, ValueRange args) {
               linalg::YieldOp::create(nested, at,
                                       combine(nested, at, {args[1], args[0]}));
             })
      .getResult(0);
}

} // namespace

Value kiln::mapLines(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
                     Type element, ValueRange full, ValueRange reduced,
                     ValueRange line, int64_t dim, ScalarFn body) {
  int64_t rank = shape.size();
  MLIRContext *context = b.getContext();
  llvm::SmallVector<AffineExpr> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      kept.push_back(b.getAffineDimExpr(d));
  llvm::SmallVector<AffineMap> maps(full.size(), b.getMultiDimIdentityMap(rank));
  maps.append(reduced.size(), AffineMap::get(rank, 0, kept, context));
  maps.append(line.size(),
              AffineMap::get(rank, 0, b.getAffineDimExpr(dim), context));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  llvm::SmallVector<Value> inputs(full);
  llvm::append_range(inputs, reduced);
  llvm::append_range(inputs, line);
  Value init = tensor::EmptyOp::create(b, loc, shape, element);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
             llvm::SmallVector<utils::IteratorType>(
                 rank, utils::IteratorType::parallel),
             [&](OpBuilder &nested, Location at, ValueRange args) {
               linalg::YieldOp::create(nested, at,
                                       body(nested, at, args.drop_back()));
             })
      .getResult(0);
}

Value kiln::reduceLine(OpBuilder &b, Location loc, Value x, int64_t dim,
                       double init, ScalarFn combine) {
  return reduceWhere(b, loc, x, [&](int64_t d) { return d == dim; }, init,
                     combine);
}

Value kiln::reduceAllBut(OpBuilder &b, Location loc, Value x, int64_t kept,
                         double init, ScalarFn combine) {
  return reduceWhere(b, loc, x, [&](int64_t d) { return d != kept; }, init,
                     combine);
}
