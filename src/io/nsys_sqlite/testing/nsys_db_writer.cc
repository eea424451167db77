#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <variant>

#include "src/io/common/testing/sqlite_statements.h"

namespace decodeprof::io::nsys_testing {
namespace {

using Value = std::variant<std::monostate, int64_t, std::string>;
using Row = std::vector<std::pair<std::string, Value>>;

struct Column {
  std::string name;
  std::string decl;  // "INTEGER NOT NULL", "TEXT", ...
};

struct Table {
  std::string name;
  std::vector<Column> columns;
};

Value Int(int64_t v) { return Value(v); }
Value UInt(uint64_t v) { return Value(static_cast<int64_t>(v)); }
Value Text(std::string v) { return Value(std::move(v)); }

// Columns named in `names`, each with an optional "!" (NOT NULL) and then an optional type
// prefix: "T:" TEXT, "R:" REAL, "P:" INTEGER NOT NULL PRIMARY KEY; INTEGER otherwise.
std::vector<Column> Cols(std::initializer_list<const char*> names) {
  std::vector<Column> out;
  for (std::string_view n : names) {
    std::string suffix;
    if (n.front() == '!') {
      suffix = "   NOT NULL";
      n.remove_prefix(1);
    }
    std::string type = "INTEGER";
    if (n.size() > 2 && n[1] == ':') {
      if (n[0] == 'T') type = "TEXT";
      if (n[0] == 'R') type = "REAL";
      if (n[0] == 'P') suffix = "   NOT NULL   PRIMARY KEY";
      n.remove_prefix(2);
    }
    out.push_back({std::string(n), type + suffix});
  }
  return out;
}

std::vector<Column> Join(std::vector<Column> a, const std::vector<Column>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Inserts `column` after the column named `after`.
std::vector<Column> InsertAfter(std::vector<Column> cols, std::string_view after, Column column) {
  auto it =
      std::find_if(cols.begin(), cols.end(), [&](const Column& c) { return c.name == after; });
  cols.insert(it == cols.end() ? it : it + 1, std::move(column));
  return cols;
}

// The kernel table of the 2022.1.3 / 2022.2.1 exports (A3).
std::vector<Column> Kernel2022() {
  return Cols({"!start",
               "!end",
               "!deviceId",
               "!contextId",
               "!streamId",
               "correlationId",
               "globalPid",
               "!demangledName",
               "!shortName",
               "mangledName",
               "launchType",
               "cacheConfig",
               "!registersPerThread",
               "!gridX",
               "!gridY",
               "!gridZ",
               "!blockX",
               "!blockY",
               "!blockZ",
               "!staticSharedMemory",
               "!dynamicSharedMemory",
               "!localMemoryPerThread",
               "!localMemoryTotal",
               "!gridId",
               "sharedMemoryExecuted",
               "graphNodeId",
               "sharedMemoryLimitConfig"});
}

Table KernelTable(NsysSchema schema, bool mangled) {
  std::vector<Column> cols = Kernel2022();
  if (schema != NsysSchema::k2022) {
    // Assumed for 2024 (A9 says only "some earlier" exports had it); certain for 2025.6+.
    cols = InsertAfter(cols, "contextId", {"greenContextId", "INTEGER"});
  }
  if (schema == NsysSchema::k2025_6) {
    cols = Join(
        cols, Cols({"qmdBulkReleaseDone", "qmdPreexitDone", "qmdLastCtaDone", "graphId", "clusterX",
                    "clusterY", "clusterZ", "clusterSchedulingPolicy", "maxPotentialClusterSize",
                    "maxActiveClusters", "sharedMemoryRequestedPercentage"}));
  }
  if (!mangled) {
    std::erase_if(cols, [](const Column& c) { return c.name == "mangledName"; });
  }
  return {"CUPTI_ACTIVITY_KIND_KERNEL", cols};
}

Table MemcpyTable(NsysSchema schema) {
  std::vector<Column> cols =
      Cols({"!start", "!end", "!deviceId", "!contextId", "!streamId", "correlationId", "globalPid",
            "!bytes", "!copyKind", "deprecatedSrcId", "srcKind", "dstKind", "srcDeviceId",
            "srcContextId", "dstDeviceId", "dstContextId", "migrationCause", "graphNodeId",
            "virtualAddress"});
  if (schema == NsysSchema::k2025_6) {
    cols = InsertAfter(cols, "contextId", {"greenContextId", "INTEGER"});
    cols.push_back({"copyCount", "INTEGER"});
  }
  return {"CUPTI_ACTIVITY_KIND_MEMCPY", cols};
}

Table MemsetTable(NsysSchema schema) {
  std::vector<Column> cols =
      Cols({"!start", "!end", "!deviceId", "!contextId", "!streamId", "correlationId", "globalPid",
            "!value", "!bytes", "graphNodeId", "memKind"});
  if (schema == NsysSchema::k2025_6) {
    cols = InsertAfter(cols, "contextId", {"greenContextId", "INTEGER"});
  }
  return {"CUPTI_ACTIVITY_KIND_MEMSET", cols};
}

Table RuntimeTable() {
  return {"CUPTI_ACTIVITY_KIND_RUNTIME",
          Cols({"!start", "!end", "!eventClass", "globalTid", "correlationId", "!nameId",
                "!returnValue", "callchainId"})};
}

Table GraphTraceTable() {
  return {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
          Cols({"!start", "!end", "!deviceId", "!contextId", "greenContextId", "!streamId",
                "correlationId", "globalPid", "!graphId", "!graphExecId"})};
}

Table NvtxTable(NsysSchema schema) {
  std::vector<Column> cols =
      Cols({"!start", "end", "!eventType", "rangeId", "category", "color", "T:text", "globalTid",
            "endGlobalTid", "domainId", "uint64Value", "int64Value", "R:doubleValue", "uint32Value",
            "int32Value", "R:floatValue", "jsonTextId", "T:jsonText"});
  if (schema != NsysSchema::k2022) {
    cols = InsertAfter(cols, "endGlobalTid", {"textId", "INTEGER"});
  }
  if (schema == NsysSchema::k2025_6) {
    cols = Join(cols, Cols({"T:binaryData", "P:eventId"}));
  }
  return {"NVTX_EVENTS", cols};
}

Table SessionStartTable(NsysSchema schema) {
  std::vector<Column> cols = Cols({"utcEpochNs", "T:utcTime", "T:localTime"});
  if (schema == NsysSchema::k2025_6) cols.push_back({"systemClockNs", "INTEGER"});
  return {"TARGET_INFO_SESSION_START_TIME", cols};
}

// A subset of TARGET_INFO_GPU's columns (the table has about 40).
Table GpuTable() {
  return {"TARGET_INFO_GPU", Cols({"!vmId", "!id", "T:name", "T:busLocation", "isDiscrete",
                                   "l2CacheSize", "totalMemory", "smCount", "T:uuid", "T:chipName",
                                   "cuDevice", "computeMajor", "computeMinor"})};
}

class Writer {
 public:
  explicit Writer(std::string path) : path_(std::move(path)) {}
  ~Writer() {
    statements_.Finalize();
    sqlite3_close(db_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  base::Status Open() {
    std::remove(path_.c_str());
    if (sqlite3_open(path_.c_str(), &db_) != SQLITE_OK) return Error("cannot create");
    return Exec("BEGIN");
  }

  base::Status Exec(const std::string& sql) {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
      return Error(sql);
    }
    return base::OkStatus();
  }

  base::Status Create(const Table& t) {
    std::string sql = "CREATE TABLE " + t.name + " (\n";
    for (size_t i = 0; i < t.columns.size(); ++i) {
      sql += "    " + t.columns[i].name + "   " + t.columns[i].decl +
             (i + 1 < t.columns.size() ? ",\n" : "\n");
    }
    sql += ");";
    created_.insert(t.name);
    return Exec(sql);
  }

  // Inserts one row: the given columns, 0 for every other NOT NULL column, NULL otherwise.
  base::Status Insert(const Table& t, const Row& row) {
    if (created_.count(t.name) == 0) DP_RETURN_IF_ERROR(Create(t));
    for (const auto& column_value : row) {
      // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
      const std::string& name = column_value.first;
      const bool known = std::any_of(t.columns.begin(), t.columns.end(),
                                     [&](const Column& c) { return c.name == name; });
      if (!known) return base::InternalError(path_, t.name + " has no column " + name);
    }
    std::string sql = "INSERT INTO " + t.name + " (";
    std::string params;
    for (size_t i = 0; i < t.columns.size(); ++i) {
      sql += (i ? ", " : "") + t.columns[i].name;
      params += i ? ", ?" : "?";
    }
    sql += ") VALUES (" + params + ")";
    sqlite3_stmt* stmt = statements_.Get(db_, sql);
    if (stmt == nullptr) return Error(sql);
    for (size_t i = 0; i < t.columns.size(); ++i) {
      const Column& c = t.columns[i];
      const int param = static_cast<int>(i + 1);
      auto it =
          std::find_if(row.begin(), row.end(), [&](const auto& p) { return p.first == c.name; });
      if (it == row.end()) {
        if (c.decl.find("NOT NULL") != std::string::npos &&
            c.decl.find("PRIMARY KEY") == std::string::npos) {
          sqlite3_bind_int64(stmt, param, 0);
        }
        continue;
      }
      if (const auto* v = std::get_if<int64_t>(&it->second)) {
        sqlite3_bind_int64(stmt, param, *v);
      } else if (const auto* s = std::get_if<std::string>(&it->second)) {
        sqlite3_bind_text(stmt, param, s->c_str(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      }
    }
    const int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc != SQLITE_DONE) return Error(sql);
    return base::OkStatus();
  }

  // The StringIds id of `text` (dense from 1, first-seen order).
  int64_t Intern(const std::string& text) {
    auto [it, added] = strings_.emplace(text, static_cast<int64_t>(strings_.size()) + 1);
    if (added) order_.push_back(text);
    return it->second;
  }

  base::Status WriteStrings() {
    const Table t{"StringIds", Cols({"P:id", "!T:value"})};
    DP_RETURN_IF_ERROR(Create(t));
    for (size_t i = 0; i < order_.size(); ++i) {
      DP_RETURN_IF_ERROR(
          Insert(t, {{"id", Int(static_cast<int64_t>(i) + 1)}, {"value", Text(order_[i])}}));
    }
    return base::OkStatus();
  }

  base::Status Commit() { return Exec("COMMIT"); }

 private:
  base::Status Error(std::string_view what) const {
    return base::IoError(path_, std::string(what) + ": " + sqlite3_errmsg(db_));
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  io::sqlite_testing::PreparedStatements statements_;  // an INSERT's, prepared once per table
  std::set<std::string> created_;
  std::map<std::string, int64_t> strings_;
  std::vector<std::string> order_;
};

struct Versions {
  const char* product;
  const char* schema;  // "" = none recorded
};

Versions VersionsOf(NsysSchema schema) {
  switch (schema) {
    case NsysSchema::k2022:
      return {"2022.2.1.31", "2.9.1"};
    case NsysSchema::k2024:
      return {"2024.6.2.225", "3.16.1"};
    case NsysSchema::k2025_6:
      break;
  }
  return {"2025.6.1.190", "3.24.7"};
}

base::Status WriteMeta(Writer& w, NsysSchema schema) {
  const Table t{schema == NsysSchema::k2022 ? "EXPORT_META_DATA" : "META_DATA_EXPORT",
                Cols({"!T:name", "T:value"})};
  const Versions v = VersionsOf(schema);
  const std::string version = v.schema;
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"},
      {"EXPORT_PRODUCT_VERSION", v.product},
      {"EXPORT_SCHEMA_VERSION", version},
      {"EXPORT_SCHEMA_VERSION_MAJOR", version.substr(0, version.find('.'))},
      {"EXPORT_PLATFORM", "linux-desktop"},
      {"EXPORT_ARCH", "x64"},
  };
  for (const auto& [name, value] : rows) {
    DP_RETURN_IF_ERROR(w.Insert(t, {{"name", Text(name)}, {"value", Text(value)}}));
  }
  return base::OkStatus();
}

// ENUM_* tables of 2023.2 and later (A8), with the values the importer may meet.
base::Status WriteEnums(Writer& w) {
  const auto table = [](const char* name) {
    return Table{name, Cols({"P:id", "T:name", "T:label"})};
  };
  const std::vector<std::pair<int64_t, std::string>> types = {
      {33, "NvtxCategory"},      {34, "NvtxMark"},          {59, "NvtxPushPopRange"},
      {60, "NvtxStartEndRange"}, {70, "NvtxtPushPopRange"}, {71, "NvtxtStartEndRange"},
      {75, "NvtxDomainCreate"}};
  for (const auto& [id, name] : types) {
    DP_RETURN_IF_ERROR(w.Insert(table("ENUM_NSYS_EVENT_TYPE"),
                                {{"id", Int(id)}, {"name", Text(name)}, {"label", Text(name)}}));
  }
  const char* classes[] = {"TRACE_PROCESS_EVENT_CUDA_RUNTIME", "TRACE_PROCESS_EVENT_CUDA_DRIVER"};
  for (int64_t id = 0; id < 2; ++id) {
    DP_RETURN_IF_ERROR(w.Insert(table("ENUM_NSYS_EVENT_CLASS"),
                                {{"id", Int(id)},
                                 {"name", Text(classes[id])},
                                 {"label", Text(id == 0 ? "CUDA Runtime" : "CUDA Driver")}}));
  }
  const char* copies[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH",     "AtoA",     "AtoD",
                          "DtoA",    "DtoD", "HtoH", "PtoP", "UVM HtoD", "UVM DtoH", "UVM DtoD"};
  for (int64_t id = 0; id < 14; ++id) {
    DP_RETURN_IF_ERROR(w.Insert(table("ENUM_CUDA_MEMCPY_OPER"),
                                {{"id", Int(id)},
                                 {"name", Text(std::string("CUDA_MEMCPY_") + copies[id])},
                                 {"label", Text(copies[id])}}));
  }
  return base::OkStatus();
}

int64_t LastEnd(const NsysDb& db) {
  int64_t last = 0;
  for (const Kernel& k : db.kernels) last = std::max(last, k.end);
  for (const MemoryOp& m : db.memory_ops) last = std::max(last, m.end);
  for (const ApiCall& a : db.api_calls) last = std::max(last, a.end);
  for (const NvtxEvent& e : db.nvtx) last = std::max(last, e.end.value_or(e.start));
  for (const GraphLaunch& g : db.graphs) last = std::max(last, g.end);
  return last;
}

base::Status WriteSession(Writer& w, const NsysDb& db) {
  Row row = {{"utcEpochNs", Int(db.utc_epoch_ns)},
             {"utcTime", Text("2026-04-01T21:22:30")},
             {"localTime", Text("2026-04-01T14:22:30")}};
  const bool system_clock = db.schema == NsysSchema::k2025_6;
  if (system_clock && db.system_clock_ns)
    row.push_back({"systemClockNs", Int(*db.system_clock_ns)});
  DP_RETURN_IF_ERROR(w.Insert(SessionStartTable(db.schema), row));
  // ANALYSIS_DETAILS.startTime: session-relative before schema 3.24, the system clock after
  // (A6); the importer must not use it.
  const int64_t start = system_clock ? db.system_clock_ns.value_or(0) : 184'033'390;
  const Table details{"ANALYSIS_DETAILS",
                      Cols({"!globalVid", "!duration", "!startTime", "!stopTime"})};
  int64_t duration = 0;  // saturated, as stop: the fuzz target ends events at INT64_MAX
  if (__builtin_add_overflow(LastEnd(db), 1'000, &duration)) {
    duration = std::numeric_limits<int64_t>::max();
  }
  int64_t stop = 0;  // saturated: tests give systemClockNs values near the end of int64
  if (__builtin_add_overflow(start, duration, &stop)) stop = std::numeric_limits<int64_t>::max();
  return w.Insert(details, {{"globalVid", UInt(GlobalPid(0))},
                            {"duration", Int(duration)},
                            {"startTime", Int(start)},
                            {"stopTime", Int(stop)}});
}

base::Status WriteThreads(Writer& w, const NsysDb& db) {
  std::set<uint64_t> tids;
  for (const ApiCall& a : db.api_calls) tids.insert(a.global_tid);
  for (const NvtxEvent& e : db.nvtx) tids.insert(e.global_tid);
  std::set<uint64_t> pids;
  const Table threads{"ThreadNames", Cols({"!nameId", "priority", "globalTid"})};
  for (uint64_t tid : tids) {
    const int64_t name = w.Intern("python3");
    DP_RETURN_IF_ERROR(w.Insert(
        threads, {{"nameId", Int(name)}, {"priority", Int(20)}, {"globalTid", UInt(tid)}}));
    pids.insert(tid & ~uint64_t{0xFFFFFF});
  }
  const Table processes{"PROCESSES", Cols({"globalPid", "pid", "T:name"})};
  for (uint64_t pid : pids) {
    DP_RETURN_IF_ERROR(w.Insert(processes, {{"globalPid", UInt(pid)},
                                            {"pid", UInt((pid >> 24) & 0xFFFFFF)},
                                            {"name", Text("python3")}}));
  }
  return base::OkStatus();
}

Row DispatchColumns(int64_t start, int64_t end, int32_t device, int32_t stream,
                    std::optional<uint32_t> correlation, uint64_t global_pid) {
  Row row = {{"start", Int(start)}, {"end", Int(end)},         {"deviceId", Int(device)},
             {"contextId", Int(1)}, {"streamId", Int(stream)}, {"globalPid", UInt(global_pid)}};
  if (correlation) row.push_back({"correlationId", Int(*correlation)});
  return row;
}

base::Status WriteActivities(Writer& w, const NsysDb& db) {
  const Table kernels = KernelTable(db.schema, db.kernel_mangled_name_column);
  int64_t grid_id = 0;
  for (const Kernel& k : db.kernels) {
    Row row = DispatchColumns(k.start, k.end, k.device, k.stream, k.correlation, k.global_pid);
    row.push_back({"demangledName", Int(w.Intern(k.demangled))});
    row.push_back({"shortName", Int(w.Intern(k.short_name.empty() ? k.demangled : k.short_name))});
    if (db.kernel_mangled_name_column && !k.mangled.empty()) {
      row.push_back({"mangledName", Int(w.Intern(k.mangled))});
    }
    const char* dims[] = {"X", "Y", "Z"};
    for (size_t i = 0; i < 3; ++i) {
      row.push_back({std::string("grid") + dims[i], Int(k.grid[i])});
      row.push_back({std::string("block") + dims[i], Int(k.block[i])});
    }
    row.push_back({"registersPerThread", Int(32)});
    row.push_back({"gridId", Int(++grid_id)});
    DP_RETURN_IF_ERROR(w.Insert(kernels, row));
  }
  for (const MemoryOp& m : db.memory_ops) {
    Row row = DispatchColumns(m.start, m.end, m.device, m.stream, m.correlation, m.global_pid);
    row.push_back({"bytes", Int(m.bytes)});
    if (m.memset) {
      DP_RETURN_IF_ERROR(w.Insert(MemsetTable(db.schema), row));
    } else {
      row.push_back({"copyKind", Int(m.copy_kind)});
      DP_RETURN_IF_ERROR(w.Insert(MemcpyTable(db.schema), row));
    }
  }
  if (!db.graphs.empty() && db.schema != NsysSchema::k2025_6) {
    return base::InternalError("", "graph-level launches need the k2025_6 schema");
  }
  for (const GraphLaunch& g : db.graphs) {
    Row row = DispatchColumns(g.start, g.end, g.device, g.stream, g.correlation, g.global_pid);
    row.push_back({"graphId", Int(g.graph_id)});
    row.push_back({"graphExecId", Int(g.graph_exec_id)});
    DP_RETURN_IF_ERROR(w.Insert(GraphTraceTable(), row));
  }
  for (const ApiCall& a : db.api_calls) {
    DP_RETURN_IF_ERROR(w.Insert(RuntimeTable(), {{"start", Int(a.start)},
                                                 {"end", Int(a.end)},
                                                 {"eventClass", Int(a.driver ? 1 : 0)},
                                                 {"globalTid", UInt(a.global_tid)},
                                                 {"correlationId", Int(a.correlation)},
                                                 {"nameId", Int(w.Intern(a.name))},
                                                 {"returnValue", Int(0)}}));
  }
  const Table nvtx = NvtxTable(db.schema);
  const bool text_ids = db.schema != NsysSchema::k2022;
  for (const NvtxEvent& e : db.nvtx) {
    Row row = {{"start", Int(e.start)},
               {"eventType", Int(e.event_type)},
               {"globalTid", UInt(e.global_tid)},
               {"domainId", Int(e.domain)}};
    if (e.end) row.push_back({"end", Int(*e.end)});
    if (e.event_type == 60 || e.event_type == 71)
      row.push_back({"endGlobalTid", UInt(e.global_tid)});
    if (e.registered && text_ids) {
      row.push_back({"textId", Int(w.Intern(e.text))});
    } else {
      row.push_back({"text", Text(e.text)});
    }
    DP_RETURN_IF_ERROR(w.Insert(nvtx, row));
  }
  return base::OkStatus();
}

}  // namespace

const char* SchemaName(NsysSchema schema) {
  switch (schema) {
    case NsysSchema::k2022:
      return "2022";
    case NsysSchema::k2024:
      return "2024";
    case NsysSchema::k2025_6:
      break;
  }
  return "2025.6";
}

base::Status WriteNsysDb(const std::string& path, const NsysDb& db) {
  Writer w(path);
  DP_RETURN_IF_ERROR(w.Open());
  DP_RETURN_IF_ERROR(WriteMeta(w, db.schema));
  if (db.schema != NsysSchema::k2022) DP_RETURN_IF_ERROR(WriteEnums(w));
  if (db.schema == NsysSchema::k2025_6) {
    const Table capture{"META_DATA_CAPTURE", Cols({"!T:name", "T:value"})};
    DP_RETURN_IF_ERROR(w.Insert(capture, {{"name", Text("CUDA_GRAPH_TRACE_OPTIONS:MODE")},
                                          {"value", Text(db.graphs.empty() ? "Node" : "Graph")}}));
  }
  DP_RETURN_IF_ERROR(WriteSession(w, db));
  for (const Gpu& g : db.gpus) {
    DP_RETURN_IF_ERROR(w.Insert(GpuTable(), {{"vmId", UInt(GlobalPid(0))},
                                             {"id", Int(g.id)},
                                             {"name", Text(g.name)},
                                             {"cuDevice", Int(g.id)},
                                             {"computeMajor", Int(9)},
                                             {"computeMinor", Int(0)}}));
  }
  DP_RETURN_IF_ERROR(WriteActivities(w, db));
  DP_RETURN_IF_ERROR(WriteThreads(w, db));
  DP_RETURN_IF_ERROR(w.WriteStrings());
  return w.Commit();
}

base::Status ExecSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  base::Status status;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK ||
      sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    status = base::IoError(path, sql + ": " + sqlite3_errmsg(db));
  }
  sqlite3_close(db);
  return status;
}

}  // namespace decodeprof::io::nsys_testing
