//===- ImportCommand.cpp - kiln import --------------------------*- C++ -*-===//
//
// This file implements `kiln import`: it imports HLO text files and either
// prints the module or summarizes each graph. A file that fails to import is
// reported with `file:line:col: error: ...` and the rest go on.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "GraphKeys.h"

#include "kiln/Cache/Key.h"
#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/LoadGraph.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;

std::string kiln::getVersionString() {
  // The same identity that every cache key carries.
  return getCompilerIdentity();
}

namespace {

/// What one imported graph holds.
struct GraphSummary {
  std::string path;
  bool ok = false;
  uint64_t bytes = 0;
  double seconds = 0;
  unsigned functions = 0;
  unsigned ops = 0;
  unsigned parameters = 0;
  unsigned results = 0;
  unsigned collectives = 0;
  unsigned customCalls = 0;
  unsigned elidedConstants = 0;
  llvm::StringMap<unsigned> opCounts;
};

void summarize(ModuleOp module, GraphSummary &summary) {
  module.walk([&](Operation *op) {
    if (auto function = dyn_cast<func::FuncOp>(op)) {
      ++summary.functions;
      if (function.isPublic()) {
        summary.parameters = function.getNumArguments();
        summary.results = function.getNumResults();
      }
      return;
    }
    if (op->getDialect() == nullptr ||
        op->getDialect()->getNamespace() != "kiln" || isa<kiln::ReturnOp>(op))
      return;
    ++summary.ops;
    ++summary.opCounts[op->getName().stripDialect()];
    // An asynchronous collective counts once, at its start.
    if (isa<kiln::AllReduceOp, kiln::AllGatherOp, kiln::ReduceScatterOp,
            kiln::AllToAllOp, kiln::CollectivePermuteOp,
            kiln::AllReduceStartOp, kiln::AllGatherStartOp,
            kiln::CollectivePermuteStartOp, kiln::CollectiveBroadcastOp,
            kiln::RaggedAllToAllOp>(op))
      ++summary.collectives;
    if (isa<kiln::CustomCallOp>(op))
      ++summary.customCalls;
    if (isa<kiln::ElidedConstantOp>(op))
      ++summary.elidedConstants;
  });
}

llvm::json::Value toJson(const GraphSummary &summary) {
  llvm::json::Object counts;
  for (const auto &entry : summary.opCounts)
    counts[entry.getKey()] = entry.getValue();
  return llvm::json::Object{
      {"path", summary.path},
      {"ok", summary.ok},
      {"bytes", summary.bytes},
      {"import_seconds", summary.seconds},
      {"functions", summary.functions},
      {"ops", summary.ops},
      {"parameters", summary.parameters},
      {"results", summary.results},
      {"collectives", summary.collectives},
      {"custom_calls", summary.customCalls},
      {"elided_constants", summary.elidedConstants},
      {"op_counts", std::move(counts)},
  };
}

} // namespace

int kiln::runImport(const ImportOptions &options) {
  // Graphs are imported one after another; threads only pay off per file,
  // and a context without them uniques without locks.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<KilnDialect, func::FuncDialect>();

  std::vector<GraphSummary> summaries;
  unsigned failures = 0;
  unsigned emptyDirectories = 0;
  // Directories give their graphs, as for hash and cache check.
  for (const std::string &path :
       expandGraphPaths(options.inputs, "import", &emptyDirectories)) {
    GraphSummary summary;
    summary.path = path;
    std::string errorMessage;
    auto start = std::chrono::steady_clock::now();
    OwningOpRef<ModuleOp> module =
        loadGraph(path, &context, llvm::errs(), &summary.bytes);
    summary.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!module) {
      ++failures;
      summaries.push_back(std::move(summary));
      continue;
    }
    summary.ok = true;
    if (!options.summary) {
      auto output = openOutputFile(options.output, &errorMessage);
      if (!output) {
        llvm::errs() << "kiln import: error: " << errorMessage << "\n";
        return ExitInputError;
      }
      OpPrintingFlags flags;
      if (options.printDebugInfo) {
        flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
        kiln::useBuiltinLocations(*module);
      }
      module->print(output->os(), flags);
      output->os() << "\n";
      output->keep();
      continue;
    }
    summarize(*module, summary);
    summaries.push_back(std::move(summary));
  }

  if (options.summary) {
    unsigned imported = summaries.size() - failures;
    if (options.json) {
      llvm::json::Array graphs;
      for (const GraphSummary &summary : summaries)
        graphs.push_back(toJson(summary));
      llvm::json::Object report{{"graphs", std::move(graphs)},
                                {"total", (int64_t)summaries.size()},
                                {"imported", imported},
                                {"failed", failures}};
      llvm::outs() << llvm::formatv("{0:2}",
                                    llvm::json::Value(std::move(report)))
                   << "\n";
    } else {
      for (const GraphSummary &summary : summaries) {
        if (!summary.ok) {
          llvm::outs() << llvm::format("%-7s", "FAILED") << summary.path
                       << "\n";
          continue;
        }
        llvm::outs() << llvm::format(
                            "%-7s%s: %u ops in %u functions, %u parameters, "
                            "%u results, %u collectives, %u custom calls",
                            "ok", summary.path.c_str(), summary.ops,
                            summary.functions, summary.parameters,
                            summary.results, summary.collectives,
                            summary.customCalls)
                     << (summary.elidedConstants
                             ? llvm::formatv(", {0} elided constants",
                                             summary.elidedConstants)
                                   .str()
                             : std::string())
                     << llvm::format(" (%.1f KiB in %.1f ms)\n",
                                     summary.bytes / 1024.0,
                                     summary.seconds * 1000);
      }
      llvm::outs() << "Total graphs: " << summaries.size() << "\n"
                   << "Total imported: " << imported << "\n"
                   << "Total failed: " << failures << "\n";
    }
  }
  return failures || emptyDirectories ? ExitInputError : ExitSuccess;
}
