// The one check of a summary's fields (issue 11, "One reader of summaries"): ParseSummary
// runs it on every summary it returns, so `report` (Markdown, --full, html, json) and `diff`
// (as BEFORE and as AFTER) accept and reject the same files, with the same message. The
// writers then read the fields without checking them again (summary_reader.h's accessors).
#pragma once

#include "src/base/status.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {

// Checks a summary against its schema (summary_schema.h, the one declaration of the fields):
//   * `name`: required, a string (without it the file is "not a decodeprof summary").
//   * Every other field may be absent or null, as in summaries of older versions, which the
//     writers print as None / "-"; a present non-null value of a field the schema marks
//     Checked must have the schema's type (a Number any JSON number, an Integer a JSON
//     integer, not 12.0) and range. Sections: `checks` an object, `top_kernels` an array of
//     objects each with a string `kernel`, `class_share_pct` and `role_share_pct` objects of
//     percentages, `port_units` an object of objects (no null entries), `warnings` an array of
//     strings, `diagnostics` an array of objects (`first` an object), `ranked_units` an array
//     of objects each with a string `id` naming a unit of `port_units` (each unit once, every
//     unit listed) and `by` "plain_ceiling_wall_est" or "ceiling_wall", `rank` an object with
//     an integer `rank` >= 0, `collectives` an object; `speed_of_light` an object checked by
//     ReadSpeedOfLight (speed_of_light_section.h): types, ranges (bytes 0..1e15, peak 1..1e5
//     GB/s, mbu_pct and pct_of_peak 0..100, to_the_floor and ceiling_to_floor >= 1) and the
//     decomposition adding up to wall within 1 % + 0.01 ms.
//   * Numbers must be finite. (nlohmann already refuses to parse 1e309, see ParseSummary; the
//     check covers summaries built in code.)
//   * Ranges (SummaryRange): counts, times, rates and the ranked values from 0 to 1e12;
//     percentages from 0 to 100; ceiling_gpu_share and ceiling_wall at least 1 (0.01 of
//     slack for rounding). decode_gpu_busy_ms is at most decode_wall_ms and
//     decode_gpu_sum_ms.
// Fields the schema marks Free, and fields it does not list, are not looked at:
// `report --format json` copies them as they are.
// Errors (kData, where = summary.path): the first broken rule — `name`, then the top-level
// scalar fields in the schema's order (the order summarize writes them), then checks,
// top_kernels, class_share_pct, role_share_pct, port_units, warnings, diagnostics,
// ranked_units, rank, collectives, speed_of_light — e.g.
// "`port_units`.`2063`.`ceiling_wall` is neither a number nor null", "`generated_tokens` is
// neither an integer nor null", "`top_kernels`[0] has no string `kernel`"; a missing `name`:
// "not a decodeprof summary: no `name` field" with a hint.
base::Status ValidateSummary(const SummaryFile& summary);

}  // namespace decodeprof::report
