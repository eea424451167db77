#include "src/pipeline/trace_source.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <utility>

#include "src/analysis/pack.h"
#include "src/analysis/range_marks.h"
#include "src/base/utf8.h"

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
base::StatusOr<WindowedTrace> ImportWindowInParts(
    const TraceRequest& request, const io::Importer& importer, const io::PartsImporter& parts,
    const trace::PhaseMarks& log_marks, const std::string& log_path, trace::StringPool& names) {
  // The reservations bound the rows by the bytes (a kernel-trace row takes well over 64).
  const auto rows_in = [](uintmax_t bytes) { return std::min<uintmax_t>(bytes / 64, 1u << 26); };
  analysis::WindowCollector collector(log_marks);
  trace::CountingSink first(collector);
  first.set_device_filter(request.device);
  first.set_position_word(importer.position_word());
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
    counter.set_position_word(importer.position_word());
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
  DP_RETURN_IF_ERROR(CheckImported(request, importer, out.info));
  out.marks_source = log_path;
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(log_path));
  DP_RETURN_IF_ERROR(CheckWindow(request, importer, out.window, names, out.info));
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
  if (info.dispatches_per_device.empty()) {
    return base::DataError(request.path,
                           "the trace holds no dispatch (no kernel, no memory operation)",
                           "was the GPU work recorded? (an empty or header-only file)");
  }
  return CheckDevices(request, info);
}

base::StatusOr<WholeTrace> ImportWhole(const TraceRequest& request, const io::Importer& importer,
                                       trace::StringPool& names) {
  WholeTrace out;
  BufferSink sink(out.dispatches);
  trace::TraceBuilder builder(names, sink);
  builder.set_device_filter(request.device);
  builder.set_position_word(importer.position_word());
  builder.trace().format = std::string(importer.name());
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
    return ImportWindowInParts(request, importer, *parts, log_marks, log_path, names);
  }
  DP_ASSIGN_OR_RETURN(WholeTrace whole, ImportWhole(request, importer, names));
  DP_ASSIGN_OR_RETURN(MarkChoice chosen,
                      ChooseMarks(log_marks, log_path, whole.info, names, request));
  if (!request.step_range.empty() && chosen.source == request.path && !chosen.steps) {
    return base::DataError(request.path,
                           "no range named '" + request.step_range + "' inside the decode range",
                           "--step-range names the range of one decode step; leave it out to "
                           "take the tokens from the log or --generated-tokens");
  }
  WindowedTrace out;
  out.steps = chosen.steps;
  out.marks_source = chosen.source;
  analysis::WindowCollector collector(chosen.marks);
  for (const trace::Dispatch& d : whole.dispatches) collector.Add(d);
  whole.dispatches = {};
  out.info = std::move(whole.info);
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(chosen.source));
  DP_RETURN_IF_ERROR(CheckWindow(request, importer, out.window, names, out.info));
  return out;
}

std::optional<std::string> RepairedName(std::string_view text) {
  std::string out;
  bool changed = false;
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t len = base::DecodeUtf8(text, i, cp);
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      changed = true;
      ++i;
      continue;
    }
    // Tabs and newlines are text (names in quoted CSV fields hold them; the seed keeps them).
    if ((cp < 0x20 || cp == 0x7F) && cp != '\t' && cp != '\n') {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[cp >> 4];
      out += kHex[cp & 0xF];
      changed = true;
      ++i;
      continue;
    }
    out.append(text.substr(i, len));
    i += len;
  }
  if (!changed) return std::nullopt;
  return out;
}

base::Status CheckWindow(const TraceRequest& request, const io::Importer& importer,
                         analysis::DecodeWindow& window, trace::StringPool& names,
                         trace::ImportedTrace& info) {
  auto& ds = window.dispatches;
  const auto same = [](const trace::Dispatch& a, const trace::Dispatch& b) {
    return a.end == b.end && a.name == b.name && a.device == b.device && a.stream == b.stream &&
           a.kind == b.kind && a.correlation == b.correlation;
  };
  for (size_t i = 0; i < ds.size(); ++i) {
    for (size_t j = i + 1; j < ds.size() && ds[j].start == ds[i].start; ++j) {
      if (!same(ds[i], ds[j])) continue;
      const uint32_t line = std::max(ds[i].line, ds[j].line);
      const std::string where = importer.position_word() == "line"
                                    ? base::AtLine(request.path, line)
                                    : request.path + ": record " + std::to_string(line);
      return base::DataError(
          where,
          "a dispatch recorded twice (the same start, end, name, device, "
          "stream and correlation as " +
              std::string(importer.position_word()) + " " +
              std::to_string(std::min(ds[i].line, ds[j].line)) + ")",
          "the trace holds its records twice (a file concatenated with itself?)");
    }
  }
  const trace::DurationNs wall = window.hi - window.lo;
  int64_t long_ones = 0;
  const trace::Dispatch* first_long = nullptr;
  for (const trace::Dispatch& d : ds) {
    if (d.end - d.start > wall) {
      if (first_long == nullptr) first_long = &d;
      ++long_ones;
    }
  }
  if (first_long != nullptr) {
    info.diagnostics.Add(
        trace::Diag::kDispatchLongerThanWindow, long_ones,
        {request.path,
         std::string(importer.position_word()) + " " + std::to_string(first_long->line),
         std::to_string(first_long->end - first_long->start) + " ns against a " +
             std::to_string(wall) + " ns window"});
  }
  // Names: each distinct one once.
  std::vector<int64_t> repaired(names.size(), -1);  // -1 unchecked, -2 fine, else the new id
  int64_t count = 0;
  std::string first;
  for (trace::Dispatch& d : ds) {
    int64_t& slot = repaired[d.name];
    if (slot == -1) {
      if (auto text = RepairedName(names.Get(d.name))) {
        if (count++ == 0) first = *text;
        slot = names.Intern(*text);
      } else {
        slot = -2;
      }
    }
    if (slot >= 0) d.name = static_cast<trace::StringId>(slot);
  }
  if (window.last_before) {
    if (auto text = RepairedName(names.Get(window.last_before->name))) {
      window.last_before->name = names.Intern(*text);
    }
  }
  info.diagnostics.Add(trace::Diag::kNamesRepaired, count, {request.path, "", first});
  return base::OkStatus();
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
