#include "src/report/chrome_trace.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/analysis/test_pack.h"
#include "src/base/file_io.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::report {
namespace {

using nlohmann::json;

std::string Render(const ChromeTraceInput& in, ChromeTraceStats* stats = nullptr) {
  std::string text;
  const ChromeTraceStats s =
      WriteChromeTrace(in, [&text](std::string_view piece) { text.append(piece); });
  if (stats != nullptr) *stats = s;
  return text;
}

// Events with ph == `ph`, in file order.
std::vector<json> EventsOf(const json& doc, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == ph) out.push_back(e);
  }
  return out;
}

trace::Dispatch D(trace::StringPool& names, std::string_view name, int64_t start, int64_t end,
                  int64_t grid = 0) {
  trace::Dispatch d;
  d.name = names.Intern(name);
  d.start = start;
  d.end = end;
  d.grid = grid;
  return d;
}

TEST(MicrosText, ExactNanoseconds) {
  EXPECT_EQ(MicrosText(0), "0.000");
  EXPECT_EQ(MicrosText(7), "0.007");
  EXPECT_EQ(MicrosText(1234567), "1234.567");
  EXPECT_EQ(MicrosText(-5), "-0.005");
  EXPECT_EQ(MicrosText(-1000), "-1.000");
  EXPECT_EQ(MicrosText(1775078550123456789), "1775078550123456.789");
  EXPECT_EQ(MicrosText(INT64_MIN), "-9223372036854775.808");
}

TEST(ChromeTrace, EmptyInputIsValidJson) {
  trace::StringPool names;
  ChromeTraceInput in;
  in.names = &names;
  ChromeTraceStats stats;
  const json doc = json::parse(Render(in, &stats));
  EXPECT_TRUE(doc["traceEvents"].empty());
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  EXPECT_EQ(doc["otherData"]["origin_ns"], "0");
  EXPECT_EQ(stats.gpu_lanes, 0);
}

TEST(ChromeTrace, KernelsGapsAndNsPrecision) {
  trace::StringPool names;
  const trace::DispatchVector ds = {D(names, "gemm_a", 1000000001, 1000001500, 64),
                                    D(names, "norm", 1000002000, 1000002333)};
  ChromeTraceInput in;
  in.names = &names;
  in.dispatches = ds;
  in.other_data = {{"source", "t.sqlite"}};
  ChromeTraceStats stats;
  const std::string text = Render(in, &stats);
  // Exact text: three decimals, relative to the earliest time.
  EXPECT_NE(text.find("\"ts\":0.000,\"dur\":1.499"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":1.999,\"dur\":0.333"), std::string::npos) << text;
  const json doc = json::parse(text);
  EXPECT_EQ(doc["otherData"]["origin_ns"], "1000000001");
  EXPECT_EQ(doc["otherData"]["source"], "t.sqlite");
  const auto xs = EventsOf(doc, "X");
  ASSERT_EQ(xs.size(), 3u);
  EXPECT_EQ(xs[0]["name"], "gemm_a");
  EXPECT_EQ(xs[0]["args"]["grid"], 64);
  EXPECT_EQ(xs[0]["args"]["index"], 0);
  EXPECT_FALSE(xs[0]["args"].contains("class"));
  EXPECT_EQ(xs[1]["name"], "host gap");
  EXPECT_EQ(xs[1]["tid"], 0);
  EXPECT_DOUBLE_EQ(xs[1]["dur"].get<double>(), 0.5);
  EXPECT_EQ(xs[2]["name"], "norm");
  EXPECT_FALSE(xs[2]["args"].contains("grid"));
  EXPECT_EQ(stats.dispatches, 2);
  EXPECT_EQ(stats.host_gaps, 1);
  EXPECT_EQ(stats.gpu_lanes, 1);
  EXPECT_EQ(stats.origin_ns, 1000000001);
}

TEST(ChromeTrace, EscapesNames) {
  trace::StringPool names;
  const trace::DispatchVector ds = {D(names, "void k<\"q\\\">(float*)\n\ttab \xc3\xa9", 10, 20)};
  ChromeTraceInput in;
  in.names = &names;
  in.dispatches = ds;
  const std::string text = Render(in);
  EXPECT_NE(text.find(R"("name":"void k<\"q\\\">(float*)\n\ttab \u00e9")"), std::string::npos)
      << text;
  const json doc = json::parse(text);
  EXPECT_EQ(EventsOf(doc, "X")[0]["name"], "void k<\"q\\\">(float*)\n\ttab \xc3\xa9");
}

TEST(ChromeTrace, OverlappingDispatchesGoOnOverlapLanes) {
  trace::StringPool names;
  const trace::DispatchVector ds = {D(names, "a", 0, 100), D(names, "b", 50, 80),
                                    D(names, "c", 60, 70), D(names, "d", 90, 120),
                                    D(names, "e", 200, 210)};
  ChromeTraceInput in;
  in.names = &names;
  in.dispatches = ds;
  ChromeTraceStats stats;
  const json doc = json::parse(Render(in, &stats));
  std::map<std::string, int> tid;
  for (const json& e : EventsOf(doc, "X")) tid[e["name"]] = e["tid"];
  EXPECT_EQ(tid["a"], 1);
  EXPECT_EQ(tid["b"], 2);
  EXPECT_EQ(tid["c"], 3);
  EXPECT_EQ(tid["d"], 2);  // b ended at 80 <= 90
  EXPECT_EQ(tid["e"], 1);
  EXPECT_EQ(stats.gpu_lanes, 3);
  // One gap only: [120, 200) — the union of a..d is busy until 120.
  EXPECT_EQ(stats.host_gaps, 1);
  std::vector<std::string> lane_names;
  for (const json& e : EventsOf(doc, "M")) {
    if (e["name"] == "thread_name" && e["pid"] == 1) lane_names.push_back(e["args"]["name"]);
  }
  EXPECT_EQ(lane_names,
            (std::vector<std::string>{"host gaps", "GPU", "GPU overlap 1", "GPU overlap 2"}));
}

TEST(ChromeTrace, RangesLaunchesAndMetadataOrder) {
  trace::StringPool names;
  const trace::DispatchVector ds = {D(names, "gemm_x", 500, 600), D(names, "softmax", 700, 750)};
  const std::vector<trace::Range> ranges = {{names.Intern("decodeprof:decode"), 100, 900, 42, 0},
                                            {names.Intern("decodeprof:step"), 100, 800, 42, 1},
                                            {names.Intern("async"), 300, 1000, 7, -1}};
  const std::vector<uint64_t> thread = {42, 0};
  const std::vector<trace::TimestampNs> launch = {450, analysis::kUnknownLaunch};
  analysis::testing::FakePack pack({"gemm"}, {}, {});
  ChromeTraceInput in;
  in.names = &names;
  in.dispatches = ds;
  in.ranges = ranges;
  in.launch_thread = thread;
  in.launch_time = launch;
  in.pack = &pack;
  ChromeTraceStats stats;
  const json doc = json::parse(Render(in, &stats));
  const json& events = doc["traceEvents"];
  // Every metadata event precedes every other event.
  bool seen_other = false;
  for (const json& e : events) {
    if (e["ph"] != "M") {
      seen_other = true;
    } else {
      EXPECT_FALSE(seen_other) << e.dump();
    }
  }
  std::vector<std::string> cpu_threads;
  for (const json& e : EventsOf(doc, "M")) {
    if (e["name"] == "thread_name" && e["pid"] == 2) cpu_threads.push_back(e["args"]["name"]);
  }
  EXPECT_EQ(cpu_threads, (std::vector<std::string>{"CPU thread 7", "CPU thread 42"}));
  EXPECT_EQ(stats.cpu_threads, 2);
  EXPECT_EQ(stats.origin_ns, 100);

  const auto xs = EventsOf(doc, "X");
  ASSERT_EQ(xs.size(), 5u);  // 2 ranges, 2 kernels, 1 gap
  EXPECT_EQ(xs[0]["name"], "decodeprof:decode");
  EXPECT_EQ(xs[0]["pid"], 2);
  EXPECT_EQ(xs[0]["tid"], 42);
  EXPECT_EQ(xs[1]["name"], "decodeprof:step");
  EXPECT_EQ(xs[2]["name"], "gemm_x");
  EXPECT_EQ(xs[2]["args"]["class"], "gemm");
  EXPECT_EQ(xs[2]["args"]["launch_thread"], 42);
  EXPECT_DOUBLE_EQ(xs[2]["args"]["launch_to_start_us"].get<double>(), 0.05);
  EXPECT_EQ(xs[2]["cname"], "thread_state_running");
  EXPECT_EQ(xs[4]["name"], "softmax");
  EXPECT_EQ(xs[4]["args"]["class"], "other");
  EXPECT_EQ(xs[4]["cname"], "grey");
  EXPECT_FALSE(xs[4]["args"].contains("launch_thread"));

  const auto begins = EventsOf(doc, "b");
  const auto ends = EventsOf(doc, "e");
  ASSERT_EQ(begins.size(), 1u);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(begins[0]["name"], "async");
  EXPECT_EQ(begins[0]["id"], ends[0]["id"]);
  EXPECT_DOUBLE_EQ(ends[0]["ts"].get<double>(), 0.9);

  const auto instants = EventsOf(doc, "i");
  ASSERT_EQ(instants.size(), 1u);
  EXPECT_EQ(instants[0]["tid"], 42);
  EXPECT_EQ(instants[0]["args"]["kernel"], "gemm_x");
  EXPECT_DOUBLE_EQ(instants[0]["ts"].get<double>(), 0.35);
  EXPECT_EQ(stats.launches, 1);
}

TEST(ChromeTrace, FileIsWrittenAtomically) {
  trace::StringPool names;
  const trace::DispatchVector ds = {D(names, "k", 1, 2)};
  ChromeTraceInput in;
  in.names = &names;
  in.dispatches = ds;
  const decodeprof::testing::TempDir temp("dp_chrome_");
  const std::filesystem::path dir = temp.path();
  const std::string path = (dir / "t.json").string();
  auto stats = WriteChromeTraceFile(path, in);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  auto text = base::ReadFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, Render(in));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  // A path in a missing directory is an I/O error and leaves nothing.
  auto bad = WriteChromeTraceFile((dir / "missing" / "t.json").string(), in);
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace decodeprof::report
