#include "src/pipeline/trace_source.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/intervals.h"
#include "src/analysis/pack.h"
#include "src/base/large_pages.h"
#include "src/base/parallel.h"
#include "src/base/parse.h"
#include "src/base/py_format.h"
#include "src/base/spill.h"
#include "src/base/stage_times.h"
#include "src/io/common/csv_reader.h"
#include "src/trace/record_vector.h"
#include "src/trace/spool.h"

namespace decodeprof::pipeline {
namespace {

// Keeps every dispatch: for traces whose phase marks are known only after the dispatches
// were read (annotation ranges inside the trace).
class BufferSink : public trace::DispatchSink {
 public:
  explicit BufferSink(trace::DispatchVector& out) : out_(out) {}
  void Add(const trace::Dispatch& d) override { out_.push_back(d); }

 private:
  trace::DispatchVector& out_;
};

std::string DeviceList(const trace::ImportedTrace& info) {
  std::string out;
  for (const auto& [device, n] : info.dispatches_per_device) {
    if (!out.empty()) out += ", ";
    out += "device " + std::to_string(device) + ": " + std::to_string(n) + " dispatches";
  }
  return out;
}

// Reads the window of a parts-capable importer's trace straight into window collectors.
base::StatusOr<WindowedTrace> ImportWindowInParts(
    const TraceRequest& request, const io::Importer& importer, const io::PartsImporter& parts,
    const trace::PhaseMarks& log_marks, const std::string& log_path, trace::StringPool& names) {
  // Room for the rows the file's first MiB says it holds (io::ExpectedRows).
  const io::ExpectedRows expected(request.path);
  // --window all: marks that hold every time; the window's bounds are then the trace's span.
  const bool all = request.window.kind == WindowSpec::Kind::kAll;
  trace::PhaseMarks everything;
  for (const char* mark : {"warmup_start", "decode_start"}) {
    everything[mark].On(trace::ClockDomain::kMonotonic) = INT64_MIN;
  }
  everything["measured_end"].On(trace::ClockDomain::kMonotonic) = INT64_MAX;
  const trace::PhaseMarks& marks = all ? everything : log_marks;
  analysis::WindowCollector collector(marks);
  trace::CountingSink first(collector);
  first.set_device_filter(request.device);
  first.set_position_word(importer.position_word());
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(request.path, ec);
  if (!ec) collector.Reserve(expected.In(bytes));
  // Where the window's room went to a file (it passes the memory budget), each part's room is
  // at least a block that the budget governs (base::spill::kMinBytes), so that it goes to a
  // file too and lets go of its pages as it fills them and once it is read (WindowCollector::
  // Done): a smaller one is malloc's whatever the budget, and at 4 parts a CPU the parts held a
  // 600 MB rocprofv3 CSV's window (100 MiB) whole until the merge: 16 threads, a 16 MiB budget,
  // 141-143 MiB at peak (on 16 CPUs, and on 2) against 53 since on 2.
  const size_t fewest_rows =
      collector.StoreInFile()
          ? (base::spill::kMinBytes + sizeof(trace::Dispatch) - 1) / sizeof(trace::Dispatch)
          : 0;
  std::deque<analysis::WindowCollector> collectors;
  std::deque<trace::CountingSink> counters;
  const io::PartsImporter::SinkFactory new_part = [&](size_t, int64_t part_bytes) {
    analysis::WindowCollector& part = collectors.emplace_back(marks);
    part.Reserve(std::max(fewest_rows, expected.In(static_cast<uintmax_t>(part_bytes))));
    trace::CountingSink& counter = counters.emplace_back(part);
    counter.set_device_filter(request.device);
    counter.set_position_word(importer.position_word());
    return &counter;
  };
  DP_ASSIGN_OR_RETURN(io::PartsImporter::Result imported,
                      parts.ImportInParts(request.path, names, first, new_part));
  base::MarkStage("parts read");
  WindowedTrace out;
  out.info = std::move(imported.trace);
  first.AddCountsTo(out.info);
  std::vector<analysis::WindowCollector::LaterPart> later;
  for (const io::PartsImporter::LaterPart& part : imported.later) {
    counters[part.index].AddCountsTo(out.info);
    later.push_back({&collectors[part.index], part.rebase ? &part.rebase : nullptr});
  }
  collector.MergeAll(later);
  base::MarkStage("parts merged");
  DP_RETURN_IF_ERROR(CheckImported(request, importer, out.info));
  out.marks_source = all ? request.path : log_path;
  out.window_source = all ? "all" : "log";
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(log_path));
  if (all) {
    // As CutWindow cuts --window all: the trace's span on its clock (CheckWindow finds it in
    // its pass), and the launch calls of the window's dispatches.
    out.window.clock = out.info.clock.value_or(trace::ClockDomain::kMonotonic);
    const trace::DispatchVector& ds = out.window.dispatches;
    if (!out.info.launches.empty()) {
      std::vector<uint64_t> correlations;
      for (const trace::Dispatch& d : ds) {
        if (d.correlation != 0) correlations.push_back(d.correlation);
      }
      std::sort(correlations.begin(), correlations.end());
      std::erase_if(out.info.launches, [&](const trace::ApiCall& call) {
        return !std::binary_search(correlations.begin(), correlations.end(), call.correlation);
      });
    }
  }
  DP_RETURN_IF_ERROR(CheckWindow(request, importer, out.window, names, out.info, all));
  out.evidence.start_ns = out.window.lo;
  out.evidence.end_ns = out.window.hi;
  return out;
}

}  // namespace

base::Status CheckImported(const TraceRequest& request, const io::Importer& importer,
                           trace::ImportedTrace& info) {
  info.diagnostics.SetFileIfEmpty(request.path);
  if (info.bad_dispatch) {
    const std::string where =
        importer.position_word() == "line"
            ? base::AtLine(request.path, info.bad_dispatch->line)
            : request.path + ": record " + std::to_string(info.bad_dispatch->line);
    return base::DataError(where, "a dispatch " + info.bad_dispatch->what);
  }
  if (info.bad_record) {
    return base::DataError(request.path, *info.bad_record + ": it cannot be right",
                           "times in a trace are nanoseconds from 0 to 2^62 "
                           "(docs/trace-formats.md)");
  }
  if (info.dispatches_per_device.empty()) return importer.NoDispatch(request.path, info);
  return CheckDevices(request, info);
}

namespace {

// What every builder of an import gets from the request and the importer: the device
// filter, the importer's word for a record's position, the format's name.
void ConfigureBuilder(trace::TraceBuilder& builder, const TraceRequest& request,
                      const io::Importer& importer) {
  builder.set_device_filter(request.device);
  builder.set_position_word(importer.position_word());
  builder.trace().format = std::string(importer.name());
}

}  // namespace

base::StatusOr<WholeTrace> ImportWhole(const TraceRequest& request, const io::Importer& importer,
                                       trace::StringPool& names) {
  WholeTrace out;
  BufferSink sink(out.dispatches);
  trace::TraceBuilder builder(names, sink);
  ConfigureBuilder(builder, request, importer);
  DP_RETURN_IF_ERROR(importer.Import(request.path, builder));
  out.info = std::move(builder).Finish();
  DP_RETURN_IF_ERROR(CheckImported(request, importer, out.info));
  return out;
}

base::Status CheckDevices(const TraceRequest& request, trace::ImportedTrace& info) {
  const auto& devices = info.dispatches_per_device;
  if (request.device) {
    if (devices.empty()) return base::OkStatus();  // an empty trace is the window's error
    if (devices.count(*request.device) == 0) {
      return base::DataError(request.path,
                             "the trace has no dispatch on device " +
                                 std::to_string(*request.device) + " (" + DeviceList(info) + ")",
                             "pass one of its devices to --device");
    }
    if (devices.size() > 1) {
      info.diagnostics.Add(trace::Diag::kDevicesInTrace, static_cast<int64_t>(devices.size()),
                           {request.path, "", DeviceList(info)});
    }
    return base::OkStatus();
  }
  if (devices.size() > 1) {
    return base::DataError(request.path,
                           "the trace holds dispatches of " + std::to_string(devices.size()) +
                               " devices (" + DeviceList(info) +
                               "); decodeprof never merges them into one GPU",
                           "pick one with --device N (one summary per device)");
  }
  return base::OkStatus();
}

namespace {

// A trace read in one pass: its dispatches and launch calls in spools (memory, then an
// unlinked temporary file), so that the window stage can read them again while the process
// keeps a bounded amount of memory.
struct SpooledTrace {
  trace::ImportedTrace info;
  std::unique_ptr<trace::DispatchSpool> dispatches;
  std::unique_ptr<trace::LaunchSpool> launches;
  std::pair<trace::TimestampNs, trace::TimestampNs> span{INT64_MAX, INT64_MIN};
};

base::StatusOr<SpooledTrace> ImportSpooled(const TraceRequest& request,
                                           const io::Importer& importer, trace::StringPool& names) {
  // DECODEPROF_SPOOL_RECORDS: records of each kind held in memory before the rest goes to
  // the temporary file (docs/performance.md; tests set it small to exercise the file).
  size_t memory_records = trace::Spool<trace::Dispatch>::kDefaultMemoryRecords;
  if (const char* env = std::getenv("DECODEPROF_SPOOL_RECORDS"); env != nullptr) {
    if (const auto n = base::ParseInt64(env); n && *n > 0) {
      memory_records = static_cast<size_t>(*n);
    }
  }
  SpooledTrace out;
  out.dispatches = std::make_unique<trace::DispatchSpool>(memory_records);
  out.launches = std::make_unique<trace::LaunchSpool>(memory_records);
  trace::TraceBuilder builder(names, *out.dispatches);
  builder.set_launch_sink(out.launches.get());
  ConfigureBuilder(builder, request, importer);
  DP_RETURN_IF_ERROR(importer.Import(request.path, builder));
  out.span = builder.dispatch_span();
  out.info = std::move(builder).Finish();
  DP_RETURN_IF_ERROR(CheckImported(request, importer, out.info));
  return out;
}

// The trace read straight into memory: what --window all keeps anyway (every dispatch is in
// the window, and the launch calls of all of them), without a spool to write and read back.
using DispatchRecords = trace::RecordVector<trace::Dispatch, trace::DispatchSink>;
using LaunchVector = trace::RecordVector<trace::ApiCall, trace::LaunchSink>;

base::StatusOr<TraceForWindow> ImportInMemory(const TraceRequest& request,
                                              const io::Importer& importer,
                                              trace::StringPool& names) {
  DispatchRecords dispatches;
  LaunchVector launches;
  trace::TraceBuilder builder(names, dispatches);
  builder.set_launch_sink(&launches);
  builder.set_keeps_everything(true);
  ConfigureBuilder(builder, request, importer);
  DP_RETURN_IF_ERROR(importer.Import(request.path, builder));
  TraceForWindow t;
  const std::pair<trace::TimestampNs, trace::TimestampNs> span = builder.dispatch_span();
  t.info = std::move(builder).Finish();
  DP_RETURN_IF_ERROR(CheckImported(request, importer, t.info));
  t.dispatch_count = static_cast<int64_t>(dispatches.records.size());
  t.span = span;
  auto memory = std::make_shared<TraceForWindow::InMemory>();
  memory->dispatches = std::move(dispatches.records);
  memory->launches = std::move(launches.records);
  t.dispatches = [memory](const DispatchFn& fn) {
    for (const trace::Dispatch& d : memory->dispatches) fn(d);
    return base::OkStatus();
  };
  t.launches = [memory](const LaunchFn& fn) {
    for (const trace::ApiCall& call : memory->launches) fn(call);
    return base::OkStatus();
  };
  t.in_memory = std::move(memory);
  return t;
}

}  // namespace

base::StatusOr<WindowedTrace> ImportWindow(const TraceRequest& request,
                                           const io::Importer& importer,
                                           const trace::PhaseMarks& log_marks,
                                           const std::string& log_path, trace::StringPool& names) {
  // Without ranges the log's marks (or --window all) are known before the trace is read: stream
  // the window, in parts on several threads.
  const io::PartsImporter* parts = importer.parts();
  if (parts != nullptr && !importer.carries_ranges() &&
      ((!log_path.empty() && request.window.kind == WindowSpec::Kind::kDecode) ||
       request.window.kind == WindowSpec::Kind::kAll)) {
    DP_ASSIGN_OR_RETURN(WindowedTrace t,
                        ImportWindowInParts(request, importer, *parts, log_marks, log_path, names));
    base::MarkStage("import in parts");
    return t;
  }
  // The window stage, after the import.
  const auto cut = [&](TraceForWindow t) -> base::StatusOr<WindowedTrace> {
    base::MarkStage("import");
    DP_ASSIGN_OR_RETURN(WindowedTrace windowed,
                        CutWindow(request, importer, log_marks, log_path, std::move(t), names));
    base::MarkStage("window");
    return windowed;
  };
  if (request.window.kind == WindowSpec::Kind::kAll) {
    DP_ASSIGN_OR_RETURN(TraceForWindow t, ImportInMemory(request, importer, names));
    return cut(std::move(t));
  }
  // Otherwise one pass into spools, then the window stage over them.
  DP_ASSIGN_OR_RETURN(SpooledTrace spooled, ImportSpooled(request, importer, names));
  TraceForWindow t;
  t.info = std::move(spooled.info);
  t.dispatch_count = spooled.dispatches->spool().size();
  t.span = spooled.span;
  trace::DispatchSpool& dispatches = *spooled.dispatches;
  trace::LaunchSpool& launches = *spooled.launches;
  t.dispatches = [&dispatches](const DispatchFn& fn) { return dispatches.spool().Replay(fn); };
  t.launches = [&launches](const LaunchFn& fn) { return launches.spool().Replay(fn); };
  return cut(std::move(t));
}

void AddOverlapDiagnostics(const std::string& trace, std::span<const trace::Dispatch> dispatches,
                           trace::TimestampNs lo, trace::TimestampNs hi, trace::Diagnostics& diag) {
  // In parts; the sums of clipped durations (never negative) saturate at INT64_MAX, which
  // adding the parts' sums the same way keeps.
  std::array<int64_t, base::kMaxPassParts> sums{};
  const size_t parts =
      base::ForParts(dispatches.size(), base::kMinPassPart, [&](size_t k, size_t b, size_t e) {
        int64_t part = 0;
        base::spill::ReleaseBehind<trace::Dispatch> behind(dispatches.data(), b);
        for (size_t i = b; i < e; ++i) {
          behind.Passed(i);
          const trace::Dispatch& d = dispatches[i];
          const int64_t clipped = std::max<int64_t>(0, std::min(d.end, hi) - std::max(d.start, lo));
          if (__builtin_add_overflow(part, clipped, &part)) part = INT64_MAX;
        }
        sums[k] = part;
      });
  int64_t sum = 0;
  for (size_t k = 0; k < parts; ++k) {
    if (__builtin_add_overflow(sum, sums[k], &sum)) sum = INT64_MAX;
  }
  const int64_t busy = analysis::BusyUnion(dispatches, lo, hi);
  if (busy <= 0) return;
  const double overlap = static_cast<double>(sum) / static_cast<double>(busy);
  const std::string detail = "the dispatches' durations in the window add up to " +
                             base::FormatFixed(static_cast<double>(sum) / 1e6, 3) + " ms over " +
                             base::FormatFixed(static_cast<double>(busy) / 1e6, 3) +
                             " ms of GPU-busy time (" + base::FormatFixed(overlap, 1) + "x)";
  if (overlap > 128) {
    diag.Add(trace::Diag::kDispatchesOverlapImpossible, 1, {trace, "", detail});
  } else if (overlap > 8) {
    diag.Add(trace::Diag::kDispatchesOverlap, 1, {trace, "", detail});
  }
}

base::Status ErrorDiagnostic(const std::string& path, const trace::Diagnostics& diagnostics) {
  if (!diagnostics.has_error()) return base::OkStatus();
  for (const trace::DiagnosticEntry& e : diagnostics.entries()) {
    const trace::DiagnosticInfo& d = trace::Describe(e.code);
    if (d.severity != trace::Severity::kError) continue;
    return base::DataError(
        e.first.file.empty() ? path : e.first.file,
        std::string(d.meaning) + " (" + std::string(d.name) + ", " + std::to_string(e.count) + ")");
  }
  return base::OkStatus();
}

LaunchContext JoinLaunches(std::span<const trace::Dispatch> dispatches, trace::ImportedTrace& info,
                           const std::string& path, bool per_dispatch) {
  LaunchContext out;
  if (info.launches.empty()) return out;
  const trace::LaunchIndex index(info.launches);
  if (per_dispatch) {
    base::ResizeFaultedIn(out.thread, dispatches.size());
    base::ResizeFaultedIn(out.time, dispatches.size());
  }
  // In parts on several threads, each searching from where its last call was found; merged in
  // order (the first missing one of one pass).
  struct PartMissing {
    int64_t count = 0;
    const trace::Dispatch* first = nullptr;
  };
  std::array<PartMissing, base::kMaxPassParts> missing_in{};
  const size_t parts =
      base::ForParts(dispatches.size(), base::kMinPassPart, [&](size_t k, size_t b, size_t e) {
        size_t hint = 0;
        // What this part has read and written goes from the process as it goes, where it is
        // in files (base/spill.h): 15 threads map the window in faster than the watcher drops it.
        base::spill::ReleaseBehind<trace::Dispatch> read(dispatches.data(), b);
        base::spill::ReleaseBehind<trace::ApiCall> calls(index.data());
        base::spill::ReleaseBehind<uint64_t> threads(out.thread.data(), b);
        base::spill::ReleaseBehind<trace::TimestampNs> times(out.time.data(), b);
        for (size_t i = b; i < e; ++i) {
          read.Passed(i);
          calls.Passed(hint);
          threads.Passed(i);
          times.Passed(i);
          if (const trace::ApiCall* call = index.Find(dispatches[i].correlation, hint)) {
            if (per_dispatch) {
              out.thread[i] = call->thread;
              out.time[i] = call->start;
            }
          } else {
            if (per_dispatch) {
              out.thread[i] = 0;
              out.time[i] = analysis::kUnknownLaunch;
            }
            if (missing_in[k].first == nullptr) missing_in[k].first = &dispatches[i];
            ++missing_in[k].count;
          }
        }
      });
  int64_t missing = 0;
  const trace::Dispatch* first_missing = nullptr;
  for (size_t k = 0; k < parts; ++k) {
    missing += missing_in[k].count;
    if (first_missing == nullptr) first_missing = missing_in[k].first;
  }
  if (first_missing != nullptr) {
    info.diagnostics.Add(trace::Diag::kLaunchNotFound, missing,
                         {path, "record " + std::to_string(first_missing->line),
                          "correlation " + std::to_string(first_missing->correlation)});
  }
  return out;
}

std::string ClockText(const trace::ImportedTrace& info,
                      std::optional<trace::ClockDomain> window_clock) {
  if (info.clock) return trace::ClockName(*info.clock);
  if (window_clock) return trace::ClockName(*window_clock);
  return "unknown";
}

}  // namespace decodeprof::pipeline
