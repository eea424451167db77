// The one check of a summary's fields (issue 11, "One reader of summaries"): ParseSummary
// runs it on every summary it returns, so `report` (Markdown, --full, html, json) and `diff`
// (as BEFORE and as AFTER) accept and reject the same files, with the same message. The
// writers then read the fields without checking them again (summary_reader.h's accessors).
#pragma once

#include "src/base/status.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {

// Checks every field that a writer of `report` or `diff` reads, plus summarize's newer
// fields, against the types summarize writes:
//   * `name`: required, a string (without it the file is "not a decodeprof summary").
//   * Every other field may be absent or null, as in summaries of older versions, which the
//     writers print as None / "-"; a present non-null value must have its type:
//     numbers       temperature, profiled_decode_tok_s, plain_decode_tok_s,
//                   profiler_decode_slowdown_pct, dispatches_per_token, decode_wall_ms,
//                   decode_gpu_sum_ms, gpu_ms_per_token, host_gap_ms_per_token,
//                   host_gap_pct_of_wall, plain_wall_ms_per_token,
//                   plain_host_gap_ms_per_token_est, window_tokens;
//     integers      prompt_tokens, generated_tokens, decode_dispatches, decode_forward_passes,
//                   device (counts: a JSON integer, not 12.0);
//     strings       model_type, clock, pack, units_file, trace_format;
//     `checks`      an object: kernels_straddling_decode_start an integer,
//                   host_gap_attribution_residual_ns and
//                   idle_gap_before_first_decode_dispatch_us numbers;
//     `top_kernels` an array of objects, each with a string `kernel` (required), `class` a
//                   string, calls_per_token and share_pct numbers;
//     `class_share_pct`, `role_share_pct`  objects whose values are numbers or null;
//     `port_units`  an object of objects (no null entries): `port` and `host_gap` strings;
//                   fallback_share_pct, fallback_dispatches_per_token,
//                   fallback_host_gap_ms_per_token, fallback_host_gap_us_per_dispatch,
//                   fallback_wall_share_pct, reached_default_share_pct,
//                   reached_default_dispatches_per_token,
//                   reached_default_host_gap_ms_per_token, reached_optin_share_pct,
//                   ceiling_gpu_share, ceiling_wall, plain_ceiling_wall_est numbers;
//     `warnings`    an array of strings;
//     `diagnostics` an array of objects: code, severity, meaning strings, count an integer,
//                   `first` an object of the strings file, position, detail;
//     `ranked_units` an array of objects, each with a string `id` naming a unit of
//                   `port_units` (each unit once, every unit listed), `by`
//                   "plain_ceiling_wall_est" or "ceiling_wall", `value` a number (or null);
//     `rank`        an object: `rank` an integer >= 0 (required), world_size and local_rank
//                   integers, run_id and group strings;
//     `collectives` an object: count and slowest_rank integers, total_ms_per_token,
//                   wait_ms_per_token, transfer_ms_per_token and pct_of_wall numbers,
//                   `matched` a boolean;
//     `speed_of_light` an object checked by ReadSpeedOfLight (speed_of_light_section.h):
//                   types, ranges (bytes 0..1e15, peak 1..1e5 GB/s, mbu_pct and pct_of_peak
//                   0..100, to_the_floor and ceiling_to_floor >= 1) and the decomposition
//                   adding up to wall within 1 % + 0.01 ms.
//   * Numbers must be finite. (nlohmann already refuses to parse 1e309, see ParseSummary; the
//     check covers summaries built in code.)
//   * Numbers must be possible: counts, times, rates and the ranked values from 0 to 1e12;
//     percentages (host_gap_pct_of_wall, share_pct, the share maps, the units' *_share_pct,
//     pct_of_wall) from 0 to 100; ceiling_gpu_share and ceiling_wall at least 1 (0.01 of
//     slack for rounding); profiler_decode_slowdown_pct, plain_host_gap_ms_per_token_est and
//     the checks' gap figures may be negative. decode_gpu_busy_ms is at most decode_wall_ms
//     and decode_gpu_sum_ms.
// Fields not listed are not looked at: `report --format json` copies them as they are.
// Errors (kData, where = summary.path): the first broken rule — `name`, then the scalar
// fields in the order summarize writes them, then checks, top_kernels, class_share_pct,
// role_share_pct, port_units, warnings, diagnostics, ranked_units, rank, collectives,
// speed_of_light — e.g.
// "`port_units`.`2063`.`ceiling_wall` is neither a number nor null", "`generated_tokens` is
// neither an integer nor null", "`top_kernels`[0] has no string `kernel`"; a missing `name`:
// "not a decodeprof summary: no `name` field" with a hint.
base::Status ValidateSummary(const SummaryFile& summary);

}  // namespace decodeprof::report
