//===- TimedRun.cpp - kiln commands run and timed by a benchmark ----------===//

#include "TimedRun.h"

#include <chrono>

#include "kiln/Driver/ChildProcess.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace kiln;
using namespace kiln::bench;

RunResult kiln::bench::runTimed(const std::vector<std::string> &argv,
                                const std::string &logPath,
                                const std::vector<std::string> &environment) {
  RunResult result;
  ChildSpec spec;
  spec.argv = argv;
  spec.logPath = logPath;
  spec.setEnvironment = environment;
  spec.ownProcessGroup = false;
  double start = getMonotonicSeconds();
  llvm::Expected<ChildProcess> child = ChildProcess::spawn(spec);
  if (!child) {
    result.log = llvm::toString(child.takeError());
    return result;
  }
  ChildExit exit = child->wait();
  result.seconds = getMonotonicSeconds() - start;
  result.ok = exit.succeeded();
  if (auto text = llvm::MemoryBuffer::getFile(logPath))
    result.log = (*text)->getBuffer().str();
  return result;
}

CompileReport kiln::bench::readCompileReport(llvm::StringRef log) {
  CompileReport report;
  size_t at = log.find("compiled ");
  if (at == llvm::StringRef::npos)
    return report;
  llvm::StringRef line = log.drop_front(at).split('\n').first;
  // The seconds after `label`.
  auto seconds = [&](llvm::StringRef label) {
    size_t where = line.find(label);
    double value = 0;
    if (where != llvm::StringRef::npos)
      line.drop_front(where + label.size())
          .ltrim()
          .take_while([](char c) { return llvm::isDigit(c) || c == '.'; })
          .getAsDouble(value);
    return value;
  };
  report.total = seconds(" in ");
  report.frontEnd = seconds("front end");
  report.lowering = seconds("lowering");
  report.llvm = seconds("LLVM IR") + seconds("LLVM optimization") +
                seconds("code generation");
  return report;
}

double kiln::bench::bestSeconds(unsigned repeat,
                                const std::function<void()> &work) {
  double best = 1e30;
  for (unsigned i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    work();
    best = std::min(best, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count());
  }
  return best;
}
