#include "src/pipeline/trace_source.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <unordered_set>
#include <utility>
#include <variant>

#include "src/analysis/decode_finder.h"
#include "src/analysis/pack.h"
#include "src/analysis/range_marks.h"
#include "src/base/parse.h"
#include "src/base/utf8.h"
#include "src/pipeline/sampled_window.h"
#include "src/trace/spool.h"

namespace decodeprof::pipeline {
namespace {

// The decode loop in dispatches in start order. In a recording sampled by time (record
// --sample-time: decodeprof:sampled-time ranges) kernels were recorded only in the timer's
// periods, so a loop must not run across the unrecorded time between two: each period is
// searched alone (its dispatches: those that start from its beginning to the next period's)
// and the loop of the most steps wins (ties: the later period).
base::StatusOr<analysis::FoundLoop> FindLoopInPeriods(std::span<const trace::Dispatch> in_order,
                                                      const trace::ImportedTrace& info,
                                                      const trace::StringPool& names,
                                                      const std::string& path) {
  std::vector<trace::TimestampNs> starts;
  for (const trace::Range& r : info.ranges) {
    if (names.Get(r.name) == kSampledTimeRange) starts.push_back(r.start);
  }
  if (starts.empty()) return analysis::FindDecodeLoop(in_order, info.launches, names, path);
  std::sort(starts.begin(), starts.end());
  const auto by_start = [](const trace::Dispatch& d, trace::TimestampNs t) { return d.start < t; };
  std::optional<analysis::FoundLoop> best;
  base::Status first_error;  // of the first period without a loop
  for (size_t i = 0; i < starts.size(); ++i) {
    const auto lo = std::lower_bound(in_order.begin(), in_order.end(), starts[i], by_start);
    const auto hi = i + 1 < starts.size()
                        ? std::lower_bound(lo, in_order.end(), starts[i + 1], by_start)
                        : in_order.end();
    if (lo == hi) continue;
    auto found = analysis::FindDecodeLoop(std::span(lo, hi), info.launches, names, path);
    if (!found.ok()) {
      if (first_error.ok()) first_error = found.status();
      continue;
    }
    found->dispatches_before += lo - in_order.begin();
    if (!best || found->steps >= best->steps) best = std::move(*found);
  }
  if (best) return std::move(*best);
  if (!first_error.ok()) return first_error;
  return analysis::FindDecodeLoop(in_order, info.launches, names, path);  // no period's dispatch
}

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
  out.window_source = "log";
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(log_path));
  out.evidence.start_ns = out.window.lo;
  out.evidence.end_ns = out.window.hi;
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

trace::PhaseMarks MarksOf(trace::ClockDomain clock, trace::TimestampNs first, trace::TimestampNs lo,
                          trace::TimestampNs hi) {
  const auto stamp = [clock](trace::TimestampNs t) {
    trace::MarkStamp m;
    m.On(clock) = t;
    return m;
  };
  trace::PhaseMarks marks;
  marks["warmup_start"] = stamp(std::min(first, lo));
  marks["decode_start"] = stamp(lo);
  marks["measured_end"] = stamp(hi);
  return marks;
}

// "ranges that repeat: 'ProfilerStep#*' (12), 'execute_model' (40)": range names seen at least
// three times, trailing digits made a glob, the most frequent first (at most 6).
std::string RepeatingRanges(const trace::ImportedTrace& info, const trace::StringPool& names) {
  std::map<std::string, int64_t> counts;
  std::map<trace::StringId, std::string> pattern_of;
  for (const trace::Range& r : info.ranges) {
    auto it = pattern_of.find(r.name);
    if (it == pattern_of.end()) {
      std::string name(names.Get(r.name).substr(0, 80));
      const size_t digits = name.find_last_not_of("0123456789");
      if (digits != std::string::npos && digits + 1 < name.size())
        name.replace(digits + 1, std::string::npos, "*");
      it = pattern_of.emplace(r.name, std::move(name)).first;
    }
    ++counts[it->second];
  }
  std::vector<std::pair<std::string, int64_t>> repeating;
  for (auto& [name, n] : counts) {
    if (n >= 3) repeating.emplace_back(name, n);
  }
  std::stable_sort(repeating.begin(), repeating.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (repeating.empty()) return {};
  std::string out = "ranges that repeat: ";
  for (size_t i = 0; i < repeating.size() && i < 6; ++i) {
    if (i > 0) out += ", ";
    out += "'" + RepairedName(repeating[i].first).value_or(repeating[i].first) + "' (" +
           std::to_string(repeating[i].second) + ")";
  }
  return out;
}

// The span of the step ranges matching `pattern` (by start; each one a step). Engines' own
// per-step ranges (ProfilerStep#N, execute_model) often hold the prefill too: leading and
// trailing steps whose dispatch count is off the median by more than 10 % are left out
// (skipped), and the kept ones that differ from it at all are counted (deviated).
struct StepRangeSpan {
  trace::TimestampNs lo = 0, hi = 0;
  int64_t steps = 0, skipped = 0, deviated = 0;
};
std::optional<StepRangeSpan> StepSpan(std::span<const trace::Range> ranges,
                                      const trace::StringPool& names, const std::string& pattern,
                                      std::span<const trace::Dispatch> dispatches) {
  std::vector<const trace::Range*> steps;
  for (const trace::Range& r : ranges) {
    if (analysis::RangeNameMatches(names.Get(r.name), pattern)) steps.push_back(&r);
  }
  if (steps.empty()) return std::nullopt;
  std::stable_sort(steps.begin(), steps.end(), [](const trace::Range* a, const trace::Range* b) {
    return a->start < b->start;
  });
  std::vector<trace::TimestampNs> starts;
  starts.reserve(dispatches.size());
  for (const trace::Dispatch& d : dispatches) starts.push_back(d.start);
  std::sort(starts.begin(), starts.end());
  std::vector<int64_t> counts;
  for (const trace::Range* r : steps) {
    counts.push_back(std::upper_bound(starts.begin(), starts.end(), r->end) -
                     std::lower_bound(starts.begin(), starts.end(), r->start));
  }
  std::vector<int64_t> sorted = counts;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2),
                   sorted.end());
  const int64_t median = sorted[sorted.size() / 2];
  const auto off = [median](int64_t n) { return std::abs(n - median) * 10 > median; };
  size_t a = 0, b = steps.size();
  while (a < b && off(counts[a])) ++a;
  while (b > a && off(counts[b - 1])) --b;
  StepRangeSpan out;
  if (a == b) {  // nothing like the median at all: keep every step
    a = 0;
    b = steps.size();
  }
  out.lo = steps[a]->start;
  out.hi = steps[a]->end;
  for (size_t i = a; i < b; ++i) {
    out.lo = std::min(out.lo, steps[i]->start);
    out.hi = std::max(out.hi, steps[i]->end);
    out.deviated += counts[i] != median ? 1 : 0;
  }
  out.steps = static_cast<int64_t>(b - a);
  out.skipped = static_cast<int64_t>(steps.size() - (b - a));
  return out;
}

}  // namespace

std::optional<MarkChoice> MarksWithoutDispatches(const trace::PhaseMarks& log_marks,
                                                 const std::string& log_path,
                                                 const trace::ImportedTrace& info,
                                                 const trace::StringPool& names,
                                                 const TraceRequest& request) {
  if (request.window.kind != WindowSpec::Kind::kDecode) return std::nullopt;
  MarkChoice out;
  if ((!info.clock || trace::IsLogClock(*info.clock)) && !log_marks.empty()) {
    out.marks = log_marks;
    out.source = log_path;
    out.window_source = "log";
    return out;
  }
  analysis::RangeNames range_names;
  if (!request.decode_range.empty()) range_names.decode = request.decode_range;
  if (!request.step_range.empty()) range_names.step = request.step_range;
  const trace::ClockDomain clock = info.clock.value_or(trace::ClockDomain::kMonotonic);
  auto from_ranges =
      analysis::MarksFromRanges(info.ranges, names, clock, range_names, request.path);
  if (!from_ranges.ok()) return std::nullopt;  // ChooseMarks says why, or finds the loop
  out.marks = std::move(from_ranges->marks);
  out.source = request.path;
  if (from_ranges->steps > 0) out.steps = from_ranges->steps;
  const bool own_names = !request.decode_range.empty() || !request.step_range.empty();
  out.window_source = own_names ? "ranges" : "marks";
  out.evidence.range = range_names.decode;
  out.evidence.steps = out.steps;
  return out;
}

base::StatusOr<MarkChoice> ChooseMarks(const trace::PhaseMarks& log_marks,
                                       const std::string& log_path, const WholeTrace& whole,
                                       const trace::StringPool& names,
                                       const TraceRequest& request) {
  const trace::ImportedTrace& info = whole.info;
  MarkChoice out;
  // Ranges and found windows of a trace whose clock is unknown are on the clock its recorder
  // used; monotonic is the recorders' (the figures use differences only).
  const trace::ClockDomain clock = info.clock.value_or(trace::ClockDomain::kMonotonic);
  trace::TimestampNs first = INT64_MAX, last = INT64_MIN;
  for (const trace::Dispatch& d : whole.dispatches) {
    first = std::min(first, d.start);
    last = std::max(last, d.end);
  }
  if (request.window.kind != WindowSpec::Kind::kDecode) {
    const bool all = request.window.kind == WindowSpec::Kind::kAll;
    const trace::TimestampNs lo = all ? first : request.window.start;
    const trace::TimestampNs hi = all ? last : request.window.end;
    out.marks = MarksOf(clock, std::min(first, lo), lo, hi);
    out.source = request.path;
    out.window_source = all ? "all" : "explicit";
    out.evidence.start_ns = lo;
    out.evidence.end_ns = hi;
    return out;
  }
  // The log on its clock, or the trace's decode range: what needs no dispatch.
  if (auto chosen = MarksWithoutDispatches(log_marks, log_path, info, names, request)) {
    return std::move(*chosen);
  }
  const auto log_choice = [&] {
    out.marks = log_marks;
    out.source = log_path;
    out.window_source = "log";
    return out;
  };
  analysis::RangeNames range_names;
  if (!request.decode_range.empty()) range_names.decode = request.decode_range;
  if (!request.step_range.empty()) range_names.step = request.step_range;
  const bool own_names = !request.decode_range.empty() || !request.step_range.empty();
  const std::string repeating = RepeatingRanges(info, names);
  if (!request.decode_range.empty()) {
    if (!log_marks.empty()) return log_choice();
    return base::DataError(request.path,
                           "no range matches --decode-range '" + request.decode_range + "'",
                           repeating.empty() ? "the trace holds no range that repeats" : repeating);
  }
  // Without a decode range: the span of the step ranges.
  if (auto span = StepSpan(info.ranges, names, range_names.step, whole.dispatches)) {
    out.marks = MarksOf(clock, first, span->lo, span->hi);
    out.source = request.path;
    out.steps = span->steps;
    out.window_source = own_names ? "ranges" : "marks";
    out.evidence.range = range_names.step;
    out.evidence.steps = span->steps;
    out.evidence.skipped_steps = span->skipped;
    out.evidence.deviated_steps = span->deviated;
    return out;
  }
  if (!request.step_range.empty()) {
    return base::DataError(request.path,
                           "no range matches --step-range '" + request.step_range + "'",
                           repeating.empty() ? "the trace holds no range that repeats" : repeating);
  }
  if (!log_marks.empty()) return log_choice();
  // The finder reads the dispatches in start order (file order on ties); sources that are
  // not in that order (Kineto's events) are sorted on a copy.
  const auto by_start = [](const trace::Dispatch& a, const trace::Dispatch& b) {
    return a.start < b.start;
  };
  std::vector<trace::Dispatch> sorted;
  std::span<const trace::Dispatch> in_order = whole.dispatches;
  if (!std::is_sorted(whole.dispatches.begin(), whole.dispatches.end(), by_start)) {
    sorted = whole.dispatches;
    std::stable_sort(sorted.begin(), sorted.end(), by_start);
    in_order = sorted;
  }
  auto found = FindLoopInPeriods(in_order, info, names, request.path);
  if (!found.ok()) {
    std::string hint =
        "mark the decode (include/decodeprof/marks.h, or a bench log with --log), name the "
        "engine's per-step range with --step-range, or pick a span with --window "
        "START_NS..END_NS or --window all";
    if (!repeating.empty()) hint += "; " + repeating;
    return base::DataError(request.path, found.status().message(), hint);
  }
  out.marks = MarksOf(clock, first, found->lo, found->hi);
  out.source = request.path;
  out.steps = found->steps;
  out.window_source = found->source;
  analysis::WindowEvidence& ev = out.evidence;
  ev.steps = found->steps;
  ev.dispatches_per_step = found->dispatches_per_step;
  ev.kernels_per_step = found->kernels_per_step;
  ev.graph_launches_per_step = found->graph_launches_per_step;
  ev.deviated_steps = found->deviated_steps;
  ev.runs = found->runs;
  ev.dispatches_before = found->dispatches_before;
  ev.anchor = found->anchor;
  return out;
}

namespace {

base::Status CheckStepRange(const TraceRequest& request, const MarkChoice& chosen) {
  if (!request.step_range.empty() && chosen.window_source == "ranges" && !chosen.steps) {
    return base::DataError(
        request.path,
        "no range matches --step-range '" + request.step_range + "' inside the decode range",
        "--step-range names the range of one decode step; leave it out to "
        "take the tokens from the log or --generated-tokens");
  }
  return base::OkStatus();
}

base::StatusOr<WindowedTrace> FinishStreamedWindow(const TraceRequest& request,
                                                   const io::Importer& importer,
                                                   trace::ImportedTrace info, MarkChoice chosen,
                                                   analysis::WindowCollector collector,
                                                   trace::StringPool& names);

// The correlation ids of the dispatches the window collector kept: whose launch calls to keep.
std::unordered_set<uint64_t> KeptCorrelations(const analysis::WindowCollector& collector) {
  std::unordered_set<uint64_t> out;
  collector.ForEachKept([&](const trace::Dispatch& d) {
    if (d.correlation != 0) out.insert(d.correlation);
  });
  return out;
}

// The second stage of an annotations-first import: the dispatches into the collector, then
// the launch calls of the window's dispatches.
base::StatusOr<WindowedTrace> ImportWindowStaged(const TraceRequest& request,
                                                 const io::Importer& importer,
                                                 const io::StagedImporter& staged,
                                                 trace::ImportedTrace info, MarkChoice chosen,
                                                 trace::StringPool& names) {
  DP_RETURN_IF_ERROR(CheckStepRange(request, chosen));
  analysis::WindowCollector collector(chosen.marks);
  trace::TraceBuilder builder(names, collector);
  ConfigureBuilder(builder, request, importer);
  std::optional<std::unordered_set<uint64_t>> correlations;  // once the dispatches are in
  const io::StagedImporter::LaunchFilter keep = [&](uint64_t correlation) {
    if (!correlations) correlations = KeptCorrelations(collector);
    return correlations->count(correlation) > 0;
  };
  DP_RETURN_IF_ERROR(staged.ImportDispatches(request.path, builder, keep));
  trace::ImportedTrace streamed = std::move(builder).Finish();
  info.dispatches_per_device = std::move(streamed.dispatches_per_device);
  info.kernels = streamed.kernels;
  info.memory_ops = streamed.memory_ops;
  info.bad_dispatch = std::move(streamed.bad_dispatch);
  info.launches = std::move(streamed.launches);
  info.diagnostics.Merge(streamed.diagnostics);
  DP_RETURN_IF_ERROR(CheckImported(request, importer, info));
  return FinishStreamedWindow(request, importer, std::move(info), std::move(chosen),
                              std::move(collector), names);
}

// The window of a streamed import (staged or spooled), its marks chosen without dispatches.
base::StatusOr<WindowedTrace> FinishStreamedWindow(const TraceRequest& request,
                                                   const io::Importer& importer,
                                                   trace::ImportedTrace info, MarkChoice chosen,
                                                   analysis::WindowCollector collector,
                                                   trace::StringPool& names) {
  WindowedTrace out;
  out.info = std::move(info);
  out.steps = chosen.steps;
  out.marks_source = chosen.source;
  out.window_source = chosen.window_source;
  out.evidence = chosen.evidence;
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(chosen.source));
  out.evidence.start_ns = out.window.lo;
  out.evidence.end_ns = out.window.hi;
  DP_RETURN_IF_ERROR(CheckWindow(request, importer, out.window, names, out.info));
  return out;
}

// One pass for importers whose ranges come with the dispatches (Kineto, nsys, rocpd): the
// dispatches and launch calls go to spools (memory, then an unlinked temporary file). When
// the trace's ranges or the log give the marks, the dispatches are replayed into the window
// cut and only the window's launch calls are kept, so memory is bounded by the window;
// otherwise (the decode loop is to be found in the trace) every dispatch is read back.
base::StatusOr<std::variant<WindowedTrace, WholeTrace>> ImportSpooled(
    const TraceRequest& request, const io::Importer& importer, const trace::PhaseMarks& log_marks,
    const std::string& log_path, trace::StringPool& names) {
  // DECODEPROF_SPOOL_RECORDS: records of each kind held in memory before the rest goes to
  // the temporary file (docs/performance.md; tests set it small to exercise the file).
  size_t memory_records = trace::Spool<trace::Dispatch>::kDefaultMemoryRecords;
  if (const char* env = std::getenv("DECODEPROF_SPOOL_RECORDS"); env != nullptr) {
    if (const auto n = base::ParseInt64(env); n && *n > 0) {
      memory_records = static_cast<size_t>(*n);
    }
  }
  trace::DispatchSpool dispatches(memory_records);
  trace::LaunchSpool launches(memory_records);
  trace::TraceBuilder builder(names, dispatches);
  builder.set_launch_sink(&launches);
  ConfigureBuilder(builder, request, importer);
  DP_RETURN_IF_ERROR(importer.Import(request.path, builder));
  trace::ImportedTrace info = std::move(builder).Finish();
  DP_RETURN_IF_ERROR(CheckImported(request, importer, info));
  if (auto chosen = MarksWithoutDispatches(log_marks, log_path, info, names, request)) {
    DP_RETURN_IF_ERROR(CheckStepRange(request, *chosen));
    analysis::WindowCollector collector(chosen->marks);
    DP_RETURN_IF_ERROR(
        dispatches.spool().Drain([&](const trace::Dispatch& d) { collector.Add(d); }));
    const std::unordered_set<uint64_t> correlations = KeptCorrelations(collector);
    DP_RETURN_IF_ERROR(launches.spool().Drain([&](const trace::ApiCall& call) {
      if (correlations.count(call.correlation) > 0) info.launches.push_back(call);
    }));
    DP_ASSIGN_OR_RETURN(WindowedTrace windowed,
                        FinishStreamedWindow(request, importer, std::move(info), std::move(*chosen),
                                             std::move(collector), names));
    return std::variant<WindowedTrace, WholeTrace>(std::move(windowed));
  }
  WholeTrace whole;
  whole.info = std::move(info);
  whole.dispatches.reserve(static_cast<size_t>(dispatches.spool().size()));
  DP_RETURN_IF_ERROR(
      dispatches.spool().Drain([&](const trace::Dispatch& d) { whole.dispatches.push_back(d); }));
  whole.info.launches.reserve(static_cast<size_t>(launches.spool().size()));
  DP_RETURN_IF_ERROR(launches.spool().Drain(
      [&](const trace::ApiCall& call) { whole.info.launches.push_back(call); }));
  return std::variant<WindowedTrace, WholeTrace>(std::move(whole));
}

}  // namespace

base::StatusOr<WindowedTrace> ImportWindow(const TraceRequest& request,
                                           const io::Importer& importer,
                                           const trace::PhaseMarks& log_marks,
                                           const std::string& log_path, trace::StringPool& names) {
  // Without ranges the log's marks are known before the trace is read: stream the window.
  const io::PartsImporter* parts = importer.parts();
  if (parts != nullptr && !importer.carries_ranges() && !log_path.empty() &&
      request.window.kind == WindowSpec::Kind::kDecode) {
    return ImportWindowInParts(request, importer, *parts, log_marks, log_path, names);
  }
  if (const io::StagedImporter* staged = importer.staged();
      staged != nullptr && request.window.kind == WindowSpec::Kind::kDecode) {
    // Annotations first: when they (or the log) give the marks, the dispatches stream straight
    // into the window collector and only the window's launch calls are kept.
    trace::NullSink none;
    trace::TraceBuilder annotations(names, none);
    annotations.trace().format = std::string(importer.name());
    DP_RETURN_IF_ERROR(staged->ImportAnnotations(request.path, annotations));
    trace::ImportedTrace info = std::move(annotations).Finish();
    if (auto chosen = MarksWithoutDispatches(log_marks, log_path, info, names, request)) {
      return ImportWindowStaged(request, importer, *staged, std::move(info), std::move(*chosen),
                                names);
    }
  }
  WholeTrace whole;
  if (importer.staged() != nullptr || request.window.kind != WindowSpec::Kind::kDecode) {
    DP_ASSIGN_OR_RETURN(whole, ImportWhole(request, importer, names));
  } else {
    DP_ASSIGN_OR_RETURN(auto spooled, ImportSpooled(request, importer, log_marks, log_path, names));
    if (auto* windowed = std::get_if<WindowedTrace>(&spooled)) return std::move(*windowed);
    whole = std::move(std::get<WholeTrace>(spooled));
  }
  DP_ASSIGN_OR_RETURN(MarkChoice chosen, ChooseMarks(log_marks, log_path, whole, names, request));
  DP_RETURN_IF_ERROR(CheckStepRange(request, chosen));
  WindowedTrace out;
  out.steps = chosen.steps;
  out.marks_source = chosen.source;
  out.window_source = chosen.window_source;
  out.evidence = chosen.evidence;
  analysis::WindowCollector collector(chosen.marks);
  for (const trace::Dispatch& d : whole.dispatches) collector.Add(d);
  whole.dispatches = {};
  out.info = std::move(whole.info);
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(chosen.source));
  if (out.evidence.end_ns == 0 && out.evidence.start_ns == 0) {
    out.evidence.start_ns = out.window.lo;
    out.evidence.end_ns = out.window.hi;
  }
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
