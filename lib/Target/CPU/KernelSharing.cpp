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

#include <optional>

using namespace mlir;

namespace {

/// What decides what `kernel` computes, as text: the function printed under
/// a fixed name (its body, parameter types and attributes), and for each
/// global its body reads, the global's type, initial value and alignment.
/// A global's attributes are told apart by identity, which the context's
/// uniquing makes equality: every segment shares the graph's context.
/// Calls of external functions are told apart by name. None where the body
/// uses another kind of symbol, or symbols that cannot be listed: such a
/// kernel is not shared.
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
    auto global = dyn_cast<memref::GlobalOp>(symbol);
    if (!global)
      return std::nullopt;
    if (described.insert(global).second)
      stream << llvm::formatv("{0} {1} {2} {3} {4}\n", global.getSymName(),
                              global.getType().getAsOpaquePointer(),
                              global.getInitialValueAttr().getAsOpaquePointer(),
                              global.getConstant(),
                              global.getAlignment().value_or(0));
  }
  // Printed in its own scope (not the module's, whose state would be built
  // for every kernel), under one name for all.
  StringAttr name = kernel.getSymNameAttr();
  kernel.setSymName("kernel");
  kernel->print(stream, OpPrintingFlags().useLocalScope());
  kernel.setSymNameAttr(name);
  return text;
}

} // namespace

std::unique_lock<std::mutex> kiln::KernelSharing::waitForTurn(size_t index) {
  std::unique_lock<std::mutex> lock(mutex);
  turnEnded.wait(lock, [&] { return nextTurn == index; });
  return lock;
}

void kiln::KernelSharing::endTurn(std::unique_lock<std::mutex> lock) {
  ++nextTurn;
  lock.unlock();
  turnEnded.notify_all();
}

void kiln::KernelSharing::skipTurn(size_t index) {
  endTurn(waitForTurn(index));
}

std::vector<std::string>
kiln::KernelSharing::share(size_t index, ModuleOp module,
                           llvm::ArrayRef<func::FuncOp> kernels) {
  // Each kernel described before the turn, side by side with the other
  // segments' lowering.
  SymbolTable symbols(module);
  std::vector<std::optional<Key>> keys;
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
    keys.emplace_back(Key{hash.high64, hash.low64});
  }

  // The turn: which kernel defines each of this segment's.
  std::vector<Definition> definers(kernels.size());
  {
    std::unique_lock<std::mutex> lock = waitForTurn(index);
    for (auto [position, key] : llvm::enumerate(keys)) {
      ++kernelCount;
      if (!key)
        continue;
      func::FuncOp kernel = kernels[position];
      auto [found, inserted] = definitions.try_emplace(
          *key, Definition{kernel.getSymName().str(), index});
      definers[position] = found->second;
      sharedCount += !inserted;
    }
    endTurn(std::move(lock));
  }

  // Calls of each kernel an equal one replaces go to that one; the
  // replaced kernel is dropped, or becomes the declaration of a kernel
  // another segment defines.
  MLIRContext *context = module.getContext();
  llvm::DenseMap<StringAttr, StringAttr> replacement;
  llvm::DenseSet<StringAttr> declared;
  std::vector<std::string> defined;
  for (auto [position, definer] : llvm::enumerate(definers)) {
    func::FuncOp kernel = kernels[position];
    if (definer.name.empty())
      continue;
    StringAttr name = kernel.getSymNameAttr();
    if (definer.name == name.getValue()) {
      if (exported) {
        kernel.setPublic();
        defined.push_back(definer.name);
      }
      continue;
    }
    StringAttr target = StringAttr::get(context, definer.name);
    replacement[name] = target;
    if (definer.segment == index || !declared.insert(target).second) {
      kernel.erase();
      continue;
    }
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
  return defined;
}
