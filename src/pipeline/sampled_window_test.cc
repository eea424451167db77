// A sampled recording (`record --sample-steps N`) summarized: the sampled steps laid end to
// end, scaled to the decode's steps and tokens, give the same per-token GPU figures as the
// full recording of the same run, and the summary says how many steps were sampled and what
// the sampling cost them.
#include "src/pipeline/sampled_window.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "src/native_format/native_writer.h"
#include "src/pipeline/summarize_run.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::pipeline {
namespace {

namespace fs = std::filesystem;
namespace nf = native_format;

constexpr int64_t kSampledBase = 1'000'000'000;
constexpr int kSteps = 8;
constexpr int64_t kStepNs = 1'000'000;

// One kernel row of `duration_ns` from `start_ns`.
void AddKernel(nf::NativeWriter& w, const char* name, int64_t start_ns, int64_t duration_ns,
               uint32_t correlation) {
  nf::KernelRow k;
  k.start_ns = start_ns;
  k.end_ns = start_ns + duration_ns;
  k.name = k.mangled = *w.Intern(name);
  k.correlation = correlation;
  ASSERT_TRUE(w.AddKernel(k).ok());
}

// `steps` 1 ms decode steps of four 100 µs kernels each (at 100, 250, 400, 550 µs into the
// step: 0.4 ms of GPU time a step). `sampled_every` 0: every kernel recorded; N: only the
// middle step of each N, with a decodeprof:sampled range over it, and those steps 10 % longer
// (tracing's cost); the step after each sampled one `after_ns` longer.
void WriteRun(const std::string& path, int sampled_every, int64_t after_ns = 0,
              int steps = kSteps) {
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  nf::NativeWriter& w = **writer;
  const auto domain = *w.Intern("");
  const auto add_range = [&](const char* name, int64_t start, int64_t end, int32_t depth) {
    nf::RangeRow r;
    r.start_ns = start;
    r.end_ns = end;
    r.name = *w.Intern(name);
    r.domain = domain;
    r.thread = 7;
    r.depth = depth;
    ASSERT_TRUE(w.AddRange(r).ok());
  };
  int64_t t = kSampledBase;
  std::vector<std::pair<int64_t, int64_t>> step_ranges;
  for (int s = 0; s < steps; ++s) {
    const bool sampled = sampled_every > 0 && s % sampled_every == sampled_every / 2;
    const bool after = sampled_every > 0 && s % sampled_every == sampled_every / 2 + 1;
    const int64_t length = sampled ? kStepNs * 11 / 10 : kStepNs + (after ? after_ns : 0);
    step_ranges.emplace_back(t, t + length);
    if (sampled) add_range("decodeprof:sampled", t - 1000, t + length + 1000, -1);
    if (sampled_every == 0 || sampled) {
      for (int k = 0; k < 4; ++k) {
        nf::KernelRow row;
        row.start_ns = t + 100'000 + k * 150'000;
        row.end_ns = row.start_ns + 100'000;
        row.name = row.mangled = *w.Intern(k % 2 == 0 ? "nvjet_gemm" : "rms_norm_kernel");
        row.stream = 7;
        row.correlation = static_cast<uint32_t>(s * 4 + k + 1);
        ASSERT_TRUE(w.AddKernel(row).ok());
      }
    }
    t += length;
  }
  add_range("decodeprof:decode", kSampledBase - 10, t + 10, 0);
  for (const auto& [a, b] : step_ranges) add_range("decodeprof:step", a, b, 1);
  ASSERT_TRUE(w.Close().ok());
}

// `calls` generate calls a second apart, each a decode range of eight 1 ms steps of four
// kernels, recorded by a timer whose one period (2.5 .. 5.3 ms into the first call) holds
// steps 3 and 4 whole.
void WriteTimeSampledCalls(const std::string& path, int calls) {
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  ASSERT_TRUE(writer.ok());
  nf::NativeWriter& w = **writer;
  const auto domain = *w.Intern("");
  const int64_t on = kSampledBase + 2 * kStepNs + 500'000;
  const int64_t off = kSampledBase + 5 * kStepNs + 300'000;
  uint32_t corr = 0;
  for (int c = 0; c < calls; ++c) {
    const int64_t call = kSampledBase + c * 1'000'000'000LL;
    for (int s = 0; s < kSteps; ++s) {
      const int64_t t = call + s * kStepNs;
      for (int k = 0; k < 4; ++k) {
        const int64_t start = t + 100'000 + k * 150'000;
        if (start < on || start > off) continue;  // not recorded
        AddKernel(w, k % 2 == 0 ? "nvjet_gemm" : "rms_norm_kernel", start, 100'000, ++corr);
      }
      ASSERT_TRUE(w.AddRange({t, t + kStepNs, *w.Intern("decodeprof:step"), domain, 7, 1,
                              nf::RangeKind::kPushPop})
                      .ok());
    }
    ASSERT_TRUE(w.AddRange({call - 10, call + kSteps * kStepNs + 10, *w.Intern("decodeprof:decode"),
                            domain, 7, 0, nf::RangeKind::kPushPop})
                    .ok());
  }
  ASSERT_TRUE(w.AddRange({on, off, *w.Intern("decodeprof:sampled-time"), *w.Intern("decodeprof"), 0,
                          -1, nf::RangeKind::kStartEnd})
                  .ok());
  ASSERT_TRUE(w.Close().ok());
}

class SampledWindowTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  // Summarizing `trace` is a data error whose message holds `part`, and writes nothing.
  void ExpectDataError(const std::string& trace, const std::string& name, const std::string& part) {
    SummarizeRequest req;
    req.trace = trace;
    req.name = name;
    req.out_dir = dir_.string();
    auto result = RunSummarize(req);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().kind(), base::ErrorKind::kData);
    EXPECT_NE(result.status().message().find(part), std::string::npos)
        << result.status().ToString();
    EXPECT_FALSE(fs::exists(dir_ / (name + "_summary.json")));
  }

  nlohmann::json Summarize(const std::string& trace, const std::string& name,
                           std::vector<std::string>* notes = nullptr,
                           std::optional<int64_t> generated_tokens = std::nullopt) {
    SummarizeRequest req;
    req.trace = trace;
    req.name = name;
    req.out_dir = dir_.string();
    req.generated_tokens = generated_tokens;
    auto result = RunSummarize(req);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    if (!result.ok()) return {};
    if (notes != nullptr) *notes = result->notes;
    std::ifstream in(dir_ / (name + "_summary.json"));
    return nlohmann::json::parse(in);
  }

  decodeprof::testing::TempDir temp_{"decodeprof_sampled_"};
  fs::path dir_;
};

TEST_F(SampledWindowTest, SampledStepsGiveTheFullRecordingsPerTokenGpuFigures) {
  const std::string full = (dir_ / "full.sqlite").string();
  const std::string sampled = (dir_ / "sampled.sqlite").string();
  WriteRun(full, 0);
  WriteRun(sampled, 4);
  std::vector<std::string> notes;
  const nlohmann::json a = Summarize(full, "full");
  const nlohmann::json b = Summarize(sampled, "sampled", &notes);
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  EXPECT_FALSE(a.contains("sampling"));
  EXPECT_FALSE(a.contains("window_tokens"));
  // Per step (forward pass) the GPU figures are the full recording's. Per token both follow
  // the seed's rule, the decode's 8 steps + the prefill's token: the full window's 3.2 ms
  // over 9 tokens, the sampled window's 2 steps (0.8 ms) over the 2 · 9 / 8 tokens they
  // stand for.
  EXPECT_EQ(a["generated_tokens"], 9);
  EXPECT_EQ(b["generated_tokens"], 9);
  EXPECT_EQ(b["decode_forward_passes"], 8);
  EXPECT_DOUBLE_EQ(b["window_tokens"].get<double>(), 2.25);
  EXPECT_DOUBLE_EQ(a["decode_gpu_busy_ms"].get<double>() / 8, 0.4);
  EXPECT_DOUBLE_EQ(b["decode_gpu_busy_ms"].get<double>() / 2, 0.4);
  EXPECT_DOUBLE_EQ(a["gpu_ms_per_token"].get<double>(), 0.3556);
  EXPECT_DOUBLE_EQ(b["gpu_ms_per_token"].get<double>(), 0.3556);
  EXPECT_EQ(a["dispatches_per_token"], b["dispatches_per_token"]);
  EXPECT_EQ(a["decode_dispatches"], 32);
  EXPECT_EQ(b["decode_dispatches"], 8);
  // Laid end to end: two periods of 1.1 ms + 2 µs each.
  EXPECT_NEAR(b["decode_wall_ms"].get<double>(), 2.204, 1e-9);
  const nlohmann::json& s = b["sampling"];
  EXPECT_EQ(s["steps_seen"], 8);
  EXPECT_EQ(s["steps_sampled"], 2);
  EXPECT_DOUBLE_EQ(s["sampled_step_ms"].get<double>(), 1.1);
  EXPECT_DOUBLE_EQ(s["unsampled_step_ms"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(s["distortion_pct"].get<double>(), 10.0);
  // Tracing cost 0.1 ms a sampled step of 4 dispatches (25 us each); the host gap per
  // sampled step is 1.102 ms - 0.4 ms = 0.702 ms, of which 0.1 ms is 14.25 %.
  EXPECT_DOUBLE_EQ(s["tracing_cost_ms_per_step"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(s["tracing_cost_us_per_dispatch"].get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(s["tracing_share_of_host_gap_pct"].get<double>(), 14.25);
  // Start to start, the sampled step 2 took 1.1 ms and step 3 after it 1.0 ms, against 1.0 ms
  // for the others (step 6's next step is the last: no time of its own): 0.1 ms a sampled
  // step, two sampled steps of eight, 2.5 % of the decode.
  EXPECT_DOUBLE_EQ(s["run_cost_ms_per_sampled_step"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(s["run_cost_pct"].get<double>(), 2.5);
  bool said = false;
  for (const std::string& n : notes) {
    said = said ||
           (n.find("sampled recording: 2 of 8 steps recorded kernel by kernel") == 0 &&
            n.find("; per-token figures: the sampled steps' mean scaled to the 8 steps of the "
                   "decode (9 tokens); tracing added 0.100 ms a sampled step, 25.000 us a "
                   "dispatch, 14.25 % "
                   "of its host gap; sampling cost the run 0.100 ms a sampled step (it "
                   "and the next, start to start), 2.50 % of the decode") != std::string::npos);
  }
  EXPECT_TRUE(said) << (notes.empty() ? std::string() : notes.back());
  bool warned = false;
  for (const auto& d : b["diagnostics"]) warned = warned || d["code"] == "sampling_distortion";
  EXPECT_TRUE(warned) << b["diagnostics"].dump();
  // The kernel tables agree per token: the same kernels, the same shares.
  EXPECT_EQ(a["class_share_pct"], b["class_share_pct"]);
}

// 3 sampled steps of 96 once gave 24 % less GPU time a token than the full recording of
// the same program (the window's 3 steps over 3 + 1 tokens). Each step holds 0.4 ms of GPU
// time; a full recording divides the 96 steps' 38.4 ms by 97 tokens, and so must the sampled
// one: its 3 steps stand for 3 · 97 / 96 tokens.
TEST_F(SampledWindowTest, ThreeSampledStepsOf96GiveTheFullRecordingsGpuMsPerToken) {
  const std::string full = (dir_ / "full96.sqlite").string();
  const std::string sampled = (dir_ / "sampled96.sqlite").string();
  WriteRun(full, 0, 0, 96);
  WriteRun(sampled, 32, 0, 96);
  std::vector<std::string> notes;
  const nlohmann::json a = Summarize(full, "full96");
  const nlohmann::json b = Summarize(sampled, "sampled96", &notes);
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  ASSERT_TRUE(b.contains("sampling"));
  EXPECT_EQ(b["sampling"]["steps_seen"], 96);
  EXPECT_EQ(b["sampling"]["steps_sampled"], 3);
  EXPECT_DOUBLE_EQ(b["decode_gpu_busy_ms"].get<double>(), 1.2);
  EXPECT_EQ(b["generated_tokens"], 97);
  EXPECT_EQ(b["decode_forward_passes"], 96);
  EXPECT_DOUBLE_EQ(b["window_tokens"].get<double>(), 3.03125);
  const double step_busy_ms = 0.4;
  EXPECT_NEAR(b["gpu_ms_per_token"].get<double>(), step_busy_ms * 96 / 97, 1e-4);
  EXPECT_NEAR(a["gpu_ms_per_token"].get<double>(), step_busy_ms * 96 / 97, 1e-4);
  EXPECT_EQ(a["gpu_ms_per_token"], b["gpu_ms_per_token"]);
  EXPECT_EQ(a["dispatches_per_token"], b["dispatches_per_token"]);
  EXPECT_EQ(a["top_kernels"], b["top_kernels"]);  // calls per token and shares alike
  bool said = false;
  for (const std::string& n : notes) {
    said = said || n.find(
                       "sampled recording: 3 of 96 steps recorded kernel by kernel (sampled "
                       "steps 1.100 ms, the others 1.000 ms: +10.00 %); per-token figures: "
                       "the sampled steps' mean scaled to the 96 steps of the decode (97 "
                       "tokens)") == 0;
  }
  EXPECT_TRUE(said) << (notes.empty() ? std::string() : notes.back());

  // A token count given (--generated-tokens, or the log's) is the decode's, as for a full
  // recording: 3 steps of 96 stand for 3 · 100 / 96 tokens.
  const nlohmann::json c = Summarize(sampled, "sampled96_given", nullptr, 100);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c["generated_tokens"], 100);
  EXPECT_DOUBLE_EQ(c["window_tokens"].get<double>(), 3.125);
  EXPECT_DOUBLE_EQ(c["gpu_ms_per_token"].get<double>(), 0.384);  // 1.2 ms / 3.125
}

// A sampled step and the step after it that cost the run 10 % of its decode: a warning that
// names the N that would have cost about 2 %.
TEST_F(SampledWindowTest, ACostlySamplingIsAWarningThatNamesALargerN) {
  const std::string sampled = (dir_ / "costly.sqlite").string();
  WriteRun(sampled, 4, 300'000);
  const nlohmann::json b = Summarize(sampled, "costly");
  ASSERT_FALSE(b.empty());
  // Step 2 took 1.1 ms and step 3 after it 1.3 ms, the others 1.0 ms: 0.4 ms a sampled step,
  // two of eight steps, 10 % of the decode; at one step in 20, 2 %.
  EXPECT_DOUBLE_EQ(b["sampling"]["run_cost_ms_per_sampled_step"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(b["sampling"]["run_cost_pct"].get<double>(), 10.0);
  std::string detail;
  for (const auto& d : b["diagnostics"]) {
    if (d["code"] == "sampling_run_cost") detail = d.dump();
  }
  EXPECT_NE(detail.find("10.00 % of the decode, 0.400 ms a sampled step; one step in 20 would "
                        "cost about 2 %"),
            std::string::npos)
      << b["diagnostics"].dump();
  // At 2.5 % (the run above without the slow step after), no warning.
  const std::string cheap = (dir_ / "cheap.sqlite").string();
  WriteRun(cheap, 4);
  const nlohmann::json c = Summarize(cheap, "cheap");
  for (const auto& d : c["diagnostics"]) EXPECT_NE(d["code"], "sampling_run_cost");
}

// A window of fewer than 3 sampled steps is a warning that says how many it holds.
TEST_F(SampledWindowTest, FewSampledStepsAreAWarning) {
  const std::string few = (dir_ / "few.sqlite").string();
  WriteRun(few, 4);  // 2 of 8 steps sampled
  const nlohmann::json f = Summarize(few, "few");
  ASSERT_FALSE(f.empty());
  std::string detail;
  for (const auto& d : f["diagnostics"]) {
    if (d["code"] == "sampled_steps_few") detail = d.dump();
  }
  EXPECT_NE(detail.find("2 sampled steps of 8 in the window"), std::string::npos)
      << f["diagnostics"].dump();
  EXPECT_NE(detail.find("\"severity\":\"warning\""), std::string::npos) << detail;
  const std::string enough = (dir_ / "enough.sqlite").string();
  WriteRun(enough, 2);  // 4 of 8
  const nlohmann::json e = Summarize(enough, "enough");
  ASSERT_FALSE(e.empty());
  for (const auto& d : e["diagnostics"]) EXPECT_NE(d["code"], "sampled_steps_few");
}

// What sampling cost the run, from the step starts alone: a sampled step and the one after
// it against the median of the others.
TEST(RunCostOfSamplingTest, TheSampledStepAndTheNextAgainstTheOthers) {
  // Steps of 2 ms; every fourth sampled, 0.4 ms longer, and the step after it 0.5 ms longer.
  std::vector<std::pair<trace::TimestampNs, bool>> steps;
  trace::TimestampNs t = 0;
  for (int i = 0; i < 17; ++i) {
    const bool sampled = i % 4 == 1;
    const bool after = i % 4 == 2;
    steps.emplace_back(t, sampled);
    t += 2'000'000 + (sampled ? 400'000 : 0) + (after ? 500'000 : 0);
  }
  const auto cost = RunCostOfSampling(steps);
  ASSERT_TRUE(cost.has_value());
  EXPECT_DOUBLE_EQ(cost->first, 900'000.0);
  // 0.9 ms for each of the 4 sampled steps over 17 steps of 2 ms.
  EXPECT_DOUBLE_EQ(cost->second, 0.9 * 4 / (17 * 2.0));
  // A late outlier (a pause of the program) moves neither median.
  steps.back().first += 50'000'000;
  EXPECT_DOUBLE_EQ(RunCostOfSampling(steps)->first, 900'000.0);
}

TEST(RunCostOfSamplingTest, NothingWithoutAPairOrABaseline) {
  EXPECT_FALSE(RunCostOfSampling({}).has_value());
  EXPECT_FALSE(RunCostOfSampling({{0, true}, {10, false}}).has_value());
  // Every step sampled: no step to compare with.
  EXPECT_FALSE(RunCostOfSampling({{0, true}, {10, true}, {20, true}, {30, true}}).has_value());
  // The only sampled step is the last but one: its next step has no time of its own.
  EXPECT_FALSE(RunCostOfSampling({{0, false}, {10, false}, {20, false}, {30, true}, {40, false}})
                   .has_value());
}

// A recording sampled by time has no whole decode window: cut by its phase marks, the window
// would hold periods in which nothing was recorded. An error, with no output.
TEST_F(SampledWindowTest, ATimeSampledTraceCutByMarksIsAnError) {
  {  // a decode range over one timer period with one kernel in it
    auto writer = nf::NativeWriter::Create((dir_ / "timed2.sqlite").string(), "monotonic", "t");
    ASSERT_TRUE(writer.ok());
    nf::NativeWriter& w = **writer;
    const auto domain = *w.Intern("decodeprof");
    nf::RangeRow r{kSampledBase,
                   kSampledBase + 9 * kStepNs,
                   *w.Intern("decodeprof:decode"),
                   domain,
                   7,
                   0,
                   nf::RangeKind::kPushPop};
    ASSERT_TRUE(w.AddRange(r).ok());
    nf::RangeRow p{kSampledBase + kStepNs,
                   kSampledBase + 2 * kStepNs,
                   *w.Intern("decodeprof:sampled-time"),
                   domain,
                   0,
                   -1,
                   nf::RangeKind::kStartEnd};
    ASSERT_TRUE(w.AddRange(p).ok());
    AddKernel(w, "nvjet_gemm", kSampledBase + kStepNs + 1000, 100'000, 1);
    ASSERT_TRUE(w.Close().ok());
  }
  ExpectDataError((dir_ / "timed2.sqlite").string(), "timed",
                  "sampled by time (--sample-time) cut by phase marks");
}

// Overlapping sampled periods (an edited or merged trace: the recorder writes one after
// another) would count the overlap twice when laid end to end: an error, no output.
TEST_F(SampledWindowTest, OverlappingSampledPeriodsAreAnError) {
  const std::string path = (dir_ / "overlap.sqlite").string();
  {
    auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(writer.ok());
    nf::NativeWriter& w = **writer;
    const auto domain = *w.Intern("");
    const auto sampled = *w.Intern("decodeprof:sampled");
    for (int s = 0; s < 4; ++s) {
      const int64_t t = kSampledBase + s * kStepNs;
      AddKernel(w, "nvjet_gemm", t + 100'000, 100'000, static_cast<uint32_t>(s + 1));
      ASSERT_TRUE(w.AddRange({t, t + kStepNs, *w.Intern("decodeprof:step"), domain, 7, 1,
                              nf::RangeKind::kPushPop})
                      .ok());
    }
    ASSERT_TRUE(w.AddRange({kSampledBase - 10, kSampledBase + 4 * kStepNs + 10,
                            *w.Intern("decodeprof:decode"), domain, 7, 0, nf::RangeKind::kPushPop})
                    .ok());
    ASSERT_TRUE(w.AddRange({kSampledBase + kStepNs, kSampledBase + 3 * kStepNs, sampled, domain, 0,
                            -1, nf::RangeKind::kStartEnd})
                    .ok());
    ASSERT_TRUE(w.AddRange({kSampledBase + 2 * kStepNs, kSampledBase + 4 * kStepNs, sampled, domain,
                            0, -1, nf::RangeKind::kStartEnd})
                    .ok());
    ASSERT_TRUE(w.Close().ok());
  }
  ExpectDataError(path, "overlap", "sampled periods overlap");
}

// Sampled by time, with step ranges: the steps whole inside the timer's period are the
// sampled ones. The period runs from the middle of step 2 to 0.3 ms into step 5, so steps 3
// and 4 are whole in it; the kernels recorded in the cut steps 2 and 5 are left out.
TEST_F(SampledWindowTest, ATimeSampledTraceWithStepRangesKeepsTheWholeStepsOfItsPeriods) {
  const std::string path = (dir_ / "timed_steps.sqlite").string();
  WriteTimeSampledCalls(path, 1);
  std::vector<std::string> notes;
  const nlohmann::json s = Summarize(path, "timed_steps", &notes);
  ASSERT_FALSE(s.empty());
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "sampled by time: kernels recorded in 1 period; the step ranges whole "
                      "inside them are the sampled steps"),
            notes.end());
  EXPECT_EQ(s["generated_tokens"], 9);  // the decode's 8 steps + the prefill's token
  EXPECT_DOUBLE_EQ(s["window_tokens"].get<double>(), 2.25);  // 2 of them: 2 · 9 / 8
  EXPECT_EQ(s["decode_dispatches"], 8);
  EXPECT_DOUBLE_EQ(s["decode_gpu_busy_ms"].get<double>() / 2, 0.4);  // as a full recording
  EXPECT_EQ(s["sampling"]["steps_seen"], 8);
  EXPECT_EQ(s["sampling"]["steps_sampled"], 2);
}

// Several generate calls, each a decode range: the timer's period fell in the first one only.
// The window is that decode (the last decode range holds no step recorded kernel by kernel:
// summarizing it could only fail).
TEST_F(SampledWindowTest, ATimeSampledTraceTakesTheDecodeRangeItsPeriodFellIn) {
  const std::string path = (dir_ / "timed_calls.sqlite").string();
  WriteTimeSampledCalls(path, 2);
  const nlohmann::json s = Summarize(path, "timed_calls");
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s["sampling"]["steps_seen"], 8);
  EXPECT_EQ(s["sampling"]["steps_sampled"], 2);
  EXPECT_DOUBLE_EQ(s["decode_gpu_busy_ms"].get<double>() / 2, 0.4);
}

// Without marks, the loop of a recording sampled by time is found inside one timer period:
// the kernels of two periods look like one unbroken run of steps (nothing in the sequence
// shows the unrecorded second between them), and a loop across them would count that second
// as host gap. Two periods of 5 steps (4 kernels and a device-to-host copy each): the loop is
// the later period's 5 steps, its wall time theirs.
TEST_F(SampledWindowTest, WithoutMarksATimeSampledLoopStaysInOnePeriod) {
  const std::string path = (dir_ / "timed_loop.sqlite").string();
  {
    auto writer = nf::NativeWriter::Create(path, "monotonic", "t");
    ASSERT_TRUE(writer.ok());
    nf::NativeWriter& w = **writer;
    const auto domain = *w.Intern("decodeprof");
    const auto period_name = *w.Intern("decodeprof:sampled-time");
    uint32_t corr = 0;
    for (int period = 0; period < 2; ++period) {
      const int64_t begin = kSampledBase + period * 1'000'000'000LL;  // a second apart
      int64_t t = begin + 1000;
      for (int step = 0; step < 5; ++step) {
        for (const char* name : {"norm", "qkv_gemm", "attention", "mlp_gemm"}) {
          AddKernel(w, name, t, 50'000, ++corr);
          t += 60'000;
        }
        nf::MemoryOpRow m;
        m.kind = nf::MemoryOpKind::kMemcpy;
        m.copy_kind = 2;  // device to host: the token read back
        m.bytes = 4;
        m.start_ns = t;
        m.end_ns = t + 2'000;
        m.correlation = ++corr;
        ASSERT_TRUE(w.AddMemoryOp(m).ok());
        t += 200'000;  // the host's turn
      }
      nf::RangeRow p{begin, t, period_name, domain, 0, -1, nf::RangeKind::kStartEnd};
      ASSERT_TRUE(w.AddRange(p).ok());
    }
    ASSERT_TRUE(w.Close().ok());
  }
  std::vector<std::string> notes;
  const nlohmann::json s = Summarize(path, "timed_loop", &notes);
  ASSERT_FALSE(s.empty());
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "sampled by time: kernels recorded in 2 periods; the decode loop is the one "
                      "of the most steps found in one of them, a piece of the decode: one token a "
                      "step (no prefill token)"),
            notes.end());
  EXPECT_EQ(s["window_evidence"]["steps"].get<int>(), 5);
  // A piece of a decode cut by the period: one token a step, no prefill token.
  EXPECT_EQ(s["generated_tokens"].get<int>(), 5);
  EXPECT_LT(s["decode_wall_ms"].get<double>(), 3.0) << "the loop ran across the periods";
  EXPECT_GE(s["window_evidence"]["start_ns"].get<int64_t>(), kSampledBase + 1'000'000'000LL);
}

constexpr int kGraphSteps = 12;
constexpr int64_t kGraphStepNs = 1'000'000;  // host: one graph launch a millisecond
constexpr int64_t kLagNs = 2'500'000;        // the GPU runs a launch 2.5 steps after it was made

// Twelve graph launches, one in four sampled (2, 6, 10). A launch's graph runs four 200 us
// kernels back to back, kLagNs after the launch (the engine never synchronizes). After each
// sampled launch the engine launches an eager copy kernel while recording is still on; its
// launch call is outside the period.
void WriteGraphSampledRun(const std::string& path) {
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  nf::NativeWriter& w = **writer;
  const auto domain = *w.Intern("decodeprof");
  const auto graph_launch = *w.Intern("cuGraphLaunch");
  const auto launch_kernel = *w.Intern("cudaLaunchKernel");
  const auto add_range = [&](const char* name, int64_t start, int64_t end) {
    nf::RangeRow r;
    r.start_ns = start;
    r.end_ns = end;
    r.name = *w.Intern(name);
    r.domain = domain;
    r.thread = 7;
    r.depth = -1;
    r.kind = nf::RangeKind::kStartEnd;
    ASSERT_TRUE(w.AddRange(r).ok());
  };
  uint32_t correlation = 0;
  for (int s = 0; s < kGraphSteps; ++s) {
    const int64_t launch = kSampledBase + s * kGraphStepNs;
    add_range("decodeprof:graph-step", launch, launch + 20'000);
    if (s % 4 != 2) continue;
    add_range("decodeprof:sampled", launch - 1'000, launch + 21'000);
    nf::ApiCallRow call;
    call.start_ns = launch + 2'000;
    call.end_ns = launch + 18'000;
    call.name = graph_launch;
    call.thread = 7;
    call.correlation = ++correlation;
    ASSERT_TRUE(w.AddApiCall(call).ok());
    for (int k = 0; k < 4; ++k) {
      nf::KernelRow row;
      row.start_ns = launch + kLagNs + k * 200'000;
      row.end_ns = row.start_ns + 200'000;
      row.name = row.mangled = *w.Intern(k % 2 == 0 ? "nvjet_gemm" : "rms_norm_kernel");
      row.stream = 7;
      row.correlation = correlation;
      row.graph_id = 1;
      ASSERT_TRUE(w.AddKernel(row).ok());
    }
    // Copies whose calls the recorder does not keep: one inside the graph's run (a memcpy
    // node between its kernels: the step's), one 1 ms after it (the next steps' input copy,
    // made while the period's switch off waited).
    for (const int64_t at : {launch + kLagNs + 390'000, launch + kLagNs + 1'800'000}) {
      nf::MemoryOpRow m;
      m.kind = nf::MemoryOpKind::kMemcpy;
      m.copy_kind = 8;  // device to device
      m.bytes = 8;
      m.start_ns = at;
      m.end_ns = at + 5'000;
      m.correlation = 100000 + static_cast<uint32_t>(at % 100000);
      ASSERT_TRUE(w.AddMemoryOp(m).ok());
    }
    // The next launch's eager copy, made after the period (still recorded: the period's
    // switch off waits for its graph), running right after the graph.
    nf::ApiCallRow copy_call = call;
    copy_call.start_ns = launch + kGraphStepNs + 30'000;
    copy_call.end_ns = copy_call.start_ns + 5'000;
    copy_call.name = launch_kernel;
    copy_call.correlation = ++correlation;
    ASSERT_TRUE(w.AddApiCall(copy_call).ok());
    nf::KernelRow copy;
    copy.start_ns = launch + kLagNs + 800'000;
    copy.end_ns = copy.start_ns + 50'000;
    copy.name = copy.mangled = *w.Intern("copy_inputs_kernel");
    copy.stream = 7;
    copy.correlation = correlation;
    ASSERT_TRUE(w.AddKernel(copy).ok());
  }
  ASSERT_TRUE(w.SetMeta("sample_steps", "4").ok());
  ASSERT_TRUE(w.Close().ok());
}

// A recording sampled by CUDA graph launches (`record --sample-steps N` on an engine without
// step ranges, recorder.h "Graph launches as steps"): the recorder writes a
// decodeprof:graph-step range per graph launch and a decodeprof:sampled range over each
// sampled launch, and keeps recording after a sampled launch until its GPU work is done, so
// the trace also holds work launched after the period (here an eager copy). Summarized
// without marks, the graph steps are the decode's steps, each sampled step holds the work
// launched in it (by its launch call), whenever it ran on the GPU, and nothing else.
TEST_F(SampledWindowTest, GraphStepsAreTheStepsAndEachHoldsWhatItLaunched) {
  const std::string trace = (dir_ / "graph.sqlite").string();
  WriteGraphSampledRun(trace);
  const nlohmann::json s = Summarize(trace, "graph");
  ASSERT_FALSE(s.empty());
  ASSERT_TRUE(s.contains("sampling")) << s.dump();
  ASSERT_TRUE(s.contains("window_evidence")) << s.dump();
  EXPECT_EQ(s["window_source"], "marks");
  EXPECT_EQ(s["window_evidence"]["range"], "decodeprof:graph-step");
  EXPECT_EQ(s["sampling"]["steps_seen"], kGraphSteps);
  EXPECT_EQ(s["sampling"]["steps_sampled"], 3);
  // Each sampled step: its graph's four kernels (0.8 ms busy) and the copy in their run,
  // though they ran after the step's range had closed; neither the kernel launched after the
  // period nor the copy after the graph is in it. The GPU ran behind the host: a step's time
  // is its work's span on the GPU (0.8 ms), not from its range's start.
  EXPECT_EQ(s["decode_dispatches"], 15);
  EXPECT_DOUBLE_EQ(s["decode_gpu_busy_ms"].get<double>(), 2.4);
  EXPECT_DOUBLE_EQ(s["decode_wall_ms"].get<double>(), 2.4);
  EXPECT_EQ(s.dump().find("copy_inputs_kernel"), std::string::npos);
}

}  // namespace
}  // namespace decodeprof::pipeline
