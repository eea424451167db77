// SQLite reading shared by every SQLite-based format (native, nsys-sqlite, rocpd): an owned
// read connection, prepared queries, schema probes and error mapping.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/status.h"
#include "src/io/common/input_stream.h"
#include "src/trace/diagnostics.h"

namespace decodeprof::io {

class SqliteQuery;

// A read connection to an SQLite file. Opened read-only; a hot journal left by a killed
// writer needs a writable connection to be rolled back, so that is retried read-write.
class SqliteDb {
 public:
  // Errors: kIo (missing / unreadable file, a journal that cannot be rolled back), kData (not
  // an SQLite database, corrupt; a gzip / zstd / xz / ... compressed file:
  // CompressedSqliteError — SQLite needs random access, so decodeprof does not decompress it).
  static base::StatusOr<SqliteDb> Open(const std::string& path);
  SqliteDb(SqliteDb&& other) noexcept : path_(std::move(other.path_)), db_(other.db_) {
    other.db_ = nullptr;
  }
  SqliteDb& operator=(SqliteDb&&) = delete;
  SqliteDb(const SqliteDb&) = delete;
  ~SqliteDb();

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

  // Names of every table and view.
  base::StatusOr<std::vector<std::string>> TableNames() const;
  bool HasTable(std::string_view table) const;
  // Column names of `table` (empty when it does not exist).
  std::vector<std::string> Columns(std::string_view table) const;
  bool HasColumn(std::string_view table, std::string_view column) const;

  // The error of a failed query as a Status on this file (kData; kIo for a read-only
  // journal): "<what>: <sqlite message>".
  base::Status Error(const SqliteQuery& q, std::string_view what) const;

 private:
  explicit SqliteDb(std::string path) : path_(std::move(path)) {}
  std::string path_;
  sqlite3* db_ = nullptr;
};

// One prepared statement. Step() until it returns something other than SQLITE_ROW; then
// rc() == SQLITE_DONE means every row was read.
class SqliteQuery {
 public:
  SqliteQuery(const SqliteDb& db, const std::string& sql);
  ~SqliteQuery() { sqlite3_finalize(stmt_); }
  SqliteQuery(const SqliteQuery&) = delete;
  SqliteQuery& operator=(const SqliteQuery&) = delete;

  bool prepared() const { return stmt_ != nullptr && rc_ == SQLITE_OK; }
  int Step() { return rc_ = sqlite3_step(stmt_); }
  int rc() const { return rc_; }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL.
  int Type(int col) const { return sqlite3_column_type(stmt_, col); }
  std::optional<int64_t> OptInt(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col));
  }
  std::string Text(int col) const;
  std::string_view TextView(int col) const;  // valid until the next Step()

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

// The refusal of a compressed SQLite file (kData, where = path): it must be decompressed first.
base::Status CompressedSqliteError(const std::string& path, Compression c);

// True if `head` (a file's first bytes, at least 16) starts like an SQLite database.
bool LooksLikeSqlite(std::string_view head);

// Counts the schema variants an SQLite importer met (columns or tables a version lacks) as
// one schema_variant diagnostic whose detail lists them; nothing when there are none.
inline void AddSchemaVariants(trace::Diagnostics& diagnostics, const std::string& path,
                              const std::vector<std::string>& variants) {
  if (variants.empty()) return;
  std::string detail;
  for (const std::string& v : variants) detail += (detail.empty() ? "" : "; ") + v;
  diagnostics.Add(trace::Diag::kSchemaVariant, static_cast<int64_t>(variants.size()),
                  {path, "", detail});
}

}  // namespace decodeprof::io
