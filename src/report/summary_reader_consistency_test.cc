// Issue 11, "One reader of summaries": `report` (Markdown, --full, --format html,
// --format json) and `diff` (the file as BEFORE and as AFTER) accept and reject the same
// summary files, with the same message. Each case below is one file, run through every
// reader entry those commands use (as src/cli/report_subcommand.cc and diff_subcommand.cc
// call them); the outcomes must all be equal, and equal to the case's expectation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "src/base/file_io.h"
#include "src/report/diff.h"
#include "src/report/full_report.h"
#include "src/report/html_report.h"
#include "src/report/markdown_report.h"
#include "src/report/rank_table.h"
#include "src/report/report_json.h"
#include "src/report/summary_reader.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::report {
namespace {

namespace fs = std::filesystem;

// "" when accepted, else the error as the CLI prints it (without "decodeprof: <command>: "):
// "<where>: <message>", the hint on its own line, and the exit status.
std::string Outcome(const base::Status& status) {
  if (status.ok()) return "";
  std::string text = status.ToString();
  if (!status.hint().empty()) text += "\nhint: " + status.hint();
  return text + "\nexit " + std::to_string(status.exit_code());
}

// A summary that every reader accepts, the other side of the diffs.
constexpr const char* kGood = R"({
  "name": "good", "generated_tokens": 4, "profiled_decode_tok_s": 20.0,
  "plain_decode_tok_s": 15.0, "decode_wall_ms": 200.0, "decode_gpu_sum_ms": 40.0,
  "gpu_ms_per_token": 10.0, "host_gap_ms_per_token": 40.0, "dispatches_per_token": 100.0,
  "top_kernels": [{"kernel": "k", "class": "gemm", "calls_per_token": 1.0, "share_pct": 50.0}],
  "class_share_pct": {"gemm": 50.0, "copy": 50.0},
  "port_units": {"u": {"port": "p", "fallback_share_pct": 50.0, "ceiling_wall": 1.5,
                       "plain_ceiling_wall_est": 1.4, "ceiling_gpu_share": 2.0}}})";

// The outcome of each reader entry for the summary `dir`/x_summary.json (alone in `dir`).
std::vector<std::pair<std::string, std::string>> EveryReader(const std::string& dir,
                                                             const std::string& good_path) {
  std::vector<std::pair<std::string, std::string>> outcomes;
  const auto report = [&](const char* command, auto render) {
    const auto summaries = ReadSummaryDir(dir);
    if (summaries.ok()) {
      EXPECT_FALSE(render(*summaries).empty()) << command;
    }
    outcomes.emplace_back(command, Outcome(summaries.status()));
  };
  report("report", [](const auto& s) { return RenderMarkdownReport(s); });
  report("report --full", [](const auto& s) { return RenderFullMarkdownReport(s); });
  report("report --format html", [](const auto& s) { return RenderHtmlReport(s); });
  report("report --format json",
         [](const auto& s) { return RenderReportJson(s, RankTables{}, kDoFirstUnits); });

  const std::string path = dir + "/x_summary.json";
  for (const bool as_before : {true, false}) {
    const auto before = ReadSummaryFile(as_before ? path : good_path);
    const auto after = before.ok() ? ReadSummaryFile(as_before ? good_path : path) : before;
    const char* command = as_before ? "diff FILE GOOD" : "diff GOOD FILE";
    if (!after.ok()) {
      outcomes.emplace_back(command, Outcome(after.status()));
      continue;
    }
    const auto diff = DiffSummaries(*before, *after, {});
    if (diff.ok()) {
      EXPECT_FALSE(RenderDiffMarkdown(*diff).empty());
      EXPECT_FALSE(RenderDiffJson(*diff).empty());
    }
    outcomes.emplace_back(command, Outcome(diff.status()));
  }
  return outcomes;
}

struct Case {
  std::string text;
  std::string error;  // "" = accepted; else the message (where is the file's path)
};

// One malformed summary per field and type problem, and valid edge cases.
std::vector<Case> Cases() {
  std::vector<Case> cases = {
      // Accepted: missing optional fields (older summaries), nulls, empty containers, integers
      // where numbers are read, fields no writer reads, a run without generated_tokens.
      {R"({"name": "minimal"})", ""},
      {R"({"name": "all null", "model_type": null, "temperature": null, "clock": null,
           "prompt_tokens": null, "generated_tokens": null, "profiled_decode_tok_s": null,
           "plain_decode_tok_s": null, "profiler_decode_slowdown_pct": null,
           "decode_dispatches": null, "dispatches_per_token": null, "decode_wall_ms": null,
           "decode_gpu_sum_ms": null, "gpu_ms_per_token": null, "host_gap_ms_per_token": null,
           "host_gap_pct_of_wall": null, "plain_wall_ms_per_token": null,
           "plain_host_gap_ms_per_token_est": null, "checks": null, "top_kernels": null,
           "class_share_pct": null, "role_share_pct": null, "port_units": null,
           "decode_forward_passes": null, "window_tokens": null, "pack": null, "units_file": null, "warnings": null,
           "trace_format": null, "device": null, "diagnostics": null, "ranked_units": null})",
       ""},
      {R"({"name": "null members",
           "checks": {"kernels_straddling_decode_start": null,
                      "host_gap_attribution_residual_ns": null,
                      "idle_gap_before_first_decode_dispatch_us": null},
           "top_kernels": [{"kernel": "k", "class": null, "calls_per_token": null,
                            "share_pct": null}],
           "class_share_pct": {"gemm": null}, "role_share_pct": {"tail": null},
           "port_units": {"u": {"port": null, "fallback_share_pct": null,
                                "fallback_dispatches_per_token": null,
                                "reached_default_share_pct": null,
                                "fallback_host_gap_ms_per_token": null,
                                "fallback_wall_share_pct": null, "ceiling_gpu_share": null,
                                "ceiling_wall": null, "plain_ceiling_wall_est": null}},
           "diagnostics": [{"code": null, "severity": null, "count": null, "meaning": null,
                            "first": null}, {"first": {"file": null}}],
           "ranked_units": [{"id": "u", "by": "ceiling_wall", "value": null}]})",
       ""},
      {R"({"name": "empty", "top_kernels": [], "class_share_pct": {}, "role_share_pct": {},
           "port_units": {}, "checks": {}, "warnings": [], "diagnostics": [],
           "ranked_units": []})",
       ""},
      {R"({"name": "integers", "generated_tokens": 1000000000000, "device": 0,
           "profiled_decode_tok_s": 12, "decode_wall_ms": 0, "temperature": 0,
           "checks": {"host_gap_attribution_residual_ns": -3},
           "port_units": {"u": {"ceiling_wall": 2, "plain_ceiling_wall_est": 1e-320}},
           "top_kernels": [{"kernel": "k", "calls_per_token": 3, "share_pct": 100}]})",
       ""},
      {R"({"name": "", "not_read": [1, "a", {"b": null}], "role_dispatches_per_token": "x",
           "port_units": {"u": {"note": 7, "classes": "gemm"}},
           "top_kernels": [{"kernel": "k", "extra": []}]})",
       ""},
      {R"({"name": "tokens and decode wall only", "generated_tokens": 0, "decode_wall_ms": 5.0,
           "warnings": ["no grid", ""]})",
       ""},

      // Not a summary.
      {R"({"traceEvents": []})",
       "not a decodeprof summary: no `name` field\nhint: pass the "
       "<name>_summary.json files that `decodeprof summarize` writes"},
      {R"({"name": 5})", "`name` is not a string"},
      {R"({"name": null})", "`name` is not a string"},
      {R"({"name": ["a"]})", "`name` is not a string"},

      // Numbers beyond a double: nlohmann refuses them while parsing.
      {R"({"name": "x", "gpu_ms_per_token": 1e309})",
       "invalid JSON: number overflow parsing '1e309'"},
      {R"({"name": "x", "port_units": {"u": {"ceiling_wall": -1e400}}})",
       "invalid JSON: number overflow parsing '-1e400'"},
      {R"({"name": "x", "not_read": 1e999})", "invalid JSON: number overflow parsing '1e999'"},

      // checks
      {R"({"name": "x", "checks": 3})", "`checks` is not an object"},
      {R"({"name": "x", "checks": []})", "`checks` is not an object"},
      {R"({"name": "x", "checks": {"kernels_straddling_decode_start": 0.5}})",
       "`checks`.`kernels_straddling_decode_start` is neither an integer nor null"},
      {R"({"name": "x", "checks": {"host_gap_attribution_residual_ns": "0"}})",
       "`checks`.`host_gap_attribution_residual_ns` is neither a number nor null"},
      {R"({"name": "x", "checks": {"idle_gap_before_first_decode_dispatch_us": [1]}})",
       "`checks`.`idle_gap_before_first_decode_dispatch_us` is neither a number nor null"},

      // top_kernels
      {R"({"name": "x", "top_kernels": {}})", "`top_kernels` is not an array"},
      {R"({"name": "x", "top_kernels": "k"})", "`top_kernels` is not an array"},
      {R"({"name": "x", "top_kernels": [7]})", "`top_kernels`[0] has no string `kernel`"},
      {R"({"name": "x", "top_kernels": [null]})", "`top_kernels`[0] has no string `kernel`"},
      {R"({"name": "x", "top_kernels": [{"kernel": "a"}, {"kernel": 3}]})",
       "`top_kernels`[1] has no string `kernel`"},
      {R"({"name": "x", "top_kernels": [{"share_pct": 1.0}]})",
       "`top_kernels`[0] has no string `kernel`"},
      {R"({"name": "x", "top_kernels": [{"kernel": "k", "class": 1}]})",
       "`top_kernels`[0].`class` is neither a string nor null"},
      {R"({"name": "x", "top_kernels": [{"kernel": "k", "calls_per_token": "2"}]})",
       "`top_kernels`[0].`calls_per_token` is neither a number nor null"},
      {R"({"name": "x", "top_kernels": [{"kernel": "k", "share_pct": {}}]})",
       "`top_kernels`[0].`share_pct` is neither a number nor null"},

      // class_share_pct, role_share_pct
      {R"({"name": "x", "class_share_pct": [1]})", "`class_share_pct` is not an object"},
      {R"({"name": "x", "class_share_pct": {"gemm": 1.0, "copy": "a lot"}})",
       "`class_share_pct`.`copy` is neither a number nor null"},
      {R"({"name": "x", "class_share_pct": {"gemm": true}})",
       "`class_share_pct`.`gemm` is neither a number nor null"},
      {R"({"name": "x", "role_share_pct": "x"})", "`role_share_pct` is not an object"},
      {R"({"name": "x", "role_share_pct": {"tail": "x"}})",
       "`role_share_pct`.`tail` is neither a number nor null"},

      // port_units
      {R"({"name": "x", "port_units": [1]})", "`port_units` is not an object"},
      {R"({"name": "x", "port_units": {"2063": 1.5}})", "`port_units`.`2063` is not an object"},
      {R"({"name": "x", "port_units": {"2063": null}})", "`port_units`.`2063` is not an object"},

      // warnings
      {R"({"name": "x", "warnings": "no grid"})", "`warnings` is not an array"},
      {R"({"name": "x", "warnings": ["a", null]})", "`warnings`[1] is not a string"},

      // diagnostics
      {R"({"name": "x", "diagnostics": {}})", "`diagnostics` is not an array"},
      {R"({"name": "x", "diagnostics": [1]})", "`diagnostics`[0] is not an object"},
      {R"({"name": "x", "diagnostics": [{"code": 1}]})",
       "`diagnostics`[0].`code` is neither a string nor null"},
      {R"({"name": "x", "diagnostics": [{"severity": true}]})",
       "`diagnostics`[0].`severity` is neither a string nor null"},
      {R"({"name": "x", "diagnostics": [{"count": 1.5}]})",
       "`diagnostics`[0].`count` is neither an integer nor null"},
      {R"({"name": "x", "diagnostics": [{"meaning": []}]})",
       "`diagnostics`[0].`meaning` is neither a string nor null"},
      {R"({"name": "x", "diagnostics": [{"first": "a.json"}]})",
       "`diagnostics`[0].`first` is not an object"},
      {R"({"name": "x", "diagnostics": [{}, {"first": {"file": 1}}]})",
       "`diagnostics`[1].`first`.`file` is neither a string nor null"},
      {R"({"name": "x", "diagnostics": [{"first": {"position": 3}}]})",
       "`diagnostics`[0].`first`.`position` is neither a string nor null"},
      {R"({"name": "x", "diagnostics": [{"first": {"detail": {}}}]})",
       "`diagnostics`[0].`first`.`detail` is neither a string nor null"},

      // ranked_units (more in summary_reader_test.cc)
      {R"({"name": "x", "ranked_units": {}})", "`ranked_units` is not an array"},
      {R"({"name": "x", "port_units": {"u": {}}, "ranked_units": [{"id": "v", "by": "ceiling_wall"}]})",
       "`ranked_units`[0].`id` \"v\" is no unit of `port_units`"},
      {R"({"name": "x", "port_units": {"u": {}}, "ranked_units": []})",
       "`ranked_units` lacks `port_units`.`u`"},
      {R"({"name": "x", "port_units": {"u": {}}, "ranked_units": [{"id": "u", "by": "share"}]})",
       "`ranked_units`[0].`by` is neither \"plain_ceiling_wall_est\" nor \"ceiling_wall\""},
  };

  // Every scalar field of a run with a value of a wrong type.
  for (const char* key :
       {"temperature", "profiled_decode_tok_s", "plain_decode_tok_s",
        "profiler_decode_slowdown_pct", "dispatches_per_token", "decode_wall_ms",
        "decode_gpu_sum_ms", "gpu_ms_per_token", "host_gap_ms_per_token", "host_gap_pct_of_wall",
        "plain_wall_ms_per_token", "plain_host_gap_ms_per_token_est", "window_tokens"}) {
    for (const char* value : {R"("7")", "true", "[1]", R"({"k": 1.0})"}) {
      cases.push_back({std::string(R"({"name": "x", ")") + key + "\": " + value + "}",
                       std::string("`") + key + "` is neither a number nor null"});
    }
  }
  for (const char* key : {"prompt_tokens", "generated_tokens", "decode_dispatches",
                          "decode_forward_passes", "device"}) {
    for (const char* value : {"128.0", "12.5", "1e3", R"("12")", "false"}) {
      cases.push_back({std::string(R"({"name": "x", ")") + key + "\": " + value + "}",
                       std::string("`") + key + "` is neither an integer nor null"});
    }
  }
  for (const char* key : {"model_type", "clock", "pack", "units_file", "trace_format"}) {
    for (const char* value : {"3", "true", R"(["a"])", "{}"}) {
      cases.push_back({std::string(R"({"name": "x", ")") + key + "\": " + value + "}",
                       std::string("`") + key + "` is neither a string nor null"});
    }
  }
  // Every field of a unit that a writer reads.
  for (const char* key :
       {"fallback_share_pct", "fallback_dispatches_per_token", "reached_default_share_pct",
        "fallback_host_gap_ms_per_token", "fallback_wall_share_pct", "ceiling_gpu_share",
        "ceiling_wall", "plain_ceiling_wall_est"}) {
    cases.push_back(
        {std::string(R"({"name": "x", "port_units": {"2063": {")") + key + R"(": "1.5"}}})",
         std::string("`port_units`.`2063`.`") + key + "` is neither a number nor null"});
  }
  cases.push_back({R"({"name": "x", "port_units": {"2063": {"port": 3}}})",
                   "`port_units`.`2063`.`port` is neither a string nor null"});

  // Numbers that no run has: every count, time and rate below 0 or above 1e12, every
  // percentage outside 0..100, every ceiling below 1.
  const std::string count_range = ": a count, time or rate of a run is from 0 to 1e12";
  for (const char* key :
       {"temperature", "profiled_decode_tok_s", "plain_decode_tok_s", "dispatches_per_token",
        "decode_wall_ms", "decode_gpu_sum_ms", "decode_gpu_busy_ms", "gpu_ms_per_token",
        "host_gap_ms_per_token", "plain_wall_ms_per_token", "window_tokens"}) {
    for (const char* value : {"-5.0", "1e+300"}) {
      cases.push_back({std::string(R"({"name": "x", ")") + key + "\": " + value + "}",
                       std::string("`") + key + "` is " + value + count_range});
    }
  }
  for (const char* key : {"prompt_tokens", "generated_tokens", "decode_dispatches",
                          "decode_forward_passes", "device"}) {
    cases.push_back({std::string(R"({"name": "x", ")") + key + "\": -1}",
                     std::string("`") + key + "` is -1" + count_range});
  }
  const std::string percent_range = ": a percentage is from 0 to 100";
  cases.push_back({R"({"name": "x", "host_gap_pct_of_wall": 250.0})",
                   "`host_gap_pct_of_wall` is 250.0" + percent_range});
  cases.push_back({R"({"name": "x", "class_share_pct": {"gemm": 500.0}})",
                   "`class_share_pct`.`gemm` is 500.0" + percent_range});
  cases.push_back({R"({"name": "x", "role_share_pct": {"tail": -0.5}})",
                   "`role_share_pct`.`tail` is -0.5" + percent_range});
  cases.push_back({R"({"name": "x", "top_kernels": [{"kernel": "k", "share_pct": 101.0}]})",
                   "`top_kernels`[0].`share_pct` is 101.0" + percent_range});
  for (const char* key : {"fallback_share_pct", "reached_default_share_pct",
                          "reached_optin_share_pct", "fallback_wall_share_pct"}) {
    cases.push_back(
        {std::string(R"({"name": "x", "port_units": {"2063": {")") + key + R"(": 120.0}}})",
         std::string("`port_units`.`2063`.`") + key + "` is 120.0" + percent_range});
  }
  for (const char* key : {"ceiling_gpu_share", "ceiling_wall"}) {
    cases.push_back(
        {std::string(R"({"name": "x", "port_units": {"2063": {")") + key + R"(": 0.5}}})",
         std::string("`port_units`.`2063`.`") + key + "` is 0.5: a speedup bound is at least 1"});
  }
  // speed_of_light (speed_of_light_section.h): accepted when whole, partial or null; each
  // type, range and the decomposition's sum checked.
  const std::string sol =
      R"({"name": "x", "speed_of_light": {"model": "m", "context_tokens": 512.5,
          "weight_bytes": 1000000000, "kv_bytes_per_token": 0, "state_bytes_per_token": 0,
          "bytes_per_token": 1000000000, "peak_bandwidth_gbps": 1000.0, "peak_source": "table",
          "peak_detail": "table: X, 1000 GB/s", "floor_ms_per_token": 1.0,
          "wall_ms_per_token": 2.0, "achieved_gbps": 500.0, "mbu_pct": 50.0, "to_the_floor": 2.0,
          "decomposition_ms_per_token": {"floor": 1.0, "units": {"u": 0.5}, "other_kernels": 0.2,
            "overlap": -0.01, "host_gap": 0.31, "wall": 2.0},
          "classes": {"gemm": {"moves": ["dense_weights"], "bytes_per_token": 1e9,
            "ms_per_token": 1.5, "floor_ms_per_token": 1.0, "achieved_gbps": 666.7,
            "pct_of_peak": 66.67}},
          "units": {"u": {"bytes_per_token": 1e9, "ms_per_token": 1.5, "floor_ms_per_token": 1.0,
            "excess_ms_per_token": 0.5, "ceiling_to_floor": 1.33}},
          "notes": ["KV cache bf16"]}})";
  cases.push_back({sol, ""});
  cases.push_back({R"({"name": "x", "speed_of_light": null})", ""});
  cases.push_back({R"({"name": "x", "speed_of_light": {}})", ""});
  cases.push_back({R"({"name": "x", "speed_of_light": {"mbu_pct": 49.8, "classes": null,
                    "units": {}, "decomposition_ms_per_token": null}})",
                   ""});
  const auto sol_with = [](const std::string& members) {
    return R"({"name": "x", "speed_of_light": {)" + members + "}}";
  };
  cases.push_back({R"({"name": "x", "speed_of_light": [1]})", "`speed_of_light` is not an object"});
  cases.push_back({sol_with(R"("mbu_pct": 120.5)"),
                   "`speed_of_light`.`mbu_pct` is 120.5: a MBU above 100 % means the bytes per "
                   "token or the peak bandwidth are wrong (a MBU is from 0 to 100)"});
  cases.push_back(
      {sol_with(R"("mbu_pct": "50")"), "`speed_of_light`.`mbu_pct` is neither a number nor null"});
  cases.push_back(
      {sol_with(R"("model": 3)"), "`speed_of_light`.`model` is neither a string nor null"});
  cases.push_back({sol_with(R"("bytes_per_token": 2e15)"),
                   "`speed_of_light`.`bytes_per_token` is 2e+15: bytes per token are from 0 to "
                   "1e15"});
  cases.push_back({sol_with(R"("weight_bytes": -1)"),
                   "`speed_of_light`.`weight_bytes` is -1: bytes per token are from 0 to 1e15"});
  cases.push_back({sol_with(R"("peak_bandwidth_gbps": 0.5)"),
                   "`speed_of_light`.`peak_bandwidth_gbps` is 0.5: a peak bandwidth is from 1 "
                   "to 1e5 GB/s"});
  cases.push_back({sol_with(R"("peak_bandwidth_gbps": 200000.0)"),
                   "`speed_of_light`.`peak_bandwidth_gbps` is 200000.0: a peak bandwidth is "
                   "from 1 to 1e5 GB/s"});
  cases.push_back({sol_with(R"("peak_source": "guess")"),
                   "`speed_of_light`.`peak_source` is \"guess\", not \"measured\", \"table\" or "
                   "\"option\""});
  cases.push_back({sol_with(R"("to_the_floor": 0.5)"),
                   "`speed_of_light`.`to_the_floor` is 0.5: a speedup bound is at least 1"});
  cases.push_back({sol_with(R"("floor_ms_per_token": -1.0)"),
                   "`speed_of_light`.`floor_ms_per_token` is -1.0: a count, time or rate of a "
                   "run is from 0 to 1e12"});
  cases.push_back({sol_with(R"("units": {"u": {"ceiling_to_floor": 0.9}})"),
                   "`speed_of_light`.`units`.`u`.`ceiling_to_floor` is 0.9: a speedup bound is "
                   "at least 1"});
  cases.push_back(
      {sol_with(R"("units": {"u": 3})"), "`speed_of_light`.`units`.`u` is not an object"});
  // A class above the peak is the ledger's attribution, noted by it: accepted.
  cases.push_back({sol_with(R"("classes": {"gemv": {"pct_of_peak": 130.0,
                    "achieved_gbps": 6240.0}})"),
                   ""});
  cases.push_back({sol_with(R"("classes": {"gemv": {"pct_of_peak": -3.0}})"),
                   "`speed_of_light`.`classes`.`gemv`.`pct_of_peak` is -3.0: a count, time or "
                   "rate of a run is from 0 to 1e12"});
  cases.push_back({sol_with(R"("classes": {"gemv": {"moves": ["a", 1]}})"),
                   "`speed_of_light`.`classes`.`gemv`.`moves`[1] is not a string"});
  cases.push_back({sol_with(R"("notes": "one")"), "`speed_of_light`.`notes` is not an array"});
  cases.push_back({sol_with(R"("decomposition_ms_per_token": {"floor": 3.0, "units": {"u": 2.0},
                    "other_kernels": 0.3, "overlap": 0.0, "host_gap": 0.3, "wall": 6.31})"),
                   "`speed_of_light`.`decomposition_ms_per_token` adds up to 5.6000 ms, not "
                   "`wall` 6.31 (floor + units + other_kernels + overlap + host_gap must equal "
                   "wall within 1 % + 0.01 ms)"});
  // Within 1 % + 0.01 ms of wall: rounding.
  cases.push_back({sol_with(R"("decomposition_ms_per_token": {"floor": 3.1429,
                    "units": {"gemv": 2.1, "fused_elementwise": 0.5}, "other_kernels": 0.3,
                    "overlap": -0.01, "host_gap": 0.28, "wall": 6.31})"),
                   ""});
  cases.push_back({sol_with(R"("decomposition_ms_per_token": {"units": [1]})"),
                   "`speed_of_light`.`decomposition_ms_per_token`.`units` is not an object"});

  // The window's times against each other; rounding is not an error.
  cases.push_back({R"({"name": "x", "decode_wall_ms": 10.0, "decode_gpu_busy_ms": 20.0})",
                   "`decode_gpu_busy_ms` 20.0 is more than `decode_wall_ms` 10.0: the GPU cannot "
                   "be busy longer than the window"});
  cases.push_back({R"({"name": "x", "decode_gpu_sum_ms": 5.0, "decode_gpu_busy_ms": 6.0})",
                   "`decode_gpu_busy_ms` 6.0 is more than `decode_gpu_sum_ms` 5.0: busy time is "
                   "a union of the dispatches"});
  cases.push_back({R"({"name": "x", "decode_wall_ms": 10.0, "decode_gpu_busy_ms": 10.004,
           "decode_gpu_sum_ms": 10.0, "host_gap_pct_of_wall": 100.0,
           "profiler_decode_slowdown_pct": -12.0, "plain_host_gap_ms_per_token_est": -0.3})",
                   ""});
  return cases;
}

TEST(SummaryReaderConsistencyTest, EveryCommandAcceptsAndRejectsTheSameFiles) {
  const decodeprof::testing::TempDir good_dir("dp_consistency_");
  const std::string good_path = good_dir.path() + "/good_summary.json";
  ASSERT_TRUE(base::WriteFileAtomic(good_path, kGood).ok());
  for (const Case& c : Cases()) {
    const decodeprof::testing::TempDir dir("dp_consistency_");
    const std::string path = dir.path() + "/x_summary.json";
    ASSERT_TRUE(base::WriteFileAtomic(path, c.text).ok());
    const std::string expected = c.error.empty() ? "" : path + ": " + c.error + "\nexit 65";
    for (const auto& [command, outcome] : EveryReader(dir.path(), good_path)) {
      EXPECT_EQ(outcome, expected) << command << " on " << c.text;
    }
  }
}

// Summaries that summarize wrote (the seed's fields, then decodeprof's: diagnostics,
// ranked_units, device, trace_format) are accepted by every reader.
TEST(SummaryReaderConsistencyTest, SummariesWrittenBySummarizeAreAccepted) {
  const decodeprof::testing::TempDir good_dir("dp_consistency_");
  const std::string good_path = good_dir.path() + "/good_summary.json";
  ASSERT_TRUE(base::WriteFileAtomic(good_path, kGood).ok());
  const std::string golden = std::string(DECODEPROF_SOURCE_DIR) + "/tests/golden/";
  for (const std::string& source :
       {golden + "summarize/seed_window/expected/t_summary.json",
        golden + "summarize/kineto_decode/expected/kineto_summary.json",
        golden + "diff/cuda_graph/Llama-3.1-8B-Instruct_greedy-eager_summary.json"}) {
    const auto text = base::ReadFile(source);
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    const decodeprof::testing::TempDir dir("dp_consistency_");
    ASSERT_TRUE(base::WriteFileAtomic(dir.path() + "/x_summary.json", *text).ok());
    for (const auto& [command, outcome] : EveryReader(dir.path(), good_path)) {
      EXPECT_EQ(outcome, "") << command << " on " << source;
    }
  }
}

}  // namespace
}  // namespace decodeprof::report
