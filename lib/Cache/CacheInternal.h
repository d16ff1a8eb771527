//===- CacheInternal.h - what the local tier's files share ------*- C++ -*-===//
//
// This file declares the helpers that the files of the local tier (Cache.cpp
// and its siblings: leases, statistics, maintenance, queries) share: rows
// read and deleted the same way everywhere, and a file unlinked only after
// the deletion of its row has committed (see Cache.cpp's file comment).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CACHE_CACHEINTERNAL_H
#define KILN_LIB_CACHE_CACHEINTERNAL_H

#include "kiln/Cache/Cache.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace kiln {
class CacheDirectory;
namespace sqlite {
class Statement;
} // namespace sqlite

namespace cache_detail {

int64_t nowMs();
llvm::Error makeError(const llvm::Twine &message);
/// XXH3-128 and size of an artifact's bytes.
std::pair<std::string, uint64_t> checksumOf(llvm::StringRef bytes);
/// An error unless `key` is 32 lowercase hex digits.
llvm::Error checkKey(llvm::StringRef key);
/// The columns of an entry, in readEntry's order.
extern const char *const kEntryColumns;
/// Reads the entry row at the statement's current position.
CacheEntry readEntry(const sqlite::Statement &row);

/// An entry whose row a transaction deletes; its file goes once that
/// transaction has committed (unlinkRemovedFiles).
struct RemovedEntry {
  std::string key;
  bool isOk;
};
/// Deletes the row of `key`; the caller holds the write lock.
llvm::Error deleteRow(sqlite3 *db, llvm::StringRef key);
/// Unlinks the files of `removed`, whose rows a committed transaction
/// deleted, unless a row names them again.
llvm::Error unlinkRemovedFiles(sqlite3 *db, const CacheDirectory &files,
                               llvm::ArrayRef<RemovedEntry> removed);
/// The one text column that `sql` selects for `key` (bound as ?1).
llvm::Expected<std::optional<std::string>>
readEntryText(sqlite3 *db, const char *sql, llvm::StringRef key);
/// The status of `key`'s entry ("ok" or "failed"), or none.
llvm::Expected<std::optional<std::string>> readEntryStatus(sqlite3 *db,
                                                           llvm::StringRef key);
/// The checksum of `key`'s ok entry, if it has one.
llvm::Expected<std::optional<std::string>> readOkChecksum(sqlite3 *db,
                                                          llvm::StringRef key);

} // namespace cache_detail
} // namespace kiln

#endif // KILN_LIB_CACHE_CACHEINTERNAL_H
