// SQLite reading shared by every SQLite-based format (native, nsys-sqlite, rocpd): an owned
// read connection, prepared queries, schema probes and error mapping.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <initializer_list>
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
  // The file must be a regular file (a FIFO, pipe or device: kIo, base::OpenInputFile); with
  // no journal or WAL file beside it, it is opened immutable (no lock; nothing is created
  // beside it). A file shorter than its header says (cut short) is kData (CheckSqliteSize).
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
  // journal): "<what>: <sqlite message>"; SQLITE_CORRUPT and SQLITE_NOTADB name the damage.
  // A row whose types broke the query's Numbers() (SQLITE_MISMATCH): kData "table <T>, row
  // <R>: column <C> holds text 'x' where an integer belongs" — T is `table` when given, else
  // the column's table.
  base::Status Error(const SqliteQuery& q, std::string_view what,
                     std::string_view table = "") const;

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
  // The next row: SQLITE_ROW, SQLITE_DONE, an error, or SQLITE_MISMATCH for a row whose types
  // break Numbers() (the row stays readable for the error message).
  int Step();
  // Strict types, checked by Step() on every row: each column not in `text` must hold an
  // INTEGER or NULL; those in `real` an INTEGER, a REAL or NULL. Text where a number belongs
  // is never read as 0.
  SqliteQuery& Numbers(std::initializer_list<int> text = {}, std::initializer_list<int> real = {});
  // No check: every column's type (and an integer's value) is read once by Step(), so that
  // Type, IsNull, Int and OptInt of the row cost no SQLite call (the caller checks the types).
  SqliteQuery& Cache();
  // The column that broke Numbers() on the current row, -1 when none.
  int mismatch_column() const { return mismatch_; }
  bool accepts_real(int col) const {
    return col >= 0 && static_cast<size_t>(col) < kinds_.size() &&
           kinds_[static_cast<size_t>(col)] == 2;
  }
  sqlite3_stmt* stmt() const { return stmt_; }
  int rc() const { return rc_; }
  // The columns Numbers() checks are read once by Step() (their type, and an integer's value):
  // Int, IsNull and Type of those come from that copy, the others from SQLite.
  int64_t Int(int col) const {
    if (const int t = CachedType(col); t == SQLITE_INTEGER || t == SQLITE_NULL) {
      return ints_[static_cast<size_t>(col)];
    }
    return sqlite3_column_int64(stmt_, col);
  }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  bool IsNull(int col) const { return Type(col) == SQLITE_NULL; }
  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL.
  int Type(int col) const {
    const int t = CachedType(col);
    return t != 0 ? t : sqlite3_column_type(stmt_, col);
  }
  std::optional<int64_t> OptInt(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col));
  }
  std::string Text(int col) const;
  std::string_view TextView(int col) const;  // valid until the next Step()

 private:
  // The type Step() read for column `col` of the current row; 0 when it read none.
  int CachedType(int col) const {
    return static_cast<size_t>(col) < types_.size() ? types_[static_cast<size_t>(col)] : 0;
  }

  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
  static constexpr uint8_t kCacheOnly = 3;
  std::vector<uint8_t> kinds_;  // per column: 0 any, 1 integer, 2 integer or real, kCacheOnly
  std::vector<uint8_t> types_;  // per column of the current row: its type as Step() read it, or 0
  std::vector<int64_t> ints_;   // per column: its value when types_ says INTEGER (NULL: 0)
  int mismatch_ = -1;
};

// Checks the size of the SQLite file at `path` against its header: a file shorter than the
// header's page count × page size (or, when that count is stale, not a whole number of pages)
// is cut short. Errors (kData, where = path): "the database is cut short: ..."; an impossible
// page size. A file that does not start like an SQLite database passes (SQLite says why).
base::Status CheckSqliteSize(const std::string& path);

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
