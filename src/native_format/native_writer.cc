#include "src/native_format/native_writer.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace decodeprof::native_format {
namespace {

void BindText(sqlite3_stmt* stmt, int index, std::string_view text) {
  sqlite3_bind_text(stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

}  // namespace

base::StatusOr<std::unique_ptr<NativeWriter>> NativeWriter::Create(const std::string& path,
                                                                   std::string_view clock_domain,
                                                                   std::string_view recorder) {
  // A previous file's journal would be "hot" for the new file: remove both first.
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    const std::string victim = path + suffix;
    if (::unlink(victim.c_str()) != 0 && errno != ENOENT) {
      return base::IoError(victim, std::string("cannot replace: ") + std::strerror(errno));
    }
  }
  std::unique_ptr<NativeWriter> writer(new NativeWriter(path));
  DP_RETURN_IF_ERROR(writer->Open(clock_domain, recorder));
  return writer;
}

base::Status NativeWriter::Open(std::string_view clock_domain, std::string_view recorder) {
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    base::Status status = Error("cannot create");
    sqlite3_close(db_);
    db_ = nullptr;
    return status;
  }
  // Rollback journal, no fsync: a killed process loses nothing committed (the page cache
  // survives it and the journal restores the last commit); only a machine crash could.
  DP_RETURN_IF_ERROR(Exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF;"));
  DP_RETURN_IF_ERROR(Exec("BEGIN"));
  DP_RETURN_IF_ERROR(Exec(std::string(kSchemaSql).c_str()));
  DP_RETURN_IF_ERROR(Prepare("INSERT INTO strings(id, text) VALUES(?, ?)", &insert_string_));
  DP_RETURN_IF_ERROR(
      Prepare("INSERT INTO kernels(start_ns, end_ns, name_id, mangled_id, device, context, stream, "
              "correlation, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, "
              "static_smem, dynamic_smem, graph_id, graph_node_id) "
              "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
              &insert_kernel_));
  DP_RETURN_IF_ERROR(
      Prepare("INSERT INTO memory_ops(kind, copy_kind, bytes, start_ns, end_ns, device, context, "
              "stream, correlation, graph_id, graph_node_id) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
              &insert_memory_op_));
  DP_RETURN_IF_ERROR(
      Prepare("INSERT INTO api_calls(name_id, start_ns, end_ns, thread, correlation, return_value) "
              "VALUES(?,?,?,?,?,?)",
              &insert_api_call_));
  DP_RETURN_IF_ERROR(
      Prepare("INSERT INTO ranges(name_id, domain_id, start_ns, end_ns, thread, depth, kind) "
              "VALUES(?,?,?,?,?,?,?)",
              &insert_range_));
  DP_RETURN_IF_ERROR(Prepare(
      "INSERT INTO marks(name_id, domain_id, time_ns, thread) VALUES(?,?,?,?)", &insert_mark_));
  DP_RETURN_IF_ERROR(
      Prepare("INSERT OR REPLACE INTO devices(id, name, compute_major, compute_minor, "
              "multiprocessors, global_memory) VALUES(?,?,?,?,?,?)",
              &insert_device_));
  DP_RETURN_IF_ERROR(Prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", &set_meta_));
  DP_RETURN_IF_ERROR(
      Prepare("INSERT OR REPLACE INTO counters(name, value) VALUES(?, ?)", &set_counter_));
  DP_RETURN_IF_ERROR(SetMeta(kMetaFormat, kFormatName));
  DP_RETURN_IF_ERROR(SetMeta(kMetaFormatVersion, std::to_string(kFormatVersion)));
  DP_RETURN_IF_ERROR(SetMeta(kMetaClockDomain, clock_domain));
  DP_RETURN_IF_ERROR(SetMeta(kMetaRecorder, recorder));
  DP_RETURN_IF_ERROR(SetMeta(kMetaComplete, "0"));
  return Commit();
}

NativeWriter::~NativeWriter() {
  if (db_ == nullptr) return;
  (void)Exec("COMMIT");
  Finalize();
}

void NativeWriter::Finalize() {
  for (sqlite3_stmt* stmt :
       {insert_string_, insert_kernel_, insert_memory_op_, insert_api_call_, insert_range_,
        insert_mark_, insert_device_, set_meta_, set_counter_}) {
    sqlite3_finalize(stmt);
  }
  insert_string_ = insert_kernel_ = insert_memory_op_ = insert_api_call_ = nullptr;
  insert_range_ = insert_mark_ = insert_device_ = set_meta_ = set_counter_ = nullptr;
  sqlite3_close(db_);
  db_ = nullptr;
}

base::Status NativeWriter::Error(std::string_view what) const {
  std::string message(what);
  if (db_ != nullptr) {
    message += ": ";
    message += sqlite3_errmsg(db_);
  }
  return base::IoError(path_, std::move(message));
}

base::Status NativeWriter::Exec(const char* sql) {
  if (db_ == nullptr) return base::InternalError(path_, "the trace file is closed");
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error("cannot write");
  }
  return base::OkStatus();
}

base::Status NativeWriter::Prepare(const char* sql, sqlite3_stmt** stmt) {
  if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, nullptr) != SQLITE_OK) {
    return Error("cannot prepare a statement");
  }
  return base::OkStatus();
}

base::Status NativeWriter::Step(sqlite3_stmt* stmt) {
  if (db_ == nullptr) return base::InternalError(path_, "the trace file is closed");
  const int rc = sqlite3_step(stmt);
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  if (rc != SQLITE_DONE) return Error("cannot write");
  ++pending_rows_;
  return base::OkStatus();
}

base::StatusOr<StringRef> NativeWriter::Intern(std::string_view text) {
  if (auto it = strings_.find(text); it != strings_.end()) return it->second;
  const StringRef id = static_cast<StringRef>(strings_.size()) + 1;
  sqlite3_bind_int64(insert_string_, 1, id);
  BindText(insert_string_, 2, text);
  DP_RETURN_IF_ERROR(Step(insert_string_));
  strings_.emplace(std::string(text), id);
  return id;
}

base::Status NativeWriter::AddKernel(const KernelRow& row) {
  sqlite3_stmt* s = insert_kernel_;
  int i = 0;
  sqlite3_bind_int64(s, ++i, row.start_ns);
  sqlite3_bind_int64(s, ++i, row.end_ns);
  sqlite3_bind_int64(s, ++i, row.name);
  sqlite3_bind_int64(s, ++i, row.mangled);
  sqlite3_bind_int64(s, ++i, row.device);
  sqlite3_bind_int64(s, ++i, row.context);
  sqlite3_bind_int64(s, ++i, row.stream);
  sqlite3_bind_int64(s, ++i, row.correlation);
  for (int32_t g : row.grid) sqlite3_bind_int64(s, ++i, g);
  for (int32_t b : row.block) sqlite3_bind_int64(s, ++i, b);
  sqlite3_bind_int64(s, ++i, row.registers);
  sqlite3_bind_int64(s, ++i, row.static_smem);
  sqlite3_bind_int64(s, ++i, row.dynamic_smem);
  sqlite3_bind_int64(s, ++i, row.graph_id);
  // SQLite integers are signed 64-bit: node ids above 2^63 keep their bits.
  sqlite3_bind_int64(s, ++i, static_cast<int64_t>(row.graph_node_id));
  return Step(s);
}

base::Status NativeWriter::AddMemoryOp(const MemoryOpRow& row) {
  sqlite3_stmt* s = insert_memory_op_;
  int i = 0;
  sqlite3_bind_int64(s, ++i, static_cast<int>(row.kind));
  sqlite3_bind_int64(s, ++i, row.copy_kind);
  sqlite3_bind_int64(s, ++i, row.bytes);
  sqlite3_bind_int64(s, ++i, row.start_ns);
  sqlite3_bind_int64(s, ++i, row.end_ns);
  sqlite3_bind_int64(s, ++i, row.device);
  sqlite3_bind_int64(s, ++i, row.context);
  sqlite3_bind_int64(s, ++i, row.stream);
  sqlite3_bind_int64(s, ++i, row.correlation);
  sqlite3_bind_int64(s, ++i, row.graph_id);
  sqlite3_bind_int64(s, ++i, static_cast<int64_t>(row.graph_node_id));
  return Step(s);
}

base::Status NativeWriter::AddApiCall(const ApiCallRow& row) {
  sqlite3_stmt* s = insert_api_call_;
  sqlite3_bind_int64(s, 1, row.name);
  sqlite3_bind_int64(s, 2, row.start_ns);
  sqlite3_bind_int64(s, 3, row.end_ns);
  sqlite3_bind_int64(s, 4, static_cast<int64_t>(row.thread));
  sqlite3_bind_int64(s, 5, row.correlation);
  sqlite3_bind_int64(s, 6, row.return_value);
  return Step(s);
}

base::Status NativeWriter::AddRange(const RangeRow& row) {
  sqlite3_stmt* s = insert_range_;
  sqlite3_bind_int64(s, 1, row.name);
  sqlite3_bind_int64(s, 2, row.domain);
  sqlite3_bind_int64(s, 3, row.start_ns);
  sqlite3_bind_int64(s, 4, row.end_ns);
  sqlite3_bind_int64(s, 5, static_cast<int64_t>(row.thread));
  sqlite3_bind_int64(s, 6, row.depth);
  sqlite3_bind_int64(s, 7, static_cast<int>(row.kind));
  return Step(s);
}

base::Status NativeWriter::AddMark(const MarkRow& row) {
  sqlite3_stmt* s = insert_mark_;
  sqlite3_bind_int64(s, 1, row.name);
  sqlite3_bind_int64(s, 2, row.domain);
  sqlite3_bind_int64(s, 3, row.time_ns);
  sqlite3_bind_int64(s, 4, static_cast<int64_t>(row.thread));
  return Step(s);
}

base::Status NativeWriter::AddDevice(const DeviceRow& row) {
  sqlite3_stmt* s = insert_device_;
  sqlite3_bind_int64(s, 1, row.id);
  BindText(s, 2, row.name);
  sqlite3_bind_int64(s, 3, row.compute_major);
  sqlite3_bind_int64(s, 4, row.compute_minor);
  sqlite3_bind_int64(s, 5, row.multiprocessors);
  sqlite3_bind_int64(s, 6, row.global_memory);
  return Step(s);
}

base::Status NativeWriter::SetMeta(std::string_view key, std::string_view value) {
  BindText(set_meta_, 1, key);
  BindText(set_meta_, 2, value);
  return Step(set_meta_);
}

base::Status NativeWriter::SetCounter(std::string_view name, int64_t value) {
  BindText(set_counter_, 1, name);
  sqlite3_bind_int64(set_counter_, 2, value);
  return Step(set_counter_);
}

base::Status NativeWriter::Commit() {
  DP_RETURN_IF_ERROR(Exec("COMMIT"));
  pending_rows_ = 0;
  return Exec("BEGIN");
}

base::Status NativeWriter::Close() {
  // Readers walk kernels and memory operations in start order through these (built once at
  // the end: the recording's inserts do not pay for them). A file without them (a killed
  // recording) is still read, sorted by SQLite.
  DP_RETURN_IF_ERROR(Exec(std::string(kIndexSql).c_str()));
  DP_RETURN_IF_ERROR(SetMeta(kMetaComplete, "1"));
  DP_RETURN_IF_ERROR(Exec("COMMIT"));
  pending_rows_ = 0;
  Finalize();
  return base::OkStatus();
}

base::Status SetMetaInFile(const std::string& path,
                           const std::vector<std::pair<std::string, std::string>>& entries) {
  sqlite3* db = nullptr;
  // No SQLITE_OPEN_CREATE: only an existing file.
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    base::Status status = base::IoError(path, std::string("cannot open: ") + sqlite3_errmsg(db));
    sqlite3_close(db);
    return status;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* stmt = nullptr;
  base::Status status;
  const auto fail = [&](std::string_view what) {
    if (status.ok()) {
      status = base::IoError(path, std::string(what) + ": " + sqlite3_errmsg(db));
    }
  };
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
    fail("cannot write");
  } else if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", -1,
                                &stmt, nullptr) != SQLITE_OK) {
    fail("not a decodeprof native trace");
  } else {
    for (const auto& [key, value] : entries) {
      sqlite3_reset(stmt);
      sqlite3_bind_text(stmt, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
      sqlite3_bind_text(stmt, 2, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
      if (sqlite3_step(stmt) != SQLITE_DONE) {
        fail("cannot set meta " + key);
        break;
      }
    }
    if (status.ok() && sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
      fail("cannot write");
    }
  }
  sqlite3_finalize(stmt);
  if (!status.ok()) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  return status;
}

}  // namespace decodeprof::native_format
