// libdecodeprof_cupti.so in a host process, against a stand-in CUPTI (fake_cupti.cc) and a
// stand-in host (fake_host.cc): exit without teardown, SIGTERM, SIGKILL, fork, many
// threads, CUPTI refusing, NVTX only, a child that is not followed, dropped records, and
// recording gated by an NVTX range (DECODEPROF_RECORD_ONLY_RANGE).
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/io/native/native_importer.h"
#include "src/record/launcher.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::record {
namespace {

struct HostRun {
  CommandResult result;
  std::string path;
};

class StandInTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  HostRun Start(const std::string& scenario, std::map<std::string, std::string> extra = {}) {
    HostRun run;
    run.path = dir_ + "/" + scenario + ".sqlite";
    std::map<std::string, std::string> vars = {{"PATH", "/usr/bin:/bin"},
                                               {"DECODEPROF_RECORD_OUTPUT", run.path},
                                               {"DECODEPROF_CUPTI_LIB", FAKE_CUPTI_PATH},
                                               {"DECODEPROF_RECORD_QUIET", "1"},
                                               {"DECODEPROF_RECORD_COMMIT_MS", "50"}};
    for (auto& [name, value] : extra) vars[name] = value;
    std::vector<std::string> env;
    for (const auto& [name, value] : vars) env.push_back(name + "=" + value);
    auto result =
        RunCommand({FAKE_HOST_PATH, INJECTION_PATH, scenario}, env, "DECODEPROF_RECORD_ROOT_PID");
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    if (result.ok()) run.result = *result;
    return run;
  }

  struct Imported {
    io::NativeImport native;
    std::map<std::string, int> kernels_by_name;
    std::map<std::string, trace::TimestampNs> last_end_by_name;
    std::map<std::string, int> ranges_by_name;
    std::map<uint64_t, int> kernels_by_correlation;
    trace::DurationNs longest = 0;  // the longest dispatch
    trace::StringPool names;
  };

  Imported Import(const std::string& path) {
    Imported out;
    struct Sink : trace::DispatchSink {
      Imported* out;
      void Add(const trace::Dispatch& d) override {
        const std::string name(out->names.Get(d.name));
        ++out->kernels_by_name[name];
        ++out->kernels_by_correlation[d.correlation];
        trace::TimestampNs& end = out->last_end_by_name[name];
        end = std::max(end, d.end);
        out->longest = std::max(out->longest, d.end - d.start);
      }
    } sink;
    sink.out = &out;
    auto native = io::ImportNative(path, out.names, sink);
    EXPECT_TRUE(native.ok()) << native.status().ToString();
    if (native.ok()) out.native = std::move(*native);
    for (const auto& r : out.native.ranges) {
      ++out.ranges_by_name[std::string(out.names.Get(r.name))];
    }
    return out;
  }

  // Dispatches whose name begins with `prefix` ("": all of them).
  static int Count(const Imported& t, const std::string& prefix) {
    int n = 0;
    for (const auto& [name, count] : t.kernels_by_name) {
      if (name.rfind(prefix, 0) == 0) n += count;
    }
    return n;
  }

  decodeprof::testing::TempDir temp_{"standin_"};
  std::string dir_;
};

TEST_F(StandInTest, ManyThreadsAndExitWithoutTeardown) {
  const HostRun run = Start("basic");
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.native.recording_status, "ok");
  EXPECT_EQ(t.kernels_by_name["k_thread()"], 1000);  // demangled from _Z8k_threadv
  EXPECT_EQ(t.kernels_by_name["k_tail"], 5);         // flushed by the exit handler
  EXPECT_EQ(t.native.api_calls, 1005);
  EXPECT_EQ(t.ranges_by_name["decodeprof:step"], 8);
  EXPECT_EQ(t.ranges_by_name["inner"], 8);
  EXPECT_EQ(t.ranges_by_name["startend"], 1);
  ASSERT_EQ(t.native.marks.size(), 1u);
  EXPECT_EQ(t.names.Get(t.native.marks[0].domain), "mydomain");
  EXPECT_EQ(t.native.counters["nvtx_unmatched_pops"], 1);
  EXPECT_EQ(t.native.dropped_records, 0);
  EXPECT_EQ(t.native.meta["clock_mapping"], "cupti timestamp callback: CLOCK_MONOTONIC");
  for (const auto& r : t.native.ranges) {
    if (t.names.Get(r.name) == "inner") {
      EXPECT_EQ(r.depth, 1);
    }
    if (t.names.Get(r.name) == "startend") {
      EXPECT_EQ(r.depth, -1);
    }
    EXPECT_LE(r.start, r.end);
  }
}

TEST_F(StandInTest, SigtermFlushesThenDiesOfSigterm) {
  const HostRun run = Start("sigterm");
  EXPECT_EQ(run.result.term_signal, SIGTERM);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.kernels_by_name["k_before_signal"], 100);
  EXPECT_EQ(t.native.counters["nvtx_unended_ranges"], 1);
}

TEST_F(StandInTest, SigkillKeepsTheLastCommit) {
  const HostRun run = Start("sigkill");
  EXPECT_EQ(run.result.term_signal, SIGKILL);
  Imported t = Import(run.path);
  EXPECT_FALSE(t.native.complete);
  EXPECT_EQ(t.kernels_by_name["k_committed"], 100);
  EXPECT_EQ(t.kernels_by_name.count("k_lost"), 0u);
}

TEST_F(StandInTest, AForkedChildIsNotTracedAndDoesNotTouchTheFile) {
  const HostRun run = Start("fork");
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.kernels_by_name["k_parent"], 20);
  EXPECT_EQ(t.kernels_by_name.count("k_child"), 0u);
  EXPECT_EQ(t.ranges_by_name.count("child"), 0u);
}

TEST_F(StandInTest, RefusedCuptiRecordsNvtxAndSaysWhy) {
  const HostRun run = Start("refuse", {{"FAKE_CUPTI_REFUSE", "1"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(t.native.recording_status,
            "CUPTI refused CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: CUPTI_ERROR_NOT_INITIALIZED");
  EXPECT_EQ(t.native.kernels, 0);
  EXPECT_EQ(t.ranges_by_name["annotated"], 1);
  EXPECT_FALSE(CheckRecording(run.path, SummarizeTrace(run.path)).ok());
}

TEST_F(StandInTest, MissingCuptiRecordsNvtxAndSaysWhy) {
  const HostRun run = Start("refuse", {{"DECODEPROF_CUPTI_LIB", "/nonexistent/libcupti.so"},
                                       {"LD_LIBRARY_PATH", "/nonexistent"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_NE(t.native.recording_status, "ok");
  EXPECT_EQ(t.ranges_by_name["annotated"], 1);
}

TEST_F(StandInTest, NvtxOnlyProgram) {
  const HostRun run = Start("nvtx_only");
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.native.recording_status, "no CUDA context (NVTX only)");
  EXPECT_EQ(t.ranges_by_name["annotated"], 1);
  EXPECT_TRUE(CheckRecording(run.path, SummarizeTrace(run.path)).ok());
}

TEST_F(StandInTest, AChildThatIsNotFollowedWritesNothing) {
  // The root pid names another process: this one is a child of the recorded command.
  const HostRun run = Start("not_followed", {{"DECODEPROF_RECORD_ROOT_PID", "1"}});
  EXPECT_EQ(run.result.status, 0);
  EXPECT_NE(::access(run.path.c_str(), F_OK), 0);
}

TEST_F(StandInTest, OffsetClockMapping) {
  const HostRun run = Start("dropped", {{"DECODEPROF_RECORD_CLOCK", "offset"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(t.native.meta["clock_mapping"].rfind("offset from cuptiGetTimestamp: ", 0), 0u);
  EXPECT_EQ(t.native.kernels, 3);
}

TEST_F(StandInTest, DroppedRecordsAreCounted) {
  const HostRun run = Start("dropped", {{"FAKE_CUPTI_DROPPED", "7"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(t.native.dropped_records, 7);
  EXPECT_EQ(t.native.counters["cupti_dropped_records"], 7);
}

// ---- DECODEPROF_RECORD_ONLY_RANGE (fake_host.cc RunGated: k_in* kernels are launched
// inside a range of the name, k_out* outside) ----

class GatedTest : public StandInTest {
 protected:
  HostRun StartGated(const std::string& scenario, std::map<std::string, std::string> extra = {}) {
    extra.emplace("DECODEPROF_RECORD_ONLY_RANGE", "decodeprof:record");
    return Start(scenario, std::move(extra));
  }
};

TEST_F(GatedTest, RecordsKernelsOnlyInsideTheRange) {
  const HostRun run = StartGated("gated");
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.native.recording_status, "ok");
  EXPECT_EQ(t.kernels_by_name["k_in"], 25);
  EXPECT_EQ(Count(t, "k_out"), 0);
  EXPECT_EQ(t.native.kernels, 26);
  // The launch API records stay on (the stand-in, like CUPTI 13.0, never turns one back on
  // once off) and those outside the periods are dropped by time: 26 in, 50 out.
  EXPECT_EQ(t.native.api_calls, 26);
  EXPECT_EQ(t.native.counters["only_range_api_calls_outside"], 50);
  EXPECT_EQ(t.native.meta["only_range"], "decodeprof:record");
  EXPECT_EQ(t.native.counters["only_range_periods"], 2);
  EXPECT_EQ(t.native.counters["only_range_switch_failures"], 0);
  EXPECT_EQ(t.native.dropped_records, 0);
  // What the switches cost the program's thread is in the meta: switched off once when
  // CUPTI attached and once at the end of each of the two periods.
  EXPECT_EQ(t.native.meta["gate_switch_off_time"].rfind("3 times, ", 0), 0u)
      << t.native.meta["gate_switch_off_time"];
  EXPECT_NE(t.native.meta["gate_switch_on_time"].find(" ms mean, "), std::string::npos);
  // NVTX is recorded whatever the gate says.
  EXPECT_EQ(t.ranges_by_name["decodeprof:record"], 2);
  EXPECT_EQ(t.ranges_by_name["other"], 1);
  EXPECT_EQ(t.native.marks.size(), 1u);
  // A kernel launched in the range and still running when it closed is kept.
  ASSERT_EQ(t.kernels_by_name["k_in_long"], 1);
  trace::TimestampNs first_range_end = 0;
  for (const auto& r : t.native.ranges) {
    if (t.names.Get(r.name) == "decodeprof:record" && first_range_end == 0) {
      first_range_end = r.end;
    }
  }
  EXPECT_GT(t.last_end_by_name["k_in_long"], first_range_end);
  // The summary line of `decodeprof record` says how it was recorded.
  auto summary = SummarizeTrace(run.path);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->only_range, "decodeprof:record");
  EXPECT_EQ(summary->only_range_periods, 2);
  EXPECT_TRUE(CheckRecording(run.path, summary).ok());
}

// DECODEPROF_RECORD_ENABLE_AT_ATTACH=0: the kinds are first enabled by the first period; the
// same kernels are recorded, and nothing is switched off when CUPTI attaches.
TEST_F(GatedTest, KindsFirstEnabledByThePeriodRecordTheSame) {
  const HostRun run = StartGated("gated", {{"DECODEPROF_RECORD_ENABLE_AT_ATTACH", "0"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.kernels_by_name["k_in"], 25);
  EXPECT_EQ(Count(t, "k_out"), 0);
  EXPECT_EQ(t.native.counters["only_range_periods"], 2);
  EXPECT_EQ(t.native.counters["only_range_switch_failures"], 0);
  EXPECT_EQ(t.native.meta["gate_switch_off_time"].rfind("2 times, ", 0), 0u)
      << t.native.meta["gate_switch_off_time"];
}

TEST_F(GatedTest, NestedAndOverlappingRangesOfTheNameFormOnePeriod) {
  const HostRun run = StartGated("gated_nested");
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(t.kernels_by_name["k_in_a"], 4);
  EXPECT_EQ(t.kernels_by_name["k_in_b"], 4);
  EXPECT_EQ(t.kernels_by_name["k_in_c"], 4);  // start/end + another domain's push/pop
  EXPECT_EQ(t.kernels_by_name["k_in_d"], 4);  // ended on another thread
  EXPECT_EQ(Count(t, "k_out"), 0);
  EXPECT_EQ(t.native.counters["only_range_periods"], 3);
  EXPECT_EQ(t.native.counters["nvtx_unmatched_pops"], 1);
  EXPECT_EQ(t.ranges_by_name["decodeprof:record"], 5);
}

TEST_F(GatedTest, ASampledStepIsFlushedBeforeItsThreadLaunchesAgain) {
  // Exit 0: no launch came while kernel records were unread (fake_host sampled_steps).
  const HostRun run = Start("sampled_steps", {{"DECODEPROF_RECORD_SAMPLE_STEPS", "2"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(t.kernels_by_name["k_step"], 4 * 4);  // steps 1, 3, 5, 7
  EXPECT_EQ(t.kernels_by_name["k_after"], 0);
  EXPECT_EQ(t.native.counters["sample_steps_seen"], 8);
  // Four periods flushed on the closing thread, and the switch off when CUPTI attached.
  EXPECT_EQ(t.native.meta["gate_flush_time"].rfind("5 times, ", 0), 0u)
      << t.native.meta["gate_flush_time"];
}

TEST_F(GatedTest, ManyThreads) {
  const HostRun run = StartGated("gated_threads");
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(t.kernels_by_name["k_in_thread"], 8 * 20 * 5);
  EXPECT_EQ(Count(t, "k_out"), 0);
  EXPECT_EQ(t.ranges_by_name["decodeprof:record"], 8 * 20);
  const int64_t periods = t.native.counters["only_range_periods"];
  EXPECT_GE(periods, 1);
  EXPECT_LE(periods, 8 * 20);
  EXPECT_EQ(t.native.counters["only_range_switch_failures"], 0);
}

TEST_F(GatedTest, ARangeNeverClosedIsFlushedAtExit) {
  const HostRun run = StartGated("gated_unclosed");
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.kernels_by_name["k_in_unclosed"], 10);
  EXPECT_EQ(Count(t, "k_out"), 0);
  EXPECT_EQ(t.native.counters["only_range_periods"], 1);
  EXPECT_EQ(t.native.counters["nvtx_unended_ranges"], 1);
}

TEST_F(GatedTest, ARangeOpenedBeforeCudaCameUp) {
  const HostRun run = StartGated("gated_early");
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(t.kernels_by_name["k_in_early"], 6);
  EXPECT_EQ(Count(t, "k_out"), 0);
  EXPECT_EQ(t.native.counters["only_range_periods"], 1);
}

TEST_F(GatedTest, ARefusedSwitchIsCountedAndSaid) {
  // CUPTI accepts CONCURRENT_KERNEL at start and refuses it at every later switch on.
  const HostRun run = StartGated("gated", {{"FAKE_CUPTI_REFUSE_AGAIN", "1"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(t.native.recording_status, "ok");
  EXPECT_EQ(t.native.kernels, 0);
  EXPECT_EQ(t.native.counters["only_range_periods"], 0);
  EXPECT_EQ(t.native.counters["only_range_switch_failures"], 2);
  EXPECT_NE(t.native.meta["only_range_warnings"].find("CONCURRENT_KERNEL"), std::string::npos);
}

TEST_F(GatedTest, ABadNameRecordsNothingAndSaysWhy) {
  for (const std::string& value : {std::string(), std::string("decode\nstep")}) {
    const HostRun run = Start("bad_config", {{"DECODEPROF_RECORD_ONLY_RANGE", value}});
    EXPECT_EQ(run.result.status, 0) << "the program runs on";
    Imported t = Import(run.path);
    EXPECT_EQ(t.native.recording_status.rfind("bad configuration: DECODEPROF_RECORD_ONLY_RANGE", 0),
              0u)
        << t.native.recording_status;
    EXPECT_EQ(t.native.kernels, 0);
    EXPECT_TRUE(t.native.ranges.empty());
    EXPECT_FALSE(CheckRecording(run.path, SummarizeTrace(run.path)).ok());
    ::unlink(run.path.c_str());
  }
}

// DECODEPROF_RECORD_DETACH=1: CUPTI is finalized between the periods and attached again at
// each (fake_host.cc gated_detach exits 3 when it never detached or was called detached).
TEST_F(GatedTest, DetachesBetweenPeriodsAndAttachesAgain) {
  const HostRun run = StartGated("gated_detach", {{"DECODEPROF_RECORD_DETACH", "1"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.native.recording_status, "ok");
  EXPECT_EQ(t.kernels_by_name["k_in"], 30);
  EXPECT_EQ(Count(t, "k_out"), 0);
  EXPECT_EQ(t.native.counters["only_range_periods"], 3);
  EXPECT_EQ(t.native.counters["only_range_switch_failures"], 0);
  EXPECT_EQ(t.native.meta["cupti_detach"],
            "between periods (cuptiFinalize), until the program makes or launches a CUDA graph");
  EXPECT_EQ(t.native.meta["cupti_detaches"], "3");
  EXPECT_EQ(t.native.meta["cupti_attaches"], "2");  // the first period found CUPTI attached
  EXPECT_EQ(t.native.meta.count("cupti_attach_time"), 1u);
  EXPECT_EQ(t.native.meta.count("cupti_detach_time"), 1u);
  // The stand-in starts its correlation ids over at every attachment, as a fresh CUPTI may:
  // the file's ids stay unique, and every launch call still pairs with its kernel.
  // (The calls between a period's end and the API exit that finalizes are dropped by time.)
  EXPECT_EQ(t.native.api_calls, 30);
  EXPECT_EQ(t.kernels_by_correlation.size(), 30u) << "a correlation id repeats";
  auto summary = SummarizeTrace(run.path);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_TRUE(CheckRecording(run.path, summary).ok());
}

// An engine without step ranges replaying a CUDA graph a token, never synchronizing
// (fake_host graph_steps): one launch in four is a sampled step, and its period's switch off
// waits until the stand-in GPU has finished it, so that no later unrecorded replay overwrites
// its kernels' records; the launch made meanwhile is recorded and dropped.
// (Not stretched here: DECODEPROF_RECORD_SAMPLE_STRETCH=0; the next test stretches.)
TEST_F(StandInTest, GraphLaunchesAreStepsAndAPeriodWaitsForItsGraph) {
  const HostRun run = Start("graph_steps", {{"DECODEPROF_RECORD_SAMPLE_STEPS", "4"},
                                            {"DECODEPROF_RECORD_SAMPLE_STRETCH", "0"},
                                            {"DECODEPROF_CUDA_DRIVER_LIB", FAKE_CUPTI_PATH}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.kernels_by_name["k_graph"], 3 * 5);  // launches 2, 6, 10
  EXPECT_EQ(t.kernels_by_name["k_after"], 0);
  EXPECT_EQ(t.ranges_by_name["decodeprof:graph-step"], 12);
  EXPECT_EQ(t.ranges_by_name["decodeprof:sampled"], 3);
  EXPECT_EQ(t.native.counters["sample_steps_seen"], 12);
  EXPECT_EQ(t.native.counters["sample_dropped_after_period"], 3 * 5);
  EXPECT_EQ(t.native.meta["sample_period_end"],
            "wait for the GPU work of the graphs launched in the period");
  EXPECT_EQ(t.native.meta["gate_deferred_off_time"].rfind("3 times, ", 0), 0u)
      << t.native.meta["gate_deferred_off_time"];
  // No kernel came back overwritten (the stand-in makes those 12 ms long).
  for (const auto& [name, end] : t.last_end_by_name) EXPECT_GT(end, 0) << name;
  EXPECT_EQ(t.longest, 2000);
}

// DECODEPROF_RECORD_GRAPH_WATCH=0: no graph callbacks, so graph launches are not steps and
// nothing is sampled in a program without step ranges; the recorder says how periods end.
TEST_F(StandInTest, WithoutTheGraphWatchGraphLaunchesAreNotSteps) {
  const HostRun run = Start("graph_steps", {{"DECODEPROF_RECORD_SAMPLE_STEPS", "4"},
                                            {"DECODEPROF_RECORD_GRAPH_WATCH", "0"},
                                            {"DECODEPROF_CUDA_DRIVER_LIB", FAKE_CUPTI_PATH}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.kernels_by_name["k_graph"], 0);
  EXPECT_EQ(t.ranges_by_name["decodeprof:graph-step"], 0);
  EXPECT_EQ(t.native.meta["sample_period_end"],
            "switch off when the range closes (DECODEPROF_RECORD_GRAPH_WATCH=0)");
  EXPECT_EQ(t.native.meta.count("graph_call_time"), 0u);
}

// By default a step sampled while the host runs ahead stretches the sampling: the stand-in
// GPU finishes each sampled launch one launch later, so the next sample comes
// (3 + 1)(1 + 1) = 8 launches after it (launches 2 and 10 of 12), and the recorder says so.
// The program's graph launches are timed with recording on and off.
TEST_F(StandInTest, AGpuBehindTheHostStretchesTheSampledGraphLaunches) {
  const HostRun run = Start("graph_steps", {{"DECODEPROF_RECORD_SAMPLE_STEPS", "4"},
                                            {"DECODEPROF_CUDA_DRIVER_LIB", FAKE_CUPTI_PATH}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.kernels_by_name["k_graph"], 2 * 5);
  EXPECT_EQ(t.ranges_by_name["decodeprof:sampled"], 2);
  EXPECT_EQ(t.native.counters["sample_steps_seen"], 12);
  EXPECT_EQ(t.native.counters["sample_dropped_after_period"], 2 * 5);
  EXPECT_EQ(t.native.meta["sample_stretch"],
            "asked one step in 4; stretched 2 times, up to one in 8: the GPU ran up to 1 steps "
            "behind the host");
  const std::string calls = t.native.meta["graph_call_time"];
  EXPECT_NE(calls.find("launch recording on: 4 times, "), std::string::npos) << calls;
  EXPECT_NE(calls.find("launch recording off: 8 times, "), std::string::npos) << calls;
  for (const auto& [name, end] : t.last_end_by_name) EXPECT_GT(end, 0) << name;
}

// The same with DECODEPROF_RECORD_PERIOD_END=switch: what the wait prevents — the sampled
// launches' records are overwritten by the next, unrecorded, launch.
TEST_F(StandInTest, SwitchingOffAtTheRangesEndLetsAReplayOverwriteTheRecords) {
  const HostRun run = Start("graph_steps", {{"DECODEPROF_RECORD_SAMPLE_STEPS", "4"},
                                            {"DECODEPROF_RECORD_PERIOD_END", "switch"},
                                            {"DECODEPROF_CUDA_DRIVER_LIB", FAKE_CUPTI_PATH}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(Count(t, ""), 3 * 5);  // every dispatch
  EXPECT_EQ(t.longest, 12000000);
  EXPECT_EQ(t.native.meta["sample_period_end"], "switch off when the range closes");
}

// Without the driver's entry points the recorder cannot wait: it says so and ends periods
// when their range closes.
TEST_F(StandInTest, WithoutTheDriverAPeriodEndsWithItsRange) {
  const HostRun run = Start("graph_steps", {{"DECODEPROF_RECORD_SAMPLE_STEPS", "4"},
                                            {"DECODEPROF_CUDA_DRIVER_LIB", "libnothere.so.1"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(t.kernels_by_name["k_graph"], 3 * 5);
  EXPECT_NE(t.native.meta["sample_period_end"].find("libnothere.so.1 is not loaded"),
            std::string::npos)
      << t.native.meta["sample_period_end"];
}

// Detaching is never done once the program launched a CUDA graph (finalizing CUPTI under a
// graph it instrumented killed programs on the H200).
TEST_F(GatedTest, NeverDetachesOnceAGraphWasLaunched) {
  const HostRun run = StartGated("graph_detach", {{"DECODEPROF_RECORD_DETACH", "1"},
                                                  {"DECODEPROF_CUDA_DRIVER_LIB", FAKE_CUPTI_PATH}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.native.meta["cupti_detaches"], "0");
  EXPECT_EQ(t.kernels_by_name["k_graph"], 12 * 5);
  EXPECT_EQ(t.native.counters["only_range_periods"], 12);
}

// Nor once it made one: a graph instantiated in the second period ends the detaching
// (fake_host gated_detach_graph exits 3 when CUPTI was finalized other than once).
TEST_F(GatedTest, StopsDetachingOnceAGraphWasMade) {
  const HostRun run = StartGated("gated_detach_graph", {{"DECODEPROF_RECORD_DETACH", "1"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_TRUE(t.native.complete);
  EXPECT_EQ(t.kernels_by_name["k_in"], 30);
  EXPECT_EQ(Count(t, "k_out"), 0);
  EXPECT_EQ(t.native.meta["cupti_detaches"], "1");
}

TEST_F(GatedTest, ACuptiThatCannotSubscribeStaysAttached) {
  const HostRun run = StartGated(
      "gated_detach", {{"DECODEPROF_RECORD_DETACH", "1"}, {"FAKE_CUPTI_NO_SUBSCRIBE", "1"}});
  EXPECT_EQ(run.result.status, 0);
  Imported t = Import(run.path);
  EXPECT_EQ(t.kernels_by_name["k_in"], 30);
  EXPECT_EQ(Count(t, "k_out"), 0);
  EXPECT_NE(t.native.meta["cupti_detach"].find("CUPTI stays attached"), std::string::npos)
      << t.native.meta["cupti_detach"];
  EXPECT_EQ(t.native.meta.count("cupti_detaches"), 0u);
}

TEST_F(GatedTest, WithoutTheSettingEverythingIsRecorded) {
  const HostRun run = Start("gated");
  Imported t = Import(run.path);
  EXPECT_EQ(t.native.kernels, 76);
  EXPECT_EQ(t.native.meta.count("only_range"), 0u);
  EXPECT_EQ(t.native.counters.count("only_range_periods"), 0u);
}

}  // namespace
}  // namespace decodeprof::record
