//===- TieredCache.h - the local cache and the remote tiers behind it -*- C++ -*-===//
//
// This file declares the cache as commands use it: the local tier (Cache.h,
// on local disk) and zero or more remote tiers (Remote/RemoteStorage.h)
// tried in order, as ccache's remote storage and sccache's multi-level
// chain do. A lookup reads through: a remote hit is verified (header,
// checksum, the key inside equal to the key asked for) and copied into the
// local tier before it is used. A publish writes through: the local tier,
// then every writable remote. A remote in trouble costs one warning and is
// skipped for the rest of the command; the command goes on with the other
// tiers. Counts per tier are kept in the local index.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CACHE_TIEREDCACHE_H
#define KILN_CACHE_TIEREDCACHE_H

#include "kiln/Cache/Cache.h"
#include "kiln/Cache/Remote/RemoteStorage.h"

#include "llvm/Support/raw_ostream.h"

#include <set>

namespace kiln {

/// What one tier saw during a command (and, summed, in `kiln cache stats`).
struct TierCounters {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t errors = 0;
  uint64_t timeouts = 0;
  /// Entries that failed verification: a miss, never copied.
  uint64_t corrupt = 0;
  /// Entries without a trusted signature where one is required: a miss,
  /// never copied (Signing.h).
  uint64_t untrusted = 0;
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
  uint64_t stored = 0;
};

/// The counter names under which TierCounters are kept, in order.
llvm::ArrayRef<const char *> getTierCounterNames();
uint64_t &getTierCounter(TierCounters &counters, llvm::StringRef name);

/// Where a lookup found its answer.
struct TieredLookup {
  LookupResult result;
  /// "local", or the remote's display name.
  std::string tier = "local";
  /// A remote hit copied into the local tier (result.verified holds the
  /// checked file either way).
  bool fetched = false;
};

/// The checked header of a cache file that a remote handed back for `key`:
/// an error unless the header is whole, its key is `key`, its kind is
/// `kind`, and the payload matches its checksum.
llvm::Expected<ArtifactHeader> verifyRemoteFile(llvm::StringRef key,
                                                RemoteEntryKind kind,
                                                llvm::StringRef file);

class TieredCache {
public:
  /// `warnings` receives one line per remote in trouble, prefixed with
  /// `commandName` ("kiln cache", "kiln precompile").
  TieredCache(std::unique_ptr<Cache> local,
              std::vector<std::unique_ptr<RemoteStorage>> remotes,
              std::string commandName,
              llvm::raw_ostream &warnings = llvm::errs());
  /// Writes the counts of this command into the local index.
  ~TieredCache();

  Cache &getLocal() { return *local; }
  llvm::StringRef getDirectory() const { return local->getDirectory(); }
  size_t getRemoteCount() const { return remotes.size(); }
  RemoteStorage &getRemote(size_t index) { return *remotes[index].storage; }
  const TierCounters &getRemoteCounters(size_t index) const {
    return remotes[index].counters;
  }
  /// Whether a remote can hold leases (and is usable).
  bool hasRemoteLeases() const;
  /// The first usable, writable remote that holds leases and a cluster
  /// run's files (ClusterRun.h); null if none.
  RemoteStorage *getRunTier();

  /// Looks `key` up in the local tier, then in each remote in order. A
  /// remote hit is verified; with `copyToLocal` it is copied into the
  /// local tier (read-through), otherwise only reported. A recorded
  /// failure found in a remote counts as one here too.
  llvm::Expected<TieredLookup> lookupTiers(llvm::StringRef key, bool verify,
                                           bool copyToLocal = true,
                                           bool count = true);
  /// lookupTiers with read-through, for callers that need only the result.
  llvm::Expected<LookupResult> lookup(llvm::StringRef key, bool verify,
                                      bool count = true);

  /// Publishes to the local tier, then to every writable remote.
  llvm::Expected<PublishOutcome>
  publishArtifact(const KeyParts &parts, llvm::StringRef artifact,
                  double compileSeconds, llvm::StringRef source,
                  llvm::ArrayRef<uint64_t> sketch, bool replace,
                  const EntryGraph &graph = {});
  /// Records a failed compilation locally and in every writable remote.
  llvm::Error recordFailure(const KeyParts &parts, llvm::StringRef log,
                            double compileSeconds, llvm::StringRef source,
                            llvm::ArrayRef<uint64_t> sketch = {},
                            const EntryGraph &graph = {});

  /// Claims `key` in the local tier (processes of this host) and in the
  /// first usable remote that holds leases (the cluster). An entry that a
  /// remote already has is AlreadyDone; a remote that fails while
  /// claiming is skipped with its warning, and the claim stands locally.
  llvm::Expected<ClaimStatus> claim(llvm::StringRef key, unsigned ttlSeconds,
                                    bool retryFailed = false,
                                    bool replaceExisting = false);
  llvm::Error renew(llvm::StringRef key, unsigned ttlSeconds);
  llvm::Error release(llvm::StringRef key);

  std::string getLogPath(llvm::StringRef key) const {
    return local->getLogPath(key);
  }
  std::string getLogCommand(llvm::StringRef key) const {
    return local->getLogCommand(key);
  }
  llvm::Expected<std::vector<CacheEntry>>
  findEntriesWithSignature(llvm::StringRef signature) {
    return local->findEntriesWithSignature(signature);
  }

  /// What copying one entry between tiers did.
  struct CopyResult {
    unsigned copied = 0;  ///< tiers that took it (push), or 1 (pull)
    unsigned present = 0; ///< tiers that had it already
    std::string problem;  ///< why it was not copied, if it was not
  };
  /// Copies the local entry of `key` (artifact or failure) to every
  /// writable remote that lacks it.
  CopyResult push(llvm::StringRef key);
  /// Copies `key` from the first remote that has it (verified) into the
  /// local tier.
  CopyResult pull(llvm::StringRef key);
  /// Signs the local entry of `key` with the trust policy's signing key
  /// and, if it was not signed so, writes it over every writable remote's
  /// copy; `signedNow` says whether it was.
  CopyResult sign(llvm::StringRef key, bool &signedNow);
  /// The keys of every listable remote's artifacts; tiers that cannot list
  /// are named in `problems` (and warned about, and skipped).
  std::vector<std::string> listRemoteKeys(std::vector<std::string> &problems);

  /// Removes `key` from the local tier and from every writable remote;
  /// true if any tier had it.
  llvm::Expected<bool> remove(llvm::StringRef key);

private:
  struct Remote {
    std::unique_ptr<RemoteStorage> storage;
    TierCounters counters;
    bool failed = false;
    /// Entries found invalid during this command: misses, and replaced by
    /// what this command stores under their keys.
    std::set<std::pair<std::string, RemoteEntryKind>> invalid;
  };

  /// Counts `error` against `remote`, warns once, and skips the remote for
  /// the rest of the command.
  void disable(Remote &remote, llvm::Error error);
  /// An error of one entry (RemoteError::isEntryOnly) as its message; any
  /// other disables `remote` and gives none.
  std::optional<std::string> takeEntryProblem(llvm::Error error,
                                              Remote &remote);
  /// Counts and warns (once per entry) about an entry of `remote` that is
  /// not valid (or, `untrusted`, not signed by a trusted key); it is a
  /// miss, and replaced if this command stores one.
  void invalidEntry(Remote &remote, llvm::StringRef key, RemoteEntryKind kind,
                    llvm::StringRef problem, bool untrusted = false);
  /// Fetches `key`'s entry of `kind` from `remote` and checks it (header,
  /// checksum, key, and the trust policy's signatures); none if the tier
  /// lacks it, has it invalid (counted), or is in trouble (disabled);
  /// `untrusted` receives why an entry's signatures were refused.
  std::shared_ptr<StoredArtifact>
  fetchChecked(Remote &remote, llvm::StringRef key, RemoteEntryKind kind,
               std::string *untrusted = nullptr);
  /// Whether `remote` holds a finished entry of `key` (an artifact unless
  /// `replaceExisting`, a failure unless `retryFailed`); a tier in trouble
  /// is disabled and holds none.
  bool hasFinishedEntry(Remote &remote, llvm::StringRef key, bool retryFailed,
                        bool replaceExisting);
  /// Whether `remote` may still be used (and written, with `forWriting`).
  bool usable(const Remote &remote, bool forWriting = false) const {
    return !remote.failed && !(forWriting && remote.storage->isReadOnly());
  }
  /// Writes a local cache file to every writable remote that lacks it.
  void writeThrough(llvm::StringRef key, RemoteEntryKind kind,
                    bool overwrite, CopyResult *result = nullptr);
  /// Adopts a verified remote file into the local tier.
  llvm::Error adopt(const ArtifactHeader &header, llvm::StringRef file);

  std::unique_ptr<Cache> local;
  std::vector<Remote> remotes;
  std::string commandName;
  llvm::raw_ostream &warnings;
  /// The remote whose lease this process holds, by key.
  std::map<std::string, size_t> leaseTier;
};

} // namespace kiln

#endif // KILN_CACHE_TIEREDCACHE_H
