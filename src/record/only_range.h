// The name given to `decodeprof record --only-range NAME`, which reaches the injection
// library as DECODEPROF_RECORD_ONLY_RANGE (docs/recording.md, "Recording only a range").
//
// Header-only, so that the launcher (which checks it before running the command) and the
// injection library (which checks it again when it reads its settings) share one rule
// without the launcher linking the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "src/base/parse.h"

namespace decodeprof::record {

// The environment variable, and the meta key of the native file that repeats its value.
inline constexpr char kOnlyRangeVariable[] = "DECODEPROF_RECORD_ONLY_RANGE";
inline constexpr std::string_view kMetaOnlyRange = "only_range";
// Counters of the native file written when recording is gated (informational, not data
// loss): the periods during which recording was switched on, and the switches CUPTI refused
// in part or in whole (meta only_range_warnings then says what was refused).
inline constexpr std::string_view kCounterOnlyRangePeriods = "only_range_periods";
inline constexpr std::string_view kCounterOnlyRangeSwitchFailures = "only_range_switch_failures";
// Launch API records CUPTI handed back from outside the periods, dropped (they stay enabled
// while gated: recorder_attach.cc says why).
inline constexpr std::string_view kCounterOnlyRangeApiCallsOutside = "only_range_api_calls_outside";
inline constexpr std::string_view kMetaOnlyRangeWarnings = "only_range_warnings";

// Sampled recording (`decodeprof record --sample-steps N`): the meta keys that give N and the
// step range's name, the counter of steps seen, and the range the recorder writes over each
// period in which it recorded (domain "decodeprof", a start/end range on thread 0): what
// `summarize` reads to extrapolate from the sampled steps.
inline constexpr std::string_view kMetaSampleSteps = "sample_steps";
inline constexpr std::string_view kMetaSampleRange = "sample_range";
inline constexpr std::string_view kCounterSampleSteps = "sample_steps_seen";
// Timed sampling (`--sample-time ON/PERIOD`): the meta key and the periods switched on.
inline constexpr std::string_view kMetaSampleTime = "sample_time";
inline constexpr std::string_view kCounterSamplePeriods = "sample_periods";
inline constexpr std::string_view kSampledTimeRangeName = "decodeprof:sampled-time";
// Detaching CUPTI between periods (DECODEPROF_RECORD_DETACH; docs/trace-format.md): how, how
// often it was finalized and attached again, and how long that took.
inline constexpr std::string_view kMetaCuptiDetach = "cupti_detach";
inline constexpr std::string_view kMetaCuptiDetaches = "cupti_detaches";
inline constexpr std::string_view kMetaCuptiAttaches = "cupti_attaches";
inline constexpr std::string_view kMetaCuptiAttachTime = "cupti_attach_time";
inline constexpr std::string_view kMetaCuptiDetachTime = "cupti_detach_time";
// What a gated recording costs the program at its switches, on the program's thread that
// opened or closed the range: switching the kinds on, switching them off (the flush
// included), and the plain flush when a period of a sampled recording ends.
inline constexpr std::string_view kMetaGateSwitchOnTime = "gate_switch_on_time";
inline constexpr std::string_view kMetaGateSwitchOffTime = "gate_switch_off_time";
inline constexpr std::string_view kMetaGateFlushTime = "gate_flush_time";
inline constexpr std::string_view kSampledRangeName = "decodeprof:sampled";
inline constexpr std::string_view kSampledRangeDomain = "decodeprof";
// CUDA graph launches as steps (`--sample-steps N` without step ranges): one start/end range
// per graph launch (domain "decodeprof", from the launch call's entry to its return), written
// while graph launches are the steps; `summarize` counts them as the decode's steps.
inline constexpr std::string_view kGraphStepRangeName = "decodeprof:graph-step";
// Periods that outlive their range (recorder.h): how many switches off waited for the GPU
// work launched in the period, how long they waited (meta, like the gate's timings), and the
// kernels and copies of graph launches made meanwhile that were dropped (counter).
inline constexpr std::string_view kMetaDeferredOffTime = "gate_deferred_off_time";
inline constexpr std::string_view kCounterDroppedAfterPeriod = "sample_dropped_after_period";
inline constexpr std::string_view kMetaPeriodEnd = "sample_period_end";
// The program's graph launch and graph making calls, timed with recording on and off.
inline constexpr std::string_view kMetaGraphCallTime = "graph_call_time";
// --sample-steps N stretched because the GPU ran behind the host (range_gate.h).
inline constexpr std::string_view kMetaSampleStretch = "sample_stretch";

// Longest name accepted, in bytes (NVTX messages are usually a few dozen).
inline constexpr size_t kMaxOnlyRangeBytes = 1024;

// "" when `name` may be used: 1 to kMaxOnlyRangeBytes bytes, no ASCII control character
// (a range name is compared byte for byte with NVTX messages, which are UTF-8). Otherwise
// what is wrong with it, for an error message.
inline std::string OnlyRangeNameProblem(std::string_view name) {
  if (name.empty()) return "expected an NVTX range name, got an empty one";
  if (name.size() > kMaxOnlyRangeBytes) {
    return "expected an NVTX range name of at most " + std::to_string(kMaxOnlyRangeBytes) +
           " bytes, got " + std::to_string(name.size());
  }
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      return "expected an NVTX range name without control characters, got one with byte " +
             std::to_string(static_cast<int>(byte));
    }
  }
  return {};
}

// `--sample-time` / DECODEPROF_RECORD_SAMPLE_TIME: "ON/PERIOD" in milliseconds, with
// 1 <= ON < PERIOD <= 3600000, as {ON, PERIOD}; nullopt for anything else.
inline constexpr uint64_t kMaxSamplePeriodMs = 3600000;
inline std::optional<std::pair<uint64_t, uint64_t>> ParseSampleTime(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::optional<uint64_t> on = base::ParseUnsigned(text.substr(0, slash));
  const std::optional<uint64_t> period = base::ParseUnsigned(text.substr(slash + 1));
  if (!on || !period || *on < 1 || *on >= *period || *period > kMaxSamplePeriodMs) {
    return std::nullopt;
  }
  return std::make_pair(*on, *period);
}

}  // namespace decodeprof::record
