//===- PythonBench.cpp - kiln-bench python ----------------------*- C++ -*-===//
//
// This file implements `kiln-bench python`. The graph is a 1-element add,
// so that a call costs its overhead alone. Each figure is the best of
// several timings in this run, each beside the baseline measured here.
//
//===----------------------------------------------------------------------===//

#include "PythonBench.h"
#include "TimedRun.h"

#include "kiln/Runtime/Executable.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>

using namespace kiln;
using namespace kiln::bench;

namespace {

constexpr const char *kGraph = R"(HloModule add_one_element

ENTRY main {
  p = f32[1]{0} parameter(0)
  c = f32[] constant(1)
  b = f32[1]{0} broadcast(c), dimensions={}
  ROOT r = f32[1]{0} add(p, b)
}
)";

/// The Python side: the time from kiln.Cache() and load (a hit) to the
/// first result, then the best time per call of exe(x).
constexpr const char *kScript = R"(import json, sys, time
import numpy as np
import kiln
graph, cache_dir, calls, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
x = np.ones(1, np.float32)
start = time.perf_counter()
exe = kiln.Cache(cache_dir, remote=[]).load(graph)
exe(x)
first = time.perf_counter() - start
best = 1e30
for _ in range(repeat):
    start = time.perf_counter()
    for _ in range(calls):
        exe(x)
    best = min(best, (time.perf_counter() - start) / calls)
print(json.dumps({"first": first, "call": best, "from_cache": exe.from_cache}))
)";


int fail(const llvm::Twine &message) {
  llvm::errs() << "kiln-bench python: error: " << message << "\n";
  return 1;
}

} // namespace

int kiln::bench::runPythonBench(const PythonBenchOptions &options) {
  llvm::SmallString<128> directory;
  if (std::error_code error = llvm::sys::fs::createUniqueDirectory(
          "kiln-python-bench", directory))
    return fail(error.message());
  std::string dir = directory.str().str();
  auto write = [&](llvm::StringRef name, llvm::StringRef text) {
    std::error_code error;
    llvm::raw_fd_ostream os(dir + "/" + name.str(), error);
    os << text;
    return dir + "/" + name.str();
  };
  std::string graph = write("add.hlo", kGraph);
  std::string script = write("bench.py", kScript);
  std::string artifact = dir + "/add.artifact";
  std::string cache = dir + "/cache";
  // The cache filled as a training job's trial run fills it, and the
  // artifact that `kiln run ARTIFACT` takes.
  for (const std::vector<std::string> &argv :
       {std::vector<std::string>{options.kiln, "run", "--cache-dir", cache,
                                 graph},
        std::vector<std::string>{options.kiln, "compile", graph, "-o",
                                 artifact}}) {
    RunResult run = runTimed(argv, dir + "/log");
    if (!run.ok)
      return fail(argv[1] + " failed: " + run.log);
  }
  auto bytes = llvm::MemoryBuffer::getFile(artifact);
  if (!bytes)
    return fail("cannot read " + artifact);

  // In-process, as `kiln run ARTIFACT` runs it: load, then Executable::run.
  mlir::MLIRContext context;
  std::unique_ptr<Executable> executable;
  double inProcessFirst = bestSeconds(options.repeat, [&] {
    auto loaded = Executable::load((*bytes)->getBuffer());
    if (!loaded) {
      llvm::consumeError(loaded.takeError());
      return;
    }
    executable = std::move(*loaded);
    interp::HostTensor x(mlir::RankedTensorType::get(
        {1}, mlir::Float32Type::get(&context)));
    llvm::consumeError(executable->run({x}, &context).takeError());
  });
  if (!executable)
    return fail("the artifact does not load");
  interp::HostTensor x(
      mlir::RankedTensorType::get({1}, mlir::Float32Type::get(&context)));
  double runCall = bestSeconds(options.repeat, [&] {
                     for (unsigned i = 0; i < options.calls; ++i)
                       llvm::consumeError(
                           executable->run({x}, &context).takeError());
                   }) /
                   options.calls;
  float input = 1, output = 0;
  void *buffers[2] = {&input, &output};
  double rawCall = bestSeconds(options.repeat, [&] {
                     for (unsigned i = 0; i < options.calls; ++i)
                       llvm::consumeError(executable->callBuffers(buffers));
                   }) /
                   options.calls;

  // `kiln run ARTIFACT` as a process.
  double processRun = bestSeconds(options.repeat, [&] {
    runTimed({options.kiln, "run", artifact}, dir + "/log");
  });

  // The Python module.
  std::string module = options.module;
  if (module.empty())
    module = (llvm::sys::path::parent_path(options.kiln) + "/../python").str();
  RunResult python = runTimed(
      {"/usr/bin/env", "PYTHONPATH=" + module, options.python, script, graph,
       cache, std::to_string(options.calls), std::to_string(options.repeat)},
      dir + "/python.log");
  llvm::sys::fs::remove_directories(dir);
  if (!python.ok)
    return fail("the Python side failed: " + python.log);
  llvm::StringRef last = llvm::StringRef(python.log).trim().rsplit('\n').second;
  if (last.empty())
    last = llvm::StringRef(python.log).trim();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(last);
  if (!parsed)
    return fail("the Python side printed " + last);
  const llvm::json::Object *result = parsed->getAsObject();
  double pythonCall = result->getNumber("call").value_or(0);
  double pythonFirst = result->getNumber("first").value_or(0);
  if (!result->getBoolean("from_cache").value_or(false))
    return fail("the Python side compiled instead of loading from the cache");

  llvm::outs() << llvm::formatv(
      "Call of a cached 1-element add (best of {0} x {1} calls):\n"
      "  kiln module, exe(x):                   {2,8:F2} us\n"
      "  kiln run's in-process Executable::run: {3,8:F2} us  (module / "
      "this: {4:F2}x)\n"
      "  the C API's path (raw buffers):        {5,8:F2} us  (module / "
      "this: {6:F2}x)\n"
      "From load on a hit to the first result:\n"
      "  kiln module, Cache().load(graph) + call: {7,8:F2} ms\n"
      "  in-process Executable::load + run:       {8,8:F2} ms  (module / "
      "this: {9:F2}x)\n"
      "  kiln run ARTIFACT, a process:            {10,8:F2} ms  (module / "
      "this: {11:F2}x)\n",
      options.repeat, options.calls, pythonCall * 1e6, runCall * 1e6,
      pythonCall / runCall, rawCall * 1e6, pythonCall / rawCall,
      pythonFirst * 1e3, inProcessFirst * 1e3, pythonFirst / inProcessFirst,
      processRun * 1e3, pythonFirst / processRun);
  return 0;
}
