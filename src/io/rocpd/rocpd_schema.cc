// The rocpd importer's schema probing, typed row access and small tables (rocpd_reader.h).
#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <utility>

#include "src/io/common/read_parts.h"
#include "src/io/rocpd/rocpd_reader.h"

namespace decodeprof::io::rocpd {
namespace {

constexpr std::string_view kHint = "not a rocprofv3 rocpd database of a known version";

// `name` as an SQL identifier.
std::string Quote(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

// "_xxxxxxxx_xxxx_xxxx_xxxx_xxxxxxxxxxxx": a uuid with '-' turned into '_' after an '_' (B2).
bool IsUuidSuffix(std::string_view s) {
  static constexpr size_t kGroups[] = {8, 4, 4, 4, 12};
  size_t at = 0;
  for (size_t group : kGroups) {
    if (at >= s.size() || s[at] != '_') return false;
    ++at;
    for (size_t i = 0; i < group; ++i, ++at) {
      if (at >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[at]))) return false;
    }
  }
  return at == s.size();
}

// A value's type and text for messages: "text 'abc'", "real 1.5", "blob of 4 bytes".
std::string Describe(const SqliteQuery& q, int col) {
  switch (q.Type(col)) {
    case SQLITE_INTEGER:
      return "integer " + std::to_string(q.Int(col));
    case SQLITE_FLOAT:
      return "real " + q.Text(col);
    case SQLITE_BLOB:
      return "blob of " + std::to_string(q.TextView(col).size()) + " bytes";
    case SQLITE_NULL:
      return "NULL";
    default:
      break;
  }
  return "text '" + base::Excerpt(q.TextView(col), 40) + "'";
}

struct ViewSpec {
  std::string_view view;
  bool required;
  std::initializer_list<const char*> columns;
};

// Every table read, with the columns every schema-3 file has (B4).
const ViewSpec kViews[] = {
    {kMetadata, false, {"tag", "value"}},
    {kString, true, {"id", "guid", "string"}},
    {kAgent,
     true,
     {"id", "guid", "type", "absolute_index", "logical_index", "name", "product_name"}},
    {kThread, true, {"id", "guid", "tid"}},
    {kSymbol, true, {"id", "guid", "kernel_name", "display_name"}},
    {kTrack, false, {"id", "guid", "tid", "name_id"}},
    {kEvent, true, {"id", "guid", "category_id", "stack_id", "extdata"}},
    {kRegion, true, {"id", "guid", "pid", "tid", "start", "end", "name_id", "event_id"}},
    {kSample, false, {"id", "guid", "track_id", "timestamp", "event_id"}},
    {kDispatch,
     true,
     {"id", "guid", "pid", "agent_id", "kernel_id", "queue_id", "start", "end", "grid_size_x",
      "grid_size_y", "grid_size_z", "region_name_id", "event_id"}},
    {kCopy,
     false,
     {"id", "guid", "pid", "start", "end", "name_id", "dst_agent_id", "src_agent_id", "queue_id",
      "stream_id", "event_id"}},
};

base::Status SchemaVersion4(const std::string& path, const std::string& why) {
  return base::DataError(path, "a rocpd database of schema version 4 (" + why + ")",
                         "decodeprof reads schema 3, which the rocprofv3 of ROCm 7 writes; "
                         "schema 4 is experimental (track-based tables)");
}

base::Status ReadMetadata(Context& ctx) {
  if (!ctx.Has(kMetadata)) {
    ctx.Variant("no table rocpd_metadata (read as schema 3)");
    return base::OkStatus();
  }
  SqliteQuery q(ctx.db, "SELECT tag, value FROM " + ctx.From(kMetadata) + " ORDER BY rowid");
  if (!q.prepared()) return ctx.SqlError(q, kMetadata);
  std::optional<std::string> version;
  while (q.Step() == SQLITE_ROW) {
    const std::string_view tag = q.TextView(0);
    if (tag == "schema_version" && !version) version = q.Text(1);
    if (tag == "guid" && ctx.builder.trace().meta.count("rocpd_guid") == 0) {
      ctx.builder.trace().meta["rocpd_guid"] = q.Text(1);
    }
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kMetadata);
  if (!version) {
    ctx.Variant("no schema_version in rocpd_metadata (read as schema 3)");
    return base::OkStatus();
  }
  ctx.result.schema_version = *version;
  ctx.builder.trace().meta["rocpd_schema_version"] = *version;
  // "3", or "3.0.x" in newer writers (B3: unverified): the leading integer decides.
  size_t digits = 0;
  while (digits < version->size() && digits < 9 &&
         std::isdigit(static_cast<unsigned char>((*version)[digits]))) {
    ++digits;
  }
  const int major = digits == 0 ? -1 : std::stoi(version->substr(0, digits));
  if (major >= 4) return SchemaVersion4(ctx.path, "rocpd_metadata schema_version " + *version);
  if (major != 3) ctx.Variant("schema_version '" + *version + "' (read as schema 3)");
  return base::OkStatus();
}

// Reads a NOT NULL guid and an integer id of the current row into a Key.
base::StatusOr<Key> KeyOf(Context& ctx, const SqliteQuery& q, std::string_view table) {
  const Row row(ctx, q, table, q.Int(0));
  DP_ASSIGN_OR_RETURN(const int64_t id, row.Int(0, "id"));
  DP_ASSIGN_OR_RETURN(const uint32_t guid, row.Guid(1, ctx));
  return Key{guid, id};
}

base::Status LoadStrings(Context& ctx) {
  SqliteQuery q(ctx.db, "SELECT id, guid, string FROM " + ctx.From(kString));
  if (!q.prepared()) return ctx.SqlError(q, kString);
  while (q.Step() == SQLITE_ROW) {
    DP_ASSIGN_OR_RETURN(const Key key, KeyOf(ctx, q, kString));
    const Row row(ctx, q, kString, key.id);
    DP_ASSIGN_OR_RETURN(const std::optional<std::string_view> text, row.OptText(2, "string"));
    if (!text) return row.Error("string is NULL");
    ctx.tables.strings[key] = std::string(*text);
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kString);
  return base::OkStatus();
}

// Agents → Context::tables.agents, and the GPUs → the model's devices.
base::Status LoadAgents(Context& ctx) {
  SqliteQuery q(ctx.db,
                "SELECT id, guid, type, logical_index, absolute_index, product_name, name FROM " +
                    ctx.From(kAgent) + " ORDER BY id");
  if (!q.prepared()) return ctx.SqlError(q, kAgent);
  std::map<int32_t, std::string> devices;
  while (q.Step() == SQLITE_ROW) {
    DP_ASSIGN_OR_RETURN(const Key key, KeyOf(ctx, q, kAgent));
    const Row row(ctx, q, kAgent, key.id);
    DP_ASSIGN_OR_RETURN(const auto type, row.OptText(2, "type"));
    DP_ASSIGN_OR_RETURN(const auto logical, row.OptInt(3, "logical_index"));
    DP_ASSIGN_OR_RETURN(const auto absolute, row.OptInt(4, "absolute_index"));
    DP_ASSIGN_OR_RETURN(const auto product, row.OptText(5, "product_name"));
    DP_ASSIGN_OR_RETURN(const auto name, row.OptText(6, "name"));
    const int64_t number = logical ? *logical : absolute ? *absolute : key.id;
    if (number < 0 || number > std::numeric_limits<int16_t>::max()) {
      return row.Error("device number " + std::to_string(number) + " (" +
                       (logical    ? "logical_index"
                        : absolute ? "absolute_index"
                                   : "id") +
                       ") is out of range (0..32767)");
    }
    Agent agent;
    agent.number = static_cast<int16_t>(number);
    agent.gpu = type && *type == "GPU";
    ctx.tables.agents[key] = agent;
    if (agent.gpu && devices.count(agent.number) == 0) {
      devices[agent.number] =
          std::string(product && !product->empty() ? *product : name.value_or(""));
    }
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kAgent);
  for (auto& [id, name] : devices) ctx.builder.trace().devices.push_back({id, std::move(name)});
  return base::OkStatus();
}

base::Status LoadThreads(Context& ctx) {
  SqliteQuery q(ctx.db, "SELECT id, guid, tid FROM " + ctx.From(kThread));
  if (!q.prepared()) return ctx.SqlError(q, kThread);
  while (q.Step() == SQLITE_ROW) {
    DP_ASSIGN_OR_RETURN(const Key key, KeyOf(ctx, q, kThread));
    const Row row(ctx, q, kThread, key.id);
    DP_ASSIGN_OR_RETURN(const int64_t tid, row.Int(2, "tid"));
    if (tid < 0) return row.Error("tid " + std::to_string(tid) + " is negative");
    ctx.tables.threads[key] = static_cast<uint64_t>(tid);
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kThread);
  return base::OkStatus();
}

base::Status LoadSymbols(Context& ctx) {
  SqliteQuery q(ctx.db, "SELECT id, guid, display_name, kernel_name FROM " + ctx.From(kSymbol));
  if (!q.prepared()) return ctx.SqlError(q, kSymbol);
  while (q.Step() == SQLITE_ROW) {
    DP_ASSIGN_OR_RETURN(const Key key, KeyOf(ctx, q, kSymbol));
    const Row row(ctx, q, kSymbol, key.id);
    DP_ASSIGN_OR_RETURN(const auto display, row.OptText(2, "display_name"));
    DP_ASSIGN_OR_RETURN(const auto kernel, row.OptText(3, "kernel_name"));
    Symbol& s = ctx.tables.symbols[key];
    if (display) s.display_name = std::string(*display);
    if (kernel) s.kernel_name = std::string(*kernel);
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kSymbol);
  return base::OkStatus();
}

}  // namespace

std::string Context::From(std::string_view view) const { return Quote(Relation(view)); }

uint32_t Context::Guid(std::string_view guid) {
  if (last_guid < guids.size() && guids[last_guid] == guid) return last_guid;
  for (size_t i = 0; i < guids.size(); ++i) {
    if (guids[i] == guid) return last_guid = static_cast<uint32_t>(i);
  }
  guids.emplace_back(guid);
  return last_guid = static_cast<uint32_t>(guids.size() - 1);
}

base::Status Context::RowError(std::string_view table, int64_t id, std::string message) const {
  return base::DataError(path + ": " + std::string(table) + " id " + std::to_string(id),
                         std::move(message));
}

base::Status Context::DanglingString(std::string_view table, int64_t id, std::string_view column,
                                     int64_t string_id) {
  const std::string message =
      std::string(column) + " " + std::to_string(string_id) + " is not in table rocpd_string";
  builder.diagnostics().Add(trace::Diag::kDanglingStringId, 1,
                            {path, std::string(table) + " id " + std::to_string(id), message});
  return RowError(table, id, message);
}

base::Status Context::Dangling(std::string_view table, int64_t id, std::string_view column,
                               int64_t value, std::string_view target) const {
  return RowError(table, id,
                  std::string(column) + " " + std::to_string(value) + " is not in table " +
                      std::string(target));
}

base::Status Context::Require(std::string_view view,
                              std::initializer_list<const char*> columns) const {
  const std::vector<std::string> have = db.Columns(Relation(view));
  for (const char* column : columns) {
    if (std::find(have.begin(), have.end(), column) == have.end()) {
      return base::DataError(path, "table " + std::string(view) + " has no column " + column,
                             std::string(kHint));
    }
  }
  return base::OkStatus();
}

base::StatusOr<uint64_t> Context::Correlation(std::optional<int64_t> stack_id, uint32_t guid,
                                              int64_t pid, std::string_view table,
                                              int64_t id) const {
  if (!stack_id || *stack_id == 0) return uint64_t{0};
  if (*stack_id < 0) {
    return RowError(table, id, "stack_id " + std::to_string(*stack_id) + " is negative");
  }
  const auto stack = static_cast<uint64_t>(*stack_id);
  if (processes.empty()) return stack;
  if (stack > std::numeric_limits<uint32_t>::max()) {
    return RowError(table, id,
                    "stack_id " + std::to_string(stack) +
                        " does not fit in 32 bits (needed to keep the correlations of several "
                        "processes apart)");
  }
  auto it = processes.find({guid, pid});
  return (it == processes.end() ? uint64_t{0} : it->second << 32) | stack;
}

base::StatusOr<const std::string*> Context::String(uint32_t guid, int64_t string_id,
                                                   std::string_view table, int64_t id,
                                                   std::string_view column) {
  auto it = tables.strings.find(Key{guid, string_id});
  if (it == tables.strings.end()) return DanglingString(table, id, column, string_id);
  return &it->second;
}

base::Status Row::WrongType(int col, std::string_view column, std::string_view expected) const {
  return Error(std::string(column) + " is not " + std::string(expected) + " (" + Describe(q_, col) +
               ")");
}

base::Status Row::NotAnInt(int col, std::string_view column) const {
  if (q_.Type(col) == SQLITE_NULL) return Error(std::string(column) + " is NULL");
  return WrongType(col, column, "an integer");
}

base::StatusOr<int64_t> Row::Time(int col, std::string_view column) const {
  DP_ASSIGN_OR_RETURN(const int64_t v, Int(col, column));
  if (!trace::IsTimestamp(v)) {
    return Error(std::string(column) + " " + std::to_string(v) +
                 " ns is beyond its range (0 to 2^62 = " + std::to_string(trace::kMaxTimestampNs) +
                 ")");
  }
  return v;
}

base::StatusOr<std::optional<std::string_view>> Row::OptText(int col,
                                                             std::string_view column) const {
  switch (q_.Type(col)) {
    case SQLITE_NULL:
      return std::optional<std::string_view>();
    case SQLITE_TEXT:
      return std::optional<std::string_view>(q_.TextView(col));
    default:
      return WrongType(col, column, "text");
  }
}

base::StatusOr<uint32_t> Row::Guid(int col, Context& ctx) const {
  DP_ASSIGN_OR_RETURN(const std::optional<std::string_view> guid, OptText(col, "guid"));
  if (!guid) return Error("guid is NULL");
  return ctx.Guid(*guid);
}

base::Status ResolveSchema(Context& ctx) {
  DP_ASSIGN_OR_RETURN(const std::vector<std::string> names, ctx.db.TableNames());
  std::vector<std::string> via_tables;
  std::set<std::string> suffixes;
  for (const ViewSpec& spec : kViews) {
    const std::string view(spec.view);
    if (std::find(names.begin(), names.end(), view) != names.end()) {
      ctx.relations[view] = view;
      continue;
    }
    std::vector<std::string> tables;
    for (const std::string& name : names) {
      if (name.size() > view.size() && name.starts_with(view) &&
          IsUuidSuffix(std::string_view(name).substr(view.size()))) {
        tables.push_back(name);
      }
    }
    if (tables.size() > 1) {
      return base::DataError(ctx.path,
                             "several runs in one file (tables " + tables[0] + ", " + tables[1] +
                                 ", ...) and no view " + view,
                             "decodeprof reads one run per file, through rocpd's plain views; "
                             "rocprofv3 writes one database per process");
    }
    if (tables.size() == 1) {
      ctx.relations[view] = tables[0];
      via_tables.push_back(view);
      suffixes.insert(tables[0].substr(view.size()));
      continue;
    }
    if (spec.view == kDispatch) {
      return base::DataError(ctx.path, "not a rocpd database (no table or view " + view + ")",
                             "rocprofv3 --kernel-trace --output-format rocpd -- CMD writes one");
    }
    if (spec.required) {
      return base::DataError(ctx.path, "no table or view " + view, std::string(kHint));
    }
    if (spec.view == kCopy) ctx.Variant("no table rocpd_memory_copy (no memory copies read)");
  }
  if (!via_tables.empty()) {
    std::string list;
    for (const std::string& v : via_tables) list += (list.empty() ? "" : ", ") + v;
    ctx.Variant("no plain view for " + list + ": read the tables of uuid " + *suffixes.begin());
  }
  if (ctx.Has(kSample) && !ctx.Has(kTrack)) {
    ctx.relations.erase(std::string(kSample));
    ctx.Variant("no table rocpd_track (no marks read)");
  }
  // Schema 4 (experimental) moved the topology onto tracks (B3).
  const std::vector<std::string> region_columns = ctx.db.Columns(ctx.Relation(kRegion));
  if (std::find(region_columns.begin(), region_columns.end(), "track_id") != region_columns.end()) {
    return SchemaVersion4(ctx.path, "rocpd_region has a track_id column");
  }
  DP_RETURN_IF_ERROR(ReadMetadata(ctx));
  for (const ViewSpec& spec : kViews) {
    if (ctx.Has(spec.view)) DP_RETURN_IF_ERROR(ctx.Require(spec.view, spec.columns));
  }
  return base::OkStatus();
}

base::Status DetectProcesses(Context& ctx) {
  std::vector<std::string> relations = {ctx.From(kRegion), ctx.From(kDispatch)};
  if (ctx.Has(kCopy)) relations.push_back(ctx.From(kCopy));
  std::string sql;
  for (const std::string& r : relations) {
    sql += (sql.empty() ? "SELECT guid, pid FROM " : " UNION SELECT guid, pid FROM ") + r;
  }
  // Two (guid, pid) or more: the first row's, then any row of another (scans that stop at the
  // first row found, not a UNION of every row).
  sqlite3_value* first[2] = {nullptr, nullptr};
  for (const std::string& r : relations) {
    SqliteQuery q(ctx.db, "SELECT guid, pid FROM " + r + " LIMIT 1");
    if (!q.prepared()) return ctx.SqlError(q, kRegion);
    if (q.Step() == SQLITE_ROW) {
      for (int c = 0; c < 2; ++c) first[c] = sqlite3_value_dup(sqlite3_column_value(q.stmt(), c));
      break;
    }
    if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kRegion);
  }
  if (first[0] == nullptr) return base::OkStatus();
  // The scans below in id parts on threads, whatever the window (they hold no rows); the
  // calling thread waits instead of scanning.
  const std::optional<bool> several_in_parts =
      AnyRowInParts(ctx.path, ctx.db, relations, "id", "guid IS NOT ?1 OR pid IS NOT ?2",
                    {first[0], first[1]}, ctx.options.rows_per_part, ctx.options.read_in_parts);
  bool several = several_in_parts.value_or(false);
  base::Status status = base::OkStatus();
  for (const std::string& r : relations) {
    if (several_in_parts) break;
    SqliteQuery q(ctx.db, "SELECT 1 FROM " + r + " WHERE guid IS NOT ?1 OR pid IS NOT ?2 LIMIT 1");
    if (!q.prepared() || sqlite3_bind_value(q.stmt(), 1, first[0]) != SQLITE_OK ||
        sqlite3_bind_value(q.stmt(), 2, first[1]) != SQLITE_OK) {
      status = ctx.SqlError(q, kRegion);
      break;
    }
    if (q.Step() == SQLITE_ROW) {
      several = true;
      break;
    }
    if (q.rc() != SQLITE_DONE) {
      status = ctx.SqlError(q, kRegion);
      break;
    }
  }
  for (sqlite3_value* v : first) sqlite3_value_free(v);
  if (!status.ok() || !several) return status;
  SqliteQuery q(ctx.db, sql + " ORDER BY 1, 2");
  if (!q.prepared()) return ctx.SqlError(q, kRegion);
  while (q.Step() == SQLITE_ROW) {
    const auto key = std::make_pair(ctx.Guid(q.TextView(0)), q.Int(1));
    if (ctx.processes.count(key) == 0) {
      const uint64_t k = ctx.processes.size() + 1;
      ctx.processes[key] = k;
    }
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kRegion);
  ctx.result.per_process_correlation = ctx.processes.size() > 1;
  if (!ctx.result.per_process_correlation) ctx.processes.clear();
  return base::OkStatus();
}

base::Status LoadTables(Context& ctx) {
  DP_RETURN_IF_ERROR(LoadStrings(ctx));
  DP_RETURN_IF_ERROR(LoadAgents(ctx));
  DP_RETURN_IF_ERROR(LoadThreads(ctx));
  return LoadSymbols(ctx);
}

}  // namespace decodeprof::io::rocpd
