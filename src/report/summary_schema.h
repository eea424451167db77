// The schema of `<name>_summary.json`, declared once (issue 28, "A typed summary"): every
// field's key, JSON type, range, unit and meaning, section by section, as X-macro lists.
// From these lists come
//   * the keys the writer spells (summary_json.cc: summary_schema::run::gpu_ms_per_token.key),
//   * the typed reader (summary_view.h: RunView::gpu_ms_per_token() and the like),
//   * the validator (summary_validation.cc: the type and range of each checked field),
//   * the field table of docs/user-guide.md (SummaryFieldTableMarkdown; a test holds the page
//     to it).
// A new field is one line in its section's list (in the order summarize writes it), then a
// line in the writer and the regenerated docs table.
//
// Each list entry: X(ident, "key", type, range, check, "unit", "meaning"), where
//   ident   the C++ name of the field (the key, except `class` → class_name);
//   type    Number (a JSON number), Integer (a JSON integer: 12, not 12.0), String, Bool,
//           Object (an object: the fields of the section it holds, if any), Array (an array
//           of objects of the section it holds), ObjectMap (an object of such objects, keyed by
//           id), Map (an object of numbers or nulls, keyed by name), Strings (an array of
//           strings), Numbers (an array of numbers or nulls);
//   range   what a number may be (Any, NonNegative: 0..1e12, Percent: 0..100, Ceiling: >= 1,
//           Bytes: 0..1e15, PeakBandwidth: 1..1e5, Bandwidth: 0..1e5, Mbu: 0..100), for a Map
//           or Numbers each element's, checked with 0.01 of slack for rounding;
//   check   Checked: the validator checks its type (and range) wherever it is present and not
//           null, and the fields of the section it holds; Required: the same, and an entry
//           without it (or not an object) is rejected; Free: summarize writes it, but no
//           reader depends on it, and it is copied as it is.
// A section (SummarySections) is the list of fields of an object, with the field that holds
// it: the validator walks them from the top level down, so a new field, checked or not, is
// never a validator edit; only rules between fields (ranked_units against port_units, the
// window's times, the speed-of-light decomposition) are written by hand.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace decodeprof::report {

enum class SummaryFieldType {
  kNumber,
  kInteger,
  kString,
  kBool,
  kObject,
  kArray,
  kObjectMap,
  kMap,
  kStrings,
  kNumbers,
};
enum class SummaryRange {
  kAny,
  kNonNegative,
  kPercent,
  kCeiling,
  kBytes,
  kPeakBandwidth,
  kBandwidth,
  kMbu,
};
enum class SummaryCheck { kChecked, kRequired, kFree };

struct SummaryField {
  std::string_view key;
  SummaryFieldType type;
  SummaryRange range;
  SummaryCheck check;
  std::string_view unit;
  std::string_view meaning;
};

// The top-level fields of a run, in the order summarize writes them.
#define DP_SUMMARY_RUN_FIELDS(X)                                                                  \
  X(name, "name", String, Any, Required, "", "the run's name: a file without it is no summary")   \
  X(model_type, "model_type", String, Any, Checked, "", "the model's `model_type` (config.json)") \
  X(temperature, "temperature", Number, NonNegative, Checked, "", "the sampling temperature")     \
  X(clock, "clock", String, Any, Checked, "", "the trace's clock")                                \
  X(prompt_tokens, "prompt_tokens", Integer, NonNegative, Checked, "tokens",                      \
    "the prompt's length")                                                                        \
  X(generated_tokens, "generated_tokens", Integer, NonNegative, Checked, "tokens",                \
    "tokens the run generated")                                                                   \
  X(profiled_decode_tok_s, "profiled_decode_tok_s", Number, NonNegative, Checked, "tok/s",        \
    "decode rate of the profiled run")                                                            \
  X(profiled_prefill_tok_s, "profiled_prefill_tok_s", Number, Any, Free, "tok/s",                 \
    "prefill rate of the profiled run")                                                           \
  X(plain_decode_tok_s, "plain_decode_tok_s", Number, NonNegative, Checked, "tok/s",              \
    "decode rate of the plain run (without the profiler); 0 or null: no plain run")               \
  X(plain_prefill_tok_s, "plain_prefill_tok_s", Number, Any, Free, "tok/s",                       \
    "prefill rate of the plain run")                                                              \
  X(profiler_decode_slowdown_pct, "profiler_decode_slowdown_pct", Number, Any, Checked, "%",      \
    "the profiler's cost: how much slower the profiled decode ran than the plain one")            \
  X(decode_dispatches, "decode_dispatches", Integer, NonNegative, Checked, "dispatches",          \
    "GPU dispatches in the decode window")                                                        \
  X(dispatches_per_token, "dispatches_per_token", Number, NonNegative, Checked,                   \
    "dispatches/token", "decode dispatches per token")                                            \
  X(decode_wall_ms, "decode_wall_ms", Number, NonNegative, Checked, "ms",                         \
    "the decode window's wall time")                                                              \
  X(decode_gpu_sum_ms, "decode_gpu_sum_ms", Number, NonNegative, Checked, "ms",                   \
    "the sum of the window's kernel durations; every `*_share_pct` is of this sum")               \
  X(decode_gpu_busy_ms, "decode_gpu_busy_ms", Number, NonNegative, Checked, "ms",                 \
    "the union of the window's dispatch intervals (at most the wall and the sum)")                \
  X(gpu_ms_per_token, "gpu_ms_per_token", Number, NonNegative, Checked, "ms/token",               \
    "GPU busy time per token: the union of the decode dispatches' intervals")                     \
  X(host_gap_ms_per_token, "host_gap_ms_per_token", Number, NonNegative, Checked, "ms/token",     \
    "the rest of the decode wall per token: the GPU idle between dispatches")                     \
  X(host_gap_pct_of_wall, "host_gap_pct_of_wall", Number, Percent, Checked, "%",                  \
    "the host gap's share of the decode wall")                                                    \
  X(plain_wall_ms_per_token, "plain_wall_ms_per_token", Number, NonNegative, Checked, "ms/token", \
    "the plain run's decode wall per token")                                                      \
  X(plain_host_gap_ms_per_token_est, "plain_host_gap_ms_per_token_est", Number, Any, Checked,     \
    "ms/token", "plain wall per token minus traced GPU time: the host gap without the profiler")  \
  X(checks, "checks", Object, Any, Checked, "", "the window's checks (`checks.*`)")               \
  X(top_kernels, "top_kernels", Array, Any, Checked, "",                                          \
    "the ten kernels with the most time "                                                         \
    "(`top_kernels[].*`)")                                                                        \
  X(class_share_pct, "class_share_pct", Map, Percent, Checked, "%",                               \
    "share of decode GPU time per kernel class")                                                  \
  X(role_share_pct, "role_share_pct", Map, Percent, Checked, "%",                                 \
    "share of decode GPU time per role")                                                          \
  X(role_dispatches_per_token, "role_dispatches_per_token", Map, Any, Free, "dispatches/token",   \
    "dispatches per token per role")                                                              \
  X(role_host_gap_ms_per_token, "role_host_gap_ms_per_token", Map, Any, Free, "ms/token",         \
    "host gap per token charged to each role (`tail`: after the last dispatch)")                  \
  X(port_units, "port_units", ObjectMap, Any, Checked, "",                                        \
    "the work units by id "                                                                       \
    "(`port_units.<id>.*`)")                                                                      \
  X(decode_forward_passes, "decode_forward_passes", Integer, NonNegative, Checked, "passes",      \
    "forward passes in the decode window")                                                        \
  X(window_tokens, "window_tokens", Number, NonNegative, Checked, "tokens",                       \
    "only for a sampled recording: the tokens its window stands for")                             \
  X(pack, "pack", String, Any, Checked, "", "the classification pack")                            \
  X(units_file, "units_file", String, Any, Checked, "", "the units file")                         \
  X(warnings, "warnings", Strings, Any, Checked, "", "summarize's warnings, as text")             \
  X(trace_format, "trace_format", String, Any, Checked, "", "the importer that read the trace")   \
  X(trace_file, "trace_file", String, Any, Checked, "", "the trace's file name")                  \
  X(device, "device", Integer, NonNegative, Checked, "", "the device the window ran on")          \
  X(diagnostics, "diagnostics", Array, Any, Checked, "",                                          \
    "what the import and the analysis met "                                                       \
    "(`diagnostics[].*`)")                                                                        \
  X(window_source, "window_source", String, Any, Checked, "", "what cut the decode window")       \
  X(workload, "workload", String, Any, Checked, "", "only with `--synthetic`: \"synthetic\"")     \
  X(window_evidence, "window_evidence", Object, Any, Checked, "",                                 \
    "how the window was found without marks (section 2; `window_evidence.*`)")                    \
  X(plain_runs, "plain_runs", Object, Any, Checked, "", "several plain runs (`plain_runs.*`)")    \
  X(sampling, "sampling", Object, Any, Checked, "",                                               \
    "only for a sampled recording: its cost (docs/recording.md; `sampling.*`)")                   \
  X(engine_steps, "engine_steps", Object, Any, Checked, "",                                       \
    "only when the engine's step names cut the window (docs/engine-steps.md; `engine_steps.*`)")  \
  X(ranked_units, "ranked_units", Array, Any, Checked, "",                                        \
    "the units in the order to do them "                                                          \
    "(`ranked_units[].*`)")                                                                       \
  X(rank, "rank", Object, Any, Checked, "", "only for a rank of a multi-rank run (`rank.*`)")     \
  X(collectives, "collectives", Object, Any, Checked, "",                                         \
    "only with `summarize --ranks` "                                                              \
    "(`collectives.*`)")                                                                          \
  X(speed_of_light, "speed_of_light", Object, Any, Checked, "",                                   \
    "the decode's floor against its wall (docs/speed-of-light.md; `speed_of_light.*`)")

// `checks`: the window's checks.
#define DP_SUMMARY_CHECK_FIELDS(X)                                                                \
  X(kernels_straddling_decode_start, "kernels_straddling_decode_start", Integer, NonNegative,     \
    Checked, "kernels", "kernels that run across decode_start (0 expected)")                      \
  X(host_gap_attribution_residual_ns, "host_gap_attribution_residual_ns", Number, Any, Checked,   \
    "ns", "host gap no unit owns (0 expected)")                                                   \
  X(idle_gap_before_first_decode_dispatch_us, "idle_gap_before_first_decode_dispatch_us", Number, \
    Any, Checked, "us",                                                                           \
    "the GPU idle before the first decode dispatch (the first token's "                           \
    "sampling)")                                                                                  \
  X(last_dispatch_before_decode, "last_dispatch_before_decode", String, Any, Free, "",            \
    "the last kernel before the window")

// `top_kernels[]`: one kernel each.
#define DP_SUMMARY_TOP_KERNEL_FIELDS(X)                                              \
  X(kernel, "kernel", String, Any, Required, "", "the kernel's name")                \
  X(class_name, "class", String, Any, Checked, "", "its class (the pack's)")         \
  X(calls_per_token, "calls_per_token", Number, NonNegative, Checked, "calls/token", \
    "its calls per token")                                                           \
  X(share_pct, "share_pct", Number, Percent, Checked, "%", "its share of decode GPU time")

// `port_units.<id>`: one work unit each; `fallback_*` for the roles it would replace,
// `reached_default_*` for those the shipped defaults reach, `reached_optin_*` with opt-in
// switches.
#define DP_SUMMARY_UNIT_FIELDS(X)                                                                  \
  X(port, "port", String, Any, Checked, "", "its work item")                                       \
  X(fallback_share_pct, "fallback_share_pct", Number, Percent, Checked, "%",                       \
    "its share of decode GPU time")                                                                \
  X(fallback_dispatches_per_token, "fallback_dispatches_per_token", Number, NonNegative, Checked,  \
    "dispatches/token", "its dispatches per token")                                                \
  X(reached_default_share_pct, "reached_default_share_pct", Number, Percent, Checked, "%",         \
    "the share the shipped defaults reach")                                                        \
  X(reached_default_dispatches_per_token, "reached_default_dispatches_per_token", Number,          \
    NonNegative, Checked, "dispatches/token", "the dispatches the shipped defaults reach")         \
  X(reached_optin_share_pct, "reached_optin_share_pct", Number, Percent, Checked, "%",             \
    "the share opt-in switches reach")                                                             \
  X(fallback_host_gap_ms_per_token, "fallback_host_gap_ms_per_token", Number, NonNegative,         \
    Checked, "ms/token", "the host gap it owns")                                                   \
  X(fallback_host_gap_us_per_dispatch, "fallback_host_gap_us_per_dispatch", Number, NonNegative,   \
    Checked, "us", "the host gap it owns per dispatch")                                            \
  X(fallback_wall_share_pct, "fallback_wall_share_pct", Number, Percent, Checked, "%",             \
    "its kernel time and host gap, of the decode wall")                                            \
  X(ceiling_gpu_share, "ceiling_gpu_share", Number, Ceiling, Checked, "×",                         \
    "speedup bound from kernel time alone: 1 / (1 − share)")                                       \
  X(ceiling_wall, "ceiling_wall", Number, Ceiling, Checked, "×",                                   \
    "speedup bound over the profiled decode wall, host gap it owns included")                      \
  X(plain_ceiling_wall_est, "plain_ceiling_wall_est", Number, NonNegative, Checked, "×",           \
    "the same with the gaps re-scaled to the plain run: the bound to compare a port against")      \
  X(reached_default_host_gap_ms_per_token, "reached_default_host_gap_ms_per_token", Number,        \
    NonNegative, Checked, "ms/token", "the host gap the shipped defaults reach")                   \
  X(reached_default_host_gap_us_per_dispatch, "reached_default_host_gap_us_per_dispatch", Number,  \
    Any, Free, "us", "the same per dispatch")                                                      \
  X(reached_default_wall_share_pct, "reached_default_wall_share_pct", Number, Any, Free, "%",      \
    "the shipped defaults' share of the decode wall")                                              \
  X(reached_default_ceiling_gpu_share, "reached_default_ceiling_gpu_share", Number, Any, Free,     \
    "×", "`ceiling_gpu_share` of the shipped defaults' set")                                       \
  X(reached_default_ceiling_wall, "reached_default_ceiling_wall", Number, Any, Free, "×",          \
    "`ceiling_wall` of the shipped defaults' set")                                                 \
  X(reached_default_plain_ceiling_wall_est, "reached_default_plain_ceiling_wall_est", Number, Any, \
    Free, "×", "`plain_ceiling_wall_est` of the shipped defaults' set")                            \
  X(note, "note", String, Any, Free, "", "the units file's note")                                  \
  X(reached_optin_host_gap_ms_per_token, "reached_optin_host_gap_ms_per_token", Number, Any, Free, \
    "ms/token", "the host gap opt-in switches reach")                                              \
  X(reached_optin_host_gap_us_per_dispatch, "reached_optin_host_gap_us_per_dispatch", Number, Any, \
    Free, "us", "the same per dispatch")                                                           \
  X(reached_optin_wall_share_pct, "reached_optin_wall_share_pct", Number, Any, Free, "%",          \
    "the opt-in set's share of the decode wall")                                                   \
  X(reached_optin_ceiling_gpu_share, "reached_optin_ceiling_gpu_share", Number, Any, Free, "×",    \
    "`ceiling_gpu_share` of the opt-in set")                                                       \
  X(reached_optin_ceiling_wall, "reached_optin_ceiling_wall", Number, Any, Free, "×",              \
    "`ceiling_wall` of the opt-in set")                                                            \
  X(reached_optin_plain_ceiling_wall_est, "reached_optin_plain_ceiling_wall_est", Number, Any,     \
    Free, "×", "`plain_ceiling_wall_est` of the opt-in set")                                       \
  X(classes, "classes", Strings, Any, Free, "", "only for a unit that opts in: its classes")       \
  X(host_gap, "host_gap", String, Any, Checked, "",                                                \
    "\"all\": the unit owns all host gap (a "                                                      \
    "CUDA-graph capture)")

// `diagnostics[]`: one code each.
#define DP_SUMMARY_DIAGNOSTIC_FIELDS(X)                                                  \
  X(code, "code", String, Any, Checked, "", "its code (section 3, Diagnostics)")         \
  X(severity, "severity", String, Any, Checked, "", "info, warning, data-loss or error") \
  X(count, "count", Integer, NonNegative, Checked, "", "how often it happened")          \
  X(meaning, "meaning", String, Any, Checked, "", "what it means")                       \
  X(first, "first", Object, Any, Checked, "", "where it first happened (`diagnostics[].first.*`)")

// `diagnostics[].first`: where a diagnostic first happened.
#define DP_SUMMARY_DIAGNOSTIC_FIRST_FIELDS(X)                          \
  X(file, "file", String, Any, Checked, "", "the input's file name")   \
  X(position, "position", String, Any, Checked, "", "the place in it") \
  X(detail, "detail", String, Any, Checked, "", "what was there")

// `ranked_units[]`: the units in rank order (analysis/ranking.h).
#define DP_SUMMARY_RANKED_UNIT_FIELDS(X)                                      \
  X(id, "id", String, Any, Required, "", "a unit of `port_units`, each once") \
  X(by, "by", String, Any, Required, "",                                      \
    "the figure it ranks by: \"plain_ceiling_wall_est\" or \"ceiling_wall\"") \
  X(value, "value", Number, NonNegative, Checked, "×", "that figure's value") \
  X(value_range, "value_range", Numbers, Any, Free, "×",                      \
    "its value over the fastest and slowest plain run")

// `rank`: one rank of a multi-rank run (docs/multi-gpu.md).
#define DP_SUMMARY_RANK_FIELDS(X)                                                        \
  X(rank, "rank", Integer, NonNegative, Required, "", "the rank")                        \
  X(world_size, "world_size", Integer, NonNegative, Checked, "", "the ranks of the run") \
  X(local_rank, "local_rank", Integer, NonNegative, Checked, "", "the rank on its host") \
  X(run_id, "run_id", String, Any, Checked, "", "the run the ranks share")               \
  X(group, "group", String, Any, Checked, "", "the rank's process group")

// `collectives`: the collectives of a multi-rank run (`summarize --ranks`).
#define DP_SUMMARY_COLLECTIVE_FIELDS(X)                                                          \
  X(count, "count", Integer, NonNegative, Checked, "", "collectives in the window")              \
  X(total_ms_per_token, "total_ms_per_token", Number, NonNegative, Checked, "ms/token",          \
    "their time per token")                                                                      \
  X(wait_ms_per_token, "wait_ms_per_token", Number, NonNegative, Checked, "ms/token",            \
    "of which waiting for the slowest rank")                                                     \
  X(transfer_ms_per_token, "transfer_ms_per_token", Number, NonNegative, Checked, "ms/token",    \
    "of which moving data")                                                                      \
  X(pct_of_wall, "pct_of_wall", Number, Percent, Checked, "%", "their share of the decode wall") \
  X(slowest_rank, "slowest_rank", Integer, NonNegative, Checked, "",                             \
    "the rank the others wait "                                                                  \
    "for")                                                                                       \
  X(matched, "matched", Bool, Any, Checked, "", "every rank's collectives matched up")

// `plain_runs`: several plain runs (`decodeprof profile --plain-runs N`).
#define DP_SUMMARY_PLAIN_RUNS_FIELDS(X)                                                    \
  X(count, "count", Integer, NonNegative, Checked, "", "the plain runs")                   \
  X(decode_tok_s, "decode_tok_s", Numbers, NonNegative, Checked, "tok/s",                  \
    "each one's decode rate, in the order given")                                          \
  X(used, "used", Integer, NonNegative, Checked, "", "the run used (0-based): the median") \
  X(spread_pct, "spread_pct", Number, NonNegative, Checked, "%",                           \
    "(fastest − slowest) / median decode rate")

// `window_evidence`: how the decode window was found and what supports it (absent fields: the
// source does not give them).
#define DP_SUMMARY_WINDOW_EVIDENCE_FIELDS(X)                                                       \
  X(start_ns, "start_ns", Integer, Any, Checked, "ns", "the window's start on the trace's clock")  \
  X(end_ns, "end_ns", Integer, Any, Checked, "ns", "the window's end on the trace's clock")        \
  X(steps, "steps", Integer, NonNegative, Checked, "steps",                                        \
    "decode steps found (or counted from ranges)")                                                 \
  X(dispatches_per_step, "dispatches_per_step", Integer, NonNegative, Checked, "dispatches",       \
    "the finder's: dispatches in the first step")                                                  \
  X(kernels_per_step, "kernels_per_step", Integer, NonNegative, Checked, "kernels",                \
    "the finder's: kernels in the first step")                                                     \
  X(graph_launches_per_step, "graph_launches_per_step", Integer, NonNegative, Checked, "launches", \
    "the finder's: CUDA-graph launches in the first step")                                         \
  X(deviated_steps, "deviated_steps", Integer, NonNegative, Checked, "steps",                      \
    "steps unlike the one before (or the median)")                                                 \
  X(skipped_steps, "skipped_steps", Integer, NonNegative, Checked, "steps",                        \
    "step ranges: prefill-like ones left out")                                                     \
  X(runs, "runs", Integer, NonNegative, Checked, "",                                               \
    "the finder's: runs of the unit (warm-up decodes, ...)")                                       \
  X(dispatches_before, "dispatches_before", Integer, NonNegative, Checked, "dispatches",           \
    "dispatches that started before the window")                                                   \
  X(anchor, "anchor", String, Any, Checked, "", "the finder's: what each step starts with")        \
  X(range, "range", String, Any, Checked, "", "ranges: the decode or step range pattern")          \
  X(run, "run", Integer, NonNegative, Checked, "",                                                 \
    "the finder's: which of the runs is the window (1-based, in time order)")                      \
  X(boundary, "boundary", String, Any, Checked, "", "the finder's: what ends a token")             \
  X(confidence, "confidence", String, Any, Checked, "",                                            \
    "the finder's: \"high\", or \"low\" with its reasons")                                         \
  X(reasons, "reasons", Strings, Any, Checked, "", "why the finder's confidence is low")           \
  X(projection, "projection", String, Any, Checked, "",                                            \
    "ranges: how they were projected onto the GPU, \"launch\" (by correlation id) or \"time\"")    \
  X(dispatches_launched_inside, "dispatches_launched_inside", Integer, NonNegative, Checked,       \
    "dispatches", "\"launch\": dispatches launched inside the ranges")                             \
  X(dispatches_launched_outside, "dispatches_launched_outside", Integer, NonNegative, Checked,     \
    "dispatches", "\"launch\": dispatches in the window's time, left out")                         \
  X(gpu_after_range_ns, "gpu_after_range_ns", Integer, Any, Checked, "ns",                         \
    "how long the GPU ran past the ranges' end")

// `sampling`: a sampled recording's cost (`decodeprof record --sample-steps N`,
// docs/recording.md).
#define DP_SUMMARY_SAMPLING_FIELDS(X)                                                          \
  X(steps_seen, "steps_seen", Integer, NonNegative, Checked, "steps",                          \
    "step ranges in the decode window")                                                        \
  X(steps_sampled, "steps_sampled", Integer, NonNegative, Checked, "steps",                    \
    "of them, recorded kernel by kernel")                                                      \
  X(sampled_step_ms, "sampled_step_ms", Number, NonNegative, Checked, "ms",                    \
    "mean step-range time of the sampled steps")                                               \
  X(unsampled_step_ms, "unsampled_step_ms", Number, NonNegative, Checked, "ms",                \
    "mean step-range time of the others")                                                      \
  X(distortion_pct, "distortion_pct", Number, Any, Checked, "%", "sampled / unsampled − 1")    \
  X(tracing_cost_ms_per_step, "tracing_cost_ms_per_step", Number, Any, Checked, "ms",          \
    "what tracing cost a sampled step: sampled − unsampled step time")                         \
  X(tracing_cost_us_per_dispatch, "tracing_cost_us_per_dispatch", Number, Any, Checked, "us",  \
    "the same per dispatch of a sampled step")                                                 \
  X(tracing_share_of_host_gap_pct, "tracing_share_of_host_gap_pct", Number, Any, Checked, "%", \
    "the same as a share of the window's host gap per step")                                   \
  X(run_cost_ms_per_sampled_step, "run_cost_ms_per_sampled_step", Number, Any, Checked, "ms",  \
    "what sampling cost the run: the median excess of a sampled step and the step after it")   \
  X(run_cost_pct, "run_cost_pct", Number, Any, Checked, "%",                                   \
    "that cost spread over all steps: the run's estimated slowdown from sampling")

// `engine_steps`: the engine's steps, when their names cut the window (docs/engine-steps.md).
#define DP_SUMMARY_ENGINE_STEPS_FIELDS(X)                                                        \
  X(rule, "rule", String, Any, Checked, "", "the rule whose step names were read")               \
  X(engine, "engine", String, Any, Checked, "", "the engine of that rule")                       \
  X(also_found, "also_found", Strings, Any, Checked, "",                                         \
    "other rules whose names the trace holds (agreeing)")                                        \
  X(window_kind, "window_kind", String, Any, Checked, "", "the kind of the window's steps")      \
  X(window_steps, "window_steps", Integer, NonNegative, Checked, "steps", "steps in the window") \
  X(decode_runs, "decode_runs", Integer, NonNegative, Checked, "",                               \
    "runs of consecutive decode steps (the window is the longest)")                              \
  X(kinds, "kinds", Array, Any, Checked, "", "per kind of step (`engine_steps.kinds[].*`)")      \
  X(steps, "steps", Array, Any, Checked, "", "every step, by start (`engine_steps.steps[].*`)")

// `engine_steps.kinds[]`: the steps of one kind.
#define DP_SUMMARY_STEP_KIND_FIELDS(X)                                                           \
  X(kind, "kind", String, Any, Checked, "", "the kind (decode, prefill, ...)")                   \
  X(steps, "steps", Integer, NonNegative, Checked, "steps", "its steps")                         \
  X(in_window, "in_window", Integer, NonNegative, Checked, "steps", "of them in the window")     \
  X(batch_sizes, "batch_sizes", Numbers, NonNegative, Checked, "", "its batch sizes (distinct)") \
  X(tokens, "tokens", Numbers, NonNegative, Checked, "tokens",                                   \
    "its token counts (distinct, where the names write them)")                                   \
  X(dispatches, "dispatches", Integer, NonNegative, Checked, "dispatches",                       \
    "GPU work launched inside its steps")                                                        \
  X(gpu_ms_per_step, "gpu_ms_per_step", Number, NonNegative, Checked, "ms",                      \
    "GPU busy time per step (mean)")                                                             \
  X(gpu_ms_p50, "gpu_ms_p50", Number, NonNegative, Checked, "ms", "its nearest-rank p50")        \
  X(gpu_ms_p99, "gpu_ms_p99", Number, NonNegative, Checked, "ms", "its nearest-rank p99")        \
  X(wall_ms_per_step, "wall_ms_per_step", Number, NonNegative, Checked, "ms",                    \
    "the step range's wall time per step (mean)")                                                \
  X(wall_ms_p50, "wall_ms_p50", Number, NonNegative, Checked, "ms", "its nearest-rank p50")      \
  X(wall_ms_p99, "wall_ms_p99", Number, NonNegative, Checked, "ms", "its nearest-rank p99")

// `engine_steps.steps[]`: one engine step.
#define DP_SUMMARY_ENGINE_STEP_FIELDS(X)                                                      \
  X(kind, "kind", String, Any, Checked, "", "its kind")                                       \
  X(batch, "batch", Integer, NonNegative, Checked, "", "its batch size (when the name says)") \
  X(tokens, "tokens", Integer, NonNegative, Checked, "tokens",                                \
    "its token count (when the name says)")                                                   \
  X(start_ns, "start_ns", Integer, Any, Checked, "ns", "the step range's host start")         \
  X(wall_ms, "wall_ms", Number, NonNegative, Checked, "ms", "the step range's wall time")     \
  X(gpu_ms, "gpu_ms", Number, NonNegative, Checked, "ms",                                     \
    "the union of its dispatches' intervals")                                                 \
  X(dispatches, "dispatches", Integer, NonNegative, Checked, "dispatches",                    \
    "GPU work launched inside the range (by correlation id)")                                 \
  X(in_window, "in_window", Bool, Any, Checked, "", "the step is in the decode window")

// `speed_of_light`: the batch-1 decode's floor (bytes a token must move ÷ the GPU's peak
// memory bandwidth) against its measured wall (docs/speed-of-light.md; speed_of_light_section.h
// reads it into a struct).
#define DP_SUMMARY_SOL_FIELDS(X)                                                                   \
  X(model, "model", String, Any, Checked, "", "the model")                                         \
  X(model_source, "model_source", String, Any, Checked, "",                                        \
    "the config.json or GGUF it was read from")                                                    \
  X(architecture, "architecture", String, Any, Checked, "", "its architecture")                    \
  X(weight_format, "weight_format", String, Any, Checked, "", "its weights' format")               \
  X(context_tokens, "context_tokens", Number, NonNegative, Checked, "tokens",                      \
    "mean context (prompt + position) over the steps")                                             \
  X(context_source, "context_source", String, Any, Checked, "", "where the context came from")     \
  X(weight_bytes, "weight_bytes", Number, Bytes, Checked, "bytes", "weight bytes read per token")  \
  X(kv_bytes_per_token, "kv_bytes_per_token", Number, Bytes, Checked, "bytes",                     \
    "KV cache read per token at context_tokens")                                                   \
  X(state_bytes_per_token, "state_bytes_per_token", Number, Bytes, Checked, "bytes",               \
    "recurrent state read and written per token")                                                  \
  X(bytes_per_token, "bytes_per_token", Number, Bytes, Checked, "bytes",                           \
    "the bytes a token must move")                                                                 \
  X(peak_bandwidth_gbps, "peak_bandwidth_gbps", Number, PeakBandwidth, Checked, "GB/s",            \
    "the GPU's peak memory bandwidth (10^9 bytes per second)")                                     \
  X(peak_source, "peak_source", String, Any, Checked, "", "\"measured\", \"table\" or \"option\"") \
  X(peak_detail, "peak_detail", String, Any, Checked, "", "where the peak came from, in words")    \
  X(decode_steps, "decode_steps", Number, NonNegative, Checked, "steps",                           \
    "the decode steps the window holds")                                                           \
  X(floor_ms_per_token, "floor_ms_per_token", Number, NonNegative, Checked, "ms/token",            \
    "bytes_per_token ÷ peak")                                                                      \
  X(wall_ms_per_token, "wall_ms_per_token", Number, NonNegative, Checked, "ms/token",              \
    "the measured decode wall per token")                                                          \
  X(achieved_gbps, "achieved_gbps", Number, Bandwidth, Checked, "GB/s", "bytes_per_token ÷ wall")  \
  X(mbu_pct, "mbu_pct", Number, Mbu, Checked, "%", "memory bandwidth utilization: floor ÷ wall")   \
  X(to_the_floor, "to_the_floor", Number, Ceiling, Checked, "×", "wall ÷ floor")                   \
  X(decomposition_ms_per_token, "decomposition_ms_per_token", Object, Any, Checked, "ms/token",    \
    "where the wall goes (`speed_of_light.decomposition_ms_per_token.*`)")                         \
  X(classes, "classes", ObjectMap, Any, Checked, "",                                               \
    "the kernel classes that move bytes (`speed_of_light.classes.<class>.*`)")                     \
  X(units, "units", ObjectMap, Any, Checked, "", "the work units (`speed_of_light.units.<id>.*`)") \
  X(notes, "notes", Strings, Any, Checked, "", "notes on the figures")

// `speed_of_light.decomposition_ms_per_token`: floor + Σ units + other_kernels + overlap +
// host_gap = wall, within 1 % of wall + 0.01 ms.
#define DP_SUMMARY_SOL_DECOMPOSITION_FIELDS(X)                                                   \
  X(floor, "floor", Number, NonNegative, Checked, "ms/token", "the floor")                       \
  X(units, "units", Map, Any, Checked, "ms/token", "each unit's time above its floor")           \
  X(other_kernels, "other_kernels", Number, Any, Checked, "ms/token", "the other kernels' time") \
  X(overlap, "overlap", Number, Any, Checked, "ms/token", "kernels that ran at once (negative)") \
  X(host_gap, "host_gap", Number, Any, Checked, "ms/token", "the host gap")                      \
  X(wall, "wall", Number, NonNegative, Checked, "ms/token", "the decode wall")

// `speed_of_light.classes.<class>`: a kernel class that moves bytes. A class may move its
// share of the bytes above the peak (the ledger gives a kind's bytes to the classes that move
// it in proportion to their time, and notes it): its bandwidth is not bounded by the peak.
#define DP_SUMMARY_SOL_CLASS_FIELDS(X)                                                          \
  X(moves, "moves", Strings, Any, Checked, "",                                                  \
    "the byte kinds it moves: dense_weights, kv_cache, ...")                                    \
  X(bytes_per_token, "bytes_per_token", Number, Bytes, Checked, "bytes", "its bytes per token") \
  X(ms_per_token, "ms_per_token", Number, NonNegative, Checked, "ms/token",                     \
    "its GPU time per token")                                                                   \
  X(floor_ms_per_token, "floor_ms_per_token", Number, NonNegative, Checked, "ms/token",         \
    "bytes_per_token ÷ peak")                                                                   \
  X(achieved_gbps, "achieved_gbps", Number, NonNegative, Checked, "GB/s",                       \
    "bytes_per_token ÷ ms_per_token")                                                           \
  X(pct_of_peak, "pct_of_peak", Number, NonNegative, Checked, "%",                              \
    "achieved_gbps ÷ peak (may exceed 100)")

// `speed_of_light.units.<id>`: a work unit (the ids of `port_units`).
#define DP_SUMMARY_SOL_UNIT_FIELDS(X)                                                           \
  X(bytes_per_token, "bytes_per_token", Number, Bytes, Checked, "bytes", "its bytes per token") \
  X(ms_per_token, "ms_per_token", Number, NonNegative, Checked, "ms/token",                     \
    "its GPU time per token")                                                                   \
  X(floor_ms_per_token, "floor_ms_per_token", Number, NonNegative, Checked, "ms/token",         \
    "bytes_per_token ÷ peak")                                                                   \
  X(excess_ms_per_token, "excess_ms_per_token", Number, Any, Checked, "ms/token",               \
    "ms_per_token − floor_ms_per_token")                                                        \
  X(ceiling_to_floor, "ceiling_to_floor", Number, Ceiling, Checked, "×",                        \
    "the speedup bound of bringing it to its floor: wall ÷ (wall − excess)")

#define DP_SUMMARY_FIELD_VALUE(ident, key, type, range, check, unit, meaning)                  \
  SummaryField{                                                                                \
      key,    SummaryFieldType::k##type, SummaryRange::k##range, SummaryCheck::k##check, unit, \
      meaning},
#define DP_SUMMARY_FIELD_INDEX(ident, ...) ident##_index,
#define DP_SUMMARY_FIELD_REFERENCE(ident, ...) \
  inline constexpr const SummaryField& ident = kFields[ident##_index];

// summary_schema::<section>::kFields: the section's fields in the order summarize writes
// them; <section>::<ident>: the field, an element of kFields (so a field has one address,
// whether reached by name or through the list).
#define DP_SUMMARY_SECTION(section, LIST)                                   \
  namespace section {                                                       \
  inline constexpr SummaryField kFields[] = {LIST(DP_SUMMARY_FIELD_VALUE)}; \
  enum FieldIndex : size_t { LIST(DP_SUMMARY_FIELD_INDEX) };                \
  LIST(DP_SUMMARY_FIELD_REFERENCE)                                          \
  }

namespace summary_schema {
DP_SUMMARY_SECTION(run, DP_SUMMARY_RUN_FIELDS)
DP_SUMMARY_SECTION(checks, DP_SUMMARY_CHECK_FIELDS)
DP_SUMMARY_SECTION(top_kernel, DP_SUMMARY_TOP_KERNEL_FIELDS)
DP_SUMMARY_SECTION(unit, DP_SUMMARY_UNIT_FIELDS)
DP_SUMMARY_SECTION(diagnostic, DP_SUMMARY_DIAGNOSTIC_FIELDS)
DP_SUMMARY_SECTION(diagnostic_first, DP_SUMMARY_DIAGNOSTIC_FIRST_FIELDS)
DP_SUMMARY_SECTION(ranked_unit, DP_SUMMARY_RANKED_UNIT_FIELDS)
DP_SUMMARY_SECTION(rank, DP_SUMMARY_RANK_FIELDS)
DP_SUMMARY_SECTION(collectives, DP_SUMMARY_COLLECTIVE_FIELDS)
DP_SUMMARY_SECTION(plain_runs, DP_SUMMARY_PLAIN_RUNS_FIELDS)
DP_SUMMARY_SECTION(window_evidence, DP_SUMMARY_WINDOW_EVIDENCE_FIELDS)
DP_SUMMARY_SECTION(sampling, DP_SUMMARY_SAMPLING_FIELDS)
DP_SUMMARY_SECTION(engine_steps, DP_SUMMARY_ENGINE_STEPS_FIELDS)
DP_SUMMARY_SECTION(step_kind, DP_SUMMARY_STEP_KIND_FIELDS)
DP_SUMMARY_SECTION(engine_step, DP_SUMMARY_ENGINE_STEP_FIELDS)
DP_SUMMARY_SECTION(sol, DP_SUMMARY_SOL_FIELDS)
DP_SUMMARY_SECTION(sol_decomposition, DP_SUMMARY_SOL_DECOMPOSITION_FIELDS)
DP_SUMMARY_SECTION(sol_class, DP_SUMMARY_SOL_CLASS_FIELDS)
DP_SUMMARY_SECTION(sol_unit, DP_SUMMARY_SOL_UNIT_FIELDS)
}  // namespace summary_schema

#undef DP_SUMMARY_SECTION
#undef DP_SUMMARY_FIELD_VALUE
#undef DP_SUMMARY_FIELD_INDEX
#undef DP_SUMMARY_FIELD_REFERENCE

// One section of the schema: where its fields lie ("port_units.<id>.", as the docs table
// names them), its fields, and the field whose value holds it (an Object, an Array of its
// objects or an ObjectMap of them; nullptr for the top level).
struct SummarySection {
  std::string_view path;
  std::span<const SummaryField> fields;
  const SummaryField* holder;
};

// Every section, the top level first, in the order the docs table lists them.
std::span<const SummarySection> SummarySections();

// The section `field` holds; nullptr when it holds none (a scalar, a Map, Strings, Numbers,
// or an object whose fields the schema does not list).
const SummarySection* SectionHeldBy(const SummaryField& field);

// The slack a range allows for rounding (the summary's figures are rounded).
inline constexpr double kSummaryRoundingSlack = 0.01;

// The rule a number of `range` breaks: "" when `x` lies in it (with the slack for rounding),
// else the sentence the validators write after "<field> is <x>: ", e.g. "a percentage is
// from 0 to 100".
std::string_view SummaryRangeViolation(SummaryRange range, double x);

// The schema's name of a type as the docs table and the validator's messages write it
// ("number", "integer", "string", "boolean", "object", "array of objects", ...).
std::string_view SummaryTypeName(SummaryFieldType type);

// The key as the JSON writer takes it.
inline std::string Key(const SummaryField& field) { return std::string(field.key); }

// The docs table of the summary's fields (docs/user-guide.md, section 3 "Outputs", between
// the markers `<!-- summary-fields:begin -->` and `<!-- summary-fields:end -->`): one row per
// field, `| field | type | unit | meaning |`, every line ending in "\n".
std::string SummaryFieldTableMarkdown();

}  // namespace decodeprof::report
