//===- PerfMap.cpp - compiled code named for perf ---------------*- C++ -*-===//
//
// A JITLink plugin that appends each linked graph's functions to
// /tmp/perf-<pid>.map once their addresses are final.
//
//===----------------------------------------------------------------------===//

#include "PerfMap.h"

#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <mutex>
#include <string>

using namespace llvm;

namespace {

class PerfMapPlugin : public orc::ObjectLinkingLayer::Plugin {
public:
  void modifyPassConfig(orc::MaterializationResponsibility &,
                        jitlink::LinkGraph &,
                        jitlink::PassConfiguration &config) override {
    config.PrePrunePasses.emplace_back(&PerfMapPlugin::keepFunctions);
    config.PostFixupPasses.emplace_back(&PerfMapPlugin::record);
  }
  Error notifyFailed(orc::MaterializationResponsibility &) override {
    return Error::success();
  }
  Error notifyRemovingResources(orc::JITDylib &, orc::ResourceKey) override {
    return Error::success();
  }
  void notifyTransferringResources(orc::JITDylib &, orc::ResourceKey,
                                   orc::ResourceKey) override {}

private:
  /// A call to a function in its own section needs no relocation, so
  /// nothing refers to the symbol of a graph's local functions (its
  /// segments and loop nests) and the linker prunes it: kept, its name
  /// reaches the map.
  static Error keepFunctions(jitlink::LinkGraph &graph) {
    for (jitlink::Symbol *symbol : graph.defined_symbols())
      if (symbol->hasName() && symbol->isCallable())
        symbol->setLive(true);
    return Error::success();
  }

  /// Appends the graph's named functions; a map that cannot be written
  /// costs only the names, never the load.
  static Error record(jitlink::LinkGraph &graph) {
    std::string lines;
    raw_string_ostream os(lines);
    for (jitlink::Symbol *symbol : graph.defined_symbols())
      if (symbol->hasName() && symbol->isCallable() && symbol->getSize())
        os << formatv("{0:x-} {1:x-} {2}\n", symbol->getAddress().getValue(),
                      symbol->getSize(), *symbol->getName());
    if (lines.empty())
      return Error::success();
    static std::mutex appending;
    std::lock_guard<std::mutex> lock(appending);
    std::error_code error;
    raw_fd_ostream map(
        formatv("/tmp/perf-{0}.map", sys::Process::getProcessId()).str(), error,
        sys::fs::OF_Append);
    if (!error)
      map << lines;
    return Error::success();
  }
};

} // namespace

void kiln::addPerfMapIfRequested(orc::LLJIT &jit) {
  const char *requested = std::getenv("KILN_PERF_MAP");
  if (!requested || !*requested || StringRef(requested) == "0")
    return;
  if (auto *linking =
          dyn_cast<orc::ObjectLinkingLayer>(&jit.getObjLinkingLayer()))
    linking->addPlugin(std::make_shared<PerfMapPlugin>());
}
