//===- FileStorage.cpp - a remote tier in a shared directory ----*- C++ -*-===//
//
// This file implements `file:PATH`: a directory on a file system that many
// hosts mount at once (NFS, Lustre, FSx). Such file systems keep few of
// POSIX's promises between hosts: no SQLite, no mmap and no byte-range locks
// are used here. What they do keep, and all this file relies on, is that
// within one directory `open(O_CREAT|O_EXCL)`, `link` and `rename` are
// atomic on the server. So:
//
//   PATH/<k0k1>/<key>          an artifact's cache file (ArtifactHeader.h)
//   PATH/<k0k1>/<key>.failed   a failed compilation's log, same format
//   PATH/<k0k1>/<key>.lease    a lease: "host pid token expires_ms"
//   PATH/<k0k1>/.tmp-...       files being written
//
// A file is written under a temporary name in its final directory, synced,
// and linked (store if absent: exactly one writer's link succeeds) or
// renamed (overwrite) into place, so no reader ever sees part of one. A
// deletion renames the file away first, then unlinks it, and takes ENOENT
// and ESTALE (another host got there first) for done. A lease is created
// with O_EXCL; an expired one (or, on this host, one whose process is gone)
// is broken by the one claimer that holds `<key>.lease.break` (also made
// with O_EXCL), and only if it is still the lease judged stale; then the
// claimers race for O_EXCL again, and exactly one wins.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Remote/RemoteStorage.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// A lease file's content.
struct LeaseRecord {
  LeaseOwner owner;
  int64_t expiresMs = 0;

  std::string encode() const {
    return owner.host + " " + std::to_string(owner.pid) + " " + owner.token +
           " " + std::to_string(expiresMs) + "\n";
  }
  static std::optional<LeaseRecord> decode(StringRef text) {
    llvm::SmallVector<StringRef> fields;
    text.trim().split(fields, ' ');
    LeaseRecord record;
    if (fields.size() != 4 || fields[1].getAsInteger(10, record.owner.pid) ||
        fields[3].getAsInteger(10, record.expiresMs) || fields[2].empty())
      return std::nullopt;
    record.owner.host = fields[0].str();
    record.owner.token = fields[2].str();
    return record;
  }
  bool isOwnedBy(const LeaseOwner &other) const {
    return owner.token == other.token && owner.host == other.host &&
           owner.pid == other.pid;
  }
};

/// A lease file that cannot be read (being written this instant, or left
/// half written by a crash) counts as live for this long after its last
/// change, then as stale.
constexpr int64_t kUnreadableLeaseMs = 60000;
/// No lease kiln takes runs longer than this before its renewal.
constexpr int64_t kMaxLeaseMs = 3600 * 1000;

class FileStorage : public RemoteStorage {
public:
  FileStorage(RemoteSpec spec, std::string root)
      : RemoteStorage(std::move(spec)), root(std::move(root)) {}

  Expected<std::optional<std::string>> fetch(StringRef key,
                                             RemoteEntryKind kind) override {
    return readFile(entryPath(key, kind));
  }

  Expected<bool> store(StringRef key, RemoteEntryKind kind, StringRef file,
                       bool overwrite) override {
    if (Error error = makeShard(key))
      return std::move(error);
    std::string target = entryPath(key, kind);
    if (!overwrite) {
      struct stat info;
      if (::lstat(target.c_str(), &info) == 0)
        return false;
    }
    Expected<std::string> staged = writeTemporary(key, file);
    if (!staged)
      return staged.takeError();
    if (overwrite) {
      if (::rename(staged->c_str(), target.c_str()) != 0) {
        Error error = ioError("renaming " + *staged + " to " + target);
        ::unlink(staged->c_str());
        return std::move(error);
      }
      return true;
    }
    // link() never replaces: of several writers of one key, one wins.
    bool stored = true;
    if (::link(staged->c_str(), target.c_str()) != 0) {
      if (errno == EEXIST) {
        stored = false;
      } else if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP) {
        // No hard links here (some FUSE file systems): rename, which may
        // replace a concurrent writer's equal entry.
        if (::rename(staged->c_str(), target.c_str()) != 0) {
          Error error = ioError("renaming " + *staged + " to " + target);
          ::unlink(staged->c_str());
          return std::move(error);
        }
        return true;
      } else {
        Error error = ioError("linking " + *staged + " to " + target);
        ::unlink(staged->c_str());
        return std::move(error);
      }
    }
    ::unlink(staged->c_str());
    return stored;
  }

  Expected<bool> exists(StringRef key, RemoteEntryKind kind) override {
    struct stat info;
    std::string path = entryPath(key, kind);
    if (::lstat(path.c_str(), &info) == 0) {
      if (!S_ISREG(info.st_mode))
        return makeRemoteEntryError(path + " is not a regular file");
      return true;
    }
    if (errno == ENOENT || errno == ENOTDIR)
      return false;
    return ioError("checking " + path);
  }

  Expected<bool> remove(StringRef key, RemoteEntryKind kind) override {
    return removeFile(entryPath(key, kind), key);
  }

  Expected<std::vector<std::string>> listKeys() override {
    std::vector<std::string> keys;
    DIR *top = ::opendir(root.c_str());
    if (!top) {
      if (errno == ENOENT)
        return keys;
      return ioError("listing " + root);
    }
    std::vector<std::string> shards;
    while (dirent *entry = ::readdir(top)) {
      StringRef name = entry->d_name;
      if (name.size() == 2 && llvm::all_of(name, llvm::isHexDigit))
        shards.push_back(name.str());
    }
    ::closedir(top);
    for (const std::string &shard : shards) {
      DIR *dir = ::opendir((root + "/" + shard).c_str());
      if (!dir)
        continue;
      while (dirent *entry = ::readdir(dir)) {
        StringRef name = entry->d_name;
        if (name.size() == 32 && name.starts_with(shard) &&
            llvm::all_of(name, [](char c) {
              return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
            }))
          keys.push_back(name.str());
      }
      ::closedir(dir);
    }
    llvm::sort(keys);
    return keys;
  }

  bool hasRunFiles() const override { return true; }

  Error putRunFile(StringRef name, StringRef bytes) override {
    if (!isRunFileName(name))
      return makeRemoteError("'" + name + "' is not a run file's name");
    std::string path = root + "/runs/" + name.str();
    std::string parent = llvm::sys::path::parent_path(path).str();
    if (std::error_code error = llvm::sys::fs::create_directories(parent))
      return makeRemoteError(getName() + ": creating " + parent + ": " +
                             error.message());
    static std::atomic<unsigned> counter{0};
    std::string staged = parent + "/.tmp-" + LeaseOwner::current().token +
                         "-" + std::to_string(counter++);
    int fd = ::open(staged.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      return ioError("creating " + staged);
    Error error = writeAll(fd, bytes, staged);
    if (!error && ::fsync(fd) != 0)
      error = ioError("syncing " + staged);
    ::close(fd);
    if (!error && ::rename(staged.c_str(), path.c_str()) != 0)
      error = ioError("renaming " + staged + " to " + path);
    if (error)
      ::unlink(staged.c_str());
    return error;
  }

  Expected<std::optional<std::string>> getRunFile(StringRef name) override {
    if (!isRunFileName(name))
      return makeRemoteError("'" + name + "' is not a run file's name");
    std::string path = root + "/runs/" + name.str();
    struct stat info;
    if (::lstat(path.c_str(), &info) == 0 &&
        (uint64_t)info.st_size > kMaxRunFileBytes)
      return makeRemoteEntryError(path + " is larger than a run's file may be");
    return readFile(path);
  }

  Expected<std::vector<std::string>>
  listRunFiles(StringRef directory) override {
    if (!isRunFileName(directory))
      return makeRemoteError("'" + directory + "' is not a run file's name");
    std::vector<std::string> names;
    std::string path = root + "/runs/" + directory.str();
    DIR *dir = ::opendir(path.c_str());
    if (!dir) {
      if (errno == ENOENT)
        return names;
      return ioError("listing " + path);
    }
    while (dirent *entry = ::readdir(dir)) {
      StringRef entryName = entry->d_name;
      if (!entryName.starts_with(".") && isRunFileName(entryName))
        names.push_back(entryName.str());
    }
    ::closedir(dir);
    llvm::sort(names);
    return names;
  }

  bool hasLeases() const override { return true; }

  Expected<RemoteClaim> claim(StringRef key, const LeaseOwner &owner,
                              unsigned ttlMs) override {
    if (Error error = makeShard(key))
      return std::move(error);
    std::string path = leasePath(key);
    LeaseRecord mine{owner, nowMs() + ttlMs};
    // A few rounds: each either creates the lease, finds a live one, or
    // clears a stale one and tries again.
    for (int round = 0; round < 8; ++round) {
      int fd = ::open(path.c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                      0644);
      if (fd >= 0) {
        Error written = writeAll(fd, mine.encode(), path);
        ::close(fd);
        if (written) {
          ::unlink(path.c_str());
          return std::move(written);
        }
        return RemoteClaim::Claimed;
      }
      if (errno != EEXIST)
        return ioError("creating the lease " + path);
      Expected<std::optional<std::string>> text = readFile(path);
      if (!text)
        return text.takeError();
      if (!*text)
        continue; // released meanwhile
      std::optional<LeaseRecord> held = LeaseRecord::decode(**text);
      if (held && held->isOwnedBy(owner)) {
        if (Error error = rewriteLease(path, mine))
          return std::move(error);
        return RemoteClaim::Claimed;
      }
      if (isLive(held, path))
        return RemoteClaim::HeldElsewhere;
      // Stale: break it, under a breaker lock that one claimer at a time
      // holds (created with O_EXCL), and only if it is still the lease
      // judged stale. No new lease can appear while the stale one is
      // there, so once it is gone every claimer races for O_EXCL again
      // and exactly one wins.
      Expected<bool> broken = breakStaleLease(path, key, **text);
      if (!broken)
        return broken.takeError();
      if (!*broken)
        return RemoteClaim::HeldElsewhere; // another claimer is breaking it
    }
    return RemoteClaim::HeldElsewhere;
  }

  Error renew(StringRef key, const LeaseOwner &owner, unsigned ttlMs) override {
    std::string path = leasePath(key);
    Expected<bool> mine = isHeldBy(path, owner);
    if (!mine)
      return mine.takeError();
    if (!*mine)
      return makeRemoteError("the lease " + path + " is no longer held by " +
                             owner.toString());
    return rewriteLease(path, LeaseRecord{owner, nowMs() + ttlMs});
  }

  Error release(StringRef key, const LeaseOwner &owner) override {
    std::string path = leasePath(key);
    Expected<bool> mine = isHeldBy(path, owner);
    if (!mine)
      return mine.takeError();
    if (!*mine)
      return Error::success(); // someone else's now: left alone
    Expected<bool> removed = removeFile(path, key);
    return removed ? Error::success() : removed.takeError();
  }

private:
  std::string shardPath(StringRef key) const {
    return root + "/" + key.take_front(2).str();
  }
  std::string entryPath(StringRef key, RemoteEntryKind kind) const {
    return shardPath(key) + "/" + key.str() +
           (kind == RemoteEntryKind::Failure ? ".failed" : "");
  }
  std::string leasePath(StringRef key) const {
    return shardPath(key) + "/" + key.str() + ".lease";
  }

  Error ioError(const llvm::Twine &what) const {
    int code = errno;
    return makeRemoteError(getName() + ": " + what + ": " +
                               llvm::sys::StrError(code),
                           code == ETIMEDOUT);
  }

  Error makeShard(StringRef key) {
    for (const std::string &dir : {root, shardPath(key)})
      if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        return ioError("creating " + dir);
    return Error::success();
  }

  /// A regular file's bytes, read (not mapped: a mapped file on NFS can
  /// fault when another host replaces it); none if it is not there.
  Expected<std::optional<std::string>> readFile(const std::string &path) {
    // O_NONBLOCK: a FIFO put where an entry should be must not block the
    // open; O_NOFOLLOW: a link is not followed.
    int fd =
        ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
      if (errno == ENOENT || errno == ESTALE || errno == ENOTDIR)
        return std::optional<std::string>();
      if (errno == ELOOP || errno == EISDIR)
        return makeRemoteEntryError(path + " is not a regular file");
      return ioError("opening " + path);
    }
    struct stat info;
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
      ::close(fd);
      return makeRemoteEntryError(path + " is not a regular file");
    }
    if ((uint64_t)info.st_size > kMaxRemoteEntryBytes) {
      ::close(fd);
      return makeRemoteEntryError(path + " has " +
                                  std::to_string(info.st_size) +
                                  " bytes, more than an entry may");
    }
    std::string bytes;
    bytes.resize(info.st_size);
    size_t done = 0;
    while (true) {
      if (done == bytes.size()) {
        // It grew since fstat: read to the end, within the bound.
        if (bytes.size() >= kMaxRemoteEntryBytes) {
          ::close(fd);
          return makeRemoteEntryError(path + " grew past the size an entry "
                                             "may have");
        }
        bytes.resize(bytes.size() + 65536);
      }
      ssize_t got = ::read(fd, &bytes[done], bytes.size() - done);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0) {
        Error error = ioError("reading " + path);
        ::close(fd);
        return std::move(error);
      }
      if (got == 0)
        break;
      done += got;
    }
    ::close(fd);
    bytes.resize(done);
    return std::optional<std::string>(std::move(bytes));
  }

  Error writeAll(int fd, StringRef bytes, const std::string &path) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (wrote < 0 && errno == EINTR)
        continue;
      if (wrote < 0)
        return ioError("writing " + path);
      done += wrote;
    }
    return Error::success();
  }

  /// Writes `bytes` to a new file beside `key`'s entries and syncs it.
  Expected<std::string> writeTemporary(StringRef key, StringRef bytes) {
    static std::atomic<unsigned> counter{0};
    std::string path = shardPath(key) + "/.tmp-" + key.str() + "-" +
                       LeaseOwner::current().token + "-" +
                       std::to_string(counter++);
    int fd = ::open(path.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      return ioError("creating " + path);
    Error error = writeAll(fd, bytes, path);
    if (!error && ::fsync(fd) != 0)
      error = ioError("syncing " + path);
    if (::close(fd) != 0 && !error)
      error = ioError("closing " + path);
    if (error) {
      ::unlink(path.c_str());
      return std::move(error);
    }
    return path;
  }

  Error rewriteLease(const std::string &path, const LeaseRecord &record) {
    static std::atomic<unsigned> counter{0};
    std::string staged =
        path + ".new-" + record.owner.token + "-" + std::to_string(counter++);
    int fd = ::open(staged.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      return ioError("creating " + staged);
    Error error = writeAll(fd, record.encode(), staged);
    ::close(fd);
    if (!error && ::rename(staged.c_str(), path.c_str()) != 0)
      error = ioError("renewing " + path);
    if (error)
      ::unlink(staged.c_str());
    return error;
  }

  /// Renames `path` away and unlinks it: a reader that opened it keeps
  /// reading, and another host's concurrent removal is not an error.
  Expected<bool> removeFile(const std::string &path, StringRef key) {
    static std::atomic<unsigned> counter{0};
    std::string moved = shardPath(key) + "/.del-" + key.str() + "-" +
                        LeaseOwner::current().token + "-" +
                        std::to_string(counter++);
    if (::rename(path.c_str(), moved.c_str()) != 0) {
      if (errno == ENOENT || errno == ESTALE || errno == ENOTDIR)
        return false;
      return ioError("removing " + path);
    }
    if (::unlink(moved.c_str()) != 0 && errno != ENOENT && errno != ESTALE)
      return ioError("removing " + moved);
    return true;
  }

  /// Whether the lease at `path` is `owner`'s.
  Expected<bool> isHeldBy(const std::string &path, const LeaseOwner &owner) {
    Expected<std::optional<std::string>> text = readFile(path);
    if (!text)
      return text.takeError();
    std::optional<LeaseRecord> held =
        *text ? LeaseRecord::decode(**text) : std::nullopt;
    return held && held->isOwnedBy(owner);
  }

  /// Removes the lease at `path` if its content is still `staleText`,
  /// holding `<lease>.break` meanwhile; false if another process holds the
  /// breaker. A breaker left by a crashed claimer goes after a minute.
  Expected<bool> breakStaleLease(const std::string &path, StringRef key,
                                 StringRef staleText) {
    std::string breaker = path + ".break";
    int fd = ::open(breaker.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      if (errno != EEXIST)
        return ioError("creating " + breaker);
      struct stat info;
      if (::stat(breaker.c_str(), &info) == 0 &&
          nowMs() - ((int64_t)info.st_mtim.tv_sec * 1000 +
                     info.st_mtim.tv_nsec / 1000000) >=
              kUnreadableLeaseMs) {
        Expected<bool> removed = removeFile(breaker, key);
        if (!removed)
          return removed.takeError();
      }
      return false;
    }
    ::close(fd);
    Error result = Error::success();
    Expected<std::optional<std::string>> now = readFile(path);
    if (!now) {
      result = now.takeError();
    } else if (*now && **now == staleText) {
      Expected<bool> removed = removeFile(path, key);
      if (!removed)
        result = removed.takeError();
    }
    Expected<bool> released = removeFile(breaker, key);
    if (!released) {
      llvm::consumeError(std::move(result));
      return released.takeError();
    }
    if (result)
      return std::move(result);
    return true;
  }

  bool isLive(const std::optional<LeaseRecord> &held,
              const std::string &path) const {
    if (!held) {
      struct stat info;
      if (::stat(path.c_str(), &info) != 0)
        return false;
      int64_t changedMs = (int64_t)info.st_mtim.tv_sec * 1000 +
                          info.st_mtim.tv_nsec / 1000000;
      return nowMs() - changedMs < kUnreadableLeaseMs;
    }
    // Expired; or expiring further ahead than any lease kiln takes (a
    // lease is renewed, never taken for long): a forged or broken one.
    if (held->expiresMs <= nowMs() ||
        held->expiresMs > nowMs() + kMaxLeaseMs)
      return false;
    // On this host a dead owner is known at once.
    if (held->owner.host == LeaseOwner::current().host &&
        held->owner.pid > 0 && ::kill(held->owner.pid, 0) != 0 &&
        errno == ESRCH)
      return false;
    return true;
  }

  std::string root;
};

} // namespace

std::unique_ptr<RemoteStorage> kiln::createFileStorage(const RemoteSpec &spec,
                                                       std::string &error) {
  StringRef path = StringRef(spec.url).drop_front(5); // file:
  if (path.consume_front("//"))
    path.consume_front("localhost");
  // A URL's path: %XX stands for a byte (a space is %20).
  std::string root;
  for (size_t i = 0; i < path.size(); ++i) {
    unsigned byte;
    if (path[i] == '%' && i + 2 < path.size() &&
        !path.substr(i + 1, 2).getAsInteger(16, byte)) {
      root += (char)byte;
      i += 2;
    } else {
      root += path[i];
    }
  }
  root = StringRef(root).rtrim('/').str();
  if (root.empty()) {
    error = "file: needs a directory, not the root";
    return nullptr;
  }
  return std::make_unique<FileStorage>(spec, root);
}
