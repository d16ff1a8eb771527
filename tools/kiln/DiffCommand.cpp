//===- DiffCommand.cpp - kiln diff ------------------------------*- C++ -*-===//
//
// This file implements `kiln diff A B`: the graphs' signatures say whether
// they are the same computation; when they are not, the structural diff
// (GraphDiff.h) says what changed from A to B, in words, with both versions
// and where each is in its dump and in the Python source.
//
//===----------------------------------------------------------------------===//

#include "ChangeReport.h"
#include "Commands.h"
#include "DumpDiagnostics.h"

#include "kiln/Import/LoadGraph.h"
#include "kiln/Signature/GraphDiff.h"
#include "kiln/Signature/Signature.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int kiln::runDiff(const DiffOptions &options) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  OwningOpRef<ModuleOp> first =
      loadGraph(options.first, &context, llvm::errs());
  OwningOpRef<ModuleOp> second =
      loadGraph(options.second, &context, llvm::errs());
  if (!first || !second)
    return ExitInputError;
  FailureOr<GraphSignature> a, b;
  {
    DumpDiagnosticHandler atOps(&context, options.first, nullptr,
                                /*quoteOps=*/false);
    a = computeSignature(*first);
  }
  {
    DumpDiagnosticHandler atOps(&context, options.second, nullptr,
                                /*quoteOps=*/false);
    b = computeSignature(*second);
  }
  if (failed(a) || failed(b))
    return ExitInputError;
  bool same = a->signature == b->signature;
  GraphDiff diff;
  if (!same)
    diff = diffGraphs(*first, *second);
  if (options.json) {
    llvm::json::Object report{{"same", same},
                              {"a", options.first},
                              {"b", options.second}};
    if (!same) {
      report["changes"] = graphChangesToJson(diff, "a", "b");
      report["following_ops"] = (int64_t)diff.followingOps;
    }
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(report)))
                 << "\n";
    return same ? ExitSuccess : ExitSomeFailed;
  }
  if (same) {
    llvm::outs() << "same computation\n";
    return ExitSuccess;
  }
  llvm::outs() << "different computations: " << summarizeGraphChanges(diff)
               << " from A (" << options.first << ") to B (" << options.second
               << ")\n";
  if (diff.changes.empty())
    llvm::outs() << "no op, parameter or attribute differs that this "
                    "comparison can name; the signatures differ all the "
                    "same\n";
  printGraphChanges(llvm::outs(), diff, "A", "B", options.limit);
  return ExitSomeFailed;
}
