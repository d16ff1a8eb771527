//===- RunParallelGrid.cpp - the grid of a run_parallel harness -*- C++ -*-===//
//
// This file reads a run_parallel's `programs` and `infeed` attributes.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/RunParallelGrid.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::optional<kiln::RunParallelGrid>
kiln::getRunParallelGrid(Operation *op, std::string &error) {
  // A name is a function of the module, or the harness names nothing.
  auto function = [&](Attribute ref,
                      const char *what) -> std::optional<llvm::StringRef> {
    auto symbol = dyn_cast<FlatSymbolRefAttr>(ref);
    if (!symbol) {
      error = std::string(what) + " must name functions";
      return std::nullopt;
    }
    if (!isa_and_nonnull<func::FuncOp>(
            SymbolTable::lookupNearestSymbolFrom(op, symbol.getAttr()))) {
      error = "its " + std::string(what) + " name @" + symbol.getValue().str() +
              ", which is no function of the module";
      return std::nullopt;
    }
    return symbol.getValue();
  };
  auto programs = op->getAttrOfType<ArrayAttr>("programs");
  RunParallelGrid grid;
  grid.replicas = programs ? programs.size() : 0;
  grid.partitions = -1;
  for (Attribute row :
       programs ? programs.getValue() : llvm::ArrayRef<Attribute>()) {
    auto list = dyn_cast<ArrayAttr>(row);
    if (!list ||
        (grid.partitions >= 0 && (int64_t)list.size() != grid.partitions)) {
      error = "programs must be rows of one length";
      return std::nullopt;
    }
    grid.partitions = list.size();
    for (Attribute program : list) {
      std::optional<llvm::StringRef> name = function(program, "programs");
      if (!name)
        return std::nullopt;
      grid.programs.push_back(*name);
    }
  }
  if (grid.programs.empty()) {
    error = "no program to run";
    return std::nullopt;
  }
  Attribute infeed = op->getAttr("infeed");
  auto queues = dyn_cast_or_null<ArrayAttr>(infeed);
  if (infeed && !queues) {
    llvm::raw_string_ostream os(error);
    os << "infeed must be a list of functions, found " << infeed;
    return std::nullopt;
  }
  for (Attribute queue :
       queues ? queues.getValue() : llvm::ArrayRef<Attribute>()) {
    std::optional<llvm::StringRef> name = function(queue, "infeed queues");
    if (!name)
      return std::nullopt;
    grid.infeeds.push_back(*name);
  }
  return grid;
}
