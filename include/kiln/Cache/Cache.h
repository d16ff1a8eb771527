//===- Cache.h - the shared compile cache -----------------------*- C++ -*-===//
//
// This file declares the compile cache: a directory with a SQLite index and
// content-addressed artifact files (cache/FORMAT.md). It is safe to use from
// many processes at once, survives crashes at any point, and never returns a
// partial or corrupt artifact. Keys are opaque 32-hex-digit strings here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CACHE_CACHE_H
#define KILN_CACHE_CACHE_H

#include "kiln/Cache/ArtifactHeader.h"
#include "kiln/Cache/Key.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace kiln {

class CacheDirectory;
struct TrustPolicy;
namespace sqlite {
class Statement;
} // namespace sqlite

/// One row of the index.
struct CacheEntry {
  std::string key;
  bool ok = false;  ///< false: a recorded failed compilation
  std::string path; ///< the artifact (ok) or the compiler's log (failed)
  uint64_t size = 0;
  std::string checksum;
  double compileSeconds = 0;
  int64_t createdMs = 0;
  int64_t lastUsedMs = 0;
  int64_t hits = 0;
  KeyParts parts;
  std::string source;
  std::string graphName; ///< the graph's module name
  std::vector<uint64_t> sketch;
};

/// What an entry keeps of its graph besides the file name and sketch: the
/// module name (the tie-breaker when a miss looks for its nearest entry)
/// and the text, which `kiln cache explain` compares a missing graph with.
struct EntryGraph {
  llvm::StringRef name;
  llvm::StringRef text;
};

/// What `kiln cache check` remembers of a graph file it keyed: keyed by the
/// file's bytes and the kiln build, so that an unchanged dump is not
/// imported again.
struct SignatureMemo {
  std::string content; ///< XXH3-128 of the file's bytes, hex
  Hash128 signature;
  std::string graphName;
  unsigned elidedConstants = 0;
  std::vector<uint64_t> sketch;
};

/// What a lookup found.
enum class LookupStatus {
  Hit,     ///< an artifact, checksum verified if asked
  Miss,    ///< nothing
  Failed,  ///< a recorded failed compilation
  Corrupt, ///< an artifact whose file was missing or did not match its
           ///< checksum; the entry was removed, so this is also a miss
  /// An entry without a trusted signature where the trust policy needs one
  /// (Signing.h): a miss, never used or copied; the entry is kept, since
  /// `kiln cache sign` may vouch for it.
  Untrusted,
};

struct StoredArtifact;

struct LookupResult {
  LookupStatus status = LookupStatus::Miss;
  std::optional<CacheEntry> entry;
  std::string problem; ///< for Corrupt and Untrusted: what was wrong
  /// The file a verifying lookup read and checked, whole in memory (never a
  /// mapping another process could change): what `get` hands out.
  std::shared_ptr<const StoredArtifact> verified;
};

/// What `publishArtifact` did.
enum class PublishOutcome {
  Stored,        ///< the artifact is in
  AlreadyCached, ///< the key had these very bytes already
  Conflict,      ///< the key had other bytes, which were kept
};

/// What `claim` decided.
enum class ClaimStatus {
  Claimed,      ///< the caller holds the lease and should compile
  AlreadyDone,  ///< an entry exists (ok, or failed unless retrying)
  HeldElsewhere ///< another live process holds the lease
};

struct CacheStats {
  uint64_t entries = 0;
  uint64_t failedEntries = 0;
  uint64_t bytes = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t corrupt = 0;
  uint64_t activeLeases = 0;
  /// Files in tmp/ older than kStaleStagedAge: left by writers that died.
  uint64_t staleTemporaries = 0;
  /// Sum over entries of compile time times hits: what the cache saved.
  double compileSecondsSaved = 0;
  /// Misses by the reason their caller found (countMissReason).
  std::map<std::string, uint64_t> missesByReason;
  /// Counts per remote tier (TieredCache.h), by the tier's name, then the
  /// counter's (hits, misses, errors, timeouts, corrupt, bytes_read,
  /// bytes_written, stored).
  std::map<std::string, std::map<std::string, uint64_t>> tiers;
};

struct VerifyReport {
  uint64_t checked = 0;
  std::vector<std::string> missingFiles; ///< keys whose file is gone
  std::vector<std::string> corruptFiles; ///< keys whose checksum mismatched
  std::vector<std::string> orphanFiles;  ///< files without a row
  std::vector<std::string> staleTemporaries;
  /// Links, directories and names that are not the cache's own, inside its
  /// parts: reported, never removed (kiln deletes only its keys' files).
  std::vector<std::string> foreignFiles;
  /// Entries without a signature, and entries whose signatures are by no
  /// trusted key or do not verify (with why), when keys are trusted.
  std::vector<std::string> unsignedEntries;
  std::vector<std::pair<std::string, std::string>> untrustedEntries;
  /// Whether the trust policy needs the local tier's entries signed: then
  /// unsigned and untrusted entries make the cache unclean.
  bool signaturesRequired = false;
  bool repaired = false;
  bool clean() const {
    return missingFiles.empty() && corruptFiles.empty() &&
           orphanFiles.empty() && staleTemporaries.empty() &&
           foreignFiles.empty() &&
           (!signaturesRequired ||
            (unsignedEntries.empty() && untrustedEntries.empty()));
  }
};

/// What `rebuildIndex` did.
struct RebuildReport {
  uint64_t recoveredArtifacts = 0;
  uint64_t recoveredFailures = 0;
  /// The damaged index's files, moved aside (never deleted).
  std::vector<std::string> movedAside;
  /// Files of objects/ and logs/ that could not be taken back, and why:
  /// left where they are.
  std::vector<std::string> unreadable;
};

/// An artifact (or log) read from the cache: the file, kept mapped, and
/// its payload within it (after the header).
struct StoredArtifact {
  std::unique_ptr<llvm::MemoryBuffer> file;
  llvm::StringRef bytes;
  /// What the file's header says (ArtifactHeader.h).
  ArtifactHeader header;
};

struct EvictionReport {
  uint64_t removedEntries = 0;
  uint64_t removedBytes = 0;
  uint64_t remainingBytes = 0;
};

/// Test hook: fail artifact writes after this many bytes with ENOSPC, as a
/// full disk would.
struct CacheTestHooks {
  std::optional<uint64_t> failWritesAfterBytes;
};

class Cache {
public:
  struct OpenOptions {
    /// Open for lookups only: no entry, counter or file of the cache is
    /// written (SQLite may still create its -wal and -shm files where the
    /// directory allows). A directory that cannot be written is opened
    /// read-only anyway.
    bool readOnly = false;
    /// For commands that only look up (check, get): a cache that cannot be
    /// opened for writing (a full disk, a read-only mount) is opened
    /// read-only instead; getReadOnlyReason says why.
    bool readOnlyIfUnwritable = false;
    /// How long to wait for another process's lock before retrying.
    unsigned busyTimeoutMs = 60000;
    /// Make a new index even though objects/ holds artifacts (the first
    /// step of rebuildIndex); otherwise that is a lost index, an error.
    bool newIndexOverArtifacts = false;
    CacheTestHooks testHooks;
  };

  ~Cache();

  /// Opens (creating if needed) the cache in `directory`.
  static llvm::Expected<std::unique_ptr<Cache>> open(llvm::StringRef directory,
                                                     OpenOptions options);
  static llvm::Expected<std::unique_ptr<Cache>>
  open(llvm::StringRef directory) {
    return open(directory, OpenOptions());
  }
  /// `$KILN_CACHE_DIR`, else `$XDG_CACHE_HOME/kiln`, else `~/.cache/kiln`.
  static std::string getDefaultDirectory();

  llvm::StringRef getDirectory() const { return directory; }
  /// What entries written are signed with and entries read must carry
  /// (Signing.h); none: nothing is signed or required.
  void setTrustPolicy(std::shared_ptr<const TrustPolicy> policy) {
    trust = std::move(policy);
  }
  const TrustPolicy *getTrustPolicy() const { return trust.get(); }
  /// Adds the policy's signing key's signature to the entry of `key` (an
  /// artifact or a failure), after checking its bytes against the index;
  /// false if the entry has that signature already or is gone.
  llvm::Expected<bool> signEntry(llvm::StringRef key);
  bool isReadOnly() const { return readOnly; }
  /// Why a cache asked to be writable was opened read-only
  /// (OpenOptions::readOnlyIfUnwritable); empty otherwise.
  llvm::StringRef getReadOnlyReason() const { return readOnlyReason; }
  /// Whether this user could write the cache (whether or not it was
  /// opened for writing).
  bool canWrite() const;
  /// Where an artifact or a log is, for messages (files are read through
  /// readArtifact and readLog, never by these paths).
  std::string getObjectPath(llvm::StringRef key) const;
  std::string getLogPath(llvm::StringRef key) const;
  /// How a user reads a failed compilation's log as text: `kiln cache log
  /// KEY --cache-dir DIR` (the file itself starts with a binary header).
  std::string getLogCommand(llvm::StringRef key) const;

  /// An artifact's bytes (without the file's header), read through the
  /// cache's own directory handles (never through a link); none if the file
  /// is gone (removed by another process since the lookup: a miss). A
  /// damaged header is an error.
  llvm::Expected<std::optional<StoredArtifact>>
  readArtifact(llvm::StringRef key);
  /// A failed compilation's log, or none.
  llvm::Expected<std::optional<StoredArtifact>> readLog(llvm::StringRef key);

  /// Keeps the log of an attempt whose failure was the run's, not the
  /// graph's (a timeout, a memory limit, a signal: not recorded), as
  /// attempts/KEY.log, replacing an earlier one; only the most recent
  /// kKeptAttemptLogs stay. `kiln cache log KEY` prints it when no failure
  /// is recorded, so no temporary directory is kept for it.
  llvm::Error keepAttemptLog(llvm::StringRef key, llvm::StringRef text);
  /// That log, or none.
  std::optional<std::string> readAttemptLog(llvm::StringRef key) const;
  static constexpr unsigned kKeptAttemptLogs = 100;

  /// Rebuilds the index of the cache at `directory` from the headers of
  /// the files in objects/ and logs/: the old index.db (missing, empty,
  /// damaged, or anything else) is moved aside, a new one is made, and
  /// every file whose header checks out gets its row back.
  static llvm::Expected<RebuildReport> rebuildIndex(llvm::StringRef directory);

  /// Looks `key` up. With `verify`, an artifact's checksum is recomputed
  /// and a mismatch turns the hit into a removed, Corrupt miss. Counts a
  /// hit or miss in the statistics unless the cache is read-only.
  /// Without `count`, the lookup is kiln's own (is it there yet?) and
  /// counts nothing: hits and misses are what users' lookups found.
  llvm::Expected<LookupResult> lookup(llvm::StringRef key, bool verify,
                                      bool count = true);

  /// The memos of these file contents made by this kiln build, by content
  /// (contents without one are left out).
  /// Without `withSketches` each memo's sketch is left empty: a sketch is
  /// 8 bytes per op, most of what a memo holds, and only explaining a miss
  /// reads it.
  llvm::Expected<std::map<std::string, SignatureMemo>>
  findSignatureMemos(llvm::ArrayRef<std::string> contents,
                     bool withSketches = true);
  /// Remembers `memos` for this kiln build, in one transaction; the oldest
  /// memos go past kMaxSignatureMemos. Does nothing on a read-only cache.
  llvm::Error storeSignatureMemos(llvm::ArrayRef<SignatureMemo> memos);
  static constexpr unsigned kMaxSignatureMemos = 100000;

  /// Counts, under `reason`, a miss that the last lookup found: why the
  /// key was not there ("computation", "options", "target", "compiler",
  /// "corrupt"; see getMissReason in Explain.h). Written with the counts.
  void countMissReason(llvm::StringRef reason);
  /// Stores `artifact` under `parts.key()` atomically. If the key already
  /// has an ok entry the new bytes are dropped: a key is published once.
  llvm::Error publish(const KeyParts &parts, llvm::StringRef artifact,
                      double compileSeconds, llvm::StringRef source,
                      llvm::ArrayRef<uint64_t> sketch = {},
                      const EntryGraph &graph = {});
  /// Like publish, and says what happened: a key that already has these
  /// bytes is AlreadyCached; one with other bytes is a Conflict, and keeps
  /// them unless `replace`.
  llvm::Expected<PublishOutcome>
  publishArtifact(const KeyParts &parts, llvm::StringRef artifact,
                  double compileSeconds, llvm::StringRef source,
                  llvm::ArrayRef<uint64_t> sketch, bool replace,
                  const EntryGraph &graph = {});
  /// Stores a copy of another tier's entry (an artifact or a failure, with
  /// the signatures it carries), whose header the caller checked
  /// against its payload (verifyRemoteFile): the payload is not hashed
  /// again, and the file is not synced: a copy that a power loss tore fails
  /// its checksum on the next verified lookup and is fetched again
  /// (FORMAT.md).
  llvm::Expected<PublishOutcome> adoptEntry(const ArtifactHeader &header,
                                            llvm::StringRef payload);
  /// Records a failed compilation with the compiler's output.
  llvm::Error recordFailure(const KeyParts &parts, llvm::StringRef log,
                            double compileSeconds, llvm::StringRef source,
                            llvm::ArrayRef<uint64_t> sketch = {},
                            const EntryGraph &graph = {});

  /// Claims the right to compile `key` for `ttlSeconds`. A failed entry is
  /// AlreadyDone unless `retryFailed`; an artifact is unless
  /// `replaceExisting` (a forced recompilation).
  llvm::Expected<ClaimStatus> claim(llvm::StringRef key, unsigned ttlSeconds,
                                    bool retryFailed = false,
                                    bool replaceExisting = false);
  llvm::Error renew(llvm::StringRef key, unsigned ttlSeconds);
  llvm::Error release(llvm::StringRef key);

  /// Removes least recently used entries until the artifacts take at most
  /// `maxBytes`; never an entry whose key is under a live lease.
  llvm::Expected<EvictionReport> evict(uint64_t maxBytes);
  /// Checks every artifact against its checksum and looks for files without
  /// rows; with `repair`, removes what is wrong.
  llvm::Expected<VerifyReport> verify(bool repair);
  llvm::Expected<CacheStats> getStats();
  /// Adds `counts` (by counter name) to the counters, in one transaction:
  /// what a command counted for the remote tiers.
  llvm::Error addCounters(const std::map<std::string, uint64_t> &counts);
  /// Resets the counters: hits, misses, corrupt artifacts found, and each
  /// entry's hits (so compile time saved counts from now).
  llvm::Error zeroStats();
  llvm::Expected<std::vector<CacheEntry>> list();
  /// Entries whose signature is `signature`, most recently used first.
  llvm::Expected<std::vector<CacheEntry>>
  findEntriesWithSignature(llvm::StringRef signature);
  /// The most recently used entries, at most `limit`.
  llvm::Expected<std::vector<CacheEntry>> listRecent(unsigned limit);
  /// The candidates `kiln cache explain` compares a miss with: the entries
  /// with its signature, failing that the 1000 most recently used.
  llvm::Expected<std::vector<CacheEntry>>
  findExplanationCandidates(llvm::StringRef signature);
  /// The size limit stored in the cache (`kiln cache config max-size`):
  /// after each publish, least recently used entries go until the
  /// artifacts fit, sparing leased ones. None: no limit.
  llvm::Expected<std::optional<uint64_t>> getMaxSize();
  llvm::Error setMaxSize(std::optional<uint64_t> bytes);

  /// How old a staged file in tmp/ is when its writer is taken for dead:
  /// past any lease and any wait for the write lock.
  static constexpr std::chrono::seconds kStaleStagedAge{600};

  /// Removes one entry; false if there was none.
  llvm::Expected<bool> remove(llvm::StringRef key);
  llvm::Error clear();

private:
  Cache();
  llvm::Error initializeSchema();
  /// Makes a memo table of the earlier WITHOUT ROWID layout again, empty,
  /// in the rowid layout (a lookup there read every sketch it passed).
  llvm::Error remakeWithoutRowidMemo();
  /// publishArtifact of an entry whose header is made: synced unless not
  /// `durable`.
  llvm::Expected<PublishOutcome> publishEntry(const ArtifactHeader &header,
                                              llvm::StringRef artifact,
                                              bool replace, bool durable);
  /// Records the failed compilation that `header` describes (its payload
  /// `log`), unless the key has an artifact.
  llvm::Error recordFailureEntry(const ArtifactHeader &header,
                                 llvm::StringRef log);
  /// Inserts (or replaces) the row that `header` describes, and ends the
  /// key's lease.
  llvm::Error insertEntry(const ArtifactHeader &header);
  llvm::Error bumpCounter(llvm::StringRef name);
  bool isLeaseLive(llvm::StringRef host, int64_t pid, int64_t expiresMs,
                   int64_t nowMs) const;

  /// Writes the hits, misses and last uses counted since the last batch,
  /// in one write transaction.
  llvm::Error flushCounts();
  /// flushCounts, when enough has been counted or enough time has passed.
  void maybeFlushCounts();
  static constexpr uint64_t kFlushEvery = 256;
  static constexpr int64_t kFlushAfterMs = 1000;
  struct PendingUse {
    int64_t hits = 0;
    int64_t lastUsedMs = 0;
  };
  /// Counted in memory by lookups, written by flushCounts (also when the
  /// cache is closed, and before anything reads counts or last uses).
  std::map<std::string, PendingUse> pendingUses;
  uint64_t pendingHits = 0;
  uint64_t pendingMisses = 0;
  std::map<std::string, uint64_t> pendingMissReasons;
  int64_t pendingSinceMs = 0;

  /// The statement for `sql`, prepared once per Cache and reused (the
  /// lookup path prepares nothing); reset it after use, so that no read
  /// transaction stays open between calls.
  llvm::Expected<sqlite::Statement *> prepared(const std::string &sql);
  std::map<std::string, std::unique_ptr<sqlite::Statement>> statements;

  std::string directory;
  /// The cache's files, through handles opened once (CacheDirectory.h).
  std::unique_ptr<CacheDirectory> files;
  std::string hostName;
  bool readOnly = false;
  std::string readOnlyReason;
  OpenOptions options;
  std::shared_ptr<const TrustPolicy> trust;
  /// Whether this process removed what dead writers left in tmp/ (once,
  /// before its first write).
  bool staleStagedSwept = false;
  void sweepStaleStaged();
  sqlite3 *db = nullptr;
};

} // namespace kiln

#endif // KILN_CACHE_CACHE_H
