#include "src/record/launcher.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "src/native_format/native_writer.h"
#include "src/record/only_range.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::record {
namespace {

namespace nf = native_format;

GetEnvFn Env(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(LauncherTest, FindsTheInjectionLibraryNextToTheBinaryOrInTheBuildTree) {
  const std::string root = decodeprof::testing::ScratchDir("launcher_");
  ASSERT_EQ(::mkdir((root + "/cli").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((root + "/record").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((root + "/record/cupti").c_str(), 0755), 0);
  auto missing = FindInjectionLibrary(root + "/cli", Env({}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), base::ErrorKind::kConfig);
  EXPECT_NE(missing.status().message().find("libdecodeprof_cupti.so"), std::string::npos);

  std::ofstream(root + "/record/cupti/libdecodeprof_cupti.so") << "x";
  auto found = FindInjectionLibrary(root + "/cli", Env({}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, root + "/cli/../record/cupti/libdecodeprof_cupti.so");

  auto bad_explicit =
      FindInjectionLibrary(root + "/cli", Env({{"DECODEPROF_CUPTI_INJECTION", "/nope.so"}}));
  ASSERT_FALSE(bad_explicit.ok());
  EXPECT_EQ(bad_explicit.status().where(), "DECODEPROF_CUPTI_INJECTION");
}

TEST(LauncherTest, FindsCuptiUnderCudaHome) {
  const std::string root = decodeprof::testing::ScratchDir("launcher_");
  ASSERT_EQ(::mkdir((root + "/lib64").c_str(), 0755), 0);
  std::ofstream(root + "/lib64/libcupti.so.13") << "x";
  EXPECT_EQ(FindCuptiLibrary(Env({{"CUDA_HOME", root}})), root + "/lib64/libcupti.so.13");
  EXPECT_EQ(FindCuptiLibrary(Env({{"DECODEPROF_CUPTI_LIB", "/x/libcupti.so"}})), "/x/libcupti.so");
}

TEST(LauncherTest, EnvironmentSetsTheRecorderVariablesAndReplacesOthers) {
  std::vector<trace::DiagMessage> warnings;
  const auto env = RecordEnvironment(
      {"PATH=/bin", "CUDA_INJECTION64_PATH=/other/tool.so", "DECODEPROF_RECORD_ROOT_PID=1"},
      "/out/t.sqlite", "/lib/libdecodeprof_cupti.so", "/cuda/libcupti.so.13", true, "", &warnings);
  const std::vector<std::string> expected = {
      "PATH=/bin",
      "CUDA_INJECTION64_PATH=/lib/libdecodeprof_cupti.so",
      "NVTX_INJECTION64_PATH=/lib/libdecodeprof_cupti.so",
      "DECODEPROF_RECORD_OUTPUT=/out/t.sqlite",
      "DECODEPROF_RECORD_FOLLOW_FORK=1",
      "DECODEPROF_CUPTI_LIB=/cuda/libcupti.so.13",
  };
  EXPECT_EQ(env, expected);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].code, trace::Diag::kInjectionVariableReplaced);
  EXPECT_EQ(
      warnings[0].text,
      "CUDA_INJECTION64_PATH was '/other/tool.so' (another tool?); replaced for the recording");
}

TEST(LauncherTest, OnlyRangeSetsItsVariableElseKeepsTheUsersSetting) {
  const std::vector<std::string> base = {"PATH=/bin", "DECODEPROF_RECORD_ONLY_RANGE=mine"};
  const auto gated =
      RecordEnvironment(base, "/o.sqlite", "/l.so", "", false, "decodeprof:decode", nullptr);
  EXPECT_EQ(
      std::count(gated.begin(), gated.end(), "DECODEPROF_RECORD_ONLY_RANGE=decodeprof:decode"), 1);
  EXPECT_EQ(std::count(gated.begin(), gated.end(), "DECODEPROF_RECORD_ONLY_RANGE=mine"), 0);
  const auto kept = RecordEnvironment(base, "/o.sqlite", "/l.so", "", false, "", nullptr);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), "DECODEPROF_RECORD_ONLY_RANGE=mine"), 1);
}

TEST(LauncherTest, ABadOnlyRangeIsAUsageErrorBeforeAnythingRuns) {
  const std::string dir = decodeprof::testing::ScratchDir("launcher_");
  RecordOptions options;
  options.output = dir + "/t.sqlite";
  options.only_range = std::string("a\tb");
  options.command = {"/bin/sh", "-c", "touch " + dir + "/ran"};
  auto result = RecordWithCupti(options, dir, Env({}), nullptr);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), base::ErrorKind::kUsage);
  EXPECT_NE(result.status().message().find("--only-range"), std::string::npos);
  EXPECT_NE(::access((dir + "/ran").c_str(), F_OK), 0);
  options.only_range = std::string(kMaxOnlyRangeBytes + 1, 'x');
  EXPECT_FALSE(RecordWithCupti(options, dir, Env({}), nullptr).ok());
}

// Issue 11, "Output paths": -o is checked before CMD runs.
TEST(LauncherTest, AnOutputThatMustNotBeReplacedIsRefusedBeforeAnythingRuns) {
  const std::string dir = decodeprof::testing::ScratchDir("launcher_");
  std::ofstream(dir + "/fake.so") << "x";
  std::ofstream(dir + "/target") << "keep";
  ASSERT_EQ(::symlink("target", (dir + "/link.sqlite").c_str()), 0);
  const std::string script = dir + "/bench.sh";
  std::ofstream(script) << "#!/bin/sh\ntouch " << dir << "/ran\n";
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  const auto env = Env({{"DECODEPROF_CUPTI_INJECTION", dir + "/fake.so"}});
  for (const auto& [output, kind] : std::vector<std::pair<std::string, base::ErrorKind>>{
           {dir + "/link.sqlite", base::ErrorKind::kIo},  // a symlink
           {dir, base::ErrorKind::kIo},                   // a directory
           {"/dev/null", base::ErrorKind::kIo},           // a device
           {script, base::ErrorKind::kUsage},             // the program itself
           {dir + "/./target", base::ErrorKind::kUsage},  // a file CMD is given
           {"-", base::ErrorKind::kUsage}}) {
    RecordOptions options;
    options.output = output;
    options.command = {script, dir + "/target"};
    EXPECT_EQ(CheckRecordOutput(options).kind(), kind) << output;
    auto result = RecordWithCupti(options, dir, env, nullptr);
    ASSERT_FALSE(result.ok()) << output;
    EXPECT_EQ(result.status().kind(), kind) << result.status().ToString();
    EXPECT_NE(::access((dir + "/ran").c_str(), F_OK), 0) << output;
  }
  struct stat st {};
  ASSERT_EQ(::lstat((dir + "/link.sqlite").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  std::ifstream target(dir + "/target");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(target), {}), "keep");
  ASSERT_EQ(::lstat(script.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_TRUE(
      CheckRecordOutput(
          RecordOptions{dir + "/new.sqlite", Backend::kCupti, false, "", {script, dir + "/target"}})
          .ok());
}

TEST(LauncherTest, OnlyRangeNames) {
  EXPECT_EQ(OnlyRangeNameProblem("decodeprof:record"), "");
  EXPECT_EQ(OnlyRangeNameProblem("model.layers.0 (décodage)"), "");  // UTF-8 is fine
  EXPECT_EQ(OnlyRangeNameProblem(std::string(kMaxOnlyRangeBytes, 'x')), "");
  EXPECT_NE(OnlyRangeNameProblem(""), "");
  EXPECT_NE(OnlyRangeNameProblem("a\nb"), "");
  EXPECT_NE(OnlyRangeNameProblem("a\x7f"), "");
  EXPECT_NE(OnlyRangeNameProblem(std::string(kMaxOnlyRangeBytes + 1, 'x')), "");
}

TEST(LauncherTest, ReturnsTheCommandsExitStatus) {
  auto result = RunCommand({"sh", "-c", "exit 3"}, {"PATH=/usr/bin:/bin"}, "");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->status, 3);
  EXPECT_EQ(result->term_signal, 0);
}

TEST(LauncherTest, ASignalDeathIs128PlusTheSignal) {
  auto result = RunCommand({"sh", "-c", "kill -TERM $$"}, {"PATH=/usr/bin:/bin"}, "");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 143);
  EXPECT_EQ(result->term_signal, SIGTERM);
}

TEST(LauncherTest, ACommandThatCannotRunIs127) {
  auto result = RunCommand({"/nonexistent/program"}, {"PATH=/usr/bin:/bin"}, "");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 127);
  EXPECT_NE(result->exec_error.find("No such file"), std::string::npos);
}

TEST(LauncherTest, TheChildSeesItsOwnPidAsTheRootPid) {
  // sh's $$ is the pid of the exec'd command itself.
  auto result = RunCommand({"sh", "-c", "test \"$ROOT\" = \"$$\""}, {"PATH=/usr/bin:/bin"}, "ROOT");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 0);
}

TEST(LauncherTest, ForwardsATerminationSignalSentToTheLauncher) {
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
  // ThreadSanitizer defers a signal's handler until the thread leaves a call it does not know
  // to block; waitpid is one, so the forwarding runs only after the 20 s child ends.
  GTEST_SKIP() << "signal handlers are deferred past waitpid under ThreadSanitizer";
#endif
#endif
  const auto started = std::chrono::steady_clock::now();
  std::thread killer([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(::getpid(), SIGTERM);  // to us, the launcher: must reach the command
  });
  auto result = RunCommand({"sleep", "20"}, {"PATH=/usr/bin:/bin"}, "");
  killer.join();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 143);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

std::string WriteTrace(const std::string& dir, const std::string& status, int kernels, bool close) {
  const std::string path = dir + "/t.sqlite";
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  EXPECT_TRUE(writer.ok());
  nf::KernelRow k;
  k.name = *(*writer)->Intern("k");
  for (int i = 0; i < kernels; ++i) EXPECT_TRUE((*writer)->AddKernel(k).ok());
  EXPECT_TRUE((*writer)->SetMeta(nf::kMetaRecordingStatus, status).ok());
  EXPECT_TRUE((*writer)->SetCounter(nf::kCounterCuptiDropped, 4).ok());
  if (close) {
    EXPECT_TRUE((*writer)->Close().ok());
  } else {
    EXPECT_TRUE((*writer)->Commit().ok());
  }
  return path;
}

TEST(LauncherTest, TheSummaryOfAGatedRecordingNamesTheRange) {
  TraceSummary s;
  s.kernels = 5;
  s.complete = true;
  s.only_range = "decodeprof:record";
  s.only_range_periods = 4;
  EXPECT_EQ(FormatSummary("t.sqlite", s),
            "t.sqlite: 5 kernels, 0 memory operations, 0 API calls, 0 NVTX ranges, 0 marks, 0 "
            "dropped records; only inside NVTX range 'decodeprof:record': 4 periods");
  s.only_range_periods = 1;
  EXPECT_NE(FormatSummary("t.sqlite", s).find("': 1 period"), std::string::npos);
}

TEST(LauncherTest, TheSummaryOfATimeSampledRecordingCountsPeriodsAndDetaches) {
  TraceSummary s;
  s.kernels = 5;
  s.complete = true;
  s.sample_time = "50/2000";
  s.sample_periods = 3;
  s.cupti_detaches = 4;
  EXPECT_EQ(FormatSummary("t.sqlite", s),
            "t.sqlite: 5 kernels, 0 memory operations, 0 API calls, 0 NVTX ranges, 0 marks, 0 "
            "dropped records; sampled 50/2000 ms: 3 periods, CUPTI detached 4 times between "
            "them");
  s.cupti_detaches = -1;  // kept attached
  EXPECT_EQ(FormatSummary("t.sqlite", s).find("detached"), std::string::npos);
}

TEST(LauncherTest, TheSummaryOfASampledRecordingCountsItsSteps) {
  const std::string path = decodeprof::testing::ScratchDir("launcher_") + "/sampled.sqlite";
  {
    auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->SetMeta(nf::kMetaRecordingStatus, "ok").ok());
    ASSERT_TRUE((*writer)->SetMeta(kMetaSampleSteps, "8").ok());
    ASSERT_TRUE((*writer)->SetMeta(kMetaSampleRange, "execute_model").ok());
    ASSERT_TRUE((*writer)->SetCounter(kCounterSampleSteps, 128).ok());
    ASSERT_TRUE((*writer)->SetCounter(kCounterOnlyRangePeriods, 16).ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  const auto s = SummarizeTrace(path);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->sample_steps, 8);
  EXPECT_EQ(s->sample_range, "execute_model");
  EXPECT_EQ(s->sample_steps_seen, 128);
  const std::string line = FormatSummary("t.sqlite", *s);
  EXPECT_NE(line.find("; sampled one step in 8: 16 of 128 steps"), std::string::npos) << line;
}

TEST(LauncherTest, ChecksAndSummarizesTheRecording) {
  const std::string dir = decodeprof::testing::ScratchDir("launcher_");
  {
    const auto summary = SummarizeTrace(dir + "/none.sqlite");
    const base::Status check = CheckRecording(dir + "/none.sqlite", summary);
    EXPECT_EQ(check.kind(), base::ErrorKind::kIo);
    EXPECT_EQ(check.message(), "no trace was written");
  }
  {
    const std::string path = WriteTrace(dir, "CUPTI refused CONCURRENT_KERNEL: busy", 0, true);
    const base::Status check = CheckRecording(path, SummarizeTrace(path));
    EXPECT_EQ(check.kind(), base::ErrorKind::kData);
    EXPECT_NE(check.message().find("CUPTI refused"), std::string::npos);
  }
  {
    const std::string path = WriteTrace(dir, "ok (DECODEPROF_RECORD_DISCARD: ...)", 0, true);
    EXPECT_TRUE(CheckRecording(path, SummarizeTrace(path)).ok());
  }
  {
    const std::string path = WriteTrace(dir, "ok", 2, false);
    const auto summary = SummarizeTrace(path);
    ASSERT_TRUE(summary.ok());
    EXPECT_TRUE(CheckRecording(path, summary).ok());
    EXPECT_EQ(FormatSummary("t.sqlite", *summary),
              "t.sqlite: 2 kernels, 0 memory operations, 0 API calls, 0 NVTX ranges, 0 marks, "
              "4 dropped records; incomplete: the recorder did not close the file (killed?), it "
              "holds the records up to its last commit");
  }
}

}  // namespace
}  // namespace decodeprof::record
