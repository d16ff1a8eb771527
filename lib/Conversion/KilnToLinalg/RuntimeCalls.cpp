//===- RuntimeCalls.cpp - calls of kiln's runtime from lowered code -*- C++
//-*-===//

#include "RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using kiln::runtime_abi::ElementKind;

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

std::optional<ElementKind> kiln::getRuntimeElementKind(Type type) {
  if (auto complexType = dyn_cast<ComplexType>(type)) {
    if (complexType.getElementType().isF32())
      return ElementKind::C64;
    if (complexType.getElementType().isF64())
      return ElementKind::C128;
    return std::nullopt;
  }
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF64())
    return ElementKind::F64;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isInteger(1))
    return ElementKind::Pred;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 8:
      return isUnsigned ? ElementKind::U8 : ElementKind::S8;
    case 16:
      return isUnsigned ? ElementKind::U16 : ElementKind::S16;
    case 32:
      return isUnsigned ? ElementKind::U32 : ElementKind::S32;
    case 64:
      return isUnsigned ? ElementKind::U64 : ElementKind::S64;
    default:
      if (integer.getWidth() < 8)
        return ElementKind::NarrowInteger;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Value kiln::copyToBuffer(OpBuilder &builder, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value buffer = allocateBuffer(builder, loc, type);
  auto copy = bufferization::MaterializeInDestinationOp::create(
      builder, loc, TypeRange(), tensor, buffer);
  copy.setRestrict(true);
  copy.setWritable(true);
  return buffer;
}

Value kiln::allocateBuffer(OpBuilder &builder, Location loc,
                           RankedTensorType type) {
  return memref::AllocOp::create(
      builder, loc, MemRefType::get(type.getShape(), type.getElementType()));
}

Value kiln::bufferAsTensor(OpBuilder &builder, Location loc,
                           RankedTensorType type, Value buffer) {
  return bufferization::ToTensorOp::create(builder, loc, type, buffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}
