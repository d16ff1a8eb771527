//===- KernelSharing.cpp - equal loop nests compiled once -----------------===//

#include "KernelSharing.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <limits>
#include <string>

using namespace mlir;

namespace {

/// What decides what `kernel` computes, as text (see identifyKernels).
std::optional<std::string> describeKernel(func::FuncOp kernel,
                                          SymbolTable &symbols) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(&kernel.getBody());
  if (!uses)
    return std::nullopt;
  llvm::SmallPtrSet<Operation *, 4> described;
  for (const SymbolTable::SymbolUse &use : *uses) {
    Operation *symbol =
        symbols.lookup(use.getSymbolRef().getRootReference().getValue());
    if (!symbol)
      return std::nullopt;
    if (auto function = dyn_cast<func::FuncOp>(symbol);
        function && function.isExternal())
      continue;
    // A global that may be written is each segment's own storage.
    auto global = dyn_cast<memref::GlobalOp>(symbol);
    if (!global || !global.getConstant())
      return std::nullopt;
    if (described.insert(global).second)
      stream << llvm::formatv("{0} {1} {2} {3}\n", global.getSymName(),
                              global.getType().getAsOpaquePointer(),
                              global.getInitialValueAttr().getAsOpaquePointer(),
                              global.getAlignment().value_or(0));
  }
  // The generic form (every op's operands, attributes, properties and
  // regions, whatever its custom printer shows), with every flag that
  // changes what is printed set here, whatever MLIR's command-line options
  // say: an elided constant or a skipped region would make two kernels
  // one. Printed in its own scope, not the module's, whose state would be
  // built again for every kernel.
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(std::numeric_limits<int64_t>::max())
      .enableDebugInfo(false)
      .printGenericOpForm()
      .skipRegions(false)
      .printValueUsers(false)
      .printUniqueSSAIDs(false)
      .printNameLocAsPrefix(false)
      .useLocalScope()
      .assumeVerified();
  // The name is the one thing two equal kernels differ in.
  StringAttr name = kernel.getSymNameAttr();
  kernel.setSymName("kernel");
  kernel->print(stream, flags);
  kernel.setSymNameAttr(name);
  return text;
}

} // namespace

std::vector<std::optional<kiln::KernelKey>>
kiln::identifyKernels(ModuleOp module, llvm::ArrayRef<func::FuncOp> kernels) {
  SymbolTable symbols(module);
  std::vector<std::optional<KernelKey>> keys;
  keys.reserve(kernels.size());
  for (func::FuncOp kernel : kernels) {
    std::optional<std::string> description = describeKernel(kernel, symbols);
    if (!description) {
      keys.emplace_back();
      continue;
    }
    llvm::XXH128_hash_t hash = llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(description->data()),
        description->size()));
    keys.emplace_back(KernelKey{hash.high64, hash.low64});
  }
  return keys;
}

void kiln::KernelSharing::share(ModuleOp module,
                                llvm::ArrayRef<func::FuncOp> kernels,
                                llvm::ArrayRef<std::optional<KernelKey>> keys) {
  // Calls of a replaced kernel go to the one that replaces it.
  llvm::DenseMap<StringAttr, StringAttr> replacement;
  llvm::DenseSet<StringAttr> declared;
  for (auto [position, key] : llvm::enumerate(keys)) {
    func::FuncOp kernel = kernels[position];
    ++kernelCount;
    if (!key)
      continue;
    auto [found, inserted] = definitions.try_emplace(*key, kernel);
    if (inserted)
      continue;
    ++sharedCount;
    func::FuncOp definition = found->second;
    StringAttr target = definition.getSymNameAttr();
    replacement[kernel.getSymNameAttr()] = target;
    if (definition->getParentOp() == module.getOperation() ||
        !declared.insert(target).second) {
      kernel.erase();
      continue;
    }
    // The first call from another segment exports the definition.
    if (exported.insert(target.getValue()).second)
      definition.setPublic();
    kernel.eraseBody();
    kernel.setSymNameAttr(target);
    kernel.setPrivate();
    kernel->removeAttr("passthrough");
  }
  if (!replacement.empty())
    module.walk([&](func::CallOp call) {
      if (StringAttr target =
              replacement.lookup(call.getCalleeAttr().getAttr()))
        call.setCalleeAttr(FlatSymbolRefAttr::get(target));
    });
}

void kiln::KernelSharing::finish() { definitions.clear(); }
