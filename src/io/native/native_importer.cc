#include "src/io/native/native_importer.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cxxabi.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "src/native_format/schema.h"

namespace decodeprof::io {
namespace {

namespace nf = native_format;

// Owns the connection; declared before any Query so that it is closed after them.
struct Db {
  ~Db() { sqlite3_close(db_); }
  sqlite3* db_ = nullptr;
};

class Query {
 public:
  Query(sqlite3* db, const std::string& sql) {
    rc_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr);
  }
  ~Query() { sqlite3_finalize(stmt_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  bool prepared() const { return rc_ == SQLITE_OK; }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return rc_ = sqlite3_step(stmt_); }
  int rc() const { return rc_; }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string Text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p == nullptr ? std::string()
                        : std::string(reinterpret_cast<const char*>(p),
                                      static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

// Maps file string ids to pool ids, interning on first use.
class Strings {
 public:
  Strings(std::vector<std::string> texts, trace::StringPool& pool)
      : texts_(std::move(texts)), ids_(texts_.size(), kUnset), pool_(pool) {}
  std::optional<trace::StringId> Get(int64_t file_id) {
    if (file_id < 1 || static_cast<size_t>(file_id) > texts_.size()) return std::nullopt;
    int64_t& slot = ids_[static_cast<size_t>(file_id - 1)];
    if (slot == kUnset) slot = pool_.Intern(texts_[static_cast<size_t>(file_id - 1)]);
    return static_cast<trace::StringId>(slot);
  }

  // A kernel name: demangled when the recorder had to leave it mangled (CUPTI's demangler
  // gives up on some very long CUTLASS template names), so classes and reports see the
  // same spelling as for every other kernel.
  std::optional<trace::StringId> GetKernelName(int64_t file_id) {
    if (file_id < 1 || static_cast<size_t>(file_id) > texts_.size()) return std::nullopt;
    int64_t& slot = kernel_ids_[static_cast<size_t>(file_id - 1)];
    if (slot == kUnset) {
      const std::string& text = texts_[static_cast<size_t>(file_id - 1)];
      slot = pool_.Intern(text.rfind("_Z", 0) == 0 ? Demangle(text) : text);
    }
    return static_cast<trace::StringId>(slot);
  }

 private:
  static std::string Demangle(const std::string& mangled) {
    int status = 0;
    char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    std::string out = (status == 0 && text != nullptr) ? std::string(text) : mangled;
    std::free(text);
    return out;
  }

  static constexpr int64_t kUnset = -1;
  std::vector<std::string> texts_;
  std::vector<int64_t> ids_;
  std::vector<int64_t> kernel_ids_ = std::vector<int64_t>(texts_.size(), kUnset);
  trace::StringPool& pool_;
};

std::string_view MemoryOpName(int64_t kind, int64_t copy_kind) {
  if (kind == static_cast<int>(nf::MemoryOpKind::kMemset)) return "[CUDA memset]";
  switch (copy_kind) {  // CUpti_ActivityMemcpyKind
    case 1:
      return "[CUDA memcpy Host-to-Device]";
    case 2:
      return "[CUDA memcpy Device-to-Host]";
    case 8:
      return "[CUDA memcpy Device-to-Device]";
    case 9:
      return "[CUDA memcpy Host-to-Host]";
    case 10:
      return "[CUDA memcpy Peer-to-Peer]";
    default:
      return "[CUDA memcpy]";
  }
}

class Importer {
 public:
  Importer(const std::string& path, trace::StringPool& names, trace::DispatchSink& sink,
           const NativeImportOptions& options)
      : path_(path), names_(names), sink_(sink), options_(options) {}

  base::StatusOr<NativeImport> Run() {
    DP_RETURN_IF_ERROR(Open());
    DP_RETURN_IF_ERROR(ReadMeta());
    DP_RETURN_IF_ERROR(ReadStrings());
    DP_RETURN_IF_ERROR(ReadCounters());
    DP_RETURN_IF_ERROR(Count("api_calls", &result_.api_calls));
    DP_RETURN_IF_ERROR(Count("memory_ops", &result_.memory_ops));
    DP_RETURN_IF_ERROR(ReadDispatches());
    DP_RETURN_IF_ERROR(ReadRanges());
    DP_RETURN_IF_ERROR(ReadMarks());
    return std::move(result_);
  }

 private:
  base::Status DataError(std::string message, std::string hint = {}) const {
    return base::DataError(path_, std::move(message), std::move(hint));
  }
  base::Status RowError(std::string_view table, int64_t id, std::string message) const {
    return base::DataError(path_ + ": " + std::string(table) + " id " + std::to_string(id),
                           std::move(message));
  }
  base::Status SqlError(const Query& q, std::string_view what) const {
    const int rc = q.rc();
    std::string message = std::string(what) + ": " + sqlite3_errmsg(db_.db_);
    if ((rc & 0xff) == SQLITE_NOTADB) return DataError("not an SQLite database");
    if ((rc & 0xff) == SQLITE_CORRUPT) return DataError("the database is corrupt: " + message);
    if ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN) {
      return base::IoError(path_, message,
                           "the file has a journal left by a killed recorder; reading it needs "
                           "write access to the file and its directory");
    }
    return DataError(std::move(message));
  }

  base::Status Open() {
    if (::access(path_.c_str(), R_OK) != 0) {
      return base::IoError(path_, std::string("cannot open: ") + std::strerror(errno));
    }
    // Read-only first; a hot journal left by a killed recorder needs a writable connection
    // to be rolled back (SQLITE_READONLY_ROLLBACK), so retry read-write then.
    for (int flags : {SQLITE_OPEN_READONLY, SQLITE_OPEN_READWRITE}) {
      sqlite3_close(db_.db_);
      db_.db_ = nullptr;
      if (sqlite3_open_v2(path_.c_str(), &db_.db_, flags, nullptr) != SQLITE_OK) {
        return base::IoError(path_, std::string("cannot open: ") + sqlite3_errmsg(db_.db_));
      }
      sqlite3_extended_result_codes(db_.db_, 1);
      Query probe(db_.db_, "SELECT count(*) FROM sqlite_master");
      if (probe.prepared() && probe.Step() == SQLITE_ROW) return base::OkStatus();
      if (sqlite3_extended_errcode(db_.db_) != SQLITE_READONLY_ROLLBACK ||
          flags == SQLITE_OPEN_READWRITE) {
        return SqlError(probe, "cannot read");
      }
    }
    return base::OkStatus();
  }

  base::Status ReadMeta() {
    Query q(db_.db_, "SELECT key, value FROM meta");
    if (!q.prepared()) {
      return DataError("not a decodeprof native trace (it has no meta table)",
                       "convert other traces with their importer");
    }
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) result_.meta[q.Text(0)] = q.Text(1);
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table meta");
    const auto& meta = result_.meta;
    auto get = [&](std::string_view key) -> std::string {
      auto it = meta.find(std::string(key));
      return it == meta.end() ? std::string() : it->second;
    };
    if (get(nf::kMetaFormat) != nf::kFormatName) {
      return DataError("not a decodeprof native trace (meta format is '" + get(nf::kMetaFormat) +
                       "', expected '" + std::string(nf::kFormatName) + "')");
    }
    const std::string version = get(nf::kMetaFormatVersion);
    int64_t v = 0;
    for (char c : version) v = (c >= '0' && c <= '9' && v < 1000000) ? v * 10 + (c - '0') : -1;
    if (version.empty() || v < 1) return DataError("bad format_version '" + version + "'");
    if (v > nf::kFormatVersion) {
      return DataError("format_version " + version + " is newer than this reader's (" +
                           std::to_string(nf::kFormatVersion) + ")",
                       "update decodeprof");
    }
    const std::string clock = get(nf::kMetaClockDomain);
    if (clock == "monotonic") {
      result_.clock = trace::ClockDomain::kMonotonic;
    } else if (clock == "boottime") {
      result_.clock = trace::ClockDomain::kBoottime;
    } else if (clock != "unknown") {
      return DataError("unknown clock_domain '" + clock + "'");
    }
    result_.complete = get(nf::kMetaComplete) == "1";
    result_.recording_status = get(nf::kMetaRecordingStatus);
    return base::OkStatus();
  }

  base::Status ReadStrings() {
    Query q(db_.db_, "SELECT id, text FROM strings ORDER BY id");
    if (!q.prepared()) return SqlError(q, "cannot read table strings");
    std::vector<std::string> texts;
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      // The writer assigns ids densely from 1; anything else is a damaged or foreign file.
      if (q.Int(0) != static_cast<int64_t>(texts.size()) + 1) {
        return RowError("strings", q.Int(0), "string ids are not dense from 1");
      }
      texts.push_back(q.Text(1));
    }
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table strings");
    strings_.emplace(std::move(texts), names_);
    return base::OkStatus();
  }

  base::Status ReadCounters() {
    Query q(db_.db_, "SELECT name, value FROM counters");
    if (!q.prepared()) return SqlError(q, "cannot read table counters");
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      const std::string name = q.Text(0);
      result_.counters[name] = q.Int(1);
      if (nf::IsDataLossCounter(name)) result_.dropped_records += q.Int(1);
    }
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table counters");
    return base::OkStatus();
  }

  base::Status Count(const std::string& table, int64_t* out) {
    Query q(db_.db_, "SELECT count(*) FROM " + table);
    if (!q.prepared() || q.Step() != SQLITE_ROW) return SqlError(q, "cannot read table " + table);
    *out = q.Int(0);
    return base::OkStatus();
  }

  base::Status ReadDispatches() {
    // Columns 10 and 11: the launching API call's thread and start (NULL when none).
    const bool launches = result_.api_calls > 0;
    std::string sql;
    std::string join = " t";
    std::string launch_cols = ", NULL, NULL";
    if (launches) {
      sql =
          "WITH launch AS (SELECT correlation, thread, MIN(start_ns) AS start_ns FROM api_calls "
          "WHERE correlation != 0 GROUP BY correlation) ";
      join = " t LEFT JOIN launch a ON a.correlation = t.correlation AND t.correlation != 0";
      launch_cols = ", a.thread, a.start_ns";
    }
    sql += "SELECT 0, t.id, t.start_ns, t.end_ns, t.name_id, t.grid_x, t.grid_y, t.grid_z, 0, 0" +
           launch_cols + " FROM kernels" + join;
    if (options_.memory_ops_as_dispatches) {
      sql += " UNION ALL SELECT 1, t.id, t.start_ns, t.end_ns, 0, 0, 0, 0, t.kind, t.copy_kind" +
             launch_cols + " FROM memory_ops" + join;
    }
    sql += " ORDER BY 3, 1, 2";
    Query q(db_.db_, sql);
    if (!q.prepared()) return SqlError(q, "cannot read table kernels");
    uint32_t line = 0;
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      const bool is_kernel = q.Int(0) == 0;
      const std::string_view table = is_kernel ? "kernels" : "memory_ops";
      trace::Dispatch d;
      d.start = q.Int(2);
      d.end = q.Int(3);
      if (d.end < d.start) {
        return RowError(
            table, q.Int(1),
            "end before start (" + std::to_string(d.end) + " < " + std::to_string(d.start) + ")");
      }
      if (is_kernel) {
        ++result_.kernels;
        auto name = strings_->GetKernelName(q.Int(4));
        if (!name)
          return RowError(table, q.Int(1),
                          "name_id " + std::to_string(q.Int(4)) + " is not in table strings");
        d.name = *name;
        // All three 0: the source had no grid (a converted CSV without grid columns).
        if (q.Int(5) != 0 || q.Int(6) != 0 || q.Int(7) != 0) {
          d.grid = 1;
          for (int col = 5; col <= 7; ++col) d.grid *= std::max<int64_t>(q.Int(col), 1);
        }
      } else {
        d.name = names_.Intern(MemoryOpName(q.Int(8), q.Int(9)));
      }
      d.line = ++line;
      if (launches) {
        const bool known = !q.IsNull(11);
        result_.launch_thread.push_back(known ? static_cast<uint64_t>(q.Int(10)) : 0);
        result_.launch_time.push_back(known ? q.Int(11) : kUnknownLaunchTime);
      }
      sink_.Add(d);
    }
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table kernels");
    return base::OkStatus();
  }

  base::Status ReadRanges() {
    Query q(db_.db_,
            "SELECT id, name_id, domain_id, start_ns, end_ns, thread, depth FROM ranges "
            "ORDER BY start_ns, depth, id");
    if (!q.prepared()) return SqlError(q, "cannot read table ranges");
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      NativeRange r;
      auto name = strings_->Get(q.Int(1));
      auto domain = strings_->Get(q.Int(2));
      if (!name || !domain) return RowError("ranges", q.Int(0), "name or domain not in strings");
      r.name = *name;
      r.domain = *domain;
      r.start = q.Int(3);
      r.end = q.Int(4);
      if (r.end < r.start) return RowError("ranges", q.Int(0), "end before start");
      r.thread = static_cast<uint64_t>(q.Int(5));
      r.depth = static_cast<int32_t>(q.Int(6));
      result_.ranges.push_back(r);
    }
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table ranges");
    return base::OkStatus();
  }

  base::Status ReadMarks() {
    Query q(db_.db_, "SELECT id, name_id, domain_id, time_ns, thread FROM marks ORDER BY 4, 1");
    if (!q.prepared()) return SqlError(q, "cannot read table marks");
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      NativeMark m;
      auto name = strings_->Get(q.Int(1));
      auto domain = strings_->Get(q.Int(2));
      if (!name || !domain) return RowError("marks", q.Int(0), "name or domain not in strings");
      m.name = *name;
      m.domain = *domain;
      m.time = q.Int(3);
      m.thread = static_cast<uint64_t>(q.Int(4));
      result_.marks.push_back(m);
    }
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table marks");
    return base::OkStatus();
  }

  const std::string& path_;
  trace::StringPool& names_;
  trace::DispatchSink& sink_;
  const NativeImportOptions& options_;
  Db db_;
  std::optional<Strings> strings_;
  NativeImport result_;
};

}  // namespace

base::StatusOr<NativeImport> ImportNative(const std::string& path, trace::StringPool& names,
                                          trace::DispatchSink& sink,
                                          const NativeImportOptions& options) {
  return Importer(path, names, sink, options).Run();
}

bool LooksLikeSqlite(std::string_view head) {
  static constexpr std::string_view kMagic("SQLite format 3\0", 16);
  return head.substr(0, kMagic.size()) == kMagic;
}

}  // namespace decodeprof::io
