// The Summary of one decode run: every figure of the seed's `<name>_summary.json` and
// `<name>_decode_kernels.csv` (seed spec 2.4–2.10, 2.14), already rounded the seed's way.
// Writers in src/report only format it; nothing here knows about output formats.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/ceilings.h"
#include "src/analysis/engine_steps.h"
#include "src/analysis/pack.h"
#include "src/analysis/ranking.h"
#include "src/analysis/speed_of_light_types.h"
#include "src/analysis/units.h"
#include "src/analysis/window.h"
#include "src/base/status.h"
#include "src/trace/diagnostics.h"
#include "src/trace/phase_marks.h"
#include "src/trace/string_pool.h"

namespace decodeprof::analysis {

// (key, value) rows in output order; a null value prints as JSON null.
using NamedValues = std::vector<std::pair<std::string, std::optional<double>>>;

struct KernelStat {
  std::string name;
  std::string class_name;
  std::vector<std::string> roles;     // sorted role names seen for this kernel (no "none")
  std::vector<std::string> unit_ids;  // sorted ids of units whose fallback set holds a role
  int64_t calls = 0;
  int64_t total_ns = 0;
  std::optional<double> calls_per_token;  // round(calls / tokens, 2); null without tokens
  int64_t avg_ns = 0;                     // round(total_ns / calls), half to even
  std::optional<double> share_exact;      // 100 · total / gpu_sum, unrounded
  std::optional<double> share_pct;        // rounded to 2 decimals
};

struct UnitSummary {
  std::string id;
  std::string port;
  std::optional<double> fallback_share_pct;
  std::optional<double> fallback_dispatches_per_token;
  std::optional<double> reached_default_share_pct;
  std::optional<double> reached_default_dispatches_per_token;
  std::optional<double> reached_optin_share_pct;
  WallFields fallback;
  WallFields reached_default;
  WallFields reached_optin;  // decodeprof's addition, written after `note`
  std::string note;
  // decodeprof's additions for units that opt in (written only when set, so the seed's
  // units keep their entries): the names of the unit's classes, and "all" when the unit
  // owns the window's whole host gap ("" = the gaps of its own dispatches).
  std::vector<std::string> classes;
  std::string host_gap;
};

// How the decode window was found and what supports it (issue 12). Fields a source does not
// give are absent.
struct WindowEvidence {
  trace::TimestampNs start_ns = 0;  // the window on the trace's clock
  trace::TimestampNs end_ns = 0;
  std::optional<int64_t> steps;                // decode steps found (or counted from ranges)
  std::optional<int64_t> dispatches_per_step;  // finder: in the first step
  std::optional<int64_t> kernels_per_step;
  std::optional<int64_t> graph_launches_per_step;
  std::optional<int64_t> deviated_steps;     // steps unlike the one before (or the median)
  std::optional<int64_t> skipped_steps;      // step ranges: prefill-like ones left out
  std::optional<int64_t> runs;               // finder: runs of the unit (warm-up decodes, ...)
  std::optional<int64_t> dispatches_before;  // dispatches that started before the window
  std::string anchor;                        // finder: what each step starts with
  std::string range;                         // ranges: the decode or step range pattern
  // Ranges: how they were projected onto the GPU — "launch" (the window holds the GPU work
  // launched inside the ranges, by correlation id, whenever it ran) or "time" (a trace
  // without launch calls: the dispatches that start inside the ranges' host time).
  std::string projection;
  std::optional<int64_t> dispatches_launched_inside;   // "launch": launched inside the ranges
  std::optional<int64_t> dispatches_launched_outside;  // in the window's time, left out
  std::optional<int64_t> gpu_after_range_ns;           // how long the GPU ran past the ranges' end
  // Finder: which of the runs is the window (1-based, in time order), what ends a token, and
  // how sure the finder is ("high", or "low" with its reasons).
  std::optional<int64_t> run;
  std::string boundary;
  std::string confidence;
  std::vector<std::string> reasons;
};

// The plain runs behind the plain figures (summarize --plain-log, repeated): the figures are
// the median run's (by decode tok/s; the lower middle one of an even count).
struct PlainRuns {
  int64_t count = 0;
  std::vector<std::optional<double>> decode_tok_s;  // per run, in the order given
  int64_t used = 0;                                 // 0-based index of the median run
  std::optional<double> spread_pct;  // (fastest − slowest) / median × 100, 2 places
};

// A sampled recording (`decodeprof record --sample-steps N`): kernel-level records for some
// steps only. The summary's window is the k sampled steps laid end to end. Its per-token
// figures are the sampled steps' mean scaled to the decode, divided as a full recording's
// are: the S steps of the decode stand for its generated tokens T (S + 1 when neither
// --generated-tokens nor the log gives them: the first token comes from the prefill), so the
// window stands for k · T / S tokens (Summary::window_tokens), and a per-token figure is the
// window's total × S / (k · T). The step times (of the step ranges, which every step keeps)
// measure what recording the sampled steps cost them.
struct Sampling {
  int64_t steps_seen = 0;                   // step ranges in the decode window
  int64_t steps_sampled = 0;                // of them, recorded kernel by kernel
  std::optional<double> sampled_step_ms;    // mean step-range time of the sampled steps
  std::optional<double> unsampled_step_ms;  // and of the others
  std::optional<double> distortion_pct;     // sampled / unsampled − 1, in %
  // What tracing cost a sampled step, measured in the run itself: sampled − unsampled step
  // time; per dispatch of a sampled step; and as a share of the window's host gap per step
  // (the part of the measured host gap that the tracing added).
  std::optional<double> tracing_cost_ms_per_step;
  std::optional<double> tracing_cost_us_per_dispatch;
  std::optional<double> tracing_share_of_host_gap_pct;
  // What sampling cost the run, in the run itself: the median excess of a sampled step and
  // the step after it (start to start; switching recording off, its flush, and what the first
  // unrecorded step pays) over the median start-to-start time of the other steps; and that
  // cost spread over all steps, as an estimate of the run's slowdown from sampling (not
  // counting what being attached costs every step, which no step of the run is without).
  std::optional<double> run_cost_ms_per_sampled_step;
  std::optional<double> run_cost_pct;
};

// The run's place in a multi-process job (trace::RankInfo; docs/multi-gpu.md).
struct RankFields {
  int32_t rank = 0;
  std::optional<int32_t> world_size;
  std::optional<int32_t> local_rank;
  std::string run_id;                // the recorder's run_id ("" when the trace has none)
  std::optional<std::string> group;  // `summarize --ranks`: the --name of the set of ranks
};

// The collective kernels of one rank of a `summarize --ranks` set (analysis/ranks.h), per
// generated token like the other *_ms_per_token figures (4 decimals; null without tokens).
struct CollectiveFields {
  int64_t count = 0;
  std::optional<double> total_ms_per_token;
  std::optional<double> wait_ms_per_token;      // null when the ranks' counts differ
  std::optional<double> transfer_ms_per_token;  // total − wait; null as wait
  std::optional<double> pct_of_wall;            // 100 · total / decode wall, 2 decimals
  std::optional<int32_t> slowest_rank;          // null as wait, or without collectives
  bool matched = true;                          // every rank had as many collectives
};

struct Summary {
  std::string name;
  std::optional<std::string> model_type;
  double temperature = 0.0;
  trace::ClockDomain clock = trace::ClockDomain::kBoottime;
  std::optional<int64_t> prompt_tokens;
  std::optional<int64_t> generated_tokens;
  std::optional<double> profiled_decode_tok_s;
  std::optional<double> profiled_prefill_tok_s;
  std::optional<double> plain_decode_tok_s;
  std::optional<double> plain_prefill_tok_s;
  std::optional<double> profiler_decode_slowdown_pct;
  int64_t decode_dispatches = 0;
  std::optional<double> dispatches_per_token;
  double decode_wall_ms = 0;
  double decode_gpu_sum_ms = 0;
  double decode_gpu_busy_ms = 0;
  std::optional<double> gpu_ms_per_token;
  std::optional<double> host_gap_ms_per_token;
  std::optional<double> host_gap_pct_of_wall;
  std::optional<double> plain_wall_ms_per_token;
  std::optional<double> plain_host_gap_ms_per_token_est;

  // checks
  int64_t kernels_straddling_decode_start = 0;
  int64_t host_gap_attribution_residual_ns = 0;
  std::optional<double> idle_gap_before_first_decode_dispatch_us;
  std::optional<std::string> last_dispatch_before_decode;  // truncated to 120 characters

  std::vector<KernelStat> kernels;         // by total ns, descending, stable (first appearance)
  NamedValues class_share_pct;             // sorted by raw ns, descending, stable
  NamedValues role_share_pct;              // sorted by raw ns, descending, stable
  NamedValues role_dispatches_per_token;   // insertion order
  NamedValues role_host_gap_ms_per_token;  // sorted by raw ns, descending, stable
  std::vector<UnitSummary> units;

  // decodeprof's additions (written after the seed's fields).
  std::string pack;
  std::string units_file;
  std::optional<int64_t> decode_forward_passes;  // generated tokens − 1 (seed spec 2.4)
  // The tokens the window stands for, when they are not generated_tokens (a sampled
  // recording: k of S steps of a decode of T tokens stand for k · T / S, 6 decimals; see
  // Sampling). Written only when set, so other summaries keep their bytes.
  std::optional<double> window_tokens;
  // Each a message of src/trace/diagnostics_list.h; the JSON writes their texts.
  std::vector<trace::DiagMessage> warnings;
  // The importer that read the trace ("native", "nsys-sqlite", ...), the device summarized
  // (the trace's only one, or --device's; null for a trace without dispatches' devices), and
  // everything odd the import and analysis saw (trace/diagnostics.h), non-zero entries only.
  std::string trace_format;
  // The trace's file name (no directory): a second summarize onto this summary's name from
  // another trace is refused (pipeline/summarize_run.h). Written only when set.
  std::string trace_file;
  std::optional<int32_t> device;
  std::vector<trace::DiagnosticEntry> diagnostics;
  // How the window was found: "log", "marks" (decodeprof:* ranges), "ranges" (--decode-range /
  // --step-range), "engine-steps" (the engine's own step names), "graph-launches" or "periodic"
  // (found without marks), "all" or "explicit"
  // (--window).
  std::string window_source;
  // "synthetic" when `summarize --synthetic` says the traced program is a synthetic workload
  // (a test program, random weights); written only when set.
  std::optional<std::string> workload;
  std::optional<WindowEvidence> window_evidence;
  std::optional<PlainRuns> plain_runs;
  std::optional<Sampling> sampling;
  // The engine's own steps, per kind, when its step names cut the window (window_source
  // "engine-steps"); written after `sampling`, only when set.
  std::optional<EngineSteps> engine_steps;
  std::vector<RankedUnit> ranked_units;  // `units` in rank order (ranking.h)
  // Written after every other field, and only when set: a trace with a rank (native meta
  // rank), and `summarize --ranks`.
  std::optional<RankFields> rank;
  std::optional<CollectiveFields> collectives;
  // The speed-of-light ledger (speed_of_light.h): when the model's bytes (--model-dir) and a
  // peak bandwidth are known. Written last, only when set.
  std::optional<SpeedOfLight> speed_of_light;
};

// The tokens a summary's window totals (decode_wall_ms, decode_gpu_sum_ms, a kernel's time)
// stand for, the divisor of a per-token figure derived from them: window_tokens when set,
// else generated_tokens; nullopt without either. (report::WindowTokens reads a summary file
// by the same rule.)
std::optional<double> WindowTokens(const Summary& s);

// What a summary says of its run besides the figures, found before the analysis and carried
// into the summary as given (Summary has the meaning of each).
struct RunFacts {
  std::string trace_format;
  std::string trace_file;
  std::optional<int32_t> device;
  std::string window_source;
  std::optional<WindowEvidence> window_evidence;
  std::optional<EngineSteps> engine_steps;
  std::optional<std::string> workload;
  std::optional<PlainRuns> plain_runs;
  std::optional<RankFields> rank;
  std::optional<SpeedOfLight> speed_of_light;
  std::vector<trace::DiagMessage> warnings;  // after the pack's role warnings
};

// Per-dispatch attribution of the window, for the dispatch CSV.
struct Attribution {
  std::vector<ClassId> classes;              // one per window dispatch
  std::vector<RoleId> roles;                 // one per window dispatch (kNoRole = none)
  std::vector<trace::DiagMessage> warnings;  // the pack's RoleWarnings for this sequence
  // The distinct kernel names of the window (0: not counted): the sums by kernel name cut the
  // window into fewer parts where they are many (base::MinPartForNames).
  size_t kernel_names = 0;
};

struct SummaryInputs {
  std::string name;
  double temperature = 0.0;
  const DecodeWindow* window = nullptr;
  const trace::StringPool* names = nullptr;
  bool has_grid = true;
  // The decode's steps replay CUDA or HIP graphs (most window dispatches were launched by a
  // graph launch call): units with `unless = "graph_replay"` are not ranked.
  bool graph_replay = false;
  const Pack* pack = nullptr;
  const UnitTable* units = nullptr;
  std::string pack_name;
  std::string units_name;
  trace::BenchResults profiled;
  // The tokens the window stands for, the divisor of every per-token figure; absent: the
  // window is the whole decode and stands for profiled.generated_tokens. A sampled recording
  // sets it (Sampling) and keeps profiled.generated_tokens the decode's real count.
  std::optional<double> window_tokens;
  std::optional<trace::BenchResults> plain;
  std::optional<ModelConfig> model;  // absent when there is no config.json
  bool model_type_present = false;   // config.json had a model_type
  // Optional launch context for op_path rules (SequenceView): per window dispatch (same
  // length as window->dispatches) or empty; the trace's ranges, or null.
  std::span<const uint64_t> launch_thread;
  std::span<const trace::TimestampNs> launch_time;
  const RangeIndex* ranges = nullptr;
  // The slowest and the fastest plain run by decode tok/s, when two or more have a rate: each
  // plain ceiling's value_range spans the figures over them (RankedUnit::value_range).
  std::vector<trace::BenchResults> plain_extremes;
  // A sampled recording (Sampling); its tracing_cost_* figures are computed from the window.
  std::optional<Sampling> sampling;
  RunFacts facts;
};

// Classifies and attributes the window's dispatches.
Attribution Attribute(const SummaryInputs& in);

// Computes every figure. Errors only on internal inconsistencies.
base::StatusOr<Summary> BuildSummary(const SummaryInputs& in, const Attribution& attribution);

}  // namespace decodeprof::analysis
