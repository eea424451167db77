#include "src/report/summary_json.h"

#include <gtest/gtest.h>

#include <span>

#include <nlohmann/json.hpp>

#include "src/analysis/test_pack.h"
#include "src/base/file_io.h"
#include "src/report/dispatch_csv.h"
#include "src/report/kernel_csv.h"
#include "src/report/speed_of_light_section.h"
#include "src/report/summary_reader.h"
#include "src/report/summary_schema.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::report {
namespace {

using analysis::testing::FakePack;
using analysis::testing::FakeUnits;

struct SampleRun {
  trace::StringPool names;
  analysis::DecodeWindow window;
  FakePack pack{{"qmv", "rope"}, {"rope_append", "ssm_step"}, {{"rope, k", "rope_append"}}};
  FakeUnits units{{analysis::Unit{"2063", "fused rope", {0}}},
                  {analysis::UnitReach{{0}, {0}, "note"}}};
  analysis::Summary summary;

  SampleRun() {
    window.lo = 0;
    window.hi = 1000;
    window.dispatches = {{.start = 0, .end = 300, .name = names.Intern("qmv_a")},
                         {.start = 310, .end = 333, .name = names.Intern("rope, k")},
                         {.start = 400, .end = 700, .name = names.Intern("qmv_a")}};
    analysis::SummaryInputs in;
    in.name = "run";
    in.window = &window;
    in.names = &names;
    in.pack = &pack;
    in.units = &units;
    in.profiled.generated_tokens = 3;
    in.profiled.decode_tok_s = 58.86;
    auto s = analysis::BuildSummary(in, analysis::Attribute(in));
    EXPECT_TRUE(s.ok());
    summary = *s;
  }
};

std::vector<std::string> Keys(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

TEST(SummaryJsonTest, KeysComeInTheSeedsOrderThenDecodeprofs) {
  SampleRun run;
  const std::string text = SummaryJsonText(run.summary);
  ASSERT_EQ(text.back(), '\n');
  const auto doc = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(Keys(doc), (std::vector<std::string>{"name",
                                                 "model_type",
                                                 "temperature",
                                                 "clock",
                                                 "prompt_tokens",
                                                 "generated_tokens",
                                                 "profiled_decode_tok_s",
                                                 "profiled_prefill_tok_s",
                                                 "plain_decode_tok_s",
                                                 "plain_prefill_tok_s",
                                                 "profiler_decode_slowdown_pct",
                                                 "decode_dispatches",
                                                 "dispatches_per_token",
                                                 "decode_wall_ms",
                                                 "decode_gpu_sum_ms",
                                                 "decode_gpu_busy_ms",
                                                 "gpu_ms_per_token",
                                                 "host_gap_ms_per_token",
                                                 "host_gap_pct_of_wall",
                                                 "plain_wall_ms_per_token",
                                                 "plain_host_gap_ms_per_token_est",
                                                 "checks",
                                                 "top_kernels",
                                                 "class_share_pct",
                                                 "role_share_pct",
                                                 "role_dispatches_per_token",
                                                 "role_host_gap_ms_per_token",
                                                 "port_units",
                                                 "decode_forward_passes",
                                                 "pack",
                                                 "units_file",
                                                 "warnings",
                                                 "trace_format",
                                                 "device",
                                                 "diagnostics",
                                                 "window_source",
                                                 "window_evidence",
                                                 "plain_runs",
                                                 "ranked_units"}));
  EXPECT_EQ(Keys(doc["checks"]),
            (std::vector<std::string>{
                "kernels_straddling_decode_start", "host_gap_attribution_residual_ns",
                "idle_gap_before_first_decode_dispatch_us", "last_dispatch_before_decode"}));
  EXPECT_EQ(Keys(doc["port_units"]["2063"]),
            (std::vector<std::string>{"port",
                                      "fallback_share_pct",
                                      "fallback_dispatches_per_token",
                                      "reached_default_share_pct",
                                      "reached_default_dispatches_per_token",
                                      "reached_optin_share_pct",
                                      "fallback_host_gap_ms_per_token",
                                      "fallback_host_gap_us_per_dispatch",
                                      "fallback_wall_share_pct",
                                      "ceiling_gpu_share",
                                      "ceiling_wall",
                                      "plain_ceiling_wall_est",
                                      "reached_default_host_gap_ms_per_token",
                                      "reached_default_host_gap_us_per_dispatch",
                                      "reached_default_wall_share_pct",
                                      "reached_default_ceiling_gpu_share",
                                      "reached_default_ceiling_wall",
                                      "reached_default_plain_ceiling_wall_est",
                                      "note",
                                      "reached_optin_host_gap_ms_per_token",
                                      "reached_optin_host_gap_us_per_dispatch",
                                      "reached_optin_wall_share_pct",
                                      "reached_optin_ceiling_gpu_share",
                                      "reached_optin_ceiling_wall",
                                      "reached_optin_plain_ceiling_wall_est"}));
}

TEST(SummaryJsonTest, UnitsThatOptInEndWithTheirClassesAndHostGap) {
  SampleRun run;
  analysis::UnitSummary graph = run.summary.units[0];
  graph.id = "cuda_graph";
  graph.classes = {"qmv", "rope"};
  graph.host_gap = "all";
  run.summary.units.push_back(graph);
  const auto doc = nlohmann::ordered_json::parse(SummaryJsonText(run.summary));
  const auto& seed = doc["port_units"]["2063"];
  EXPECT_FALSE(seed.contains("classes"));
  EXPECT_FALSE(seed.contains("host_gap"));
  const std::vector<std::string> keys = Keys(doc["port_units"]["cuda_graph"]);
  ASSERT_EQ(keys.size(), Keys(seed).size() + 2);
  EXPECT_EQ(keys[keys.size() - 3], "reached_optin_plain_ceiling_wall_est");
  EXPECT_EQ(keys[keys.size() - 2], "classes");
  EXPECT_EQ(keys.back(), "host_gap");
  EXPECT_EQ(doc["port_units"]["cuda_graph"]["classes"],
            nlohmann::ordered_json::array({"qmv", "rope"}));
  EXPECT_EQ(doc["port_units"]["cuda_graph"]["host_gap"], "all");
}

TEST(SummaryJsonTest, NumbersArePythonStyled) {
  SampleRun run;
  const std::string text = SummaryJsonText(run.summary);
  EXPECT_NE(text.find("\n  \"temperature\": 0.0,\n"), std::string::npos);
  EXPECT_NE(text.find("\n  \"model_type\": null,\n"), std::string::npos);
  EXPECT_NE(text.find("\n  \"profiled_decode_tok_s\": 58.86,\n"), std::string::npos);
  EXPECT_NE(text.find("\n  \"decode_dispatches\": 3,\n"), std::string::npos);
  EXPECT_NE(text.find("\n  \"dispatches_per_token\": 1.0,\n"), std::string::npos);
  EXPECT_NE(text.find("\n  \"decode_wall_ms\": 0.001,\n"), std::string::npos);
  EXPECT_NE(text.find("\n  \"gpu_ms_per_token\": 0.0002,\n"), std::string::npos);
  EXPECT_NE(text.find("\n  \"warnings\": [],\n"), std::string::npos);
  EXPECT_NE(text.find("\n  \"diagnostics\": [],\n"), std::string::npos);
}

TEST(SummaryJsonTest, RankedUnitsComeLastWithTheFigureTheyRankBy) {
  SampleRun run;
  run.summary.ranked_units = {{"graph", analysis::RankFigure::kPlainCeilingWallEst, 9.09},
                              {"2063", analysis::RankFigure::kCeilingWall, 1.5},
                              {"none", analysis::RankFigure::kCeilingWall, std::nullopt}};
  const std::string text = SummaryJsonText(run.summary);
  EXPECT_NE(text.find("\n  \"ranked_units\": [\n"
                      "    {\n"
                      "      \"id\": \"graph\",\n"
                      "      \"by\": \"plain_ceiling_wall_est\",\n"
                      "      \"value\": 9.09\n"
                      "    },\n"
                      "    {\n"
                      "      \"id\": \"2063\",\n"
                      "      \"by\": \"ceiling_wall\",\n"
                      "      \"value\": 1.5\n"
                      "    },\n"
                      "    {\n"
                      "      \"id\": \"none\",\n"
                      "      \"by\": \"ceiling_wall\",\n"
                      "      \"value\": null\n"
                      "    }\n"
                      "  ]\n"
                      "}\n"),
            std::string::npos)
      << text;
}

// A window cut by the engine's step names: engine_steps after window_evidence and plain_runs
// (sampling's place), before ranked_units; per kind and per step.
TEST(SummaryJsonTest, EngineStepsComeBeforeRankedUnits) {
  SampleRun run;
  analysis::EngineSteps e;
  e.rule = "sglang";
  e.engine = "SGLang";
  e.window_steps = 1;
  e.decode_runs = 1;
  analysis::StepRecord step;
  step.label = {analysis::StepKind::kDecode, 32, std::nullopt};
  step.start_ns = 100;
  step.end_ns = 1'500'100;
  step.gpu_busy_ns = 1'234'567;
  step.dispatches = 7;
  step.in_window = true;
  e.steps = {step};
  e.kinds = analysis::StepKindTable(e.steps);
  run.summary.engine_steps = e;
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(SummaryJsonText(run.summary));
  const std::vector<std::string> keys = Keys(doc);
  ASSERT_GE(keys.size(), 2u);
  EXPECT_EQ(keys[keys.size() - 2], "engine_steps");
  EXPECT_EQ(keys.back(), "ranked_units");
  const auto& j = doc["engine_steps"];
  EXPECT_EQ(Keys(j), (std::vector<std::string>{"rule", "engine", "also_found", "window_kind",
                                               "window_steps", "decode_runs", "kinds", "steps"}));
  EXPECT_EQ(j["kinds"][0]["kind"], "decode");
  EXPECT_EQ(j["kinds"][0]["batch_sizes"], nlohmann::ordered_json::array({32}));
  EXPECT_EQ(j["kinds"][0]["gpu_ms_p99"], 1.235);
  EXPECT_EQ(j["kinds"][0]["wall_ms_per_step"], 1.5);
  EXPECT_EQ(j["steps"][0]["batch"], 32);
  EXPECT_TRUE(j["steps"][0]["tokens"].is_null());
  EXPECT_EQ(j["steps"][0]["gpu_ms"], 1.235);
  EXPECT_EQ(j["steps"][0]["in_window"], true);
  // Other summaries keep their bytes: no engine_steps key.
  SampleRun plain;
  EXPECT_EQ(SummaryJsonText(plain.summary).find("engine_steps"), std::string::npos);
}

// Every key the writer writes is in the schema (summary_schema.h), in the schema's order.
void ExpectKeysInSchemaOrder(const nlohmann::ordered_json& object,
                             std::span<const SummaryField> fields, const std::string& where) {
  size_t next = 0;
  for (const auto& item : object.items()) {
    size_t i = next;
    while (i < fields.size() && fields[i].key != item.key()) ++i;
    EXPECT_LT(i, fields.size()) << where << item.key() << " is not in the schema after "
                                << (next > 0 ? fields[next - 1].key : "the start");
    next = i < fields.size() ? i + 1 : next;
  }
}

TEST(SummaryJsonTest, TheWriterWritesTheSchemasKeysInItsOrder) {
  SampleRun run;
  run.summary.plain_runs = analysis::PlainRuns{
      .count = 3, .decode_tok_s = {1.0, 2.0, 3.0}, .used = 1, .spread_pct = 100.0};
  const auto doc = nlohmann::ordered_json::parse(SummaryJsonText(run.summary));
  namespace s = summary_schema;
  ExpectKeysInSchemaOrder(doc, s::run::kFields, "");
  ExpectKeysInSchemaOrder(doc["checks"], s::checks::kFields, "checks.");
  ASSERT_FALSE(doc["top_kernels"].empty());
  ExpectKeysInSchemaOrder(doc["top_kernels"][0], s::top_kernel::kFields, "top_kernels[].");
  ASSERT_FALSE(doc["port_units"].empty());
  for (const auto& item : doc["port_units"].items()) {
    ExpectKeysInSchemaOrder(item.value(), s::unit::kFields, "port_units.<id>.");
  }
  ASSERT_FALSE(doc["ranked_units"].empty());
  ExpectKeysInSchemaOrder(doc["ranked_units"][0], s::ranked_unit::kFields, "ranked_units[].");
  ExpectKeysInSchemaOrder(doc["plain_runs"], s::plain_runs::kFields, "plain_runs.");
}

// The sub-sections too, each with every optional part present; and the validator accepts what
// the writer writes.
TEST(SummaryJsonTest, TheSubSectionsKeysAreTheSchemasInItsOrder) {
  SampleRun run;
  analysis::WindowEvidence evidence;
  evidence.steps = 3;
  evidence.anchor = "qmv_a";
  evidence.run = 1;
  evidence.boundary = "qmv_a";
  evidence.confidence = "low";
  evidence.reasons = {"one run"};
  evidence.projection = "launch";
  evidence.dispatches_launched_inside = 3;
  evidence.gpu_after_range_ns = 12;
  run.summary.window_evidence = evidence;
  run.summary.sampling = analysis::Sampling{.steps_seen = 10,
                                            .steps_sampled = 2,
                                            .sampled_step_ms = 1.5,
                                            .unsampled_step_ms = 1.25,
                                            .distortion_pct = 20.0,
                                            .tracing_cost_ms_per_step = 0.25};
  analysis::EngineSteps e;
  e.rule = "sglang";
  e.also_found = {"vllm"};
  analysis::StepRecord step;
  step.label = {analysis::StepKind::kDecode, 32, 1};
  step.end_ns = 1'000'000;
  step.in_window = true;
  e.steps = {step};
  e.kinds = analysis::StepKindTable(e.steps);
  run.summary.engine_steps = e;
  const std::string text = SummaryJsonText(run.summary);
  const auto doc = nlohmann::ordered_json::parse(text);
  namespace s = summary_schema;
  ExpectKeysInSchemaOrder(doc["window_evidence"], s::window_evidence::kFields, "window_evidence.");
  EXPECT_TRUE(doc["window_evidence"].contains("gpu_after_range_ns"));
  ExpectKeysInSchemaOrder(doc["sampling"], s::sampling::kFields, "sampling.");
  ExpectKeysInSchemaOrder(doc["engine_steps"], s::engine_steps::kFields, "engine_steps.");
  ASSERT_FALSE(doc["engine_steps"]["kinds"].empty());
  ExpectKeysInSchemaOrder(doc["engine_steps"]["kinds"][0], s::step_kind::kFields,
                          "engine_steps.kinds[].");
  ASSERT_FALSE(doc["engine_steps"]["steps"].empty());
  ExpectKeysInSchemaOrder(doc["engine_steps"]["steps"][0], s::engine_step::kFields,
                          "engine_steps.steps[].");
  const auto parsed = ParseSummary("run_summary.json", text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();

  SpeedOfLightSection sol;
  sol.model = "m";
  sol.bytes_per_token = 2e9;
  sol.peak_bandwidth_gbps = 4800;
  sol.peak_source = "table";
  sol.decode_steps = 3;
  sol.floor_ms_per_token = 1.0;
  sol.wall_ms_per_token = 2.0;
  sol.mbu_pct = 50.0;
  sol.to_the_floor = 2.0;
  sol.decomposition_ms_per_token =
      SpeedOfLightDecomposition{1.0, {{"2063", 0.5}}, 0.25, 0.0, 0.25, 2.0};
  sol.classes = {{"gemv", {"dense_weights"}, 2e9, 1.5, 1.0, 1333.0, 27.8}};
  sol.units = {{"2063", 1e9, 1.0, 0.5, 0.5, 1.33}};
  sol.notes = {"a note"};
  const auto sol_doc = nlohmann::ordered_json::parse(SpeedOfLightJson(sol, true).Dump());
  ExpectKeysInSchemaOrder(sol_doc, s::sol::kFields, "speed_of_light.");
  ExpectKeysInSchemaOrder(sol_doc["decomposition_ms_per_token"], s::sol_decomposition::kFields,
                          "speed_of_light.decomposition_ms_per_token.");
  ExpectKeysInSchemaOrder(sol_doc["classes"]["gemv"], s::sol_class::kFields,
                          "speed_of_light.classes.<class>.");
  ExpectKeysInSchemaOrder(sol_doc["units"]["2063"], s::sol_unit::kFields,
                          "speed_of_light.units.<id>.");
  nlohmann::ordered_json with_sol = {{"name", "r"}, {"speed_of_light", sol_doc}};
  const auto parsed_sol = ParseSummary("r_summary.json", with_sol.dump());
  EXPECT_TRUE(parsed_sol.ok()) << parsed_sol.status().ToString();
}

TEST(KernelCsvTest, SeedDialect) {
  SampleRun run;
  // gpu_sum = 623: qmv_a 600 ns (96.308...%), "rope, k" 23 ns (3.691...%).
  EXPECT_EQ(KernelCsvText(run.summary),
            "kernel,class,roles,port_units,calls,calls_per_token,total_ns,avg_ns,share_pct\r\n"
            "qmv_a,qmv,,,2,0.67,600,300,96.308\r\n"
            "\"rope, k\",rope,rope_append,2063,1,0.33,23,23,3.692\r\n");
}

TEST(DispatchCsvTest, UnitsColumnNamesUnitsByRoleAndByClass) {
  SampleRun run;
  // "gemv" names class qmv, "both" names role rope_append and class rope: each id once.
  const FakeUnits units{
      {analysis::Unit{"2063", "fused rope", {0}}, analysis::Unit{"gemv", "gemv", {}, {0}},
       analysis::Unit{"both", "rope", {0}, {1}}},
      {analysis::UnitReach{}, analysis::UnitReach{}, analysis::UnitReach{}}};
  analysis::SummaryInputs in;
  in.window = &run.window;
  in.names = &run.names;
  in.pack = &run.pack;
  in.units = &units;
  const decodeprof::testing::TempDir temp("dp_dispatch_csv_");
  const std::string path = temp.Path("dispatch_csv_units_test.csv");
  ASSERT_TRUE(
      WriteDispatchCsv(path, run.window, run.names, analysis::Attribute(in), run.pack, units).ok());
  auto text = base::ReadFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "index,kernel,start_ns,end_ns,class,role,units\r\n"
            "0,qmv_a,0,300,qmv,,gemv\r\n"
            "1,\"rope, k\",310,333,rope,rope_append,2063;both\r\n"
            "2,qmv_a,400,700,qmv,,gemv\r\n");
}

}  // namespace
}  // namespace decodeprof::report
