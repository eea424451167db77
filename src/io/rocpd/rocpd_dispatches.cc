// rocpd_kernel_dispatch and rocpd_memory_copy → trace::Dispatch (rocpd_importer.h).
#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/base/demangle.h"
#include "src/io/common/read_parts.h"
#include "src/io/rocpd/rocpd_reader.h"

namespace decodeprof::io::rocpd {
namespace {

enum class Source : int64_t { kKernel = 0, kCopy = 1 };

// Result columns of the dispatch query.
enum Col : int {
  kSource,
  kId,
  kGuid,
  kPid,
  kStart,
  kEnd,
  kAgentRef,     // kernel: agent_id; copy: dst_agent_id
  kSrcAgentRef,  // copy: src_agent_id
  kQueue,        // queue_id
  kStream,       // copy: stream_id
  kEventRef,     // event_id
  kEventFound,   // the joined event's id (NULL: no such event)
  kStack,        // its stack_id
  kNameRef,      // kernel: kernel_id; copy: name_id
  kRegionName,   // kernel: region_name_id
  kGridX,
  kGridY,
  kGridZ,
};

std::string_view SourceTable(int64_t source) {
  return source == static_cast<int64_t>(Source::kKernel) ? kDispatch : kCopy;
}

// The name of a kernel symbol: display_name, else kernel_name without ".kd"; demangled.
std::optional<std::string> SymbolName(const Symbol& s) {
  if (s.display_name && !s.display_name->empty()) return base::DemangledOrSelf(*s.display_name);
  if (s.kernel_name && !s.kernel_name->empty()) {
    std::string_view name = *s.kernel_name;
    if (name.ends_with(".kd")) name.remove_suffix(3);
    return base::DemangledOrSelf(name);
  }
  return std::nullopt;
}

// A dispatch's name as the file keys it: a region name's text, a kernel symbol, or a copy's
// operation (pointers into Context::tables, which stay put while dispatches are read).
struct NameKey {
  enum Kind : int { kNone = -1, kText, kSymbol, kCopy };
  Kind kind = kNone;
  const void* ptr = nullptr;
  bool operator==(const NameKey& o) const { return kind == o.kind && ptr == o.ptr; }
};
struct NameKeyHash {
  size_t operator()(const NameKey& k) const {
    return std::hash<const void*>{}(k.ptr) ^ static_cast<size_t>(k.kind);
  }
};

// A string id rocpd_string lacks, as Context::DanglingString counts it (the calling thread
// counts it; a part only notes it).
struct DanglingNote {
  std::string_view table;
  int64_t id = 0;
  std::string_view column;
  int64_t string_id = 0;
};

// The checks of one dispatch row (the query's columns are Col) that need no state but the
// file's and the small tables (Context::tables, read only): `d` but its name and line, `key`
// its name (set before the later checks of the row, so that the name is interned as one pass
// would), `guid_of` numbers a run's guid. A string id that is not in rocpd_string is noted in
// `dangling` as well as returned. Any thread.
template <typename GuidOf>
base::Status CheckDispatch(const Context& ctx, const SqliteQuery& q, GuidOf&& guid_of,
                           trace::Dispatch& d, NameKey& key,
                           std::optional<DanglingNote>& dangling) {
  const int64_t source = q.Int(kSource);
  const std::string_view table = SourceTable(source);
  const Row row(ctx, q, table, q.Int(kId));
  const auto string = [&](uint32_t guid, int64_t string_id,
                          std::string_view column) -> base::StatusOr<const std::string*> {
    auto it = ctx.tables.strings.find(Key{guid, string_id});
    if (it != ctx.tables.strings.end()) return &it->second;
    dangling = DanglingNote{table, row.id(), column, string_id};
    return ctx.RowError(
        table, row.id(),
        std::string(column) + " " + std::to_string(string_id) + " is not in table rocpd_string");
  };
  const auto find_agent = [&](uint32_t guid, std::string_view column,
                              int64_t id) -> base::StatusOr<const Agent*> {
    auto it = ctx.tables.agents.find(Key{guid, id});
    if (it == ctx.tables.agents.end()) return ctx.Dangling(table, row.id(), column, id, kAgent);
    return &it->second;
  };
  const auto stream_of = [&](std::string_view column, int64_t v) -> base::StatusOr<uint32_t> {
    if (v < 0 || v > std::numeric_limits<uint32_t>::max()) {
      return row.Error(std::string(column) + " " + std::to_string(v) +
                       " is out of range (0..4294967295)");
    }
    return static_cast<uint32_t>(v);
  };
  // Times, correlation and the run of any dispatch.
  DP_ASSIGN_OR_RETURN(const std::optional<std::string_view> guid_text, row.OptText(kGuid, "guid"));
  if (!guid_text) return row.Error("guid is NULL");
  const uint32_t guid = guid_of(*guid_text);
  DP_ASSIGN_OR_RETURN(d.start, row.Time(kStart, "start"));
  DP_ASSIGN_OR_RETURN(d.end, row.Time(kEnd, "end"));
  if (d.end < d.start) {
    return row.Error("end before start (" + std::to_string(d.end) + " < " +
                     std::to_string(d.start) + ")");
  }
  DP_ASSIGN_OR_RETURN(const int64_t pid, row.Int(kPid, "pid"));
  DP_ASSIGN_OR_RETURN(const std::optional<int64_t> event, row.OptInt(kEventRef, "event_id"));
  std::optional<int64_t> stack;
  if (event) {
    if (row.IsNull(kEventFound)) return ctx.Dangling(table, row.id(), "event_id", *event, kEvent);
    DP_ASSIGN_OR_RETURN(stack, row.OptInt(kStack, "the event's stack_id"));
  }
  DP_ASSIGN_OR_RETURN(d.correlation, ctx.Correlation(stack, guid, pid, table, row.id()));

  if (source == static_cast<int64_t>(Source::kKernel)) {
    DP_ASSIGN_OR_RETURN(const int64_t agent_id, row.Int(kAgentRef, "agent_id"));
    DP_ASSIGN_OR_RETURN(const Agent* agent, find_agent(guid, "agent_id", agent_id));
    d.device = agent->number;
    DP_ASSIGN_OR_RETURN(const int64_t queue, row.Int(kQueue, "queue_id"));
    DP_ASSIGN_OR_RETURN(d.stream, stream_of("queue_id", queue));
    DP_ASSIGN_OR_RETURN(const int64_t kernel_id, row.Int(kNameRef, "kernel_id"));
    DP_ASSIGN_OR_RETURN(const std::optional<int64_t> rename,
                        row.OptInt(kRegionName, "region_name_id"));
    if (rename) {
      DP_ASSIGN_OR_RETURN(const std::string* text, string(guid, *rename, "region_name_id"));
      if (!text->empty()) key = NameKey{NameKey::kText, text};
    }
    if (key.kind == NameKey::kNone) {
      auto it = ctx.tables.symbols.find(Key{guid, kernel_id});
      if (it == ctx.tables.symbols.end()) {
        return ctx.Dangling(kDispatch, row.id(), "kernel_id", kernel_id, kSymbol);
      }
      const Symbol& symbol = it->second;
      // SymbolName's test, without its demangling (done once per symbol when interned).
      if (!(symbol.display_name && !symbol.display_name->empty()) &&
          !(symbol.kernel_name && !symbol.kernel_name->empty())) {
        return row.Error("the kernel has no name (kernel symbol " + std::to_string(kernel_id) +
                         " has neither display_name nor kernel_name)");
      }
      key = NameKey{NameKey::kSymbol, &symbol};
    }
    d.grid = 1;
    const char* columns[] = {"grid_size_x", "grid_size_y", "grid_size_z"};
    for (int c = kGridX; c <= kGridZ; ++c) {
      DP_ASSIGN_OR_RETURN(const int64_t size, row.Int(c, columns[c - kGridX]));
      if (__builtin_mul_overflow(d.grid, std::max<int64_t>(size, 1), &d.grid)) {
        return row.Error("grid size does not fit in 64 bits");
      }
    }
    return base::OkStatus();
  }
  d.kind = trace::DispatchKind::kMemcpy;
  DP_ASSIGN_OR_RETURN(const int64_t name_id, row.Int(kNameRef, "name_id"));
  DP_ASSIGN_OR_RETURN(const std::string* operation, string(guid, name_id, "name_id"));
  key = NameKey{NameKey::kCopy, operation};
  // The device: the GPU among the destination and the source (dst first).
  const Agent* chosen = nullptr;
  const Agent* first = nullptr;
  const std::pair<int, const char*> ends[] = {{kAgentRef, "dst_agent_id"},
                                              {kSrcAgentRef, "src_agent_id"}};
  for (const auto& [col, column] : ends) {
    DP_ASSIGN_OR_RETURN(const std::optional<int64_t> id, row.OptInt(col, column));
    if (!id) continue;
    DP_ASSIGN_OR_RETURN(const Agent* agent, find_agent(guid, column, *id));
    if (first == nullptr) first = agent;
    if (chosen == nullptr && agent->gpu) chosen = agent;
  }
  if (chosen == nullptr) chosen = first;
  d.device = chosen == nullptr ? 0 : chosen->number;
  DP_ASSIGN_OR_RETURN(const std::optional<int64_t> queue, row.OptInt(kQueue, "queue_id"));
  DP_ASSIGN_OR_RETURN(const std::optional<int64_t> stream, row.OptInt(kStream, "stream_id"));
  if (queue) {
    DP_ASSIGN_OR_RETURN(d.stream, stream_of("queue_id", *queue));
  } else if (stream) {
    DP_ASSIGN_OR_RETURN(d.stream, stream_of("stream_id", *stream));
  }
  return base::OkStatus();
}

// Dispatch names into the pool, in the order they come (the calling thread only).
class DispatchNames {
 public:
  explicit DispatchNames(Context& ctx) : ctx_(ctx) {}

  trace::StringId Name(const NameKey& key) {
    switch (key.kind) {
      case NameKey::kText:
        return ctx_.names().Intern(*static_cast<const std::string*>(key.ptr));
      case NameKey::kSymbol: {
        // (Only the calling thread writes a symbol's name, while no part reads.)
        Symbol& symbol = *const_cast<Symbol*>(static_cast<const Symbol*>(key.ptr));
        if (!symbol.name) symbol.name = ctx_.names().Intern(*SymbolName(symbol));
        return *symbol.name;
      }
      case NameKey::kCopy:
      case NameKey::kNone:
        break;
    }
    const std::string& operation = *static_cast<const std::string*>(key.ptr);
    auto [it, added] = memcpy_names_.emplace(operation, 0);
    if (added) it->second = ctx_.names().Intern(RocpdMemcpyName(operation));
    return it->second;
  }

 private:
  Context& ctx_;
  std::unordered_map<std::string, trace::StringId> memcpy_names_;
};

// One table's dispatch query, and its current row (`rc`: SQLite's result of the last Step).
struct Scan {
  Source source;
  std::string_view table;
  std::string sql;
  std::unique_ptr<SqliteQuery> q;
  int rc = SQLITE_DONE;
  std::string_view alias;  // of the table in `sql`: K, M
};

// A caller that keeps every dispatch (TraceBuilder::keeps_everything) and tables in start
// order (by id): the dispatches read in start-time parts, each on a thread of its own over a
// connection of its own (nsys_reader.cc's DispatchParts, with ids for rowids). Every part
// checks that its rows are in start order and inside its start range (integers all).
class DispatchParts {
 public:
  DispatchParts(Context& ctx, const std::vector<Scan>& scans) : ctx_(ctx), scans_(scans) {}

  std::optional<base::Status> Run() {
    if (!Plan()) return std::nullopt;
    std::vector<Part> parts(bounds_.size() + 1);
    // Each part counts its rows (no row decoded), then reads them straight into the sink's room
    // at its offset, or into its own rows when the sink has none (read_parts.h).
    // A caller that keeps a window only: the parts go into spools (read_parts.h).
    const bool spooled = !ctx_.builder.keeps_everything() && !ctx_.options.read_in_parts;
    const std::optional<bool> read = ReadPartsInPlace(
        ctx_.builder, parts, [this](size_t p) { return Count(p); },
        [this](size_t p, Part& part) { Read(p, part); }, spooled);
    if (!read) return std::nullopt;
    const bool in_place = *read;
    DispatchNames names(ctx_);
    uint32_t line = 0;
    size_t filled = 0;  // in place: the rows ready
    std::vector<trace::StringId> pool_ids;
    base::Status status;
    for (Part& part : parts) {
      // Runs first met here are numbered as one pass numbers them.
      for (const std::string& guid : part.new_guids) ctx_.Guid(guid);
      const std::vector<NameKey>& keys = part.keys.keys();
      pool_ids.resize(keys.size());
      for (size_t k = 0; k < keys.size(); ++k) pool_ids[k] = names.Name(keys[k]);
      status = part.HandOn(ctx_.builder, pool_ids, in_place, line, filled);
      if (!status.ok()) break;
      ctx_.result.kernels += part.kernels;
      ctx_.result.memory_copies += part.copies;
      if (part.dangling) {
        const DanglingNote& n = *part.dangling;
        status = ctx_.DanglingString(n.table, n.id, n.column, n.string_id);
        break;
      }
      status = part.status;
      if (!status.ok()) break;
    }
    // (The parts' slots lie one after another from the first one's.)
    if (in_place) ctx_.builder.AddFilledDispatches({parts.front().slot.data(), filled});
    return status;
  }

 private:
  struct Part : PartRows {
    // Rows are named by the number of their key in `keys` until the calling thread names them.
    FirstSeen<NameKey, NameKeyHash> keys;
    std::vector<std::string> new_guids;  // runs not numbered yet, in order of first sight
    int64_t kernels = 0;
    int64_t copies = 0;
    std::optional<DanglingNote> dangling;
  };

  // The id range of table `t` in part `p` (" WHERE <alias>id >= a AND <alias>id < b").
  std::string Range(size_t t, size_t p, std::string_view column) const {
    const std::optional<int64_t> first =
        p == 0 ? std::nullopt : std::optional<int64_t>(cuts_[t][p - 1]);
    const std::optional<int64_t> end =
        p == bounds_.size() ? std::nullopt : std::optional<int64_t>(cuts_[t][p]);
    return KeyRange(column, first, end);
  }

  // The rows of part `p`, -1 when a count fails (over a connection of its own: any thread).
  int64_t Count(size_t p) const {
    auto opened = SqliteDb::Open(ctx_.path);
    if (!opened.ok()) return -1;
    int64_t rows = 0;
    for (size_t t = 0; t < scans_.size(); ++t) {
      if (cuts_[t].empty()) continue;
      SqliteQuery q(*opened,
                    "SELECT count(*) FROM " + ctx_.From(scans_[t].table) + Range(t, p, "id"));
      if (!q.prepared() || q.Step() != SQLITE_ROW) return -1;
      rows += q.Int(0);
    }
    return rows;
  }

  bool Plan() {
    int64_t rows = 0;
    size_t largest = 0;
    std::vector<std::optional<std::pair<int64_t, int64_t>>> spans;
    for (size_t t = 0; t < scans_.size(); ++t) {
      const std::string from = ctx_.From(scans_[t].table);
      spans.push_back(KeySpan(ctx_.db, from, "id"));
      if (!spans[t]) {  // empty, else not for parts
        SqliteQuery any(ctx_.db, "SELECT EXISTS(SELECT 1 FROM " + from + ")");
        if (!any.prepared() || any.Step() != SQLITE_ROW || any.Int(0) != 0) return false;
        continue;
      }
      const int64_t span = spans[t]->second - spans[t]->first + 1;
      if (!spans[largest] || span > spans[largest]->second - spans[largest]->first + 1) {
        largest = t;
      }
      rows += span;
    }
    const int64_t parts = PartCount(rows, ctx_.options.rows_per_part,
                                    ctx_.options.read_in_parts || ctx_.options.force_part_count);
    if (parts < 2 || !spans[largest]) return false;
    const auto [lo, hi] = *spans[largest];
    SqliteQuery at(ctx_.db, "SELECT start FROM " + ctx_.From(scans_[largest].table) +
                                " WHERE id >= ?1 ORDER BY id LIMIT 1");
    if (!at.prepared()) return false;
    for (int64_t p = 1; p < parts; ++p) {
      sqlite3_reset(at.stmt());
      sqlite3_bind_int64(at.stmt(), 1, lo + (hi - lo) / parts * p);
      if (at.Step() != SQLITE_ROW || at.Type(0) != SQLITE_INTEGER) return false;
      if (bounds_.empty() || at.Int(0) > bounds_.back()) bounds_.push_back(at.Int(0));
    }
    if (bounds_.empty()) return false;
    cuts_.assign(scans_.size(), {});
    for (size_t t = 0; t < scans_.size(); ++t) {
      if (!spans[t]) continue;  // empty: read by none
      for (const int64_t bound : bounds_) {
        const std::optional<int64_t> cut =
            FirstKeyAtLeast(ctx_.db, ctx_.From(scans_[t].table), "id", "start", bound,
                            spans[t]->first, spans[t]->second);
        if (!cut) return false;
        cuts_[t].push_back(*cut);
      }
    }
    return true;
  }

  void Read(size_t p, Part& part) const {
    auto opened = SqliteDb::Open(ctx_.path);
    if (!opened.ok()) {
      part.status = opened.status();
      return;
    }
    const SqliteDb& db = *opened;
    const std::optional<int64_t> from =
        p == 0 ? std::nullopt : std::optional<int64_t>(bounds_[p - 1]);
    const std::optional<int64_t> to =
        p == bounds_.size() ? std::nullopt : std::optional<int64_t>(bounds_[p]);
    struct Rows {
      std::unique_ptr<SqliteQuery> q;
      int rc = SQLITE_DONE;
      int64_t last = std::numeric_limits<int64_t>::min();
    };
    std::vector<Rows> ranges;
    for (size_t t = 0; t < scans_.size(); ++t) {
      if (cuts_[t].empty()) continue;
      Rows& r = ranges.emplace_back();
      r.q = std::make_unique<SqliteQuery>(
          db, scans_[t].sql + Range(t, p, std::string(scans_[t].alias) + ".id") + " ORDER BY 2");
      if (!r.q->prepared()) {
        part.status = db.Error(*r.q, "cannot read table " + std::string(kDispatch));
        return;
      }
      r.q->Cache();  // CheckDispatch checks the types
    }
    const auto step = [&](Rows& r) {
      r.rc = r.q->Step();
      if (r.rc != SQLITE_ROW) return true;
      if (r.q->Type(kStart) != SQLITE_INTEGER) return false;
      const int64_t start = r.q->Int(kStart);
      if (start < r.last || (from && start < *from) || (to && start >= *to)) return false;
      r.last = start;
      return true;
    };
    for (Rows& r : ranges) {
      if (!step(r)) {
        part.in_order = false;
        return;
      }
    }
    // Guids: those Context::guids has (read only here), others numbered past them in order
    // of first sight (the calling thread adds them in that order).
    const std::vector<std::string>& known = ctx_.guids;
    uint32_t last_guid = 0;
    const auto guid_of = [&](std::string_view guid) -> uint32_t {
      if (last_guid < known.size() && known[last_guid] == guid) return last_guid;
      for (size_t i = 0; i < known.size(); ++i) {
        if (known[i] == guid) return last_guid = static_cast<uint32_t>(i);
      }
      // Not in the small tables' runs: it matches no row of them (the number is never looked
      // up), so any number beyond them will do.
      for (const std::string& g : part.new_guids) {
        if (g == guid) return std::numeric_limits<uint32_t>::max();
      }
      part.new_guids.emplace_back(guid);
      return std::numeric_limits<uint32_t>::max();
    };
    while (true) {
      Rows* next = nullptr;
      for (Rows& r : ranges) {
        if (r.rc != SQLITE_ROW) {
          if (r.rc != SQLITE_DONE) {
            part.status = db.Error(*r.q, "cannot read table " + std::string(kDispatch));
            break;
          }
          continue;
        }
        if (next == nullptr || r.q->Int(kStart) < next->q->Int(kStart)) next = &r;
      }
      if (!part.status.ok() || next == nullptr) break;
      trace::Dispatch d;
      NameKey key;
      part.status = CheckDispatch(ctx_, *next->q, guid_of, d, key, part.dangling);
      if (key.kind != NameKey::kNone) d.name = part.keys.Number(key);
      if (!part.status.ok()) break;
      ++(d.kind == trace::DispatchKind::kKernel ? part.kernels : part.copies);
      if (!part.Keep(d)) {  // more rows than counted: the file changed under the read
        part.in_order = false;
        return;
      }
      if (!step(*next)) {
        part.in_order = false;
        return;
      }
    }
    // After a bad row the rest is still checked for its order.
    for (Rows& r : ranges) {
      while (r.rc == SQLITE_ROW) {
        if (!step(r)) {
          part.in_order = false;
          return;
        }
      }
    }
  }

  Context& ctx_;
  const std::vector<Scan>& scans_;
  std::vector<int64_t> bounds_;
  std::vector<std::vector<int64_t>> cuts_;
};

class DispatchReader {
 public:
  explicit DispatchReader(Context& ctx) : ctx_(ctx), names_(ctx) {}

  // Each table is read in start order without a sort of both (a UNION ALL sorted by start,
  // table and id): a table whose rows lie in start order in id order (a check reads its start
  // and id columns first) is scanned as it lies, the other is sorted alone (SQLite's sorter,
  // bounded memory); the rows are merged here in the order the sorted union gives. A start or
  // id that is not an integer (NULL, text: SQLite's order of mixed types) takes that sorted
  // union, as before. A caller that keeps everything gets them read in parts on threads
  // (DispatchParts) when every table lies in start order.
  base::Status Run() {
    std::vector<Scan> scans;
    scans.push_back(Scan{Source::kKernel, kDispatch, KernelQuery(), nullptr, SQLITE_DONE, "K"});
    if (ctx_.Has(kCopy)) {
      scans.push_back(Scan{Source::kCopy, kCopy, CopyQuery(), nullptr, SQLITE_DONE, "M"});
    }
    if (ctx_.builder.keeps_everything() || ctx_.options.read_in_parts || ctx_.options.spool_parts) {
      if (std::optional<base::Status> read = DispatchParts(ctx_, scans).Run()) return *read;
    }
    for (Scan& scan : scans) {
      DP_ASSIGN_OR_RETURN(const StartOrder order, CheckStartOrder(scan.table));
      if (order == StartOrder::kMixedTypes) return RunSorted(scans);
      scan.sql += order == StartOrder::kInOrder ? " ORDER BY 2" : " ORDER BY 5, 2";
    }
    for (Scan& scan : scans) {
      scan.q = std::make_unique<SqliteQuery>(ctx_.db, scan.sql);
      if (!scan.q->prepared()) return ctx_.SqlError(*scan.q, kDispatch);
      scan.q->Cache();  // Row checks the types
      scan.rc = scan.q->Step();
    }
    while (true) {
      Scan* next = nullptr;
      for (Scan& scan : scans) {
        if (scan.rc != SQLITE_ROW) {
          if (scan.rc != SQLITE_DONE) return ctx_.SqlError(*scan.q, kDispatch);
          continue;
        }
        // Ties go to the earlier table (kernels, then copies).
        if (next == nullptr || scan.q->Int(kStart) < next->q->Int(kStart)) next = &scan;
      }
      if (next == nullptr) break;
      DP_RETURN_IF_ERROR(Add(*next->q));
      next->rc = next->q->Step();
    }
    return base::OkStatus();
  }

 private:
  enum class StartOrder { kInOrder, kUnordered, kMixedTypes };

  // Whether the rows of `view`, in id order, are in start order (every start and id an
  // integer, no start below the one before): a scan of its start and id columns.
  base::StatusOr<StartOrder> CheckStartOrder(std::string_view view) const {
    SqliteQuery q(ctx_.db, "SELECT start, id FROM " + ctx_.From(view) + " ORDER BY id");
    if (!q.prepared()) return ctx_.SqlError(q, kDispatch);
    StartOrder order = StartOrder::kInOrder;
    int64_t last = std::numeric_limits<int64_t>::min();
    while (q.Step() == SQLITE_ROW) {
      if (q.Type(0) != SQLITE_INTEGER || q.Type(1) != SQLITE_INTEGER) {
        return StartOrder::kMixedTypes;
      }
      const int64_t start = q.Int(0);
      if (start < last) order = StartOrder::kUnordered;
      last = start;
    }
    if (q.rc() != SQLITE_DONE) return ctx_.SqlError(q, kDispatch);
    return order;
  }

  // Both tables as one query sorted by SQLite (start, table, id).
  base::Status RunSorted(const std::vector<Scan>& scans) {
    std::string sql;
    for (const Scan& scan : scans) sql += (sql.empty() ? "" : " UNION ALL ") + scan.sql;
    SqliteQuery q(ctx_.db, sql + " ORDER BY 5, 1, 2");
    if (!q.prepared()) return ctx_.SqlError(q, kDispatch);
    q.Cache();
    while (q.Step() == SQLITE_ROW) DP_RETURN_IF_ERROR(Add(q));
    if (q.rc() != SQLITE_DONE) return ctx_.SqlError(q, kDispatch);
    return base::OkStatus();
  }

  // The current row of `q` (columns Col) into the model, numbered in the order rows come.
  base::Status Add(const SqliteQuery& q) {
    trace::Dispatch d;
    NameKey key;
    std::optional<DanglingNote> dangling;
    const base::Status checked = CheckDispatch(
        ctx_, q, [this](std::string_view guid) { return ctx_.Guid(guid); }, d, key, dangling);
    if (key.kind != NameKey::kNone) d.name = names_.Name(key);
    if (dangling)
      return ctx_.DanglingString(dangling->table, dangling->id, dangling->column,
                                 dangling->string_id);
    DP_RETURN_IF_ERROR(checked);
    ++(d.kind == trace::DispatchKind::kKernel ? ctx_.result.kernels : ctx_.result.memory_copies);
    d.line = line_ < UINT32_MAX ? ++line_ : line_;
    ctx_.builder.AddDispatch(d);
    return base::OkStatus();
  }

  std::string KernelQuery() const {
    return "SELECT 0, K.id, K.guid, K.pid, K.start, K.\"end\", K.agent_id, NULL, K.queue_id, "
           "NULL, K.event_id, E.id, E.stack_id, K.kernel_id, K.region_name_id, K.grid_size_x, "
           "K.grid_size_y, K.grid_size_z FROM " +
           ctx_.From(kDispatch) + " K LEFT JOIN " + ctx_.From(kEvent) +
           " E ON E.id = K.event_id AND E.guid = K.guid";
  }

  std::string CopyQuery() const {
    return "SELECT 1, M.id, M.guid, M.pid, M.start, M.\"end\", M.dst_agent_id, "
           "M.src_agent_id, M.queue_id, M.stream_id, M.event_id, E.id, E.stack_id, M.name_id, "
           "NULL, NULL, NULL, NULL FROM " +
           ctx_.From(kCopy) + " M LEFT JOIN " + ctx_.From(kEvent) +
           " E ON E.id = M.event_id AND E.guid = M.guid";
  }

  Context& ctx_;
  DispatchNames names_;
  uint32_t line_ = 0;
};

}  // namespace

base::Status ReadDispatches(Context& ctx) { return DispatchReader(ctx).Run(); }

}  // namespace decodeprof::io::rocpd
