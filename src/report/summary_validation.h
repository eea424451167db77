// The one check of a summary's fields (issue 11, "One reader of summaries"): ParseSummary
// runs it on every summary it returns, so `report` (Markdown, --full, html, json) and `diff`
// (as BEFORE and as AFTER) accept and reject the same files, with the same message. The
// writers then read the fields without checking them again (summary_reader.h's accessors).
#pragma once

#include "src/base/status.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {

// Checks a summary against its schema (summary_schema.h, the one declaration of the fields),
// walking its sections from the top level down:
//   * `name`: required, a string (without it the file is "not a decodeprof summary").
//   * Every other field may be absent or null, as in summaries of older versions, which the
//     writers print as None / "-"; a present non-null value of a field the schema marks
//     Checked or Required must have the schema's type (a Number any JSON number, an Integer a
//     JSON integer, not 12.0; an Object an object, an Array an array of objects, an ObjectMap
//     an object of objects (no null entries), a Map an object of numbers or nulls, Strings an
//     array of strings, Numbers an array of numbers or nulls) and range; the objects a field
//     holds are checked by their section's list the same way.
//   * A Required field (`top_kernels[].kernel`, `ranked_units[].id` and `.by`, `rank.rank`):
//     an entry without it, with another type, or not an object: "`top_kernels`[0] has no
//     string `kernel`", "`rank` has no integer `rank`".
//   * Numbers must be finite. (nlohmann already refuses to parse 1e309, see ParseSummary; the
//     check covers summaries built in code.)
//   * Ranges (SummaryRange): counts, times, rates and the ranked values from 0 to 1e12;
//     percentages from 0 to 100; ceiling_gpu_share, ceiling_wall, to_the_floor and
//     ceiling_to_floor at least 1 (0.01 of slack for rounding); speed-of-light bytes 0..1e15,
//     its peak 1..1e5 GB/s, achieved_gbps 0..1e5, mbu_pct 0..100.
//   * Rules between fields: decode_gpu_busy_ms is at most decode_wall_ms and
//     decode_gpu_sum_ms; each `ranked_units` entry is an object with a string `id` naming a
//     unit of `port_units` (each unit once, every unit listed) and `by`
//     "plain_ceiling_wall_est" or "ceiling_wall"; `speed_of_light` as ReadSpeedOfLight
//     (speed_of_light_section.h) reads it, its decomposition adding up to wall within 1 % +
//     0.01 ms and `peak_source` one of its three words.
// Fields the schema marks Free, and fields it does not list, are not looked at:
// `report --format json` copies them as they are.
// Errors (kData, where = summary.path): the first broken rule — `name`, then in each object
// its Required fields, its scalar fields in the schema's order (the order summarize writes
// them), then the fields that hold objects, maps and arrays in that order (at the top level:
// the window's times between the two; checks, top_kernels, class_share_pct, role_share_pct,
// port_units, warnings, diagnostics, window_evidence, plain_runs, sampling, engine_steps,
// ranked_units, rank, collectives, speed_of_light), then speed_of_light's own rules — e.g.
// "`port_units`.`2063`.`ceiling_wall` is neither a number nor null", "`generated_tokens` is
// neither an integer nor null", "`top_kernels`[0] has no string `kernel`"; a missing `name`:
// "not a decodeprof summary: no `name` field" with a hint.
base::Status ValidateSummary(const SummaryFile& summary);

}  // namespace decodeprof::report
