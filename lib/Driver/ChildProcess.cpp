//===- ChildProcess.cpp - isolated child processes with limits --*- C++ -*-===//
//
// Everything the child needs (argv, environment, the log's descriptor) is
// prepared before fork, so that between fork and exec the child calls only
// async-signal-safe functions. An exec failure travels back through a
// close-on-exec pipe, so that a missing compiler is an error at spawn, not
// a mysterious exit status 127.
//
// A child that contains its descendants is a keeper: the forked copy of
// this process, which never execs. It makes itself a subreaper, forks
// again to exec the program, reports the program's pid (or why it could
// not run) through the same pipe, and polls for the program's end; then it
// kills and reaps every process left among its children (the orphans it
// adopted, which /proc lists) and ends as the program did. A SIGTERM (from
// kill() below, or as its death signal when this process dies) makes it
// kill the program first. It too runs async-signal-safe code only.
//
//===----------------------------------------------------------------------===//

#include "kiln/Driver/ChildProcess.h"
#include "kiln/Driver/Descendants.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
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
/// The running children that have a process group of their own, for the
/// termination handler (async-signal-safe: a fixed array of atomics): a
/// group leader's pid, or minus a keeper's pid (see ChildSpec).
constexpr int kMaxTrackedChildren = 1024;
std::atomic<int> trackedGroups[kMaxTrackedChildren];

/// The value tracked for a child.
int getTrackedValue(int pid, bool contained) { return contained ? -pid : pid; }

void trackGroup(int value) {
  for (std::atomic<int> &slot : trackedGroups) {
    int empty = 0;
    if (slot.compare_exchange_strong(empty, value))
      return;
  }
}

void untrackGroup(int value) {
  for (std::atomic<int> &slot : trackedGroups) {
    int expected = value;
    if (slot.compare_exchange_strong(expected, 0))
      return;
  }
}

std::atomic<void (*)(int)> terminationCleanup{nullptr};

void sleepMilliseconds(long milliseconds) {
  struct timespec duration;
  duration.tv_sec = milliseconds / 1000;
  duration.tv_nsec = (milliseconds % 1000) * 1000000L;
  ::nanosleep(&duration, nullptr);
}

void killTrackedGroups(int signal) {
  // Keepers are asked to end their programs and whatever those started,
  // and waited for (briefly): the cleanup below removes files that their
  // programs may still be writing.
  for (std::atomic<int> &slot : trackedGroups) {
    int value = slot.load();
    if (value > 0)
      ::kill(-value, SIGKILL);
    else if (value < 0)
      ::kill(-value, SIGTERM);
  }
  for (std::atomic<int> &slot : trackedGroups) {
    int value = slot.load();
    if (value >= 0)
      continue;
    int waited = 0;
    while (::waitpid(-value, nullptr, WNOHANG) == 0 && waited++ < 400)
      sleepMilliseconds(5);
    ::kill(value, SIGKILL); // its group, if it did not end
  }
  // Children of no group of their own, and, while this process is a
  // subreaper (a training command runs), their descendants: each killed
  // child's orphans are adopted, and killed in the next round.
  int children[1024];
  for (int round = 0; round < 500; ++round) {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    size_t count = std::min<size_t>(listChildProcesses(children, 1024), 1024);
    if (!count)
      break;
    for (size_t i = 0; i < count; ++i)
      ::kill(children[i], SIGKILL);
    sleepMilliseconds(2);
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

namespace {
/// Everything a keeper needs, prepared before fork.
struct KeeperArguments {
  const char *program;
  char *const *argv;
  char *const *envp;
  int logFd;
  int nullFd;
  int reportFd; ///< the write end of the spawn pipe
  uint64_t memoryLimitBytes;
  bool dieWithParent;
  pid_t parent;
};

/// What a keeper reports through the spawn pipe.
struct KeeperReport {
  int execError; ///< errno of a failed exec; 0 when the program runs
  int programPid;
};

volatile sig_atomic_t keeperStopRequested = 0;
void requestKeeperStop(int) { keeperStopRequested = 1; }

void setSignalAction(int signal, void (*handler)(int)) {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal, &action, nullptr);
}

/// Writes `text` and `number` and `rest` to `fd` (async-signal-safe).
void writeCountLine(int fd, const char *text, size_t number,
                    const char *rest) {
  char digits[24];
  int at = sizeof(digits);
  do {
    digits[--at] = '0' + number % 10;
    number /= 10;
  } while (number);
  writeAll(fd, text, std::strlen(text));
  writeAll(fd, digits + at, sizeof(digits) - at);
  writeAll(fd, rest, std::strlen(rest));
}

/// Kills and reaps every child of this keeper (the program and the
/// orphans it adopted, and theirs as they are adopted in turn) until it
/// has none. Sets `programStatus` if it reaps the program. Returns how
/// many processes other than the program it killed.
size_t killEveryChild(pid_t program, int &programStatus, bool &programEnded) {
  int killed[256];
  size_t killedCount = 0, others = 0;
  for (int round = 0;; ++round) {
    int status = 0;
    pid_t got;
    while ((got = ::waitpid(-1, &status, WNOHANG)) > 0) {
      if (got == program) {
        programStatus = status;
        programEnded = true;
      }
    }
    if (got < 0 && errno == ECHILD)
      return others;
    int children[256];
    size_t count = std::min<size_t>(listChildProcesses(children, 256), 256);
    for (size_t i = 0; i < count; ++i) {
      ::kill(children[i], SIGKILL);
      if (children[i] == program)
        continue;
      bool seen = false;
      for (size_t k = 0; k < killedCount && !seen; ++k)
        seen = killed[k] == children[i];
      if (!seen) {
        if (killedCount < 256)
          killed[killedCount++] = children[i];
        ++others;
      }
    }
    // Without /proc's lists the orphans cannot be found: give up on them
    // after a while rather than wait forever.
    if (count == 0 && round > 2000)
      return others;
    sleepMilliseconds(1);
  }
}

[[noreturn]] void runKeeper(const KeeperArguments &arguments) {
  // This is a copy of kiln, not a new program: its handlers must not run.
  setSignalAction(SIGINT, SIG_DFL);
  setSignalAction(SIGHUP, SIG_DFL);
  setSignalAction(SIGTERM, requestKeeperStop);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  KeeperReport report = {0, 0};
  pid_t keeper = ::getpid();
#ifdef __linux__
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (arguments.dieWithParent) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != arguments.parent)
      ::_exit(127);
  }
#endif
  int execPipe[2];
  if (::pipe2(execPipe, O_CLOEXEC) != 0) {
    report.execError = errno;
    writeAll(arguments.reportFd, &report, sizeof(report));
    ::_exit(127);
  }
  pid_t program = ::fork();
  if (program == 0) {
    setSignalAction(SIGTERM, SIG_DFL);
#ifdef __linux__
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != keeper)
      ::_exit(127);
#endif
    if (arguments.memoryLimitBytes) {
      struct rlimit limit;
      limit.rlim_cur = limit.rlim_max = arguments.memoryLimitBytes;
      ::setrlimit(RLIMIT_AS, &limit);
    }
    if (arguments.nullFd >= 0)
      ::dup2(arguments.nullFd, 0);
    if (arguments.logFd >= 0) {
      ::dup2(arguments.logFd, 1);
      ::dup2(arguments.logFd, 2);
    }
    ::execve(arguments.program, arguments.argv, arguments.envp);
    int error = errno;
    writeAll(execPipe[1], &error, sizeof(error));
    ::_exit(127);
  }
  int forkError = errno;
  ::close(execPipe[1]);
  if (program < 0) {
    report.execError = forkError;
    writeAll(arguments.reportFd, &report, sizeof(report));
    ::_exit(127);
  }
  int execError = 0;
  ssize_t got;
  do {
    got = ::read(execPipe[0], &execError, sizeof(execError));
  } while (got < 0 && errno == EINTR);
  ::close(execPipe[0]);
  if (got == (ssize_t)sizeof(execError)) {
    report.execError = execError;
    writeAll(arguments.reportFd, &report, sizeof(report));
    ::waitpid(program, nullptr, 0);
    ::_exit(127);
  }
  report.programPid = program;
  writeAll(arguments.reportFd, &report, sizeof(report));
  ::close(arguments.reportFd);

  // Polled, not a blocking wait: a stop request between a check and a
  // blocking wait would go unseen until the program ended.
  int status = 0;
  bool ended = false;
  while (!keeperStopRequested) {
    int childStatus = 0;
    pid_t reaped = ::waitpid(-1, &childStatus, WNOHANG);
    if (reaped == program) {
      status = childStatus;
      ended = true;
      break;
    }
    if (reaped > 0)
      continue; // an adopted orphan ended
    if (reaped < 0 && errno == ECHILD)
      break;
    sleepMilliseconds(10);
  }
  bool stopped = !ended;
  if (!ended)
    ::kill(program, SIGKILL);
  size_t others = killEveryChild(program, status, ended);
  if (others && arguments.logFd >= 0)
    writeCountLine(arguments.logFd, "kiln: ended ", others,
                   others == 1 ? " process that the program left running\n"
                               : " processes that the program left running\n");
  if (stopped)
    ::kill(keeper, SIGKILL); // ends as the program was ended
  if (WIFSIGNALED(status)) {
    int signal = WTERMSIG(status);
    struct rlimit noCore = {0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);
    setSignalAction(signal, SIG_DFL);
    ::raise(signal);
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}
} // namespace

/// A "Name:   N kB" field of /proc/PID/status text, in bytes; 0 if absent.
static uint64_t readStatusBytes(llvm::StringRef text, llvm::StringRef field) {
  size_t at = text.find(field);
  if (at == llvm::StringRef::npos)
    return 0;
  llvm::StringRef value = text.drop_front(at + field.size()).ltrim();
  uint64_t kib = 0;
  if (value.take_while(llvm::isDigit).getAsInteger(10, kib))
    return 0;
  return kib * 1024;
}

/// The peak resident set (VmHWM) and peak address space (VmPeak) that
/// /proc says of `pid` (0: this process), in bytes; 0 when unknown (gone,
/// a zombie).
static std::pair<uint64_t, uint64_t> readPeaks(int pid) {
  std::string path =
      pid > 0 ? "/proc/" + std::to_string(pid) + "/status" : "/proc/self/status";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {0, 0};
  char buffer[4096];
  ssize_t size = ::read(fd, buffer, sizeof(buffer) - 1);
  ::close(fd);
  if (size <= 0)
    return {0, 0};
  llvm::StringRef text(buffer, size);
  return {readStatusBytes(text, "VmHWM:"), readStatusBytes(text, "VmPeak:")};
}

static uint64_t readPeakResident(int pid) { return readPeaks(pid).first; }

void ChildProcess::samplePeakMemory() {
  auto [resident, addressSpace] = readPeaks(programPid);
  sampledPeak = std::max(sampledPeak, resident);
  sampledAddressSpace = std::max(sampledAddressSpace, addressSpace);
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
  KeeperArguments keeper = {program.c_str(), argv.data(),     envp.data(),
                            logFd,           nullFd,          errorPipe[1],
                            spec.memoryLimitBytes, spec.dieWithParent,
                            parent};
  // Signals wait until the child has put this process's handlers aside:
  // a Ctrl-C between fork and exec must not run kiln's cleanup in the
  // child (which would kill its siblings and remove the work directory).
  sigset_t allSignals, previousMask;
  sigfillset(&allSignals);
  ::pthread_sigmask(SIG_SETMASK, &allSignals, &previousMask);
  pid_t pid = ::fork();
  if (pid == 0) {
    // The child: async-signal-safe calls only, until exec.
    for (int signal : {SIGINT, SIGTERM, SIGHUP})
      setSignalAction(signal, SIG_DFL);
    ::pthread_sigmask(SIG_SETMASK, &previousMask, nullptr);
    if (spec.ownProcessGroup)
      ::setpgid(0, 0);
    if (spec.containDescendants)
      runKeeper(keeper);
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
  ::pthread_sigmask(SIG_SETMASK, &previousMask, nullptr);
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
    trackGroup(getTrackedValue(pid, spec.containDescendants));
  }
  // A plain child writes an exec failure's errno; a keeper writes a
  // KeeperReport either way.
  KeeperReport report = {0, 0};
  size_t expected =
      spec.containDescendants ? sizeof(report) : sizeof(report.execError);
  size_t got = 0;
  while (got < expected) {
    ssize_t size = ::read(errorPipe[0], reinterpret_cast<char *>(&report) + got,
                          expected - got);
    if (size < 0 && errno == EINTR)
      continue;
    if (size <= 0)
      break;
    got += size;
  }
  ::close(errorPipe[0]);
  ChildProcess child;
  child.pid = pid;
  child.programPid = report.programPid > 0 ? report.programPid : pid;
  child.ownGroup = spec.ownProcessGroup;
  child.contained = spec.containDescendants;
  child.startSeconds = start;
  child.parentPeakAtSpawn = parentPeak;
  int execError = report.execError;
  if (got >= sizeof(report.execError) && execError != 0) {
    child.wait();
    return llvm::createStringError("cannot run '" + program +
                                   "': " + strerror(execError));
  }
  return std::move(child);
}

ChildProcess::ChildProcess(ChildProcess &&other) { *this = std::move(other); }

ChildProcess &ChildProcess::operator=(ChildProcess &&other) {
  std::swap(pid, other.pid);
  std::swap(programPid, other.programPid);
  std::swap(ownGroup, other.ownGroup);
  std::swap(contained, other.contained);
  std::swap(startSeconds, other.startSeconds);
  std::swap(parentPeakAtSpawn, other.parentPeakAtSpawn);
  std::swap(sampledPeak, other.sampledPeak);
  std::swap(sampledAddressSpace, other.sampledAddressSpace);
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
  exit.peakAddressSpaceBytes = sampledAddressSpace;
  // What the child started dies with it: a killed compiler's own children
  // would otherwise keep running (and writing) after its graph is done.
  if (ownGroup && got > 0) {
    ::kill(-pid, SIGKILL);
    untrackGroup(getTrackedValue(pid, contained));
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
    // One cleanup at a time: a second signal waits for the first's.
    sigemptyset(&action.sa_mask);
    for (int other : {SIGINT, SIGTERM, SIGHUP})
      sigaddset(&action.sa_mask, other);
    ::sigaction(signal, &action, nullptr);
  }
}

void ChildProcess::kill() {
  if (pid <= 0 || ended)
    return;
  // A keeper ends its program and everything it started, then itself.
  if (contained) {
    ::kill(pid, SIGTERM);
    return;
  }
  if (ownGroup)
    ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

uint64_t kiln::getLoadedCodeBytes() {
  auto maps = llvm::MemoryBuffer::getFileAsStream("/proc/self/maps");
  if (!maps)
    return 0;
  std::string exe;
  if (auto path = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
      !path.empty())
    exe = path;
  uint64_t bytes = 0;
  llvm::SmallVector<llvm::StringRef> lines;
  (*maps)->getBuffer().split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    // START-END PERMS OFFSET DEVICE INODE PATH
    llvm::SmallVector<llvm::StringRef, 6> fields;
    line.split(fields, ' ', 5, false);
    if (fields.size() < 6)
      continue;
    llvm::StringRef path = fields[5].trim();
    llvm::StringRef name = llvm::sys::path::filename(path);
    if (path != exe && !name.ends_with(".so") && !name.contains(".so."))
      continue;
    auto [start, end] = fields[0].split('-');
    uint64_t from, to;
    if (start.getAsInteger(16, from) || end.getAsInteger(16, to) || to < from)
      continue;
    bytes += to - from;
  }
  return bytes;
}
