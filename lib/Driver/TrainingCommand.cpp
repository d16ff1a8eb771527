//===- TrainingCommand.cpp - graphs from a trial run of training -*- C++ -*-===//

#include "kiln/Driver/TrainingCommand.h"
#include "kiln/Driver/Descendants.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <csignal>
#include <set>
#include <sys/wait.h>
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

/// This process's children, all of them now: while the training command
/// runs, kiln starts no other.
static std::vector<int> listChildren() {
  std::vector<int> pids(64);
  size_t count;
  while ((count = listChildProcesses(pids.data(), pids.size())) > pids.size())
    pids.resize(count * 2);
  pids.resize(count);
  return pids;
}

static std::string describeProcesses(const std::vector<int> &pids) {
  std::string text;
  for (size_t i = 0; i < pids.size() && i < 8; ++i)
    text += (i ? ", " : "") + describeProcess(pids[i]);
  if (pids.size() > 8)
    text += ", and " + std::to_string(pids.size() - 8) + " more";
  return text;
}

static std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", seconds);
  return text;
}

/// The children still running: those that ended are reaped first, and
/// the list taken again, since an ended one's own children were adopted
/// by this process as it ended.
static std::vector<int> listRunningChildren() {
  for (int pid : listChildren())
    ::waitpid(pid, nullptr, WNOHANG);
  std::vector<int> running;
  for (int pid : listChildren())
    if (::waitpid(pid, nullptr, WNOHANG) == 0)
      running.push_back(pid);
  return running;
}

/// Waits (until `deadline`, monotonic) for the processes the training
/// command left behind, which this process adopted; kills those still
/// running then, and their orphans in turn.
static void waitForLeftovers(double deadline, bool limitIsTimeout,
                             llvm::raw_ostream *messages) {
  std::vector<int> left = listRunningChildren();
  if (left.empty())
    return;
  double began = getMonotonicSeconds();
  size_t waitedFor = left.size();
  if (messages && deadline > began)
    *messages << "kiln precompile: the training command left "
              << (left.size() == 1 ? "1 process" : std::to_string(left.size()) +
                                                       " processes")
              << " running (" << describeProcesses(left)
              << "); waiting up to " << formatSeconds(deadline - began)
              << " s for "
              << (left.size() == 1 ? "it" : "them") << " to finish "
              << (limitIsTimeout ? "(the rest of --command-timeout)"
                                 : "(--command-timeout sets the limit)")
              << "\n";
  while (getMonotonicSeconds() < deadline) {
    left = listRunningChildren();
    if (left.empty()) {
      if (messages)
        *messages << "kiln precompile: "
                  << (waitedFor == 1 ? "it" : "they") << " ended after "
                  << formatSeconds(getMonotonicSeconds() - began) << " s\n";
      return;
    }
    waitedFor = std::max(waitedFor, left.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // At the limit: every one ends, and what they leave in turn (named
  // before they end, while /proc still knows their names).
  std::set<int> killed;
  std::vector<std::string> names;
  for (int round = 0; !left.empty() && round < 2000; ++round) {
    for (int pid : left) {
      if (killed.insert(pid).second && names.size() < 8)
        names.push_back(describeProcess(pid));
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    left = listRunningChildren();
  }
  if (messages && !killed.empty())
    *messages << "kiln precompile: warning: ended "
              << (killed.size() == 1
                      ? std::string("1 process")
                      : std::to_string(killed.size()) + " processes")
              << " that the training command left running past the limit ("
              << llvm::join(names, ", ")
              << (killed.size() > names.size() ? ", ..." : "") << ")\n";
}

llvm::Expected<ChildExit>
kiln::runTrainingCommand(const std::vector<std::string> &command,
                         llvm::StringRef dumpDirectory, double timeoutSeconds,
                         bool *timedOut, llvm::raw_ostream *messages) {
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
  // Orphans of the command come to this process instead of init, to be
  // waited for.
  bool adopting = setChildSubreaper(true);
  double start = getMonotonicSeconds();
  llvm::Expected<ChildProcess> child = ChildProcess::spawn(spec);
  if (!child) {
    setChildSubreaper(false);
    return child.takeError();
  }
  ChildExit exit;
  if (timeoutSeconds <= 0) {
    exit = child->wait();
  } else {
    while (true) {
      if (std::optional<ChildExit> ended = child->poll()) {
        exit = *ended;
        break;
      }
      if (child->getElapsedSeconds() >= timeoutSeconds) {
        child->kill();
        if (timedOut)
          *timedOut = true;
        exit = child->wait();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (adopting) {
    double deadline = timeoutSeconds > 0
                          ? start + timeoutSeconds
                          : getMonotonicSeconds() + kDefaultLeftoverSeconds;
    waitForLeftovers(deadline, timeoutSeconds > 0, messages);
    setChildSubreaper(false);
  }
  return exit;
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
kiln::collectDumpedModules(llvm::StringRef dumpDirectory,
                           std::vector<std::string> *unreadable) {
  std::vector<std::string> modules;
  // Depth first, one directory at a time, so that one that cannot be
  // read (a path past PATH_MAX, no permission) is named and the walk goes
  // on. Links are not followed: two links to the directory itself would
  // make the walk endless (a link is no dump XLA writes).
  std::vector<std::string> pending = {dumpDirectory.str()};
  while (!pending.empty()) {
    std::string directory = std::move(pending.back());
    pending.pop_back();
    std::error_code error;
    llvm::sys::fs::directory_iterator it(directory, error,
                                         /*follow_symlinks=*/false),
        end;
    for (; !error && it != end; it.increment(error)) {
      llvm::StringRef path = it->path();
      if (it->type() == llvm::sys::fs::file_type::directory_file) {
        pending.push_back(path.str());
        continue;
      }
      if (it->type() != llvm::sys::fs::file_type::regular_file)
        continue;
      if (path.ends_with(".before_optimizations.txt") ||
          path.ends_with(".hlo") || path.ends_with(".mlir"))
        modules.push_back(path.str());
    }
    if (error && unreadable)
      unreadable->push_back(directory + " (" + error.message() + ")");
  }
  llvm::sort(modules);
  return modules;
}
