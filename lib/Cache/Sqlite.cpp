//===- Sqlite.cpp - small RAII layer over the SQLite C API ------*- C++ -*-===//
//
// This file implements the SQLite helpers of the cache index.
//
//===----------------------------------------------------------------------===//

#include "Sqlite.h"

#include <chrono>
#include <thread>

using namespace kiln;
using namespace kiln::sqlite;

/// How often a statement that still meets SQLITE_BUSY after the connection's
/// busy timeout is retried. With a 60 s timeout this is minutes of waiting,
/// which only a wedged peer can exhaust.
static constexpr int kBusyRetries = 20;

static bool isBusy(int result) {
  int primary = result & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

static void backOff(int attempt) {
  std::this_thread::sleep_for(
      std::chrono::milliseconds(5 << std::min(attempt, 8)));
}

llvm::Error sqlite::makeError(sqlite3 *db, llvm::StringRef what) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(), "cache index: %s: %s", what.str().c_str(),
      db ? sqlite3_errmsg(db) : "cannot open database");
}

llvm::Error sqlite::execute(sqlite3 *db, llvm::StringRef sql) {
  std::string text = sql.str();
  for (int attempt = 0;; ++attempt) {
    char *message = nullptr;
    int result = sqlite3_exec(db, text.c_str(), nullptr, nullptr, &message);
    if (result == SQLITE_OK)
      return llvm::Error::success();
    std::string error = message ? message : sqlite3_errstr(result);
    sqlite3_free(message);
    if (isBusy(result) && attempt < kBusyRetries) {
      backOff(attempt);
      continue;
    }
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cache index: %s: %s",
                                   text.substr(0, 60).c_str(), error.c_str());
  }
}

Statement::Statement(sqlite3 *db, llvm::StringRef sql) : db(db), sql(sql) {
  for (int attempt = 0;; ++attempt) {
    prepareResult =
        sqlite3_prepare_v2(db, this->sql.c_str(), -1, &statement, nullptr);
    if (!isBusy(prepareResult) || attempt >= kBusyRetries)
      break;
    backOff(attempt);
  }
}

Statement::~Statement() { sqlite3_finalize(statement); }

llvm::Error Statement::takePrepareError() {
  if (prepareResult == SQLITE_OK)
    return llvm::Error::success();
  return makeError(db, "preparing '" + sql.substr(0, 60) + "'");
}

Statement &Statement::bind(int index, llvm::StringRef text) {
  sqlite3_bind_text(statement, index, text.data(), text.size(),
                    SQLITE_TRANSIENT);
  return *this;
}

Statement &Statement::bind(int index, int64_t value) {
  sqlite3_bind_int64(statement, index, value);
  return *this;
}

Statement &Statement::bind(int index, double value) {
  sqlite3_bind_double(statement, index, value);
  return *this;
}

Statement &Statement::bindBlob(int index, llvm::ArrayRef<uint64_t> words) {
  sqlite3_bind_blob(statement, index, words.data(),
                    words.size() * sizeof(uint64_t), SQLITE_TRANSIENT);
  return *this;
}

llvm::Expected<bool> Statement::step() {
  for (int attempt = 0;; ++attempt) {
    int result = sqlite3_step(statement);
    if (result == SQLITE_ROW)
      return true;
    if (result == SQLITE_DONE)
      return false;
    if (isBusy(result) && attempt < kBusyRetries) {
      sqlite3_reset(statement);
      backOff(attempt);
      continue;
    }
    return makeError(db, "running '" + sql.substr(0, 60) + "'");
  }
}

llvm::Error Statement::run() {
  llvm::Expected<bool> row = step();
  if (!row)
    return row.takeError();
  return llvm::Error::success();
}

llvm::Error Statement::forEachRow(llvm::function_ref<llvm::Error()> visit) {
  while (true) {
    llvm::Expected<bool> row = step();
    if (!row)
      return row.takeError();
    if (!*row)
      return llvm::Error::success();
    if (llvm::Error error = visit())
      return error;
  }
}

int64_t Statement::getInt(int column) const {
  return sqlite3_column_int64(statement, column);
}

double Statement::getDouble(int column) const {
  return sqlite3_column_double(statement, column);
}

std::string Statement::getText(int column) const {
  const unsigned char *text = sqlite3_column_text(statement, column);
  return text ? std::string(reinterpret_cast<const char *>(text),
                            sqlite3_column_bytes(statement, column))
              : std::string();
}

std::vector<uint64_t> Statement::getWords(int column) const {
  const void *blob = sqlite3_column_blob(statement, column);
  size_t bytes = sqlite3_column_bytes(statement, column);
  std::vector<uint64_t> words(bytes / sizeof(uint64_t));
  if (blob && !words.empty())
    memcpy(words.data(), blob, words.size() * sizeof(uint64_t));
  return words;
}

WriteTransaction::~WriteTransaction() {
  if (open)
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
}

llvm::Error WriteTransaction::begin() {
  if (llvm::Error error = execute(db, "BEGIN IMMEDIATE"))
    return error;
  open = true;
  return llvm::Error::success();
}

llvm::Error WriteTransaction::commit() {
  if (llvm::Error error = execute(db, "COMMIT"))
    return error;
  open = false;
  return llvm::Error::success();
}

void sqlite::Statement::reset() {
  if (statement) {
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
  }
}
