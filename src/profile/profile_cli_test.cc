// `decodeprof profile` end to end through the binary, without a GPU: the guard watches an
// empty KFD directory, the bench is testdata/fake_bench.sh and rocprofv3 is
// testdata/fake_rocprofv3.sh, whose kernel trace the summarize then reads for real.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gtest/gtest.h"
#include "src/profile/profile_cli_test_util.h"
#include "src/record/rocprofv3_runner.h"

namespace decodeprof::profile {
namespace {

using testing::Count;
using testing::Exists;
using testing::ProfileFixture;
using testing::ReadText;
using testing::RunResult;

bool Has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

class ProfileCliTest : public ::testing::Test {
 protected:
  std::string Out() const { return fx_.Path("out"); }
  std::string Traces() const { return fx_.Path("traces"); }
  std::string Bench() const { return ProfileFixture::Testdata("fake_bench.sh"); }
  // The options every run shares: private OUT and trace dir, no idle wait, rocprofv3.
  std::vector<std::string> Args(const std::vector<std::string>& models,
                                const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args = {"--out",       Out(), "--trace-dir", Traces(),
                                     "--idle-secs", "0",   "--backend",   "rocprofv3"};
    for (const std::string& model : models) args.insert(args.end(), {"--model", model});
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", Bench()});
    return args;
  }
  ProfileFixture fx_;
};

TEST_F(ProfileCliTest, PlainAndProfiledRunsOfTwoModelsEndInSummaries) {
  const std::string llama = fx_.MakeModel("Llama");
  const std::string qwen = fx_.MakeModel("Qwen");
  const RunResult r = fx_.Run(Args({llama, qwen}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Has(r.err, "traces: " + Traces() + "\n")) << r.err;
  EXPECT_TRUE(Has(r.err, "results: " + Out() + "\n")) << r.err;
  EXPECT_TRUE(Has(r.out, "Llama_greedy: 18 decode dispatches")) << r.out;
  EXPECT_TRUE(Has(r.out, "Qwen_greedy: 18 decode dispatches")) << r.out;

  // guard.log: the seed's section headers, in order (three plain runs by default: the 2nd and
  // 3rd numbered), and one clean attempt each.
  const std::string log = ReadText(Out() + "/guard.log");
  const size_t a = log.find("== Llama_greedy plain\n");
  const size_t a2 = log.find("== Llama_greedy plain 2\n");
  const size_t a3 = log.find("== Llama_greedy plain 3\n");
  const size_t b = log.find("== Llama_greedy profiled\n");
  EXPECT_TRUE(a < a2 && a2 < a3 && a3 < b) << log;
  const size_t c = log.find("== Qwen_greedy plain\n");
  const size_t d = log.find("== Qwen_greedy profiled\n");
  ASSERT_NE(a, std::string::npos) << log;
  EXPECT_TRUE(a < b && b < c && c < d && d != std::string::npos) << log;
  EXPECT_EQ(Count(log, "attempt 1: CLEAN, exit 0"), 8) << log;
  EXPECT_FALSE(Has(log, Traces())) << log;
  EXPECT_TRUE(Has(log,
                  "record -o <trace-dir>/Llama_greedy/Llama_greedy.sqlite --backend "
                  "rocprofv3 -- "))
      << log;

  // The plain log: the bench's output in the seed's argument order, no guard lines, no marks.
  const std::string plain = ReadText(Out() + "/Llama_greedy_plain_bench.log");
  EXPECT_TRUE(Has(plain, "args: -m " + llama +
                             " -p profile -n 128 --warmup-tokens 20 --ignore-eos "
                             "--prompt-tokens 512 --temperature 0 --top-p 1.0\n"))
      << plain;
  EXPECT_TRUE(Has(plain, "Decode:           0.4 ms (10000.0 tok/s)")) << plain;
  EXPECT_FALSE(Has(plain, "decodeprof: guard: ")) << plain;
  EXPECT_FALSE(Has(plain, "[phase]")) << plain;
  EXPECT_TRUE(Has(ReadText(Traces() + "/Llama_greedy/plain_bench.log"), "decodeprof: guard: "));

  // The profiled log: phase marks on, rocprofv3's glog line and the guard's lines gone.
  const std::string bench = ReadText(Out() + "/Llama_greedy_bench.log");
  EXPECT_EQ(Count(bench, "[phase] "), 4) << bench;
  EXPECT_FALSE(Has(bench, "W1201 12:00:00")) << bench;
  EXPECT_FALSE(Has(bench, "decodeprof: guard: ")) << bench;
  EXPECT_TRUE(Has(ReadText(Traces() + "/Llama_greedy/bench.log"), "W1201 12:00:00"));

  // Summaries from the real summarize over the stand-in's kernel trace and both logs.
  const std::string summary = ReadText(Out() + "/Llama_greedy_summary.json");
  EXPECT_TRUE(Has(summary, "\"decode_dispatches\": 18")) << summary;
  EXPECT_TRUE(Has(summary, "\"generated_tokens\": 4")) << summary;
  EXPECT_TRUE(Has(summary, "\"plain_decode_tok_s\": 10000.0")) << summary;
  EXPECT_TRUE(Exists(Out() + "/Llama_greedy_plain_bench_2.log"));
  EXPECT_TRUE(Exists(Out() + "/Llama_greedy_plain_bench_3.log"));
  const auto parsed = nlohmann::json::parse(summary);
  EXPECT_EQ(parsed["plain_runs"]["count"], 3) << summary;
  EXPECT_EQ(parsed["plain_runs"]["spread_pct"], 0.0) << summary;  // the stand-in never varies
  EXPECT_TRUE(Has(summary, "\"profiled_decode_tok_s\": 8000.0")) << summary;
  EXPECT_TRUE(Has(summary, "\"model_type\": \"llama\"")) << summary;
  EXPECT_TRUE(Has(summary, "\"pack\": \"mlx-rocm\"")) << summary;
  EXPECT_TRUE(Exists(Out() + "/Llama_greedy_decode_kernels.csv"));
  EXPECT_TRUE(Has(ReadText(Out() + "/Qwen_greedy_kernel_stats.csv"), "\"TotalDurationNs\""));
}

TEST_F(ProfileCliTest, SeveralSamplingSettingsWithoutPlainRuns) {
  const std::string model = fx_.MakeModel("Granite");
  const RunResult r = fx_.Run(Args(
      {model}, {"--no-plain", "--sampling", "0", "--sampling", "0.7", "--sampling", "0.7:0.95"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string log = ReadText(Out() + "/guard.log");
  EXPECT_FALSE(Has(log, " plain\n")) << log;
  const size_t a = log.find("== Granite_greedy profiled");
  const size_t b = log.find("== Granite_t0.7 profiled");
  const size_t c = log.find("== Granite_t0.7-p0.95 profiled");
  EXPECT_TRUE(a < b && b < c && c != std::string::npos) << log;
  for (const char* name : {"Granite_greedy", "Granite_t0.7", "Granite_t0.7-p0.95"}) {
    EXPECT_TRUE(Exists(Out() + "/" + name + "_summary.json")) << name;
    EXPECT_FALSE(Exists(Out() + "/" + name + "_plain_bench.log")) << name;
  }
  EXPECT_TRUE(
      Has(ReadText(Out() + "/Granite_t0.7-p0.95_bench.log"), "--temperature 0.7 --top-p 0.95\n"));
  EXPECT_TRUE(Has(ReadText(Out() + "/Granite_t0.7_summary.json"), "\"temperature\": 0.7"));
  EXPECT_FALSE(Has(ReadText(Out() + "/Granite_t0.7_summary.json"), "plain_decode_tok_s\": 1"));
}

TEST_F(ProfileCliTest, PathsAreScrubbedLiterallyInACheckoutWithOddNames) {
  if (std::system("git --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "git is not installed";
  // A checkout and a trace dir whose names hold '#' and regex characters.
  const std::string repo = fx_.Path("ch#eck.out*[1]+(x)$");
  const std::string traces = fx_.Path("tr#a.b*[x]+(y)$\\1&");
  std::filesystem::create_directories(repo + "/tools");
  std::filesystem::copy_file(Bench(), repo + "/tools/bench.sh");
  testing::WriteText(repo + "/README", "one\n");
  const std::string git = "git -C '" + repo + "' -c user.name=t -c user.email=t@example.com ";
  ASSERT_EQ(
      std::system((git + "init -q && " + git + "add README tools && " + git + "commit -q -m first")
                      .c_str()),
      0);
  testing::WriteText(repo + "/README", "two\n");  // dirty: a tracked file differs
  std::filesystem::create_directories(repo + "/models/M");
  const std::string commit = [&] {
    std::string text;
    FILE* p = ::popen(("git -C '" + repo + "' rev-parse --short=8 HEAD").c_str(), "r");
    char buf[64];
    while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) text += buf;
    if (p != nullptr) ::pclose(p);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }();
  ASSERT_EQ(commit.size(), 8u);

  // No --out: the default names the commit, relative to the checkout.
  const RunResult r = fx_.Run({"--trace-dir", traces, "--idle-secs", "0", "--backend", "rocprofv3",
                               "--model", repo + "/models/M", "--", repo + "/tools/bench.sh"},
                              {}, repo);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Has(r.err, "note: the source tree differs from " + commit +
                             "; record the diff with the results\n"))
      << r.err;
  const std::string out = repo + "/benchmarks/profiles/" + commit;
  EXPECT_TRUE(Has(r.err, "results: benchmarks/profiles/" + commit + "\n")) << r.err;

  const std::string log = ReadText(out + "/guard.log");
  EXPECT_TRUE(Has(log, "attempt 1/5: start: tools/bench.sh -m models/M -p profile")) << log;
  EXPECT_TRUE(Has(log, "-o <trace-dir>/M_greedy/M_greedy.sqlite")) << log;
  for (const char* file : {"guard.log", "M_greedy_plain_bench.log", "M_greedy_bench.log"}) {
    const std::string text = ReadText(out + "/" + file);
    EXPECT_FALSE(text.empty()) << file;
    EXPECT_FALSE(Has(text, repo)) << file << ":\n" << text;
    EXPECT_FALSE(Has(text, traces)) << file << ":\n" << text;
  }
  EXPECT_TRUE(Has(ReadText(out + "/M_greedy_bench.log"),
                  "decodeprof: record: <trace-dir>/M_greedy/M_greedy.sqlite: 30 kernels"));
  EXPECT_TRUE(Exists(out + "/M_greedy_summary.json"));
}

TEST_F(ProfileCliTest, AFailingRecordedRunStopsEverythingWithItsStatusAndStillScrubs) {
  const std::string model = fx_.MakeModel("Llama");
  const std::string second = fx_.MakeModel("Qwen");
  const RunResult r =
      fx_.Run(Args({model, second}), {"FAKE_BENCH_EXIT=3", "FAKE_BENCH_EXIT_MARKED=1"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_TRUE(Has(r.err, "decodeprof: profile: Llama_greedy: the profiled run failed with exit 3"))
      << r.err;
  EXPECT_TRUE(Has(r.err, "  fake bench: failing with 3\n")) << r.err;  // the log's tail
  EXPECT_TRUE(Has(r.err, "traces: ")) << r.err;
  const std::string log = ReadText(Out() + "/guard.log");
  EXPECT_TRUE(Has(log, "attempt 1: CLEAN, exit 3")) << log;
  EXPECT_TRUE(Has(log, "<trace-dir>/Llama_greedy/")) << log;
  EXPECT_FALSE(Has(log, Traces())) << log;
  EXPECT_FALSE(Has(log, "Qwen")) << log;  // the second model never ran
  EXPECT_TRUE(Exists(Out() + "/Llama_greedy_plain_bench.log"));
  EXPECT_FALSE(Exists(Out() + "/Llama_greedy_bench.log"));
  EXPECT_FALSE(Exists(Out() + "/Llama_greedy_summary.json"));
}

TEST_F(ProfileCliTest, AFailingPlainRunStopsBeforeTheRecordedOne) {
  const RunResult r = fx_.Run(Args({fx_.MakeModel("Llama")}), {"FAKE_BENCH_EXIT=4"});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_TRUE(Has(r.err, "Llama_greedy: the plain run failed with exit 4")) << r.err;
  EXPECT_FALSE(Has(ReadText(Out() + "/guard.log"), "profiled")) << ReadText(Out() + "/guard.log");
}

TEST_F(ProfileCliTest, AGuardThatGivesUpStopsTheProfileWith75) {
  testing::WriteText(fx_.kfd() + "/" + std::to_string(::getpid()), "");  // the GPU is busy
  std::vector<std::string> args = Args({fx_.MakeModel("Llama")}, {"--max-wait", "1"});
  args[5] = "1";  // --idle-secs
  const RunResult r = fx_.Run(args);
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_TRUE(Has(r.err, "the guard gave up")) << r.err;
  EXPECT_TRUE(Has(ReadText(Out() + "/guard.log"), "gave up after"));
  EXPECT_FALSE(Exists(Out() + "/Llama_greedy_plain_bench.log"));
}

TEST_F(ProfileCliTest, SigtermDuringARecordedRunStopsItAndScrubs) {
  const std::string pidfile = fx_.Path("bench.pid");
  testing::Started started = fx_.Start(
      Args({fx_.MakeModel("Llama")}, {"--no-plain"}),
      {"FAKE_BENCH_SLEEP=60", "FAKE_BENCH_SLEEP_MARKED=1", "FAKE_BENCH_PIDFILE=" + pidfile});
  ASSERT_TRUE(testing::WaitFor([&] { return !ReadText(pidfile).empty(); }, 30));
  const pid_t bench = static_cast<pid_t>(std::stol(ReadText(pidfile)));
  ::kill(started.pid(), SIGTERM);
  const RunResult r = started.Wait(30);
  EXPECT_EQ(r.status, 143) << r.err;
  EXPECT_LT(r.secs, 20);
  EXPECT_TRUE(Has(r.err, "decodeprof: profile: stopped by SIGTERM")) << r.err;
  EXPECT_TRUE(Has(r.err, "traces: " + Traces())) << r.err;
  EXPECT_TRUE(testing::WaitFor([&] { return testing::ProcessGone(bench); }, 10));
  const std::string log = ReadText(Out() + "/guard.log");
  EXPECT_TRUE(Has(log, "caught SIGTERM: stopping command and monitor")) << log;
  EXPECT_TRUE(Has(log, "<trace-dir>/Llama_greedy/Llama_greedy.sqlite")) << log;
  EXPECT_FALSE(Has(log, Traces())) << log;
  EXPECT_FALSE(Exists(Out() + "/Llama_greedy_bench.log"));
}

TEST_F(ProfileCliTest, ASummarizeFailureIsReportedAndTheProfileGoesOn) {
  const RunResult r =
      fx_.Run(Args({fx_.MakeModel("Llama"), fx_.MakeModel("Qwen")}), {"FAKE_BENCH_NO_MARKS=1"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* name : {"Llama_greedy", "Qwen_greedy"}) {
    const std::string trace =
        Traces() + "/" + name + "/" + name + ".sqlite.rocprofv3/trace_kernel_trace.csv";
    EXPECT_TRUE(
        Has(r.err, std::string("summarize failed for ") + name + "; rerun it on " + trace + "\n"))
        << r.err;
    EXPECT_FALSE(Exists(Out() + "/" + name + "_summary.json"));
    EXPECT_TRUE(Exists(Out() + "/" + name + "_bench.log"));
  }
  EXPECT_TRUE(Has(r.err, "decodeprof: profile: ")) << r.err;  // summarize's own error
}

TEST_F(ProfileCliTest, TheCuptiBackendRecordsThroughDecodeprofRecord) {
  // No GPU here: the bench itself writes the native file the recorder would have written.
  const std::string native = fx_.Path("recorded.sqlite");
  ASSERT_TRUE(
      record::ConvertRocprofv3Csv(ProfileFixture::Testdata("kernel_trace.csv"), native).ok());
  std::vector<std::string> args = Args({fx_.MakeModel("Llama")});
  args[7] = "cupti";  // --backend
  const RunResult r =
      fx_.Run(args, {"DECODEPROF_CUPTI_INJECTION=" + native, "FAKE_BENCH_NATIVE=" + native});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Exists(Traces() + "/Llama_greedy/Llama_greedy.sqlite"));
  EXPECT_TRUE(Has(ReadText(Out() + "/guard.log"), "--backend cupti -- "))
      << ReadText(Out() + "/guard.log");
  const std::string summary = ReadText(Out() + "/Llama_greedy_summary.json");
  EXPECT_TRUE(Has(summary, "\"decode_dispatches\": 18")) << summary;
  EXPECT_TRUE(Has(summary, "\"trace_format\": \"native\"")) << summary;
  // The fixture's kernels are MLX's (converted from a rocprofv3 CSV): the default pack follows
  // the kernel names, whatever the format (docs/packs.md, "Which pack a trace gets").
  EXPECT_TRUE(Has(summary, "\"pack\": \"mlx-rocm\"")) << summary;
  EXPECT_FALSE(Exists(Out() + "/Llama_greedy_kernel_stats.csv"));
}

TEST_F(ProfileCliTest, AFailedRecordingStopsTheProfileWithRecordsStatus) {
  // The bench runs but no trace is written (it never loads CUDA): record exits 66.
  std::vector<std::string> args = Args({fx_.MakeModel("Llama")}, {"--no-plain"});
  args[7] = "cupti";
  const RunResult r = fx_.Run(args, {"DECODEPROF_CUPTI_INJECTION=" + Bench()});
  EXPECT_EQ(r.status, 66) << r.err;
  EXPECT_TRUE(Has(r.err, "the profiled run failed with exit 66")) << r.err;
}

TEST_F(ProfileCliTest, UsageAndConfigurationErrorsExit2BeforeAnyRun) {
  struct Case {
    std::vector<std::string> args;
    const char* expected;
  };
  const std::string model = fx_.MakeModel("Llama");
  const std::vector<Case> cases = {
      {{"--", Bench()}, "no model given"},
      {{"--model", model}, "no bench command given"},
      {{"--model", model, "--sampling", "0", "--temperature", "0.7", "--", Bench()},
       "--sampling replaces --temperature"},
      {{"--model", model, "--tokens", "12x", "--", Bench()},
       "--tokens: must be an integer from 1 to 1000000, got '12x'"},
      {{"--model", model, "--idle-secs", "-1", "--", Bench()},
       "--idle-secs: must be a whole number of seconds from 0 (no idle wait) to 86400 (a day), "
       "got '-1'"},
      {{"--model", model, "--sampling", "-1", "--", Bench()},
       "--sampling: must be T or T:P, T a number from 0 to 100 and P from 0 to 1, got '-1'"},
      {{"--model", model, "--max-attempts", "0", "--", Bench()},
       "--max-attempts: must be an integer from 1 to 1000, got '0'"},
      {{"--model", model, "--", fx_.Path("no-bench")}, "bench binary not found (build it first)"},
      {{"--model", model, "--backend", "nsys", "--", Bench()}, "--backend"},
      {{"--model", model, "--bench-args", "-m {modle}", "--", Bench()},
       "unknown placeholder {modle}"},
  };
  for (const Case& c : cases) {
    const RunResult r = fx_.Run(c.args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(Has(r.err, c.expected)) << c.expected << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, "decodeprof: profile: ")) << r.err;
  }
  EXPECT_FALSE(Exists(Out()));
  const RunResult no_rocprofv3 = fx_.Run(Args({model}), {"ROCPROFV3=" + fx_.Path("absent")});
  EXPECT_EQ(no_rocprofv3.status, 2);
  EXPECT_TRUE(Has(no_rocprofv3.err, "rocprofv3 not found (set ROCPROFV3)")) << no_rocprofv3.err;
}

}  // namespace
}  // namespace decodeprof::profile
