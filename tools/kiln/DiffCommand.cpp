//===- DiffCommand.cpp - kiln diff ------------------------------*- C++ -*-===//
//
// This file implements `kiln diff A B`: it compares the two graphs' sketches
// (one hash per op, in the signature's walk order) and names the first op
// that differs, printed from both graphs with its position in the dump and
// the Python source line it came from.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/Signature/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, OpPrintingFlags().skipRegions().useLocalScope());
  return text;
}

} // namespace

int kiln::runDiff(const DiffOptions &options) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  OwningOpRef<ModuleOp> first =
      loadGraph(options.first, &context, llvm::errs());
  OwningOpRef<ModuleOp> second =
      loadGraph(options.second, &context, llvm::errs());
  if (!first || !second)
    return ExitInputError;
  FailureOr<GraphSignature> a = computeSignature(*first, /*keepOps=*/true);
  FailureOr<GraphSignature> b = computeSignature(*second, /*keepOps=*/true);
  if (failed(a) || failed(b))
    return ExitInputError;
  if (a->signature == b->signature) {
    llvm::outs() << "same computation\n";
    return ExitSuccess;
  }
  size_t common = std::min(a->sketch.size(), b->sketch.size());
  size_t index = 0;
  while (index < common && a->sketch[index] == b->sketch[index])
    ++index;
  llvm::outs() << "different computations\n";
  if (index == common && a->sketch.size() == b->sketch.size()) {
    llvm::outs() << "every op is the same; the module attributes or the "
                    "entry's parameter attributes differ (sharding, layouts, "
                    "partitions, aliasing)\n";
    return ExitSomeFailed;
  }
  // A call differs when its callee does; the op that differs is further
  // on, where the sketch walks the callee's body.
  Operation *callSite = nullptr;
  auto isCallLike = [](Operation *op) {
    return isa<func::CallOp>(op) || op->hasAttr("kiln.called_computations");
  };
  while (index < common && index < a->sketchOps.size() &&
         isCallLike(a->sketchOps[index])) {
    size_t next = index + 1;
    while (next < common && a->sketch[next] == b->sketch[next])
      ++next;
    if (next >= common)
      break;
    if (!callSite)
      callSite = a->sketchOps[index];
    index = next;
  }
  if (callSite) {
    auto function = a->sketchOps[index]->getParentOfType<func::FuncOp>();
    llvm::outs() << "the call at "
                 << kiln::describeHloLocation(callSite->getLoc())
                 << " differs inside @"
                 << (function ? function.getSymName() : "?") << "\n";
  }
  llvm::outs() << "first difference at op " << index + 1 << " of "
               << a->sketch.size() << " (" << options.first << ") and "
               << b->sketch.size() << " (" << options.second << "):\n";
  auto show = [&](llvm::StringRef label, const GraphSignature &graph) {
    if (index >= graph.sketchOps.size()) {
      llvm::outs() << "  " << label << ": (no more ops)\n";
      return;
    }
    Operation *op = graph.sketchOps[index];
    llvm::outs() << "  " << label << ": "
                 << kiln::describeHloLocation(op->getLoc()) << "\n      "
                 << printOp(op) << "\n";
  };
  show("A", *a);
  show("B", *b);
  return ExitSomeFailed;
}
