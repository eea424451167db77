// The pipeline's trace handling on native traces: a multi-device trace is never summarized as
// one GPU, and every recorder counter, an incomplete file and a failed recording reach the
// summary's diagnostics (issue 10: "one test per code").
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "src/native_format/native_writer.h"
#include "src/native_format/schema.h"
#include "src/pipeline/summarize_run.h"
#include "src/trace/diagnostics.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::pipeline {
namespace {

namespace fs = std::filesystem;
namespace nf = native_format;

class SummarizeTraceTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  struct Options {
    std::vector<uint32_t> devices = {0};  // each step's kernels run on each of these
    std::vector<std::pair<std::string, int64_t>> counters;
    bool close = true;
    std::string recording_status = "ok";
    std::string recorder_warnings;  // meta `warnings` (what CUPTI refused), when not empty
    // A cuBLAS GEMV: its name tells the pack (pytorch-cuda) and its class (gemv).
    std::string kernel = "void cublasLt::gemv_kernel<float>(params)";
    // Each step is one graph launch of two kernels, and the trace lost the launch calls: the
    // two share the launch's correlation id.
    bool graph_without_launches = false;
  };

  // A decode of 4 steps (decodeprof:decode / decodeprof:step ranges), one kernel per step
  // and device.
  std::string WriteTrace(const Options& o) {
    const std::string path = (dir_ / "run.sqlite").string();
    auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    nf::NativeWriter& w = **writer;
    const auto name = *w.Intern(o.kernel);
    const auto empty = *w.Intern("");
    const auto launch = *w.Intern("cudaLaunchKernel");
    uint32_t correlation = 0;
    const auto range = [&](const std::string& text, int64_t start, int64_t end, int32_t depth) {
      nf::RangeRow r;
      r.start_ns = start;
      r.end_ns = end;
      r.name = *w.Intern(text);
      r.domain = empty;
      r.thread = 7;
      r.depth = depth;
      EXPECT_TRUE(w.AddRange(r).ok());
    };
    range("decodeprof:decode", 1'000, 50'000, 0);
    for (int step = 0; step < 4; ++step) {
      const int64_t t = 1'000 + step * 10'000;
      range("decodeprof:step", t, t + 9'000, 1);
      for (uint32_t device : o.devices) {
        nf::KernelRow k;
        k.start_ns = t + 1'000 + device * 100;
        k.end_ns = k.start_ns + 2'000;
        k.name = k.mangled = name;
        k.device = device;
        k.grid[0] = 8;
        k.correlation = ++correlation;
        EXPECT_TRUE(w.AddKernel(k).ok());
        if (o.graph_without_launches) {
          k.start_ns = k.end_ns + 100;
          k.end_ns = k.start_ns + 2'000;
          EXPECT_TRUE(w.AddKernel(k).ok());
          continue;
        }
        const nf::ApiCallRow call{.start_ns = k.start_ns - 500,
                                  .end_ns = k.start_ns - 400,
                                  .name = launch,
                                  .thread = 7,
                                  .correlation = correlation};
        EXPECT_TRUE(w.AddApiCall(call).ok());
      }
    }
    for (const auto& [counter, value] : o.counters) EXPECT_TRUE(w.SetCounter(counter, value).ok());
    EXPECT_TRUE(w.SetMeta(nf::kMetaRecordingStatus, o.recording_status).ok());
    if (!o.recorder_warnings.empty()) {
      EXPECT_TRUE(w.SetMeta(nf::kMetaWarnings, o.recorder_warnings).ok());
    }
    if (o.close) {
      EXPECT_TRUE(w.Close().ok());
    } else {
      EXPECT_TRUE(w.Commit().ok());
    }
    return path;
  }

  SummarizeRequest Request(const std::string& trace) {
    SummarizeRequest req;
    req.trace = trace;
    req.name = "run";
    req.out_dir = (dir_ / "out").string();
    return req;
  }

  nlohmann::json Summary() {
    std::ifstream in(dir_ / "out" / "run_summary.json");
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
  }

  decodeprof::testing::TempDir temp_{"dp_sum_trace_"};
  fs::path dir_;
};

TEST_F(SummarizeTraceTest, ATwoDeviceTraceIsNeverSummarizedAsOneGpu) {
  const std::string trace = WriteTrace({.devices = {0, 1}});
  auto merged = RunSummarize(Request(trace));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.status().exit_code(), 65);
  EXPECT_EQ(merged.status().where(), trace);
  EXPECT_EQ(merged.status().message(),
            "the trace holds dispatches of 2 devices (device 0: 4 dispatches, device 1: 4 "
            "dispatches); decodeprof never merges them into one GPU");
  EXPECT_EQ(merged.status().hint(), "pick one with --device N (one summary per device)");
  EXPECT_FALSE(fs::exists(dir_ / "out"));

  SummarizeRequest one = Request(trace);
  one.device = 1;
  auto r = RunSummarize(one);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.decode_dispatches, 4);
  const nlohmann::json s = Summary();
  EXPECT_EQ(s["device"], 1);
  ASSERT_EQ(s["diagnostics"].size(), 1u);
  EXPECT_EQ(s["diagnostics"][0]["code"], "devices_in_trace");
  EXPECT_EQ(s["diagnostics"][0]["first"]["detail"],
            "device 0: 4 dispatches, device 1: 4 dispatches");

  SummarizeRequest absent = Request(trace);
  absent.device = 5;
  auto missing = RunSummarize(absent);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().exit_code(), 65);
  EXPECT_NE(missing.status().message().find("no dispatch on device 5"), std::string::npos);
}

TEST_F(SummarizeTraceTest, AOneDeviceTraceNamesItsDevice) {
  auto r = RunSummarize(Request(WriteTrace({.devices = {3}})));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Summary()["device"], 3);
  EXPECT_EQ(Summary()["trace_format"], "native");
  EXPECT_TRUE(Summary()["diagnostics"].empty()) << Summary()["diagnostics"].dump();
}

// A kernel no pack knows: the pack is the format's default, chosen from no evidence (a
// warning), and the kernel, all of the GPU time, is a large one left in class other (a
// warning that names it); both are printed with the other warnings.
TEST_F(SummarizeTraceTest, AnUnknownEngineIsAWeakPackChoiceAndItsLargeKernelsAreUnclassified) {
  auto r = RunSummarize(Request(WriteTrace({.kernel = "void my_engine_step<float>(params)"})));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const nlohmann::json s = Summary();
  EXPECT_EQ(s["pack"], "pytorch-cuda");
  ASSERT_EQ(s["diagnostics"].size(), 2u) << s["diagnostics"].dump();
  EXPECT_EQ(s["diagnostics"][0]["code"], "pack_choice_weak");
  EXPECT_EQ(s["diagnostics"][0]["severity"], "warning");
  EXPECT_EQ(s["diagnostics"][0]["first"]["detail"],
            "pack pytorch-cuda: no kernel name tells the engine");
  EXPECT_EQ(s["diagnostics"][1]["code"], "large_kernel_unclassified");
  EXPECT_EQ(s["diagnostics"][1]["severity"], "warning");
  EXPECT_EQ(s["diagnostics"][1]["count"], 1);
  EXPECT_EQ(s["diagnostics"][1]["first"]["detail"],
            "void my_engine_step<float>(params): 100.0 % of the GPU time");
  // A known kernel: neither.
  auto known = RunSummarize(Request(WriteTrace({})));
  ASSERT_TRUE(known.ok()) << known.status().ToString();
  EXPECT_TRUE(Summary()["diagnostics"].empty()) << Summary()["diagnostics"].dump();
}

// Without the launch calls, the kernels of one graph launch share its correlation id: the
// decode replays graphs, and the graph-capture unit is not ranked.
TEST_F(SummarizeTraceTest, KernelsSharingALaunchsCorrelationAreAGraphReplay) {
  for (const bool graph : {false, true}) {
    auto r = RunSummarize(Request(WriteTrace({.graph_without_launches = graph})));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    bool ranked = false;
    const nlohmann::json summary = Summary();
    for (const nlohmann::json& u : summary["ranked_units"]) {
      if (u["id"] == "cuda_graph") ranked = !u["value"].is_null();
    }
    EXPECT_EQ(ranked, !graph) << graph << " " << summary["ranked_units"].dump();
  }
}

struct CounterCase {
  std::string counter;
  std::string code;
  std::string severity;
};

class RecorderCounterTest : public SummarizeTraceTest,
                            public ::testing::WithParamInterface<CounterCase> {};

TEST_P(RecorderCounterTest, EveryCounterReachesTheDiagnostics) {
  const CounterCase& c = GetParam();
  auto r = RunSummarize(Request(WriteTrace({.counters = {{c.counter, 3}}})));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const nlohmann::json s = Summary();
  ASSERT_EQ(s["diagnostics"].size(), 1u) << s["diagnostics"].dump();
  const nlohmann::json& d = s["diagnostics"][0];
  EXPECT_EQ(d["code"], c.code);
  EXPECT_EQ(d["severity"], c.severity);
  EXPECT_EQ(d["count"], 3);
  EXPECT_EQ(d["first"]["file"], "run.sqlite");
  EXPECT_EQ(d["first"]["position"], "table counters");
  EXPECT_EQ(d["first"]["detail"], c.counter + " = 3");
  // The data-loss counters also keep the summary's warning.
  const bool lost = c.severity == "data-loss";
  EXPECT_EQ(s["warnings"].size(), lost ? 1u : 0u) << s["warnings"].dump();
}

INSTANTIATE_TEST_SUITE_P(
    Native, RecorderCounterTest,
    ::testing::Values(
        CounterCase{"cupti_dropped_records", "cupti_dropped_records", "data-loss"},
        CounterCase{"translation_failures", "translation_failures", "data-loss"},
        CounterCase{"incomplete_kernel_records", "incomplete_kernel_records", "data-loss"},
        CounterCase{"nvtx_events_dropped", "nvtx_events_dropped", "data-loss"},
        CounterCase{"write_failures", "write_failures", "data-loss"},
        CounterCase{"buffer_pool_exhausted", "buffer_pool_exhausted", "warning"},
        CounterCase{"nvtx_unmatched_pops", "nvtx_unmatched_pops", "warning"},
        CounterCase{"nvtx_unended_ranges", "nvtx_unended_ranges", "warning"},
        CounterCase{"unknown_record_kinds", "unknown_record_kinds", "info"},
        CounterCase{"only_range_periods", "only_range_periods", "info"},
        CounterCase{"only_range_switch_failures", "only_range_switch_failures", "warning"},
        CounterCase{"only_range_api_calls_outside", "only_range_api_calls_outside", "info"},
        CounterCase{"a_counter_from_the_future", "unknown_recorder_counter", "warning"}),
    [](const auto& p) { return p.param.counter; });

// Every counter the native format defines has a case above.
TEST(RecorderCounterCoverage, TheSchemasCountersAllHaveCases) {
  for (std::string_view counter :
       {nf::kCounterCuptiDropped, nf::kCounterTranslationFailures, nf::kCounterIncompleteKernels,
        nf::kCounterNvtxQueueFull, nf::kCounterWriteFailures, nf::kCounterBufferPoolExhausted,
        nf::kCounterNvtxUnmatchedPops, nf::kCounterNvtxUnendedRanges, nf::kCounterUnknownRecords}) {
    EXPECT_NE(trace::DiagForRecorderCounter(counter), trace::Diag::kUnknownRecorderCounter)
        << counter;
  }
}

TEST_F(SummarizeTraceTest, AnUnclosedFileAndAFailedRecordingAreDiagnostics) {
  auto r = RunSummarize(
      Request(WriteTrace({.close = false, .recording_status = "CUPTI subscribe failed"})));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const nlohmann::json s = Summary();
  ASSERT_EQ(s["diagnostics"].size(), 2u) << s["diagnostics"].dump();
  EXPECT_EQ(s["diagnostics"][0]["code"], "trace_incomplete");
  EXPECT_EQ(s["diagnostics"][0]["severity"], "data-loss");
  EXPECT_EQ(s["diagnostics"][1]["code"], "recording_not_ok");
  EXPECT_EQ(s["diagnostics"][1]["first"]["detail"], "CUPTI subscribe failed");
}

// A trace whose memcpy and launch records CUPTI refused (the recorder's meta `warnings`) is
// summarized with a warning naming what was refused; its figures stand.
TEST_F(SummarizeTraceTest, RecordKindsCuptiRefusedAreAWarning) {
  const std::string refused =
      "MEMCPY: CUPTI_ERROR_NOT_SUPPORTED; cudaLaunchKernel: CUPTI_ERROR_NOT_SUPPORTED";
  auto r = RunSummarize(Request(WriteTrace({.recorder_warnings = refused})));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.decode_dispatches, 4);
  const nlohmann::json s = Summary();
  ASSERT_EQ(s["diagnostics"].size(), 1u) << s["diagnostics"].dump();
  EXPECT_EQ(s["diagnostics"][0]["code"], "recorder_records_off");
  EXPECT_EQ(s["diagnostics"][0]["severity"], "warning");
  EXPECT_EQ(s["diagnostics"][0]["first"]["position"], "meta warnings");
  EXPECT_EQ(s["diagnostics"][0]["first"]["detail"], refused);
  // A warning, not lost records: the summary's free-text warnings stay empty.
  EXPECT_TRUE(s["warnings"].empty()) << s["warnings"].dump();
}

// The lost records and an unclosed file give the summary's two recorder warnings, in the words
// of trace::RecorderWarnings.
TEST_F(SummarizeTraceTest, LostRecordsAndAnUnclosedFileAreTheSummarysWarnings) {
  auto r = RunSummarize(Request(WriteTrace({.counters = {{"cupti_dropped_records", 3},
                                                         {"write_failures", 2},
                                                         {"nvtx_unmatched_pops", 9}},
                                            .close = false})));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const nlohmann::json s = Summary();
  ASSERT_EQ(s["warnings"].size(), 2u) << s["warnings"].dump();
  EXPECT_EQ(s["warnings"][0], "the recorder lost 5 records: the figures undercount");
  EXPECT_EQ(s["warnings"][1],
            "the trace was not closed by its recorder (killed?): read up to its last commit");
  for (const auto& text : s["warnings"]) {
    EXPECT_TRUE(trace::IsRecorderWarning(text.get<std::string>())) << text;
  }
}

}  // namespace
}  // namespace decodeprof::pipeline
