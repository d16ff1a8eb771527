//===- TieredCache.cpp - read-through, write-through tiers ------*- C++ -*-===//
//
// This file implements the cache that commands use: the local tier first,
// then each remote tier in order. The rules that keep a shared tier from
// doing harm: nothing a remote hands back is used or copied before its
// header, checksum and key are checked; a remote's failure is a warning and
// a count, never the command's failure; the local tier is always written
// first, so a remote never holds what the local tier does not.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/TieredCache.h"
#include "kiln/Cache/Signing.h"

#include "llvm/Support/FormatVariadic.h"

using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

llvm::ArrayRef<const char *> kiln::getTierCounterNames() {
  static const char *const names[] = {
      "hits",       "misses",        "errors", "timeouts", "corrupt",
      "untrusted",  "bytes_read",    "bytes_written", "stored"};
  return names;
}

uint64_t &kiln::getTierCounter(TierCounters &counters, StringRef name) {
  if (name == "hits")
    return counters.hits;
  if (name == "misses")
    return counters.misses;
  if (name == "errors")
    return counters.errors;
  if (name == "timeouts")
    return counters.timeouts;
  if (name == "corrupt")
    return counters.corrupt;
  if (name == "untrusted")
    return counters.untrusted;
  if (name == "bytes_read")
    return counters.bytesRead;
  if (name == "bytes_written")
    return counters.bytesWritten;
  return counters.stored;
}

static Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

Expected<ArtifactHeader> kiln::verifyRemoteFile(StringRef key,
                                                RemoteEntryKind kind,
                                                StringRef file) {
  auto decoded = decodeArtifactFile(file);
  if (!decoded)
    return makeError("not a kiln cache file: " +
                     llvm::toString(decoded.takeError()));
  ArtifactHeader &header = decoded->first;
  // The key inside must be the key asked for: another graph's valid entry
  // copied under this key is not this graph's artifact.
  std::string inside = header.parts.key().toHex();
  if (inside != key)
    return makeError("it holds the entry of key " + inside + ", not " + key);
  if (header.ok != (kind == RemoteEntryKind::Artifact))
    return makeError(header.ok ? "an artifact stored as a failure"
                               : "a failure stored as an artifact");
  std::string checksum = Hash128::of(decoded->second).toHex();
  if (checksum != header.checksum)
    return makeError("its checksum " + checksum +
                     " does not match its header's " + header.checksum);
  return std::move(header);
}

TieredCache::TieredCache(std::unique_ptr<Cache> local,
                         std::vector<std::unique_ptr<RemoteStorage>> storages,
                         std::string commandName, llvm::raw_ostream &warnings)
    : local(std::move(local)), commandName(std::move(commandName)),
      warnings(warnings) {
  for (auto &storage : storages)
    remotes.push_back(Remote{std::move(storage), {}, false, {}});
}

TieredCache::~TieredCache() {
  // Leases still held (a command that stopped early) are released, so
  // that other hosts need not wait for them to expire.
  for (auto &[key, tier] : leaseTier)
    if (usable(remotes[tier]))
      llvm::consumeError(
          remotes[tier].storage->release(key, LeaseOwner::current()));
  std::map<std::string, uint64_t> counts;
  for (Remote &remote : remotes)
    for (const char *name : getTierCounterNames())
      if (uint64_t value = getTierCounter(remote.counters, name))
        counts["tier." + remote.storage->getName() + "." + name] += value;
  if (!counts.empty() && !local->isReadOnly())
    llvm::consumeError(local->addCounters(counts));
}

bool TieredCache::hasRemoteLeases() const {
  for (const Remote &remote : remotes)
    if (usable(remote, /*forWriting=*/true) && remote.storage->hasLeases())
      return true;
  return false;
}

RemoteStorage *TieredCache::getRunTier() {
  for (Remote &remote : remotes)
    if (usable(remote, /*forWriting=*/true) && remote.storage->hasLeases() &&
        remote.storage->hasRunFiles())
      return remote.storage.get();
  return nullptr;
}

void TieredCache::disable(Remote &remote, Error error) {
  bool timedOut = false;
  std::string message;
  llvm::handleAllErrors(
      std::move(error),
      [&](const RemoteError &remoteError) {
        timedOut = remoteError.isTimeout();
        message = remoteError.getMessage();
      },
      [&](const llvm::ErrorInfoBase &other) { message = other.message(); });
  ++(timedOut ? remote.counters.timeouts : remote.counters.errors);
  if (remote.failed)
    return;
  remote.failed = true;
  if (!StringRef(message).starts_with(remote.storage->getName()))
    message = remote.storage->getName() + ": " + message;
  warnings << commandName << ": warning: remote tier " << message
           << "; it is skipped for the rest of this command\n";
  warnings.flush();
}

std::optional<std::string> TieredCache::takeEntryProblem(Error error,
                                                         Remote &remote) {
  std::optional<std::string> entryProblem;
  Error rest = llvm::handleErrors(
      std::move(error), [&](std::unique_ptr<RemoteError> remoteError) -> Error {
        if (!remoteError->isEntryOnly())
          return Error(std::move(remoteError));
        entryProblem = remoteError->getMessage();
        return Error::success();
      });
  if (rest)
    disable(remote, std::move(rest));
  return entryProblem;
}

void TieredCache::invalidEntry(Remote &remote, StringRef key,
                               RemoteEntryKind kind, StringRef problem,
                               bool untrusted) {
  // Said once per entry: a precompile that waits on a key looks it up
  // again and again.
  if (!remote.invalid.insert({key.str(), kind}).second)
    return;
  ++(untrusted ? remote.counters.untrusted : remote.counters.corrupt);
  warnings << commandName << ": warning: remote tier "
           << remote.storage->getName() << ": the entry of " << key
           << (untrusted ? " is untrusted (" : " is not valid (") << problem
           << "); taken as a miss, and replaced if this command stores one\n";
  warnings.flush();
}

std::shared_ptr<StoredArtifact>
TieredCache::fetchChecked(Remote &remote, StringRef key,
                          RemoteEntryKind kind, std::string *untrusted) {
  Expected<std::optional<std::string>> file = remote.storage->fetch(key, kind);
  if (!file) {
    if (std::optional<std::string> problem =
            takeEntryProblem(file.takeError(), remote))
      invalidEntry(remote, key, kind, *problem);
    return nullptr;
  }
  if (!*file)
    return nullptr;
  remote.counters.bytesRead += (*file)->size();
  // Decoded once, in the buffer the caller gets: what is checked here is
  // what is copied and handed out.
  auto stored = std::make_shared<StoredArtifact>();
  stored->file = llvm::MemoryBuffer::getMemBufferCopy(**file);
  std::string().swap(**file); // one copy held, not two
  Expected<ArtifactHeader> header =
      verifyRemoteFile(key, kind, stored->file->getBuffer());
  if (!header) {
    // Garbage under a key is a miss, counted; it is never copied.
    invalidEntry(remote, key, kind, llvm::toString(header.takeError()));
    return nullptr;
  }
  stored->header = std::move(*header);
  stored->bytes = stored->file->getBuffer().take_back(stored->header.size);
  if (const TrustPolicy *trust = local->getTrustPolicy())
    if (std::optional<std::string> why =
            trust->refuse(stored->header, stored->bytes, /*fromRemote=*/true)) {
      invalidEntry(remote, key, kind, *why, /*untrusted=*/true);
      if (untrusted)
        *untrusted = *why;
      return nullptr;
    }
  return stored;
}

Error TieredCache::adopt(const ArtifactHeader &header, StringRef file) {
  // The payload is the file's last `size` bytes (verifyRemoteFile checked).
  StringRef payload = file.take_back(header.size);
  EntryGraph graph{header.graphName, header.graph};
  if (header.ok) {
    Expected<PublishOutcome> outcome = local->adoptEntry(header, payload);
    return outcome ? Error::success() : outcome.takeError();
  }
  return local->recordFailure(header.parts, payload,
                              header.compileSeconds, header.source,
                              header.sketch, graph);
}

Expected<TieredLookup> TieredCache::lookupTiers(StringRef key, bool verify,
                                                bool copyToLocal, bool count) {
  TieredLookup found;
  Expected<LookupResult> result = local->lookup(key, verify, count);
  if (!result)
    return result.takeError();
  found.result = std::move(*result);
  if (found.result.status == LookupStatus::Hit ||
      found.result.status == LookupStatus::Failed)
    return found;
  for (Remote &remote : remotes) {
    if (!usable(remote))
      continue;
    for (RemoteEntryKind kind :
         {RemoteEntryKind::Artifact, RemoteEntryKind::Failure}) {
      // Asked whether it is there, without its bytes (check --no-verify);
      // an entry that must be signed is read to be checked.
      const TrustPolicy *trust = local->getTrustPolicy();
      if (!verify && !copyToLocal &&
          !(trust && trust->requiresSignature(/*fromRemote=*/true))) {
        Expected<bool> there = remote.storage->exists(key, kind);
        if (!there) {
          if (takeEntryProblem(there.takeError(), remote))
            continue;
          break;
        }
        if (!*there)
          continue;
        ++remote.counters.hits;
        found.tier = remote.storage->getName();
        found.result.status = kind == RemoteEntryKind::Artifact
                                  ? LookupStatus::Hit
                                  : LookupStatus::Failed;
        found.result.entry = CacheEntry();
        found.result.entry->key = key.str();
        found.result.entry->ok = kind == RemoteEntryKind::Artifact;
        found.result.entry->path = remote.storage->getName();
        return found;
      }
      std::string untrusted;
      std::shared_ptr<StoredArtifact> checked =
          fetchChecked(remote, key, kind, &untrusted);
      if (!checked) {
        if (!usable(remote))
          break;
        if (!untrusted.empty() && found.result.status == LookupStatus::Miss) {
          found.result.status = LookupStatus::Untrusted;
          found.result.problem = "in " + remote.storage->getName() + ", " +
                                 untrusted;
        }
        continue;
      }
      const ArtifactHeader *header = &checked->header;
      ++remote.counters.hits;
      found.tier = remote.storage->getName();
      if (copyToLocal && !local->isReadOnly()) {
        if (Error error = adopt(*header, checked->file->getBuffer())) {
          warnings << commandName << ": warning: could not copy " << key
                   << " from " << found.tier << " into the local cache: "
                   << llvm::toString(std::move(error)) << "\n";
        } else {
          found.fetched = true;
        }
      }
      CacheEntry entry;
      entry.key = key.str();
      entry.ok = header->ok;
      entry.size = header->size;
      entry.checksum = header->checksum;
      entry.compileSeconds = header->compileSeconds;
      entry.parts = header->parts;
      entry.source = header->source;
      entry.graphName = header->graphName;
      entry.sketch = header->sketch;
      entry.path = found.fetched ? (header->ok ? local->getObjectPath(key)
                                               : local->getLogPath(key))
                                 : found.tier;
      found.result.status =
          header->ok ? LookupStatus::Hit : LookupStatus::Failed;
      found.result.entry = std::move(entry);
      found.result.problem.clear();
      // What was checked is what the caller gets (`get` writes it out).
      found.result.verified = std::move(checked);
      return found;
    }
    if (usable(remote))
      ++remote.counters.misses;
  }
  return found;
}

Expected<LookupResult> TieredCache::lookup(StringRef key, bool verify,
                                           bool count) {
  Expected<TieredLookup> found = lookupTiers(key, verify, true, count);
  if (!found)
    return found.takeError();
  return std::move(found->result);
}

void TieredCache::writeThrough(StringRef key, RemoteEntryKind kind,
                               bool overwrite, CopyResult *result) {
  if (llvm::none_of(remotes,
                    [&](const Remote &r) { return usable(r, true); })) {
    if (result)
      result->problem = "no writable remote tier is usable";
    return;
  }
  bool ok = kind == RemoteEntryKind::Artifact;
  Expected<std::optional<StoredArtifact>> stored =
      ok ? local->readArtifact(key) : local->readLog(key);
  if (!stored || !*stored) {
    std::string why = stored ? "the local entry is gone"
                             : llvm::toString(stored.takeError());
    if (result)
      result->problem = why;
    return;
  }
  StringRef file = (*stored)->file->getBuffer();
  for (Remote &remote : remotes) {
    if (!usable(remote, /*forWriting=*/true))
      continue;
    // An entry found invalid in this command is replaced.
    bool replace = overwrite || remote.invalid.count({key.str(), kind});
    Expected<bool> written = remote.storage->store(key, kind, file, replace);
    if (!written) {
      std::optional<std::string> problem =
          takeEntryProblem(written.takeError(), remote);
      if (result)
        result->problem = remote.storage->getName() + ": " +
                          problem.value_or("the tier failed");
      continue;
    }
    if (*written) {
      ++remote.counters.stored;
      remote.counters.bytesWritten += file.size();
      if (result)
        ++result->copied;
      // An artifact supersedes a failure recorded earlier.
      if (ok) {
        Expected<bool> removed =
            remote.storage->remove(key, RemoteEntryKind::Failure);
        if (!removed)
          disable(remote, removed.takeError());
      }
    } else if (result) {
      ++result->present;
    }
  }
}

Expected<PublishOutcome>
TieredCache::publishArtifact(const KeyParts &parts, StringRef artifact,
                             double compileSeconds, StringRef source,
                             llvm::ArrayRef<uint64_t> sketch, bool replace,
                             const EntryGraph &graph) {
  Expected<PublishOutcome> outcome = local->publishArtifact(
      parts, artifact, compileSeconds, source, sketch, replace, graph);
  if (!outcome)
    return outcome.takeError();
  // What the local tier now holds goes to the remotes (also when it was
  // there already: a remote may lack it).
  if (*outcome != PublishOutcome::Conflict || replace)
    writeThrough(parts.key().toHex(), RemoteEntryKind::Artifact,
                 /*overwrite=*/replace);
  return outcome;
}

Error TieredCache::recordFailure(const KeyParts &parts, StringRef log,
                                 double compileSeconds, StringRef source,
                                 llvm::ArrayRef<uint64_t> sketch,
                                 const EntryGraph &graph) {
  if (Error error = local->recordFailure(parts, log, compileSeconds, source,
                                         sketch, graph))
    return error;
  std::string key = parts.key().toHex();
  Expected<LookupResult> now = local->lookup(key, false, /*count=*/false);
  if (!now)
    return now.takeError();
  // A success elsewhere wins over a failure: only a recorded failure goes.
  if (now->status == LookupStatus::Failed)
    writeThrough(key, RemoteEntryKind::Failure, /*overwrite=*/true);
  return Error::success();
}

bool TieredCache::hasFinishedEntry(Remote &remote, StringRef key,
                                   bool retryFailed, bool replaceExisting) {
  for (RemoteEntryKind kind :
       {RemoteEntryKind::Artifact, RemoteEntryKind::Failure}) {
    // What is compiled again anyway, and an entry this command found
    // invalid, are no finished entries.
    if (!usable(remote) ||
        (kind == RemoteEntryKind::Artifact ? replaceExisting : retryFailed) ||
        remote.invalid.count({key.str(), kind}))
      continue;
    // An entry that must carry a trusted signature is finished only once
    // it is read and checked: a forged one must not stop its compilation.
    const TrustPolicy *trust = local->getTrustPolicy();
    if (trust && trust->requiresSignature(/*fromRemote=*/true)) {
      if (fetchChecked(remote, key, kind))
        return true;
      continue;
    }
    Expected<bool> there = remote.storage->exists(key, kind);
    if (!there) {
      takeEntryProblem(there.takeError(), remote);
      continue;
    }
    if (*there)
      return true;
  }
  return false;
}

Expected<ClaimStatus> TieredCache::claim(StringRef key, unsigned ttlSeconds,
                                         bool retryFailed,
                                         bool replaceExisting) {
  Expected<ClaimStatus> status =
      local->claim(key, ttlSeconds, retryFailed, replaceExisting);
  if (!status || *status != ClaimStatus::Claimed)
    return status;
  auto releaseLocal = [&] { llvm::consumeError(local->release(key)); };
  // Compiled or failed on another host since this one looked: done.
  for (Remote &remote : remotes)
    if (hasFinishedEntry(remote, key, retryFailed, replaceExisting)) {
      releaseLocal();
      return ClaimStatus::AlreadyDone;
    }
  for (size_t i = 0; i < remotes.size(); ++i) {
    Remote &remote = remotes[i];
    if (!usable(remote, /*forWriting=*/true) || !remote.storage->hasLeases())
      continue;
    Expected<RemoteClaim> claimed = remote.storage->claim(
        key, LeaseOwner::current(), ttlSeconds * 1000);
    if (!claimed) {
      // The cluster's lease is out of reach: compile here anyway (at worst
      // twice in the cluster) rather than stall.
      takeEntryProblem(claimed.takeError(), remote);
      continue;
    }
    if (*claimed == RemoteClaim::HeldElsewhere) {
      releaseLocal();
      return ClaimStatus::HeldElsewhere;
    }
    // Asked again under the lease: another host may have stored the entry
    // and released its lease between the look above and this claim (it
    // stores before it releases, so what it stored is there now).
    if (hasFinishedEntry(remote, key, retryFailed, replaceExisting)) {
      llvm::consumeError(remote.storage->release(key, LeaseOwner::current()));
      releaseLocal();
      return ClaimStatus::AlreadyDone;
    }
    leaseTier[key.str()] = i;
    break;
  }
  return ClaimStatus::Claimed;
}

Error TieredCache::renew(StringRef key, unsigned ttlSeconds) {
  // A local lease also ends when the entry is published (by a read-through
  // copy, say): the cluster's lease, where there is one, is what counts.
  Error localRenewed = local->renew(key, ttlSeconds);
  auto held = leaseTier.find(key.str());
  if (held == leaseTier.end() || !usable(remotes[held->second]))
    return localRenewed;
  llvm::consumeError(std::move(localRenewed));
  return remotes[held->second].storage->renew(key, LeaseOwner::current(),
                                              ttlSeconds * 1000);
}

Error TieredCache::release(StringRef key) {
  auto held = leaseTier.find(key.str());
  if (held != leaseTier.end()) {
    Remote &remote = remotes[held->second];
    if (usable(remote))
      if (Error error = remote.storage->release(key, LeaseOwner::current()))
        disable(remote, std::move(error));
    leaseTier.erase(held);
  }
  return local->release(key);
}

TieredCache::CopyResult TieredCache::push(StringRef key) {
  CopyResult result;
  Expected<LookupResult> found =
      local->lookup(key, /*verify=*/true, /*count=*/false);
  if (!found) {
    result.problem = llvm::toString(found.takeError());
    return result;
  }
  if (found->status != LookupStatus::Hit &&
      found->status != LookupStatus::Failed) {
    result.problem = found->status == LookupStatus::Corrupt
                         ? "the local entry was corrupt: " + found->problem
                     : found->status == LookupStatus::Untrusted
                         ? "the local entry is untrusted: " + found->problem
                         : "not in the local cache";
    return result;
  }
  // With a signing key, what goes out is signed (and replaces the unsigned
  // copies that an earlier push left).
  bool signedNow = false;
  const TrustPolicy *trust = local->getTrustPolicy();
  if (trust && trust->signingKey && !local->isReadOnly()) {
    Expected<bool> signedEntry = local->signEntry(key);
    if (!signedEntry) {
      result.problem = llvm::toString(signedEntry.takeError());
      return result;
    }
    signedNow = *signedEntry;
  }
  writeThrough(key,
               found->status == LookupStatus::Hit ? RemoteEntryKind::Artifact
                                                  : RemoteEntryKind::Failure,
               /*overwrite=*/signedNow, &result);
  return result;
}

TieredCache::CopyResult TieredCache::sign(StringRef key, bool &signedNow) {
  CopyResult result;
  signedNow = false;
  Expected<bool> signedEntry = local->signEntry(key);
  if (!signedEntry) {
    result.problem = llvm::toString(signedEntry.takeError());
    return result;
  }
  signedNow = *signedEntry;
  if (!signedNow || remotes.empty())
    return result;
  // An artifact's file is in objects/; a failure's is its log.
  Expected<std::optional<StoredArtifact>> artifact = local->readArtifact(key);
  bool isArtifact = artifact && *artifact;
  if (!artifact)
    llvm::consumeError(artifact.takeError());
  writeThrough(key,
               isArtifact ? RemoteEntryKind::Artifact
                          : RemoteEntryKind::Failure,
               /*overwrite=*/true, &result);
  return result;
}

TieredCache::CopyResult TieredCache::pull(StringRef key) {
  CopyResult result;
  Expected<LookupResult> here =
      local->lookup(key, /*verify=*/true, /*count=*/false);
  if (here && (here->status == LookupStatus::Hit ||
               here->status == LookupStatus::Failed)) {
    result.present = 1;
    return result;
  }
  if (!here)
    llvm::consumeError(here.takeError());
  Expected<TieredLookup> found =
      lookupTiers(key, /*verify=*/true, true, /*count=*/false);
  if (!found) {
    result.problem = llvm::toString(found.takeError());
    return result;
  }
  if (found->fetched)
    result.copied = 1;
  else if (found->result.status == LookupStatus::Untrusted)
    result.problem = "untrusted: " + found->result.problem;
  else if (found->tier == "local")
    result.problem = "in no remote tier";
  else
    result.problem = "found in " + found->tier +
                     " but not copied into the local cache";
  return result;
}

std::vector<std::string>
TieredCache::listRemoteKeys(std::vector<std::string> &problems) {
  std::vector<std::string> keys;
  for (Remote &remote : remotes) {
    if (!usable(remote))
      continue;
    Expected<std::vector<std::string>> listed = remote.storage->listKeys();
    if (!listed) {
      problems.push_back(remote.storage->getName());
      disable(remote, listed.takeError());
      continue;
    }
    keys.insert(keys.end(), listed->begin(), listed->end());
  }
  llvm::sort(keys);
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

Expected<bool> TieredCache::remove(StringRef key) {
  Expected<bool> removed = local->remove(key);
  if (!removed)
    return removed.takeError();
  bool any = *removed;
  for (Remote &remote : remotes) {
    if (!usable(remote, /*forWriting=*/true))
      continue;
    for (RemoteEntryKind kind :
         {RemoteEntryKind::Artifact, RemoteEntryKind::Failure}) {
      Expected<bool> gone = remote.storage->remove(key, kind);
      if (!gone) {
        disable(remote, gone.takeError());
        break;
      }
      any |= *gone;
    }
  }
  return any;
}
