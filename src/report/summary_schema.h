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
//           Object, Array, Map (an object of numbers or nulls, keyed by name);
//   range   what a number may be (Any, NonNegative: 0..1e12, Percent: 0..100, Ceiling: >= 1),
//           checked with 0.01 of slack for rounding;
//   check   Checked: the validator checks its type (and range) wherever it is present and not
//           null; Free: summarize writes it, but no reader depends on it, and it is copied as
//           it is.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace decodeprof::report {

enum class SummaryFieldType { kNumber, kInteger, kString, kBool, kObject, kArray, kMap };
enum class SummaryRange { kAny, kNonNegative, kPercent, kCeiling };
enum class SummaryCheck { kChecked, kFree };

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
  X(name, "name", String, Any, Checked, "",                                                       \
    "the run's name (required: a file without it is no "                                          \
    "summary)")                                                                                   \
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
  X(port_units, "port_units", Object, Any, Checked, "",                                           \
    "the work units by id "                                                                       \
    "(`port_units.<id>.*`)")                                                                      \
  X(decode_forward_passes, "decode_forward_passes", Integer, NonNegative, Checked, "passes",      \
    "forward passes in the decode window")                                                        \
  X(window_tokens, "window_tokens", Number, NonNegative, Checked, "tokens",                       \
    "only for a sampled recording: the tokens its window stands for")                             \
  X(pack, "pack", String, Any, Checked, "", "the classification pack")                            \
  X(units_file, "units_file", String, Any, Checked, "", "the units file")                         \
  X(warnings, "warnings", Array, Any, Checked, "", "summarize's warnings, as text")               \
  X(trace_format, "trace_format", String, Any, Checked, "", "the importer that read the trace")   \
  X(trace_file, "trace_file", String, Any, Checked, "", "the trace's file name")                  \
  X(device, "device", Integer, NonNegative, Checked, "", "the device the window ran on")          \
  X(diagnostics, "diagnostics", Array, Any, Checked, "",                                          \
    "what the import and the analysis met "                                                       \
    "(`diagnostics[].*`)")                                                                        \
  X(window_source, "window_source", String, Any, Checked, "", "what cut the decode window")       \
  X(workload, "workload", String, Any, Checked, "", "only with `--synthetic`: \"synthetic\"")     \
  X(window_evidence, "window_evidence", Object, Any, Free, "",                                    \
    "how the window was found without marks (section 2)")                                         \
  X(plain_runs, "plain_runs", Object, Any, Free, "", "several plain runs (`plain_runs.*`)")       \
  X(sampling, "sampling", Object, Any, Free, "",                                                  \
    "only for a sampled recording: its cost "                                                     \
    "(docs/recording.md)")                                                                        \
  X(engine_steps, "engine_steps", Object, Any, Free, "",                                          \
    "only when the engine's step names cut "                                                      \
    "the window (docs/engine-steps.md)")                                                          \
  X(ranked_units, "ranked_units", Array, Any, Checked, "",                                        \
    "the units in the order to do them "                                                          \
    "(`ranked_units[].*`)")                                                                       \
  X(rank, "rank", Object, Any, Checked, "", "only for a rank of a multi-rank run (`rank.*`)")     \
  X(collectives, "collectives", Object, Any, Checked, "",                                         \
    "only with `summarize --ranks` "                                                              \
    "(`collectives.*`)")                                                                          \
  X(speed_of_light, "speed_of_light", Object, Any, Checked, "",                                   \
    "the decode's floor against its "                                                             \
    "wall (docs/speed-of-light.md)")

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
  X(kernel, "kernel", String, Any, Checked, "", "the kernel's name (required)")      \
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
  X(classes, "classes", Array, Any, Free, "", "only for a unit that opts in: its classes")         \
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
#define DP_SUMMARY_RANKED_UNIT_FIELDS(X)                                                 \
  X(id, "id", String, Any, Checked, "", "a unit of `port_units` (each once; required)")  \
  X(by, "by", String, Any, Checked, "",                                                  \
    "the figure it ranks by: \"plain_ceiling_wall_est\" or \"ceiling_wall\" (required)") \
  X(value, "value", Number, NonNegative, Checked, "×", "that figure's value")            \
  X(value_range, "value_range", Array, Any, Free, "×",                                   \
    "its value over the fastest and slowest plain run")

// `rank`: one rank of a multi-rank run (docs/multi-gpu.md).
#define DP_SUMMARY_RANK_FIELDS(X)                                                        \
  X(rank, "rank", Integer, NonNegative, Checked, "", "the rank (required)")              \
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
#define DP_SUMMARY_PLAIN_RUNS_FIELDS(X)                                                \
  X(count, "count", Integer, NonNegative, Free, "", "the plain runs")                  \
  X(decode_tok_s, "decode_tok_s", Array, Any, Free, "tok/s", "each one's decode rate") \
  X(used, "used", Integer, NonNegative, Free, "", "the run used: the median")          \
  X(spread_pct, "spread_pct", Number, Any, Free, "%", "(fastest − slowest) / median decode rate")

#define DP_SUMMARY_FIELD_CONSTANT(ident, key, type, range, check, unit, meaning)               \
  inline constexpr SummaryField ident{                                                         \
      key,    SummaryFieldType::k##type, SummaryRange::k##range, SummaryCheck::k##check, unit, \
      meaning};
#define DP_SUMMARY_FIELD_ENTRY(ident, ...) ident,

// summary_schema::<section>::<ident>: one SummaryField per field; <section>::kFields: the
// section's fields in the order summarize writes them.
#define DP_SUMMARY_SECTION(section, LIST)                                   \
  namespace section {                                                       \
  LIST(DP_SUMMARY_FIELD_CONSTANT)                                           \
  inline constexpr SummaryField kFields[] = {LIST(DP_SUMMARY_FIELD_ENTRY)}; \
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
}  // namespace summary_schema

#undef DP_SUMMARY_SECTION

// One section of the schema: where its fields lie ("port_units.<id>.") and its fields.
struct SummarySection {
  std::string_view path;
  std::span<const SummaryField> fields;
};

// Every section, the top level first, in the order the docs table lists them.
std::span<const SummarySection> SummarySections();

// The key as the JSON writer takes it.
inline std::string Key(const SummaryField& field) { return std::string(field.key); }

// The docs table of the summary's fields (docs/user-guide.md, section 3 "Outputs", between
// the markers `<!-- summary-fields:begin -->` and `<!-- summary-fields:end -->`): one row per
// field, `| field | type | unit | meaning |`, every line ending in "\n".
std::string SummaryFieldTableMarkdown();

}  // namespace decodeprof::report
