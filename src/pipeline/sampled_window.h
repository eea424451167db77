// The window of a sampled recording (`decodeprof record --sample-steps N`, docs/recording.md):
// the recorder writes a `decodeprof:sampled` range over each period in which it recorded
// kernels, and keeps every step's NVTX range. Between the periods the GPU ran kernels that
// were not recorded, so the decode window as cut would show them as idle time. Instead the
// sampled periods are laid end to end: each period's dispatches are shifted so that it starts
// where the previous one ended (a period runs from its range's start to the later of its end
// and its last dispatch's end), and the window becomes the sampled steps alone. Launch calls
// and ranges keep their host times (they are matched to dispatches by correlation and
// thread, never by the dispatch's time).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/status.h"

#include "src/analysis/summary.h"
#include "src/pipeline/trace_source.h"
#include "src/trace/string_pool.h"

namespace decodeprof::pipeline {

inline constexpr std::string_view kSampledRange = "decodeprof:sampled";
// The steps of a recording sampled by CUDA graph launches (`record --sample-steps N` on an
// engine without step ranges): one range per graph launch, written by the recorder.
inline constexpr std::string_view kGraphStepRange = "decodeprof:graph-step";
// The periods of a timed sampling (`record --sample-time ON/PERIOD`): not steps.
inline constexpr std::string_view kSampledTimeRange = "decodeprof:sampled-time";

// The periods of a timed sampling in the trace (0: not one).
int64_t TimedSamplePeriods(const trace::ImportedTrace& info, const trace::StringPool& names);

// What step sampling cost the run, from its steps in order (start, sampled): the median
// excess, start to start, of a sampled step and the unsampled step after it over twice the
// median of the other steps (neither sampled nor right after one), in ns; and that cost times
// the sampled steps over all steps at that median pace (the run's slowdown from sampling, a
// fraction). Nothing with fewer than three steps or no such pair.
std::optional<std::pair<double, double>> RunCostOfSampling(
    const std::vector<std::pair<trace::TimestampNs, bool>>& steps);

// The smallest one-step-in-N that would have cost the run at most `target_pct` of its
// decode at `m`'s measured cost a sampled step (m.run_cost_pct at m's own N scaled by N'/N);
// m must carry run_cost_pct and steps_sampled > 0.
int64_t SamplingForRunCost(const analysis::Sampling& m, double target_pct);

// The steps of the decode that the sampled steps were taken from: the step ranges seen,
// and never fewer than the steps sampled (a trace whose step ranges were not found counts
// its sampled steps as the whole decode).
int64_t DecodeSteps(const analysis::Sampling& m);

// The tokens the window of a sampled recording stands for (analysis::Sampling): its k sampled
// steps at T / S tokens a step, where S = DecodeSteps(m) and T = `generated_tokens`, the
// decode's; k · T / S rounded to 6 decimals (the summary's window_tokens, and the divisor of
// its per-token figures).
double SampledWindowTokens(const analysis::Sampling& m, int64_t generated_tokens);

// Nothing when the window holds no sampled period (not a sampled recording); otherwise
// rewrites `t.window` and `t.steps` (the sampled steps) and returns the sampling's figures.
// A recording sampled by time (kSampledTimeRange) with step ranges: its sampled steps are
// the step ranges whole inside a timer's period, and only the dispatches that start inside
// one are kept; without such a step, nothing.
// `step_range`: the glob of the step ranges ("" = decodeprof:step). Error (kData, where =
// `path`): sampled periods that overlap (the recorder never writes such; laid end to end
// they would count the overlap's time twice).
base::StatusOr<std::optional<analysis::Sampling>> ConcatenateSampledSteps(
    WindowedTrace& t, const trace::StringPool& names, const std::string& step_range,
    const std::string& path);

}  // namespace decodeprof::pipeline
