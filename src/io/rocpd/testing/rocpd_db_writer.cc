#include "src/io/rocpd/testing/rocpd_db_writer.h"

#include "src/io/rocpd/testing/rocpd_ddl.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>

#include "src/io/common/testing/sqlite_statements.h"

namespace decodeprof::io::rocpd_testing {
namespace {

constexpr int64_t kNode = 3'405'691'582;  // (hash(machine_id) % INT64_MAX) % UINT32_MAX (B5)

std::string Replace(std::string text, std::string_view from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

using Value = std::variant<std::monostate, int64_t, std::string>;

Value Opt(const std::optional<int64_t>& v) { return v ? Value(*v) : Value(); }

class Writer {
 public:
  Writer(std::string path, std::string suffix)
      : path_(std::move(path)), suffix_(std::move(suffix)) {}
  ~Writer() {
    statements_.Finalize();
    sqlite3_close(db_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  base::Status Open() {
    std::remove(path_.c_str());
    if (sqlite3_open(path_.c_str(), &db_) != SQLITE_OK) return Error("cannot create");
    DP_RETURN_IF_ERROR(Exec("PRAGMA foreign_keys = ON"));
    return Exec("BEGIN");
  }

  base::Status Exec(const std::string& sql) {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return Error(sql);
    return base::OkStatus();
  }

  // INSERT INTO <base><suffix> (columns) VALUES (values).
  base::Status Insert(std::string_view base,
                      const std::vector<std::pair<const char*, Value>>& row) {
    std::string sql = "INSERT INTO \"" + std::string(base) + suffix_ + "\" (";
    std::string params;
    for (size_t i = 0; i < row.size(); ++i) {
      sql += std::string(i ? ", " : "") + "\"" + row[i].first + "\"";
      params += i ? ", ?" : "?";
    }
    sql += ") VALUES (" + params + ")";
    sqlite3_stmt* stmt = statements_.Get(db_, sql);
    if (stmt == nullptr) return Error(sql);
    for (size_t i = 0; i < row.size(); ++i) {
      const int param = static_cast<int>(i + 1);
      if (const auto* v = std::get_if<int64_t>(&row[i].second)) {
        sqlite3_bind_int64(stmt, param, *v);
      } else if (const auto* s = std::get_if<std::string>(&row[i].second)) {
        sqlite3_bind_text(stmt, param, s->c_str(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      }
    }
    const int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc != SQLITE_DONE) return Error(sql);
    return base::OkStatus();
  }

  base::Status Commit() { return Exec("COMMIT"); }

 private:
  base::Status Error(std::string_view what) const {
    return base::IoError(path_, std::string(what) + ": " + sqlite3_errmsg(db_));
  }

  std::string path_;
  std::string suffix_;
  sqlite3* db_ = nullptr;
  io::sqlite_testing::PreparedStatements statements_;  // an INSERT's, prepared once per table
};

// {"message": "..."} with the text escaped as JSON.
std::string MessageJson(const std::string& message) {
  std::string out = "{\"message\":\"";
  for (char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"}";
}

// Everything the rows name, gathered first: the writer fills the info tables from it.
struct Catalog {
  std::set<std::string> strings = {""};
  std::set<int64_t> pids;
  std::set<std::pair<int64_t, int64_t>> threads;  // (pid, tid)
  std::set<int64_t> queues;
  std::set<int64_t> streams = {0};
  std::vector<std::pair<std::string, std::string>> symbols;    // (kernel_name, display_name)
  std::set<std::tuple<int64_t, int64_t, std::string>> tracks;  // (pid, tid, category)

  int64_t Symbol(const KernelDispatch& k) {
    const std::pair<std::string, std::string> key(k.kernel_name, k.display_name);
    auto it = std::find(symbols.begin(), symbols.end(), key);
    if (it == symbols.end()) {
      symbols.push_back(key);
      return static_cast<int64_t>(symbols.size());
    }
    return static_cast<int64_t>(it - symbols.begin()) + 1;
  }
};

Catalog Gather(const RocpdDb& db) {
  Catalog c;
  c.pids.insert(db.pids.begin(), db.pids.end());
  for (const char* s : {"KERNEL_DISPATCH", "MEMORY_COPY"}) c.strings.insert(s);
  for (const KernelDispatch& k : db.kernels) {
    c.pids.insert(k.pid);
    if (k.tid) c.threads.insert({k.pid, *k.tid});
    c.queues.insert(k.queue_id);
    c.streams.insert(k.stream_id);
    c.strings.insert(k.region_name);
    c.Symbol(k);
  }
  for (const MemoryCopy& m : db.copies) {
    c.pids.insert(m.pid);
    if (m.tid) c.threads.insert({m.pid, *m.tid});
    if (m.queue_id) c.queues.insert(*m.queue_id);
    if (m.stream_id) c.streams.insert(*m.stream_id);
    c.strings.insert(m.operation);
  }
  for (const Region& r : db.regions) {
    c.pids.insert(r.pid);
    c.threads.insert({r.pid, r.tid});
    c.strings.insert(r.name);
    c.strings.insert(r.category);
    if (r.message) c.strings.insert(*r.message);  // the writer interns marker messages too
  }
  for (const Sample& s : db.samples) {
    c.pids.insert(s.pid);
    c.threads.insert({s.pid, s.tid});
    c.strings.insert(s.category);
    if (s.message) c.strings.insert(*s.message);
    c.tracks.insert({s.pid, s.tid, s.category});
  }
  for (int64_t pid : c.pids) c.threads.insert({pid, pid});  // each main thread
  return c;
}

base::Status WriteInfo(Writer& w, const RocpdDb& db, Catalog& c,
                       std::map<std::string, int64_t>& string_ids) {
  int64_t id = 0;
  for (const std::string& s : c.strings) {  // sorted, '' first (Part F)
    string_ids[s] = ++id;
    DP_RETURN_IF_ERROR(w.Insert("rocpd_string", {{"id", id}, {"string", s}}));
  }
  DP_RETURN_IF_ERROR(
      w.Insert("rocpd_info_node", {{"id", kNode},
                                   {"hash", int64_t{0x5eed0fc0ffee}},
                                   {"machine_id", "f00dfeedcafe4b1d8e2f00000000beef"},
                                   {"system_name", "Linux"},
                                   {"hostname", "strix"},
                                   {"release", "6.11.0"},
                                   {"hardware_name", "x86_64"}}));
  const int64_t first_pid = *c.pids.begin();
  for (int64_t pid : c.pids) {
    DP_RETURN_IF_ERROR(w.Insert("rocpd_info_process", {{"id", pid},
                                                       {"nid", kNode},
                                                       {"ppid", int64_t{1}},
                                                       {"pid", pid},
                                                       {"init", int64_t{1'000}},
                                                       {"start", int64_t{1'000}},
                                                       {"command", "python3 bench.py"}}));
  }
  for (const auto& [pid, tid] : c.threads) {
    DP_RETURN_IF_ERROR(
        w.Insert("rocpd_info_thread",
                 {{"id", tid}, {"nid", kNode}, {"ppid", int64_t{1}}, {"pid", pid}, {"tid", tid}}));
  }
  for (const Agent& a : db.agents) {
    DP_RETURN_IF_ERROR(w.Insert("rocpd_info_agent", {{"id", a.id},
                                                     {"nid", kNode},
                                                     {"pid", first_pid},
                                                     {"type", a.type},
                                                     {"absolute_index", Opt(a.absolute_index)},
                                                     {"logical_index", Opt(a.logical_index)},
                                                     {"type_index", Opt(a.type_index)},
                                                     {"name", a.name},
                                                     {"model_name", a.name},
                                                     {"vendor_name", "AMD"},
                                                     {"product_name", a.product_name}}));
  }
  for (int64_t q : c.queues) {
    DP_RETURN_IF_ERROR(w.Insert(
        "rocpd_info_queue",
        {{"id", q}, {"nid", kNode}, {"pid", first_pid}, {"name", "Queue " + std::to_string(q)}}));
  }
  for (int64_t s : c.streams) {
    DP_RETURN_IF_ERROR(w.Insert(
        "rocpd_info_stream",
        {{"id", s},
         {"nid", kNode},
         {"pid", first_pid},
         {"name", s == 0 ? std::string("Default Stream") : "Stream " + std::to_string(s)}}));
  }
  if (!c.symbols.empty()) {
    const int64_t agent = db.agents.empty() ? 0 : db.agents.back().id;
    DP_RETURN_IF_ERROR(w.Insert("rocpd_info_code_object",
                                {{"id", int64_t{1}},
                                 {"nid", kNode},
                                 {"pid", first_pid},
                                 {"agent_id", agent},
                                 {"uri", "file:///opt/app/libkernels.so#offset=0&size=4096"},
                                 {"storage_type", "FILE"}}));
  }
  for (size_t i = 0; i < c.symbols.size(); ++i) {
    const auto& [kernel_name, display_name] = c.symbols[i];
    DP_RETURN_IF_ERROR(
        w.Insert("rocpd_info_kernel_symbol",
                 {{"id", static_cast<int64_t>(i + 1)},
                  {"nid", kNode},
                  {"pid", first_pid},
                  {"code_object_id", int64_t{1}},
                  {"kernel_name", kernel_name.empty() ? Value() : Value(kernel_name)},
                  {"display_name", display_name.empty() ? Value() : Value(display_name)},
                  {"group_segment_size", int64_t{0}},
                  {"private_segment_size", int64_t{0}},
                  {"sgpr_count", int64_t{16}},
                  {"arch_vgpr_count", int64_t{32}},
                  {"accum_vgpr_count", int64_t{0}}}));
  }
  int64_t track = 0;
  for (const auto& [pid, tid, category] : c.tracks) {
    DP_RETURN_IF_ERROR(w.Insert("rocpd_track", {{"id", ++track},
                                                {"nid", kNode},
                                                {"pid", pid},
                                                {"tid", tid},
                                                {"name_id", string_ids.at(category)}}));
  }
  return base::OkStatus();
}

base::Status WriteEvents(Writer& w, const RocpdDb& db, Catalog& c,
                         const std::map<std::string, int64_t>& strings) {
  int64_t event = 0;
  const auto add_event = [&](const std::string& category, int64_t stack, int64_t parent,
                             const std::optional<std::string>& message) {
    return w.Insert("rocpd_event", {{"id", ++event},
                                    {"category_id", strings.at(category)},
                                    {"stack_id", stack},
                                    {"parent_stack_id", parent},
                                    {"correlation_id", int64_t{0}},
                                    {"extdata", message ? MessageJson(*message) : "{}"}});
  };
  for (const Region& r : db.regions) {
    Value event_id;
    if (r.event) {
      DP_RETURN_IF_ERROR(add_event(r.category, r.id, r.parent, r.message));
      event_id = event;
    }
    DP_RETURN_IF_ERROR(w.Insert("rocpd_region", {{"id", r.id},
                                                 {"nid", kNode},
                                                 {"pid", r.pid},
                                                 {"tid", r.tid},
                                                 {"start", r.start},
                                                 {"end", r.end},
                                                 {"name_id", strings.at(r.name)},
                                                 {"event_id", event_id}}));
  }
  for (const Sample& s : db.samples) {
    DP_RETURN_IF_ERROR(add_event(s.category, s.id, 0, s.message));
    int64_t track = 0;
    for (const auto& t : c.tracks) {
      ++track;
      if (t == std::make_tuple(s.pid, s.tid, s.category)) break;
    }
    DP_RETURN_IF_ERROR(w.Insert(
        "rocpd_sample",
        {{"id", s.id}, {"track_id", track}, {"timestamp", s.timestamp}, {"event_id", event}}));
  }
  int64_t next_id = 0;
  for (const KernelDispatch& k : db.kernels) {
    Value event_id;
    if (k.correlation) {
      DP_RETURN_IF_ERROR(add_event("KERNEL_DISPATCH", *k.correlation, *k.correlation, {}));
      event_id = event;
    }
    const int64_t id = k.id != 0 ? k.id : ++next_id;
    DP_RETURN_IF_ERROR(
        w.Insert("rocpd_kernel_dispatch", {{"id", id},
                                           {"nid", kNode},
                                           {"pid", k.pid},
                                           {"tid", Opt(k.tid)},
                                           {"agent_id", k.agent_id},
                                           {"kernel_id", c.Symbol(k)},
                                           {"dispatch_id", id},
                                           {"queue_id", k.queue_id},
                                           {"stream_id", k.stream_id},
                                           {"start", k.start},
                                           {"end", k.end},
                                           {"private_segment_size", int64_t{0}},
                                           {"group_segment_size", int64_t{0}},
                                           {"workgroup_size_x", k.workgroup[0]},
                                           {"workgroup_size_y", k.workgroup[1]},
                                           {"workgroup_size_z", k.workgroup[2]},
                                           {"grid_size_x", k.grid[0]},
                                           {"grid_size_y", k.grid[1]},
                                           {"grid_size_z", k.grid[2]},
                                           {"region_name_id", strings.at(k.region_name)},
                                           {"event_id", event_id}}));
  }
  next_id = 0;
  for (const MemoryCopy& m : db.copies) {
    Value event_id;
    if (m.correlation) {
      DP_RETURN_IF_ERROR(add_event("MEMORY_COPY", *m.correlation, *m.correlation, {}));
      event_id = event;
    }
    DP_RETURN_IF_ERROR(w.Insert("rocpd_memory_copy", {{"id", m.id != 0 ? m.id : ++next_id},
                                                      {"nid", kNode},
                                                      {"pid", m.pid},
                                                      {"tid", Opt(m.tid)},
                                                      {"start", m.start},
                                                      {"end", m.end},
                                                      {"name_id", strings.at(m.operation)},
                                                      {"dst_agent_id", Opt(m.dst_agent_id)},
                                                      {"src_agent_id", Opt(m.src_agent_id)},
                                                      {"size", m.size},
                                                      {"queue_id", Opt(m.queue_id)},
                                                      {"stream_id", Opt(m.stream_id)},
                                                      {"region_name_id", strings.at("")},
                                                      {"event_id", event_id}}));
  }
  return base::OkStatus();
}

}  // namespace

std::vector<Agent> DefaultAgents() {
  Agent cpu;
  cpu.id = 0;
  cpu.type = "CPU";
  cpu.absolute_index = 0;
  cpu.logical_index = 0;
  cpu.type_index = 0;
  cpu.name = "AMD Ryzen AI MAX+ 395";
  cpu.product_name = "AMD Ryzen AI MAX+ 395 w/ Radeon 8060S";
  return {cpu, Agent{}};
}

Region ThreadRange(int64_t id, std::string message, int64_t start, int64_t end, int64_t tid) {
  Region r;
  r.id = id;
  r.tid = tid;
  r.start = start;
  r.end = end;
  r.name = "roctxThreadRangeA";
  r.category = "MARKER_CORE_RANGE_API";
  r.message = std::move(message);
  return r;
}

Region ProcessRange(int64_t id, std::string message, int64_t start, int64_t end, int64_t tid) {
  Region r = ThreadRange(id, std::move(message), start, end, tid);
  r.name = "roctxProcessRangeA";
  return r;
}

Region HipCall(int64_t id, std::string name, int64_t start, int64_t end, int64_t tid) {
  Region r;
  r.id = id;
  r.tid = tid;
  r.start = start;
  r.end = end;
  r.name = std::move(name);
  return r;
}

std::string TableSuffix(const std::string& guid) {
  std::string out = "_" + guid;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

base::Status WriteRocpdDb(const std::string& path, const RocpdDb& db) {
  const std::string suffix = TableSuffix(db.guid);
  Writer w(path, suffix);
  DP_RETURN_IF_ERROR(w.Open());
  DP_RETURN_IF_ERROR(
      w.Exec(Replace(Replace(std::string(kRocpdTables), "{{uuid}}", suffix), "{{guid}}", db.guid)));
  if (db.views) {
    for (const char* base : kRocpdViews) {
      DP_RETURN_IF_ERROR(w.Exec(std::string("CREATE VIEW IF NOT EXISTS `") + base +
                                "` AS SELECT * FROM `" + base + suffix + "`;"));
    }
  }
  if (db.metadata) {
    for (const auto& [tag, value] : std::vector<std::pair<std::string, std::string>>{
             {"schema_version", db.schema_version}, {"uuid", suffix}, {"guid", db.guid}}) {
      DP_RETURN_IF_ERROR(w.Insert("rocpd_metadata", {{"tag", tag}, {"value", value}}));
    }
  }
  Catalog catalog = Gather(db);
  std::map<std::string, int64_t> strings;
  DP_RETURN_IF_ERROR(WriteInfo(w, db, catalog, strings));
  DP_RETURN_IF_ERROR(WriteEvents(w, db, catalog, strings));
  return w.Commit();
}

base::Status WriteOldRpdDb(const std::string& path) {
  std::remove(path.c_str());
  // Part C, schema v3 (tableSchema.cmd), and utilitySchema.cmd's `api` view (compacted).
  const std::string sql = R"sql(
CREATE TABLE IF NOT EXISTS "rocpd_metadata" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "tag" varchar(4096) NOT NULL, "value" varchar(4096) NOT NULL);
CREATE TABLE IF NOT EXISTS "rocpd_string" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "string" varchar(4096) NOT NULL);
CREATE TABLE IF NOT EXISTS "rocpd_ustring" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "string" varchar(4096) NOT NULL);
CREATE TABLE IF NOT EXISTS "rocpd_api" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "pid" integer NOT NULL, "tid" integer NOT NULL, "start" integer NOT NULL, "end" integer NOT NULL, "apiName_id" bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED, "category_id" bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED, "domain_id" bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED, "args_id" bigint NOT NULL REFERENCES "rocpd_ustring" ("id") DEFERRABLE INITIALLY DEFERRED);
CREATE TABLE IF NOT EXISTS "rocpd_kernelapi" ("api_ptr_id" bigint NOT NULL PRIMARY KEY REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED, "stream" varchar(18) NOT NULL, "gridX" integer NOT NULL, "gridY" integer NOT NULL, "gridZ" integer NOT NULL, "workgroupX" integer NOT NULL, "workgroupY" integer NOT NULL, "workgroupZ" integer NOT NULL, "groupSegmentSize" integer NOT NULL, "privateSegmentSize" integer NOT NULL, "kernelName_id" bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED);
CREATE TABLE IF NOT EXISTS "rocpd_op" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "gpuId" integer NOT NULL, "queueId" integer NOT NULL, "sequenceId" integer NOT NULL, "start" integer NOT NULL, "end" integer NOT NULL, "description_id" bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED, "opType_id" bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED);
CREATE TABLE IF NOT EXISTS "rocpd_api_ops" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "api_id" bigint NOT NULL REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED, "op_id" bigint NOT NULL REFERENCES "rocpd_op" ("id") DEFERRABLE INITIALLY DEFERRED);
INSERT INTO "rocpd_metadata"(tag, value) VALUES ('gpu_stride', '1000');
INSERT INTO "rocpd_metadata"(tag, value) VALUES ('pid_stride', '10000000');
INSERT INTO "rocpd_metadata"(tag, value) VALUES ('schema_version', '3');
INSERT INTO "rocpd_string" VALUES (1, ''), (2, 'hipLaunchKernel'), (3, 'rms_norm_kernel'), (4, 'KernelExecution'), (5, 'UserMarker'), (6, 'HIP');
INSERT INTO "rocpd_ustring" VALUES (1, ''), (2, 'decodeprof:decode');
INSERT INTO "rocpd_api" VALUES (4294967297, 100, 100, 1000, 1100, 2, 6, 6, 1), (6442450945, 100, 100, 900, 900, 5, 5, 5, 2);
INSERT INTO "rocpd_kernelapi" VALUES (4294967297, '0x1', 256, 1, 1, 256, 1, 1, 0, 0, 3);
INSERT INTO "rocpd_op" VALUES (4294967297, 0, 0, 1, 2000, 2500, 3, 4);
INSERT INTO "rocpd_api_ops" VALUES (1, 4294967297, 4294967297);
CREATE VIEW api AS SELECT rocpd_api.id, pid, tid, start, end, A.string AS apiName, B.string AS args FROM rocpd_api INNER JOIN rocpd_string A ON A.id = rocpd_api.apiName_id INNER JOIN rocpd_ustring B ON B.id = rocpd_api.args_id;
)sql";
  sqlite3* db = nullptr;
  base::Status status;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK ||
      sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    status = base::IoError(path, std::string("cannot write: ") + sqlite3_errmsg(db));
  }
  sqlite3_close(db);
  return status;
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

}  // namespace decodeprof::io::rocpd_testing
