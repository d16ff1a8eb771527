//===- Inline.cpp - kiln-inline ---------------------------------*- C++ -*-===//
//
// This file implements kiln-inline: every call of a function with a body
// is replaced by a copy of that body (kiln's regions are isolated and its
// functions have one block, so a copy with the parameters mapped to the
// call's operands is the whole job), innermost callees first; functions
// that nothing calls any more are removed.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

namespace kiln {
#define GEN_PASS_DEF_KILNINLINEPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct InlinePass : public kiln::impl::KilnInlinePassBase<InlinePass> {
  using KilnInlinePassBase::KilnInlinePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Calls are inlined until none is left (a callee's own calls are
    // copied with its body and inlined in a later round); the depth bound
    // stops a recursive graph, which HLO does not allow.
    for (unsigned round = 0; round < 64; ++round) {
      llvm::SmallVector<func::CallOp> calls;
      module.walk([&](func::CallOp call) { calls.push_back(call); });
      bool changed = false;
      for (func::CallOp call : calls) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal() ||
            !llvm::hasSingleElement(callee.getBody()))
          continue;
        Block &body = callee.getBody().front();
        IRMapping mapping;
        mapping.map(body.getArguments(), call.getOperands());
        OpBuilder builder(call);
        for (Operation &op : body.without_terminator())
          builder.clone(op, mapping);
        Operation *terminator = body.getTerminator();
        for (auto [result, returned] :
             llvm::zip(call.getResults(), terminator->getOperands()))
          result.replaceAllUsesWith(mapping.lookupOrDefault(returned));
        call.erase();
        changed = true;
      }
      if (!changed)
        break;
    }
    // Private functions that nothing references any more (the references
    // gathered in one walk: asking per function would walk per function).
    llvm::DenseSet<StringAttr> referenced;
    if (std::optional<SymbolTable::UseRange> uses =
            SymbolTable::getSymbolUses(&module.getBodyRegion()))
      for (const SymbolTable::SymbolUse &use : *uses)
        referenced.insert(use.getSymbolRef().getRootReference());
    for (auto function : llvm::make_early_inc_range(
             module.getOps<func::FuncOp>()))
      if (function.isPrivate() && !referenced.contains(function.getSymNameAttr()))
        function.erase();
  }
};

} // namespace
