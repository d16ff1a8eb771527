//===- RuntimeCalls.cpp - calls of kiln's runtime from lowered code -*- C++
//-*-===//

#include "RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

/// The i64 address of `buffer`'s first element.
Value kiln::getAddress(OpBuilder &builder, Location loc, Value buffer) {
  Value index =
      builder.create<memref::ExtractAlignedPointerAsIndexOp>(loc, buffer);
  return builder.create<arith::IndexCastOp>(loc, builder.getI64Type(), index);
}

Value kiln::getI64(OpBuilder &builder, Location loc, int64_t value) {
  return builder.create<arith::ConstantIntOp>(loc, builder.getI64Type(), value);
}

/// Declares `name` (`count` i64 arguments, `results` i64 results) in the
/// module, once.
void kiln::declareRuntimeFunction(ModuleOp module, StringRef name,
                                  unsigned count, unsigned results,
                                  OpBuilder &builder) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  SmallVector<Type> arguments(count, builder.getI64Type());
  SmallVector<Type> resultTypes(results, builder.getI64Type());
  auto function = builder.create<func::FuncOp>(
      module.getLoc(), name, builder.getFunctionType(arguments, resultTypes));
  function.setPrivate();
}

/// The address of a constant array of `values` (replica groups, pairs):
/// a private global of the module.
Value kiln::getConstantArray(OpBuilder &builder, Location loc, ModuleOp module,
                             ArrayRef<int64_t> values) {
  SmallVector<int64_t> data(values);
  if (data.empty())
    data.push_back(-1);
  auto type = MemRefType::get({(int64_t)data.size()}, builder.getI64Type());
  auto tensorType =
      RankedTensorType::get({(int64_t)data.size()}, builder.getI64Type());
  // One global per distinct array, named by its contents.
  std::string name = "kiln_collective_groups_" +
                     llvm::utohexstr(llvm::hash_value(ArrayRef<int64_t>(data)));
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    builder.create<memref::GlobalOp>(
        loc, name, builder.getStringAttr("private"), type,
        DenseElementsAttr::get(tensorType, ArrayRef<int64_t>(data)),
        /*constant=*/true, /*alignment=*/nullptr);
  }
  Value array = builder.create<memref::GetGlobalOp>(loc, type, name);
  return getAddress(builder, loc, array);
}
