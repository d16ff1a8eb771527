//===- FrontendBench.cpp - kiln-bench frontend and evaluator ----*- C++ -*-===//
//
// This file implements `kiln-bench frontend` (kiln-frontend's time as a
// fraction of import time, measured in the same run on the same graphs)
// and `kiln-bench evaluator` (the reference evaluator's throughput).
//
//===----------------------------------------------------------------------===//

#include "FrontendBench.h"

#include "BenchFiles.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Import/Hlo/HloImporter.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/Interpreter/Evaluator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace kiln;

namespace {
using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
} // namespace

int kiln::bench::runFrontendBench(const std::vector<std::string> &paths) {
  std::vector<BenchFile> files;
  for (const std::string &path : paths)
    collectFiles(path, files);
  if (files.empty()) {
    llvm::errs() << "kiln-bench frontend: error: no graphs found\n";
    return 2;
  }
  llvm::outs() << llvm::format("%-44s %10s %10s %7s %6s\n", "graph",
                               "import ms", "frontend", "ratio", "masks");
  double importTotal = 0, frontendTotal = 0;
  for (const BenchFile &file : files) {
    MLIRContext context(MLIRContext::Threading::DISABLED);
    std::string diagnostics;
    llvm::raw_string_ostream diagnosticStream(diagnostics);
    auto start = Clock::now();
    OwningOpRef<ModuleOp> module =
        loadGraph(file.path, &context, diagnosticStream);
    double importSeconds = secondsSince(start);
    if (!module)
      continue;
    PassManager pm(&context);
    buildFrontendPipeline(pm, FrontendPipelineOptions());
    start = Clock::now();
    if (failed(pm.run(*module))) {
      llvm::outs() << file.path << ": kiln-frontend failed\n";
      continue;
    }
    double frontendSeconds = secondsSince(start);
    unsigned masks = 0;
    module->walk([&](CausalMaskOp) { ++masks; });
    importTotal += importSeconds;
    frontendTotal += frontendSeconds;
    llvm::outs() << llvm::format(
        "%-44s %10.1f %10.1f %7.2f %6u\n",
        llvm::sys::path::filename(file.path).str().c_str(),
        importSeconds * 1e3, frontendSeconds * 1e3,
        frontendSeconds / importSeconds, masks);
  }
  llvm::outs() << llvm::formatv("total: import {0:f1} ms, kiln-frontend "
                                "{1:f1} ms: {2:f2} of import time (goal: at "
                                "most 0.50)\n",
                                importTotal * 1e3, frontendTotal * 1e3,
                                frontendTotal / importTotal);
  return 0;
}

int kiln::bench::runEvaluatorBench() {
  struct Case {
    const char *name;
    const char *hlo;
    double work; // elements (or multiply-adds) per run
    const char *unit;
  };
  static const Case kCases[] = {
      {"add f32[1048576]",
       "HloModule add\nENTRY %main (a: f32[1048576], b: f32[1048576]) -> "
       "f32[1048576] {\n  %a = f32[1048576]{0} parameter(0)\n  %b = "
       "f32[1048576]{0} parameter(1)\n  ROOT %c = f32[1048576]{0} add(%a, "
       "%b)\n}\n",
       1048576, "elements/s"},
      {"tanh bf16[1048576]",
       "HloModule tanh\nENTRY %main (a: bf16[1048576]) -> bf16[1048576] {\n  "
       "%a = bf16[1048576]{0} parameter(0)\n  ROOT %c = bf16[1048576]{0} "
       "tanh(%a)\n}\n",
       1048576, "elements/s"},
      {"dot f32[256,256]x[256,256]",
       "HloModule dot\nENTRY %main (a: f32[256,256], b: f32[256,256]) -> "
       "f32[256,256] {\n  %a = f32[256,256]{1,0} parameter(0)\n  %b = "
       "f32[256,256]{1,0} parameter(1)\n  ROOT %c = f32[256,256]{1,0} dot(%a, "
       "%b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
       256.0 * 256 * 256, "multiply-adds/s"},
  };
  MLIRContext context(MLIRContext::Threading::DISABLED);
  for (const Case &c : kCases) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(c.hlo),
                                 llvm::SMLoc());
    OwningOpRef<ModuleOp> module = importHloText(sourceMgr, &context);
    if (!module)
      return 2;
    interp::Evaluator evaluator(*module);
    func::FuncOp entry = evaluator.getEntry();
    std::vector<interp::HostTensor> arguments;
    for (Type type : entry.getArgumentTypes()) {
      interp::HostTensor tensor(type);
      for (size_t i = 0; i < tensor.floats.size(); ++i)
        tensor.floats[i] = interp::roundToFloat(
            (double)(i % 97) / 97.0 - 0.5, tensor.elementType());
      arguments.push_back(std::move(tensor));
    }
    double best = 1e30;
    for (int run = 0; run < 3; ++run) {
      auto start = Clock::now();
      if (failed(evaluator.call(entry, arguments)))
        return 2;
      best = std::min(best, secondsSince(start));
    }
    llvm::outs() << llvm::formatv("{0,-28} {1,8:f1} ms  {2:e} {3}\n", c.name,
                                  best * 1e3, c.work / best, c.unit);
  }
  return 0;
}
