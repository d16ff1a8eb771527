//===- Descendants.cpp - the processes a child leaves behind ----*- C++ -*-===//
//
// /proc/self/task/TID/children lists the children of one thread; a process
// adopted by a subreaper is the child of one of its threads. The lists are
// read with open/read/getdents64 into stack buffers only, so that the same
// code serves a signal handler and a child between fork and exec.
//
//===----------------------------------------------------------------------===//

#include "kiln/Driver/Descendants.h"

#include "kiln/Support/PrintableText.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

using namespace kiln;

bool kiln::setChildSubreaper(bool on) {
#ifdef __linux__
  return ::prctl(PR_SET_CHILD_SUBREAPER, on ? 1 : 0) == 0;
#else
  (void)on;
  return false;
#endif
}

namespace {
/// Appends the numbers of the file at `path` (space-separated pids) to
/// `pids`; `count` counts them all, stored or not.
void readPidList(const char *path, int *pids, size_t capacity,
                 size_t &count) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  char buffer[512];
  long number = -1; // -1: between numbers
  while (true) {
    ssize_t size = ::read(fd, buffer, sizeof(buffer));
    if (size < 0 && errno == EINTR)
      continue;
    if (size <= 0)
      break;
    for (ssize_t i = 0; i < size; ++i) {
      char c = buffer[i];
      if (c >= '0' && c <= '9') {
        number = (number < 0 ? 0 : number * 10) + (c - '0');
        continue;
      }
      if (number > 0) {
        if (count < capacity)
          pids[count] = (int)number;
        ++count;
      }
      number = -1;
    }
  }
  if (number > 0) {
    if (count < capacity)
      pids[count] = (int)number;
    ++count;
  }
  ::close(fd);
}

/// Writes "/proc/self/task/TID/children" into `path` (async-signal-safe).
void formatChildrenPath(char *path, size_t size, const char *tid) {
  const char *parts[] = {"/proc/self/task/", tid, "/children"};
  size_t at = 0;
  for (const char *part : parts)
    for (; *part && at + 1 < size; ++part)
      path[at++] = *part;
  path[at] = 0;
}

/// The layout of the records getdents64 returns.
struct DirectoryRecord {
  uint64_t inode;
  int64_t offset;
  unsigned short length;
  unsigned char type;
  char name[1];
};
} // namespace

size_t kiln::listChildProcesses(int *pids, size_t capacity) {
  size_t count = 0;
#ifdef __linux__
  int directory = ::open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory < 0)
    return 0;
  alignas(8) char records[2048];
  while (true) {
    long size = ::syscall(SYS_getdents64, directory, records, sizeof(records));
    if (size <= 0)
      break;
    for (long at = 0; at < size;) {
      const auto *record =
          reinterpret_cast<const DirectoryRecord *>(records + at);
      at += record->length;
      if (record->name[0] < '0' || record->name[0] > '9')
        continue;
      char path[64];
      formatChildrenPath(path, sizeof(path), record->name);
      readPidList(path, pids, capacity, count);
    }
  }
  ::close(directory);
#else
  (void)pids;
  (void)capacity;
#endif
  return count;
}

std::string kiln::describeProcess(int pid) {
  std::string name = "?";
  if (auto comm = llvm::MemoryBuffer::getFileAsStream(
          "/proc/" + std::to_string(pid) + "/comm"))
    name = escapeControlCharacters(
        llvm::StringRef((*comm)->getBuffer()).rtrim("\n").str());
  return name + " (pid " + std::to_string(pid) + ")";
}
