//===- WorkDirectory.cpp - precompile's work directory, link-safe -*- C++ -*-=//
//
// This file implements the work directory's parts with lstat, openat,
// unlinkat and O_NOFOLLOW: every step of a removal is relative to a
// directory handle opened without following links.
//
//===----------------------------------------------------------------------===//

#include "kiln/Driver/WorkDirectory.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
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

} // namespace

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
kiln::readWorkerOutput(llvm::StringRef path, uint64_t maxBytes) {
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
