#include "src/guard/sampler.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/guard/guard_test_fakes.h"

namespace decodeprof::guard {
namespace {

using testing::FakeGpuSource;
using testing::FakeProcFs;
using testing::Kfd;
using Strings = std::vector<std::string>;

CompilerPattern Never() { return *CompilerPattern::Compile("^no-such-compiler-for-tests$"); }

// pid 1 init; 100 the guard; 200 the command; 300 its child; 500 an unrelated process.
FakeProcFs Table() {
  FakeProcFs proc;
  proc.Add(1, 0, "init");
  proc.Add(100, 1, "decodeprof");
  proc.Add(200, 100, "rocprofv3");
  proc.Add(300, 200, "mlxcel-bench-de");
  proc.Add(500, 1, "python3");
  return proc;
}

GpuReading Nvml(std::vector<std::pair<unsigned, int>> processes, std::vector<unsigned> util) {
  GpuReading reading;
  for (size_t d = 0; d < util.size(); ++d) {
    GpuDevice device;
    device.index = static_cast<int>(d);
    device.utilization_percent = util[d];
    reading.devices.push_back(device);
  }
  for (const auto& [pid, device] : processes) {
    reading.processes.push_back(GpuProcess{std::to_string(pid), device});
    ++reading.devices[static_cast<size_t>(device)].process_count;
  }
  return reading;
}

TEST(CompilerPatternTest, TheDefaultMatchesWholeCompilerNamesOnly) {
  const CompilerPattern p = *CompilerPattern::Compile(kDefaultCompilerRe);
  for (const char* yes : {"cargo", "rustc", "clang", "clang++", "clang-18", "hipcc", "nvcc", "cc1",
                          "cc1plus", "ld", "ld.lld", "ld.gold", "ld.bfd", "lld", "collect2"}) {
    EXPECT_TRUE(p.Matches(yes)) << yes;
  }
  for (const char* no : {"make", "ninja", "cmake", "clang-", "ldd", "xcc1", "ld.lldx", "bash",
                         "clang-tidy", "gcc"}) {
    EXPECT_FALSE(p.Matches(no)) << no;
  }
}

TEST(CompilerPatternTest, AnInvalidPatternIsAnError) {
  const auto bad = CompilerPattern::Compile("(unclosed");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), base::ErrorKind::kConfig);
  EXPECT_FALSE(bad.status().message().empty());
}

TEST(SamplerTest, KfdHoldersAreListedRawWithTheirComm) {
  FakeProcFs proc = Table();
  FakeGpuSource gpu;
  gpu.Push(Kfd({"300", "777", "junk"}));
  Sampler sampler(&proc, &gpu, Never());
  const Sample s = sampler.Take();
  EXPECT_EQ(s.holders, (Strings{"300:mlxcel-bench-de", "777:?", "junk:?"}));
  EXPECT_FALSE(s.quiet());
  // 300 descends from the command (200); 777 and junk are stale entries (seed #2065).
  EXPECT_THAT(Sampler::Foreign(s, 200), ::testing::IsEmpty());
  EXPECT_EQ(Sampler::Foreign(s, 500), (Strings{"300:mlxcel-bench-de"}));
}

TEST(SamplerTest, AnIdleSampleHasNoHolderAndNoCompiler) {
  FakeProcFs proc = Table();
  FakeGpuSource gpu;
  Sampler sampler(&proc, &gpu, Never());
  EXPECT_TRUE(sampler.Take().quiet());
}

TEST(SamplerTest, CompilersAnywhereOnTheHostCount) {
  FakeProcFs proc = Table();
  proc.Add(301, 300, "cc1plus");  // the command's own child compiles: still contention
  proc.Add(600, 1, "ld.lld");
  FakeGpuSource gpu;
  Sampler sampler(&proc, &gpu, *CompilerPattern::Compile(kDefaultCompilerRe));
  const Sample s = sampler.Take();
  EXPECT_EQ(s.compilers, (Strings{"301:cc1plus", "600:ld.lld"}));
  EXPECT_FALSE(s.quiet());
}

TEST(SamplerTest, OneSnapshotAnswersEveryQuestionOfASample) {
  // The holder appears in the GPU reading; the process table read right after it must be
  // the one the foreign test uses (seed 1.10: the granite sample 4 contradiction).
  FakeProcFs proc = Table();
  FakeGpuSource gpu;
  gpu.Push(Kfd({"500"}));
  gpu.on_read = [&](int) { proc.Add(501, 1, "late"); };
  Sampler sampler(&proc, &gpu, Never());
  const Sample s = sampler.Take();
  EXPECT_TRUE(s.snapshot.Exists(501));
  EXPECT_EQ(s.holders, (Strings{"500:python3"}));
  EXPECT_EQ(Sampler::Foreign(s, 200), (Strings{"500:python3"}));
}

TEST(SamplerTest, NvmlPidsInOurProcFollowAncestry) {
  FakeProcFs proc = Table();
  FakeGpuSource gpu;
  gpu.Push(Nvml({{300, 0}, {500, 1}, {300, 1}}, {90, 5}));
  Sampler sampler(&proc, &gpu, Never());
  const Sample s = sampler.Take();
  EXPECT_EQ(s.holders, (Strings{"300:mlxcel-bench-de", "500:python3"}));
  EXPECT_EQ(Sampler::Foreign(s, 200), (Strings{"500:python3"}));
}

TEST(SamplerTest, AnInvisibleNvmlPidIsForeignOnlyWhileItsDeviceIsBusy) {
  FakeProcFs proc = Table();
  FakeGpuSource gpu;
  gpu.Push(Nvml({{300, 0}, {4242, 0}}, {80}));  // busy: another namespace is computing
  gpu.Push(Nvml({{4242, 0}}, {0}));             // idle context elsewhere
  Sampler sampler(&proc, &gpu, Never());
  const Sample busy = sampler.Take();
  EXPECT_EQ(busy.holders, (Strings{"300:mlxcel-bench-de", "4242:?"}));
  EXPECT_EQ(Sampler::Foreign(busy, 200), (Strings{"4242:?"}));
  const Sample idle = sampler.Take();
  EXPECT_EQ(idle.holders, (Strings{"4242:?"}));  // still not an idle GPU for the idle wait
  EXPECT_THAT(Sampler::Foreign(idle, 200), ::testing::IsEmpty());
}

TEST(SamplerTest, ABusyDeviceWithoutProcessesIsForeignFromTheSecondSampleOn) {
  FakeProcFs proc = Table();
  FakeGpuSource gpu;
  gpu.Push(Nvml({}, {3, 55}));
  gpu.Push(Nvml({}, {3, 60}));
  gpu.Push(Nvml({}, {3, 0}));
  gpu.Push(Nvml({}, {3, 70}));
  Sampler sampler(&proc, &gpu, Never());
  const Sample first = sampler.Take();
  EXPECT_EQ(first.holders, (Strings{"nvidia1:util=55%"}));
  EXPECT_FALSE(first.quiet());
  // One reading may be the command's own process that just exited (utilization lags).
  EXPECT_THAT(Sampler::Foreign(first, 200), ::testing::IsEmpty());
  const Sample second = sampler.Take();
  EXPECT_EQ(Sampler::Foreign(second, 200), (Strings{"nvidia1:util=60%"}));
  const Sample third = sampler.Take();
  EXPECT_TRUE(third.quiet());  // 3% is below kBusyPercent
  const Sample fourth = sampler.Take();
  EXPECT_THAT(Sampler::Foreign(fourth, 200), ::testing::IsEmpty());  // the streak restarted
}

TEST(SamplerTest, UnknownUtilizationIsNotBusy) {
  FakeProcFs proc = Table();
  FakeGpuSource gpu;
  GpuReading reading = Nvml({{4242, 0}}, {0});
  reading.devices[0].utilization_percent.reset();
  gpu.Push(reading);
  Sampler sampler(&proc, &gpu, Never());
  const Sample s = sampler.Take();
  EXPECT_EQ(s.holders, (Strings{"4242:?"}));
  EXPECT_THAT(Sampler::Foreign(s, 200), ::testing::IsEmpty());
}

TEST(SamplerTest, AFailedReadingIsNeitherIdleNorClean) {
  FakeProcFs proc = Table();
  FakeGpuSource gpu;
  gpu.failing_reads = {0};
  Sampler sampler(&proc, &gpu, Never());
  const Sample s = sampler.Take();
  ASSERT_EQ(s.holders.size(), 1u);
  EXPECT_THAT(s.holders[0], ::testing::StartsWith("error(fake: cannot read"));
  EXPECT_EQ(Sampler::Foreign(s, 200), s.holders);
  EXPECT_TRUE(sampler.Take().quiet());
}

TEST(JoinListTest, CommaJoined) {
  EXPECT_EQ(JoinList({}), "");
  EXPECT_EQ(JoinList({"1:a"}), "1:a");
  EXPECT_EQ(JoinList({"1:a", "2:b"}), "1:a,2:b");
}

}  // namespace
}  // namespace decodeprof::guard
