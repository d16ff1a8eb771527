//===- CacheDirectory.cpp - the cache's files, through open handles -*- C++ -*-===//
//
// This file implements the cache's file access relative to handles opened
// once, refusing symbolic links (see CacheDirectory.h).
//
//===----------------------------------------------------------------------===//

#include "CacheDirectory.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <sys/vfs.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

Error errnoError(const llvm::Twine &what, int error) {
  return makeError(what + ": " + llvm::sys::StrError(error));
}

constexpr int kDirectoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

/// Why `name` in `dir` could not be opened as a directory, in words.
Error describeBadPart(int dir, const char *name, const std::string &shown,
                      int error) {
  struct stat status;
  if (::fstatat(dir, name, &status, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(status.st_mode))
      return makeError(shown +
                       " is a symbolic link; kiln uses only a cache whose "
                       "parts are its own directories (remove the link, or "
                       "choose another --cache-dir)");
    if (!S_ISDIR(status.st_mode))
      return makeError(shown + " is not a directory; the cache is damaged "
                               "(remove it, or choose another --cache-dir)");
  }
  return errnoError("opening " + shown, error);
}

/// The entries of the directory `dir` (not closed), with their types as
/// lstat sees them.
struct DirEntry {
  std::string name;
  mode_t mode;
  struct timespec modified;
};

Expected<std::vector<DirEntry>> readDirectory(int dir,
                                              const std::string &shown) {
  int copy = ::openat(dir, ".", kDirectoryFlags);
  if (copy < 0)
    return errnoError("opening " + shown, errno);
  DIR *stream = ::fdopendir(copy);
  if (!stream) {
    int error = errno;
    ::close(copy);
    return errnoError("reading " + shown, error);
  }
  std::vector<DirEntry> entries;
  while (struct dirent *entry = ::readdir(stream)) {
    StringRef name = entry->d_name;
    if (name == "." || name == "..")
      continue;
    struct stat status;
    if (::fstatat(dir, entry->d_name, &status, AT_SYMLINK_NOFOLLOW) != 0)
      continue; // gone meanwhile
    entries.push_back({name.str(), status.st_mode, status.st_mtim});
  }
  ::closedir(stream);
  return entries;
}

} // namespace

bool kiln::isCacheKey(StringRef key) {
  return key.size() == 32 && llvm::all_of(key, [](char c) {
           return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
         });
}

CacheDirectory::~CacheDirectory() {
  for (int fd : {root, objects, logs, tmp})
    if (fd >= 0)
      ::close(fd);
}

std::string CacheDirectory::describe(StringRef relative) const {
  return (llvm::Twine(path) + "/" + relative).str();
}

std::string CacheDirectory::getIndexPath() const {
  return resolvedPath + "/index.db";
}

std::optional<std::string> kiln::getSharedFileSystemName(StringRef path) {
  // For the tests, which cannot mount NFS: the file system's type, as if
  // statfs had said it.
  std::optional<std::string> pretend =
      llvm::sys::Process::GetEnv("KILN_TEST_FILESYSTEM_TYPE");
  // The nearest part of `path` that exists (the cache may not yet).
  llvm::SmallString<256> existing(path);
  llvm::sys::fs::make_absolute(existing);
  struct statfs info;
  while (::statfs(existing.c_str(), &info) != 0) {
    if (errno != ENOENT && errno != ENOTDIR)
      return std::nullopt;
    StringRef parent = llvm::sys::path::parent_path(existing);
    if (parent.empty() || parent == existing)
      return std::nullopt;
    existing = parent;
  }
  if (pretend && !pretend->empty())
    return *pretend == "local" ? std::nullopt : pretend;
  // Magic numbers of statfs(2)'s f_type (linux/magic.h and each file
  // system's sources).
  static const std::pair<uint64_t, const char *> kShared[] = {
      {0x6969, "NFS"},
      {0x517B, "SMB"},
      {0xFF534D42, "CIFS"},
      {0xFE534D42, "SMB2"},
      {0x0BD00BD0, "Lustre"},
      {0x47504653, "GPFS"},
      {0x19830326, "BeeGFS"},
      {0x00C36400, "CephFS"},
      {0x65735546, "FUSE"},
      {0x5346414F, "AFS"},
      {0x6B414653, "AFS"},
      {0x01021997, "9P"},
      {0x7461636F, "OCFS2"},
      {0x01161970, "GFS2"},
      {0xAAD7AAEA, "PanFS"},
  };
  for (const auto &[magic, name] : kShared)
    if ((uint64_t)(uint32_t)info.f_type == magic)
      return std::string(name);
  return std::nullopt;
}

Error kiln::checkLocalFileSystem(StringRef path) {
  std::optional<std::string> shared = getSharedFileSystemName(path);
  if (!shared)
    return Error::success();
  return makeError(
      "the cache directory " + path + " is on " + *shared +
      ", a network or cluster file system, where the index (SQLite in WAL "
      "mode, whose shared memory is one host's) can be corrupted; keep the "
      "local cache on a local disk (--cache-dir, KILN_CACHE_DIR) and share "
      "this directory as a remote tier instead: --remote file:" +
      path);
}

Expected<std::unique_ptr<CacheDirectory>>
CacheDirectory::open(StringRef path, bool create, bool &writable) {
  // Checked before anything is created there.
  if (Error error = checkLocalFileSystem(path))
    return std::move(error);
  std::unique_ptr<CacheDirectory> dir(new CacheDirectory());
  dir->path = path.str();
  writable = create;
  if (create) {
    std::error_code error = llvm::sys::fs::create_directories(path);
    if (error && error != std::errc::permission_denied &&
        error != std::errc::read_only_file_system)
      return makeError("cannot create cache directory " + path + ": " +
                       error.message());
  }
  // The directory itself may be a link the user chose; its parts may not.
  dir->root = ::open(dir->path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir->root < 0) {
    if (errno == ENOENT)
      return makeError("no kiln cache at " + path);
    return errnoError("opening cache directory " + path, errno);
  }
  llvm::SmallString<256> resolved;
  if (llvm::sys::fs::real_path(path, resolved))
    resolved = path;
  dir->resolvedPath = std::string(resolved);
  writable = ::faccessat(dir->root, ".", W_OK, AT_EACCESS) == 0;

  for (auto [name, fd] : {std::pair("objects", &dir->objects),
                          std::pair("logs", &dir->logs),
                          std::pair("tmp", &dir->tmp)}) {
    if (create && writable && ::mkdirat(dir->root, name, 0755) != 0 &&
        errno != EEXIST) {
      if (errno != EACCES && errno != EROFS && errno != EPERM)
        return errnoError("creating " + dir->describe(name), errno);
      writable = false;
    }
    *fd = ::openat(dir->root, name, kDirectoryFlags);
    if (*fd >= 0)
      continue;
    if (errno == ENOENT && !writable)
      continue; // a cache never written: nothing there to read
    return describeBadPart(dir->root, name, dir->describe(name), errno);
  }
  return std::move(dir);
}

bool CacheDirectory::isWritable() const {
  return ::faccessat(root, ".", W_OK, AT_EACCESS) == 0;
}

Expected<bool> CacheDirectory::checkIndexFiles() const {
  bool exists = false;
  for (const char *name : {"index.db", "index.db-wal", "index.db-shm"}) {
    struct stat status;
    if (::fstatat(root, name, &status, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT)
        continue;
      return errnoError("reading " + describe(name), errno);
    }
    if (S_ISLNK(status.st_mode))
      return makeError(describe(name) +
                       " is a symbolic link; kiln uses only a cache whose "
                       "parts are its own files (remove the link, or choose "
                       "another --cache-dir)");
    if (!S_ISREG(status.st_mode))
      return makeError(describe(name) +
                       " is not a regular file; the index is damaged (kiln "
                       "cache verify --rebuild-index rebuilds it)");
    if (StringRef(name) == "index.db")
      exists = true;
  }
  return exists;
}

Expected<int> CacheDirectory::openShard(StringRef key, bool create) const {
  if (!isCacheKey(key))
    return makeError("'" + key + "' is not a cache key");
  if (objects < 0)
    return -1;
  std::string shard = key.take_front(2).str();
  if (create && ::mkdirat(objects, shard.c_str(), 0755) != 0 &&
      errno != EEXIST)
    return errnoError("creating " + describe("objects/" + shard), errno);
  int fd = ::openat(objects, shard.c_str(), kDirectoryFlags);
  if (fd >= 0)
    return fd;
  if (errno == ENOENT)
    return -1;
  return describeBadPart(objects, shard.c_str(), describe("objects/" + shard),
                         errno);
}

Expected<std::unique_ptr<llvm::MemoryBuffer>>
CacheDirectory::readFileAt(int dir, StringRef name, StringRef relative) const {
  if (dir < 0)
    return nullptr;
  int fd = ::openat(dir, name.str().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return nullptr;
    if (errno == ELOOP)
      return makeError(describe(relative) + " is a symbolic link, not an "
                                            "artifact of this cache");
    return errnoError("opening " + describe(relative), errno);
  }
  struct stat status;
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    return makeError(describe(relative) + " is not a regular file");
  }
  // Read into this process's memory, never mapped: what a caller checks
  // (header, checksum, signatures) is what it uses, even if someone
  // rewrites the file in place meanwhile.
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      fd, describe(relative), status.st_size,
      /*RequiresNullTerminator=*/false, /*IsVolatile=*/true);
  ::close(fd);
  if (!buffer)
    return makeError("reading " + describe(relative) + ": " +
                     buffer.getError().message());
  return std::move(*buffer);
}

Expected<std::unique_ptr<llvm::MemoryBuffer>>
CacheDirectory::readObject(StringRef key) const {
  Expected<int> shard = openShard(key, /*create=*/false);
  if (!shard)
    return shard.takeError();
  auto result = readFileAt(*shard, key,
                           ("objects/" + key.take_front(2) + "/" + key).str());
  if (*shard >= 0)
    ::close(*shard);
  return result;
}

Expected<std::unique_ptr<llvm::MemoryBuffer>>
CacheDirectory::readLog(StringRef key) const {
  if (!isCacheKey(key))
    return makeError("'" + key + "' is not a cache key");
  std::string name = (key + ".log").str();
  return readFileAt(logs, name, "logs/" + name);
}

Expected<bool> CacheDirectory::objectExists(StringRef key) const {
  Expected<int> shard = openShard(key, /*create=*/false);
  if (!shard)
    return shard.takeError();
  if (*shard < 0)
    return false;
  struct stat status;
  bool exists = ::fstatat(*shard, key.str().c_str(), &status,
                          AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISREG(status.st_mode);
  ::close(*shard);
  return exists;
}

Expected<std::string>
CacheDirectory::stage(StringRef hint, llvm::ArrayRef<StringRef> pieces,
                      std::optional<uint64_t> failAfterBytes,
                      bool sync) const {
  if (tmp < 0)
    return makeError("the cache at " + path + " has no tmp/ directory");
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  std::string name =
      llvm::formatv("{0}.{1}.{2}.{3:x}", hint, getpid(), counter++, random())
          .str();
  std::string shown = describe("tmp/" + name);
  int fd = ::openat(tmp, name.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return errnoError("creating " + shown, errno);
  auto fail = [&](int error) {
    ::close(fd);
    ::unlinkat(tmp, name.c_str(), 0);
    return errnoError("writing " + shown, error);
  };
  uint64_t total = 0;
  for (StringRef bytes : pieces) {
    uint64_t written = 0;
    while (written < bytes.size()) {
      size_t chunk = std::min<size_t>(bytes.size() - written, 1 << 20);
      if (failAfterBytes && total + chunk > *failAfterBytes)
        return fail(ENOSPC);
      ssize_t n = ::write(fd, bytes.data() + written, chunk);
      if (n < 0) {
        if (errno == EINTR)
          continue;
        return fail(errno);
      }
      written += n;
      total += n;
    }
  }
  if (sync && ::fsync(fd) != 0)
    return fail(errno);
  if (::close(fd) != 0) {
    int error = errno;
    ::unlinkat(tmp, name.c_str(), 0);
    return errnoError("closing " + shown, error);
  }
  return name;
}

bool CacheDirectory::hasObjects() const {
  if (objects < 0)
    return false;
  Expected<std::vector<DirEntry>> entries =
      readDirectory(objects, describe("objects"));
  if (!entries) {
    llvm::consumeError(entries.takeError());
    return false;
  }
  return !entries->empty();
}

std::optional<uint64_t> CacheDirectory::getIndexSize() const {
  struct stat status;
  if (::fstatat(root, "index.db", &status, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISREG(status.st_mode))
    return std::nullopt;
  return status.st_size;
}

Expected<std::vector<std::string>>
CacheDirectory::moveIndexAside(StringRef suffix) const {
  std::vector<std::string> moved;
  for (const char *name : {"index.db", "index.db-wal", "index.db-shm"}) {
    struct stat status;
    if (::fstatat(root, name, &status, AT_SYMLINK_NOFOLLOW) != 0)
      continue;
    std::string target = (llvm::Twine(name) + ".broken-" + suffix).str();
    // A link is not followed: renaming moves the link itself.
    if (::renameat(root, name, root, target.c_str()) != 0)
      return errnoError("moving " + describe(name) + " aside", errno);
    moved.push_back(describe(target));
  }
  if (::fsync(root) != 0)
    return errnoError("syncing " + path, errno);
  return moved;
}

void CacheDirectory::dropStaged(StringRef name) const {
  if (tmp >= 0 && !name.empty() && !name.contains('/'))
    ::unlinkat(tmp, name.str().c_str(), 0);
}

Error CacheDirectory::moveStagedToObject(StringRef staged, StringRef key,
                                         bool sync) const {
  Expected<int> shard = openShard(key, /*create=*/true);
  if (!shard) {
    dropStaged(staged);
    return shard.takeError();
  }
  std::string shown = describe(("objects/" + key.take_front(2) + "/" + key).str());
  if (*shard < 0) {
    dropStaged(staged);
    return makeError("cannot create the directory of " + shown);
  }
  Error result = Error::success();
  if (::renameat(tmp, staged.str().c_str(), *shard, key.str().c_str()) != 0) {
    result = errnoError("renaming into " + shown, errno);
    dropStaged(staged);
  } else if (sync && ::fsync(*shard) != 0) {
    result = errnoError("syncing the directory of " + shown, errno);
  }
  ::close(*shard);
  return result;
}

Error CacheDirectory::moveStagedToLog(StringRef staged, StringRef key) const {
  if (!isCacheKey(key)) {
    dropStaged(staged);
    return makeError("'" + key + "' is not a cache key");
  }
  std::string name = (key + ".log").str();
  if (logs < 0 ||
      ::renameat(tmp, staged.str().c_str(), logs, name.c_str()) != 0) {
    int error = logs < 0 ? ENOENT : errno;
    dropStaged(staged);
    return errnoError("renaming into " + describe("logs/" + name), error);
  }
  if (::fsync(logs) != 0)
    return errnoError("syncing " + describe("logs"), errno);
  return Error::success();
}

Error CacheDirectory::removeObject(StringRef key) const {
  Expected<int> shard = openShard(key, /*create=*/false);
  if (!shard)
    return shard.takeError();
  if (*shard < 0)
    return Error::success();
  Error result = Error::success();
  if (::unlinkat(*shard, key.str().c_str(), 0) != 0 && errno != ENOENT)
    result = errnoError(
        "removing " +
            describe(("objects/" + key.take_front(2) + "/" + key).str()),
        errno);
  ::close(*shard);
  return result;
}

Error CacheDirectory::removeLog(StringRef key) const {
  if (!isCacheKey(key))
    return makeError("'" + key + "' is not a cache key");
  if (logs < 0)
    return Error::success();
  std::string name = (key + ".log").str();
  if (::unlinkat(logs, name.c_str(), 0) != 0 && errno != ENOENT)
    return errnoError("removing " + describe("logs/" + name), errno);
  return Error::success();
}

Expected<CacheDirectory::Contents>
CacheDirectory::list(std::chrono::seconds staleAge) const {
  Contents contents;
  if (objects >= 0) {
    Expected<std::vector<DirEntry>> shards =
        readDirectory(objects, describe("objects"));
    if (!shards)
      return shards.takeError();
    for (const DirEntry &shard : *shards) {
      std::string relative = "objects/" + shard.name;
      bool isShard = S_ISDIR(shard.mode) && shard.name.size() == 2 &&
                     llvm::all_of(shard.name, [](char c) {
                       return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
                     });
      if (!isShard) {
        contents.foreign.push_back(relative);
        continue;
      }
      int fd = ::openat(objects, shard.name.c_str(), kDirectoryFlags);
      if (fd < 0) {
        contents.foreign.push_back(relative);
        continue;
      }
      Expected<std::vector<DirEntry>> files =
          readDirectory(fd, describe(relative));
      ::close(fd);
      if (!files)
        return files.takeError();
      for (const DirEntry &file : *files) {
        if (S_ISREG(file.mode) && isCacheKey(file.name) &&
            StringRef(file.name).starts_with(shard.name))
          contents.objectKeys.push_back(file.name);
        else
          contents.foreign.push_back(relative + "/" + file.name);
      }
    }
  }
  if (logs >= 0) {
    Expected<std::vector<DirEntry>> files =
        readDirectory(logs, describe("logs"));
    if (!files)
      return files.takeError();
    for (const DirEntry &file : *files) {
      StringRef name = file.name;
      if (S_ISREG(file.mode) && name.consume_back(".log") && isCacheKey(name))
        contents.logKeys.push_back(name.str());
      else
        contents.foreign.push_back("logs/" + file.name);
    }
  }
  if (tmp >= 0) {
    Expected<std::vector<DirEntry>> files = readDirectory(tmp, describe("tmp"));
    if (!files)
      return files.takeError();
    auto cutoff = std::chrono::system_clock::now() - staleAge;
    for (const DirEntry &file : *files) {
      if (!S_ISREG(file.mode)) {
        contents.foreign.push_back("tmp/" + file.name);
        continue;
      }
      auto modified = std::chrono::system_clock::time_point(
          std::chrono::duration_cast<std::chrono::system_clock::duration>(
              std::chrono::seconds(file.modified.tv_sec) +
              std::chrono::nanoseconds(file.modified.tv_nsec)));
      if (modified < cutoff)
        contents.staleStaged.push_back(file.name);
    }
  }
  return contents;
}
