//===- WorkDirectory.cpp - precompile's work directory, link-safe -*- C++ -*-=//
//
// This file implements the work directory's parts with lstat, openat,
// unlinkat and O_NOFOLLOW: every step of a removal is relative to a
// directory handle opened without following links.
//
//===----------------------------------------------------------------------===//

#include "kiln/Driver/WorkDirectory.h"
#include "kiln/Driver/ChildProcess.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <csignal>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

using namespace kiln;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// What a file that is not a regular file is, for messages.
const char *describeType(mode_t mode) {
  if (S_ISLNK(mode))
    return "a symbolic link";
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/// Removes everything in the directory `fd` (closed here), depth first,
/// each entry relative to its directory's handle.
void removeContents(int fd) {
  DIR *listing = ::fdopendir(fd);
  if (!listing) {
    ::close(fd);
    return;
  }
  std::vector<std::string> names;
  while (struct dirent *entry = ::readdir(listing)) {
    llvm::StringRef name = entry->d_name;
    if (name != "." && name != "..")
      names.push_back(name.str());
  }
  for (const std::string &name : names) {
    struct stat status;
    if (::fstatat(fd, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0)
      continue;
    if (S_ISDIR(status.st_mode)) {
      int child = ::openat(fd, name.c_str(),
                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child >= 0)
        removeContents(child);
      ::unlinkat(fd, name.c_str(), AT_REMOVEDIR);
    } else {
      ::unlinkat(fd, name.c_str(), 0);
    }
  }
  ::closedir(listing); // closes fd
}

/// Removes everything in the directory `fd` with system calls alone
/// (getdents64, openat, unlinkat): what a signal handler may do. Entries
/// are read again from the start until none is left, as removing them
/// moves the listing; depth is bounded.
void removeContentsSignalSafe(int fd, int depth) {
  alignas(8) char buffer[4096];
  for (int rounds = 0; rounds < 100000; ++rounds) {
    ::lseek(fd, 0, SEEK_SET);
    long read = ::syscall(SYS_getdents64, fd, buffer, sizeof(buffer));
    if (read <= 0)
      return;
    bool removed = false;
    for (long at = 0; at < read;) {
      // struct linux_dirent64: inode, offset, record length, type, name.
      unsigned short length;
      std::memcpy(&length, buffer + at + 16, sizeof(length));
      unsigned char type = (unsigned char)buffer[at + 18];
      const char *name = buffer + at + 19;
      at += length;
      if ((name[0] == '.' && name[1] == 0) ||
          (name[0] == '.' && name[1] == '.' && name[2] == 0))
        continue;
      if (type == DT_DIR && depth < 64) {
        int child = ::openat(fd, name,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child >= 0) {
          removeContentsSignalSafe(child, depth + 1);
          ::close(child);
        }
        removed |= ::unlinkat(fd, name, AT_REMOVEDIR) == 0;
      } else {
        removed |= ::unlinkat(fd, name, 0) == 0;
      }
    }
    if (!removed)
      return;
  }
}

/// This process's temporary work directory, for the signal handler: a
/// fixed buffer, set before the handler can need it.
char temporaryDirectory[PATH_MAX];
std::atomic<bool> temporaryDirectorySet{false};

void removeTemporaryOnSignal(int signal) {
  if (!temporaryDirectorySet.load())
    return;
  int fd = ::open(temporaryDirectory,
                  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    removeContentsSignalSafe(fd, 0);
    ::close(fd);
  }
  ::rmdir(temporaryDirectory);
  const char *name = signal == SIGINT    ? "SIGINT"
                     : signal == SIGTERM ? "SIGTERM"
                                         : "SIGHUP";
  const char *parts[] = {"kiln precompile: interrupted (", name,
                         "): its workers were stopped and its temporary "
                         "files removed\n"};
  for (const char *part : parts) {
    ssize_t ignored = ::write(2, part, std::strlen(part));
    (void)ignored;
  }
}

/// Whether the process `pid` of this host is gone.
bool isGone(long pid) {
  return pid > 0 && ::kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

std::string getHostName() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  return host;
}

} // namespace

llvm::Error kiln::claimWorkDirectory(llvm::StringRef path) {
  if (std::error_code error = llvm::sys::fs::create_directories(path))
    return makeError("cannot create --work-dir " + path + ": " +
                     error.message());
  std::string marker = (path + "/" + kWorkDirectoryMarker).str();
  struct stat status;
  bool marked = ::lstat(marker.c_str(), &status) == 0;
  if (marked && !S_ISREG(status.st_mode))
    return makeError(llvm::formatv(
        "--work-dir {0}: {1} is not a regular file", path, marker).str());
  if (!marked) {
    // Only an empty directory becomes kiln's.
    std::error_code error;
    llvm::sys::fs::directory_iterator it(path, error);
    if (error)
      return makeError("cannot read --work-dir " + path + ": " +
                       error.message());
    if (it != llvm::sys::fs::directory_iterator())
      return makeError(llvm::formatv(
          "--work-dir {0} holds files that are not kiln's ({1}, ...): kiln "
          "empties the dumps/, inputs/, artifacts/ and logs/ of its work "
          "directory, so it takes only a new or empty directory, or one it "
          "used before",
          path, llvm::sys::path::filename(it->path())).str());
  }
  int fd = ::open(marker.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                  0644);
  if (fd < 0)
    return makeError("cannot write " + marker + ": " + strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char owner[256] = {0};
    ssize_t size = ::pread(fd, owner, sizeof(owner) - 1, 0);
    ::close(fd);
    llvm::StringRef who =
        size > 0 ? llvm::StringRef(owner, size).trim() : "another process";
    return makeError(llvm::formatv(
        "--work-dir {0} is in use by another kiln precompile ({1}): give "
        "each run a work directory of its own",
        path, who).str());
  }
  std::string owner = "host " + getHostName() + " pid " +
                      std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    ssize_t ignored = ::pwrite(fd, owner.data(), owner.size(), 0);
    (void)ignored;
  }
  // Held until this process ends: the lock goes with the descriptor.
  return llvm::Error::success();
}

llvm::Expected<std::string> kiln::makeTemporaryWorkDirectory() {
  llvm::SmallString<128> path;
  if (std::error_code error =
          llvm::sys::fs::createUniqueDirectory("kiln-precompile", path))
    return makeError("cannot create a work directory: " + error.message());
  // Who made it: a later run removes it if this process dies unseen.
  std::string owner = getHostName() + " " + std::to_string(::getpid()) + "\n";
  std::string ownerPath = (path + "/owner").str();
  int fd = ::open(ownerPath.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ssize_t ignored = ::write(fd, owner.data(), owner.size());
    (void)ignored;
    ::close(fd);
  }
  if (path.size() < sizeof(temporaryDirectory)) {
    std::memcpy(temporaryDirectory, path.c_str(), path.size() + 1);
    temporaryDirectorySet.store(true);
    setTerminationCleanup(&removeTemporaryOnSignal);
  }
  return path.str().str();
}

void kiln::keepWorkDirectory(llvm::StringRef path) {
  if (temporaryDirectorySet.load() && path == temporaryDirectory)
    temporaryDirectorySet.store(false);
  ::unlink((path + "/owner").str().c_str());
}

unsigned kiln::removeAbandonedWorkDirectories() {
  llvm::SmallString<128> base;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, base);
  std::string host = getHostName();
  unsigned removed = 0;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(base, error), end;
       !error && it != end; it.increment(error)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (!name.starts_with("kiln-precompile-"))
      continue;
    struct stat status;
    if (::lstat(it->path().c_str(), &status) != 0 ||
        !S_ISDIR(status.st_mode) || status.st_uid != ::geteuid())
      continue;
    auto owner = llvm::MemoryBuffer::getFile(it->path() + "/owner");
    if (!owner)
      continue; // kept on purpose, or not one of ours
    auto [ownerHost, pidText] =
        (*owner)->getBuffer().trim().split(' ');
    long pid = 0;
    if (ownerHost != host || pidText.getAsInteger(10, pid) || !isGone(pid))
      continue;
    removeTreeWithoutLinks(it->path());
    ++removed;
  }
  return removed;
}

llvm::Error kiln::makeWorkPart(llvm::StringRef root, llvm::StringRef name) {
  std::string path = (root + "/" + name).str();
  struct stat status;
  if (::lstat(path.c_str(), &status) == 0) {
    if (S_ISDIR(status.st_mode))
      return llvm::Error::success();
    return makeError("the work directory's " + name + " (" + path + ") is " +
                     describeType(status.st_mode) +
                     "; kiln uses only directories it can own there, and "
                     "never works or deletes through a link");
  }
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    return makeError("cannot create " + path + ": " + std::strerror(errno));
  if (::lstat(path.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))
    return makeError(path + " is not a directory");
  return llvm::Error::success();
}

void kiln::removeTreeWithoutLinks(llvm::StringRef path) {
  std::string text = path.str();
  struct stat status;
  if (::lstat(text.c_str(), &status) != 0)
    return;
  if (!S_ISDIR(status.st_mode)) {
    ::unlink(text.c_str()); // a link goes, not what it points to
    return;
  }
  int fd = ::open(text.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return;
  removeContents(fd);
  ::rmdir(text.c_str());
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
kiln::readWorkerOutput(llvm::StringRef path, uint64_t maxBytes,
                       bool *overLimit) {
  if (overLimit)
    *overLimit = false;
  std::string text = path.str();
  // O_NONBLOCK: opening a FIFO for reading returns at once.
  int fd = ::open(text.c_str(),
                  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    int error = errno;
    if (error == ELOOP)
      return makeError("its output " + path +
                       " is a symbolic link; kiln takes only a regular file "
                       "it wrote");
    if (error == ENOENT)
      return makeError("wrote no artifact at " + path);
    return makeError("its output " + path + " cannot be read (" +
                     std::strerror(error) + ")");
  }
  struct stat status;
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    mode_t mode = status.st_mode;
    ::close(fd);
    return makeError("its output " + path + " is " + describeType(mode) +
                     ", not a regular file");
  }
  if ((uint64_t)status.st_size > maxBytes) {
    if (overLimit)
      *overLimit = true;
    ::close(fd);
    return makeError(llvm::formatv("its output {0} is {1} bytes, "
                                   "over the limit of {2} "
                                   "(--max-artifact-size)",
                                   path, (uint64_t)status.st_size, maxBytes)
                         .str());
  }
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      fd, path, status.st_size, /*RequiresNullTerminator=*/false,
      /*IsVolatile=*/true);
  ::close(fd);
  if (!buffer)
    return makeError("reading " + path + ": " + buffer.getError().message());
  return std::move(*buffer);
}

llvm::Error kiln::writeWorkFile(llvm::StringRef path,
                                llvm::StringRef contents) {
  std::error_code error;
  {
    llvm::raw_fd_ostream os(path, error);
    if (!error) {
      os << contents;
      os.close();
      if (os.has_error()) {
        error = os.error();
        // Reported here, not by the stream's destructor (which would
        // abort the process).
        os.clear_error();
      }
    }
  }
  if (!error)
    return llvm::Error::success();
  llvm::sys::fs::remove(path);
  return makeError("cannot write " + path + ": " + error.message());
}

bool kiln::isFileSystemFull(llvm::StringRef path) {
  llvm::ErrorOr<llvm::sys::fs::space_info> space =
      llvm::sys::fs::disk_space(path);
  return space && space->available < (4u << 20);
}
