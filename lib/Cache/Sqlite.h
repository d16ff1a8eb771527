//===- Sqlite.h - small RAII layer over the SQLite C API --------*- C++ -*-===//
//
// This file declares prepared statements and write transactions for the
// cache index. Every failure comes back as an llvm::Error naming the SQL and
// SQLite's message; SQLITE_BUSY is retried here so that it never reaches a
// user.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CACHE_SQLITE_H
#define KILN_LIB_CACHE_SQLITE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <sqlite3.h>

namespace kiln {
namespace sqlite {

/// An error carrying SQLite's message for `db`.
llvm::Error makeError(sqlite3 *db, llvm::StringRef what);

/// Runs SQL without results (several statements allowed).
llvm::Error execute(sqlite3 *db, llvm::StringRef sql);

/// A prepared statement; bind with 1-based indices, read with 0-based.
class Statement {
public:
  Statement(sqlite3 *db, llvm::StringRef sql);
  ~Statement();
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;

  /// The error from preparing, if any; check before use.
  llvm::Error takePrepareError();

  Statement &bind(int index, llvm::StringRef text);
  Statement &bind(int index, int64_t value);
  Statement &bind(int index, double value);
  Statement &bindBlob(int index, llvm::ArrayRef<uint64_t> words);

  /// Advances; true when a row is available, false when done.
  llvm::Expected<bool> step();
  /// Steps a statement that returns no rows.
  llvm::Error run();
  /// Makes the statement ready to be bound and run again.
  void reset();
  /// Calls `visit` at each row until the rows end or `visit` fails.
  llvm::Error forEachRow(llvm::function_ref<llvm::Error()> visit);

  int64_t getInt(int column) const;
  double getDouble(int column) const;
  std::string getText(int column) const;
  std::vector<uint64_t> getWords(int column) const;

private:
  sqlite3 *db;
  sqlite3_stmt *statement = nullptr;
  std::string sql;
  int prepareResult = SQLITE_OK;
};

/// A write transaction started with BEGIN IMMEDIATE, so that two writers
/// never both read and then deadlock upgrading; rolled back unless
/// committed.
class WriteTransaction {
public:
  explicit WriteTransaction(sqlite3 *db) : db(db) {}
  ~WriteTransaction();
  llvm::Error begin();
  llvm::Error commit();

private:
  sqlite3 *db;
  bool open = false;
};

} // namespace sqlite
} // namespace kiln

#endif // KILN_LIB_CACHE_SQLITE_H
