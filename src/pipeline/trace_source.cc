#include "src/pipeline/trace_source.h"

#include <deque>
#include <filesystem>
#include <utility>

#include "src/analysis/pack.h"
#include "src/analysis/range_marks.h"

namespace decodeprof::pipeline {
namespace {

// Keeps every dispatch: for traces whose phase marks are known only after the dispatches
// were read (annotation ranges inside the trace).
class BufferSink : public trace::DispatchSink {
 public:
  explicit BufferSink(std::vector<trace::Dispatch>& out) : out_(out) {}
  void Add(const trace::Dispatch& d) override { out_.push_back(d); }

 private:
  std::vector<trace::Dispatch>& out_;
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
base::StatusOr<WindowedTrace> ImportWindowInParts(const TraceRequest& request,
                                                  const io::PartsImporter& parts,
                                                  const trace::PhaseMarks& log_marks,
                                                  const std::string& log_path,
                                                  trace::StringPool& names) {
  // The reservations bound the rows by the bytes (a kernel-trace row takes well over 64).
  const auto rows_in = [](uintmax_t bytes) { return std::min<uintmax_t>(bytes / 64, 1u << 26); };
  analysis::WindowCollector collector(log_marks);
  trace::CountingSink first(collector);
  first.set_device_filter(request.device);
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(request.path, ec);
  if (!ec) collector.Reserve(rows_in(bytes));
  std::deque<analysis::WindowCollector> collectors;
  std::deque<trace::CountingSink> counters;
  const io::PartsImporter::SinkFactory new_part = [&](size_t, int64_t part_bytes) {
    analysis::WindowCollector& part = collectors.emplace_back(log_marks);
    part.Reserve(rows_in(static_cast<uintmax_t>(part_bytes)));
    trace::CountingSink& counter = counters.emplace_back(part);
    counter.set_device_filter(request.device);
    return &counter;
  };
  DP_ASSIGN_OR_RETURN(io::PartsImporter::Result imported,
                      parts.ImportInParts(request.path, names, first, new_part));
  WindowedTrace out;
  out.info = std::move(imported.trace);
  first.AddCountsTo(out.info);
  for (const io::PartsImporter::LaterPart& part : imported.later) {
    counters[part.index].AddCountsTo(out.info);
    collector.Merge(std::move(collectors[part.index]), part.rebase);
  }
  DP_RETURN_IF_ERROR(CheckDevices(request, out.info));
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(log_path));
  return out;
}

}  // namespace

base::StatusOr<WholeTrace> ImportWhole(const TraceRequest& request, const io::Importer& importer,
                                       trace::StringPool& names) {
  WholeTrace out;
  BufferSink sink(out.dispatches);
  trace::TraceBuilder builder(names, sink);
  builder.set_device_filter(request.device);
  builder.trace().format = std::string(importer.name());
  DP_RETURN_IF_ERROR(importer.Import(request.path, builder));
  out.info = std::move(builder).Finish();
  DP_RETURN_IF_ERROR(CheckDevices(request, out.info));
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

base::StatusOr<MarkChoice> ChooseMarks(const trace::PhaseMarks& log_marks,
                                       const std::string& log_path,
                                       const trace::ImportedTrace& info,
                                       const trace::StringPool& names,
                                       const TraceRequest& request) {
  MarkChoice out;
  const bool log_clock = !info.clock || trace::IsLogClock(*info.clock);
  if (log_clock && !log_marks.empty()) {
    out.marks = log_marks;
    out.source = log_path;
    return out;
  }
  analysis::RangeNames range_names;
  if (!request.decode_range.empty()) range_names.decode = request.decode_range;
  if (!request.step_range.empty()) range_names.step = request.step_range;
  // Ranges of a trace whose clock is unknown are on the clock its recorder used; monotonic is
  // the recorders' (the figures use differences only).
  const trace::ClockDomain clock = info.clock.value_or(trace::ClockDomain::kMonotonic);
  auto from_ranges =
      analysis::MarksFromRanges(info.ranges, names, clock, range_names, request.path);
  if (from_ranges.ok()) {
    out.marks = std::move(from_ranges->marks);
    out.source = request.path;
    if (from_ranges->steps > 0) out.steps = from_ranges->steps;
    return out;
  }
  if (!log_marks.empty()) {
    out.marks = log_marks;
    out.source = log_path;
    return out;
  }
  return from_ranges.status();
}

base::StatusOr<WindowedTrace> ImportWindow(const TraceRequest& request,
                                           const io::Importer& importer,
                                           const trace::PhaseMarks& log_marks,
                                           const std::string& log_path, trace::StringPool& names) {
  if (!importer.carries_ranges() && log_path.empty()) {
    return base::UsageError(
        "--log is required: a " + std::string(importer.name()) + " trace carries no phase marks",
        "pass the bench log with the [phase] lines");
  }
  // Without ranges the log's marks are known before the trace is read: stream the window.
  const io::PartsImporter* parts = importer.parts();
  if (parts != nullptr && !importer.carries_ranges()) {
    return ImportWindowInParts(request, *parts, log_marks, log_path, names);
  }
  DP_ASSIGN_OR_RETURN(WholeTrace whole, ImportWhole(request, importer, names));
  DP_ASSIGN_OR_RETURN(MarkChoice chosen,
                      ChooseMarks(log_marks, log_path, whole.info, names, request));
  WindowedTrace out;
  out.steps = chosen.steps;
  analysis::WindowCollector collector(chosen.marks);
  for (const trace::Dispatch& d : whole.dispatches) collector.Add(d);
  whole.dispatches = {};
  out.info = std::move(whole.info);
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(chosen.source));
  return out;
}

LaunchContext JoinLaunches(std::span<const trace::Dispatch> dispatches, trace::ImportedTrace& info,
                           const std::string& path) {
  LaunchContext out;
  if (info.launches.empty()) return out;
  const trace::LaunchIndex index(info.launches);
  out.thread.assign(dispatches.size(), 0);
  out.time.assign(dispatches.size(), analysis::kUnknownLaunch);
  int64_t missing = 0;
  const trace::Dispatch* first_missing = nullptr;
  for (size_t i = 0; i < dispatches.size(); ++i) {
    if (const trace::ApiCall* call = index.Find(dispatches[i].correlation)) {
      out.thread[i] = call->thread;
      out.time[i] = call->start;
    } else {
      if (first_missing == nullptr) first_missing = &dispatches[i];
      ++missing;
    }
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
