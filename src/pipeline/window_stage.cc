#include "src/pipeline/window_stage.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "src/analysis/decode_finder.h"
#include "src/analysis/range_marks.h"
#include "src/base/large_pages.h"
#include "src/base/parallel.h"
#include "src/base/spill.h"
#include "src/base/utf8.h"
#include "src/pipeline/sampled_window.h"

namespace decodeprof::pipeline {
namespace {

// The marks of a window the trace itself gives ([lo, hi] on its clock). warmup_start only
// decides between clocks (WindowCollector: the one bracketing more dispatches); here there is
// one clock, and every dispatch up to hi is bracketed.
trace::PhaseMarks MarksOf(trace::ClockDomain clock, trace::TimestampNs lo, trace::TimestampNs hi) {
  const auto stamp = [clock](trace::TimestampNs t) {
    trace::MarkStamp m;
    m.On(clock) = t;
    return m;
  };
  trace::PhaseMarks marks;
  marks["warmup_start"] = stamp(INT64_MIN);
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

// A set of correlation ids, made in two passes over them (Count each, then Add each again,
// then Finish): one bit per id from the least when they are dense (as recorders number them:
// millions of ids in a few hundred KiB), else sorted and unique. Dense: at most 64 ids apart on
// average, so that the bits never take more memory than the sorted ids would.
class IdSet {
 public:
  void Count(uint64_t id) {
    ++count_;
    lo_ = std::min(lo_, id);
    hi_ = std::max(hi_, id);
  }
  void Add(uint64_t id) {
    if (!counted_) Size();
    if (dense_) {
      bits_[id - lo_] = true;
    } else {
      sorted_.push_back(id);
    }
  }
  void Finish() {
    if (!counted_) Size();
    if (!dense_ && !std::is_sorted(sorted_.begin(), sorted_.end())) {
      std::sort(sorted_.begin(), sorted_.end());
    }
    sorted_.erase(std::unique(sorted_.begin(), sorted_.end()), sorted_.end());
  }
  bool Contains(uint64_t id) const {
    if (dense_) return id >= lo_ && id - lo_ < bits_.size() && bits_[id - lo_];
    return std::binary_search(sorted_.begin(), sorted_.end(), id);
  }

 private:
  void Size() {
    counted_ = true;
    dense_ = count_ > 0 && hi_ - lo_ < count_ * 64;
    if (dense_) {
      bits_.assign(static_cast<size_t>(hi_ - lo_) + 1, false);
    } else {
      sorted_.reserve(count_);
    }
  }

  uint64_t count_ = 0;
  uint64_t lo_ = UINT64_MAX;
  uint64_t hi_ = 0;
  bool counted_ = false;
  bool dense_ = false;
  std::vector<bool> bits_;
  std::vector<uint64_t> sorted_;
};

// What the launch calls say about a host-time span: the correlation ids launched inside it
// (owned), every correlation id that has a launch call (known), and the span's projection
// onto the GPU.
struct Projection {
  bool by_launch = false;             // false: the trace has no launch call; the time cut stays
  trace::TimestampNs cpu_hi = 0;      // the span's end on the host
  trace::TimestampNs lo = 0, hi = 0;  // the window: the span, widened to the owned GPU work
  std::unordered_set<uint64_t> owned;
  IdSet known;  // the ids that have a launch call
  int64_t owned_dispatches = 0;

  bool Known(uint64_t id) const { return known.Contains(id); }
  // Whether a dispatch belongs to the window, times aside: owned, or without a launch call
  // (then its start decides, as in the time cut).
  bool Keeps(const trace::Dispatch& d) const {
    if (!by_launch || owned.count(d.correlation) > 0) return true;
    return d.correlation == 0 || !Known(d.correlation);
  }
};

// The launch calls whose start lies in [lo, hi] (any thread: an engine's worker threads
// launch inside the range of the thread that drives the step), and the GPU span of what they
// launched.
base::StatusOr<Projection> Project(const TraceForWindow& t, trace::TimestampNs lo,
                                   trace::TimestampNs hi) {
  Projection p;
  p.lo = lo;
  p.cpu_hi = p.hi = hi;
  int64_t calls = 0;
  DP_RETURN_IF_ERROR(t.launches([&](const trace::ApiCall& call) {
    ++calls;
    p.known.Count(call.correlation);
    if (lo <= call.start && call.start <= hi) p.owned.insert(call.correlation);
  }));
  p.by_launch = calls > 0;
  if (!p.by_launch) return p;
  DP_RETURN_IF_ERROR(
      t.launches([&](const trace::ApiCall& call) { p.known.Add(call.correlation); }));
  p.known.Finish();
  if (!p.by_launch || p.owned.empty()) return p;
  DP_RETURN_IF_ERROR(t.dispatches([&](const trace::Dispatch& d) {
    if (p.owned.count(d.correlation) == 0) return;
    ++p.owned_dispatches;
    p.lo = std::min(p.lo, d.start);
    p.hi = std::max(p.hi, d.end);
  }));
  return p;
}

// Calls `fn(i, d)` for each dispatch `d` launched inside steps[i] (ranges sorted by start):
// its launch call (by correlation id) starts inside the step's host time — the latest step to
// start at or before the call, on any thread — or, in a trace without launch calls, the
// dispatch itself starts there.
base::Status ForEachStepDispatch(const TraceForWindow& t,
                                 std::span<const trace::Range* const> steps,
                                 const std::function<void(size_t, const trace::Dispatch&)>& fn) {
  std::vector<trace::TimestampNs> starts;  // of the steps
  for (const trace::Range* r : steps) starts.push_back(r->start);
  // The step whose host time holds `time`, or -1.
  const auto step_at = [&](trace::TimestampNs time) -> int64_t {
    const auto it = std::upper_bound(starts.begin(), starts.end(), time);
    if (it == starts.begin()) return -1;
    const size_t i = static_cast<size_t>(it - starts.begin()) - 1;
    return steps[i]->end >= time ? static_cast<int64_t>(i) : -1;
  };
  std::unordered_map<uint64_t, int64_t> step_of;  // correlation → step launched in
  bool any_launch = false;
  DP_RETURN_IF_ERROR(t.launches([&](const trace::ApiCall& call) {
    any_launch = true;
    const int64_t s = step_at(call.start);
    if (s >= 0) step_of.emplace(call.correlation, s);
  }));
  return t.dispatches([&](const trace::Dispatch& d) {
    int64_t s = -1;
    if (any_launch) {
      if (auto it = step_of.find(d.correlation); it != step_of.end()) s = it->second;
    } else {
      s = step_at(d.start);
    }
    if (s >= 0) fn(static_cast<size_t>(s), d);
  });
}

// The steps kept of steps whose dispatch counts are `counts` (non-empty): [a, b) without the
// leading and trailing ones whose count is off the median by over 10 % (a prefill); every
// step when none is like the median.
struct Kept {
  size_t a = 0, b = 0;
  int64_t median = 0;
};
Kept KeptSteps(const std::vector<int64_t>& counts) {
  std::vector<int64_t> sorted = counts;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2),
                   sorted.end());
  const int64_t median = sorted[sorted.size() / 2];
  const auto off = [median](int64_t n) { return std::abs(n - median) * 10 > median; };
  size_t a = 0, b = counts.size();
  while (a < b && off(counts[a])) ++a;
  while (b > a && off(counts[b - 1])) --b;
  if (a == b) return {0, counts.size(), median};  // nothing like the median: keep every step
  return {a, b, median};
}

// The step ranges matching `pattern`, by start. Engines' own per-step ranges (ProfilerStep#N,
// execute_model) often hold the prefill too: leading and trailing steps whose dispatch count
// is off the median by more than 10 % are left out (skipped), and the kept ones that differ
// from it at all are counted (deviated). A step's dispatches are those launched inside it
// (by correlation), or, in a trace without launch calls, those that start inside it.
struct StepRangeSpan {
  trace::TimestampNs lo = 0, hi = 0;  // host time: the first kept step's start, the last end
  int64_t steps = 0, skipped = 0, deviated = 0;
};
base::StatusOr<std::optional<StepRangeSpan>> StepSpan(const TraceForWindow& t,
                                                      const trace::StringPool& names,
                                                      const std::string& pattern) {
  std::vector<const trace::Range*> steps;
  for (const trace::Range& r : t.info.ranges) {
    if (analysis::RangeNameMatches(names.Get(r.name), pattern)) steps.push_back(&r);
  }
  if (steps.empty()) return std::optional<StepRangeSpan>();
  std::stable_sort(steps.begin(), steps.end(), [](const trace::Range* a, const trace::Range* b) {
    return a->start < b->start;
  });
  std::vector<int64_t> counts(steps.size(), 0);
  DP_RETURN_IF_ERROR(
      ForEachStepDispatch(t, steps, [&](size_t step, const trace::Dispatch&) { ++counts[step]; }));
  const auto [a, b, median] = KeptSteps(counts);
  StepRangeSpan out;
  out.lo = steps[a]->start;
  out.hi = steps[a]->end;
  for (size_t i = a; i < b; ++i) {
    out.lo = std::min(out.lo, steps[i]->start);
    out.hi = std::max(out.hi, steps[i]->end);
    out.deviated += counts[i] != median ? 1 : 0;
  }
  out.steps = static_cast<int64_t>(b - a);
  out.skipped = static_cast<int64_t>(steps.size() - (b - a));
  return std::optional<StepRangeSpan>(out);
}

// The engine's own step names (analysis/engine_steps.h), read from the trace's ranges: the
// chosen rule's steps with what each launched, and the window among them.
struct EngineStepWindow {
  analysis::EngineSteps table;
  trace::TimestampNs lo = 0, hi = 0;  // host time: the window's first step start, last end
  int64_t skipped = 0;                // the rule's steps outside the window
  int64_t run = 0;                    // 1-based index of the window's decode run
  std::vector<std::string> reasons;   // why the window may not be a decode (low confidence)
};

// Rules of serving engines, whose names say the kind, outrank the rest: a graph capture
// (vLLM captures before it serves) and torch.profiler's ProfilerStep#N (vLLM's profiler steps
// it once per engine step), which only cut a window when no serving engine named its steps.
int RuleClass(const analysis::EngineStepRule& rule) {
  if (rule.id == "torch-profiler") return 2;
  if (rule.id == "vllm-capture") return 1;
  return 0;
}

base::StatusOr<std::optional<EngineStepWindow>> EngineStepsOf(const TraceForWindow& t,
                                                              const trace::StringPool& names,
                                                              const std::string& path) {
  const std::span<const analysis::EngineStepRule> rules = analysis::EngineStepRules();
  struct Step {
    const trace::Range* range;
    analysis::StepLabel label;
  };
  std::vector<std::vector<Step>> by_rule(rules.size());
  std::unordered_map<trace::StringId, std::pair<const analysis::EngineStepRule*,
                                                analysis::StepLabel>>
      read;  // per name
  for (const trace::Range& r : t.info.ranges) {
    auto it = read.find(r.name);
    if (it == read.end()) {
      analysis::StepLabel label;
      const analysis::EngineStepRule* rule = analysis::ReadStepName(names.Get(r.name), &label);
      it = read.emplace(r.name, std::make_pair(rule, label)).first;
    }
    if (it->second.first == nullptr) continue;
    by_rule[static_cast<size_t>(it->second.first - rules.data())].push_back(
        {&r, it->second.second});
  }
  // The rules found, best class first, table order within a class.
  std::vector<size_t> found;
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!by_rule[i].empty()) found.push_back(i);
  }
  if (found.empty()) return std::optional<EngineStepWindow>();
  std::stable_sort(found.begin(), found.end(),
                   [&](size_t a, size_t b) { return RuleClass(rules[a]) < RuleClass(rules[b]); });
  for (std::vector<Step>& steps : by_rule) {
    std::stable_sort(steps.begin(), steps.end(),
                     [](const Step& a, const Step& b) { return a.range->start < b.range->start; });
  }
  const size_t chosen = found.front();
  const auto counts_of = [&](size_t rule) {
    std::vector<analysis::StepRecord> records;
    for (const Step& s : by_rule[rule]) {
      analysis::StepRecord r;
      r.label = s.label;
      records.push_back(r);
    }
    return "'" + std::string(rules[rule].id) + "' (" +
           analysis::KindCounts(analysis::StepKindTable(records)) + ")";
  };
  EngineStepWindow out;
  // Two serving engines' names in one trace must tell the same steps: as many, of the same
  // kinds in the same order (SGLang builds that also write vLLM's names). Else nobody knows
  // which to believe.
  for (size_t k = 1; k < found.size(); ++k) {
    const size_t other = found[k];
    out.table.also_found.emplace_back(rules[other].id);
    if (RuleClass(rules[other]) != RuleClass(rules[chosen])) continue;
    bool same = by_rule[other].size() == by_rule[chosen].size();
    for (size_t i = 0; same && i < by_rule[chosen].size(); ++i) {
      same = by_rule[other][i].label.kind == by_rule[chosen][i].label.kind;
    }
    if (!same) {
      return base::DataError(
          path,
          "the trace names its engine steps in two ways that disagree: " + counts_of(chosen) +
              " and " + counts_of(other),
          "pick the steps with --step-range GLOB (e.g. --step-range 'step?DECODE*'), or the "
          "window with --window START_NS..END_NS");
    }
  }
  const std::vector<Step>& steps = by_rule[chosen];
  analysis::EngineSteps& table = out.table;
  table.rule = std::string(rules[chosen].id);
  table.engine = std::string(rules[chosen].engine);
  for (const Step& s : steps) {
    analysis::StepRecord rec;
    rec.label = s.label;
    rec.start_ns = s.range->start;
    rec.end_ns = s.range->end;
    table.steps.push_back(rec);
  }
  // What each step launched, whenever it ran.
  std::vector<const trace::Range*> ranges;
  for (const Step& step : steps) ranges.push_back(step.range);
  struct Work {
    size_t step;
    trace::TimestampNs start, end;
  };
  std::vector<Work> work;
  DP_RETURN_IF_ERROR(ForEachStepDispatch(t, ranges, [&](size_t step, const trace::Dispatch& d) {
    work.push_back({step, d.start, d.end});
  }));
  std::sort(work.begin(), work.end(), [](const Work& a, const Work& b) {
    return a.step != b.step ? a.step < b.step : a.start < b.start;
  });
  for (size_t i = 0; i < work.size();) {
    const size_t step = work[i].step;
    analysis::StepRecord& rec = table.steps[step];
    trace::TimestampNs lo = work[i].start, hi = work[i].end;
    for (; i < work.size() && work[i].step == step; ++i) {
      ++rec.dispatches;
      if (work[i].start > hi) {
        rec.gpu_busy_ns += hi - lo;
        lo = work[i].start;
      }
      hi = std::max(hi, work[i].end);
    }
    rec.gpu_busy_ns += hi - lo;
  }
  // The window: the longest run of consecutive decode steps (ties: the later); without a
  // decode step, every step but leading and trailing ones whose dispatch count is off the
  // median by over 10 % (a prefill ahead of unnamed steps), as for --step-range.
  size_t a = 0, b = 0;
  for (size_t i = 0; i < steps.size();) {
    if (steps[i].label.kind != analysis::StepKind::kDecode) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < steps.size() && steps[j].label.kind == analysis::StepKind::kDecode) ++j;
    ++table.decode_runs;
    if (j - i >= b - a) {
      a = i;
      b = j;
      out.run = table.decode_runs;
    }
    i = j;
  }
  if (table.decode_runs == 0) {
    std::vector<int64_t> counts;
    for (const analysis::StepRecord& r : table.steps) counts.push_back(r.dispatches);
    const Kept kept = KeptSteps(counts);
    a = kept.a;
    b = kept.b;
  }
  out.lo = steps[a].range->start;
  out.hi = steps[a].range->end;
  table.window_kind = steps[a].label.kind;
  for (size_t i = a; i < b; ++i) {
    table.steps[i].in_window = true;
    out.lo = std::min(out.lo, steps[i].range->start);
    out.hi = std::max(out.hi, steps[i].range->end);
    if (steps[i].label.kind != table.window_kind) table.window_kind = analysis::StepKind::kUnknown;
  }
  table.window_steps = static_cast<int64_t>(b - a);
  out.skipped = static_cast<int64_t>(steps.size()) - table.window_steps;
  table.kinds = analysis::StepKindTable(table.steps);
  if (table.decode_runs == 0) {
    const std::string what = table.window_kind == analysis::StepKind::kUnknown
                                 ? std::string(table.window_steps == 1 ? "step" : "steps")
                                 : std::string(analysis::StepKindName(table.window_kind)) +
                                       (table.window_steps == 1 ? " step" : " steps");
    out.reasons.push_back("the engine's step names (" + table.rule + ": " +
                          analysis::KindCounts(table.kinds) +
                          ") hold no decode step: the window is its " +
                          std::to_string(table.window_steps) + " " + what + ", not a decode");
  }
  return std::optional<EngineStepWindow>(std::move(out));
}

// The decode loop in dispatches in start order. In a recording sampled by time (record
// --sample-time: decodeprof:sampled-time ranges) kernels were recorded only in the timer's
// periods, so a loop must not run across the unrecorded time between two: each period is
// searched alone (its dispatches: those that start from its beginning to the next period's)
// and the loop of the most steps wins (ties: the later period).
base::StatusOr<analysis::FoundLoop> FindLoopInPeriods(std::span<const trace::Dispatch> in_order,
                                                      std::span<const trace::ApiCall> launches,
                                                      const trace::ImportedTrace& info,
                                                      const trace::StringPool& names,
                                                      const std::string& path) {
  std::vector<trace::TimestampNs> starts;
  for (const trace::Range& r : info.ranges) {
    if (names.Get(r.name) == kSampledTimeRange) starts.push_back(r.start);
  }
  if (starts.empty()) return analysis::FindDecodeLoop(in_order, launches, names, path);
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
    auto found = analysis::FindDecodeLoop(std::span(lo, hi), launches, names, path);
    if (!found.ok()) {
      if (first_error.ok()) first_error = found.status();
      continue;
    }
    found->dispatches_before += lo - in_order.begin();
    if (!best || found->steps >= best->steps) best = std::move(*found);
  }
  if (best) return std::move(*best);
  if (!first_error.ok()) return first_error;
  return analysis::FindDecodeLoop(in_order, launches, names, path);  // no period's dispatch
}

// How the window is taken, once chosen: its marks, and the ranges' projection (none for the
// log's marks, --window and the found loop: those are times on the GPU's side already).
struct Choice {
  trace::PhaseMarks marks;
  std::string source;            // the file the marks came from (for error messages)
  std::optional<int64_t> steps;  // decode steps counted from step ranges or found
  std::string window_source;     // analysis::Summary::window_source
  analysis::WindowEvidence evidence;
  std::optional<Projection> projection;
  std::optional<analysis::EngineSteps> engine_steps;
  // The finder's input, kept for the cut (the dispatches in start order).
  trace::DispatchVector in_order;
  std::vector<trace::ApiCall> launches;
};

// The choice for a host-time span of ranges: projected onto the GPU.
base::Status ProjectRanges(const TraceForWindow& t, trace::ClockDomain clock, trace::TimestampNs lo,
                           trace::TimestampNs hi, Choice& out) {
  DP_ASSIGN_OR_RETURN(Projection p, Project(t, lo, hi));
  out.marks = MarksOf(clock, p.lo, p.hi);
  analysis::WindowEvidence& ev = out.evidence;
  ev.projection = p.by_launch ? "launch" : "time";
  if (p.by_launch) {
    ev.dispatches_launched_inside = p.owned_dispatches;
    ev.gpu_after_range_ns = std::max<trace::TimestampNs>(0, p.hi - p.cpu_hi);
  }
  out.projection = std::move(p);
  return base::OkStatus();
}

base::StatusOr<Choice> Choose(const TraceRequest& request, const trace::PhaseMarks& log_marks,
                              const std::string& log_path, const TraceForWindow& t,
                              const trace::StringPool& names) {
  const trace::ImportedTrace& info = t.info;
  Choice out;
  out.source = request.path;
  // Ranges and found windows of a trace whose clock is unknown are on the clock its recorder
  // used; monotonic is the recorders' (the figures use differences only).
  const trace::ClockDomain clock = info.clock.value_or(trace::ClockDomain::kMonotonic);
  if (request.window.kind != WindowSpec::Kind::kDecode) {
    const bool all = request.window.kind == WindowSpec::Kind::kAll;
    // No time in a trace lies past kMaxTimestampNs: an explicit bound beyond it (the widest
    // window, 0..9223372036854775807) selects what the bound at it does.
    trace::TimestampNs lo = std::min(request.window.start, trace::kMaxTimestampNs);
    trace::TimestampNs hi = std::min(request.window.end, trace::kMaxTimestampNs);
    if (all && t.span) {  // the trace's span
      lo = t.span->first;
      hi = t.span->second;
    } else if (all) {
      lo = INT64_MAX;
      hi = INT64_MIN;
      DP_RETURN_IF_ERROR(t.dispatches([&](const trace::Dispatch& d) {
        lo = std::min(lo, d.start);
        hi = std::max(hi, d.end);
      }));
    }
    out.marks = MarksOf(clock, lo, hi);
    out.window_source = all ? "all" : "explicit";
    return out;
  }
  const auto log_choice = [&] {
    out.marks = log_marks;
    out.source = log_path;
    out.window_source = "log";
    return out;
  };
  // The log on its clock (the seed's rules: a time cut).
  if ((!info.clock || trace::IsLogClock(*info.clock)) && !log_marks.empty()) return log_choice();
  analysis::RangeNames range_names;
  if (!request.decode_range.empty()) range_names.decode = request.decode_range;
  if (!request.step_range.empty()) range_names.step = request.step_range;
  const bool own_names = !request.decode_range.empty() || !request.step_range.empty();
  // The decode range, projected onto the GPU. In a recording sampled by time, of several
  // decode ranges the last that holds a step range whole inside one of the timer's periods
  // (kernels were recorded there only).
  std::vector<const trace::Range*> timed;
  std::vector<const trace::Range*> step_ranges;
  for (const trace::Range& r : info.ranges) {
    if (names.Get(r.name) == kSampledTimeRange) timed.push_back(&r);
  }
  if (!timed.empty()) {
    for (const trace::Range& r : info.ranges) {
      if (analysis::RangeNameMatches(names.Get(r.name), range_names.step))
        step_ranges.push_back(&r);
    }
  }
  const auto sampled_inside = [&](const trace::Range& decode) {
    for (const trace::Range* s : step_ranges) {
      if (s->start < decode.start || s->end > decode.end) continue;
      for (const trace::Range* p : timed) {
        if (p->start <= s->start && s->end <= p->end) return true;
      }
    }
    return false;
  };
  if (auto from_ranges = analysis::MarksFromRanges(
          info.ranges, names, clock, range_names, request.path,
          timed.empty() ? std::function<bool(const trace::Range&)>() : sampled_inside);
      from_ranges.ok()) {
    DP_RETURN_IF_ERROR(ProjectRanges(t, clock, from_ranges->start, from_ranges->end, out));
    if (from_ranges->steps > 0) out.steps = from_ranges->steps;
    out.window_source = own_names ? "ranges" : "marks";
    out.evidence.range = range_names.decode;
    out.evidence.steps = out.steps;
    if (!request.step_range.empty() && !out.steps) {
      return base::DataError(
          request.path,
          "no range matches --step-range '" + request.step_range + "' inside the decode range",
          "--step-range names the range of one decode step; leave it out to "
          "take the tokens from the log or --generated-tokens");
    }
    return out;
  }
  const std::string repeating = RepeatingRanges(info, names);
  if (!request.decode_range.empty()) {
    if (!log_marks.empty()) return log_choice();
    return base::DataError(request.path,
                           "no range matches --decode-range '" + request.decode_range + "'",
                           repeating.empty() ? "the trace holds no range that repeats" : repeating);
  }
  // Without a decode range: the span of the step ranges, projected onto the GPU; without
  // those, of the graph launches a recorder sampled as steps (sampled_window.h).
  DP_ASSIGN_OR_RETURN(std::optional<StepRangeSpan> span, StepSpan(t, names, range_names.step));
  std::string step_name = range_names.step;
  if (!span && request.step_range.empty()) {
    step_name = std::string(kGraphStepRange);
    DP_ASSIGN_OR_RETURN(span, StepSpan(t, names, step_name));
  }
  if (span) {
    DP_RETURN_IF_ERROR(ProjectRanges(t, clock, span->lo, span->hi, out));
    out.steps = span->steps;
    out.window_source = own_names ? "ranges" : "marks";
    out.evidence.range = step_name;
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
  // The log's marks on any other clock (realtime, session).
  if (!log_marks.empty()) return log_choice();
  // The engine's own step names, projected onto the GPU like step ranges. Not in a sampled
  // recording (record --sample-steps / --sample-time): most of its steps lie across
  // unrecorded time; its steps are named with --step-range, or the loop is found in a period.
  const bool sampled_recording =
      !timed.empty() ||
      std::any_of(info.ranges.begin(), info.ranges.end(),
                  [&](const trace::Range& r) { return names.Get(r.name) == kSampledRange; });
  std::optional<EngineStepWindow> engine;
  if (!sampled_recording) {
    DP_ASSIGN_OR_RETURN(engine, EngineStepsOf(t, names, request.path));
  }
  if (engine) {
    DP_RETURN_IF_ERROR(ProjectRanges(t, clock, engine->lo, engine->hi, out));
    analysis::WindowEvidence& ev = out.evidence;
    out.steps = engine->table.window_steps;
    out.window_source = "engine-steps";
    ev.range = engine->table.rule;
    ev.steps = out.steps;
    ev.skipped_steps = engine->skipped;
    if (engine->table.decode_runs > 0) {
      ev.runs = engine->table.decode_runs;
      ev.run = engine->run;
    }
    ev.boundary = "engine step";
    ev.confidence = engine->reasons.empty() ? "high" : "low";
    ev.reasons = std::move(engine->reasons);
    out.engine_steps = std::move(engine->table);
    return out;
  }
  // The decode loop in the dispatches, read in start order (file order on ties).
  out.in_order.reserve(static_cast<size_t>(t.dispatch_count));
  DP_RETURN_IF_ERROR(t.dispatches([&](const trace::Dispatch& d) { out.in_order.push_back(d); }));
  DP_RETURN_IF_ERROR(t.launches([&](const trace::ApiCall& c) { out.launches.push_back(c); }));
  std::stable_sort(
      out.in_order.begin(), out.in_order.end(),
      [](const trace::Dispatch& a, const trace::Dispatch& b) { return a.start < b.start; });
  auto found = FindLoopInPeriods(out.in_order, out.launches, info, names, request.path);
  if (!found.ok()) {
    std::string hint =
        "mark the decode (include/decodeprof/marks.h, or a bench log with --log), name the "
        "engine's per-step range with --step-range, or pick a span with --window "
        "START_NS..END_NS or --window all";
    if (!repeating.empty()) hint += "; " + repeating;
    return base::DataError(request.path, found.status().message(), hint);
  }
  out.marks = MarksOf(clock, found->lo, found->hi);
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
  ev.run = found->run;
  ev.boundary = found->boundary;
  ev.confidence = found->confidence;
  ev.reasons = found->reasons;
  return out;
}

}  // namespace

base::StatusOr<WindowedTrace> CutWindow(const TraceRequest& request, const io::Importer& importer,
                                        const trace::PhaseMarks& log_marks,
                                        const std::string& log_path, TraceForWindow t,
                                        trace::StringPool& names) {
  DP_ASSIGN_OR_RETURN(Choice chosen, Choose(request, log_marks, log_path, t, names));
  analysis::WindowCollector collector(chosen.marks);
  // The whole trace is the window: room for every dispatch at once, not grown by copies.
  if (request.window.kind == WindowSpec::Kind::kAll && t.dispatch_count > 0 &&
      t.in_memory == nullptr) {
    collector.Reserve(static_cast<size_t>(t.dispatch_count));
  }
  int64_t foreign = 0;  // dispatches inside the window launched outside the ranges
  if (!chosen.in_order.empty()) {
    collector.TakeAll(std::move(chosen.in_order));
    chosen.in_order = {};
  } else if (t.in_memory != nullptr && !chosen.projection) {
    collector.TakeAll(std::move(t.in_memory->dispatches));
    t.in_memory->dispatches = {};
  } else if (chosen.projection) {
    const Projection& p = *chosen.projection;
    DP_RETURN_IF_ERROR(t.dispatches([&](const trace::Dispatch& d) {
      const bool keep = p.Keeps(d);
      collector.Add(d, keep);
      if (!keep && p.lo <= d.start && d.start <= p.hi) ++foreign;
    }));
  } else {
    DP_RETURN_IF_ERROR(t.dispatches([&](const trace::Dispatch& d) { collector.Add(d); }));
  }
  WindowedTrace out;
  out.info = std::move(t.info);
  out.steps = chosen.steps;
  out.marks_source = chosen.source;
  out.window_source = chosen.window_source;
  out.evidence = std::move(chosen.evidence);
  out.engine_steps = std::move(chosen.engine_steps);
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(chosen.source));
  out.evidence.start_ns = out.window.lo;
  out.evidence.end_ns = out.window.hi;
  if (chosen.projection && chosen.projection->by_launch) {
    out.evidence.dispatches_launched_outside = foreign;
  }
  // The launch calls of the window's dispatches (a whole-trace window's millions of ids in a
  // few hundred KiB where they are dense).
  IdSet correlations;
  const trace::DispatchVector& window_ds = out.window.dispatches;
  for (const bool add : {false, true}) {
    base::spill::ReleaseBehind<trace::Dispatch> behind(window_ds.data(), 0);
    for (size_t i = 0; i < window_ds.size(); ++i) {
      behind.Passed(i);
      const uint64_t id = window_ds[i].correlation;
      if (id == 0) continue;
      if (add) {
        correlations.Add(id);
      } else {
        correlations.Count(id);
      }
    }
  }
  correlations.Finish();
  out.info.launches.clear();
  const auto kept = [&](const trace::ApiCall& call) {
    return call.correlation != 0 && correlations.Contains(call.correlation);
  };
  const auto keep = [&](const trace::ApiCall& call) {
    if (kept(call)) out.info.launches.push_back(call);
  };
  if (!chosen.launches.empty()) {
    for (const trace::ApiCall& call : chosen.launches) keep(call);
  } else if (t.in_memory != nullptr) {  // filtered in place: no second copy of millions
    std::vector<trace::ApiCall>& all = t.in_memory->launches;
    // Which to keep, found in parts on several threads; then moved together in order.
    std::vector<uint8_t> keeps;
    base::ResizeFaultedIn(keeps, all.size());
    base::ForParts(all.size(), base::kMinPassPart, [&](size_t, size_t b, size_t e) {
      base::spill::ReleaseBehind<trace::ApiCall> behind(all.data(), b);
      for (size_t i = b; i < e; ++i) {
        behind.Passed(i);
        keeps[i] = kept(all[i]) ? 1 : 0;
      }
    });
    size_t to = 0;
    base::spill::ReleaseBehind<trace::ApiCall> moved(all.data(), 0);
    for (size_t i = 0; i < all.size(); ++i) {
      moved.Passed(to);
      if (keeps[i] == 0) continue;
      if (to != i) all[to] = all[i];
      ++to;
    }
    all.resize(to);
    out.info.launches = std::move(all);
    all = {};
  } else {
    DP_RETURN_IF_ERROR(t.launches(keep));
  }
  DP_RETURN_IF_ERROR(CheckWindow(request, importer, out.window, names, out.info));
  if (out.evidence.confidence == "low") {
    std::string why;
    for (const std::string& r : out.evidence.reasons) why += (why.empty() ? "" : "; ") + r;
    out.info.diagnostics.Add(
        trace::Message<trace::Msg::kLoopFoundUncertain>(out.evidence.steps.value_or(0), why), 1,
        request.path);
  }
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

base::Status CheckWindowTimes(const TraceRequest& request, const analysis::DecodeWindow& window) {
  const auto& ds = window.dispatches;
  const std::string span =
      "(" + std::to_string(window.lo) + ".." + std::to_string(window.hi) + " ns)";
  if (!trace::IsTimestamp(window.lo) || !trace::IsTimestamp(window.hi) || window.hi < window.lo) {
    return base::DataError(request.path, "the window " + span +
                                             " is not a span of times from 0 "
                                             "to 2^62 ns: its marks cannot be right");
  }
  if (request.window.kind != WindowSpec::Kind::kDecode || ds.empty()) return base::OkStatus();
  // What the decode window holds: a decode runs kernels, one after another.
  int64_t copies = 0, memsets = 0;
  trace::TimestampNs first_start = ds.front().start, last_end = ds.front().end;
  bool one_start = true;
  for (const trace::Dispatch& d : ds) {
    copies += d.kind == trace::DispatchKind::kMemcpy ? 1 : 0;
    memsets += d.kind == trace::DispatchKind::kMemset ? 1 : 0;
    first_start = std::min(first_start, d.start);
    last_end = std::max(last_end, d.end);
    one_start = one_start && d.start == ds.front().start;
  }
  const std::string hint =
      "check the decode marks (the bench log, or the trace's decode range), or pick a span "
      "with --window START_NS..END_NS or --window all";
  if (copies + memsets == static_cast<int64_t>(ds.size())) {
    return base::DataError(request.path,
                           "the decode window " + span + " holds no kernel, only " +
                               std::to_string(copies) + " memory copies and " +
                               std::to_string(memsets) + " memsets: it is not a decode",
                           hint);
  }
  if (one_start && ds.size() > 1) {
    return base::DataError(request.path,
                           "the decode window's " + std::to_string(ds.size()) +
                               " dispatches all start at the same time (" +
                               std::to_string(ds.front().start) +
                               " ns): their timestamps cannot be a decode",
                           hint);
  }
  // A window reaching a day beyond its dispatches: a mark that cannot be right (an end near
  // the largest time), whose host gap would be a number without meaning.
  if (first_start - window.lo > trace::kMaxDispatchNs ||
      window.hi - last_end > trace::kMaxDispatchNs) {
    const bool head = first_start - window.lo > trace::kMaxDispatchNs;
    return base::DataError(
        request.path,
        "the decode window " + span + (head ? " starts " : " ends ") +
            std::to_string(head ? first_start - window.lo : window.hi - last_end) +
            " ns (over a day) " + (head ? "before its first dispatch" : "after its last dispatch") +
            ": its " + (head ? "start" : "end") + " mark cannot be right",
        hint);
  }
  return base::OkStatus();
}

base::Status CheckWindow(const TraceRequest& request, const io::Importer& importer,
                         analysis::DecodeWindow& window, trace::StringPool& names,
                         trace::ImportedTrace& info, bool span_of_dispatches) {
  auto& ds = window.dispatches;
  const auto same = [](const trace::Dispatch& a, const trace::Dispatch& b) {
    return a.end == b.end && a.name == b.name && a.device == b.device && a.stream == b.stream &&
           a.kind == b.kind && a.correlation == b.correlation;
  };
  // The first dispatch recorded twice, those that outlast the window, which names the window
  // holds and, for a window that is its dispatches' span, that span, found in one pass in parts
  // on several threads (merged in order: the first of one pass). (The long ones count only once
  // CheckWindowTimes has found the window's times right; a window that is its dispatches' span
  // has none.)
  const bool times_ok =
      trace::IsTimestamp(window.lo) && trace::IsTimestamp(window.hi) && window.lo <= window.hi;
  const trace::DurationNs wall = span_of_dispatches ? std::numeric_limits<trace::DurationNs>::max()
                                                    : (times_ok ? window.hi - window.lo : 0);
  struct PartFound {
    size_t twice_i = SIZE_MAX, twice_j = 0;  // the part's first pair recorded twice
    int64_t long_ones = 0;
    size_t first_long = SIZE_MAX;
    trace::TimestampNs lo = INT64_MAX;  // the part's earliest start and latest end
    trace::TimestampNs hi = INT64_MIN;
  };
  std::array<PartFound, base::kMaxPassParts> found{};
  std::array<std::vector<uint8_t>, base::kMaxPassParts> held;
  const size_t parts =
      base::ForParts(ds.size(), base::kMinPassPart, [&](size_t k, size_t b, size_t e) {
        // On this thread's stack, stored once: the parts' entries share cache lines, and the
        // byte stores below would make the compiler write `f` back every dispatch.
        PartFound f;
        std::vector<uint8_t>& names_held = held[k];
        names_held.assign(names.size(), 0);
        base::spill::ReleaseBehind<trace::Dispatch> behind(ds.data(), b);
        for (size_t i = b; i < e; ++i) {
          behind.Passed(i);
          if (ds[i].name < names_held.size()) names_held[ds[i].name] = 1;
          f.lo = std::min(f.lo, ds[i].start);
          f.hi = std::max(f.hi, ds[i].end);
          if (ds[i].end - ds[i].start > wall) {
            if (f.first_long == SIZE_MAX) f.first_long = i;
            ++f.long_ones;
          }
          if (f.twice_i != SIZE_MAX) continue;
          for (size_t j = i + 1; j < ds.size() && ds[j].start == ds[i].start; ++j) {
            if (!same(ds[i], ds[j])) continue;
            f.twice_i = i;
            f.twice_j = j;
            break;
          }
        }
        found[k] = f;
      });
  if (span_of_dispatches) {
    window.lo = INT64_MAX;
    window.hi = INT64_MIN;
    for (size_t k = 0; k < parts; ++k) {
      window.lo = std::min(window.lo, found[k].lo);
      window.hi = std::max(window.hi, found[k].hi);
    }
  }
  int64_t long_ones = 0;
  const trace::Dispatch* first_long = nullptr;
  for (size_t k = 0; k < parts; ++k) {
    long_ones += found[k].long_ones;
    if (first_long == nullptr && found[k].first_long != SIZE_MAX)
      first_long = &ds[found[k].first_long];
  }
  for (size_t k = 0; k < parts; ++k) {
    if (found[k].twice_i == SIZE_MAX) continue;
    const size_t i = found[k].twice_i;
    const size_t j = found[k].twice_j;
    const uint32_t line = std::max(ds[i].line, ds[j].line);
    const std::string where = importer.position_word() == "line"
                                  ? base::AtLine(request.path, line)
                                  : request.path + ": record " + std::to_string(line);
    return base::DataError(where,
                           "a dispatch recorded twice (the same start, end, name, device, "
                           "stream and correlation as " +
                               std::string(importer.position_word()) + " " +
                               std::to_string(std::min(ds[i].line, ds[j].line)) + ")",
                           "the trace holds its records twice (a file concatenated with itself?)");
  }
  DP_RETURN_IF_ERROR(CheckWindowTimes(request, window));
  if (first_long != nullptr) {
    info.diagnostics.Add(
        trace::Message<trace::Msg::kDispatchOutlastsWindow>(first_long->end - first_long->start,
                                                            wall),
        long_ones, request.path,
        std::string(importer.position_word()) + " " + std::to_string(first_long->line));
  }
  // Names: each distinct one once. Where none of the names the window holds needs repair (the
  // usual case) nothing is rewritten.
  bool any_repair = false;
  for (size_t id = 0; id < names.size() && !any_repair; ++id) {
    bool in_window = false;
    for (size_t k = 0; k < parts && !in_window; ++k) in_window = held[k][id] != 0;
    any_repair = in_window && RepairedName(names.Get(static_cast<trace::StringId>(id)));
  }
  held = {};
  int64_t count = 0;
  std::string first;
  if (any_repair) {
    std::vector<int64_t> repaired(names.size(), -1);  // -1 unchecked, -2 fine, else the new id
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
  }
  if (window.last_before) {
    if (auto text = RepairedName(names.Get(window.last_before->name))) {
      window.last_before->name = names.Intern(*text);
    }
  }
  info.diagnostics.Add(trace::Diag::kNamesRepaired, count, {request.path, "", first});
  return base::OkStatus();
}

}  // namespace decodeprof::pipeline
