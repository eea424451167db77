// The one list of decodeprof's diagnostics: every judgment any part of decodeprof makes about
// its input or its run (what an importer, the window, the analysis, the recorder, the report's
// trust flags and the commands warn about) is one entry here, with its code, severity, source
// and one-line meaning, the way Perfetto's PERFETTO_TP_STATS(F) lists its stats.
//
// From this list come the Diag enum and the table of names, severities and meanings
// (diagnostics.h), the summary JSON's "diagnostics" entries, the data-loss counters of the
// native format (native_format/schema.h checks its counter names against it) and the table of
// docs/user-guide.md (section 3, Diagnostics; diagnostics_test.cc fails when it differs).
// The words of each occurrence are a message of the second list below
// (DECODEPROF_DIAGNOSTIC_MESSAGES); only its values (a file position, a count, a kernel name)
// come from the call site. tests/diagnostics_text_test.cc fails on warning text written
// outside the lists.
//
// This header has no dependencies, so that the native format (and through it the injection
// library) can check against it without the trace model (style.md 7.8).
//
// X(code, name, severity, source, meaning):
//   code     — the Diag enumerator;
//   name     — snake_case, as the summary JSON and the docs write it;
//   severity — kInfo: worth knowing, changes no figure; kWarning: unusual but possible input,
//              the figures stand but may mislead; kDataLoss: records are missing, the figures
//              undercount; kError: the input cannot be right, the job fails with exit 65 and
//              writes nothing;
//   source   — kImporter: reading a trace or a log (its file, meta and events); kWindow: cutting
//              the decode window; kAnalysis: the attribution and the figures; kRecorder: a
//              counter of the native recorder's counters table (the name is the counter's);
//              kReport: a trust flag of `decodeprof report`; kCli: what a command prints while
//              it runs;
//   meaning  — one line for users (the docs table prints it).
// New codes go at the end of their group: the summary lists its entries in this order.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace decodeprof::trace {

enum class Severity : uint8_t { kInfo, kWarning, kDataLoss, kError };
enum class DiagSource : uint8_t { kImporter, kWindow, kAnalysis, kRecorder, kReport, kCli };

}  // namespace decodeprof::trace

// clang-format off
#define DECODEPROF_DIAGNOSTICS(X) \
  /* The native recorder's counters, one code per counter name (source recorder: the code's       \
     name is the counter's, src/native_format/schema.h and src/record/only_range.h write          \
     them). */                                                                                    \
  X(kCuptiDroppedRecords, "cupti_dropped_records", kDataLoss, kRecorder,                          \
    "CUPTI dropped activity records (its buffers were full): GPU work is missing")                \
  X(kTranslationFailures, "translation_failures", kDataLoss, kRecorder,                           \
    "activity records the recorder could not translate: GPU work is missing")                     \
  X(kIncompleteKernelRecords, "incomplete_kernel_records", kDataLoss, kRecorder,                  \
    "kernel records without an end time, left out")                                               \
  X(kNvtxEventsDropped, "nvtx_events_dropped", kDataLoss, kRecorder,                              \
    "NVTX events lost because the recorder's queue was full: ranges may be missing")              \
  X(kWriteFailures, "write_failures", kDataLoss, kRecorder,                                       \
    "records the recorder could not write to the trace file")                                     \
  X(kBufferPoolExhausted, "buffer_pool_exhausted", kWarning, kRecorder,                           \
    "CUPTI asked for a buffer when none was free (its drops are counted separately)")             \
  X(kNvtxUnmatchedPops, "nvtx_unmatched_pops", kWarning, kRecorder,                               \
    "NVTX pops without a matching push (the engine's ranges are unbalanced)")                     \
  X(kNvtxUnendedRanges, "nvtx_unended_ranges", kWarning, kRecorder,                               \
    "NVTX ranges still open when the recording ended, closed at its end")                         \
  X(kUnknownRecordKinds, "unknown_record_kinds", kInfo, kRecorder,                                \
    "CUPTI records of kinds decodeprof does not use, skipped")                                    \
  X(kOnlyRangePeriods, "only_range_periods", kInfo, kRecorder,                                    \
    "periods the --only-range gate kept the recording on")                                        \
  X(kOnlyRangeSwitchFailures, "only_range_switch_failures", kWarning, kRecorder,                  \
    "times the --only-range gate could not switch CUPTI activity on or off")                      \
  X(kOnlyRangeApiCallsOutside, "only_range_api_calls_outside", kInfo, kRecorder,                  \
    "launch API calls outside the --only-range periods, dropped by design")                       \
  X(kSampleStepsSeen, "sample_steps_seen", kInfo, kRecorder,                                      \
    "steps the --sample-steps gate saw (one in N recorded kernel by kernel)")                     \
  X(kSamplePeriods, "sample_periods", kInfo, kRecorder,                                           \
    "periods the --sample-time timer switched recording on")                                      \
  X(kSampleDroppedAfterPeriod, "sample_dropped_after_period", kInfo, kRecorder,                   \
    "kernels and copies of graph launches made while a period's end waited for its GPU "          \
    "work, dropped by design")                                                                    \
  /* Reading a trace: its file, its meta, its events (source importer). */                        \
  X(kUnknownRecorderCounter, "unknown_recorder_counter", kWarning, kImporter,                     \
    "a counter this decodeprof does not know (a newer recorder?)")                                \
  X(kTraceIncomplete, "trace_incomplete", kDataLoss, kImporter,                                   \
    "the trace was not closed by its recorder (killed?): read up to its last commit")             \
  X(kRecordingNotOk, "recording_not_ok", kDataLoss, kImporter,                                    \
    "the recorder says recording was off or failed for part of the run")                          \
  X(kRecorderRecordsOff, "recorder_records_off", kWarning, kImporter,                             \
    "the recorder ran with some of its records off (meta warnings: a record kind CUPTI "          \
    "refused, such as MEMCPY, MEMSET or the launch API calls, or a feature it could not "         \
    "use): copies, launch times or op paths may be missing (the detail says which)")              \
  X(kEventsSkipped, "events_skipped", kInfo, kImporter,                                           \
    "events of kinds decodeprof does not use (CPU ops, flows, metadata), skipped")                \
  X(kUnendedRanges, "unended_ranges", kWarning, kImporter,                                        \
    "annotation ranges without an end in the trace, left out")                                    \
  X(kBaseTimeAfterEvents, "base_time_after_events", kWarning, kImporter,                          \
    "the trace's base time comes after its events: times stay relative to it")                    \
  X(kLaunchNotFound, "launch_not_found", kInfo, kImporter,                                        \
    "dispatches whose correlation id matches no launch call (no op path or launch time)")         \
  X(kDevicesInTrace, "devices_in_trace", kInfo, kImporter,                                        \
    "the trace holds dispatches of several devices; the summary covers the one chosen")           \
  X(kGraphLevelTrace, "graph_level_trace", kWarning, kImporter,                                   \
    "CUDA graphs were traced whole, not node by node: each launch is one dispatch")               \
  X(kSessionClock, "session_clock", kInfo, kImporter,                                             \
    "times are on the file's own session clock: a bench log's marks cannot apply")                \
  X(kDanglingStringId, "dangling_string_id", kError, kImporter,                                   \
    "records name a string id the file does not hold")                                            \
  X(kSchemaVariant, "schema_variant", kInfo, kImporter,                                           \
    "an older or newer schema variant, read with its own column names")                           \
  X(kZeroDurationDispatches, "zero_duration_dispatches", kWarning, kImporter,                     \
    "dispatches that end when they start (a tracer's timer too coarse?)")                         \
  X(kDuplicateColumn, "duplicate_column", kWarning, kImporter,                                    \
    "a column named twice in the header: its last occurrence is read (as csv.DictReader)")        \
  X(kNamesRepaired, "names_repaired", kWarning, kImporter,                                        \
    "names with invalid UTF-8 or control characters, shown repaired (U+FFFD, \\xNN)")             \
  /* The window, the sampling and the attribution. */                                             \
  X(kSampledSteps, "sampled_steps", kInfo, kWindow,                                               \
    "a sampled recording: the window is its sampled steps laid end to end, per-token "            \
    "figures their mean scaled to the decode's steps and tokens")                                 \
  X(kSamplingDistortion, "sampling_distortion", kWarning, kAnalysis,                              \
    "sampled steps took over 5 % longer than unsampled ones: tracing slowed what it "             \
    "measured")                                                                                   \
  X(kSamplingRunCost, "sampling_run_cost", kWarning, kAnalysis,                                   \
    "sampling cost the run over 5 % of its decode (a sampled step and the step after it, "        \
    "measured in the run): sample fewer steps (a larger --sample-steps N)")                       \
  X(kSampledStepsFew, "sampled_steps_few", kWarning, kWindow,                                     \
    "the window holds fewer than 3 sampled steps: its per-token figures rest on them alone "      \
    "(sample more steps: a smaller --sample-steps N, or longer generate calls)")                  \
  X(kDispatchesOverlap, "dispatches_overlap", kWarning, kWindow,                                  \
    "the window's dispatches add up to over 8 times its GPU-busy time: many run at once, or "     \
    "their timestamps are wrong")                                                                 \
  X(kDispatchesOverlapImpossible, "dispatches_overlap_impossible", kError, kWindow,               \
    "the window's dispatches add up to over 128 times its GPU-busy time, more than a GPU "        \
    "runs at once: their timestamps are wrong")                                                   \
  X(kDispatchesOutOfStreamOrder, "dispatches_out_of_stream_order", kWarning, kImporter,           \
    "kernels that end after the next kernel of their CUDA stream has ended: a stream runs "       \
    "its kernels in order, so their end timestamps are late (a CUDA graph replayed before "       \
    "CUPTI read them) unless they overlap by programmatic dependent launch")                      \
  /* The bench logs and the other inputs. */                                                      \
  X(kLogLineUnread, "log_line_unread", kWarning, kImporter,                                       \
    "a bench-log line naming a result or mark whose value cannot be read: left out")              \
  X(kDuplicateMarks, "duplicate_marks", kWarning, kImporter,                                      \
    "a phase mark printed more than once: the last one is used (seed spec 2.3)")                  \
  X(kLogMarksUnused, "log_marks_unused", kWarning, kWindow,                                       \
    "the bench log's [phase] marks were not used: the trace's own ranges cut the window")         \
  X(kLogWithoutResults, "log_without_results", kWarning, kImporter,                               \
    "a bench log without a results block: its figures are null")                                  \
  X(kModelDirWithoutConfig, "model_dir_without_config", kWarning, kImporter,                      \
    "--model-dir holds no config.json: model_type and rope_scaling are unknown")                  \
  X(kStraddlingDecodeStart, "straddling_decode_start", kWarning, kWindow,                         \
    "kernels that started before decode_start and ended after it (not in the window)")            \
  X(kDecodeLoopUncertain, "decode_loop_uncertain", kWarning, kWindow,                             \
    "the decode loop was found without marks, with low confidence (its reasons are in "           \
    "window_evidence): mark the decode, or check the window before trusting its figures")         \
  X(kDispatchLongerThanWindow, "dispatch_longer_than_window", kWarning, kWindow,                  \
    "a decode dispatch that runs longer than the whole decode window")                            \
  X(kHostGapResidual, "host_gap_residual", kWarning, kAnalysis,                                   \
    "host gap the attribution could not place (the per-role gaps do not add up)")                 \
  X(kRoleRuleWarning, "role_rule_warning", kWarning, kAnalysis,                                   \
    "the pack's role rules doubt their labels on this trace")                                     \
  /* Across the traces of `summarize --ranks`. */                                                 \
  X(kCollectiveCountMismatch, "collective_count_mismatch", kWarning, kAnalysis,                   \
    "the ranks' decode windows hold different numbers of collectives: no wait is computed")       \
  X(kEngineStepsFew, "engine_steps_few", kWarning, kWindow,                                       \
    "the window holds fewer than 3 decode steps named by the engine: its per-token figures "      \
    "rest on them alone (profile more steps of the decode)")                                      \
  X(kPackChoiceWeak, "pack_choice_weak", kWarning, kAnalysis,                                     \
    "the pack was chosen from thin evidence (no kernel name, or names that hold little of "       \
    "the GPU time, point to it): check its classes, or name one with --pack")                     \
  X(kLargeKernelUnclassified, "large_kernel_unclassified", kWarning, kAnalysis,                   \
    "a kernel of more than 5 % of the window's GPU time is in class other: the pack does "        \
    "not know it, so no unit counts it (a pack of the engine, or a class for it, would)")         \
  X(kTokensDisagreeWithSteps, "tokens_disagree_with_steps", kWarning, kWindow,                    \
    "the generated tokens (log or --generated-tokens) and the decode steps the window holds "     \
    "differ by more than 2 times: per-token figures divide by the tokens; check that the "        \
    "log or the flag is of this run")                                                             \
  X(kSpeedOfLightContextUnknown, "speed_of_light_context_unknown", kWarning, kAnalysis,           \
    "the prompt length is unknown (no log's prompt tokens, no --context-tokens): the KV "         \
    "cache read counts the decode's own tokens only, so the floor is low and MBU high")           \
  X(kSpeedOfLightLeftOut, "speed_of_light_left_out", kWarning, kAnalysis,                         \
    "--model-dir or --gguf was given but no speed-of-light ledger was written: the model is "     \
    "not described, no peak bandwidth is known for the device, or the floor came out above "      \
    "the wall (the detail says which)")                                                           \
  /* The trust flags of `decodeprof report` (report/do_first.h) that no summary diagnostic        \
     stands for; the others are straddling_decode_start, host_gap_residual, any warning and       \
     any data-loss code. */                                                                       \
  X(kPlainSlower, "plain_slower", kWarning, kReport,                                              \
    "the plain run was more than 5 % slower than the profiled one "                               \
    "(profiler_decode_slowdown_pct below -5): a profiler cannot make a run faster, so the "       \
    "two differ by noise of at least that much and the plain-wall ceilings rest on a "            \
    "disturbed plain run")                                                                        \
  X(kHighProfilerCost, "high_profiler_cost", kWarning, kReport,                                   \
    "the profiler slowed the decode by more than 25 % (profiler_decode_slowdown_pct): the "       \
    "profiled host gaps are stretched, so the profiled-wall ceilings overstate the units "        \
    "that own host gap")                                                                          \
  X(kNoisyPlainRuns, "noisy_plain_runs", kWarning, kReport,                                       \
    "the plain runs' decode tok/s are more than 10 % apart (plain_runs.spread_pct): every "       \
    "plain-wall ceiling moves with the plain run chosen")                                         \
  X(kFewTokens, "few_tokens", kWarning, kReport,                                                  \
    "fewer than 16 generated tokens: per-token figures and tok/s of so short a run are "          \
    "noisy")                                                                                      \
  X(kNoTokenCount, "no_token_count", kWarning, kReport,                                           \
    "no generated-token count (generated_tokens absent, null or 0): the summary has no "          \
    "per-token figure")                                                                           \
  /* What the commands print while they run (source cli). */                                      \
  X(kRecorderLostRecords, "recorder_lost_records", kDataLoss, kCli,                               \
    "the recorder lost records (the trace's data-loss counters add up above 0): the figures "     \
    "undercount (record again with a larger DECODEPROF_RECORD_MAX_BUFFERS, or a shorter run)")    \
  X(kInjectionVariableReplaced, "injection_variable_replaced", kWarning, kCli,                    \
    "CUDA_INJECTION64_PATH or NVTX_INJECTION64_PATH named another tool's library: replaced "      \
    "for the recording, so that tool did not run")                                                \
  X(kBandwidthNotMeasured, "bandwidth_not_measured", kWarning, kCli,                              \
    "record --measure-bandwidth could not measure the memory bandwidth: the trace goes "          \
    "without it (the detail says why)")                                                           \
  X(kBandwidthMeasurementStopped, "bandwidth_measurement_stopped", kWarning, kCli,                \
    "a signal stopped record --measure-bandwidth while it measured: the command was not "         \
    "started")                                                                                    \
  X(kBandwidthNotStored, "bandwidth_not_stored", kWarning, kCli,                                  \
    "the measured bandwidth could not be written into the trace's meta: the trace goes "          \
    "without it")                                                                                 \
  X(kNoSampledStep, "no_sampled_step", kWarning, kCli,                                            \
    "--sample-steps recorded no step kernel by kernel: the step range never opened while "        \
    "CUDA was up, or the run had fewer steps than N")                                             \
  X(kNoSampledPeriod, "no_sampled_period", kWarning, kCli,                                        \
    "--sample-time recorded no period: the program ended before the first one began")             \
  X(kOnlyRangeNeverOpened, "only_range_never_opened", kWarning, kCli,                             \
    "--only-range recorded no CUDA activity: the range never opened while CUDA was up (or "       \
    "CUPTI refused to switch on)")                                                                \
  X(kKernelsWindowEmpty, "kernels_window_empty", kWarning, kCli,                                  \
    "no dispatch of the device starts inside `kernels --window`: the census is empty (the "       \
    "detail gives the device's span)")                                                            \
  X(kKernelStatsNotPublished, "kernel_stats_not_published", kWarning, kCli,                       \
    "`profile` could not copy the recorder's kernel stats CSV into its output folder")
// clang-format on

namespace decodeprof::trace {

// The codes, in the list's order.
enum class Diag : uint16_t {
#define DECODEPROF_DIAG_ENUM(code, name, severity, source, meaning) code,
  DECODEPROF_DIAGNOSTICS(DECODEPROF_DIAG_ENUM)
#undef DECODEPROF_DIAG_ENUM
      kCount_,
};

}  // namespace decodeprof::trace

// The sentences decodeprof writes for one occurrence of a code: on stderr (the commands'
// warnings, the recorder's), in a summary's `warnings`, or as the detail of a code's example.
// Every such sentence is here; call sites give only the values of its {placeholders}:
//   trace::Message<trace::Msg::kBandwidthNotStored>(status.ToString())
// (the number of values is checked when the call compiles: one per {...}, in order).
//
// M(id, code, "text"):
//   id   — the Msg enumerator;
//   code — the Diag it is an occurrence of (its severity labels the line);
//   text — the sentence, with a {name} for each value the call site gives.
// clang-format off
#define DECODEPROF_DIAGNOSTIC_MESSAGES(M)                                                          \
  /* record --measure-bandwidth (src/cli/recording.cc). */                                       \
  M(kBandwidthNoBinary, kBandwidthNotMeasured,                                                     \
    "the bandwidth was not measured: cannot find this binary (/proc/self/exe)")                   \
  M(kBandwidthNoTemporary, kBandwidthNotMeasured,                                                  \
    "the bandwidth was not measured: cannot create {file}: {error}")                              \
  M(kBandwidthFailed, kBandwidthNotMeasured, "the bandwidth was not measured: {error}")           \
  M(kBandwidthExited, kBandwidthNotMeasured,                                                       \
    "the bandwidth was not measured (decodeprof bandwidth exited {status}); the trace goes "      \
    "without it")                                                                                 \
  M(kBandwidthStopped, kBandwidthMeasurementStopped,                                               \
    "stopped by signal {signal} while measuring the bandwidth; the command was not started")      \
  M(kBandwidthNotKept, kBandwidthNotStored, "the measured bandwidth was not stored: {error}")     \
  /* The launcher and what record reads back from the trace (src/record, src/cli). */            \
  M(kInjectionReplaced, kInjectionVariableReplaced,                                                \
    "{variable} was '{value}' (another tool?); replaced for the recording")                       \
  M(kSampleRangeNeverOpened, kNoSampledStep,                                                       \
    "no step was recorded kernel by kernel: NVTX range '{range}' never opened while CUDA was up " \
    "(name the engine's step range with --step-range, or use --sample-time)")                     \
  M(kSampleStepsTooFew, kNoSampledStep,                                                            \
    "no step was recorded kernel by kernel: only {steps} steps, fewer than --sample-steps needs "  \
    "(name the engine's step range with --step-range, or use --sample-time)")                     \
  M(kSamplePeriodNeverBegan, kNoSampledPeriod,                                                     \
    "no period was recorded kernel by kernel: the program ended before the first period of "      \
    "--sample-time {spec} (it begins PERIOD - ON ms after CUDA comes up); use a shorter PERIOD, " \
    "or --sample-steps N for a short decode")                                                     \
  M(kOnlyRangeNotOpened, kOnlyRangeNeverOpened,                                                    \
    "no CUDA activity was recorded: NVTX range '{range}' never opened while CUDA was up")         \
  M(kOnlyRangeNotOpenedOrRefused, kOnlyRangeNeverOpened,                                           \
    "no CUDA activity was recorded: NVTX range '{range}' never opened while CUDA was up, or "     \
    "CUPTI refused to switch on")                                                                 \
  M(kOnlyRangeRefusedSwitches, kOnlyRangeSwitchFailures,                                           \
    "CUPTI refused {count} switches of --only-range (meta only_range_warnings says what)")        \
  M(kTraceLostRecords, kRecorderLostRecords,                                                       \
    "the trace lost {count} records (see its counters table); raise "                             \
    "DECODEPROF_RECORD_MAX_BUFFERS")                                                              \
  /* The injection library, on the traced program's stderr (src/record/cupti). */                \
  M(kCuptiNotLoaded, kRecorderRecordsOff, "{why}; recording NVTX only")                           \
  M(kCuptiVersionMismatch, kRecorderRecordsOff,                                                    \
    "CUPTI API version {version} at {path} does not match the version this recorder was built "   \
    "for ({built})")                                                                              \
  M(kCuptiRefusedRecord, kRecorderRecordsOff, "CUPTI refused {call}: {error}")                    \
  M(kSomeRecordsOff, kRecorderRecordsOff, "some records are off: {which}")                        \
  M(kDetachRefused, kRecorderRecordsOff,                                                           \
    "detaching CUPTI between periods: cuptiSubscribe/cuptiEnableDomain: {error} (CUPTI stays "    \
    "attached)")                                                                                  \
  M(kRecordKindRefused, kRecorderRecordsOff, "{kind}: {error}")                                   \
  M(kDetachUnsupported, kRecorderRecordsOff,                                                       \
    "detaching: this CUPTI lacks cuptiSubscribe, cuptiEnableDomain or cuptiFinalize (CUPTI "      \
    "stays attached between periods)")                                                            \
  M(kPeriodWaitUnavailable, kRecorderRecordsOff,                                                   \
    "waiting for a period's GPU work: {why} (periods end when their range closes)")               \
  M(kGraphWatchUnavailable, kRecorderRecordsOff,                                                   \
    "watching CUDA graph launches: no callback subscription (another subscriber in the "          \
    "program, or an old CUPTI): graph launches are not steps, and a period's graph work is not "  \
    "waited for")                                                                                 \
  M(kReattachRefused, kOnlyRangeSwitchFailures,                                                    \
    "attaching CUPTI again: cuptiActivityRegisterCallbacks: {error}")                             \
  M(kGateSwitchRefused, kOnlyRangeSwitchFailures,                                                  \
    "CUPTI refused to switch recording {state}: {refused}")                                       \
  M(kGateSwitchRefusedOnce, kOnlyRangeSwitchFailures,                                              \
    "{why} (--only-range; counted in only_range_switch_failures)")                                \
  M(kCommitFailed, kWriteFailures, "cannot commit to {file}; records are being lost")             \
  M(kCloseFailed, kWriteFailures, "{error}")                                                      \
  M(kDrainTimedOut, kTraceIncomplete,                                                              \
    "gave up waiting for the trace to be written; it holds the records up to the last commit")    \
  /* kernels and profile (src/cli, src/profile). */                                              \
  M(kKernelsNoDispatchInWindow, kKernelsWindowEmpty,                                               \
    "no dispatch starts inside --window {window} (the device's {dispatches} dispatches start "    \
    "from {first} to {last} ns)")                                                                 \
  M(kKernelStatsNotCopied, kKernelStatsNotPublished, "no kernel stats published: {error}")        \
  /* A summary's `warnings` (src/analysis role rules, src/trace RecorderWarnings). */            \
  M(kRoleRulesClassesMissing, kRoleRuleWarning,                                                    \
    "the role rules got {dispatches} dispatches but {classes} classes; dispatches without a "     \
    "class count as \"other\"")                                                                   \
  M(kRoleRulesNoGrid, kRoleRuleWarning,                                                            \
    "the trace has no grid sizes, so all {heads} {head_class} dispatches tie as the widest and "  \
    "each one starts a {role} run (rule tail_after_widest); {role} is overstated: record the "   \
    "trace with grid sizes")                                                                      \
  M(kRoleRulesOpPathSkipped, kRoleRuleWarning,                                                     \
    "the trace has no launch threads and times or no annotation ranges, so the op_path rules "    \
    "were skipped (the sequence rules still apply)")                                              \
  /* The detail of a code's first example (importers, the window, the analysis). */             \
  M(kMarkAgain, kDuplicateMarks, "mark {label} again")                                            \
  M(kClockNotInteger, kLogLineUnread, "a clock value that is not an integer")                     \
  M(kNoTokenGenerated, kLogLineUnread, "no token generated")                                      \
  M(kValueUnread, kLogLineUnread, "a value the seed's pattern does not read")                     \
  M(kColumnTwice, kDuplicateColumn, "column {column} appears more than once")                     \
  M(kGraphTracedWhole, kGraphLevelTrace,                                                           \
    "a CUDA-graph launch traced whole; nsys profile --cuda-graph-trace=node records its kernels") \
  M(kPlainLogWithoutResults, kLogWithoutResults,                                                   \
    "--plain-log has no Decode: or Generated tokens: line")                                       \
  M(kNoConfigJson, kModelDirWithoutConfig, "no config.json")                                      \
  M(kPackChosenWeakly, kPackChoiceWeak, "pack {pack}: {why}")                                     \
  M(kLoopFoundUncertain, kDecodeLoopUncertain, "{steps} steps found: {reasons}")                  \
  M(kDispatchOutlastsWindow, kDispatchLongerThanWindow, "{duration} ns against a {wall} ns window") \
  M(kLateEnds, kDispatchesOutOfStreamOrder,                                                        \
    "the first: {kernel} on stream {stream} ({us} us); the late ends add up to {ms} ms")          \
  M(kLargeKernelShare, kLargeKernelUnclassified, "{kernel}: {pct} % of the GPU time")            \
  M(kLargeKernelsMore, kLargeKernelUnclassified, "and {count} more")                              \
  M(kDecodeStartCuts, kStraddlingDecodeStart, "decode_start cuts through them")                   \
  M(kGapUnattributed, kHostGapResidual, "{ns} ns unattributed")                                   \
  M(kSampledStepsOf, kSampledSteps, "{sampled} of {seen} steps")                                  \
  M(kSampledStepsFewOf, kSampledStepsFew, "{sampled} sampled step{s} of {seen} in the window")    \
  M(kSamplingSlower, kSamplingDistortion, "+{pct} % over the unsampled steps")                    \
  M(kSamplingCost, kSamplingRunCost,                                                               \
    "{pct} % of the decode, {ms} ms a sampled step; one step in {n} would cost about 2 %")        \
  M(kEngineStepsIn, kEngineStepsFew, "{steps} decode step{s} ({rule})")                           \
  M(kTokensAgainstSteps, kTokensDisagreeWithSteps, "{tokens} tokens, {steps} decode steps in the " \
    "window")                                                                                     \
  M(kWindowFrom, kLogMarksUnused, "the window comes from {source}")                               \
  M(kNoPromptLength, kSpeedOfLightContextUnknown, "no prompt length: give --context-tokens")      \
  /* The detail of a trust flag of `decodeprof report` (src/report/do_first.cc). */             \
  M(kProfilerCost, kHighProfilerCost, "profiler cost {pct} %")                                    \
  M(kPlainRunsApart, kNoisyPlainRuns,                                                              \
    "{runs} plain runs, decode tok/s {spread} % apart (the median run is used)")                  \
  M(kGeneratedTokensZero, kNoTokenCount, "generated_tokens {tokens}")                             \
  M(kGeneratedTokensNone, kNoTokenCount, "no generated_tokens")                                   \
  M(kFewGeneratedTokens, kFewTokens,                                                               \
    "{tokens} generated tokens ({passes} forward passes), fewer than {min}")                      \
  M(kStraddlingKernels, kStraddlingDecodeStart, "{count} straddling kernels")                     \
  M(kSummaryRecordsLost, kRecorderLostRecords,                                                     \
    "the recorder lost {count} records: the figures undercount")                                  \
  M(kSummaryTraceIncomplete, kTraceIncomplete,                                                     \
    "the trace was not closed by its recorder (killed?): read up to its last commit")
// clang-format on

namespace decodeprof::trace {

enum class Msg : uint16_t {
#define DECODEPROF_MSG_ENUM(id, code, text) id,
  DECODEPROF_DIAGNOSTIC_MESSAGES(DECODEPROF_MSG_ENUM)
#undef DECODEPROF_MSG_ENUM
      kCount_,
};

struct MessageInfo {
  Msg id;
  Diag code;
  std::string_view text;
};

inline constexpr MessageInfo kMessages[] = {
#define DECODEPROF_MSG_INFO(id, code, text) {Msg::id, Diag::code, text},
    DECODEPROF_DIAGNOSTIC_MESSAGES(DECODEPROF_MSG_INFO)
#undef DECODEPROF_MSG_INFO
};

// One occurrence of a code, in the words of its message.
struct DiagMessage {
  Diag code;
  std::string text;
  bool operator==(const DiagMessage&) const = default;
};

namespace message_detail {

// The {name} at `open` (a '{') in `text`: the name, or "" when it has no '}'.
constexpr std::string_view PlaceholderAt(std::string_view text, size_t open) {
  const size_t close = text.find('}', open);
  return close == std::string_view::npos ? std::string_view()
                                         : text.substr(open + 1, close - open - 1);
}

// The distinct {names} of a message's text (a name used twice takes one value).
constexpr size_t Placeholders(std::string_view text) {
  size_t n = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; ++j) {
      seen = text[j] == '{' && PlaceholderAt(text, j) == PlaceholderAt(text, i);
    }
    n += seen ? 0 : 1;
  }
  return n;
}

inline std::string Value(std::string_view s) { return std::string(s); }
inline std::string Value(const char* s) { return std::string(s); }
inline std::string Value(const std::string& s) { return s; }
template <std::integral I>
std::string Value(I v) {
  return std::to_string(v);
}

// `text` with its {names} replaced by `values`, given in the order the names first appear.
inline std::string Fill(std::string_view text, std::initializer_list<std::string> values) {
  std::string out;
  std::vector<std::string_view> names;  // in order of first appearance
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') {
      out += text[i];
      continue;
    }
    const std::string_view name = PlaceholderAt(text, i);
    size_t k = 0;
    while (k < names.size() && names[k] != name) ++k;
    if (k == names.size()) names.push_back(name);
    if (k < values.size()) out += *(values.begin() + k);
    i += name.size() + 1;
  }
  return out;
}

}  // namespace message_detail

// Appends `message`'s text to `list`, a "; "-joined list of messages (an example's detail that
// names several things, the recorder's meta `warnings`).
inline void AppendText(std::string& list, const DiagMessage& message) {
  if (!list.empty()) list += "; ";
  list += message.text;
}

// The message `id` with its values: one argument per {placeholder} of its text, in order
// (strings, or integers written in decimal).
template <Msg id, typename... Values>
DiagMessage Message(const Values&... values) {
  constexpr MessageInfo kInfo = kMessages[static_cast<size_t>(id)];
  static_assert(sizeof...(Values) == message_detail::Placeholders(kInfo.text),
                "one value per {placeholder} of the message's text");
  return {kInfo.code, message_detail::Fill(kInfo.text, {message_detail::Value(values)...})};
}

}  // namespace decodeprof::trace
