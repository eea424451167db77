// rocpd_kernel_dispatch and rocpd_memory_copy → trace::Dispatch (rocpd_importer.h).
#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/base/demangle.h"
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

class DispatchReader {
 public:
  explicit DispatchReader(Context& ctx) : ctx_(ctx) {}

  // Each table is read in start order without a sort of both (a UNION ALL sorted by start,
  // table and id): a table whose rows lie in start order in id order (a check reads its start
  // and id columns first) is scanned as it lies, the other is sorted alone (SQLite's sorter,
  // bounded memory); the rows are merged here in the order the sorted union gives. A start or
  // id that is not an integer (NULL, text: SQLite's order of mixed types) takes that sorted
  // union, as before.
  base::Status Run() {
    std::vector<Scan> scans;
    scans.push_back(Scan{Source::kKernel, kDispatch, KernelQuery()});
    if (ctx_.Has(kCopy)) scans.push_back(Scan{Source::kCopy, kCopy, CopyQuery()});
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
  // One table's dispatch query, and its current row (`rc`: SQLite's result of the last Step).
  struct Scan {
    Source source;
    std::string_view table;
    std::string sql;
    std::unique_ptr<SqliteQuery> q;
    int rc = SQLITE_DONE;
  };

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
    const int64_t source = q.Int(kSource);
    const std::string_view table = SourceTable(source);
    const Row row(ctx_, q, table, q.Int(kId));
    trace::Dispatch d;
    DP_RETURN_IF_ERROR(Common(row, table, d));
    if (source == static_cast<int64_t>(Source::kKernel)) {
      DP_RETURN_IF_ERROR(Kernel(row, d));
    } else {
      DP_RETURN_IF_ERROR(Copy(row, d));
    }
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

  // Times, correlation and the run of any dispatch.
  base::Status Common(const Row& row, std::string_view table, trace::Dispatch& d) {
    DP_ASSIGN_OR_RETURN(guid_, row.Guid(kGuid, ctx_));
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
      if (row.IsNull(kEventFound)) {
        return ctx_.Dangling(table, row.id(), "event_id", *event, kEvent);
      }
      DP_ASSIGN_OR_RETURN(stack, row.OptInt(kStack, "the event's stack_id"));
    }
    DP_ASSIGN_OR_RETURN(d.correlation, ctx_.Correlation(stack, guid_, pid, table, row.id()));
    return base::OkStatus();
  }

  base::StatusOr<const Agent*> FindAgent(const Row& row, std::string_view table,
                                         std::string_view column, int64_t id) const {
    auto it = ctx_.tables.agents.find(Key{guid_, id});
    if (it == ctx_.tables.agents.end()) return ctx_.Dangling(table, row.id(), column, id, kAgent);
    return &it->second;
  }

  static base::StatusOr<uint32_t> Stream(const Row& row, std::string_view column, int64_t v) {
    if (v < 0 || v > std::numeric_limits<uint32_t>::max()) {
      return row.Error(std::string(column) + " " + std::to_string(v) +
                       " is out of range (0..4294967295)");
    }
    return static_cast<uint32_t>(v);
  }

  base::Status Kernel(const Row& row, trace::Dispatch& d) {
    ++ctx_.result.kernels;
    DP_ASSIGN_OR_RETURN(const int64_t agent_id, row.Int(kAgentRef, "agent_id"));
    DP_ASSIGN_OR_RETURN(const Agent* agent, FindAgent(row, kDispatch, "agent_id", agent_id));
    d.device = agent->number;
    DP_ASSIGN_OR_RETURN(const int64_t queue, row.Int(kQueue, "queue_id"));
    DP_ASSIGN_OR_RETURN(d.stream, Stream(row, "queue_id", queue));
    DP_ASSIGN_OR_RETURN(const int64_t kernel_id, row.Int(kNameRef, "kernel_id"));
    DP_ASSIGN_OR_RETURN(const std::optional<int64_t> rename,
                        row.OptInt(kRegionName, "region_name_id"));
    std::optional<trace::StringId> name;
    if (rename) {
      DP_ASSIGN_OR_RETURN(const std::string* text,
                          ctx_.String(guid_, *rename, kDispatch, row.id(), "region_name_id"));
      if (!text->empty()) name = ctx_.names().Intern(*text);
    }
    if (!name) {
      auto it = ctx_.tables.symbols.find(Key{guid_, kernel_id});
      if (it == ctx_.tables.symbols.end()) {
        return ctx_.Dangling(kDispatch, row.id(), "kernel_id", kernel_id, kSymbol);
      }
      Symbol& symbol = it->second;
      if (!symbol.name) {
        const std::optional<std::string> text = SymbolName(symbol);
        if (!text) {
          return row.Error("the kernel has no name (kernel symbol " + std::to_string(kernel_id) +
                           " has neither display_name nor kernel_name)");
        }
        symbol.name = ctx_.names().Intern(*text);
      }
      name = symbol.name;
    }
    d.name = *name;
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

  base::Status Copy(const Row& row, trace::Dispatch& d) {
    ++ctx_.result.memory_copies;
    d.kind = trace::DispatchKind::kMemcpy;
    DP_ASSIGN_OR_RETURN(const int64_t name_id, row.Int(kNameRef, "name_id"));
    DP_ASSIGN_OR_RETURN(const std::string* operation,
                        ctx_.String(guid_, name_id, kCopy, row.id(), "name_id"));
    auto [it, added] = memcpy_names_.emplace(*operation, 0);
    if (added) it->second = ctx_.names().Intern(RocpdMemcpyName(*operation));
    d.name = it->second;
    // The device: the GPU among the destination and the source (dst first).
    const Agent* chosen = nullptr;
    const Agent* first = nullptr;
    const std::pair<int, const char*> ends[] = {{kAgentRef, "dst_agent_id"},
                                                {kSrcAgentRef, "src_agent_id"}};
    for (const auto& [col, column] : ends) {
      DP_ASSIGN_OR_RETURN(const std::optional<int64_t> id, row.OptInt(col, column));
      if (!id) continue;
      DP_ASSIGN_OR_RETURN(const Agent* agent, FindAgent(row, kCopy, column, *id));
      if (first == nullptr) first = agent;
      if (chosen == nullptr && agent->gpu) chosen = agent;
    }
    if (chosen == nullptr) chosen = first;
    d.device = chosen == nullptr ? 0 : chosen->number;
    DP_ASSIGN_OR_RETURN(const std::optional<int64_t> queue, row.OptInt(kQueue, "queue_id"));
    DP_ASSIGN_OR_RETURN(const std::optional<int64_t> stream, row.OptInt(kStream, "stream_id"));
    if (queue) {
      DP_ASSIGN_OR_RETURN(d.stream, Stream(row, "queue_id", *queue));
    } else if (stream) {
      DP_ASSIGN_OR_RETURN(d.stream, Stream(row, "stream_id", *stream));
    }
    return base::OkStatus();
  }

  Context& ctx_;
  uint32_t guid_ = 0;
  uint32_t line_ = 0;
  std::unordered_map<std::string, trace::StringId> memcpy_names_;
};

}  // namespace

base::Status ReadDispatches(Context& ctx) { return DispatchReader(ctx).Run(); }

}  // namespace decodeprof::io::rocpd
