//===- RemoteStorage.h - a cache tier that many machines share --*- C++ -*-===//
//
// This file declares the one interface that every remote tier implements
// (a shared directory, Redis, HTTP: one file each under lib/Cache/Remote/),
// and the parsing of the URLs that name them. A remote holds whole cache
// files (ArtifactHeader.h: header, key parts, checksum, payload), so that
// whatever it hands back is verified against the key asked for before the
// local tier takes it. It knows nothing of SQLite, statistics or
// read-through: TieredCache.h puts tiers together.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CACHE_REMOTE_REMOTESTORAGE_H
#define KILN_CACHE_REMOTE_REMOTESTORAGE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// A remote tier as the user wrote it: `URL|attribute=value|flag...`.
struct RemoteSpec {
  std::string url;    ///< without the attributes
  std::string scheme; ///< file, redis, redis+unix, http, https
  bool readOnly = false;
  unsigned connectTimeoutMs = 100;
  unsigned operationTimeoutMs = 10000;
  /// Attributes besides the common ones, by name (a backend's own:
  /// `expire`, `bearer-token-file`, `prefix`).
  std::map<std::string, std::string> attributes;

  /// The URL for messages and statistics: a password is never shown.
  std::string getDisplayName() const;
};

/// Parses `URL|attr=value|flag`; an unknown scheme, an attribute that the
/// scheme does not take, or a malformed value is an error naming it.
llvm::Expected<RemoteSpec> parseRemoteSpec(llvm::StringRef text);

/// Whether `text` looks like a URL (`scheme:` or `scheme://`) rather than
/// a directory: a `--cache-dir` given one is a usage error, never a local
/// directory named `s3:`.
bool looksLikeUrl(llvm::StringRef text);

/// What a remote holds under a key.
enum class RemoteEntryKind {
  Artifact, ///< a compiled artifact's cache file
  Failure,  ///< a failed compilation's log, as a cache file
};

/// A failure of a remote operation. `timedOut` tells a timeout (counted
/// apart) from an answer that was an error; `entryOnly` tells a problem of
/// one entry (a FIFO or a list where a cache file should be, one too large)
/// from the tier's: the first is that key's miss, the second ends the
/// tier's use for the command.
class RemoteError : public llvm::ErrorInfo<RemoteError> {
public:
  static char ID;
  RemoteError(std::string message, bool timedOut, bool entryOnly = false)
      : message(std::move(message)), timedOut(timedOut), entryOnly(entryOnly) {
  }
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  const std::string &getMessage() const { return message; }
  bool isTimeout() const { return timedOut; }
  bool isEntryOnly() const { return entryOnly; }

private:
  std::string message;
  bool timedOut;
  bool entryOnly;
};

/// A remote error: `message`, a timeout if `timedOut`.
llvm::Error makeRemoteError(const llvm::Twine &message, bool timedOut = false);
/// An error of one entry, not of the tier.
llvm::Error makeRemoteEntryError(const llvm::Twine &message);

/// The largest cache file a remote tier hands back: a larger one (or one
/// that says it is) is that entry's error, never an allocation of its size.
constexpr uint64_t kMaxRemoteEntryBytes = 8ull << 30;
/// The largest file of a cluster run (a graph's text, a node's list) that
/// is read: a larger one is that file's error.
constexpr uint64_t kMaxRunFileBytes = 512ull << 20;

/// Whether `name` may name a run file: letters, digits, `._-` and `/`,
/// no empty part, no `.` or `..` part.
bool isRunFileName(llvm::StringRef name);

/// `url` with any password replaced by `***`, for messages.
std::string hidePassword(llvm::StringRef url);

/// Who holds a lease: host, process and a random token, so that only the
/// holder renews or releases it.
struct LeaseOwner {
  std::string host;
  int64_t pid = 0;
  std::string token;
  /// This process's owner (a token drawn once per process).
  static const LeaseOwner &current();
  /// `host:pid:token`.
  std::string toString() const;
};

/// What claiming a lease found.
enum class RemoteClaim {
  Claimed,      ///< the caller holds it now
  HeldElsewhere ///< a live lease of another owner
};

/// One remote tier. Every call either answers or fails within the tier's
/// timeouts; the caller (TieredCache) turns failures into warnings.
class RemoteStorage {
public:
  virtual ~RemoteStorage();

  const RemoteSpec &getSpec() const { return spec; }
  std::string getName() const { return spec.getDisplayName(); }
  bool isReadOnly() const { return spec.readOnly; }

  /// The cache file stored under `key`, or none.
  virtual llvm::Expected<std::optional<std::string>>
  fetch(llvm::StringRef key, RemoteEntryKind kind) = 0;
  /// Stores a cache file under `key` unless one is there already (or
  /// replacing it, with `overwrite`); true if it was written. Readers never
  /// see a partial file.
  virtual llvm::Expected<bool> store(llvm::StringRef key, RemoteEntryKind kind,
                                     llvm::StringRef file, bool overwrite) = 0;
  virtual llvm::Expected<bool> exists(llvm::StringRef key,
                                      RemoteEntryKind kind) = 0;
  /// Removes the entry of `kind` under `key`; true if there was one.
  virtual llvm::Expected<bool> remove(llvm::StringRef key,
                                      RemoteEntryKind kind) = 0;
  /// Records a failed compilation: its log, as a cache file.
  llvm::Expected<bool> recordFailure(llvm::StringRef key,
                                     llvm::StringRef file) {
    return store(key, RemoteEntryKind::Failure, file, /*overwrite=*/false);
  }
  /// The keys of the artifacts it holds (`kiln cache pull --all`); an
  /// error where the backend cannot list (HTTP).
  virtual llvm::Expected<std::vector<std::string>> listKeys() = 0;

  /// The small shared files of a cluster precompile (node lists, graphs,
  /// results; Driver/ClusterRun.h), by name (`RUN/nodes/3`: letters,
  /// digits, `._-` and `/`). A file is replaced whole; readers never see
  /// part of one. Backends that cannot list (HTTP) cannot hold a run.
  virtual bool hasRunFiles() const { return false; }
  virtual llvm::Error putRunFile(llvm::StringRef name, llvm::StringRef bytes);
  virtual llvm::Expected<std::optional<std::string>>
  getRunFile(llvm::StringRef name);
  /// The names of the files directly in `directory` (`RUN/nodes`).
  virtual llvm::Expected<std::vector<std::string>>
  listRunFiles(llvm::StringRef directory);

  /// Whether this tier can hold leases (HTTP cannot: leases then come from
  /// the next tier that can).
  virtual bool hasLeases() const { return false; }
  /// Claims the right to compile `key` for `ttlMs` for `owner`. A lease
  /// whose owner stopped renewing it (expired) is taken over by exactly
  /// one claimer; the holder's own lease is claimed again.
  virtual llvm::Expected<RemoteClaim> claim(llvm::StringRef key,
                                            const LeaseOwner &owner,
                                            unsigned ttlMs);
  /// Extends `owner`'s lease; an error if it holds none (lost, taken
  /// over).
  virtual llvm::Error renew(llvm::StringRef key, const LeaseOwner &owner,
                            unsigned ttlMs);
  /// Ends `owner`'s lease; another owner's is left alone.
  virtual llvm::Error release(llvm::StringRef key, const LeaseOwner &owner);

protected:
  explicit RemoteStorage(RemoteSpec spec) : spec(std::move(spec)) {}
  RemoteSpec spec;
};

/// Opens the backend that `spec` names. Nothing is contacted yet where the
/// backend can wait (a down server is the first operation's error, so that
/// it costs a warning, not the command).
llvm::Expected<std::unique_ptr<RemoteStorage>>
openRemoteStorage(const RemoteSpec &spec);

/// The backends, one per file under lib/Cache/Remote/.
std::unique_ptr<RemoteStorage> createFileStorage(const RemoteSpec &spec,
                                                 std::string &error);
std::unique_ptr<RemoteStorage> createRedisStorage(const RemoteSpec &spec,
                                                  std::string &error);
std::unique_ptr<RemoteStorage> createHttpStorage(const RemoteSpec &spec,
                                                 std::string &error);

} // namespace kiln

#endif // KILN_CACHE_REMOTE_REMOTESTORAGE_H
