// Pieces shared by the Markdown writers of `decodeprof report` (the seed's four sections in
// markdown_report.h, the sections `--full` adds in full_report.h): reading a value the way
// the seed's Python reads a summary, and writing table rows. The plain field readers
// (JsonGet, OptionalNumber, PortUnits, RankedUnits) are summary_reader.h's. Summaries come
// checked from ParseSummary (summary_validation.h): nothing here fails on a field's type.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/report/summary_reader.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {

// How everything decodeprof adds to the report (the Do-first section, the sections of --full,
// the HTML page) spells "no value": a field absent or null, a figure that cannot be computed.
// The seed's four sections keep the seed's `None` and `-` (seed spec 2.11).
inline constexpr std::string_view kNoValue = "n/a";

// Python truthiness of a JSON value: false, 0, 0.0, "", [], {} and null are false.
bool IsTruthy(const nlohmann::ordered_json& value);

// A table cell holding text from a summary: `|` escaped as `\|`, line breaks as spaces.
std::string EscapeCell(std::string_view text);

// "| a | b |": every cell between single spaces and bars, cells written as given.
std::string MarkdownRow(const std::vector<std::string>& cells);

// "|---|" followed by `right_aligned_columns` times "---:|" (the first column left-aligned).
std::string MarkdownAlignmentRow(size_t right_aligned_columns);

// "`<label>`": the run's label in backticks (run_set.h: its `name` field as Python's str()
// prints it, or that with the directory suffix that tells same-named runs apart).
std::string RunLabel(const SummaryFile& summary);

// The unit ids of the report's unit columns: the first summary's `port_units` in their order,
// then ids that only later summaries have, in order of first appearance (the seed's fixed
// #2063..#2068 columns whenever every summary holds the same units). A column layout shared
// by every run, not a ranking: a run's units in rank order are RankedUnits (summary_reader.h).
std::vector<std::string> UnitColumns(const std::vector<SummaryFile>& summaries);

// numerator / divisor; nullopt when either is missing or the divisor is 0.
std::optional<double> Quotient(std::optional<double> numerator, std::optional<double> divisor);

// A value the report computes, rounded to 4 decimals as Python's repr; kNoValue when there is
// none.
std::string DerivedText(std::optional<double> value);

// Decode ms per token of the plain run: plain_wall_ms_per_token as stored, else
// 1000 / plain_decode_tok_s; kNoValue without a plain run.
std::string PlainMsPerToken(const SummaryFile& summary);

// Decode ms per token of the profiled run: decode_wall_ms / generated_tokens (window_tokens
// for a sampled recording: WindowTokens; = GPU busy + host gap per token), else
// 1000 / profiled_decode_tok_s.
std::string ProfiledMsPerToken(const SummaryFile& summary);

// One entry of a summary's `top_kernels`: an object with a string `kernel`.
struct TopKernelEntry {
  TopKernelView fields;     // the entry (points into the summary)
  const std::string* name;  // its `kernel`
};

// The entries of `top_kernels` in order; none when it is absent or null.
std::vector<TopKernelEntry> TopKernelEntries(const SummaryFile& summary);

}  // namespace decodeprof::report
