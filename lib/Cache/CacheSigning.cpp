//===- CacheSigning.cpp - signing the local tier's entries ------*- C++ -*-===//
//
// This file implements Cache::signEntry: an entry cached before its writer
// had a key (or read through from another tier) gets the signing key's
// signature. The payload, and so the row, stays as it is; the file is
// written anew with the signature in its header and renamed over the old
// one under the write lock, so a reader sees either file whole.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Cache.h"

#include "CacheDirectory.h"
#include "CacheInternal.h"
#include "Sqlite.h"
#include "kiln/Cache/Signing.h"

using namespace kiln;
using namespace kiln::cache_detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

Expected<bool> Cache::signEntry(StringRef key) {
  if (Error error = checkKey(key))
    return std::move(error);
  if (readOnly)
    return makeError("the cache at " + directory + " is read-only");
  if (!trust || !trust->signingKey)
    return makeError("no signing key (signing-key, KILN_SIGNING_KEY or "
                     "--signing-key)");
  Expected<std::optional<std::string>> status = readEntryStatus(db, key);
  if (!status)
    return status.takeError();
  if (!*status)
    return false;
  bool ok = **status == "ok";
  Expected<std::optional<StoredArtifact>> stored =
      ok ? readArtifact(key) : readLog(key);
  if (!stored)
    return stored.takeError();
  if (!*stored)
    return false;
  StoredArtifact &entry = **stored;
  // Only bytes that are the entry's are signed: a file that fails its
  // checksum is corrupt, not vouched for.
  std::string checksum = Hash128::of(entry.bytes).toHex();
  std::optional<std::string> indexed;
  if (ok) {
    Expected<std::optional<std::string>> row = readOkChecksum(db, key);
    if (!row)
      return row.takeError();
    indexed = *row;
  }
  if (checksum != entry.header.checksum || (ok && indexed != checksum))
    return makeError((ok ? getObjectPath(key) : getLogPath(key)) +
                     ": its checksum does not match; not signed ('kiln "
                     "cache verify --repair' removes it)");
  ArtifactHeader header = entry.header;
  trust->sign(header, entry.bytes);
  // ed25519 signatures are deterministic: the same one is there already.
  if (header.signatures == entry.header.signatures)
    return false;
  std::string headerBytes = encodeArtifactHeader(header);
  Expected<std::string> staged =
      files->stage(ok ? key : (key + ".log").str(), {headerBytes, entry.bytes},
                   options.testHooks.failWritesAfterBytes);
  if (!staged)
    return staged.takeError();
  sqlite::WriteTransaction transaction(db);
  if (Error error = transaction.begin()) {
    files->dropStaged(*staged);
    return std::move(error);
  }
  // Replaced or removed since it was read: that entry is not signed.
  Expected<std::optional<std::string>> now =
      ok ? readOkChecksum(db, key) : readEntryStatus(db, key);
  if (!now) {
    files->dropStaged(*staged);
    return now.takeError();
  }
  if (!*now || (ok && **now != checksum) || (!ok && **now != "failed")) {
    files->dropStaged(*staged);
    return false;
  }
  if (Error error = ok ? files->moveStagedToObject(*staged, key, true)
                       : files->moveStagedToLog(*staged, key))
    return std::move(error);
  if (Error error = transaction.commit())
    return std::move(error);
  return true;
}
