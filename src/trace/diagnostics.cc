#include "src/trace/diagnostics.h"

#include <cstdint>
#include <utility>

namespace decodeprof::trace {
namespace {

using S = Severity;

constexpr DiagnosticInfo kDiagnosticInfo[] = {
    {Diag::kCuptiDroppedRecords, "cupti_dropped_records", S::kDataLoss,
     "CUPTI dropped activity records (its buffers were full): GPU work is missing"},
    {Diag::kTranslationFailures, "translation_failures", S::kDataLoss,
     "activity records the recorder could not translate: GPU work is missing"},
    {Diag::kIncompleteKernelRecords, "incomplete_kernel_records", S::kDataLoss,
     "kernel records without an end time, left out"},
    {Diag::kNvtxEventsDropped, "nvtx_events_dropped", S::kDataLoss,
     "NVTX events lost because the recorder's queue was full: ranges may be missing"},
    {Diag::kWriteFailures, "write_failures", S::kDataLoss,
     "records the recorder could not write to the trace file"},
    {Diag::kBufferPoolExhausted, "buffer_pool_exhausted", S::kWarning,
     "CUPTI asked for a buffer when none was free (its drops are counted separately)"},
    {Diag::kNvtxUnmatchedPops, "nvtx_unmatched_pops", S::kWarning,
     "NVTX pops without a matching push (the engine's ranges are unbalanced)"},
    {Diag::kNvtxUnendedRanges, "nvtx_unended_ranges", S::kWarning,
     "NVTX ranges still open when the recording ended, closed at its end"},
    {Diag::kUnknownRecordKinds, "unknown_record_kinds", S::kInfo,
     "CUPTI records of kinds decodeprof does not use, skipped"},
    {Diag::kOnlyRangePeriods, "only_range_periods", S::kInfo,
     "periods the --only-range gate kept the recording on"},
    {Diag::kOnlyRangeSwitchFailures, "only_range_switch_failures", S::kWarning,
     "times the --only-range gate could not switch CUPTI activity on or off"},
    {Diag::kOnlyRangeApiCallsOutside, "only_range_api_calls_outside", S::kInfo,
     "launch API calls outside the --only-range periods, dropped by design"},
    {Diag::kSampleStepsSeen, "sample_steps_seen", S::kInfo,
     "steps the --sample-steps gate saw (one in N recorded kernel by kernel)"},
    {Diag::kSamplePeriods, "sample_periods", S::kInfo,
     "periods the --sample-time timer switched recording on"},
    {Diag::kSampleDroppedAfterPeriod, "sample_dropped_after_period", S::kInfo,
     "kernels and copies of graph launches made while a period's end waited for its GPU work, "
     "dropped by design"},
    {Diag::kUnknownRecorderCounter, "unknown_recorder_counter", S::kWarning,
     "a counter this decodeprof does not know (a newer recorder?)"},
    {Diag::kTraceIncomplete, "trace_incomplete", S::kDataLoss,
     "the trace was not closed by its recorder (killed?): read up to its last commit"},
    {Diag::kRecordingNotOk, "recording_not_ok", S::kDataLoss,
     "the recorder says recording was off or failed for part of the run"},
    {Diag::kEventsSkipped, "events_skipped", S::kInfo,
     "events of kinds decodeprof does not use (CPU ops, flows, metadata), skipped"},
    {Diag::kUnendedRanges, "unended_ranges", S::kWarning,
     "annotation ranges without an end in the trace, left out"},
    {Diag::kBaseTimeAfterEvents, "base_time_after_events", S::kWarning,
     "the trace's base time comes after its events: times stay relative to it"},
    {Diag::kLaunchNotFound, "launch_not_found", S::kInfo,
     "dispatches whose correlation id matches no launch call (no op path or launch time)"},
    {Diag::kDevicesInTrace, "devices_in_trace", S::kInfo,
     "the trace holds dispatches of several devices; the summary covers the one chosen"},
    {Diag::kGraphLevelTrace, "graph_level_trace", S::kWarning,
     "CUDA graphs were traced whole, not node by node: each launch is one dispatch"},
    {Diag::kSessionClock, "session_clock", S::kInfo,
     "times are on the file's own session clock: a bench log's marks cannot apply"},
    {Diag::kDanglingStringId, "dangling_string_id", S::kError,
     "records name a string id the file does not hold"},
    {Diag::kSchemaVariant, "schema_variant", S::kInfo,
     "an older or newer schema variant, read with its own column names"},
    {Diag::kZeroDurationDispatches, "zero_duration_dispatches", S::kWarning,
     "dispatches that end when they start (a tracer's timer too coarse?)"},
    {Diag::kDuplicateColumn, "duplicate_column", S::kWarning,
     "a column named twice in the header: its last occurrence is read (as csv.DictReader)"},
    {Diag::kNamesRepaired, "names_repaired", S::kWarning,
     "names with invalid UTF-8 or control characters, shown repaired (U+FFFD, \\xNN)"},
    {Diag::kSampledSteps, "sampled_steps", S::kInfo,
     "a sampled recording: the window is its sampled steps laid end to end, per-token figures "
     "their mean scaled to the decode's steps and tokens"},
    {Diag::kSamplingDistortion, "sampling_distortion", S::kWarning,
     "sampled steps took over 5 % longer than unsampled ones: tracing slowed what it measured"},
    {Diag::kSamplingRunCost, "sampling_run_cost", S::kWarning,
     "sampling cost the run over 5 % of its decode (a sampled step and the step after it, "
     "measured in the run): sample fewer steps (a larger --sample-steps N)"},
    {Diag::kSampledStepsFew, "sampled_steps_few", S::kWarning,
     "the window holds fewer than 3 sampled steps: its per-token figures rest on them alone "
     "(sample more steps: a smaller --sample-steps N, or longer generate calls)"},
    {Diag::kDispatchesOverlap, "dispatches_overlap", S::kWarning,
     "the window's dispatches add up to over 8 times its GPU-busy time: many run at once, or "
     "their timestamps are wrong"},
    {Diag::kDispatchesOverlapImpossible, "dispatches_overlap_impossible", S::kError,
     "the window's dispatches add up to over 128 times its GPU-busy time, more than a GPU runs "
     "at once: their timestamps are wrong"},
    {Diag::kDispatchesOutOfStreamOrder, "dispatches_out_of_stream_order", S::kWarning,
     "kernels that end after the next kernel of their CUDA stream has ended: a stream runs its "
     "kernels in order, so their end timestamps are late (a CUDA graph replayed before CUPTI "
     "read them) unless they overlap by programmatic dependent launch"},
    {Diag::kLogLineUnread, "log_line_unread", S::kWarning,
     "a bench-log line naming a result or mark whose value cannot be read: left out"},
    {Diag::kDuplicateMarks, "duplicate_marks", S::kWarning,
     "a phase mark printed more than once: the last one is used (seed spec 2.3)"},
    {Diag::kLogMarksUnused, "log_marks_unused", S::kWarning,
     "the bench log's [phase] marks were not used: the trace's own ranges cut the window"},
    {Diag::kLogWithoutResults, "log_without_results", S::kWarning,
     "a bench log without a results block: its figures are null"},
    {Diag::kModelDirWithoutConfig, "model_dir_without_config", S::kWarning,
     "--model-dir holds no config.json: model_type and rope_scaling are unknown"},
    {Diag::kStraddlingDecodeStart, "straddling_decode_start", S::kWarning,
     "kernels that started before decode_start and ended after it (not in the window)"},
    {Diag::kDecodeLoopUncertain, "decode_loop_uncertain", S::kWarning,
     "the decode loop was found without marks, with low confidence (its reasons are in "
     "window_evidence): mark the decode, or check the window before trusting its figures"},
    {Diag::kDispatchLongerThanWindow, "dispatch_longer_than_window", S::kWarning,
     "a decode dispatch that runs longer than the whole decode window"},
    {Diag::kHostGapResidual, "host_gap_residual", S::kWarning,
     "host gap the attribution could not place (the per-role gaps do not add up)"},
    {Diag::kRoleRuleWarning, "role_rule_warning", S::kWarning,
     "the pack's role rules doubt their labels on this trace"},
    {Diag::kCollectiveCountMismatch, "collective_count_mismatch", S::kWarning,
     "the ranks' decode windows hold different numbers of collectives: no wait is computed"},
    {Diag::kEngineStepsFew, "engine_steps_few", S::kWarning,
     "the window holds fewer than 3 decode steps named by the engine: its per-token figures "
     "rest on them alone (profile more steps of the decode)"},
    {Diag::kPackChoiceWeak, "pack_choice_weak", S::kWarning,
     "the pack was chosen from thin evidence (no kernel name, or names that hold little of the "
     "GPU time, point to it): check its classes, or name one with --pack"},
    {Diag::kLargeKernelUnclassified, "large_kernel_unclassified", S::kWarning,
     "a kernel of more than 5 % of the window's GPU time is in class other: the pack does not "
     "know it, so no unit counts it (a pack of the engine, or a class for it, would)"},
    {Diag::kTokensDisagreeWithSteps, "tokens_disagree_with_steps", S::kWarning,
     "the generated tokens (log or --generated-tokens) and the decode steps the window holds "
     "differ by more than 2 times: per-token figures divide by the tokens; check that the log "
     "or the flag is of this run"},
    {Diag::kSpeedOfLightContextUnknown, "speed_of_light_context_unknown", S::kWarning,
     "the prompt length is unknown (no log's prompt tokens, no --context-tokens): the KV cache "
     "read counts the decode's own tokens only, so the floor is low and MBU high"},
    {Diag::kSpeedOfLightLeftOut, "speed_of_light_left_out", S::kWarning,
     "--model-dir or --gguf was given but no speed-of-light ledger was written: the model is "
     "not described, no peak bandwidth is known for the device, or the floor came out above "
     "the wall (the detail says which)"},
};
static_assert(std::size(kDiagnosticInfo) == static_cast<size_t>(Diag::kCount_),
              "every Diag code needs its entry");

constexpr bool InCodeOrder() {
  for (size_t i = 0; i < std::size(kDiagnosticInfo); ++i) {
    if (static_cast<size_t>(kDiagnosticInfo[i].code) != i) return false;
  }
  return true;
}
static_assert(InCodeOrder(), "kDiagnosticInfo is in Diag order");

}  // namespace

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kDataLoss:
      return "data-loss";
    case Severity::kError:
      break;
  }
  return "error";
}

std::span<const DiagnosticInfo> AllDiagnostics() { return kDiagnosticInfo; }

const DiagnosticInfo& Describe(Diag code) { return kDiagnosticInfo[static_cast<size_t>(code)]; }

void Diagnostics::Add(Diag code, int64_t count, DiagnosticExample first) {
  if (count <= 0) return;
  const size_t i = Index(code);
  if (counts_[i] == 0) first_[i] = std::move(first);
  // Counts come from files too (a recorder's counters): they saturate, never overflow.
  if (__builtin_add_overflow(counts_[i], count, &counts_[i])) counts_[i] = INT64_MAX;
}

void Diagnostics::SetFileIfEmpty(const std::string& file) {
  for (size_t i = 0; i < std::size(counts_); ++i) {
    if (counts_[i] > 0 && first_[i].file.empty()) first_[i].file = file;
  }
}

void Diagnostics::Merge(const Diagnostics& other) {
  for (size_t i = 0; i < std::size(counts_); ++i) {
    if (other.counts_[i] > 0) Add(static_cast<Diag>(i), other.counts_[i], other.first_[i]);
  }
}

std::vector<DiagnosticEntry> Diagnostics::entries() const {
  std::vector<DiagnosticEntry> out;
  for (size_t i = 0; i < std::size(counts_); ++i) {
    if (counts_[i] > 0) out.push_back({static_cast<Diag>(i), counts_[i], first_[i]});
  }
  return out;
}

bool Diagnostics::has_error() const {
  for (size_t i = 0; i < std::size(counts_); ++i) {
    if (counts_[i] > 0 && kDiagnosticInfo[i].severity == Severity::kError) return true;
  }
  return false;
}

Diag DiagForRecorderCounter(std::string_view counter) {
  for (const DiagnosticInfo& info : kDiagnosticInfo) {
    if (info.code >= Diag::kUnknownRecorderCounter) break;  // the recorder counters come first
    if (info.name == counter) return info.code;
  }
  return Diag::kUnknownRecorderCounter;
}

}  // namespace decodeprof::trace
