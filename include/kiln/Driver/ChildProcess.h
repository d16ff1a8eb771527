//===- ChildProcess.h - isolated child processes with limits ----*- C++ -*-===//
//
// This file declares how kiln starts the processes it does not trust to
// behave: compile workers and a user's training command. A worker runs in a
// process group of its own (a timeout kills the compiler and whatever it
// started), under an address-space limit (a runaway compile fails alone
// instead of waking the kernel's OOM killer for the whole machine), dies
// with the process that started it (no orphan keeps compiling after a
// crash), and writes its output to a log file. llvm::sys::ExecuteNoWait
// cannot set a process group, a death signal or RLIMIT_AS, hence fork and
// exec here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DRIVER_CHILDPROCESS_H
#define KILN_DRIVER_CHILDPROCESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// How a child is started.
struct ChildSpec {
  /// The program (searched in PATH when it has no slash) and its arguments.
  std::vector<std::string> argv;
  /// Variables set (`NAME=VALUE`) on top of this process's environment.
  std::vector<std::string> setEnvironment;
  /// Where stdout and stderr go (created or truncated); empty: inherited.
  std::string logPath;
  /// stdin from /dev/null (workers) instead of inherited (a user's command).
  bool nullStdin = true;
  /// RLIMIT_AS in bytes; 0: none.
  uint64_t memoryLimitBytes = 0;
  /// A process group of its own, so that kill() reaches its children.
  bool ownProcessGroup = true;
  /// SIGKILL when this process dies (Linux).
  bool dieWithParent = true;
  /// Whatever the program starts ends with it, even processes that left
  /// its process group (setsid) or its parent (a double fork): the child
  /// is then a small keeper process, a subreaper that runs the program,
  /// adopts its orphans, and kills every one of them when the program
  /// ends, is killed, or this process dies (Linux). The exit status and
  /// peak memory reported are the program's.
  bool containDescendants = false;
};

/// The address space that this process's program and shared libraries map
/// (their file-backed mappings in /proc/self/maps); 0 where that cannot be
/// read. A worker that runs this same program maps as much before it
/// allocates anything, so an address-space limit meant for what it
/// allocates adds this: kiln maps about 180 MiB of code (static) or 250 MiB
/// (libMLIR.so and libLLVM.so), most of it never resident.
uint64_t getLoadedCodeBytes();

/// How a child ended.
struct ChildExit {
  bool signaled = false; ///< killed by a signal (then `signal` is set)
  int code = 0;          ///< exit status when not signaled
  int signal = 0;
  uint64_t peakMemoryBytes = 0; ///< its peak resident set
  /// Its peak address space (VmPeak) as last seen while it ran; 0 when it
  /// ended before it was seen. RLIMIT_AS limits this, not the resident set.
  uint64_t peakAddressSpaceBytes = 0;
  double seconds = 0;           ///< wall time from start to exit

  bool succeeded() const { return !signaled && code == 0; }
  /// The status a shell would report: the code, or 128 + the signal.
  int getShellStatus() const { return signaled ? 128 + signal : code; }
  /// "exited with status 1", "killed by signal 9 (Killed)".
  std::string describe() const;
};

/// A started child; destroying one that still runs kills and reaps it.
class ChildProcess {
public:
  /// Starts `spec`; an error when the program cannot be run (not found,
  /// not executable), reported by the child before it would have run.
  static llvm::Expected<ChildProcess> spawn(const ChildSpec &spec);

  ChildProcess(ChildProcess &&other);
  ChildProcess &operator=(ChildProcess &&other);
  ChildProcess(const ChildProcess &) = delete;
  ChildProcess &operator=(const ChildProcess &) = delete;
  ~ChildProcess();

  int getPid() const { return pid; }
  /// The exit, if the child has ended (never blocks).
  std::optional<ChildExit> poll();
  /// Waits for the child to end.
  ChildExit wait();
  /// SIGKILL to the child (and its process group when it has one).
  void kill();
  /// Seconds since the child started.
  double getElapsedSeconds() const;

private:
  ChildProcess() = default;
  std::optional<ChildExit> reap(bool block);

  /// Samples the child's own peak resident set while it runs (see reap).
  void samplePeakMemory();

  int pid = -1;
  /// The program's pid: the keeper's child when descendants are
  /// contained, else `pid`.
  int programPid = -1;
  bool ownGroup = false;
  bool contained = false;
  double startSeconds = 0;
  /// This process's peak resident set when it forked the child: the
  /// child's getrusage peak includes it (the forked copy's, before exec).
  uint64_t parentPeakAtSpawn = 0;
  /// The largest VmHWM and VmPeak seen of the child since its exec.
  uint64_t sampledPeak = 0;
  uint64_t sampledAddressSpace = 0;
  std::optional<ChildExit> ended;
};

/// Seconds on a monotonic clock (for durations and trace times).
double getMonotonicSeconds();

/// On SIGINT, SIGTERM or SIGHUP, kills every running child's process group
/// (a worker and whatever it started) before this process dies of the
/// signal, so that Ctrl-C leaves no compiler running. (A SIGKILLed process
/// cannot do this: its direct children die with it by their death signal.)
void killChildrenOnTermination();

/// Called by that handler after the children are killed and before the
/// process dies of the signal: async-signal-safe work only (removing this
/// run's temporary files, saying so with write(2)).
void setTerminationCleanup(void (*cleanup)(int signal));

} // namespace kiln

#endif // KILN_DRIVER_CHILDPROCESS_H
