// `decodeprof report --full DIR`: the seed's report (markdown_report.h) followed by the
// tables a results document needs, every figure read from the summaries as they are.
//
// Each added section is a blank line, a one-line heading, a blank line and a Markdown table;
// a section (or a run's table) without rows is left out. Runs come in the given order (the
// order of ReadSummaries) and are named "`<name>`". Cells print the stored JSON
// value as Python's str() does (PyStr, as the seed's tables), kNoValue ("n/a",
// markdown_table.h) when the field is absent or null; a derived cell is computed from stored
// values, rounded to 4 decimals (base::PyRound) and printed the same way. Text cells escape `|` as
// `\|` and turn line breaks into spaces.
//
//  1. Run setup — | Run | model | temperature | prompt tokens | generated tokens |
//     forward passes | clock | pack | units |: model_type, temperature, prompt_tokens,
//     generated_tokens, decode_forward_passes, clock, pack, units_file ("" → n/a).
//  2. Decode time per token (ms) — | Run | plain ms/token | profiled ms/token |
//     GPU busy ms/token | host gap ms/token | plain gap ms/token | dispatches/token |
//     profiler cost % |:
//       plain ms/token     plain_wall_ms_per_token; else 1000 / plain_decode_tok_s (derived)
//                          when that is a non-zero number; else n/a (no plain run);
//       profiled ms/token  decode_wall_ms / generated_tokens (window_tokens for a sampled
//                          recording: WindowTokens, summary_reader.h; derived; the per-token
//                          basis of gpu_ms_per_token and host_gap_ms_per_token, so it equals
//                          their sum up to rounding); else 1000 / profiled_decode_tok_s;
//                          else n/a;
//       GPU busy ms/token  gpu_ms_per_token (union of the decode dispatches);
//       host gap ms/token  host_gap_ms_per_token (profiled run);
//       plain gap ms/token plain_host_gap_ms_per_token_est (plain wall − traced GPU busy);
//       dispatches/token   dispatches_per_token;
//       profiler cost %    profiler_decode_slowdown_pct (positive = profiled run slower),
//                          followed by " (plain run slower)" below -kPlainSlowerNoisePct,
//                          " (plain run slower: noise)" from there to 0 and " (high)" above
//                          kProfilerCostFlagPct (do_first.h): a negative cost never prints
//                          bare.
//  3. Kernel classes (share of decode GPU time, %) — one row per class, one column per run,
//     cells from class_share_pct. Rows: by the first run's share, descending (classes the
//     first run lacks after those it has), ties and the rest by class name (bytewise).
//  4. Roles (share of decode GPU time, %) — the same table over role_share_pct.
//  5. Units — when any run has port_units (UnitColumns order):
//     a. | Unit | work item |: each unit's `port`, from the first run that has the unit;
//     b. | Run | Unit | share % | GPU ms/token | dispatches/token | host gap ms/token |
//        wall share % | plain wall ceiling | wall ceiling | GPU-share ceiling |, one row per
//        run and unit it has, from the unit's fallback set (every role or class it names):
//        fallback_share_pct; share × decode_gpu_sum_ms / 100 / generated_tokens (derived,
//        from the rounded share; window_tokens for a sampled recording);
//        fallback_dispatches_per_token;
//        fallback_host_gap_ms_per_token; fallback_wall_share_pct; plain_ceiling_wall_est;
//        ceiling_wall; ceiling_gpu_share.
//  6. Top kernels with class — per run whose top_kernels carry a `class`:
//     | # | kernel | class | share % | calls/token |, kernel = "`<ShortKernelName>`".
//  7. Checks — | Run | straddling kernels | gap residual ns | idle before decode us |
//     warnings | trust flags |: checks.kernels_straddling_decode_start,
//     checks.host_gap_attribution_residual_ns,
//     checks.idle_gap_before_first_decode_dispatch_us, warnings joined with "; " ("none" for
//     an empty list), the labels of the run's TrustFlags (do_first.h) after the trust mark,
//     joined with "; " ("none" for a clean run).
//
// The fields' types were checked by ParseSummary (summary_validation.h); the sections
// themselves cannot fail.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "src/report/do_first.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {

// The added sections alone (each starting with its blank line), lines joined with "\n"
// plus a final "\n"; "" when every section is empty.
std::string RenderFullReportSections(const std::vector<SummaryFile>& summaries);

// `report --full`: RenderMarkdownReport(summaries, do_first) followed by
// RenderFullReportSections.
std::string RenderFullMarkdownReport(const std::vector<SummaryFile>& summaries,
                                     size_t do_first = kDoFirstUnits);

}  // namespace decodeprof::report
