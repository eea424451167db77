#include "src/io/common/sqlite_db.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "src/base/file_io.h"
#include "src/io/common/input_stream.h"

namespace decodeprof::io {

namespace {

bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// "file:" URI of `path` (every byte outside [A-Za-z0-9/._~-] percent-encoded).
std::string FileUri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  // An absolute path gets an empty authority ("file:///..."), so that "//x" is no host name.
  std::string uri = !path.empty() && path[0] == '/' ? "file://" : "file:";
  for (const char c : path) {
    const auto b = static_cast<unsigned char>(c);
    if (std::isalnum(b) != 0 || c == '/' || c == '.' || c == '_' || c == '~' || c == '-') {
      uri += c;
    } else {
      uri += '%';
      uri += kHex[b >> 4];
      uri += kHex[b & 0xf];
    }
  }
  return uri;
}

uint32_t BigEndian(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

base::Status CheckSqliteSize(const std::string& path) {
  DP_ASSIGN_OR_RETURN(const int fd, base::OpenInputFile(path));
  unsigned char h[100];
  const ssize_t n = ::pread(fd, h, sizeof h, 0);
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof h) || !stat_ok ||
      !LooksLikeSqlite(std::string_view(reinterpret_cast<const char*>(h), sizeof h))) {
    return base::OkStatus();  // SQLite itself says what is wrong
  }
  uint64_t page = BigEndian(h + 16, 2);
  if (page == 1) page = 65536;
  if (page < 512 || page > 65536 || (page & (page - 1)) != 0) {
    return base::DataError(path, "the database is corrupt: its header gives a page size of " +
                                     std::to_string(page) + " bytes");
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  // The page count in the header is valid when the change counter (bytes 24..27) equals the
  // version-valid-for number (bytes 92..95); older writers leave it stale.
  const uint64_t pages = BigEndian(h + 28, 4);
  const bool valid = pages != 0 && BigEndian(h + 24, 4) == BigEndian(h + 92, 4);
  if (valid) {
    if (size >= pages * page) return base::OkStatus();
    return base::DataError(path,
                           "the database is cut short: its header gives " + std::to_string(pages) +
                               " pages of " + std::to_string(page) + " bytes (" +
                               std::to_string(pages * page) + " bytes), the file has " +
                               std::to_string(size) + " bytes",
                           "was the file copied or written completely? Copy or export it again");
  }
  if (size % page != 0) {
    return base::DataError(path,
                           "the database is cut short: its " + std::to_string(size) +
                               " bytes are not a whole number of " + std::to_string(page) +
                               "-byte pages",
                           "was the file copied or written completely? Copy or export it again");
  }
  return base::OkStatus();
}

base::StatusOr<SqliteDb> SqliteDb::Open(const std::string& path) {
  // A regular file only: a FIFO, pipe or device is refused at once (SQLite needs random access).
  DP_RETURN_IF_ERROR(base::CheckInputFile(path));
  if (const Compression c = FileCompression(path); c != Compression::kNone) {
    return CompressedSqliteError(path, c);
  }
  SqliteDb db(path);
  // Without a journal or WAL file beside it the file is opened immutable: no lock, no file is
  // ever created beside it. A journal left by a killed writer is rolled back (read-write).
  const bool journal = Exists(path + "-journal") || Exists(path + "-wal");
  if (!journal) DP_RETURN_IF_ERROR(CheckSqliteSize(path));
  std::vector<std::pair<std::string, int>> attempts;
  if (!journal) {
    attempts.emplace_back(FileUri(path) + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  } else {
    attempts.emplace_back(path, SQLITE_OPEN_READONLY);
    attempts.emplace_back(path, SQLITE_OPEN_READWRITE);
  }
  // A connection is used by one thread at a time: no mutex around each of its calls (every
  // column read took two).
  for (auto& attempt : attempts) attempt.second |= SQLITE_OPEN_NOMUTEX;
  bool opened = false;
  for (const auto& [name, flags] : attempts) {
    sqlite3_close(db.db_);
    db.db_ = nullptr;
    if (sqlite3_open_v2(name.c_str(), &db.db_, flags, nullptr) != SQLITE_OK) {
      return base::IoError(path, std::string("cannot open: ") + sqlite3_errmsg(db.db_));
    }
    sqlite3_extended_result_codes(db.db_, 1);
    SqliteQuery probe(db, "SELECT count(*) FROM sqlite_master");
    if (probe.prepared() && probe.Step() == SQLITE_ROW) {
      opened = true;
      break;
    }
    if (sqlite3_extended_errcode(db.db_) != SQLITE_READONLY_ROLLBACK ||
        (flags & SQLITE_OPEN_READWRITE) != 0) {
      return db.Error(probe, "cannot read");
    }
  }
  if (!opened) return base::InternalError(path, "no way to open the database");
  // After a rollback: the file as it is now.
  if (journal) DP_RETURN_IF_ERROR(CheckSqliteSize(path));
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

namespace {

// A value as a message shows it: "text 'many'", "a blob of 4 bytes", "the real number 1.5".
std::string DescribeValue(sqlite3_stmt* stmt, int col) {
  switch (sqlite3_column_type(stmt, col)) {
    case SQLITE_TEXT: {
      const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, col));
      const auto n = static_cast<size_t>(sqlite3_column_bytes(stmt, col));
      std::string shown;
      for (size_t i = 0; i < n && i < 40; ++i) {
        const auto b = static_cast<unsigned char>(p[i]);
        shown += b < 0x20 || b == 0x7f ? '?' : p[i];
      }
      return "text '" + shown + (n > 40 ? "...'" : "'");
    }
    case SQLITE_BLOB:
      return "a blob of " + std::to_string(sqlite3_column_bytes(stmt, col)) + " bytes";
    case SQLITE_FLOAT:
      return "the real number " + std::to_string(sqlite3_column_double(stmt, col));
    default:
      return "a value";
  }
}

bool NamedId(const char* name) {
  if (name == nullptr) return false;
  const std::string_view n(name);
  return n.size() <= 5 && (sqlite3_stricmp(name, "rowid") == 0 || sqlite3_stricmp(name, "id") == 0);
}

std::string Quoted(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

base::Status SqliteDb::Error(const SqliteQuery& q, std::string_view what,
                             std::string_view table) const {
  if (q.rc() == SQLITE_MISMATCH && q.mismatch_column() >= 0) {
    sqlite3_stmt* stmt = q.stmt();
    const int col = q.mismatch_column();
    sqlite3_value* value = sqlite3_column_value(stmt, col);
    // The query's id or rowid column, and the table it comes from.
    std::optional<int64_t> id;
    std::string id_table;
    for (int c = 0; c < sqlite3_column_count(stmt) && !id; ++c) {
      if (c != col && NamedId(sqlite3_column_name(stmt, c)) &&
          sqlite3_column_type(stmt, c) == SQLITE_INTEGER) {
        id = sqlite3_column_int64(stmt, c);
        if (const char* t = sqlite3_column_table_name(stmt, c)) id_table = t;
      }
    }
    std::string table_name, column;
    std::optional<int64_t> row;
    // A compound query names the row's own table (`table`): find the column of that row that
    // holds the value (the column metadata of a UNION is its first SELECT's).
    if (!table.empty() && id) {
      for (const char* key : {"rowid", "id"}) {
        sqlite3_stmt* find = nullptr;
        const std::string sql =
            "SELECT * FROM " + Quoted(table) + " WHERE " + key + " = " + std::to_string(*id);
        if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &find, nullptr) == SQLITE_OK &&
            sqlite3_step(find) == SQLITE_ROW) {
          for (int c = 0; c < sqlite3_column_count(find) && column.empty(); ++c) {
            sqlite3_value* v = sqlite3_column_value(find, c);
            if (sqlite3_value_type(v) == sqlite3_value_type(value) &&
                sqlite3_value_bytes(v) == sqlite3_value_bytes(value) &&
                std::memcmp(sqlite3_value_blob(v), sqlite3_value_blob(value),
                            static_cast<size_t>(sqlite3_value_bytes(v))) == 0) {
              column = sqlite3_column_name(find, c);
            }
          }
        }
        sqlite3_finalize(find);
        if (!column.empty()) {
          table_name = table;
          row = id;
          break;
        }
      }
    }
    if (column.empty()) {
      // The column's origin (a joined table's own), else what the query calls it.
      const char* origin = sqlite3_column_origin_name(stmt, col);
      const char* origin_table = sqlite3_column_table_name(stmt, col);
      column = origin != nullptr ? origin : sqlite3_column_name(stmt, col);
      table_name = origin_table != nullptr ? origin_table : std::string(table);
      if (id && (id_table.empty() || id_table == table_name)) row = id;
      if (!row && origin != nullptr && !table_name.empty()) {
        // The first row of that table holding the value in that column.
        sqlite3_stmt* find = nullptr;
        const std::string sql = "SELECT rowid FROM " + Quoted(table_name) + " WHERE " +
                                Quoted(origin) + " IS ?1 LIMIT 1";
        if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &find, nullptr) == SQLITE_OK &&
            sqlite3_bind_value(find, 1, value) == SQLITE_OK && sqlite3_step(find) == SQLITE_ROW) {
          row = sqlite3_column_int64(find, 0);
        }
        sqlite3_finalize(find);
      }
    }
    std::string row_text = row ? ", row " + std::to_string(*row) : std::string();
    for (int c = 0; c < sqlite3_column_count(stmt) && row_text.empty(); ++c) {
      // A table without rowid (a key-value table): the row of its text key.
      if (c != col && sqlite3_column_type(stmt, c) == SQLITE_TEXT) {
        row_text = std::string(", row ") + sqlite3_column_name(stmt, c) + " = " +
                   DescribeValue(stmt, c).substr(5);
      }
    }
    const bool real = q.accepts_real(col);
    return base::DataError(
        path_,
        (table_name.empty() ? std::string(what) : "table " + table_name) + row_text + ": column " +
            column + " holds " + DescribeValue(stmt, col) + " where " +
            (real ? "a number" : "an integer") + " belongs",
        "the file was written or edited by something other than its recorder; export it again");
  }
  const int rc = q.rc() != SQLITE_OK ? q.rc() : sqlite3_extended_errcode(db_);
  std::string message = std::string(what) + ": " + sqlite3_errmsg(db_);
  if ((rc & 0xff) == SQLITE_NOTADB) return base::DataError(path_, "not an SQLite database");
  if ((rc & 0xff) == SQLITE_CORRUPT) {
    return base::DataError(path_, "the database is corrupt: " + message,
                           "was the file copied or written completely? Copy or export it again");
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

int SqliteQuery::Step() {
  mismatch_ = -1;
  std::fill(types_.begin(), types_.end(), uint8_t{0});
  rc_ = sqlite3_step(stmt_);
  if (rc_ != SQLITE_ROW) return rc_;
  for (size_t c = 0; c < kinds_.size(); ++c) {
    if (kinds_[c] == 0) continue;
    const int col = static_cast<int>(c);
    // One API call per checked column (the value's type and integer are plain reads of it):
    // the row's later Int(c) calls cost no SQLite call.
    sqlite3_value* value = sqlite3_column_value(stmt_, col);
    const int type = sqlite3_value_type(value);
    if (type == SQLITE_INTEGER || type == SQLITE_NULL) {
      ints_[c] = type == SQLITE_INTEGER ? sqlite3_value_int64(value) : 0;
      types_[c] = static_cast<uint8_t>(type);
      continue;
    }
    if (type == SQLITE_FLOAT && kinds_[c] == 2) continue;
    mismatch_ = col;
    std::fill(types_.begin(), types_.end(), uint8_t{0});
    return rc_ = SQLITE_MISMATCH;
  }
  return rc_;
}

SqliteQuery& SqliteQuery::Numbers(std::initializer_list<int> text,
                                  std::initializer_list<int> real) {
  if (stmt_ == nullptr) return *this;
  kinds_.assign(static_cast<size_t>(sqlite3_column_count(stmt_)), 1);
  types_.assign(kinds_.size(), 0);
  ints_.assign(kinds_.size(), 0);
  for (const int c : text) {
    if (c >= 0 && static_cast<size_t>(c) < kinds_.size()) kinds_[static_cast<size_t>(c)] = 0;
  }
  for (const int c : real) {
    if (c >= 0 && static_cast<size_t>(c) < kinds_.size()) kinds_[static_cast<size_t>(c)] = 2;
  }
  return *this;
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
