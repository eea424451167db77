// Internals of the nsys-sqlite importer (nsys_sqlite_importer.h has the contract): the state
// one import shares between the readers of its tables, and those readers. They know the
// importer only through nsys_import.h.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/base/status.h"
#include "src/io/common/sqlite_db.h"
#include "src/io/nsys_sqlite/nsys_import.h"
#include "src/trace/string_pool.h"
#include "src/trace/trace.h"

namespace decodeprof::io::nsys {

inline constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
inline constexpr std::string_view kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
inline constexpr std::string_view kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
inline constexpr std::string_view kGraphTraceTable = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
inline constexpr std::string_view kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
inline constexpr std::string_view kDriverTable = "CUPTI_ACTIVITY_KIND_DRIVER";
inline constexpr std::string_view kNvtxTable = "NVTX_EVENTS";

// StringIds, read once (A4); each entry is interned into the pool on first use, in the
// spelling its use asks for.
class StringTable {
 public:
  base::Status Load(const SqliteDb& db);
  bool Has(int64_t id) const { return entries_.count(id) != 0; }
  // Entry `id`'s text, nullptr when StringIds has none: reads no cache, so a thread may call
  // it while the calling thread interns other entries.
  const std::string* Find(int64_t id) const {
    const auto it = entries_.find(id);
    return it == entries_.end() ? nullptr : &it->second.text;
  }
  // The pool id of entry `id` as is / demangled when it starts with "_Z" / without the API
  // version suffix; nullopt when StringIds has no entry `id`.
  std::optional<trace::StringId> Text(int64_t id, trace::StringPool& pool);
  std::optional<trace::StringId> KernelName(int64_t id, trace::StringPool& pool);
  std::optional<trace::StringId> ApiName(int64_t id, trace::StringPool& pool);

 private:
  static constexpr int64_t kUnset = -1;
  struct Entry {
    std::string text;
    int64_t plain = kUnset;
    int64_t kernel = kUnset;
    int64_t api = kUnset;
  };
  std::unordered_map<int64_t, Entry> entries_;
};

// A table's columns as the file has them.
class TableShape {
 public:
  TableShape(const SqliteDb& db, std::string name);
  const std::string& name() const { return name_; }
  bool present() const { return !columns_.empty(); }
  bool Has(std::string_view column) const;
  // `expr` for a select list when the table has `column`, else "NULL".
  std::string Or(std::string_view column, std::string_view expr) const;
  std::string Or(std::string_view column) const { return Or(column, column); }

 private:
  std::string name_;
  std::vector<std::string> columns_;
};

// One import's shared state.
struct Context {
  const std::string& path;
  const SqliteDb& db;
  trace::TraceBuilder& builder;
  NsysImport& result;
  StringTable strings;
  int64_t time_offset = 0;  // added to every time (systemClockNs, or 0)
  NsysReadOptions options;

  trace::StringPool& names() { return builder.names(); }

  // "<path>: <table> rowid <N>": <message>, kData.
  base::Status RowError(std::string_view table, int64_t rowid, std::string message) const;
  // A string id StringIds lacks: counted as dangling_string_id, and the import's error.
  base::Status DanglingString(std::string_view table, int64_t rowid, std::string_view column,
                              int64_t id);
  // kData unless `table` has every one of `columns`.
  base::Status Require(const TableShape& table, std::initializer_list<const char*> columns) const;
  // Records a schema variant for each of `columns` that `table` lacks (`what` says how the
  // import copes: "(correlation 0)").
  void NoteMissing(const TableShape& table, std::initializer_list<const char*> columns,
                   std::string_view what);
  void Variant(std::string detail) { result.schema_variants.push_back(std::move(detail)); }
  // A session time on the trace's clock; kData on overflow.
  base::StatusOr<int64_t> Time(int64_t session_ns, std::string_view table, int64_t rowid) const;
  // The model's correlation for nsys's (`pid` from the row's globalPid / globalTid).
  uint64_t Correlation(std::optional<int64_t> correlation, std::optional<int64_t> pid) const;
  // The failed query's error on this file.
  base::Status SqlError(const SqliteQuery& q, std::string_view table) const {
    return db.Error(q, "cannot read table " + std::string(table));
  }
};

// (globalTid or globalPid >> 24) & 0xFFFFFF as SQL, for a select list (A5).
std::string PidExpr(std::string_view column);

// Decides Context::result.per_process_correlation: true when the launch calls come from more
// than one process and every dispatch table names its process.
base::Status DetectProcesses(Context& ctx);
// The dispatches, in start order, numbered. A caller that keeps everything
// (TraceBuilder::keeps_everything, or options.read_in_parts) gets them read in start-time
// parts on threads when every table lies in start order; the same rows, names and errors.
base::Status ReadDispatches(Context& ctx);
// The launch calls read on threads in rowid parts (a caller that keeps everything, and calls
// enough: else nullptr), started before the dispatches are read; ReadLaunches takes them.
// Only what DetectProcesses decided and the clock are read from `ctx` meanwhile.
class LaunchParts;
struct LaunchPartsDeleter {
  void operator()(LaunchParts* parts) const;
};
using LaunchPartsPtr = std::unique_ptr<LaunchParts, LaunchPartsDeleter>;
LaunchPartsPtr StartLaunchParts(const Context& ctx);
base::Status ReadLaunches(Context& ctx, LaunchParts* parts = nullptr);
// NVTX_EVENTS read on a thread of its own while the dispatches are read (a caller that keeps
// every record: a trace with a range per dispatch holds millions), or nullptr (the table is
// absent or ReadRanges will refuse it, or the dispatches are read in one pass). Reads only the
// StringIds texts and the clock from `ctx` meanwhile. ReadRanges takes its rows, in the order
// and with the errors and names of a read on the calling thread.
class RangeRead;
struct RangeReadDeleter {
  void operator()(RangeRead* read) const;
};
using RangeReadPtr = std::unique_ptr<RangeRead, RangeReadDeleter>;
RangeReadPtr StartRanges(const Context& ctx);
base::Status ReadRanges(Context& ctx, RangeRead* started = nullptr);

}  // namespace decodeprof::io::nsys
