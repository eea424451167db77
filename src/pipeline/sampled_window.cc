#include "src/pipeline/sampled_window.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "src/analysis/range_marks.h"
#include "src/base/py_format.h"

namespace decodeprof::pipeline {

int64_t TimedSamplePeriods(const trace::ImportedTrace& info, const trace::StringPool& names) {
  int64_t n = 0;
  for (const trace::Range& r : info.ranges) n += names.Get(r.name) == kSampledTimeRange ? 1 : 0;
  return n;
}

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

}  // namespace

std::optional<std::pair<double, double>> RunCostOfSampling(
    const std::vector<std::pair<trace::TimestampNs, bool>>& steps) {
  // Start to start: step i's time is steps[i + 1].start - steps[i].start (the last has none).
  const size_t n = steps.size();
  if (n < 3) return std::nullopt;
  std::vector<double> step_ns(n - 1);
  for (size_t i = 0; i + 1 < n; ++i) {
    step_ns[i] = static_cast<double>(steps[i + 1].first - steps[i].first);
  }
  std::vector<double> others;
  for (size_t i = 0; i + 1 < n; ++i) {
    const bool after_sampled = i > 0 && steps[i - 1].second;
    if (!steps[i].second && !after_sampled) others.push_back(step_ns[i]);
  }
  if (others.empty()) return std::nullopt;
  const double base = Median(others);
  std::vector<double> excess;
  int64_t sampled = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!steps[i].second) continue;
    ++sampled;
    if (i + 2 < n && !steps[i + 1].second) excess.push_back(step_ns[i] + step_ns[i + 1] - 2 * base);
  }
  if (excess.empty() || base <= 0) return std::nullopt;
  const double cost = Median(excess);
  return std::make_pair(cost,
                        cost * static_cast<double>(sampled) / (static_cast<double>(n) * base));
}

int64_t SamplingForRunCost(const analysis::Sampling& m, double target_pct) {
  // The run's N: steps seen per step sampled; the cost falls as 1 / N.
  const double n = static_cast<double>(m.steps_seen) / static_cast<double>(m.steps_sampled);
  const double wanted = n * m.run_cost_pct.value_or(0.0) / target_pct;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(wanted)));
}

int64_t DecodeSteps(const analysis::Sampling& m) { return std::max(m.steps_seen, m.steps_sampled); }

double SampledWindowTokens(const analysis::Sampling& m, int64_t generated_tokens) {
  const int64_t steps = DecodeSteps(m);
  if (steps == 0) return static_cast<double>(generated_tokens);
  return base::PyRound(static_cast<double>(m.steps_sampled) *
                           static_cast<double>(generated_tokens) / static_cast<double>(steps),
                       6);
}

base::StatusOr<std::optional<analysis::Sampling>> ConcatenateSampledSteps(
    WindowedTrace& t, const trace::StringPool& names, const std::string& step_range,
    const std::string& path) {
  analysis::DecodeWindow& w = t.window;
  std::vector<trace::Range> periods;
  std::vector<trace::Range> timed;  // the timer's periods (--sample-time)
  std::vector<trace::Range> steps;
  const std::string step_pattern = step_range.empty() ? analysis::RangeNames{}.step : step_range;
  for (const trace::Range& r : t.info.ranges) {
    if (r.end <= w.lo || r.start >= w.hi) continue;
    const std::string_view name = names.Get(r.name);
    if (name == kSampledRange) {
      periods.push_back(r);
    } else if (name == kSampledTimeRange) {
      timed.push_back(r);
    } else if (analysis::RangeNameMatches(name, step_pattern) && r.start >= w.lo) {
      steps.push_back(r);
    }
  }
  const auto by_start = [](const trace::Range& a, const trace::Range& b) {
    return a.start < b.start;
  };
  std::sort(steps.begin(), steps.end(), by_start);
  // Sampled by time: the sampled steps are the step ranges that lie whole inside one of the
  // timer's periods (the first and last step of a period are cut by it: left out, with every
  // dispatch that does not start inside a sampled step).
  const bool by_time = periods.empty() && !timed.empty();
  if (by_time) {
    std::sort(timed.begin(), timed.end(), by_start);
    trace::TimestampNs step_end = INT64_MIN;
    size_t k = 0;
    for (const trace::Range& s : steps) {
      if (s.start < step_end) continue;  // nested in the previous step
      step_end = s.end;
      while (k < timed.size() && timed[k].end < s.start) ++k;
      if (k < timed.size() && timed[k].start <= s.start && s.end <= timed[k].end) {
        periods.push_back(s);
      }
    }
  }
  if (periods.empty()) return std::optional<analysis::Sampling>();
  std::sort(periods.begin(), periods.end(), by_start);
  for (size_t i = 1; i < periods.size(); ++i) {
    if (periods[i].start < periods[i - 1].end) {
      return base::DataError(
          path,
          std::string("sampled periods overlap: the ") + (by_time ? "step ranges" : "ranges") +
              " '" + std::string(by_time ? step_pattern : kSampledRange) + "' from " +
              std::to_string(periods[i - 1].start) + " to " + std::to_string(periods[i - 1].end) +
              " ns and from " + std::to_string(periods[i].start) + " ns",
          "a recorder writes one period after another; was the trace edited or merged?");
    }
  }

  // A dispatch whose launch call is in the trace belongs to the period it was launched in
  // (none: left out), whenever it ran. The recorder keeps recording after a period whose GPU
  // work outlives it until that work is done (recorder.h), so work launched after the period
  // is in the trace too. A period whose GPU work began only after its range had closed (an
  // engine that does not synchronize, the GPU behind the host) runs on the GPU from its first
  // such dispatch to its last; otherwise from its range's start to the later of its range's
  // end and its last dispatch's end.
  // A dispatch without a known launch (a copy: its call is not recorded) belongs to the
  // period whose span it starts in; in a trace without launch calls, to the last period that
  // began at or before it, and extends that period (one that starts before the first period
  // was launched before the window's sampling and is left out).
  const trace::LaunchIndex launches(t.info.launches);
  const auto period_of_launch = [&](trace::TimestampNs time) -> int32_t {
    const auto it =
        std::upper_bound(periods.begin(), periods.end(), time,
                         [](trace::TimestampNs v, const trace::Range& r) { return v < r.start; });
    if (it == periods.begin()) return -1;
    const auto k = static_cast<size_t>(it - periods.begin()) - 1;
    return time <= periods[k].end ? static_cast<int32_t>(k) : -1;
  };
  constexpr trace::TimestampNs kNone = INT64_MAX;
  std::vector<trace::TimestampNs> first(periods.size(), kNone);  // of the launched dispatches
  std::vector<trace::TimestampNs> last(periods.size(), INT64_MIN);
  std::vector<int32_t> owner(w.dispatches.size(), -1);
  std::vector<bool> unknown(w.dispatches.size(), false);
  for (size_t i = 0; i < w.dispatches.size(); ++i) {
    const trace::Dispatch& d = w.dispatches[i];
    const trace::ApiCall* call = launches.Find(d.correlation);
    if (call == nullptr) {
      unknown[i] = true;
      continue;
    }
    const int32_t o = period_of_launch(call->start);
    if (o < 0) continue;
    owner[i] = o;
    first[static_cast<size_t>(o)] = std::min(first[static_cast<size_t>(o)], d.start);
    last[static_cast<size_t>(o)] = std::max(last[static_cast<size_t>(o)], d.end);
  }
  std::vector<trace::TimestampNs> begins(periods.size());
  std::vector<trace::TimestampNs> ends(periods.size());
  for (size_t p = 0; p < periods.size(); ++p) {
    const bool behind = first[p] != kNone && first[p] > periods[p].end;
    begins[p] = behind ? first[p] : periods[p].start;
    ends[p] = behind ? last[p] : std::max(periods[p].end, last[p]);
  }
  size_t j = 0;
  for (size_t i = 0; i < w.dispatches.size(); ++i) {
    if (!unknown[i]) continue;
    const trace::Dispatch& d = w.dispatches[i];
    if (!launches.empty()) {
      // The period whose span holds its start, if any.
      while (j + 1 < periods.size() && begins[j + 1] <= d.start) ++j;
      if (d.start >= begins[j] && d.start <= ends[j]) owner[i] = static_cast<int32_t>(j);
      continue;
    }
    while (j + 1 < periods.size() && periods[j + 1].start <= d.start) ++j;
    if (d.start < periods[j].start) continue;
    if (by_time && d.start > periods[j].end) continue;  // between sampled steps
    owner[i] = static_cast<int32_t>(j);
    ends[j] = std::max(ends[j], d.end);
  }
  std::vector<trace::TimestampNs> shift(periods.size());
  trace::TimestampNs cursor = w.lo;
  for (size_t p = 0; p < periods.size(); ++p) {
    shift[p] = cursor - begins[p];
    cursor += ends[p] - begins[p];
  }
  trace::DispatchVector kept;
  kept.reserve(w.dispatches.size());
  for (size_t i = 0; i < w.dispatches.size(); ++i) {
    if (owner[i] < 0) continue;
    trace::Dispatch d = w.dispatches[i];
    d.start += shift[static_cast<size_t>(owner[i])];
    d.end += shift[static_cast<size_t>(owner[i])];
    kept.push_back(d);
  }
  // Periods do not overlap, so the shifted dispatches stay in start order period by period;
  // a stable sort keeps file order on ties, as the window cut does.
  std::stable_sort(
      kept.begin(), kept.end(),
      [](const trace::Dispatch& a, const trace::Dispatch& b) { return a.start < b.start; });
  w.dispatches = std::move(kept);
  w.hi = cursor;
  w.straddling = 0;
  w.last_before.reset();

  analysis::Sampling out;
  out.steps_sampled = static_cast<int64_t>(periods.size());
  double sampled_ns = 0, unsampled_ns = 0;
  int64_t sampled = 0, unsampled = 0;
  size_t p = 0;
  trace::TimestampNs step_end = INT64_MIN;
  std::vector<std::pair<trace::TimestampNs, bool>> seen;  // each step's start, and sampled
  for (const trace::Range& s : steps) {
    if (s.start < step_end) continue;  // a nested range of the name is part of its step
    step_end = s.end;
    ++out.steps_seen;
    // A step is a sampled one when a period's middle lies in it (a period runs from just
    // before its step range opened to just after it closed).
    const auto middle = [&](size_t i) {
      return periods[i].start + (periods[i].end - periods[i].start) / 2;
    };
    while (p < periods.size() && middle(p) < s.start) ++p;
    const bool in_period = p < periods.size() && middle(p) <= s.end;
    const auto ns = static_cast<double>(s.end - s.start);
    seen.emplace_back(s.start, in_period);
    if (in_period) {
      sampled_ns += ns;
      ++sampled;
    } else {
      unsampled_ns += ns;
      ++unsampled;
    }
  }
  const auto round3 = [](double v) { return std::round(v * 1000.0) / 1000.0; };
  if (sampled > 0) out.sampled_step_ms = round3(sampled_ns / static_cast<double>(sampled) / 1e6);
  if (unsampled > 0) {
    out.unsampled_step_ms = round3(unsampled_ns / static_cast<double>(unsampled) / 1e6);
  }
  if (sampled > 0 && unsampled > 0 && unsampled_ns > 0) {
    const double ratio = (sampled_ns / static_cast<double>(sampled)) /
                         (unsampled_ns / static_cast<double>(unsampled));
    out.distortion_pct = std::round((ratio - 1.0) * 10000.0) / 100.0;
  }
  if (const auto cost = by_time ? std::nullopt : RunCostOfSampling(seen)) {
    out.run_cost_ms_per_sampled_step = round3(cost->first / 1e6);
    out.run_cost_pct = std::round(cost->second * 10000.0) / 100.0;
  }
  t.steps = out.steps_sampled;
  return std::optional<analysis::Sampling>(out);
}

}  // namespace decodeprof::pipeline
