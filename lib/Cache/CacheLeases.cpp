//===- CacheLeases.cpp - leases of the local tier ----------------*- C++ -*-===//
//
// This file implements the local tier's leases: a process claims a key in a
// BEGIN IMMEDIATE transaction before compiling it, so that processes on this
// host compile each graph once; a lease whose owner died (its pid is gone,
// or it expired) is taken over.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Cache.h"
#include "kiln/Cache/Signing.h"

#include "CacheDirectory.h"
#include "CacheInternal.h"
#include "Sqlite.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <cerrno>
#include <csignal>
#include <unistd.h>

using namespace kiln;
using namespace kiln::cache_detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

bool Cache::isLeaseLive(StringRef host, int64_t pid, int64_t expiresMs,
                        int64_t now) const {
  if (expiresMs <= now)
    return false;
  // On this host a dead owner is known at once.
  if (host == hostName && pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH)
    return false;
  return true;
}

Expected<ClaimStatus> Cache::claim(StringRef key, unsigned ttlSeconds,
                                   bool retryFailed, bool replaceExisting) {
  if (Error error = checkKey(key))
    return std::move(error);
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  // An entry without a trusted signature, where the local tier needs one,
  // is no finished entry: it is compiled again and replaced.
  bool untrusted = false;
  if (trust && trust->requiresSignature(/*fromRemote=*/false)) {
    Expected<std::optional<StoredArtifact>> stored = readArtifact(key);
    if (stored && !*stored)
      stored = readLog(key);
    if (!stored)
      llvm::consumeError(stored.takeError());
    else if (*stored)
      untrusted = bool(trust->refuse((*stored)->header, (*stored)->bytes,
                                     /*fromRemote=*/false));
  }
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin())
    return std::move(error);
  Expected<std::optional<std::string>> status = readEntryStatus(db, key);
  if (!status)
    return status.takeError();
  if (*status && (**status == "ok" ? !replaceExisting : !retryFailed) &&
      !untrusted)
    return ClaimStatus::AlreadyDone;

  int64_t now = nowMs();
  sqlite::Statement lease(
      db, "SELECT host, pid, expires_ms FROM leases WHERE key = ?1");
  if (Error error = lease.takePrepareError())
    return std::move(error);
  lease.bind(1, key);
  Expected<bool> held = lease.step();
  if (!held)
    return held.takeError();
  if (*held) {
    std::string host = lease.getText(0);
    int64_t pid = lease.getInt(1);
    bool mine = host == hostName && pid == getpid();
    if (!mine && isLeaseLive(host, pid, lease.getInt(2), now))
      return ClaimStatus::HeldElsewhere;
  }
  sqlite::Statement take(db, "INSERT OR REPLACE INTO leases (key, host, pid, "
                             "acquired_ms, expires_ms) VALUES (?1, ?2, ?3, "
                             "?4, ?5)");
  if (Error error = take.takePrepareError())
    return std::move(error);
  take.bind(1, key)
      .bind(2, hostName)
      .bind(3, (int64_t)getpid())
      .bind(4, now)
      .bind(5, now + (int64_t)ttlSeconds * 1000);
  if (Error error = take.run())
    return std::move(error);
  if (Error error = transaction.commit())
    return std::move(error);
  return ClaimStatus::Claimed;
}

Error Cache::renew(StringRef key, unsigned ttlSeconds) {
  if (Error error = checkKey(key))
    return error;
  sqlite::Statement renew(db, "UPDATE leases SET expires_ms = ?4 WHERE key = "
                              "?1 AND host = ?2 AND pid = ?3");
  if (Error error = renew.takePrepareError())
    return error;
  renew.bind(1, key)
      .bind(2, hostName)
      .bind(3, (int64_t)getpid())
      .bind(4, nowMs() + (int64_t)ttlSeconds * 1000);
  if (Error error = renew.run())
    return error;
  if (sqlite3_changes(db) == 0)
    return makeError("no lease on " + key + " held by this process");
  return Error::success();
}

Error Cache::release(StringRef key) {
  if (Error error = checkKey(key))
    return error;
  sqlite::Statement release(
      db, "DELETE FROM leases WHERE key = ?1 AND host = ?2 AND pid = ?3");
  if (Error error = release.takePrepareError())
    return error;
  release.bind(1, key).bind(2, hostName).bind(3, (int64_t)getpid());
  return release.run();
}

