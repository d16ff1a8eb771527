//===- TrainingCommand.cpp - graphs from a trial run of training -*- C++
//-*-===//

#include "kiln/Driver/TrainingCommand.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <thread>

using namespace kiln;

std::string kiln::addXlaDumpFlags(llvm::StringRef userFlags,
                                  llvm::StringRef dumpDirectory) {
  std::string flags = userFlags.trim().str();
  if (!flags.empty())
    flags += ' ';
  flags += "--xla_dump_to=" + dumpDirectory.str() + " --xla_dump_hlo_as_text";
  return flags;
}

std::vector<std::string>
kiln::getTrialRunEnvironment(llvm::StringRef dumpDirectory) {
  std::string userFlags = llvm::sys::Process::GetEnv("XLA_FLAGS").value_or("");
  return {"XLA_FLAGS=" + addXlaDumpFlags(userFlags, dumpDirectory),
          "KILN_EXTRACT_ONLY=1"};
}

llvm::Expected<ChildExit>
kiln::runTrainingCommand(const std::vector<std::string> &command,
                         llvm::StringRef dumpDirectory, double timeoutSeconds,
                         bool *timedOut) {
  ChildSpec spec;
  spec.argv = command;
  spec.setEnvironment = getTrialRunEnvironment(dumpDirectory);
  // The user's command is interactive as usual: it keeps the terminal, and
  // Ctrl-C reaches it with kiln. Under a timeout it gets a process group of
  // its own, so that it can be ended with everything it started (kiln's
  // Ctrl-C handler kills that group too).
  spec.nullStdin = false;
  spec.ownProcessGroup = timeoutSeconds > 0;
  if (timedOut)
    *timedOut = false;
  llvm::Expected<ChildProcess> child = ChildProcess::spawn(spec);
  if (!child)
    return child.takeError();
  if (timeoutSeconds <= 0)
    return child->wait();
  while (true) {
    if (std::optional<ChildExit> exit = child->poll())
      return *exit;
    if (child->getElapsedSeconds() >= timeoutSeconds) {
      child->kill();
      if (timedOut)
        *timedOut = true;
      return child->wait();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

bool kiln::isGraphFileName(llvm::StringRef path) {
  llvm::StringRef name = llvm::sys::path::filename(path);
  if (name.ends_with(".hlo") || name.ends_with(".mlir"))
    return true;
  if (!name.ends_with(".txt"))
    return false;
  if (name.ends_with(".before_optimizations.txt"))
    return true;
  // XLA names every dump file module_NNNN.<module name>.<what>.txt.
  llvm::StringRef rest = name;
  if (!rest.consume_front("module_"))
    return true;
  llvm::StringRef digits = rest.take_while(llvm::isDigit);
  return digits.empty() || !rest.drop_front(digits.size()).starts_with(".");
}

std::vector<std::string>
kiln::collectDumpedModules(llvm::StringRef dumpDirectory) {
  std::vector<std::string> modules;
  std::error_code error;
  // Links are not followed: two links to the directory itself would make
  // the walk endless (a link is no dump XLA writes).
  for (llvm::sys::fs::recursive_directory_iterator
           it(dumpDirectory, error, /*follow_symlinks=*/false),
       end;
       !error && it != end; it.increment(error)) {
    if (it->type() != llvm::sys::fs::file_type::regular_file)
      continue;
    llvm::StringRef path = it->path();
    if (path.ends_with(".before_optimizations.txt") || path.ends_with(".hlo") ||
        path.ends_with(".mlir"))
      modules.push_back(path.str());
  }
  llvm::sort(modules);
  return modules;
}
