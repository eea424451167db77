// The summary's `speed_of_light` object, typed: the batch-1 decode's floor (bytes a token
// must move ÷ the GPU's peak memory bandwidth) against its measured wall, per kernel class
// and per work unit (docs/speed-of-light.md). `summarize` writes it (SpeedOfLightJson), the
// readers of summaries parse and check it (ReadSpeedOfLight, run by ValidateSummary and kept
// in SummaryFile::speed_of_light), and the writers of `summarize`, `report` and `diff` print
// it (SpeedOfLightHeadline and the renderers of speed_of_light_render.h).
//
// Every member may be absent (summaries written before the section existed have none, and a
// writer may leave out what it does not know): numbers are optional, strings "" when absent,
// sub-objects empty or nullopt.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/base/json_writer.h"
#include "src/base/status.h"

namespace decodeprof::report {

// `decomposition_ms_per_token`: floor + Σ units' excess + other_kernels + overlap + host_gap
// = wall (ms per token; overlap may be negative: kernels that ran at once).
struct SpeedOfLightDecomposition {
  std::optional<double> floor;
  // `units`: {unit id: excess ms/token}, in the JSON's order.
  std::vector<std::pair<std::string, double>> units;
  std::optional<double> other_kernels;
  std::optional<double> overlap;
  std::optional<double> host_gap;
  std::optional<double> wall;
};

// One entry of `classes`: a kernel class that moves bytes.
struct SpeedOfLightClass {
  std::string name;                // the key (a pack's class name)
  std::vector<std::string> moves;  // byte kinds it moves: "dense_weights", "kv_cache", ...
  std::optional<double> bytes_per_token;
  std::optional<double> ms_per_token;        // its GPU time per token
  std::optional<double> floor_ms_per_token;  // bytes_per_token ÷ peak
  std::optional<double> achieved_gbps;       // bytes_per_token ÷ ms_per_token
  std::optional<double> pct_of_peak;         // achieved_gbps ÷ peak × 100 (may exceed 100)
};

// One entry of `units`: a work unit (the ids of `port_units`).
struct SpeedOfLightUnit {
  std::string id;  // the key
  std::optional<double> bytes_per_token;
  std::optional<double> ms_per_token;
  std::optional<double> floor_ms_per_token;
  std::optional<double> excess_ms_per_token;  // ms_per_token − floor_ms_per_token (>= 0)
  std::optional<double> ceiling_to_floor;     // wall ÷ (wall − excess): >= 1
};

// The object `speed_of_light`, member for member (names as in the JSON).
struct SpeedOfLightSection {
  std::string model;                     // "Llama-3.1-8B-Instruct"
  std::string model_source;              // the config.json or GGUF it was read from
  std::string architecture;              // "llama"
  std::string weight_format;             // "bf16"
  std::optional<double> context_tokens;  // mean context (prompt + position) over the steps
  std::string context_source;
  std::optional<double> weight_bytes;           // read per token
  std::optional<double> kv_bytes_per_token;     // KV read per token at context_tokens
  std::optional<double> state_bytes_per_token;  // recurrent state read + written per token
  std::optional<double> bytes_per_token;
  std::optional<double> peak_bandwidth_gbps;  // 10^9 bytes per second
  std::string peak_source;                    // "measured", "table" or "option"
  std::string peak_detail;                    // "table: NVIDIA H200, 4800 GB/s (...)"
  // The decode steps the window holds (summarize writes it; ReadSpeedOfLight leaves it unset,
  // so report's JSON stays as it was).
  std::optional<double> decode_steps;
  std::optional<double> floor_ms_per_token;  // bytes_per_token ÷ peak
  std::optional<double> wall_ms_per_token;
  std::optional<double> achieved_gbps;  // bytes_per_token ÷ wall
  std::optional<double> mbu_pct;        // floor ÷ wall × 100
  std::optional<double> to_the_floor;   // wall ÷ floor
  std::optional<SpeedOfLightDecomposition> decomposition_ms_per_token;
  std::vector<SpeedOfLightClass> classes;  // the JSON's order
  std::vector<SpeedOfLightUnit> units;     // the JSON's order
  std::vector<std::string> notes;
};

// Limits of the check (ReadSpeedOfLight).
inline constexpr double kSolSumRelSlack = 0.01;    // the decomposition adds up to wall within
inline constexpr double kSolSumAbsSlackMs = 0.01;  // 1 % of wall + 0.01 ms

// The `speed_of_light` member of `summary` (a parsed summary object), parsed and checked;
// nullopt when absent or null. `path` names the file in errors (kData, where = path), e.g.
// "`speed_of_light`.`mbu_pct` is 120.5: a MBU above 100 % means the bytes per token or the
// peak bandwidth are wrong". The keys, types and ranges are the schema's (summary_schema.h:
// summary_schema::sol and its sub-sections, which ValidateSummary walks first). Rules: the
// object and its sub-objects (decomposition_ms_per_token, classes, units: objects; each class
// and unit an object; moves and notes arrays of strings) are objects/arrays of their type or
// null; strings are strings; numbers finite; bytes (weight_bytes, kv_bytes_per_token,
// state_bytes_per_token, bytes_per_token, the classes' and units' bytes_per_token) 0..1e15;
// peak_bandwidth_gbps 1..1e5; achieved_gbps 0..1e5; context_tokens, the ms figures and a
// class's achieved_gbps and pct_of_peak 0..1e12 (a class may exceed the peak: the ledger
// shares a kind's bytes among the classes that move it by time, and notes it; excess and the
// decomposition's parts any finite number, overlap may be negative); mbu_pct 0..100;
// to_the_floor and ceiling_to_floor >= 1 (0.01 slack for rounding); peak_source "measured",
// "table" or "option"; the decomposition, when it has floor and wall, adds up to wall within
// 1 % of wall + 0.01 ms (absent parts count 0).
base::StatusOr<std::optional<SpeedOfLightSection>> ReadSpeedOfLight(
    const nlohmann::ordered_json& summary, const std::string& path);

// The section as the JSON object above: members in the order of the struct, absent ones left
// out; byte counts that are whole numbers below 2^53 as JSON integers. `summary_form`: as the
// summary holds it (summary_json.h): empty strings, classes, units and notes written too.
base::JsonValue SpeedOfLightJson(const SpeedOfLightSection& section, bool summary_form = false);

// The one-line headline, without a prefix or newline:
// "6.31 ms/token vs a floor of 3.14 ms (15.09 GB/token at 4800 GB/s, table: NVIDIA H200) —
// MBU 49.8 %, 2.01x to the floor". The peak's words are peak_detail up to its first ", "
// (else peak_source); a part whose figures are absent is left out. "" without
// wall_ms_per_token or floor_ms_per_token.
std::string SpeedOfLightHeadline(const SpeedOfLightSection& section);

// Where the time above the floor goes, from decomposition_ms_per_token:
// "floor 3.14 + units 2.60 (gemv 2.10, fused_elementwise 0.50) + other kernels 0.30 +
// overlap -0.01 + host gap 0.28 = 6.31 ms/token"; units whose excess and an overlap that
// print as 0.00 are left out (the units' sum counts them); "" without a decomposition.
std::string SpeedOfLightDecompositionLine(const SpeedOfLightSection& section);

// The units sorted by excess_ms_per_token, largest first (absent excess last; ties keep the
// JSON's order).
std::vector<const SpeedOfLightUnit*> UnitsByExcess(const SpeedOfLightSection& section);

}  // namespace decodeprof::report
