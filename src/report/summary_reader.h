// Reading the `<name>_summary.json` files that `summarize` writes, for the writers that
// combine runs (the Markdown report, seed spec 2.11, its --full and HTML forms,
// `report --format json` and `diff`).
//
// A summary is kept as the parsed JSON document, not as an analysis::Summary: the report
// prints Python's str() of the stored values (an integer stays "12", a float "12.0"), and it
// must accept summaries written by older versions of the seed, with fields missing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/analysis/ranking.h"
#include "src/base/json_writer.h"
#include "src/base/status.h"
#include "src/report/speed_of_light_section.h"

namespace decodeprof::report {

// One summary file: its path (as listed, `<dir>/<file>`) and its content, key order kept.
// A SummaryFile from ParseSummary (or ReadSummaryFile, ReadSummaryDir) has passed
// ValidateSummary (summary_validation.h): the writers read its fields through the typed views
// of summary_view.h (RunView(summary).gpu_ms_per_token(), from the schema in
// summary_schema.h) and the accessors below, and do not check them again. None of them
// throws; in a SummaryFile built in code that skipped the check, a field of the wrong type
// reads as missing.
struct SummaryFile {
  std::string path;
  nlohmann::ordered_json content;
  // The run's name in a report of several runs, unique among them (run_set.h:
  // AssignRunLabels; ReadSummaries sets it); "" = the `name` field.
  std::string label;
  // The `speed_of_light` object, parsed (speed_of_light_section.h); ParseSummary sets it,
  // nullopt when the summary has none (or in a SummaryFile built in code).
  std::optional<SpeedOfLightSection> speed_of_light;
};

// Deepest array/object nesting a summary may have (a summary nests 3 levels; the limit
// keeps hostile input from exhausting the stack).
inline constexpr int kMaxSummaryNesting = 64;

// Paths of every `*_summary.json` below `dir`, recursively (the seed's glob, one level, when
// `dir` has no subdirectory): names starting with `.` are skipped, files and directories
// alike; a symlink to a file counts, a symlink to a directory is not followed. Sorted
// byte-wise over the whole path, each spelled `<dir>/<path below dir>`. Errors: `dir` or a
// directory below it missing or unreadable → kIo; no match → kData
// "no *_summary.json in <dir>".
base::StatusOr<std::vector<std::string>> ListSummaryFiles(const std::string& dir);

// The summary files that `paths` name, in the order given: a regular file (or a symlink to
// one) as it is, whatever its name; a directory as ListSummaryFiles lists it. A file reached
// twice (named twice, or named and below a directory named too; the same device and inode)
// is kept once, where it first came. Errors: a path that does not exist or cannot be read
// → kIo ("<path>: no such file or directory"); one that is neither a regular file nor a
// directory (a FIFO, a device, a socket) → kUsage; ListSummaryFiles's errors; no path → kUsage.
base::StatusOr<std::vector<std::string>> ResolveSummaryPaths(const std::vector<std::string>& paths);

// Parses one summary (`text` is the file's content, `path` names it in errors) and checks it
// with ValidateSummary, so every command that reads summaries accepts the same files. Errors
// (kData): invalid JSON (where = "<path>:<line>", the message gives the byte offset and
// nlohmann's description), nesting deeper than kMaxSummaryNesting (where = "<path>:<line>"), a
// number beyond the range of a double such as 1e309 (where = path: nlohmann refuses it), a
// document that is not a JSON object (where = "<path>:1"); then ValidateSummary's errors
// (where = path).
base::StatusOr<SummaryFile> ParseSummary(const std::string& path, const std::string& text);

// The "trace_file" of the summary at `path` (the file name of the trace it was made from), or
// nullopt when there is no such regular file, it is not a JSON object, or it has no string
// "trace_file" (a summary of an older decodeprof). Reads at most 256 MiB.
std::optional<std::string> SummaryTraceFile(const std::string& path);

// Reads and parses one summary file. Errors: as ParseSummary; not a regular file or
// unreadable → kIo.
base::StatusOr<SummaryFile> ReadSummaryFile(const std::string& path);

// ResolveSummaryPaths + ReadSummaryFile for each, in that order; the first error wins. The
// summaries get their labels (run_set.h: AssignRunLabels).
base::StatusOr<std::vector<SummaryFile>> ReadSummaries(const std::vector<std::string>& paths);

// ReadSummaries({dir}).
base::StatusOr<std::vector<SummaryFile>> ReadSummaryDir(const std::string& dir);

// Python's dict.get(key) on a parsed summary value: the stored value, or a null value when
// the key is absent or `object` is not an object. The reference stays valid as long as
// `object` does (the null is a static).
const nlohmann::ordered_json& JsonGet(const nlohmann::ordered_json& object, std::string_view key);

// "<prefix>`<key>`", the name of a field in error messages (prefix e.g. "`units`.").
std::string FieldName(std::string_view prefix, std::string_view key);

// A numeric field: its value; nullopt when absent or null (or not a number).
std::optional<double> OptionalNumber(const nlohmann::ordered_json& object, std::string_view key);

// The tokens a summary's window totals (decode_wall_ms, decode_gpu_sum_ms) stand for, the
// divisor of every per-token figure a writer derives from them: `window_tokens` when it is a
// number (a sampled recording, whose window holds some of the decode's steps; docs/recording.md),
// else `generated_tokens`; nullopt without either. The token count itself (trust flags, the
// run setup) stays generated_tokens. analysis::WindowTokens is the same rule for a Summary.
std::optional<double> WindowTokens(const nlohmann::ordered_json& summary);

// The summary's `port_units` object, or a null value when it is absent or null (or not an
// object).
const nlohmann::ordered_json& PortUnits(const SummaryFile& summary);

// The run's units in rank order (analysis/ranking.h), each with the figure it ranks by: the
// stored `ranked_units`; for a summary written before that field existed (absent or null),
// the same order computed from `port_units` (analysis::RankUnits over each unit's
// plain_ceiling_wall_est and ceiling_wall). Empty when the run has no units.
std::vector<analysis::RankedUnit> RankedUnits(const SummaryFile& summary);

// Python's str() of a value as json.load returns it: a string verbatim, an integer in
// decimal, a float as repr ("0.83", "12.0", "1e-05"), null as "None", booleans as
// "True"/"False", arrays and objects as Python's list/dict repr ("[1, 'a']",
// "{'k': None}"; strings inside them quoted as repr does for ASCII text, other characters
// kept as they are).
std::string PyStr(const nlohmann::ordered_json& value);

// A parsed value as a JSON writer value (the form RenderSummariesJson writes).
base::JsonValue JsonValueOf(const nlohmann::ordered_json& value);

// A JSON array of the summaries' contents in the given order, written
// as Python's json.dumps(list, indent=2) plus a trailing newline (floats in repr form, key
// order kept, ASCII-escaped strings). Integers outside int64 are written as floats.
std::string RenderSummariesJson(const std::vector<SummaryFile>& summaries);

}  // namespace decodeprof::report
