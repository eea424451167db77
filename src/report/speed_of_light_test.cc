// The speed-of-light section: read, written back, and printed by each writer
// (speed_of_light_section.h, speed_of_light_render.h; the HTML page and diff too).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "src/report/diff.h"
#include "src/report/html_report.h"
#include "src/report/markdown_report.h"
#include "src/report/rank_table.h"
#include "src/report/report_json.h"
#include "src/report/run_set.h"
#include "src/report/speed_of_light_render.h"
#include "src/report/speed_of_light_section.h"
#include "src/report/summary_reader.h"
#include "src/report/terminal_summary.h"

namespace decodeprof::report {
namespace {

// The brief's example, self-consistent: floor = 15085881344 B / 4800 GB/s = 3.1429 ms.
std::string Section(double context, double kv, double floor, double wall, double mbu) {
  const auto num = [](double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", x);
    return std::string(buf);
  };
  return R"j("speed_of_light": {"model": "Llama-3.1-8B-Instruct",
    "model_source": "models/Llama-3.1-8B-Instruct/config.json", "architecture": "llama",
    "weight_format": "bf16", "context_tokens": )j" +
         num(context) + R"j(, "context_source": "bench log",
    "weight_bytes": 15010449408, "kv_bytes_per_token": )j" +
         num(kv) + R"j(, "state_bytes_per_token": 0,
    "bytes_per_token": 15085881344, "peak_bandwidth_gbps": 4800.0, "peak_source": "table",
    "peak_detail": "table: NVIDIA H200, 4800 GB/s (NVIDIA H200 datasheet)",
    "floor_ms_per_token": )j" +
         num(floor) + R"j(, "wall_ms_per_token": )j" + num(wall) +
         R"j(, "achieved_gbps": 2390.8, "mbu_pct": )j" + num(mbu) +
         R"j(, "to_the_floor": 2.008,
    "decomposition_ms_per_token": {"floor": 3.1429, "units": {"gemv": 2.1, "fused_elementwise": 0.5},
      "other_kernels": 0.3, "overlap": -0.01, "host_gap": 0.28, "wall": 6.31},
    "classes": {"gemv": {"moves": ["dense_weights", "head_weights"], "bytes_per_token": 1.4e10,
      "ms_per_token": 5.1, "floor_ms_per_token": 2.9, "achieved_gbps": 2745.1, "pct_of_peak": 57.19}},
    "units": {"fused_elementwise": {"bytes_per_token": 1e8, "ms_per_token": 0.52,
        "floor_ms_per_token": 0.02, "excess_ms_per_token": 0.5, "ceiling_to_floor": 1.09},
      "gemv": {"bytes_per_token": 1.5e10, "ms_per_token": 5.3, "floor_ms_per_token": 3.1,
        "excess_ms_per_token": 2.2, "ceiling_to_floor": 1.53}},
    "notes": ["KV cache read in bf16 (the model's dtype); --kv-dtype to change"]})j";
}

SummaryFile Parse(const std::string& path, const std::string& text) {
  auto parsed = ParseSummary(path, text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : SummaryFile{};
}

SummaryFile WithSection(const std::string& name, double context = 575.5, double kv = 75431936,
                        double floor = 3.1429, double wall = 6.31, double mbu = 49.81) {
  return Parse(name + "_summary.json", R"({"name": ")" + name +
                                           R"(", "model_type": "llama", "gpu_ms_per_token": 6.0,
        "host_gap_ms_per_token": 0.31, )" + Section(context, kv, floor, wall, mbu) +
                                           "}");
}

TEST(SpeedOfLightSectionTest, ReadsEveryMember) {
  const SummaryFile summary = WithSection("run");
  ASSERT_TRUE(summary.speed_of_light.has_value());
  const SpeedOfLightSection& s = *summary.speed_of_light;
  EXPECT_EQ(s.model, "Llama-3.1-8B-Instruct");
  EXPECT_EQ(s.architecture, "llama");
  EXPECT_EQ(s.peak_source, "table");
  EXPECT_DOUBLE_EQ(*s.bytes_per_token, 15085881344.0);
  EXPECT_DOUBLE_EQ(*s.context_tokens, 575.5);
  ASSERT_TRUE(s.decomposition_ms_per_token.has_value());
  ASSERT_EQ(s.decomposition_ms_per_token->units.size(), 2u);
  EXPECT_EQ(s.decomposition_ms_per_token->units[0].first, "gemv");
  ASSERT_EQ(s.classes.size(), 1u);
  EXPECT_EQ(s.classes[0].moves, (std::vector<std::string>{"dense_weights", "head_weights"}));
  ASSERT_EQ(s.units.size(), 2u);
  EXPECT_EQ(s.units[0].id, "fused_elementwise");
  EXPECT_EQ(UnitsByExcess(s)[0]->id, "gemv");
  ASSERT_EQ(s.notes.size(), 1u);
}

TEST(SpeedOfLightSectionTest, AbsentSectionIsNullopt) {
  EXPECT_FALSE(Parse("a_summary.json", R"({"name": "a"})").speed_of_light.has_value());
  EXPECT_FALSE(Parse("a_summary.json", R"({"name": "a", "speed_of_light": null})").speed_of_light);
}

TEST(SpeedOfLightSectionTest, JsonRoundTrips) {
  const SummaryFile summary = WithSection("run");
  const std::string written = SpeedOfLightJson(*summary.speed_of_light).Dump();
  const auto doc = nlohmann::ordered_json::parse("{\"speed_of_light\": " + written + "}");
  EXPECT_TRUE(doc["speed_of_light"]["weight_bytes"].is_number_integer());
  EXPECT_TRUE(doc["speed_of_light"]["units"]["gemv"]["bytes_per_token"].is_number_integer());
  const auto again = ReadSpeedOfLight(doc, "x");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_TRUE(again->has_value());
  EXPECT_EQ(SpeedOfLightJson(**again).Dump(), written);
  // Absent members stay absent.
  EXPECT_EQ(SpeedOfLightJson(SpeedOfLightSection{}).Dump(), "{}");
}

TEST(SpeedOfLightSectionTest, MbuAboveHundredIsADataError) {
  const auto parsed =
      ParseSummary("bad_summary.json", R"({"name": "b", "speed_of_light": {"mbu_pct": 140.0}})");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().exit_code(), 65);
  EXPECT_NE(parsed.status().ToString().find("bad_summary.json"), std::string::npos);
  EXPECT_NE(parsed.status().ToString().find("`speed_of_light`.`mbu_pct`"), std::string::npos);
}

TEST(SpeedOfLightSectionTest, HeadlineAndDecomposition) {
  const SummaryFile summary = WithSection("run");
  EXPECT_EQ(SpeedOfLightHeadline(*summary.speed_of_light),
            "6.31 ms/step vs a floor of 3.14 ms (15.09 GB/step at 4800 GB/s, table: NVIDIA "
            "H200) — MBU 49.8 %, 2.01x to the floor");
  EXPECT_EQ(SpeedOfLightDecompositionLine(*summary.speed_of_light),
            "floor 3.14 + units 2.60 (gemv 2.10, fused_elementwise 0.50) + other kernels 0.30 + "
            "overlap -0.01 + host gap 0.28 = 6.31 ms/step");
  SpeedOfLightSection zeros = *summary.speed_of_light;
  zeros.decomposition_ms_per_token->units.emplace_back("cuda_graph", 0.0);
  zeros.decomposition_ms_per_token->overlap = -0.001;
  EXPECT_EQ(SpeedOfLightDecompositionLine(zeros),
            "floor 3.14 + units 2.60 (gemv 2.10, fused_elementwise 0.50) + other kernels 0.30 + "
            "host gap 0.28 = 6.31 ms/step");
  SpeedOfLightSection partial;
  partial.wall_ms_per_token = 2.0;
  EXPECT_EQ(SpeedOfLightHeadline(partial), "");
  partial.floor_ms_per_token = 1.0;
  partial.peak_source = "option";
  partial.peak_bandwidth_gbps = 3.35;
  EXPECT_EQ(SpeedOfLightHeadline(partial),
            "2.00 ms/step vs a floor of 1.00 ms (at 3.4 GB/s, option)");
}

TEST(SpeedOfLightRenderTest, TerminalLines) {
  const SummaryFile summary = WithSection("run");
  const std::string text = SpeedOfLightTerminalText(*summary.speed_of_light, 1);
  EXPECT_EQ(text,
            "  speed of light: 6.31 ms/step vs a floor of 3.14 ms (15.09 GB/step at 4800 GB/s, "
            "table: NVIDIA H200) — MBU 49.8 %, 2.01x to the floor\n"
            "  above the floor: (excess ms/step over the unit's floor; the decode's speedup if "
            "it ran at its floor)\n"
            "    #gemv  5.300 ms/step, floor 3.100, excess 2.200  1.53x\n"
            "  bandwidth by class: gemv 2745.1 GB/s (57.2 % of peak)\n");
  EXPECT_EQ(SpeedOfLightTerminalText(SpeedOfLightSection{}), "");
}

TEST(SpeedOfLightRenderTest, MarkdownOnlyWithTheSection) {
  std::vector<SummaryFile> old = {Parse("a_summary.json", R"({"name": "a"})")};
  EXPECT_EQ(RenderSpeedOfLightMarkdown(old), "");
  std::vector<SummaryFile> runs = {WithSection("run")};
  AssignRunLabels(runs);
  const std::string md = RenderSpeedOfLightMarkdown(runs);
  EXPECT_NE(md.find("## Speed of light\n"), std::string::npos);
  EXPECT_NE(md.find("Speed of light: 6.31 ms/step vs a floor of 3.14 ms"), std::string::npos);
  EXPECT_NE(md.find("| #gemv | 5.300 | 3.100 | 2.200 | 1.53x |"), std::string::npos);
  EXPECT_NE(md.find("| gemv | dense_weights, head_weights | 14.00 | 5.100 | 2.900 | 2745.1 | "
                    "57.2 |"),
            std::string::npos);
  EXPECT_EQ(md.find("Floor vs context"), std::string::npos);  // one run: no sweep
  EXPECT_NE(RenderMarkdownReport(runs).find("## Speed of light"), std::string::npos);
  // The seed's report (do_first 0) stays the seed's.
  EXPECT_EQ(RenderMarkdownReport(runs, 0).find("Speed of light"), std::string::npos);
}

TEST(SpeedOfLightRenderTest, ContextSweepSortedByContext) {
  std::vector<SummaryFile> runs = {WithSection("long", 4096.0, 536870912.0, 3.2396, 6.5, 49.84),
                                   WithSection("short", 575.5, 75431936.0, 3.1429, 6.31, 49.81),
                                   Parse("other_summary.json", R"({"name": "other"})")};
  AssignRunLabels(runs);
  const std::vector<ContextSweep> sweeps = ContextSweeps(runs);
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_EQ(sweeps[0].model, "Llama-3.1-8B-Instruct");
  EXPECT_EQ(sweeps[0].runs, (std::vector<size_t>{1, 0}));
  const std::string md = RenderSpeedOfLightMarkdown(runs);
  const size_t table = md.find("### Floor vs context: Llama-3.1-8B-Instruct");
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(md.find("| `short` | 575.5 | 75431936 |", table),
            md.find("| `long` | 4096.0 |", table));
  // Same context: no sweep.
  std::vector<SummaryFile> same = {WithSection("a"), WithSection("b")};
  EXPECT_TRUE(ContextSweeps(same).empty());
  const std::string json = RenderReportJson(runs, RankTables{}, 5);
  EXPECT_NE(json.find("\"context_sweeps\""), std::string::npos);
  EXPECT_NE(json.find("\"mbu_pct\": 49.84"), std::string::npos);
  std::vector<SummaryFile> plain = {Parse("other_summary.json", R"({"name": "other"})")};
  EXPECT_EQ(RenderReportJson(plain, RankTables{}, 5).find("speed_of_light"), std::string::npos);
}

TEST(SpeedOfLightRenderTest, HtmlHasTheHeadlineAndTheFloorBars) {
  std::vector<SummaryFile> runs = {WithSection("run")};
  AssignRunLabels(runs);
  const std::string html = RenderHtmlReport(runs);
  EXPECT_NE(html.find("<h3>Speed of light</h3>"), std::string::npos);
  EXPECT_NE(html.find("6.31 ms/step vs a floor of 3.14 ms"), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"work units: actual ms per decode step against the floor\""),
            std::string::npos);
  std::vector<SummaryFile> old = {Parse("a_summary.json", R"({"name": "a"})")};
  EXPECT_EQ(RenderHtmlReport(old).find("Speed of light"), std::string::npos);
}

TEST(SpeedOfLightRenderTest, DiffShowsMbuFloorAndExcess) {
  const SummaryFile before = WithSection("before", 575.5, 75431936.0, 3.1429, 6.31, 49.81);
  const SummaryFile after = WithSection("after", 4096.0, 536870912.0, 3.2396, 4.0, 80.99);
  const auto diff = DiffSummaries(before, after, {});
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  ASSERT_TRUE(diff->speed_of_light.has_value());
  EXPECT_EQ(diff->speed_of_light->figures[0].key, "mbu_pct");
  EXPECT_EQ(*diff->speed_of_light->figures[0].change, 31.18);
  ASSERT_EQ(diff->speed_of_light->units.size(), 2u);
  const std::string md = RenderDiffMarkdown(*diff);
  EXPECT_NE(md.find("| MBU % | 49.81 | 80.99 | +31.18 | 1.63x |"), std::string::npos);
  EXPECT_NE(md.find("| floor ms/token | 3.1429 | 3.2396 | +0.0967 | 0.97x |"), std::string::npos);
  EXPECT_NE(md.find("| #gemv | 2.2 | 2.2 | 0.0 | 1.53 | 1.53 |"), std::string::npos);
  EXPECT_NE(RenderDiffJson(*diff).find("\"speed_of_light\""), std::string::npos);
  const SummaryFile old = Parse("old_summary.json", R"({"name": "old"})");
  const auto plain = DiffSummaries(old, old, {});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->speed_of_light.has_value());
  EXPECT_EQ(RenderDiffJson(*plain).find("speed_of_light"), std::string::npos);
}

TEST(SpeedOfLightRenderTest, SummarizePrintsTheLedgerAfterThePerTokenLine) {
  analysis::SpeedOfLight l;
  l.in.model = "Llama-3.1-8B-Instruct";
  l.in.context_tokens = 575.5;
  l.in.weight_bytes = 15010449408;
  l.in.kv_bytes = 75431936;
  l.in.peak_gbps = 4800;
  l.in.peak_source = "table";
  l.in.peak_detail = "table: NVIDIA H200, 4800 GB/s (NVIDIA H200 datasheet)";
  l.bytes_per_token = 15085881344;
  l.floor_ms_per_token = 15085881344 / 4.8e9;
  l.wall_ms_per_token = 6.31;
  l.achieved_gbps = 15085881344 / 6.31 / 1e6;
  l.mbu_pct = 100 * l.floor_ms_per_token / 6.31;
  l.to_the_floor = 6.31 / l.floor_ms_per_token;
  l.floor = l.floor_ms_per_token;
  l.unit_excess = {{"gemv", 2.2}};
  l.other_kernels = 0.6571;
  l.overlap = -0.01;
  l.host_gap = 0.31;
  l.units.push_back({"gemv", 1.5e10, 5.3, 3.1, 2.2, 1.5357});
  const SpeedOfLightSection section = SpeedOfLightSectionOf(l);
  EXPECT_EQ(*section.floor_ms_per_token, 3.1429);
  EXPECT_EQ(*section.units[0].ceiling_to_floor, 1.536);
  // What the terminal prints is what the summary holds: the section round-trips as JSON.
  const auto doc = nlohmann::ordered_json::parse(
      "{\"speed_of_light\": " + SpeedOfLightJson(section).Dump() + "}");
  const auto read = ReadSpeedOfLight(doc, "x");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_TRUE(read->has_value());

  analysis::Summary s;
  s.gpu_ms_per_token = 6.0;
  s.host_gap_ms_per_token = 0.31;
  const std::string without = TerminalSummaryText(s);
  EXPECT_EQ(without.find("speed of light"), std::string::npos);
  s.speed_of_light = l;
  const std::string with = TerminalSummaryText(s);
  const size_t per_token = with.find("  per token:");
  const size_t headline = with.find(
      "  speed of light: 6.31 ms/step vs a floor of 3.14 ms (15.09 GB/step at 4800 GB/s, "
      "table: NVIDIA H200) — MBU 49.8 %, 2.01x to the floor\n");
  ASSERT_NE(per_token, std::string::npos);
  ASSERT_NE(headline, std::string::npos);
  EXPECT_LT(per_token, headline);
  EXPECT_NE(with.find("    #gemv  5.300 ms/step, floor 3.100, excess 2.200  1.54x\n"),
            std::string::npos);
}

}  // namespace
}  // namespace decodeprof::report
