// rocpd_region and rocpd_sample → launch calls, roctx ranges and marks (rocpd_importer.h;
// reference B6, B8).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "src/base/large_pages.h"
#include "src/base/sorting.h"
#include "src/base/spill.h"
#include "src/io/common/read_parts.h"
#include "src/io/rocpd/rocpd_reader.h"
#include "src/trace/spool.h"

namespace decodeprof::io::rocpd {
namespace {

// The marker operations of MARKER_CORE_RANGE_API (B8) that make ranges and marks.
constexpr std::string_view kThreadRangeOp = "roctxThreadRangeA";
constexpr std::string_view kProcessRangeOp = "roctxProcessRangeA";
constexpr std::string_view kMarkOp = "roctxMarkA";

enum class Kind { kPushPop, kStartStop, kMark };

struct Item {
  trace::Range range;
  Kind kind = Kind::kPushPop;
  int source = 0;  // 0 region, 1 sample: with id, the tie-break of equal ranges
  int64_t id = 0;
  uint32_t guid = 0;
};

bool IsMarker(std::string_view category) { return category.starts_with("MARKER_"); }

// Nesting depth of the push/pop ranges and marks on each thread ((guid, tid)): by start, the
// longer range first on ties; a range is inside every open range that has not ended by its
// start. rocpd stores no nesting (B8), as nsys does not (A7).
void AssignDepths(std::vector<Item>& items) {
  std::vector<size_t> order;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].kind != Kind::kStartStop) order.push_back(i);
  }
  const auto before = [&](size_t a, size_t b) {
    const Item& x = items[a];
    const Item& y = items[b];
    if (x.guid != y.guid) return x.guid < y.guid;
    if (x.range.thread != y.range.thread) return x.range.thread < y.range.thread;
    if (x.range.start != y.range.start) return x.range.start < y.range.start;
    if (x.range.end != y.range.end) return x.range.end > y.range.end;  // the outer one first
    return std::make_tuple(x.source, x.id) < std::make_tuple(y.source, y.id);
  };
  // The rows come in this order but for the enclosing ranges, written as they end (a range per
  // dispatch makes millions): SortMostlySorted's linear pass then, not a sort of them all.
  base::SortMostlySorted(order, before);
  std::vector<int64_t> open_ends;
  for (size_t k = 0; k < order.size(); ++k) {
    Item& r = items[order[k]];
    if (k == 0 || items[order[k - 1]].guid != r.guid ||
        items[order[k - 1]].range.thread != r.range.thread) {
      open_ends.clear();
    }
    while (!open_ends.empty() && open_ends.back() <= r.range.start) open_ends.pop_back();
    r.range.depth = static_cast<int32_t>(open_ends.size());
    // A mark (no length) never holds another range.
    if (r.range.end > r.range.start) open_ends.push_back(r.range.end);
  }
}

}  // namespace

class RegionReader {
 public:
  explicit RegionReader(Context& ctx) : ctx_(ctx) {}
  RegionReader(const RegionReader&) = delete;
  RegionReader& operator=(const RegionReader&) = delete;
  ~RegionReader() { Join(); }

  // A caller that keeps everything: starts reading the regions in id parts on threads of their
  // own, which the calling thread may leave to run while it reads the dispatches (they read
  // only Context's small tables, a copy of its runs and the file). Else nothing yet.
  void Start() {
    if (ctx_.builder.keeps_everything() || ctx_.options.read_in_parts) {
      StartParts();
    } else if (!ctx_.options.regions_on_calling_thread) {
      StartBeside();
    }
  }

  // The regions (the parts started, else one pass) and samples, handed on.
  base::Status Finish() {
    DP_RETURN_IF_ERROR(readers_.empty() ? Regions() : FinishParts());
    if (ctx_.Has(kSample)) DP_RETURN_IF_ERROR(Samples());
    AssignDepths(items_);
    const auto in_start_order = [](const Item& a, const Item& b) {
      return std::make_tuple(a.range.start, a.range.depth, a.source, a.id) <
             std::make_tuple(b.range.start, b.range.depth, b.source, b.id);
    };
    base::SortMostlySorted(items_, in_start_order);
    base::ReserveFaultedIn(ctx_.builder.trace().ranges,
                           ctx_.builder.trace().ranges.size() + items_.size());
    for (const Item& item : items_) {
      ctx_.builder.AddRange(item.range);
      ++(item.kind == Kind::kMark ? ctx_.result.marks : ctx_.result.ranges);
    }
    ctx_.result.events_skipped = skipped_;
    ctx_.builder.diagnostics().Add(trace::Diag::kEventsSkipped, skipped_, first_skipped_);
    return base::OkStatus();
  }

 private:
  enum RegionCol : int {
    kId,
    kGuid,
    kPid,
    kTid,
    kStart,
    kEnd,
    kName,
    kEventRef,
    kEventFound,
    kCategory,
    kStack,
    kExtdata
  };

  // What one region row makes.
  struct RegionOut {
    enum What { kCall, kItem, kSkip } what = kSkip;
    trace::ApiCall call;                // kCall, its name not set
    const std::string* name = nullptr;  // kCall: its name
    Item item;                          // kItem, its range's name not set
    std::string message;                // kItem: its name
    std::string skip_position, skip_detail;
  };

  // A string id rocpd_string lacks (Context::DanglingString counts it on the calling thread).
  struct DanglingNote {
    std::string_view table;
    int64_t id = 0;
    std::string_view column;
    int64_t string_id = 0;
  };

  std::string RegionQuery() const {
    return "SELECT R.id, R.guid, R.pid, R.tid, R.start, R.\"end\", R.name_id, R.event_id, "
           "E.id, E.category_id, E.stack_id, E.extdata FROM " +
           ctx_.From(kRegion) + " R LEFT JOIN " + ctx_.From(kEvent) +
           " E ON E.id = R.event_id AND E.guid = R.guid";
  }

  // The current region row of `q` (columns RegionCol), checked, into `out`; `guid_of` numbers
  // a run's guid. Reads Context (the small tables) only: any thread. A string id that is not
  // in rocpd_string is noted in `dangling` as well as returned.
  template <typename GuidOf>
  base::Status RegionRow(const SqliteQuery& q, GuidOf&& guid_of, RegionOut& out,
                         std::optional<DanglingNote>& dangling) const {
    const Row row(ctx_, q, kRegion, q.Int(kId));
    const auto string = [&](uint32_t guid, int64_t string_id, std::string_view table, int64_t id,
                            std::string_view column) -> base::StatusOr<const std::string*> {
      auto it = ctx_.tables.strings.find(Key{guid, string_id});
      if (it != ctx_.tables.strings.end()) return &it->second;
      dangling = DanglingNote{table, id, column, string_id};
      return ctx_.RowError(
          table, id,
          std::string(column) + " " + std::to_string(string_id) + " is not in table rocpd_string");
    };
    DP_ASSIGN_OR_RETURN(const std::optional<std::string_view> guid_text,
                        row.OptText(kGuid, "guid"));
    if (!guid_text) return row.Error("guid is NULL");
    const uint32_t guid = guid_of(*guid_text);
    DP_ASSIGN_OR_RETURN(const int64_t start, row.Time(kStart, "start"));
    DP_ASSIGN_OR_RETURN(const int64_t end, row.Time(kEnd, "end"));
    if (end < start) {
      return row.Error("end before start (" + std::to_string(end) + " < " + std::to_string(start) +
                       ")");
    }
    DP_ASSIGN_OR_RETURN(const int64_t name_id, row.Int(kName, "name_id"));
    DP_ASSIGN_OR_RETURN(const std::string* name,
                        string(guid, name_id, kRegion, row.id(), "name_id"));
    DP_ASSIGN_OR_RETURN(const int64_t tid, row.Int(kTid, "tid"));
    DP_ASSIGN_OR_RETURN(const uint64_t thread, Thread(row, guid, "tid", tid));
    DP_ASSIGN_OR_RETURN(const std::optional<int64_t> event, row.OptInt(kEventRef, "event_id"));
    std::optional<int64_t> stack;
    const std::string* category = nullptr;
    if (event) {
      if (row.IsNull(kEventFound)) {
        return ctx_.Dangling(kRegion, row.id(), "event_id", *event, kEvent);
      }
      DP_ASSIGN_OR_RETURN(stack, row.OptInt(kStack, "the event's stack_id"));
      DP_ASSIGN_OR_RETURN(const std::optional<int64_t> category_id,
                          row.OptInt(kCategory, "the event's category_id"));
      if (category_id) {
        DP_ASSIGN_OR_RETURN(category, string(guid, *category_id, kEvent, *event, "category_id"));
      }
    }
    const bool marker = category != nullptr ? IsMarker(*category) : name->starts_with("roctx");
    if (!marker) {
      out.what = RegionOut::kCall;
      DP_ASSIGN_OR_RETURN(const int64_t pid, row.Int(kPid, "pid"));
      out.name = name;
      out.call.start = start;
      out.call.end = end;
      out.call.thread = thread;
      DP_ASSIGN_OR_RETURN(out.call.correlation,
                          ctx_.Correlation(stack, guid, pid, kRegion, row.id()));
      return base::OkStatus();
    }
    Item& item = out.item;
    if (*name == kThreadRangeOp) {
      item.kind = Kind::kPushPop;
    } else if (*name == kProcessRangeOp) {
      item.kind = Kind::kStartStop;
    } else if (*name == kMarkOp) {
      item.kind = Kind::kMark;
    } else {
      out.what = RegionOut::kSkip;
      out.skip_position = std::string(kRegion) + " id " + std::to_string(row.id());
      out.skip_detail = "marker operation '" + *name + "': not a range or mark";
      return base::OkStatus();
    }
    out.what = RegionOut::kItem;
    DP_ASSIGN_OR_RETURN(out.message, MessageText(q, kExtdata, event));
    item.range.start = start;
    item.range.end = end;
    item.range.thread = thread;
    item.range.depth = item.kind == Kind::kStartStop ? -1 : 0;
    item.id = row.id();
    item.guid = guid;
    return base::OkStatus();
  }

  base::Status Regions() {
    SqliteQuery q(ctx_.db, RegionQuery() + " ORDER BY R.id");
    if (!q.prepared()) return ctx_.SqlError(q, kRegion);
    const auto guid_of = [this](std::string_view guid) { return ctx_.Guid(guid); };
    while (q.Step() == SQLITE_ROW) {
      RegionOut out;
      std::optional<DanglingNote> dangling;
      const base::Status status = RegionRow(q, guid_of, out, dangling);
      if (dangling) {
        return ctx_.DanglingString(dangling->table, dangling->id, dangling->column,
                                   dangling->string_id);
      }
      DP_RETURN_IF_ERROR(status);
      switch (out.what) {
        case RegionOut::kCall:
          ++ctx_.result.api_calls;
          out.call.name = ctx_.names().Intern(*out.name);
          ctx_.builder.AddLaunch(out.call);
          break;
        case RegionOut::kItem:
          out.item.range.name = ctx_.names().Intern(out.message);
          items_.push_back(out.item);
          break;
        case RegionOut::kSkip:
          Skip(std::move(out.skip_position), std::move(out.skip_detail));
          break;
      }
    }
    if (q.rc() != SQLITE_DONE) return ctx_.SqlError(q, kRegion);
    return base::OkStatus();
  }

  // One id part of the regions, read on a thread of its own over a connection of its own.
  struct Part {
    std::string sql;
    // The launch calls, named by the number of their text in `texts`: in `slot`, the part's
    // room in the launch sink (one place per id of its range), else in `calls`.
    std::span<trace::ApiCall> slot;
    size_t filled = 0;  // calls in `slot`
    // Where `slot` is in a file (base/spill.h), what is written goes from the process as the
    // part goes.
    base::spill::ReleaseBehind<trace::ApiCall> written{nullptr, 0};
    std::vector<trace::ApiCall> calls;
    // Or, read beside the dispatches of a small window, in a spool (bounded memory).
    std::unique_ptr<trace::Spool<trace::ApiCall>> spool;
    std::vector<Item> items;  // likewise
    FirstSeen<std::string> texts;
    std::vector<std::string> new_guids;  // runs not numbered yet, in order of first sight
    int64_t skipped = 0;
    trace::DiagnosticExample first_skipped;
    std::optional<DanglingNote> dangling;
    base::Status status;
  };

  // The regions in id parts, each read on a thread of its own (nothing started when there are
  // to be no parts).
  void StartParts() {
    const std::optional<std::pair<int64_t, int64_t>> span =
        KeySpan(ctx_.db, ctx_.From(kRegion), "id");
    if (!span) return;
    const int64_t rows = span->second - span->first + 1;
    const int64_t n = PartCount(rows, ctx_.options.rows_per_part, ctx_.options.read_in_parts);
    if (n < 2) return;
    parts_.resize(static_cast<size_t>(n));
    // Mostly launch calls: room in the launch sink for every id (the parts' calls are moved
    // together when they are handed on), else room in each part's own vector.
    room_ = ctx_.builder.LaunchRoom(static_cast<size_t>(rows));
    if (room_.size() != static_cast<size_t>(rows)) room_ = {};
    size_t at = 0;
    for (int64_t k = 0; k < n; ++k) {
      std::optional<int64_t> from, to;
      if (k > 0) from = span->first + rows / n * k;
      if (k + 1 < n) to = span->first + rows / n * (k + 1);
      Part& part = parts_[static_cast<size_t>(k)];
      part.sql = RegionQuery() + KeyRange("R.id", from, to) + " ORDER BY R.id";
      const size_t ids = static_cast<size_t>(k + 1 < n ? rows / n : rows - rows / n * k);
      if (room_.empty()) {
        part.calls.reserve(ids);
      } else {
        part.slot = room_.subspan(at, ids);
        part.written = base::spill::ReleaseBehind<trace::ApiCall>(part.slot.data(), 0);
        at += ids;
      }
    }
    // The runs numbered so far; the calling thread numbers more while the parts are read.
    known_guids_ = ctx_.guids;
    readers_.reserve(parts_.size());
    for (Part& part : parts_) readers_.emplace_back([this, &part] { ReadPart(part); });
  }

  // A caller that keeps a window, not every record: the regions in one pass on a thread of
  // their own, their launch calls spooled (a bounded part in memory, the rest in a temporary
  // file) until the dispatches are handed on.
  void StartBeside() {
    parts_.resize(1);
    Part& part = parts_.front();
    part.sql = RegionQuery() + " ORDER BY R.id";
    part.spool = std::make_unique<trace::Spool<trace::ApiCall>>(kBesideMemoryCalls);
    known_guids_ = ctx_.guids;
    readers_.emplace_back([this, &part] { ReadPart(part); });
  }

  void ReadPart(Part& part) const {
    auto opened = SqliteDb::Open(ctx_.path);
    if (!opened.ok()) {
      part.status = opened.status();
      return;
    }
    SqliteQuery q(*opened, part.sql);
    if (!q.prepared()) {
      part.status = opened->Error(q, "cannot read table " + std::string(kRegion));
      return;
    }
    // Runs known_guids_ has; others numbered past them in order of first sight, renumbered by
    // the calling thread.
    const uint32_t known = static_cast<uint32_t>(known_guids_.size());
    uint32_t last = 0;
    const auto guid_of = [&](std::string_view guid) -> uint32_t {
      if (last < known && known_guids_[last] == guid) return last;
      for (size_t i = 0; i < known; ++i) {
        if (known_guids_[i] == guid) return last = static_cast<uint32_t>(i);
      }
      for (size_t i = 0; i < part.new_guids.size(); ++i) {
        if (part.new_guids[i] == guid) return known + static_cast<uint32_t>(i);
      }
      part.new_guids.emplace_back(guid);
      return known + static_cast<uint32_t>(part.new_guids.size() - 1);
    };
    while (q.Step() == SQLITE_ROW) {
      RegionOut out;
      part.status = RegionRow(q, guid_of, out, part.dangling);
      if (!part.status.ok()) return;
      switch (out.what) {
        case RegionOut::kCall:
          out.call.name = part.texts.Number(*out.name);
          if (part.spool) {
            part.spool->Add(out.call);
            break;
          }
          if (part.filled < part.slot.size()) {
            part.slot[part.filled++] = out.call;
            part.written.Passed(part.filled);
            break;
          }
          if (!part.slot.empty()) {
            // More rows than ids (a view over several runs repeats them): the part's calls
            // go to its own vector, and no part's stay in the room.
            const std::span<trace::ApiCall> read = part.slot.first(part.filled);
            part.calls.assign(read.begin(), read.end());
            part.slot = {};
            part.filled = 0;
          }
          part.calls.push_back(out.call);
          break;
        case RegionOut::kItem:
          out.item.range.name = part.texts.Number(out.message);
          part.items.push_back(out.item);
          break;
        case RegionOut::kSkip:
          if (part.skipped++ == 0) {
            part.first_skipped = {ctx_.path, std::move(out.skip_position),
                                  std::move(out.skip_detail)};
          }
          break;
      }
    }
    if (q.rc() != SQLITE_DONE) {
      part.status = opened->Error(q, "cannot read table " + std::string(kRegion));
    }
  }

  void Join() {
    for (std::thread& reader : readers_) {
      if (reader.joinable()) reader.join();
    }
  }

  // The parts joined; the calling thread interns the names in the order one pass meets them,
  // numbers the runs first met, and hands the launch calls on a part at a time.
  base::Status FinishParts() {
    Join();
    // The room holds the calls when every part kept its own there; else they are copied out
    // and the room given back before any call is handed on.
    bool in_room = !room_.empty();
    for (const Part& part : parts_) in_room = in_room && part.slot.data() != nullptr;
    if (!room_.empty() && !in_room) {
      for (Part& part : parts_) {
        const std::span<trace::ApiCall> read = part.slot.first(part.filled);
        part.calls.insert(part.calls.begin(), read.begin(), read.end());
        part.slot = {};
      }
      ctx_.builder.AddFilledLaunches({});
      room_ = {};
    }
    size_t kept = 0;  // in the room: calls moved together at its front
    const auto hand_on = [&] {
      if (in_room) ctx_.builder.AddFilledLaunches(room_.first(kept));
    };
    const uint32_t known = static_cast<uint32_t>(known_guids_.size());
    std::vector<trace::StringId> pool_ids;
    std::vector<uint32_t> guid_numbers;
    for (Part& part : parts_) {
      guid_numbers.clear();
      for (const std::string& guid : part.new_guids) guid_numbers.push_back(ctx_.Guid(guid));
      // One pass interns the names of calls and items in row order; a part's texts are in
      // that order of first sight.
      const std::vector<std::string>& texts = part.texts.keys();
      pool_ids.resize(texts.size());
      for (size_t t = 0; t < texts.size(); ++t) pool_ids[t] = ctx_.names().Intern(texts[t]);
      if (in_room) {
        // Named and moved up to the calls before (a part holds fewer calls than ids where ids
        // are missing or rows are ranges and marks).
        trace::ApiCall* to = room_.data() + kept;
        for (size_t i = 0; i < part.filled; ++i) {
          to[i] = part.slot[i];
          to[i].name = pool_ids[to[i].name];
        }
        kept += part.filled;
        ctx_.result.api_calls += static_cast<int64_t>(part.filled);
      } else if (part.spool) {
        // Handed on in blocks, named, as the spool gives them back.
        ctx_.result.api_calls += part.spool->size();
        DP_RETURN_IF_ERROR(part.spool->DrainBlocks([&](std::span<trace::ApiCall> block) {
          for (trace::ApiCall& call : block) call.name = pool_ids[call.name];
          ctx_.builder.AddLaunches(block);
        }));
        part.spool.reset();
      } else {
        for (trace::ApiCall& call : part.calls) call.name = pool_ids[call.name];
        ctx_.result.api_calls += static_cast<int64_t>(part.calls.size());
        ctx_.builder.AddLaunches(part.calls);
        part.calls = {};
      }
      for (Item& item : part.items) {
        item.range.name = pool_ids[item.range.name];
        if (item.guid >= known) item.guid = guid_numbers[item.guid - known];
        items_.push_back(item);
      }
      if (part.skipped > 0) {
        if (skipped_ == 0) first_skipped_ = part.first_skipped;
        skipped_ += part.skipped;
      }
      if (part.dangling) {
        hand_on();
        return ctx_.DanglingString(part.dangling->table, part.dangling->id, part.dangling->column,
                                   part.dangling->string_id);
      }
      if (!part.status.ok()) {
        hand_on();
        return part.status;
      }
    }
    hand_on();
    return base::OkStatus();
  }

  enum SampleCol : int {
    kSId,
    kSGuid,
    kSTimestamp,
    kSTrackRef,
    kSTrackFound,
    kSTrackTid,
    kSTrackName,
    kSEventRef,
    kSEventFound,
    kSCategory,
    kSExtdata
  };

  base::Status Samples() {
    SqliteQuery q(ctx_.db,
                  "SELECT S.id, S.guid, S.timestamp, S.track_id, TR.id, TR.tid, TR.name_id, "
                  "S.event_id, E.id, E.category_id, E.extdata FROM " +
                      ctx_.From(kSample) + " S LEFT JOIN " + ctx_.From(kTrack) +
                      " TR ON TR.id = S.track_id AND TR.guid = S.guid LEFT JOIN " +
                      ctx_.From(kEvent) +
                      " E ON E.id = S.event_id AND E.guid = S.guid ORDER BY S.id");
    if (!q.prepared()) return ctx_.SqlError(q, kSample);
    while (q.Step() == SQLITE_ROW) {
      const Row row(ctx_, q, kSample, q.Int(kSId));
      DP_ASSIGN_OR_RETURN(const uint32_t guid, row.Guid(kSGuid, ctx_));
      DP_ASSIGN_OR_RETURN(const int64_t time, row.Time(kSTimestamp, "timestamp"));
      DP_ASSIGN_OR_RETURN(const int64_t track, row.Int(kSTrackRef, "track_id"));
      if (row.IsNull(kSTrackFound)) {
        return ctx_.Dangling(kSample, row.id(), "track_id", track, kTrack);
      }
      DP_ASSIGN_OR_RETURN(const std::optional<int64_t> tid, row.OptInt(kSTrackTid, "track's tid"));
      uint64_t thread = 0;
      if (tid) {
        const Row track_row(ctx_, q, kTrack, track);
        DP_ASSIGN_OR_RETURN(thread, Thread(track_row, guid, "tid", *tid));
      }
      DP_ASSIGN_OR_RETURN(const std::optional<int64_t> event, row.OptInt(kSEventRef, "event_id"));
      std::optional<int64_t> category_id;
      std::string_view category_table = kEvent;
      int64_t category_row = 0;
      if (event) {
        if (row.IsNull(kSEventFound)) {
          return ctx_.Dangling(kSample, row.id(), "event_id", *event, kEvent);
        }
        DP_ASSIGN_OR_RETURN(category_id, row.OptInt(kSCategory, "the event's category_id"));
        category_row = *event;
      }
      if (!category_id) {  // the track's name is the category (B6)
        DP_ASSIGN_OR_RETURN(category_id, row.OptInt(kSTrackName, "the track's name_id"));
        category_table = kTrack;
        category_row = track;
      }
      std::string_view category;
      if (category_id) {
        DP_ASSIGN_OR_RETURN(const std::string* text,
                            ctx_.String(guid, *category_id, category_table, category_row,
                                        category_table == kTrack ? "name_id" : "category_id"));
        category = *text;
      }
      if (!IsMarker(category)) {
        Skip(std::string(kSample) + " id " + std::to_string(row.id()),
             "a sample of category '" + std::string(category) +
                 "' (an API call that took no time; rocpd does not name its function)");
        continue;
      }
      Item item;
      item.kind = Kind::kMark;
      DP_ASSIGN_OR_RETURN(item.range.name, Message(q, kSExtdata, event));
      item.range.start = item.range.end = time;
      item.range.thread = thread;
      item.source = 1;
      item.id = row.id();
      item.guid = guid;
      items_.push_back(item);
    }
    if (q.rc() != SQLITE_DONE) return ctx_.SqlError(q, kSample);
    return base::OkStatus();
  }

  // The OS tid of thread row `tid` of run `guid`.
  base::StatusOr<uint64_t> Thread(const Row& row, uint32_t guid, std::string_view column,
                                  int64_t tid) const {
    auto it = ctx_.tables.threads.find(Key{guid, tid});
    if (it == ctx_.tables.threads.end()) return row.Dangling(column, tid, kThread);
    return it->second;
  }

  // A marker's message: extdata's "message" (B8), "" without one; the event's extdata must
  // be JSON text. Reads Context only: any thread.
  base::StatusOr<std::string> MessageText(const SqliteQuery& q, int col,
                                          std::optional<int64_t> event) const {
    if (!event) return std::string();
    const Row event_row(ctx_, q, kEvent, *event);
    DP_ASSIGN_OR_RETURN(const std::optional<std::string_view> text,
                        event_row.OptText(col, "extdata"));
    if (!text) return event_row.Error("extdata is NULL");
    const nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) {
      return event_row.Error("extdata is not a JSON object: '" + base::Excerpt(*text, 40) + "'");
    }
    auto it = json.find("message");
    if (it == json.end()) return std::string();
    if (!it->is_string()) return event_row.Error("extdata's message is not a string");
    return it->get<std::string>();
  }

  // A marker's message, interned.
  base::StatusOr<trace::StringId> Message(const SqliteQuery& q, int col,
                                          std::optional<int64_t> event) {
    DP_ASSIGN_OR_RETURN(const std::string text, MessageText(q, col, event));
    return ctx_.names().Intern(text);
  }

  void Skip(std::string position, std::string detail) {
    if (skipped_++ == 0) first_skipped_ = {ctx_.path, std::move(position), std::move(detail)};
  }

  // Beside the dispatches: launch calls kept in memory by the spool.
  static constexpr size_t kBesideMemoryCalls = size_t{1} << 16;

  Context& ctx_;
  std::vector<Part> parts_;
  std::span<trace::ApiCall> room_;        // the launch sink's room for the parts' calls, or empty
  std::vector<std::string> known_guids_;  // Context::guids when the parts started
  std::vector<std::thread> readers_;      // one per part, while they read
  std::vector<Item> items_;
  int64_t skipped_ = 0;
  trace::DiagnosticExample first_skipped_;
};

void RegionReaderDelete::operator()(RegionReader* reader) const { delete reader; }

std::unique_ptr<RegionReader, RegionReaderDelete> StartRegions(Context& ctx) {
  std::unique_ptr<RegionReader, RegionReaderDelete> reader(new RegionReader(ctx));
  reader->Start();
  return reader;
}

base::Status FinishRegions(RegionReader& reader) { return reader.Finish(); }

}  // namespace decodeprof::io::rocpd
