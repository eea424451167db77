// NativeWriter: appends rows to a native trace file (schema.h) in transactions.
//
// Rows go into an open transaction; Commit() makes everything added so far durable against
// the death of the writing process (SIGKILL included: SQLite's rollback journal restores the
// last commit when the file is next opened). Close() commits, sets meta complete=1 and
// closes. A writer is used by one thread at a time (the recorder's drain thread); it does
// no locking of its own. It must never be touched in a forked child: the child shares the
// file descriptor but not the transaction.
//
// Errors: every method returns a Status of kind kIo naming the file and SQLite's message.
// After an error the writer stays usable for the remaining calls (a failed row is lost, the
// caller counts it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/base/status.h"
#include "src/native_format/schema.h"

struct sqlite3;
struct sqlite3_stmt;

namespace decodeprof::native_format {

// Ids returned by NativeWriter::Intern (rows of table `strings`).
using StringRef = int64_t;

// One row of each table; see schema.h for column meanings. Field order matches the column
// order of the INSERT statements, and the sizes are fixed (style.md 7.8 rule 8).
struct KernelRow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  StringRef name = 0;     // demangled name
  StringRef mangled = 0;  // name as the driver reports it (equal to `name` if not mangled)
  uint32_t device = 0;
  uint32_t context = 0;
  uint32_t stream = 0;
  uint32_t correlation = 0;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int32_t registers = 0;
  int32_t static_smem = 0;
  int32_t dynamic_smem = 0;
  uint32_t graph_id = 0;       // 0 = not launched from a graph
  uint64_t graph_node_id = 0;  // 0 = not launched from a graph
};
static_assert(sizeof(KernelRow) == 96, "KernelRow layout changed: update the INSERT");

struct MemoryOpRow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t bytes = 0;
  MemoryOpKind kind = MemoryOpKind::kMemcpy;
  int32_t copy_kind = 0;  // CUpti_ActivityMemcpyKind for memcpy, 0 for memset
  uint32_t device = 0;
  uint32_t context = 0;
  uint32_t stream = 0;
  uint32_t correlation = 0;
  uint32_t graph_id = 0;
  uint64_t graph_node_id = 0;
};
static_assert(sizeof(MemoryOpRow) == 64, "MemoryOpRow layout changed: update the INSERT");

struct ApiCallRow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  StringRef name = 0;  // e.g. "cudaLaunchKernel"
  uint64_t thread = 0;
  uint32_t correlation = 0;
  int32_t return_value = 0;
};
static_assert(sizeof(ApiCallRow) == 40, "ApiCallRow layout changed: update the INSERT");

struct RangeRow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  StringRef name = 0;
  StringRef domain = 0;  // "" for NVTX's default domain
  uint64_t thread = 0;
  int32_t depth = 0;  // -1 for start/end ranges
  RangeKind kind = RangeKind::kPushPop;
};
static_assert(sizeof(RangeRow) == 48, "RangeRow layout changed: update the INSERT");

struct MarkRow {
  int64_t time_ns = 0;
  StringRef name = 0;
  StringRef domain = 0;
  uint64_t thread = 0;
};
static_assert(sizeof(MarkRow) == 32, "MarkRow layout changed: update the INSERT");

struct DeviceRow {
  uint32_t id = 0;
  int32_t compute_major = 0;
  int32_t compute_minor = 0;
  int32_t multiprocessors = 0;
  int64_t global_memory = 0;  // bytes
  std::string name;
};

class NativeWriter {
 public:
  // Creates `path`, replacing an existing file (and a leftover journal) there, with the
  // schema and the meta keys format, format_version, clock_domain (`clock_domain`),
  // recorder (`recorder`) and complete=0; then opens the first transaction.
  static base::StatusOr<std::unique_ptr<NativeWriter>> Create(const std::string& path,
                                                              std::string_view clock_domain,
                                                              std::string_view recorder);
  // Commits what is pending (without marking the file complete) and closes it.
  ~NativeWriter();
  NativeWriter(const NativeWriter&) = delete;
  NativeWriter& operator=(const NativeWriter&) = delete;

  // The id of `text` in table `strings`, adding it on first sight (ids are dense from 1).
  base::StatusOr<StringRef> Intern(std::string_view text);

  base::Status AddKernel(const KernelRow& row);
  base::Status AddMemoryOp(const MemoryOpRow& row);
  base::Status AddApiCall(const ApiCallRow& row);
  base::Status AddRange(const RangeRow& row);
  base::Status AddMark(const MarkRow& row);
  base::Status AddDevice(const DeviceRow& row);  // replaces a row with the same id

  // Insert or replace one meta key / counter.
  base::Status SetMeta(std::string_view key, std::string_view value);
  base::Status SetCounter(std::string_view name, int64_t value);

  // Commits the open transaction and opens the next one.
  base::Status Commit();
  // Sets complete=1, commits and closes. Further calls fail with kInternal.
  base::Status Close();

  const std::string& path() const { return path_; }
  // Rows added since the last Commit().
  int64_t pending_rows() const { return pending_rows_; }

 private:
  explicit NativeWriter(std::string path) : path_(std::move(path)) {}
  base::Status Open(std::string_view clock_domain, std::string_view recorder);
  base::Status Exec(const char* sql);
  base::Status Prepare(const char* sql, sqlite3_stmt** stmt);
  base::Status Step(sqlite3_stmt* stmt);
  base::Status Error(std::string_view what) const;
  void Finalize();

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_string_ = nullptr;
  sqlite3_stmt* insert_kernel_ = nullptr;
  sqlite3_stmt* insert_memory_op_ = nullptr;
  sqlite3_stmt* insert_api_call_ = nullptr;
  sqlite3_stmt* insert_range_ = nullptr;
  sqlite3_stmt* insert_mark_ = nullptr;
  sqlite3_stmt* insert_device_ = nullptr;
  sqlite3_stmt* set_meta_ = nullptr;
  sqlite3_stmt* set_counter_ = nullptr;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, StringRef, Hash, std::equal_to<>> strings_;
  int64_t pending_rows_ = 0;
};

// Sets meta keys of a native file its recorder has closed (record adds its bandwidth
// measurement so): insert or replace, in one transaction; a busy file is waited for up to 5 s.
// Errors (kIo naming `path`): no such file, not a native file (no meta table), SQLite's
// message.
base::Status SetMetaInFile(const std::string& path,
                           const std::vector<std::pair<std::string, std::string>>& entries);

}  // namespace decodeprof::native_format
