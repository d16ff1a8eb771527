//===- ChildProcess.cpp - isolated child processes with limits --*- C++ -*-===//
//
// Everything the child needs (argv, environment, the log's descriptor) is
// prepared before fork, so that between fork and exec the child calls only
// async-signal-safe functions. An exec failure travels back through a
// close-on-exec pipe, so that a missing compiler is an error at spawn, not
// a mysterious exit status 127.
//
//===----------------------------------------------------------------------===//

#include "kiln/Driver/ChildProcess.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Program.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

extern char **environ;

using namespace kiln;

double kiln::getMonotonicSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string ChildExit::describe() const {
  if (!signaled)
    return "exited with status " + std::to_string(code);
  const char *name = strsignal(signal);
  return "killed by signal " + std::to_string(signal) +
         (name ? std::string(" (") + name + ")" : std::string());
}

namespace {
/// The process groups of the running children that have one, for the
/// termination handler (async-signal-safe: a fixed array of atomics).
constexpr int kMaxTrackedChildren = 1024;
std::atomic<int> trackedGroups[kMaxTrackedChildren];

void trackGroup(int pid) {
  for (std::atomic<int> &slot : trackedGroups) {
    int empty = 0;
    if (slot.compare_exchange_strong(empty, pid))
      return;
  }
}

void untrackGroup(int pid) {
  for (std::atomic<int> &slot : trackedGroups) {
    int expected = pid;
    if (slot.compare_exchange_strong(expected, 0))
      return;
  }
}

std::atomic<void (*)(int)> terminationCleanup{nullptr};

void killTrackedGroups(int signal) {
  for (std::atomic<int> &slot : trackedGroups) {
    int pid = slot.load();
    if (pid > 0)
      ::kill(-pid, SIGKILL);
  }
  if (void (*cleanup)(int) = terminationCleanup.load())
    cleanup(signal);
  // Die of the signal, as the process would have without this handler.
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

/// The environment of the child: this process's, with `overrides` set.
std::vector<std::string>
buildEnvironment(const std::vector<std::string> &overrides) {
  llvm::StringMap<size_t> position;
  std::vector<std::string> environment;
  for (char **entry = environ; entry && *entry; ++entry) {
    llvm::StringRef text(*entry);
    position[text.split('=').first] = environment.size();
    environment.push_back(text.str());
  }
  for (const std::string &text : overrides) {
    llvm::StringRef name = llvm::StringRef(text).split('=').first;
    auto found = position.find(name);
    if (found != position.end()) {
      environment[found->second] = text;
    } else {
      position[name] = environment.size();
      environment.push_back(text);
    }
  }
  return environment;
}

std::vector<char *> toPointers(std::vector<std::string> &strings) {
  std::vector<char *> pointers;
  for (std::string &text : strings)
    pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

/// Writes all of `size` bytes, as the child may (async-signal-safe).
void writeAll(int fd, const void *data, size_t size) {
  const char *bytes = static_cast<const char *>(data);
  while (size) {
    ssize_t written = ::write(fd, bytes, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return;
    bytes += written;
    size -= written;
  }
}
} // namespace

/// The peak resident set (VmHWM) that /proc says of `pid` (0: this
/// process), in bytes; 0 when unknown (gone, a zombie).
static uint64_t readPeakResident(int pid) {
  std::string path =
      pid > 0 ? "/proc/" + std::to_string(pid) + "/status" : "/proc/self/status";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char buffer[4096];
  ssize_t size = ::read(fd, buffer, sizeof(buffer) - 1);
  ::close(fd);
  if (size <= 0)
    return 0;
  llvm::StringRef text(buffer, size);
  size_t at = text.find("VmHWM:");
  if (at == llvm::StringRef::npos)
    return 0;
  llvm::StringRef value = text.drop_front(at + 6).ltrim();
  uint64_t kib = 0;
  if (value.take_while(llvm::isDigit).getAsInteger(10, kib))
    return 0;
  return kib * 1024;
}

void ChildProcess::samplePeakMemory() {
  sampledPeak = std::max(sampledPeak, readPeakResident(pid));
}

llvm::Expected<ChildProcess> ChildProcess::spawn(const ChildSpec &spec) {
  if (spec.argv.empty())
    return llvm::createStringError("no program to run");
  uint64_t parentPeak = readPeakResident(0);
  std::string program = spec.argv[0];
  if (program.find('/') == std::string::npos) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(program);
    if (!found)
      return llvm::createStringError("cannot run '" + program +
                                     "': not found in PATH");
    program = *found;
  }
  std::vector<std::string> arguments = spec.argv;
  std::vector<char *> argv = toPointers(arguments);
  std::vector<std::string> environment = buildEnvironment(spec.setEnvironment);
  std::vector<char *> envp = toPointers(environment);

  int logFd = -1;
  if (!spec.logPath.empty()) {
    logFd = ::open(spec.logPath.c_str(),
                   O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (logFd < 0)
      return llvm::createStringError("cannot write the log " + spec.logPath +
                                     ": " + strerror(errno));
  }
  int nullFd = -1;
  if (spec.nullStdin)
    nullFd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int errorPipe[2];
  if (::pipe2(errorPipe, O_CLOEXEC) != 0) {
    if (logFd >= 0)
      ::close(logFd);
    if (nullFd >= 0)
      ::close(nullFd);
    return llvm::createStringError(std::string("pipe: ") + strerror(errno));
  }
  pid_t parent = ::getpid();
  double start = getMonotonicSeconds();
  pid_t pid = ::fork();
  if (pid == 0) {
    // The child: async-signal-safe calls only, until exec.
    if (spec.ownProcessGroup)
      ::setpgid(0, 0);
#ifdef __linux__
    if (spec.dieWithParent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) // the parent died before prctl
        ::_exit(127);
    }
#endif
    if (spec.memoryLimitBytes) {
      struct rlimit limit;
      limit.rlim_cur = limit.rlim_max = spec.memoryLimitBytes;
      ::setrlimit(RLIMIT_AS, &limit);
    }
    if (nullFd >= 0)
      ::dup2(nullFd, 0);
    if (logFd >= 0) {
      ::dup2(logFd, 1);
      ::dup2(logFd, 2);
    }
    ::execve(program.c_str(), argv.data(), envp.data());
    int error = errno;
    writeAll(errorPipe[1], &error, sizeof(error));
    ::_exit(127);
  }
  int forkError = errno;
  ::close(errorPipe[1]);
  if (logFd >= 0)
    ::close(logFd);
  if (nullFd >= 0)
    ::close(nullFd);
  if (pid < 0) {
    ::close(errorPipe[0]);
    return llvm::createStringError(std::string("fork: ") + strerror(forkError));
  }
  // The child's group is set by the parent too, so that a kill() right
  // after spawn reaches it whichever runs first.
  if (spec.ownProcessGroup) {
    ::setpgid(pid, pid);
    trackGroup(pid);
  }
  int execError = 0;
  ssize_t got;
  do {
    got = ::read(errorPipe[0], &execError, sizeof(execError));
  } while (got < 0 && errno == EINTR);
  ::close(errorPipe[0]);
  ChildProcess child;
  child.pid = pid;
  child.ownGroup = spec.ownProcessGroup;
  child.startSeconds = start;
  child.parentPeakAtSpawn = parentPeak;
  if (got == (ssize_t)sizeof(execError)) {
    child.wait();
    return llvm::createStringError("cannot run '" + program +
                                   "': " + strerror(execError));
  }
  return std::move(child);
}

ChildProcess::ChildProcess(ChildProcess &&other) { *this = std::move(other); }

ChildProcess &ChildProcess::operator=(ChildProcess &&other) {
  std::swap(pid, other.pid);
  std::swap(ownGroup, other.ownGroup);
  std::swap(startSeconds, other.startSeconds);
  std::swap(parentPeakAtSpawn, other.parentPeakAtSpawn);
  std::swap(sampledPeak, other.sampledPeak);
  std::swap(ended, other.ended);
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid > 0 && !ended) {
    kill();
    wait();
  }
}

double ChildProcess::getElapsedSeconds() const {
  return getMonotonicSeconds() - startSeconds;
}

std::optional<ChildExit> ChildProcess::reap(bool block) {
  if (ended || pid <= 0)
    return ended;
  int status = 0;
  struct rusage usage;
  std::memset(&usage, 0, sizeof(usage));
  // The child's own peak, while it still has one to read: after its exit
  // only getrusage's remains, which counts this process's pages that the
  // fork copied (a worker forked by a large driver looks large).
  samplePeakMemory();
  pid_t got;
  do {
    got = ::wait4(pid, &status, block ? 0 : WNOHANG, &usage);
  } while (got < 0 && errno == EINTR);
  if (got == 0)
    return std::nullopt;
  ChildExit exit;
  exit.seconds = getElapsedSeconds();
  if (got < 0) { // reaped elsewhere: nothing to know
    exit.code = -1;
  } else if (WIFSIGNALED(status)) {
    exit.signaled = true;
    exit.signal = WTERMSIG(status);
  } else {
    exit.code = WEXITSTATUS(status);
  }
  // getrusage's peak (KiB on Linux) is the child's own only where it
  // passed what the fork copied; else the last sample is.
  uint64_t rusagePeak = (uint64_t)usage.ru_maxrss * 1024;
  bool ownRusage = rusagePeak > parentPeakAtSpawn + (4u << 20);
  exit.peakMemoryBytes = std::max(ownRusage ? rusagePeak : 0, sampledPeak);
  // What the child started dies with it: a killed compiler's own children
  // would otherwise keep running (and writing) after its graph is done.
  if (ownGroup && got > 0) {
    ::kill(-pid, SIGKILL);
    untrackGroup(pid);
  }
  ended = exit;
  return ended;
}

std::optional<ChildExit> ChildProcess::poll() { return reap(false); }

ChildExit ChildProcess::wait() { return *reap(true); }

void kiln::setTerminationCleanup(void (*cleanup)(int signal)) {
  terminationCleanup.store(cleanup);
}

void kiln::killChildrenOnTermination() {
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = killTrackedGroups;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, nullptr);
  }
}

void ChildProcess::kill() {
  if (pid <= 0 || ended)
    return;
  if (ownGroup)
    ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}
