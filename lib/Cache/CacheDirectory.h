//===- CacheDirectory.h - the cache's files, through open handles -*- C++ -*-===//
//
// This file declares the cache's access to its own files. The cache directory
// is opened once, and so are its parts (objects/, logs/, tmp/); every later
// read, write, rename and unlink is relative to those handles (openat,
// renameat, unlinkat), refuses to follow a symbolic link, and touches only
// names of the cache's own pattern. So whatever a part of the cache is
// replaced with, kiln never writes or deletes outside the cache directory.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CACHE_CACHEDIRECTORY_H
#define KILN_LIB_CACHE_CACHEDIRECTORY_H

#include "kiln/Cache/Key.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln {


/// The name of the network or cluster file system (NFS, SMB, Lustre, GPFS,
/// BeeGFS, CephFS, FUSE, ...) that `path` (or its nearest existing parent)
/// is on; none for a local one.
std::optional<std::string> getSharedFileSystemName(llvm::StringRef path);
/// An error naming the file system if `path` is on a shared one, where the
/// local tier's SQLite index in WAL mode is not safe: such a directory is
/// a remote tier (`--remote file:PATH`), not a local cache.
llvm::Error checkLocalFileSystem(llvm::StringRef path);

class CacheDirectory {
public:
  /// Opens the cache at `path` (which may itself be a link the user chose).
  /// With `create`, makes the directory and its parts where missing.
  /// `writable` says whether the directory may be written (when it cannot
  /// be, because the file system is read-only or not ours, that is not an
  /// error). A part that is a
  /// symbolic link, or not a directory, is an error naming it.
  static llvm::Expected<std::unique_ptr<CacheDirectory>>
  open(llvm::StringRef path, bool create, bool &writable);
  ~CacheDirectory();
  CacheDirectory(const CacheDirectory &) = delete;
  CacheDirectory &operator=(const CacheDirectory &) = delete;

  /// The directory as the user named it, for messages.
  llvm::StringRef getPath() const { return path; }
  /// `<path>/<relative>`, for messages.
  std::string describe(llvm::StringRef relative) const;
  /// The index's path for SQLite, through the resolved directory.
  std::string getIndexPath() const;
  /// Whether index.db exists; an error if it, or its -wal or -shm file,
  /// is a symbolic link or not a regular file.
  llvm::Expected<bool> checkIndexFiles() const;
  /// Whether the directory may be written (access(2) on the handle).
  bool isWritable() const;

  /// An artifact's bytes, or none if the file is not there.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  readObject(llvm::StringRef key) const;
  /// A failed compilation's log, or none.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  readLog(llvm::StringRef key) const;
  llvm::Expected<bool> objectExists(llvm::StringRef key) const;

  /// Writes `bytes` to a new file in tmp/ under a name no other process
  /// uses, fsyncs (unless not `sync`) and closes it; returns the name.
  /// Nothing is left behind on failure. `failAfterBytes` simulates a full
  /// disk (tests).
  llvm::Expected<std::string>
  stage(llvm::StringRef hint, llvm::ArrayRef<llvm::StringRef> pieces,
        std::optional<uint64_t> failAfterBytes, bool sync = true) const;
  /// Whether objects/ holds anything: a cache whose index is gone still
  /// has its artifacts there.
  bool hasObjects() const;
  /// Moves index.db and its -wal and -shm files aside, to
  /// `index.db.broken-<suffix>` (kept for inspection); returns what was
  /// moved.
  llvm::Expected<std::vector<std::string>>
  moveIndexAside(llvm::StringRef suffix) const;
  /// The size of index.db, if it is there.
  std::optional<uint64_t> getIndexSize() const;
  /// Removes a staged file.
  void dropStaged(llvm::StringRef name) const;
  /// Renames a staged file to objects/<k0k1>/<key> (or logs/<key>.log) and
  /// fsyncs the directory. The staged file is removed on failure.
  llvm::Error moveStagedToObject(llvm::StringRef staged, llvm::StringRef key,
                                 bool sync = true) const;
  llvm::Error moveStagedToLog(llvm::StringRef staged,
                              llvm::StringRef key) const;
  /// Unlinks an artifact or a log; a missing file is not an error.
  llvm::Error removeObject(llvm::StringRef key) const;
  llvm::Error removeLog(llvm::StringRef key) const;

  /// What is in objects/, logs/ and tmp/, for `kiln cache verify`.
  struct Contents {
    std::vector<std::string> objectKeys; ///< regular files named by a key
    std::vector<std::string> logKeys;    ///< regular files `<key>.log`
    /// Anything else (links, directories, other names), relative to the
    /// cache directory: reported, never removed.
    std::vector<std::string> foreign;
    std::vector<std::string> staleStaged; ///< tmp/ files older than `age`
  };
  llvm::Expected<Contents> list(std::chrono::seconds staleAge) const;

private:
  CacheDirectory() = default;
  /// Opens objects/<shard> for `key`, creating it with `create`.
  llvm::Expected<int> openShard(llvm::StringRef key, bool create) const;
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  readFileAt(int dir, llvm::StringRef name, llvm::StringRef relative) const;

  std::string path;
  std::string resolvedPath;
  int root = -1;
  int objects = -1;
  int logs = -1;
  int tmp = -1;
};

} // namespace kiln

#endif // KILN_LIB_CACHE_CACHEDIRECTORY_H
