//===- AttemptLogs.cpp - logs of attempts the cache did not record -*- C++ -*-===//
//
// attempts/ holds plain text logs, outside the index: nothing is looked up
// there, and losing one loses nothing but a message. Each is written under
// a unique name and renamed into place; the directory is never a link
// (refused), files are opened without following one, and the oldest go
// once there are more than Cache::kKeptAttemptLogs.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Cache.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln;

/// attempts/ of the cache at `directory`, made if missing; an error if it
/// is a link or not a directory.
static llvm::Expected<std::string> getAttemptDirectory(llvm::StringRef root) {
  std::string directory = (root + "/attempts").str();
  if (::mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST)
    return llvm::createStringError("cannot make " + directory + ": " +
                                   strerror(errno));
  struct stat status;
  if (::lstat(directory.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))
    return llvm::createStringError(directory +
                                   " is not a directory (a link?)");
  return directory;
}

llvm::Error Cache::keepAttemptLog(llvm::StringRef key, llvm::StringRef text) {
  llvm::Expected<std::string> attempts = getAttemptDirectory(directory);
  if (!attempts)
    return attempts.takeError();
  int fd = -1;
  llvm::SmallString<256> staged;
  if (std::error_code error = llvm::sys::fs::createUniqueFile(
          *attempts + "/.staged-%%%%%%", fd, staged))
    return llvm::createStringError("cannot write in " + *attempts + ": " +
                                   error.message());
  std::error_code failed;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << text;
    os.close();
    if (os.has_error()) {
      failed = os.error();
      os.clear_error();
    }
  }
  std::string path = *attempts + "/" + key.str() + ".log";
  if (!failed)
    failed = llvm::sys::fs::rename(staged, path);
  if (failed) {
    llvm::sys::fs::remove(staged);
    return llvm::createStringError("cannot write " + path + ": " +
                                   failed.message());
  }
  // The most recent only.
  std::vector<std::pair<int64_t, std::string>> logs;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(*attempts, error), end;
       !error && it != end; it.increment(error)) {
    struct stat status;
    if (::lstat(it->path().c_str(), &status) == 0 && S_ISREG(status.st_mode))
      logs.push_back({(int64_t)status.st_mtime, it->path()});
  }
  if (logs.size() > kKeptAttemptLogs) {
    llvm::sort(logs);
    for (size_t i = 0; i + kKeptAttemptLogs < logs.size(); ++i)
      llvm::sys::fs::remove(logs[i].second);
  }
  return llvm::Error::success();
}

std::optional<std::string> Cache::readAttemptLog(llvm::StringRef key) const {
  std::string path = directory + "/attempts/" + key.str() + ".log";
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  auto buffer = llvm::MemoryBuffer::getOpenFile(fd, path, /*FileSize=*/-1);
  ::close(fd);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}
