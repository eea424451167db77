#include "src/io/native/native_importer.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "src/base/demangle.h"
#include "src/base/large_pages.h"
#include "src/base/parse.h"
#include "src/base/sorting.h"
#include "src/base/spill.h"
#include "src/io/common/read_parts.h"
#include "src/io/common/sqlite_db.h"
#include "src/io/format_names.h"
#include "src/io/importer.h"
#include "src/native_format/schema.h"
#include "src/trace/spool.h"

namespace decodeprof::io {
namespace {

namespace nf = native_format;

// Maps file string ids to pool ids, interning on first use.
class Strings {
 public:
  Strings(std::vector<std::string> texts, trace::StringPool& pool)
      : texts_(std::move(texts)), ids_(texts_.size(), kUnset), pool_(pool) {}
  // True when `file_id` names a string of the file (a read of the table's size only: safe
  // from another thread while this one interns).
  bool Has(int64_t file_id) const {
    return file_id >= 1 && static_cast<size_t>(file_id) <= texts_.size();
  }
  std::optional<trace::StringId> Get(int64_t file_id) {
    if (file_id < 1 || static_cast<size_t>(file_id) > texts_.size()) return std::nullopt;
    int64_t& slot = ids_[static_cast<size_t>(file_id - 1)];
    if (slot == kUnset) slot = pool_.Intern(texts_[static_cast<size_t>(file_id - 1)]);
    return static_cast<trace::StringId>(slot);
  }

  // A kernel name: demangled when the recorder had to leave it mangled (CUPTI's demangler
  // gives up on some very long CUTLASS template names), so classes and reports see the
  // same spelling as for every other kernel.
  std::optional<trace::StringId> GetKernelName(int64_t file_id) {
    if (file_id < 1 || static_cast<size_t>(file_id) > texts_.size()) return std::nullopt;
    int64_t& slot = kernel_ids_[static_cast<size_t>(file_id - 1)];
    if (slot == kUnset) {
      const std::string& text = texts_[static_cast<size_t>(file_id - 1)];
      slot = pool_.Intern(base::DemangledOrSelf(text));
    }
    return static_cast<trace::StringId>(slot);
  }

 private:
  static constexpr int64_t kUnset = -1;
  std::vector<std::string> texts_;
  std::vector<int64_t> ids_;
  std::vector<int64_t> kernel_ids_ = std::vector<int64_t>(texts_.size(), kUnset);
  trace::StringPool& pool_;
};

class NativeReader {
  // The launch calls read on another thread (Run), a chunk of rows at a time (at most two chunks
  // ahead of the caller, so memory stays bounded); the rows are checked there (WalkLaunches),
  // in id order, and the first failure ends the reading.
  struct LaunchRow {
    int64_t name_id = 0;
    int64_t start = 0;
    int64_t end = 0;
    uint64_t thread = 0;
    uint64_t correlation = 0;
  };
  static constexpr uint32_t kLaunchChunk = 32768;
  // The dispatches a spooled part keeps in memory (ReadSpooledParts).
  static constexpr size_t kSpooledPartRecords = size_t{1} << 16;
  struct LaunchPipe {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::vector<LaunchRow>> ready;
    bool done = false;     // the reader has finished (status says how)
    bool stopped = false;  // the caller wants no more
    base::Status status;
    void Stop() {
      const std::lock_guard<std::mutex> lock(mu);
      stopped = true;
      cv.notify_all();
    }
  };

 public:
  NativeReader(const std::string& path, trace::TraceBuilder& builder,
               const NativeImportOptions& options)
      : path_(path), names_(builder.names()), builder_(builder), options_(options) {}

  // Everything but the dispatches and launch calls (StagedImporter::ImportAnnotations).
  base::Status RunAnnotations() {
    DP_RETURN_IF_ERROR(Open());
    DP_RETURN_IF_ERROR(ReadMeta());
    DP_RETURN_IF_ERROR(ReadStrings());
    DP_RETURN_IF_ERROR(ReadCounters());
    DP_RETURN_IF_ERROR(ReadDevices());
    DP_RETURN_IF_ERROR(ReadRanges());
    DP_RETURN_IF_ERROR(ReadMarks());
    Describe();
    return base::OkStatus();
  }

  // The dispatches, then the launch calls `keep` accepts (StagedImporter::ImportDispatches).
  base::Status RunDispatches(const StagedImporter::LaunchFilter& keep) {
    DP_RETURN_IF_ERROR(Open());
    DP_RETURN_IF_ERROR(ReadMeta());
    DP_RETURN_IF_ERROR(ReadStrings());
    DP_RETURN_IF_ERROR(ReadDispatches());
    return ReadLaunches(keep);
  }

  base::StatusOr<NativeImport> Run() {
    DP_RETURN_IF_ERROR(Open());
    DP_RETURN_IF_ERROR(ReadMeta());
    DP_RETURN_IF_ERROR(ReadStrings());
    DP_RETURN_IF_ERROR(ReadCounters());
    DP_RETURN_IF_ERROR(Count("api_calls", &result_.api_calls));
    DP_RETURN_IF_ERROR(Count("memory_ops", &result_.memory_ops));
    DP_RETURN_IF_ERROR(ReadDevices());
    int64_t kernels = 0;
    DP_RETURN_IF_ERROR(KernelRowsAtMost(&kernels));
    kernel_rows_ = kernels;
    builder_.Expect(
        static_cast<size_t>(kernels + (options_.memory_ops_as_dispatches ? result_.memory_ops : 0)),
        static_cast<size_t>(result_.api_calls));
    RangeReader ranges(*this);
    if (KeepsEverything()) {
      DP_RETURN_IF_ERROR(ReadEverything());
    } else {
      // The launch calls are read on a second thread, over a connection of its own, while
      // this one reads the dispatches, in step with them (memory stays bounded).
      LaunchPipe pipe;
      std::thread reader([this, &pipe] { ReadLaunchRows(pipe); });
      const base::Status read = [&]() -> base::Status {
        DP_RETURN_IF_ERROR(ReadDispatches(PartsOfTheDispatches(), &pipe));
        while (TakeLaunchChunk(pipe)) {
        }
        return pipe.status;
      }();
      pipe.Stop();
      reader.join();
      DP_RETURN_IF_ERROR(read);
    }
    ranges.Join();
    DP_RETURN_IF_ERROR(ranges.status());
    AddRanges(std::move(ranges.rows()));
    DP_RETURN_IF_ERROR(ReadMarks());
    Describe();
    return std::move(result_);
  }

 private:
  // Every dispatch and launch call is kept (or tests ask for the parts that path reads in).
  bool KeepsEverything() const { return builder_.keeps_everything() || options_.read_in_parts; }

  base::Status DataError(std::string message, std::string hint = {}) const {
    return base::DataError(path_, std::move(message), std::move(hint));
  }
  base::Status RowError(std::string_view table, int64_t id, std::string message) const {
    return base::DataError(path_ + ": " + std::string(table) + " id " + std::to_string(id),
                           std::move(message));
  }
  // Column `col` of a row of `table` (its id in column 0) when it lies in [min, max]; else a
  // data error naming the table, the row and the column (docs/trace-formats.md, "Ranges of
  // numbers").
  base::Status Ranged(const SqliteQuery& q, int col, std::string_view table,
                      std::string_view column, int64_t min, int64_t max, int64_t* out) const {
    const int64_t v = q.Int(col);
    if (q.Type(col) == SQLITE_INTEGER && v >= min && v <= max) [[likely]] {
      *out = v;
      return base::OkStatus();
    }
    return RangeError(q, col, table, column, min, max);
  }
  [[gnu::noinline]] base::Status RangeError(const SqliteQuery& q, int col, std::string_view table,
                                            std::string_view column, int64_t min,
                                            int64_t max) const {
    if (q.Type(col) != SQLITE_INTEGER) {
      return RowError(
          table, q.Int(0),
          std::string(column) + " '" + base::Excerpt(q.Text(col)) + "' is not an integer");
    }
    return RowError(table, q.Int(0),
                    std::string(column) + " " + std::to_string(q.Int(col)) + " is not from " +
                        std::to_string(min) + " to " + std::to_string(max));
  }
  // A time column: nanoseconds from 0 to kMaxTimestampNs.
  base::Status Time(const SqliteQuery& q, int col, std::string_view table, std::string_view column,
                    int64_t* out) const {
    return Ranged(q, col, table, column, 0, trace::kMaxTimestampNs, out);
  }
  // A device column: a CUDA device ordinal, 0 to 32767.
  base::Status Device(const SqliteQuery& q, int col, std::string_view table, int16_t* out) const {
    int64_t v = 0;
    DP_RETURN_IF_ERROR(Ranged(q, col, table, "device", 0, INT16_MAX, &v));
    *out = static_cast<int16_t>(v);
    return base::OkStatus();
  }
  base::Status Stream(const SqliteQuery& q, int col, std::string_view table, uint32_t* out) const {
    int64_t v = 0;
    DP_RETURN_IF_ERROR(Ranged(q, col, table, "stream", 0, UINT32_MAX, &v));
    *out = static_cast<uint32_t>(v);
    return base::OkStatus();
  }

  base::Status SqlError(const SqliteQuery& q, std::string_view what) const {
    return db_->Error(q, what);
  }

  base::Status Open() {
    DP_ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::Open(path_));
    db_.emplace(std::move(db));
    return base::OkStatus();
  }

  base::Status ReadMeta() {
    SqliteQuery q(*db_, "SELECT key, value FROM meta");
    if (!q.prepared()) {
      return DataError("not a decodeprof native trace (it has no meta table)",
                       "convert other traces with their importer");
    }
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) result_.meta[q.Text(0)] = q.Text(1);
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table meta");
    const auto& meta = result_.meta;
    auto get = [&](std::string_view key) -> std::string {
      auto it = meta.find(std::string(key));
      return it == meta.end() ? std::string() : it->second;
    };
    if (get(nf::kMetaFormat) != nf::kFormatName) {
      return DataError("not a decodeprof native trace (meta format is '" +
                       base::Excerpt(get(nf::kMetaFormat)) + "', expected '" +
                       std::string(nf::kFormatName) + "')");
    }
    const std::string version = get(nf::kMetaFormatVersion);
    int64_t v = 0;
    for (char c : version) v = (c >= '0' && c <= '9' && v < 1000000) ? v * 10 + (c - '0') : -1;
    if (version.empty() || v < 1)
      return DataError("bad format_version '" + base::Excerpt(version) + "'");
    if (v > nf::kFormatVersion) {
      return DataError("format_version " + base::Excerpt(version) +
                           " is newer than this reader's (" + std::to_string(nf::kFormatVersion) +
                           ")",
                       "update decodeprof");
    }
    const std::string clock = get(nf::kMetaClockDomain);
    if (clock != "unknown") {
      for (trace::ClockDomain c : trace::kAllClocks) {
        if (clock == trace::ClockName(c)) result_.clock = c;
      }
      if (!result_.clock) return DataError("unknown clock_domain '" + base::Excerpt(clock) + "'");
    }
    result_.complete = get(nf::kMetaComplete) == "1";
    result_.recording_status = get(nf::kMetaRecordingStatus);
    return ReadRank();
  }

  // meta rank and the keys that go with it (config.h's JobMeta wrote them).
  base::Status ReadRank() {
    const auto& meta = result_.meta;
    const auto number = [&](std::string_view key, int64_t min,
                            std::optional<int32_t>* out) -> base::Status {
      auto it = meta.find(std::string(key));
      if (it == meta.end()) return base::OkStatus();
      const std::optional<int64_t> v = base::ParseInt64(it->second);
      if (!v || *v < min || *v > INT32_MAX) {
        return DataError("meta " + std::string(key) + " is '" + base::Excerpt(it->second) +
                         "', not an integer from " + std::to_string(min) + " to " +
                         std::to_string(INT32_MAX));
      }
      *out = static_cast<int32_t>(*v);
      return base::OkStatus();
    };
    std::optional<int32_t> rank;
    trace::RankInfo info;
    DP_RETURN_IF_ERROR(number("rank", 0, &rank));
    DP_RETURN_IF_ERROR(number("world_size", 1, &info.world_size));
    DP_RETURN_IF_ERROR(number("local_rank", 0, &info.local_rank));
    if (!rank) return base::OkStatus();
    info.rank = *rank;
    if (info.world_size && info.rank >= *info.world_size) {
      return DataError("meta rank " + std::to_string(info.rank) + " is not below world_size " +
                       std::to_string(*info.world_size));
    }
    if (auto it = meta.find("run_id"); it != meta.end()) info.run_id = it->second;
    if (auto it = meta.find("devices_used"); it != meta.end()) {
      std::string_view rest = it->second;
      while (!rest.empty()) {
        const size_t comma = rest.find(',');
        const std::optional<int64_t> d = base::ParseInt64(rest.substr(0, comma));
        if (!d || *d < 0 || *d > INT16_MAX) {
          return DataError("meta devices_used is '" + base::Excerpt(it->second) +
                           "', not a comma-separated list of device ids (0 to 32767)");
        }
        info.devices_used.push_back(static_cast<int32_t>(*d));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      }
    }
    result_.rank = std::move(info);
    return base::OkStatus();
  }

  base::Status ReadStrings() {
    SqliteQuery q(*db_, "SELECT id, text FROM strings ORDER BY id");
    q.Numbers({1});
    if (!q.prepared()) return SqlError(q, "cannot read table strings");
    std::vector<std::string> texts;
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      // The writer assigns ids densely from 1; anything else is a damaged or foreign file.
      if (q.Int(0) != static_cast<int64_t>(texts.size()) + 1) {
        return RowError("strings", q.Int(0), "string ids are not dense from 1");
      }
      texts.push_back(q.Text(1));
    }
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table strings");
    strings_.emplace(std::move(texts), names_);
    return base::OkStatus();
  }

  base::Status ReadCounters() {
    SqliteQuery q(*db_, "SELECT name, value FROM counters");
    q.Numbers({0});
    if (!q.prepared()) return SqlError(q, "cannot read table counters");
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      const std::string name = q.Text(0);
      if (q.Int(1) < 0) {
        return DataError("table counters: " + base::Excerpt(name) + " is " +
                         std::to_string(q.Int(1)) + ", not a count from 0 to " +
                         std::to_string(INT64_MAX));
      }
      result_.counters[name] = q.Int(1);
      // Saturated: the counters of a damaged file may add up beyond int64.
      if (nf::IsDataLossCounter(name) &&
          __builtin_add_overflow(result_.dropped_records, q.Int(1), &result_.dropped_records)) {
        result_.dropped_records = q.Int(1) > 0 ? std::numeric_limits<int64_t>::max()
                                               : std::numeric_limits<int64_t>::min();
      }
    }
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table counters");
    return base::OkStatus();
  }

  // An upper bound on the kernel rows without reading them all (count(*) walks the table):
  // the largest id (ids are positive row ids), but no more rows than fit in the file.
  base::Status KernelRowsAtMost(int64_t* out) {
    SqliteQuery q(*db_, "SELECT max(id) FROM kernels");
    if (!q.prepared() || q.Step() != SQLITE_ROW) return SqlError(q, "cannot read table kernels");
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path_, ec);
    const int64_t fit = ec ? INT64_MAX : static_cast<int64_t>(bytes / 16);
    *out = q.Type(0) == SQLITE_INTEGER ? std::clamp<int64_t>(q.Int(0), 0, fit) : 0;
    return base::OkStatus();
  }

  base::Status Count(const std::string& table, int64_t* out) {
    SqliteQuery q(*db_, "SELECT count(*) FROM " + table);
    if (!q.prepared() || q.Step() != SQLITE_ROW) return SqlError(q, "cannot read table " + table);
    *out = q.Int(0);
    return base::OkStatus();
  }

  // A dispatch row, checked, its name still the file's: a kernel's strings id, or a memory
  // operation's copy kind (CUpti_ActivityMemcpyKind) with `memset`.
  struct RawDispatch {
    trace::Dispatch d;
    int64_t name = 0;
    bool memset = false;
  };

  // Kernels and memory operations whose start `where` keeps ("" = all), each read in start
  // order (the writer's start-time index walks them without a sort; an older file without it
  // is sorted by SQLite, in bounded memory), merged here: start, then kernels before memory
  // operations, then id. `fn(RawDispatch&)` per row, until it returns false; the first bad
  // row is the error. Only const members: safe on several threads, each with its `db`.
  template <typename Fn>
  base::Status WalkDispatches(const SqliteDb& db, const std::string& where, Fn&& fn) const {
    SqliteQuery kernels(db,
                        "SELECT id, start_ns, end_ns, name_id, grid_x, grid_y, grid_z, device, "
                        "stream, correlation FROM kernels " +
                            where + " ORDER BY start_ns, id");
    if (!kernels.prepared()) return db.Error(kernels, "cannot read table kernels");
    kernels.Numbers();
    std::optional<SqliteQuery> memory;
    if (options_.memory_ops_as_dispatches) {
      memory.emplace(db,
                     "SELECT id, start_ns, end_ns, kind, copy_kind, device, stream, correlation "
                     "FROM memory_ops " +
                         where + " ORDER BY start_ns, id");
      if (!memory->prepared()) return db.Error(*memory, "cannot read table memory_ops");
      memory->Numbers();
    }
    int krc = kernels.Step();
    int mrc = memory ? memory->Step() : SQLITE_DONE;
    while (krc == SQLITE_ROW || mrc == SQLITE_ROW) {
      const bool take_kernel =
          krc == SQLITE_ROW && (mrc != SQLITE_ROW || kernels.Int(1) <= memory->Int(1));
      RawDispatch raw;
      if (take_kernel) {
        DP_RETURN_IF_ERROR(KernelRow(kernels, raw));
        krc = kernels.Step();
      } else {
        DP_RETURN_IF_ERROR(MemoryRow(*memory, raw));
        mrc = memory->Step();
      }
      if (!fn(raw)) return base::OkStatus();
    }
    if (krc != SQLITE_DONE) return db.Error(kernels, "cannot read table kernels");
    if (memory && mrc != SQLITE_DONE) return db.Error(*memory, "cannot read table memory_ops");
    return base::OkStatus();
  }

  // The dispatch of `raw` in the pool's terms (names interned here: the calling thread only).
  trace::Dispatch Resolve(const RawDispatch& raw) {
    trace::Dispatch d = raw.d;
    if (d.kind == trace::DispatchKind::kKernel) {
      ++result_.kernels;
      d.name = *strings_->GetKernelName(raw.name);
    } else {
      // A file converted from rocpd (record's rocprofv3 path) holds the HIP runtime's copies.
      const trace::Runtime runtime = Hip() ? trace::Runtime::kHip : trace::Runtime::kCuda;
      d.name = names_.Intern(raw.memset ? trace::MemsetName(runtime)
                                        : trace::MemcpyName(raw.name, runtime));
    }
    return d;
  }

  // The dispatches into the builder, in start order, numbered. With `launches`, the launch
  // reader's chunks are taken in step with them: its k-th chunk after the k-th chunk of
  // dispatches, so that names are interned in one order whatever the threads' speeds.
  base::Status ReadDispatches(LaunchPipe* launches = nullptr) {
    return ReadDispatches({""}, launches);
  }
  base::Status ReadDispatches(const std::vector<std::string>& parts,
                              LaunchPipe* launches = nullptr) {
    uint32_t line = 0;
    const auto add = [&](const RawDispatch& raw) {
      trace::Dispatch d = Resolve(raw);
      d.line = line < UINT32_MAX ? ++line : line;
      builder_.AddDispatch(d);
      if (launches != nullptr && line % kLaunchChunk == 0) TakeLaunchChunk(*launches);
      return true;
    };
    if (parts.size() < 2) return WalkDispatches(*db_, parts.empty() ? "" : parts[0], add);
    if (!KeepsEverything()) return ReadSpooledParts(parts, launches);
    // A caller that keeps every dispatch: each part is counted, then read on a thread of its
    // own over a connection of its own straight into its place in the sink's room (or a buffer
    // of this reader's when the sink has none); this thread takes the parts in order as they
    // are done, names them in the order one pass would meet them, numbers them and hands them
    // on at once.
    DP_ASSIGN_OR_RETURN(const std::vector<int64_t> counts, CountParts(parts));
    size_t total = 0;
    for (const int64_t n : counts) total += static_cast<size_t>(n);
    if (total == 0) return base::OkStatus();
    trace::DispatchVector own;
    std::span<trace::Dispatch> room = builder_.DispatchRoom(total);
    const bool in_place = room.size() == total;
    if (!in_place) room = own = trace::DispatchVector(total);
    std::vector<DispatchPart> read(parts.size());
    std::vector<std::thread> readers;
    readers.reserve(read.size());
    size_t at = 0;
    for (size_t p = 0; p < read.size(); ++p) {
      read[p].rows = room.subspan(at, static_cast<size_t>(counts[p]));
      at += read[p].rows.size();
      readers.emplace_back([this, &parts, &read, p] { ReadPart(parts[p], read[p]); });
    }
    base::Status status;
    const trace::Runtime runtime = Hip() ? trace::Runtime::kHip : trace::Runtime::kCuda;
    for (size_t p = 0; p < read.size(); ++p) {
      readers[p].join();
      if (!status.ok()) continue;
      status = read[p].status;
      if (!status.ok()) continue;
      base::spill::ReleaseBehind<trace::Dispatch> named(read[p].rows.data(), 0);
      for (size_t i = 0; i < read[p].rows.size(); ++i) {
        named.Passed(i);
        trace::Dispatch& d = read[p].rows[i];
        Name(d, runtime);
        d.line = line < UINT32_MAX ? ++line : line;
      }
      result_.kernels += read[p].kernels;
    }
    if (!status.ok()) return status;
    if (in_place) {
      builder_.AddFilledDispatches(room);
    } else {
      builder_.AddDispatches(own);
    }
    return status;
  }

  // A caller that keeps a window only: each part read on a thread of its own over a connection
  // of its own into a spool of its own; this thread takes the parts in order as they are done
  // and hands their rows on as one pass would (named in its order, numbered, the launch
  // reader's chunks taken in step), as far as the first bad row.
  base::Status ReadSpooledParts(const std::vector<std::string>& parts, LaunchPipe* launches) {
    std::vector<DispatchPart> read(parts.size());
    std::vector<std::thread> readers;
    readers.reserve(read.size());
    for (size_t p = 0; p < read.size(); ++p) {
      read[p].spool = std::make_unique<trace::Spool<trace::Dispatch>>(kSpooledPartRecords);
      readers.emplace_back([this, &parts, &read, p] { ReadPart(parts[p], read[p]); });
    }
    const trace::Runtime runtime = Hip() ? trace::Runtime::kHip : trace::Runtime::kCuda;
    uint32_t line = 0;
    base::Status status;
    for (size_t p = 0; p < read.size(); ++p) {
      readers[p].join();
      if (!status.ok()) continue;
      status = read[p].spool->Replay([&](const trace::Dispatch& keyed) {
        trace::Dispatch d = keyed;
        Name(d, runtime);
        d.line = line < UINT32_MAX ? ++line : line;
        builder_.AddDispatch(d);
        if (launches != nullptr && line % kLaunchChunk == 0) TakeLaunchChunk(*launches);
      });
      read[p].spool.reset();
      result_.kernels += read[p].kernels;
      if (status.ok()) status = read[p].status;
    }
    return status;
  }

  // The rows of each part (the start-time index answers without reading a row).
  base::StatusOr<std::vector<int64_t>> CountParts(const std::vector<std::string>& parts) const {
    std::vector<int64_t> counts(parts.size(), 0);
    std::vector<base::Status> failed(parts.size());
    std::vector<std::thread> counters;
    for (size_t p = 0; p < parts.size(); ++p) {
      counters.emplace_back([this, &parts, &counts, &failed, p] {
        auto db = SqliteDb::Open(path_);
        if (!db.ok()) {
          failed[p] = db.status();
          return;
        }
        std::vector<std::string> tables = {"kernels"};
        if (options_.memory_ops_as_dispatches) tables.emplace_back("memory_ops");
        for (const std::string& table : tables) {
          SqliteQuery q(*db, "SELECT count(*) FROM " + table + " " + parts[p]);
          if (!q.prepared() || q.Step() != SQLITE_ROW) {
            failed[p] = db->Error(q, "cannot read table " + table);
            return;
          }
          counts[p] += q.Int(0);
        }
      });
    }
    for (std::thread& t : counters) t.join();
    for (base::Status& s : failed) DP_RETURN_IF_ERROR(s);
    return counts;
  }

  // A part of the dispatches, read on a thread of its own into `rows` (counted before: a file
  // that holds other rows now has changed while it was read), each named by its file key (a
  // kernel's strings id, a copy's kind) until the calling thread interns the names; as far as
  // the first bad row.
  struct DispatchPart {
    std::span<trace::Dispatch> rows;
    // Or, for a caller that keeps a window only: every row of the part, spooled.
    std::unique_ptr<trace::Spool<trace::Dispatch>> spool;
    int64_t kernels = 0;
    base::Status status;
  };
  // The dispatch of `raw` named by its file key (a kernel's strings id, a copy's kind).
  static trace::Dispatch Keyed(const RawDispatch& raw) {
    trace::Dispatch d = raw.d;
    if (d.kind == trace::DispatchKind::kKernel) {
      d.name = static_cast<trace::StringId>(raw.name);  // Strings::Has: it fits
    } else if (d.kind == trace::DispatchKind::kMemcpy) {
      // MemcpyName's kinds (1 to 13); any other is named as 0 is.
      d.name = raw.name >= 1 && raw.name <= 13 ? static_cast<trace::StringId>(raw.name) : 0;
    }
    return d;
  }
  // A keyed dispatch in the pool's terms (the calling thread only).
  void Name(trace::Dispatch& d, trace::Runtime runtime) {
    switch (d.kind) {
      case trace::DispatchKind::kKernel:
        d.name = *strings_->GetKernelName(d.name);
        break;
      case trace::DispatchKind::kMemset:
        d.name = names_.Intern(trace::MemsetName(runtime));
        break;
      default:
        d.name = names_.Intern(trace::MemcpyName(d.name, runtime));
    }
  }
  void ReadPart(const std::string& where, DispatchPart& part) const {
    auto db = SqliteDb::Open(path_);
    if (!db.ok()) {
      part.status = db.status();
      return;
    }
    if (part.spool) {
      part.status = WalkDispatches(*db, where, [&part](const RawDispatch& raw) {
        if (raw.d.kind == trace::DispatchKind::kKernel) ++part.kernels;
        part.spool->Add(Keyed(raw));
        return true;
      });
      return;
    }
    size_t filled = 0;
    // Where the room is in a file (base/spill.h), what is written goes from the process as the
    // part goes: the threads of the parts fill it faster than the watcher drops it.
    base::spill::ReleaseBehind<trace::Dispatch> written(part.rows.data(), 0);
    part.status = WalkDispatches(*db, where, [&part, &filled, &written](const RawDispatch& raw) {
      if (filled == part.rows.size()) {
        ++filled;  // one more than counted
        return false;
      }
      written.Passed(filled);
      const trace::Dispatch& d = part.rows[filled++] = Keyed(raw);
      if (d.kind == trace::DispatchKind::kKernel) ++part.kernels;
      return true;
    });
    if (part.status.ok() && filled != part.rows.size()) {
      part.status = DataError("the kernels or memory operations changed while they were read",
                              "summarize a trace that no program is writing");
    }
  }

  // The WHERE clauses of the start-time parts the dispatches are read in: one (all of them)
  // unless the caller keeps every dispatch (TraceBuilder::keeps_everything) and they are many;
  // then up to one per available CPU, cut at even steps of start time.
  std::vector<std::string> PartsOfTheDispatches() {
    const int64_t rows_per_part = std::max<int64_t>(1, options_.rows_per_part);
    if ((!KeepsEverything() && !options_.spool_parts) || kernel_rows_ < rows_per_part) {
      return {""};
    }
    const int64_t kernels = kernel_rows_;
    // A NULL start (an error, found at its row) lies in no part's range: one read then.
    const std::string nulls =
        "SELECT EXISTS(SELECT 1 FROM kernels WHERE start_ns IS NULL)" +
        std::string(options_.memory_ops_as_dispatches
                        ? " OR EXISTS(SELECT 1 FROM memory_ops WHERE start_ns IS NULL)"
                        : "");
    SqliteQuery null_starts(*db_, nulls);
    if (!null_starts.prepared() || null_starts.Step() != SQLITE_ROW || null_starts.Int(0) != 0) {
      return {""};
    }
    // (Tests asking for parts get them whatever the CPUs.)
    const int64_t parts =
        PartCount(kernels, rows_per_part, options_.read_in_parts || options_.force_part_count);
    if (parts < 2) return {""};
    // The span of the starts, from the ends of the start-time indexes. A start that is not an
    // integer (an error, found at its row) sorts after every number: one read then.
    std::optional<std::pair<int64_t, int64_t>> span = KeySpan(*db_, "kernels", "start_ns");
    if (!span) return {""};
    if (options_.memory_ops_as_dispatches && result_.memory_ops > 0) {
      const std::optional<std::pair<int64_t, int64_t>> ops =
          KeySpan(*db_, "memory_ops", "start_ns");
      if (!ops) return {""};
      span = std::make_pair(std::min(span->first, ops->first), std::max(span->second, ops->second));
    }
    const int64_t lo = span->first;
    const int64_t hi = span->second;
    if (hi - lo < parts) return {""};
    // Times below the smallest one (errors) fall in the first part, found there in order.
    return EvenParts("WHERE", "start_ns", lo, hi, parts);
  }

  // `parts` conditions on `column` cutting [lo, hi] at even steps, each starting with
  // `keyword`: the first part takes everything below its end, the last everything from its
  // start, so that together they hold every integer value.
  static std::vector<std::string> EvenParts(std::string_view keyword, std::string_view column,
                                            int64_t lo, int64_t hi, int64_t parts) {
    const std::string head = std::string(keyword) + " " + std::string(column);
    std::vector<std::string> out;
    int64_t from = lo;
    for (int64_t p = 1; p <= parts; ++p) {
      const int64_t to = lo + (hi - lo) / parts * p;
      out.push_back(p == 1       ? head + " < " + std::to_string(to)
                    : p == parts ? head + " >= " + std::to_string(from)
                                 : head + " >= " + std::to_string(from) + " AND " +
                                       std::string(column) + " < " + std::to_string(to));
      from = to;
    }
    return out;
  }

  base::Status Times(const SqliteQuery& q, std::string_view table, trace::Dispatch& d) const {
    DP_RETURN_IF_ERROR(Time(q, 1, table, "start_ns", &d.start));
    DP_RETURN_IF_ERROR(Time(q, 2, table, "end_ns", &d.end));
    if (d.end < d.start) {
      return RowError(
          table, q.Int(0),
          "end before start (" + std::to_string(d.end) + " < " + std::to_string(d.start) + ")");
    }
    return base::OkStatus();
  }

  base::Status KernelRow(const SqliteQuery& q, RawDispatch& raw) const {
    trace::Dispatch& d = raw.d;
    DP_RETURN_IF_ERROR(Times(q, "kernels", d));
    if (!strings_->Has(q.Int(3))) {
      return RowError("kernels", q.Int(0),
                      "name_id " + std::to_string(q.Int(3)) + " is not in table strings");
    }
    raw.name = q.Int(3);
    // All three 0: the source had no grid (a converted CSV without grid columns).
    if (q.Int(4) != 0 || q.Int(5) != 0 || q.Int(6) != 0) {
      d.grid = 1;
      for (int col = 4; col <= 6; ++col) {
        if (__builtin_mul_overflow(d.grid, std::max<int64_t>(q.Int(col), 1), &d.grid)) {
          return RowError("kernels", q.Int(0), "grid size does not fit in 64 bits");
        }
      }
    }
    DP_RETURN_IF_ERROR(Device(q, 7, "kernels", &d.device));
    DP_RETURN_IF_ERROR(Stream(q, 8, "kernels", &d.stream));
    d.correlation = static_cast<uint64_t>(q.Int(9));
    return base::OkStatus();
  }

  // A file converted from rocpd by `record`'s rocprofv3 path (meta rocpd_schema_version, or a
  // recorder "rocprofv3 ..."): recorded on the HIP runtime.
  bool Hip() const {
    if (result_.meta.contains("rocpd_schema_version")) return true;
    const auto recorder = result_.meta.find(std::string(nf::kMetaRecorder));
    return recorder != result_.meta.end() && recorder->second.starts_with("rocprofv3");
  }

  base::Status MemoryRow(const SqliteQuery& q, RawDispatch& raw) const {
    trace::Dispatch& d = raw.d;
    DP_RETURN_IF_ERROR(Times(q, "memory_ops", d));
    raw.memset = q.Int(3) == static_cast<int>(nf::MemoryOpKind::kMemset);
    d.kind = raw.memset ? trace::DispatchKind::kMemset : trace::DispatchKind::kMemcpy;
    raw.name = q.Int(4);
    DP_RETURN_IF_ERROR(Device(q, 5, "memory_ops", &d.device));
    DP_RETURN_IF_ERROR(Stream(q, 6, "memory_ops", &d.stream));
    d.correlation = static_cast<uint64_t>(q.Int(7));
    return base::OkStatus();
  }

  // On the reader thread. Only const members are used (the file's path; the strings table,
  // by its size only); the rows go to the caller through `pipe`.
  void ReadLaunchRows(LaunchPipe& pipe) const {
    base::Status status = WalkLaunches("", [&pipe](std::vector<LaunchRow>&& rows) {
      std::unique_lock<std::mutex> lock(pipe.mu);
      pipe.cv.wait(lock, [&] { return pipe.stopped || pipe.ready.size() < 2; });
      if (pipe.stopped) return false;
      pipe.ready.push_back(std::move(rows));
      pipe.cv.notify_all();
      return true;
    });
    const std::lock_guard<std::mutex> lock(pipe.mu);
    pipe.status = std::move(status);
    pipe.done = true;
    pipe.cv.notify_all();
  }

  // The launch calls (correlation != 0) whose id `where` keeps, in id order, over a
  // connection of its own, checked (name id, times), handed to `push` a chunk at
  // a time until it returns false; the first bad row ends the walk (rows before it in its
  // chunk are not handed over: the import fails). Only const members: any thread.
  template <typename Push>
  base::Status WalkLaunches(const std::string& where, Push&& push) const {
    DP_ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::Open(path_));
    SqliteQuery q(db,
                  "SELECT id, name_id, start_ns, end_ns, thread, correlation FROM api_calls "
                  "WHERE correlation != 0 " +
                      where + " ORDER BY id");
    if (!q.prepared()) return db.Error(q, "cannot read table api_calls");
    q.Numbers();
    std::vector<LaunchRow> rows;
    rows.reserve(kLaunchChunk);
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      if (!strings_->Has(q.Int(1))) {
        return RowError("api_calls", q.Int(0), "name_id is not in table strings");
      }
      LaunchRow& r = rows.emplace_back();
      r.name_id = q.Int(1);
      DP_RETURN_IF_ERROR(Time(q, 2, "api_calls", "start_ns", &r.start));
      DP_RETURN_IF_ERROR(Time(q, 3, "api_calls", "end_ns", &r.end));
      if (r.end < r.start) return RowError("api_calls", q.Int(0), "end before start");
      r.thread = static_cast<uint64_t>(q.Int(4));
      r.correlation = static_cast<uint64_t>(q.Int(5));
      if (rows.size() == kLaunchChunk) {
        if (!push(std::move(rows))) return base::OkStatus();
        rows = {};
        rows.reserve(kLaunchChunk);
      }
    }
    if (rc != SQLITE_DONE) return db.Error(q, "cannot read table api_calls");
    if (!rows.empty()) push(std::move(rows));
    return base::OkStatus();
  }

  void AddLaunchRows(const std::vector<LaunchRow>& rows) {
    for (const LaunchRow& r : rows) {
      builder_.AddLaunch(
          trace::ApiCall{*strings_->Get(r.name_id), r.start, r.end, r.thread, r.correlation});
    }
  }

  // A caller that keeps everything: the launch calls read in id parts, one thread each,
  // straight into their place in the sink's room (or a buffer of this reader's); then named
  // in id order after the dispatches (the interning order of one thread) and handed on.
  struct LaunchPart {
    std::string where;
    std::span<trace::ApiCall> calls;  // room for the part's ids; named by strings ids at first
    size_t filled = 0;
    base::Status status;
  };
  // The id parts of api_calls, each with room for every id in its range (or, in one part,
  // for every row).
  std::vector<LaunchPart> PartsOfTheLaunches(size_t parts) {
    const std::optional<std::pair<int64_t, int64_t>> span =
        parts < 2 ? std::nullopt : KeySpan(*db_, "api_calls", "id");
    std::vector<LaunchPart> out;
    if (!span || span->second - span->first < static_cast<int64_t>(parts)) {
      out.resize(1);
      out[0].filled = static_cast<size_t>(std::max<int64_t>(result_.api_calls, 0));
      return out;
    }
    const int64_t lo = span->first;
    const int64_t hi = span->second;
    const auto n = static_cast<int64_t>(parts);
    for (std::string& where : EvenParts("AND", "id", lo, hi, n)) {
      LaunchPart& part = out.emplace_back();
      part.where = std::move(where);
      const int64_t p = static_cast<int64_t>(out.size());
      const int64_t from = p == 1 ? lo : lo + (hi - lo) / n * (p - 1);
      const int64_t to = p == n ? hi + 1 : lo + (hi - lo) / n * p;
      part.filled = static_cast<size_t>(to - from);  // the room it needs, until it is read
    }
    return out;
  }

  void ReadLaunchPart(LaunchPart& part) const {
    // Where the room is in a file (base/spill.h), what is written goes from the process as the
    // part goes.
    base::spill::ReleaseBehind<trace::ApiCall> written(part.calls.data(), 0);
    part.status = WalkLaunches(part.where, [&part, &written](std::vector<LaunchRow>&& rows) {
      if (part.filled + rows.size() > part.calls.size()) {
        part.filled = part.calls.size() + 1;  // more rows than ids, or than rows counted
        return false;
      }
      written.Passed(part.filled);
      for (const LaunchRow& r : rows) {
        // Strings::Has: the id fits.
        part.calls[part.filled++] = trace::ApiCall{static_cast<trace::StringId>(r.name_id), r.start,
                                                   r.end, r.thread, r.correlation};
      }
      return true;
    });
    if (part.status.ok() && part.filled > part.calls.size()) {
      part.status = DataError("table api_calls changed while it was read",
                              "summarize a trace that no program is writing");
    }
  }

  base::Status ReadEverything() {
    const std::vector<std::string> dispatch_parts = PartsOfTheDispatches();
    std::vector<LaunchPart> launches = PartsOfTheLaunches(dispatch_parts.size());
    size_t room_needed = 0;
    for (const LaunchPart& part : launches) room_needed += part.filled;
    std::vector<trace::ApiCall> own;
    std::span<trace::ApiCall> room =
        room_needed > 0 ? builder_.LaunchRoom(room_needed) : std::span<trace::ApiCall>();
    const bool in_place = room_needed > 0 && room.size() == room_needed;
    if (!in_place) room = own = std::vector<trace::ApiCall>(room_needed);
    std::vector<std::thread> readers;
    readers.reserve(launches.size());
    size_t at = 0;
    for (LaunchPart& part : launches) {
      part.calls = room.subspan(at, part.filled);
      at += part.filled;
      part.filled = 0;
      readers.emplace_back([this, &part] { ReadLaunchPart(part); });
    }
    base::Status status = ReadDispatches(dispatch_parts);
    // The parts' calls moved together (a part fills less than its room where ids are missing
    // or calls have no correlation), named in id order.
    size_t kept = 0;
    for (size_t p = 0; p < launches.size(); ++p) {
      readers[p].join();
      if (!status.ok()) continue;
      status = launches[p].status;
      if (!status.ok()) continue;
      const std::span<trace::ApiCall> calls = launches[p].calls.first(launches[p].filled);
      // In steps of kReleaseBytes, each let go once named and moved (where the room is in a
      // file, base/spill.h: its contents stay there): a part holds millions of calls.
      // A part whose calls are already in place is only named (one cursor lets go of it).
      constexpr size_t kStep = base::spill::kReleaseBytes / sizeof(trace::ApiCall);
      const bool moves = calls.data() != room.data() + kept;
      base::spill::ReleaseBehind<trace::ApiCall> read(calls.data(), 0);
      base::spill::ReleaseBehind<trace::ApiCall> written(room.data(), kept);
      for (size_t i = 0; i < calls.size(); i += kStep) {
        const std::span<trace::ApiCall> step = calls.subspan(i, std::min(kStep, calls.size() - i));
        for (trace::ApiCall& call : step) call.name = *strings_->Get(call.name);
        if (moves) {
          std::memmove(room.data() + kept + i, step.data(), step.size_bytes());
          read.Passed(i + step.size());
        }
        written.Passed(kept + i + step.size());
      }
      kept += calls.size();
    }
    if (!status.ok()) return status;
    if (in_place) {
      builder_.AddFilledLaunches(room.first(kept));
    } else {
      builder_.AddLaunches(std::span<const trace::ApiCall>(own).first(kept));
    }
    return status;
  }

  // On the calling thread: waits for the reader's next chunk and adds its launch calls; false
  // when the reader has finished and handed everything over.
  bool TakeLaunchChunk(LaunchPipe& pipe) {
    std::vector<LaunchRow> rows;
    {
      std::unique_lock<std::mutex> lock(pipe.mu);
      pipe.cv.wait(lock, [&] { return pipe.done || !pipe.ready.empty(); });
      if (pipe.ready.empty()) return false;
      rows = std::move(pipe.ready.front());
      pipe.ready.pop_front();
      pipe.cv.notify_all();
    }
    AddLaunchRows(rows);
    return true;
  }

  // The launch calls `keep` accepts, on this thread (the staged import).
  base::Status ReadLaunches(const StagedImporter::LaunchFilter& keep) {
    return WalkLaunches("", [&](std::vector<LaunchRow>&& rows) {
      std::erase_if(rows, [&](const LaunchRow& r) { return !keep(r.correlation); });
      AddLaunchRows(rows);
      return true;
    });
  }

  base::Status ReadDevices() {
    SqliteQuery q(*db_, "SELECT id, name FROM devices ORDER BY id");
    q.Numbers({1});
    if (!q.prepared()) return SqlError(q, "cannot read table devices");
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      int64_t id = 0;
      DP_RETURN_IF_ERROR(Ranged(q, 0, "devices", "id", 0, INT16_MAX, &id));
      builder_.trace().devices.push_back(trace::Device{static_cast<int32_t>(id), q.Text(1)});
    }
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table devices");
    return base::OkStatus();
  }

  // A range row as read, before its name and domain are interned (on the calling thread:
  // Strings interns lazily). The ids are checked to be in the strings table.
  struct RangeRow {
    uint32_t name = 0;  // ids of the strings table (checked to be in it)
    uint32_t domain = 0;
    trace::TimestampNs start = 0;
    trace::TimestampNs end = 0;
    uint64_t thread = 0;
    int32_t depth = 0;
    int64_t id = 0;  // the row's: the last key of the read's order
  };
  // The read's order: start, then depth, then row id.
  static bool InRangeOrder(const RangeRow& a, const RangeRow& b) {
    return std::tie(a.start, a.depth, a.id) < std::tie(b.start, b.depth, b.id);
  }
  static constexpr std::string_view kRangeColumns =
      "SELECT id, name_id, domain_id, start_ns, end_ns, thread, depth FROM ranges";

  // One row of `q` (kRangeColumns), checked.
  base::Status RangeRowOf(const SqliteQuery& q, RangeRow& r) const {
    r.id = q.Int(0);
    const int64_t name = q.Int(1);
    const int64_t domain = q.Int(2);
    if (!strings_->Has(name) || !strings_->Has(domain) || name > UINT32_MAX ||
        domain > UINT32_MAX) {
      return RowError("ranges", q.Int(0), "name or domain not in strings");
    }
    r.name = static_cast<uint32_t>(name);
    r.domain = static_cast<uint32_t>(domain);
    DP_RETURN_IF_ERROR(Time(q, 3, "ranges", "start_ns", &r.start));
    DP_RETURN_IF_ERROR(Time(q, 4, "ranges", "end_ns", &r.end));
    if (r.end < r.start) return RowError("ranges", q.Int(0), "end before start");
    r.thread = static_cast<uint64_t>(q.Int(5));
    int64_t depth = 0;
    DP_RETURN_IF_ERROR(Ranged(q, 6, "ranges", "depth", -1, INT32_MAX, &depth));
    r.depth = static_cast<int32_t>(depth);
    return base::OkStatus();
  }

  // The ranges in start order (then depth, then row id), checked, over `db`. Only const
  // members: any thread, with a connection of its own.
  base::Status ReadRangeRows(const SqliteDb& db, std::vector<RangeRow>& rows) const {
    SqliteQuery q(db, std::string(kRangeColumns) + " ORDER BY start_ns, depth, id");
    if (!q.prepared()) return db.Error(q, "cannot read table ranges");
    q.Numbers();
    // Room for the span of ids (about as many rows; at most 64 M ahead of time): a vector that
    // doubles copies what it holds, all of it mapped in at once. Where the rows are in files
    // (base/spill.h), what is read goes from the process as it goes.
    if (const auto span = KeySpan(db, "ranges", "id"); span && span->second >= span->first) {
      rows.reserve(static_cast<size_t>(std::min<int64_t>(span->second - span->first + 1, 1 << 26)));
    }
    base::spill::AppendReleaseBehind<RangeRow> appended(rows.data(), rows.size());
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      RangeRow r;
      DP_RETURN_IF_ERROR(RangeRowOf(q, r));
      rows.push_back(r);
      appended.Appended(rows.data(), rows.size());
    }
    if (rc != SQLITE_DONE) return db.Error(q, "cannot read table ranges");
    return base::OkStatus();
  }

  // std::merge of a and b appended to out, in InRangeOrder; where they are in files
  // (base/spill.h), what is merged goes from the process as it goes: the merges of a range per
  // dispatch run on several threads at once. `out` is reserved, not resized: the zeros of a
  // resize would map it all in at once.
  static void MergeLettingGo(std::span<const RangeRow> a, std::span<const RangeRow> b,
                             std::vector<RangeRow>& out) {
    out.reserve(out.size() + a.size() + b.size());
    base::spill::ReleaseBehind<RangeRow> read_a(a.data(), 0);
    base::spill::ReleaseBehind<RangeRow> read_b(b.data(), 0);
    base::spill::ReleaseBehind<RangeRow> written(out.data(), out.size());
    size_t i = 0;
    size_t j = 0;
    constexpr size_t kLook = 4096;  // rows merged between two looks at what to let go
    while (i < a.size() && j < b.size()) {
      const size_t stop = out.size() + kLook;
      while (out.size() < stop && i < a.size() && j < b.size()) {
        out.push_back(InRangeOrder(b[j], a[i]) ? b[j++] : a[i++]);
      }
      read_a.Passed(i);
      read_b.Passed(j);
      written.Passed(out.size());
    }
    // The rest of one side, in steps let go as they go too: parts cut at even steps of the ids
    // are mostly in start order already, so that the rest is most of a side (a copy of 386 MiB
    // at once mapped it all in, 16.8 M ranges).
    const auto rest = [&](std::span<const RangeRow> side, size_t from,
                          base::spill::ReleaseBehind<RangeRow>& read) {
      while (from < side.size()) {
        const size_t n = std::min(kLook, side.size() - from);
        out.insert(out.end(), side.begin() + static_cast<ptrdiff_t>(from),
                   side.begin() + static_cast<ptrdiff_t>(from + n));
        from += n;
        read.Passed(from);
        written.Passed(out.size());
      }
    };
    rest(a, i, read_a);
    rest(b, j, read_b);
  }

  // ReadRangeRows's rows, read in id parts on threads over connections of their own, each part
  // sorted on its thread, then merged (a range per dispatch makes millions, and an ordered
  // read sorts them all on one thread). false when the ranges are too few for parts or a part
  // met a bad row: ReadRangeRows then, which names the first bad row in its order.
  bool RangeRowsInParts(const SqliteDb& db, std::vector<RangeRow>& rows) const {
    const std::optional<std::pair<int64_t, int64_t>> span = KeySpan(db, "ranges", "id");
    if (!span) return false;
    const int64_t lo = span->first;  // (plain names: clang captures no binding)
    const int64_t hi = span->second;
    const int64_t parts = PartCount(hi - lo + 1, std::max<int64_t>(1, options_.rows_per_part),
                                    options_.read_in_parts || options_.force_part_count);
    if (parts < 2 || hi - lo < parts) return false;
    std::vector<std::vector<RangeRow>> part_rows(static_cast<size_t>(parts));
    std::vector<uint8_t> read(static_cast<size_t>(parts), 0);
    OnThreads(static_cast<size_t>(parts), [&](size_t p) {
      base::StatusOr<SqliteDb> own = SqliteDb::Open(path_);
      if (!own.ok()) return;
      SqliteQuery q(*own, std::string(kRangeColumns) +
                              EvenKeyPart("id", lo, hi, parts, static_cast<int64_t>(p)));
      if (!q.prepared()) return;
      q.Numbers();
      std::vector<RangeRow>& out = part_rows[p];
      // Room for the part's span of ids (a part holds about as many rows); where that room is
      // in a file (base/spill.h), the rows written go from the process as the part goes, and a
      // part already in order is not read again to be sorted.
      out.reserve(static_cast<size_t>((hi - lo) / parts + 1));
      base::spill::AppendReleaseBehind<RangeRow> written(out.data(), out.size());
      bool in_order = true;
      int rc;
      while ((rc = q.Step()) == SQLITE_ROW) {
        RangeRow r;
        if (!RangeRowOf(q, r).ok()) return;
        if (in_order && !out.empty() && InRangeOrder(r, out.back())) in_order = false;
        out.push_back(r);
        written.Appended(out.data(), out.size());
      }
      if (rc != SQLITE_DONE) return;
      if (!in_order) base::SortMostlySorted(out, InRangeOrder);
      read[p] = 1;
    });
    if (std::find(read.begin(), read.end(), 0) != read.end()) return false;
    // Merged in pairs, each pair on a thread, until one is left.
    while (part_rows.size() > 1) {
      std::vector<std::vector<RangeRow>> merged((part_rows.size() + 1) / 2);
      OnThreads(merged.size(), [&](size_t m) {
        if (2 * m + 1 == part_rows.size()) {
          merged[m] = std::move(part_rows[2 * m]);
          return;
        }
        std::vector<RangeRow>& a = part_rows[2 * m];
        std::vector<RangeRow>& b = part_rows[2 * m + 1];
        MergeLettingGo(a, b, merged[m]);
        std::vector<RangeRow>().swap(a);
        std::vector<RangeRow>().swap(b);
      });
      part_rows = std::move(merged);
    }
    rows = std::move(part_rows.front());
    return true;
  }

  // The rows read by ReadRangeRows into the builder (and NativeImport when it keeps them).
  void AddRanges(std::vector<RangeRow>&& rows) {
    base::ReserveFaultedIn(builder_.trace().ranges, builder_.trace().ranges.size() + rows.size());
    // Where they are in files (base/spill.h), the rows read and the ranges written go from the
    // process as they go: a range per dispatch makes millions, on this thread alone.
    base::spill::ReleaseBehind<RangeRow> read(rows.data(), 0);
    std::vector<trace::Range>& ranges = builder_.trace().ranges;
    base::spill::AppendReleaseBehind<trace::Range> written(ranges.data(), ranges.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      read.Passed(i);
      const RangeRow& row = rows[i];
      NativeRange r;
      r.name = *strings_->Get(row.name);
      r.domain = *strings_->Get(row.domain);
      r.start = row.start;
      r.end = row.end;
      r.thread = row.thread;
      r.depth = row.depth;
      if (options_.keep_annotations) result_.ranges.push_back(r);
      builder_.AddRange(trace::Range{r.name, r.start, r.end, r.thread, r.depth});
      written.Appended(ranges.data(), ranges.size());
    }
    std::vector<RangeRow>().swap(rows);
  }

  base::Status ReadRanges() {
    std::vector<RangeRow> rows;
    DP_RETURN_IF_ERROR(ReadRangeRows(*db_, rows));
    AddRanges(std::move(rows));
    return base::OkStatus();
  }

  // ReadRanges on a thread of its own, over a connection of its own, while the calling thread
  // reads the dispatches: a trace with a range per dispatch (a range per module call or per
  // operator) holds as many ranges as kernels, and their sorted read would otherwise follow
  // the dispatches' parts alone. Join() (also on destruction) waits for it.
  class RangeReader {
   public:
    explicit RangeReader(const NativeReader& reader)
        : thread_([this, &reader] {
            base::StatusOr<SqliteDb> db = SqliteDb::Open(reader.path_);
            if (!db.ok()) {
              status_ = db.status();
              return;
            }
            if (reader.KeepsEverything() && reader.RangeRowsInParts(*db, rows_)) return;
            rows_.clear();
            status_ = reader.ReadRangeRows(*db, rows_);
          }) {}
    RangeReader(const RangeReader&) = delete;
    RangeReader& operator=(const RangeReader&) = delete;
    ~RangeReader() { Join(); }
    void Join() {
      if (thread_.joinable()) thread_.join();
    }
    // After Join: the reader's status, and its rows to hand to AddRanges.
    const base::Status& status() const { return status_; }
    std::vector<RangeRow>& rows() { return rows_; }

   private:
    base::Status status_;
    std::vector<RangeRow> rows_;
    std::thread thread_;  // last: started once the members it writes exist
  };

  base::Status ReadMarks() {
    SqliteQuery q(*db_, "SELECT id, name_id, domain_id, time_ns, thread FROM marks ORDER BY 4, 1");
    q.Numbers();
    if (!q.prepared()) return SqlError(q, "cannot read table marks");
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      NativeMark m;
      auto name = strings_->Get(q.Int(1));
      auto domain = strings_->Get(q.Int(2));
      if (!name || !domain) return RowError("marks", q.Int(0), "name or domain not in strings");
      m.name = *name;
      m.domain = *domain;
      DP_RETURN_IF_ERROR(Time(q, 3, "marks", "time_ns", &m.time));
      m.thread = static_cast<uint64_t>(q.Int(4));
      if (options_.keep_annotations) result_.marks.push_back(m);
    }
    if (rc != SQLITE_DONE) return SqlError(q, "cannot read table marks");
    return base::OkStatus();
  }

  // What the model gets besides the tables: clock, meta, and every counter, the file's
  // completeness and its recording status as diagnostics.
  void Describe() {
    trace::ImportedTrace& t = builder_.trace();
    t.clock = result_.clock;
    t.meta = result_.meta;
    if (Hip()) t.runtime = trace::Runtime::kHip;
    t.rank = result_.rank;
    const auto recorder = result_.meta.find(std::string(native_format::kMetaRecorder));
    t.in_order_streams =
        recorder != result_.meta.end() && recorder->second.rfind("decodeprof-cupti", 0) == 0;
    for (const auto& [name, value] : result_.counters) {
      t.diagnostics.Add(trace::DiagForRecorderCounter(name), value,
                        {path_, "table counters", name + " = " + std::to_string(value)});
    }
    if (!result_.complete) t.diagnostics.Add(trace::Diag::kTraceIncomplete, 1, {path_, "", ""});
    const std::string& status = result_.recording_status;
    if (!status.empty() && status.rfind("ok", 0) != 0) {
      t.diagnostics.Add(trace::Diag::kRecordingNotOk, 1, {path_, "meta recording_status", status});
    }
    // The record kinds CUPTI refused and the features the recorder could not use
    // (src/record/cupti/recorder.cc): the trace misses what they would have recorded.
    if (const auto warnings = result_.meta.find(std::string(nf::kMetaWarnings));
        warnings != result_.meta.end() && !warnings->second.empty()) {
      t.diagnostics.Add(trace::Diag::kRecorderRecordsOff, 1,
                        {path_, "meta warnings", warnings->second});
    }
  }

  const std::string& path_;
  trace::StringPool& names_;
  trace::TraceBuilder& builder_;
  const NativeImportOptions& options_;
  std::optional<SqliteDb> db_;
  std::optional<Strings> strings_;
  int64_t kernel_rows_ = 0;  // at most this many kernel rows (KernelRowsAtMost), from Run()
  NativeImport result_;
};

class NativeImporterImpl final : public io::Importer, public io::StagedImporter {
 public:
  std::string_view name() const override { return kNativeFormat; }
  std::string_view description() const override {
    return "decodeprof's native trace (SQLite), written by decodeprof record";
  }
  std::string_view produced_by() const override { return "decodeprof record -o FILE -- CMD"; }
  std::string_view default_pack() const override { return "pytorch-cuda"; }
  Recognition Recognize(const FileProbe& probe) const override {
    if (!probe.is_sqlite()) return Recognition::kNo;
    // Any other SQLite file gets a maybe, so that it hears why it is not a native trace.
    return probe.HasTable("meta") && probe.HasTable("kernels") ? Recognition::kYes
                                                               : Recognition::kMaybe;
  }
  base::Status Import(const std::string& path, trace::TraceBuilder& builder) const override {
    NativeImportOptions options;
    options.memory_ops_as_dispatches = true;
    options.keep_annotations = false;
    return NativeReader(path, builder, options).Run().status();
  }
  const StagedImporter* staged() const override { return this; }
  base::Status ImportAnnotations(const std::string& path,
                                 trace::TraceBuilder& builder) const override {
    NativeImportOptions options;
    options.memory_ops_as_dispatches = true;
    options.keep_annotations = false;
    return NativeReader(path, builder, options).RunAnnotations();
  }
  base::Status ImportDispatches(const std::string& path, trace::TraceBuilder& builder,
                                const LaunchFilter& keep) const override {
    NativeImportOptions options;
    options.memory_ops_as_dispatches = true;
    options.keep_annotations = false;
    return NativeReader(path, builder, options).RunDispatches(keep);
  }
};

}  // namespace

const Importer& NativeImporter() {
  static const NativeImporterImpl importer;
  return importer;
}

base::StatusOr<NativeImport> ImportNative(const std::string& path, trace::StringPool& names,
                                          trace::DispatchSink& sink,
                                          const NativeImportOptions& options) {
  trace::TraceBuilder builder(names, sink);
  return NativeReader(path, builder, options).Run();
}

base::StatusOr<NativeImport> ImportNative(const std::string& path, trace::TraceBuilder& builder,
                                          const NativeImportOptions& options) {
  return NativeReader(path, builder, options).Run();
}

}  // namespace decodeprof::io
