// Internals of the rocpd importer (rocpd_importer.h has the contract): the state one import
// shares between the readers of its tables, typed access to a row's values, and the readers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/base/status.h"
#include "src/io/common/sqlite_db.h"
#include "src/io/rocpd/rocpd_import.h"
#include "src/trace/trace.h"

namespace decodeprof::io::rocpd {

// The plain view names (B2) of the tables read.
inline constexpr std::string_view kMetadata = "rocpd_metadata";
inline constexpr std::string_view kString = "rocpd_string";
inline constexpr std::string_view kAgent = "rocpd_info_agent";
inline constexpr std::string_view kThread = "rocpd_info_thread";
inline constexpr std::string_view kSymbol = "rocpd_info_kernel_symbol";
inline constexpr std::string_view kTrack = "rocpd_track";
inline constexpr std::string_view kEvent = "rocpd_event";
inline constexpr std::string_view kRegion = "rocpd_region";
inline constexpr std::string_view kSample = "rocpd_sample";
inline constexpr std::string_view kDispatch = "rocpd_kernel_dispatch";
inline constexpr std::string_view kCopy = "rocpd_memory_copy";

// A row of a table of one run: (the run's guid, as Context::Guid numbers it; the row's id).
struct Key {
  uint32_t guid = 0;
  int64_t id = 0;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<int64_t>{}(k.id) ^ (static_cast<size_t>(k.guid) * 0x9E3779B97F4A7C15u);
  }
};

struct Agent {
  int16_t number = 0;  // the device number (rocpd_importer.h)
  bool gpu = false;
};

struct Symbol {
  std::optional<std::string> display_name;
  std::optional<std::string> kernel_name;
  std::optional<trace::StringId> name;  // interned on first use
};

// The small tables, read whole before the large ones.
struct Tables {
  std::unordered_map<Key, std::string, KeyHash> strings;  // rocpd_string
  std::unordered_map<Key, Agent, KeyHash> agents;         // rocpd_info_agent
  std::unordered_map<Key, uint64_t, KeyHash> threads;     // rocpd_info_thread → OS tid
  std::unordered_map<Key, Symbol, KeyHash> symbols;       // rocpd_info_kernel_symbol
};

// One import's shared state.
struct Context {
  const std::string& path;
  const SqliteDb& db;
  trace::TraceBuilder& builder;
  RocpdImport& result;
  RocpdReadOptions options;
  // View name → the relation read for it (the view, or its uuid-suffixed table); a table that
  // is absent has no entry.
  std::map<std::string, std::string, std::less<>> relations;
  // (guid, process id) → k (1, 2, ...) when correlations are per process.
  std::map<std::pair<uint32_t, int64_t>, uint64_t> processes;
  Tables tables;
  // Distinct guids, numbered from 0 in first-seen order (Key::guid).
  std::vector<std::string> guids;
  uint32_t last_guid = 0;

  // The number of `guid` (added on first sight).
  uint32_t Guid(std::string_view guid);

  trace::StringPool& names() { return builder.names(); }
  bool Has(std::string_view view) const { return relations.count(view) != 0; }
  // The relation of `view` (which must be present), and that quoted for a FROM clause.
  const std::string& Relation(std::string_view view) const { return relations.find(view)->second; }
  std::string From(std::string_view view) const;

  // "<path>: <table> id <N>": <message>, kData.
  base::Status RowError(std::string_view table, int64_t id, std::string message) const;
  // A string id rocpd_string lacks: counted as dangling_string_id, and the import's error.
  base::Status DanglingString(std::string_view table, int64_t id, std::string_view column,
                              int64_t string_id);
  // A reference to a row of `target` that does not exist.
  base::Status Dangling(std::string_view table, int64_t id, std::string_view column, int64_t value,
                        std::string_view target) const;
  // kData unless `view` has every one of `columns`.
  base::Status Require(std::string_view view, std::initializer_list<const char*> columns) const;
  void Variant(std::string detail) { result.schema_variants.push_back(std::move(detail)); }
  // The model's correlation for a stack_id of process (guid, pid).
  base::StatusOr<uint64_t> Correlation(std::optional<int64_t> stack_id, uint32_t guid, int64_t pid,
                                       std::string_view table, int64_t id) const;
  // The text of string `string_id` of run `guid`: a dangling id is the row's error.
  base::StatusOr<const std::string*> String(uint32_t guid, int64_t string_id,
                                            std::string_view table, int64_t id,
                                            std::string_view column);
  base::Status SqlError(const SqliteQuery& q, std::string_view table) const {
    return db.Error(q, "cannot read table " + std::string(table));
  }
};

// Typed access to the columns of the current row of `q`, every value checked against the
// type the schema gives it: a wrong type or a NULL where none may be is the row's error.
class Row {
 public:
  Row(const Context& ctx, const SqliteQuery& q, std::string_view table, int64_t id)
      : ctx_(ctx), q_(q), table_(table), id_(id) {}
  int64_t id() const { return id_; }
  // True when column `col` is NULL (for a joined row's id: the join found none).
  bool IsNull(int col) const { return q_.IsNull(col); }
  // (The integer case inline: every column of millions of rows comes through here.)
  base::StatusOr<int64_t> Int(int col, std::string_view column) const {
    if (q_.Type(col) == SQLITE_INTEGER) return q_.Int(col);
    return NotAnInt(col, column);
  }
  // A time: an integer from 0 to trace::kMaxTimestampNs, else an error naming the row.
  base::StatusOr<int64_t> Time(int col, std::string_view column) const;
  base::StatusOr<std::optional<int64_t>> OptInt(int col, std::string_view column) const {
    switch (q_.Type(col)) {
      case SQLITE_INTEGER:
        return std::optional<int64_t>(q_.Int(col));
      case SQLITE_NULL:
        return std::optional<int64_t>();
      default:
        return WrongType(col, column, "an integer");
    }
  }
  // Text (a view of the row's value, valid until the next Step); nullopt for NULL.
  base::StatusOr<std::optional<std::string_view>> OptText(int col, std::string_view column) const;
  // The row's guid (a NOT NULL text column), numbered by the context.
  base::StatusOr<uint32_t> Guid(int col, Context& ctx) const;
  base::Status Error(std::string message) const {
    return ctx_.RowError(table_, id_, std::move(message));
  }
  // This row's reference `column` = `value` names no row of `target`.
  base::Status Dangling(std::string_view column, int64_t value, std::string_view target) const {
    return ctx_.Dangling(table_, id_, column, value, target);
  }

 private:
  base::Status WrongType(int col, std::string_view column, std::string_view expected) const;
  // Int's error: NULL, or not an integer.
  base::Status NotAnInt(int col, std::string_view column) const;

  const Context& ctx_;
  const SqliteQuery& q_;
  std::string_view table_;
  int64_t id_;
};

// Decides the relations (Context::relations), checks the schema and reads rocpd_metadata.
base::Status ResolveSchema(Context& ctx);
// Reads the small tables into Context::tables (and the GPU agents into the model's devices).
base::Status LoadTables(Context& ctx);
// Decides Context::processes: filled when the rows come from more than one process.
base::Status DetectProcesses(Context& ctx);
base::Status ReadDispatches(Context& ctx);
// Regions and samples: launch calls, ranges and marks. StartRegions begins reading the regions
// in parts on threads of their own when the caller keeps everything (they read only
// Context's small tables, a copy of its runs and the file, so the calling thread may read the
// dispatches meanwhile); FinishRegions waits for them (or reads in one pass) and hands the
// calls, ranges and marks on. Dropping a started reader waits for its threads.
class RegionReader;
struct RegionReaderDelete {
  void operator()(RegionReader* reader) const;
};
std::unique_ptr<RegionReader, RegionReaderDelete> StartRegions(Context& ctx);
base::Status FinishRegions(RegionReader& reader);

}  // namespace decodeprof::io::rocpd
