//===- Descendants.h - the processes a child leaves behind ------*- C++ -*-===//
//
// This file declares how kiln finds the processes that its children leave
// running. A process that calls setsid() leaves its process group, so a
// group kill misses it, and one whose parent exits is adopted by init
// unless an ancestor is a child subreaper (Linux): then it is adopted by
// that ancestor, and shows in /proc as one of its children. kiln's workers
// and its trial run of the training command are watched this way, so that
// nothing they started outlives them unseen.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DRIVER_DESCENDANTS_H
#define KILN_DRIVER_DESCENDANTS_H

#include <cstddef>
#include <string>

namespace kiln {

/// Makes this process (on) or no longer (off) the reaper of its orphaned
/// descendants; false where the system has no subreapers.
bool setChildSubreaper(bool on);

/// Stores in `pids` (at most `capacity`) the children of every thread of
/// this process, as /proc lists them, and returns how many there are.
/// Async-signal-safe (no allocation): a signal handler and a forked child
/// may call it. 0 where /proc has no children lists.
size_t listChildProcesses(int *pids, size_t capacity);

/// "NAME (pid PID)" for messages, NAME as /proc/PID/comm says.
std::string describeProcess(int pid);

} // namespace kiln

#endif // KILN_DRIVER_DESCENDANTS_H
