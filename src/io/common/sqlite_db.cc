#include "src/io/common/sqlite_db.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "src/io/common/input_stream.h"

namespace decodeprof::io {

base::StatusOr<SqliteDb> SqliteDb::Open(const std::string& path) {
  if (::access(path.c_str(), R_OK) != 0) {
    return base::IoError(path, std::string("cannot open: ") + std::strerror(errno));
  }
  if (const Compression c = FileCompression(path); c != Compression::kNone) {
    return CompressedSqliteError(path, c);
  }
  SqliteDb db(path);
  for (int flags : {SQLITE_OPEN_READONLY, SQLITE_OPEN_READWRITE}) {
    sqlite3_close(db.db_);
    db.db_ = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db.db_, flags, nullptr) != SQLITE_OK) {
      return base::IoError(path, std::string("cannot open: ") + sqlite3_errmsg(db.db_));
    }
    sqlite3_extended_result_codes(db.db_, 1);
    SqliteQuery probe(db, "SELECT count(*) FROM sqlite_master");
    if (probe.prepared() && probe.Step() == SQLITE_ROW) return db;
    if (sqlite3_extended_errcode(db.db_) != SQLITE_READONLY_ROLLBACK ||
        flags == SQLITE_OPEN_READWRITE) {
      return db.Error(probe, "cannot read");
    }
  }
  return db;
}

base::Status CompressedSqliteError(const std::string& path, Compression c) {
  return base::DataError(path,
                         "the file is " + std::string(CompressionName(c)) +
                             "-compressed; an SQLite file (nsys, rocpd and native traces) is "
                             "read only uncompressed",
                         "decompress it first; decodeprof decompresses only text traces "
                         "(docs/trace-formats.md)");
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

base::StatusOr<std::vector<std::string>> SqliteDb::TableNames() const {
  SqliteQuery q(*this, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY 1");
  std::vector<std::string> out;
  while (q.Step() == SQLITE_ROW) out.push_back(q.Text(0));
  if (q.rc() != SQLITE_DONE) return Error(q, "cannot read the schema");
  return out;
}

bool SqliteDb::HasTable(std::string_view table) const {
  SqliteQuery q(*this, "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = '" +
                           std::string(table) + "'");
  return q.Step() == SQLITE_ROW;
}

std::vector<std::string> SqliteDb::Columns(std::string_view table) const {
  std::vector<std::string> out;
  SqliteQuery q(*this, "SELECT name FROM pragma_table_info('" + std::string(table) + "')");
  while (q.Step() == SQLITE_ROW) out.push_back(q.Text(0));
  return out;
}

bool SqliteDb::HasColumn(std::string_view table, std::string_view column) const {
  for (const std::string& c : Columns(table)) {
    if (c == column) return true;
  }
  return false;
}

base::Status SqliteDb::Error(const SqliteQuery& q, std::string_view what) const {
  const int rc = q.rc() != SQLITE_OK ? q.rc() : sqlite3_extended_errcode(db_);
  std::string message = std::string(what) + ": " + sqlite3_errmsg(db_);
  if ((rc & 0xff) == SQLITE_NOTADB) return base::DataError(path_, "not an SQLite database");
  if ((rc & 0xff) == SQLITE_CORRUPT) {
    return base::DataError(path_, "the database is corrupt: " + message);
  }
  if ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN) {
    return base::IoError(path_, message,
                         "the file has a journal left by a killed recorder; reading it needs "
                         "write access to the file and its directory");
  }
  return base::DataError(path_, std::move(message));
}

SqliteQuery::SqliteQuery(const SqliteDb& db, const std::string& sql) {
  rc_ = sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &stmt_, nullptr);
}

std::string SqliteQuery::Text(int col) const { return std::string(TextView(col)); }

std::string_view SqliteQuery::TextView(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  if (p == nullptr) return {};
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

bool LooksLikeSqlite(std::string_view head) {
  static constexpr std::string_view kMagic("SQLite format 3\0", 16);
  return head.substr(0, kMagic.size()) == kMagic;
}

}  // namespace decodeprof::io
