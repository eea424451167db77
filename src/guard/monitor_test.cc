#include "src/guard/monitor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/guard/guard_test_fakes.h"

namespace decodeprof::guard {
namespace {

using testing::FakeChild;
using testing::FakeClock;
using testing::FakeGpuSource;
using testing::FakeProcFs;
using ::testing::HasSubstr;
using testing::Kfd;
using testing::MemFile;
using ::testing::Not;

class MonitorTest : public ::testing::Test {
 protected:
  MonitorTest() : notes_(&clock_, err_.fd(), log_.fd()) {
    proc_.Add(1, 0, "init");
    proc_.Add(200, 1, "bench");
    proc_.Add(500, 1, "python3");
  }
  Sampler MakeSampler() {
    return Sampler(&proc_, &gpu_, *CompilerPattern::Compile("^no-such-compiler-for-tests$"));
  }

  FakeClock clock_;
  FakeProcFs proc_;
  FakeGpuSource gpu_;
  MemFile err_;
  MemFile log_;
  Notes notes_;
};

TEST_F(MonitorTest, AFiveSecondIdleWaitTakesFiveWallSeconds) {
  Sampler sampler = MakeSampler();
  const double start = clock_.Now();
  EXPECT_EQ(IdleWait(5, sampler, clock_, notes_, Budget{}), IdleOutcome::kIdle);
  EXPECT_DOUBLE_EQ(clock_.Now() - start, 5.0);
  EXPECT_EQ(gpu_.reads(), 6);  // quiet at 0, 1, 2, 3, 4 and 5 s
  const std::string err = err_.Text();
  EXPECT_THAT(err, HasSubstr("decodeprof: guard: 2026-09-30T19:36:18+0900 waiting for 5s of idle "
                             "GPU and no compiler\n"));
  EXPECT_THAT(err, HasSubstr("idle for 5s: kfd proc empty and no compiler in every 1 Hz sample"));
  EXPECT_EQ(log_.Text().substr(0, 25), "2026-09-30T19:36:18+0900 ");
}

TEST_F(MonitorTest, SlowSamplesDoNotStretchTheIdleWait) {
  // Each /proc scan costs 0.45 s (the seed's samples drifted to ~1.45 s apart).
  gpu_.on_read = [&](int) { clock_.Advance(0.45); };
  Sampler sampler = MakeSampler();
  const double start = clock_.Now();
  EXPECT_EQ(IdleWait(90, sampler, clock_, notes_, Budget{}), IdleOutcome::kIdle);
  EXPECT_LT(clock_.Now() - start, 91.0);
  EXPECT_GE(clock_.Now() - start, 90.0);
}

TEST_F(MonitorTest, ABusySampleResetsTheStreakAndSaysSoOnlyAfterAQuietSecond) {
  gpu_.Push(Kfd({}));       // 0 s quiet
  gpu_.Push(Kfd({}));       // 1 s quiet
  gpu_.Push(Kfd({"500"}));  // 2 s busy: reset after 2s
  gpu_.Push(Kfd({"500"}));  // 3 s busy: no second note
  gpu_.Push(Kfd({}));       // 4 s quiet ...
  Sampler sampler = MakeSampler();
  const double start = clock_.Now();
  EXPECT_EQ(IdleWait(2, sampler, clock_, notes_, Budget{}), IdleOutcome::kIdle);
  EXPECT_DOUBLE_EQ(clock_.Now() - start, 6.0);  // quiet at 4, 5, 6
  const std::string err = err_.Text();
  EXPECT_EQ(testing::CountOf(err, "idle streak reset"), 1);
  EXPECT_THAT(err, HasSubstr("idle streak reset after 2s: gpu=[500:python3] compilers=[]"));
}

TEST_F(MonitorTest, TheIdleWaitGivesUpWhenTheBudgetIsSpent) {
  gpu_.Push(Kfd({"500"}));
  Sampler sampler = MakeSampler();
  const Budget budget{3, clock_.Now(), 0};
  EXPECT_EQ(IdleWait(1, sampler, clock_, notes_, budget), IdleOutcome::kGaveUp);
  // It says what blocked it.
  EXPECT_THAT(err_.Text(), HasSubstr("gave up after 3s of waiting without 1s of idle; last "
                                     "blocked by gpu=[500:python3] compilers=[]"));
  EXPECT_DOUBLE_EQ(budget.Waited(clock_.Now()), 3.0);
}

TEST_F(MonitorTest, TheCommandsRunTimeDoesNotCountAgainstTheBudget) {
  gpu_.Push(Kfd({"500"}));
  Sampler sampler = MakeSampler();
  const Budget budget{3, clock_.Now() - 100.0, 99.0};  // 100 s ago, 99 s of which ran
  EXPECT_EQ(IdleWait(1, sampler, clock_, notes_, budget), IdleOutcome::kGaveUp);
  EXPECT_DOUBLE_EQ(budget.Waited(clock_.Now()), 3.0);
}

TEST_F(MonitorTest, ZeroIdleSecondsTakesNoSample) {
  Sampler sampler = MakeSampler();
  EXPECT_EQ(IdleWait(0, sampler, clock_, notes_, Budget{}), IdleOutcome::kIdle);
  EXPECT_EQ(gpu_.reads(), 0);
  EXPECT_THAT(err_.Text(), HasSubstr("idle for 0s"));
}

TEST_F(MonitorTest, ASignalStopsTheIdleWait) {
  gpu_.Push(Kfd({"500"}));
  clock_.InterruptAt(clock_.Now() + 2.5);
  Sampler sampler = MakeSampler();
  EXPECT_EQ(IdleWait(1, sampler, clock_, notes_, Budget{}), IdleOutcome::kInterrupted);
}

TEST_F(MonitorTest, ASixSecondCommandIsSampledSixTimes) {
  FakeChild child(&clock_, 200, clock_.Now() + 6.0);
  clock_.ChildExitsAt(clock_.Now() + 6.0);
  Sampler sampler = MakeSampler();
  const MonitorResult r = Monitor(child, sampler, clock_, notes_);
  EXPECT_EQ(r.samples, 6u);  // at 0, 1, 2, 3, 4, 5 s; the exit at 6 s ends the loop
  EXPECT_FALSE(r.contended);
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(testing::CountOf(log_.Text(), "clean gpu=[]"), 6);
  EXPECT_THAT(err_.Text(), Not(HasSubstr("clean")));
  EXPECT_THAT(err_.Text(), HasSubstr("monitor: 6 samples"));
}

TEST_F(MonitorTest, ForeignHoldersAndCompilersAreContention) {
  proc_.Add(201, 200, "bench-child");
  gpu_.Push(Kfd({"201"}));
  gpu_.Push(Kfd({"201", "500"}));
  gpu_.Push(Kfd({"201"}));
  FakeChild child(&clock_, 200, clock_.Now() + 2.5);
  clock_.ChildExitsAt(clock_.Now() + 2.5);
  Sampler sampler = MakeSampler();
  const MonitorResult r = Monitor(child, sampler, clock_, notes_);
  EXPECT_EQ(r.samples, 3u);
  EXPECT_TRUE(r.contended);
  EXPECT_THAT(log_.Text(), HasSubstr("sample 1: clean gpu=[201:bench-child]"));
  EXPECT_THAT(err_.Text(), HasSubstr("sample 2: CONTENDED foreign_gpu=[500:python3] compilers=[]"));
  EXPECT_THAT(log_.Text(), HasSubstr("sample 3: clean gpu=[201:bench-child]"));
  EXPECT_EQ(r.blocked_by, "gpu=[500:python3] compilers=[]");
}

TEST_F(MonitorTest, AnInterruptedMonitorSaysSoAndPrintsNoTotal) {
  FakeChild child(&clock_, 200, clock_.Now() + 60.0);
  clock_.InterruptAt(clock_.Now() + 1.5);
  Sampler sampler = MakeSampler();
  const MonitorResult r = Monitor(child, sampler, clock_, notes_);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.samples, 2u);
  EXPECT_THAT(err_.Text(), Not(HasSubstr("monitor:")));
}

TEST_F(MonitorTest, ACommandGoneBeforeTheFirstSampleHasNone) {
  FakeChild child(&clock_, 200, clock_.Now());
  Sampler sampler = MakeSampler();
  const MonitorResult r = Monitor(child, sampler, clock_, notes_);
  EXPECT_EQ(r.samples, 0u);
  EXPECT_THAT(err_.Text(), HasSubstr("monitor: 0 samples"));
}

}  // namespace
}  // namespace decodeprof::guard
