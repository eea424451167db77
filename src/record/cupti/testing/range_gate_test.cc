// Unit tests of recording gated by an NVTX range (`--only-range`): the gate's counting and
// switching, its wiring into the NVTX collector, and the setting that names the range.
#include "src/record/cupti/range_gate.h"

#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "src/record/cupti/clock.h"
#include "src/record/cupti/config.h"
#include "src/record/cupti/nvtx_collector.h"
#include "src/record/only_range.h"

namespace decodeprof::record::cupti {
namespace {

// A switch that logs what it was asked; refuses while `refuse` is set.
struct SwitchLog {
  std::vector<bool> calls;
  bool refuse = false;
  RangeGate::SwitchFn Fn() {
    return [this](bool on) {
      calls.push_back(on);
      return !refuse;
    };
  }
};

TEST(RangeGateTest, CountsUntilAttachedThenSwitchesOnTheOutermostOpenAndLastClose) {
  RangeGate gate("decodeprof:record");
  SwitchLog log;
  gate.Open();
  gate.Close();
  EXPECT_EQ(gate.open_ranges(), 0);
  gate.Attach(log.Fn(), /*on_now=*/true);  // CUPTI came up with everything on: off it goes
  EXPECT_EQ(log.calls, std::vector<bool>{false});
  gate.Open();
  gate.Open();  // nested: no switch
  EXPECT_EQ(log.calls, (std::vector<bool>{false, true}));
  gate.Close();
  EXPECT_EQ(log.calls.size(), 2u);
  gate.Close();
  EXPECT_EQ(log.calls, (std::vector<bool>{false, true, false}));
  gate.Close();  // nothing open: ignored, the count stays at 0
  EXPECT_EQ(gate.open_ranges(), 0);
  gate.Open();
  EXPECT_EQ(log.calls.back(), true);
  EXPECT_EQ(gate.counts().periods, 2);
  EXPECT_EQ(gate.counts().switch_failures, 0);
}

TEST(RangeGateTest, SamplingRecordsTheMiddleOpeningOfEachGroupOfN) {
  RangeGate gate("decodeprof:step", 4);
  SwitchLog log;
  gate.Attach(log.Fn(), /*on_now=*/true);  // off until a sampled step
  ASSERT_EQ(log.calls, std::vector<bool>{false});
  std::vector<int> sampled;
  for (int step = 0; step < 10; ++step) {
    const size_t before = log.calls.size();
    gate.Open();
    gate.Open();  // a nested range of the name is part of the same step
    gate.Close();
    if (log.calls.size() > before) {
      EXPECT_TRUE(log.calls[before]) << step;
      sampled.push_back(step);
    }
    gate.Close();
  }
  EXPECT_EQ(sampled, (std::vector<int>{2, 6}));
  EXPECT_EQ(log.calls, (std::vector<bool>{false, true, false, true, false}));
  EXPECT_EQ(gate.counts().openings, 10);
  EXPECT_EQ(gate.counts().periods, 2);
  const auto periods = gate.periods();
  ASSERT_EQ(periods.size(), 2u);
  EXPECT_LE(periods[0].first, periods[0].second);
  EXPECT_LE(periods[0].second, periods[1].first);
}

TEST(RangeGateTest, SamplingAStepOpenBeforeAttachCountsIt) {
  RangeGate gate("s", 1);  // every step
  SwitchLog log;
  gate.Open();
  gate.Attach(log.Fn(), /*on_now=*/false);
  EXPECT_EQ(log.calls, std::vector<bool>{true});
  RangeGate sparse("s", 3);  // opening 0 is not sampled (1 is)
  SwitchLog none;
  sparse.Open();
  sparse.Attach(none.Fn(), /*on_now=*/true);
  EXPECT_EQ(none.calls, std::vector<bool>{false});
}

TEST(RangeGateTest, CoversHostTimesInsideItsPeriodsOnly) {
  RangeGate gate("r");
  SwitchLog log;
  gate.Attach(log.Fn(), /*on_now=*/true);  // off
  const int64_t before_first = MonotonicNs();
  gate.Open();
  const int64_t in_first = MonotonicNs();
  gate.Close();
  const int64_t between = MonotonicNs();
  gate.Open();
  const int64_t in_second = MonotonicNs();
  EXPECT_FALSE(gate.Covers(before_first - 1));
  EXPECT_TRUE(gate.Covers(in_first));
  EXPECT_FALSE(gate.Covers(between + 1));
  EXPECT_TRUE(gate.Covers(in_second));
  EXPECT_TRUE(gate.Covers(in_second + 1'000'000'000));  // the second period is still open
  gate.Close();
  const int64_t after = MonotonicNs();
  EXPECT_FALSE(gate.Covers(after + 1));
  EXPECT_TRUE(gate.Covers(in_second));
  // Not gating: everything is covered.
  EXPECT_TRUE(RangeGate("").Covers(0));
}

// A timer's period begins once the switch on has returned (attaching CUPTI again takes
// tens of ms: what ran meanwhile was not recorded); a range's, from just before its switch.
TEST(RangeGateTest, ATimedPeriodBeginsWhenRecordingIsOn) {
  RangeGate gate("");
  gate.MakeTimed();
  int64_t switched_on_at = 0;
  gate.Attach(
      [&](bool on) {
        if (on) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          switched_on_at = MonotonicNs();
        }
        return true;
      },
      /*on_now=*/false);
  const int64_t asked = MonotonicNs();
  gate.SetTimed(true);
  gate.SetTimed(false);
  const auto periods = gate.periods();
  ASSERT_EQ(periods.size(), 1u);
  EXPECT_GE(periods[0].first, switched_on_at);
  EXPECT_GT(periods[0].first, asked + 4'000'000);
  EXPECT_FALSE(gate.Covers(asked + 1'000'000));
}

TEST(RangeGateTest, APeriodOpenBeforeAttachCoversEverythingBefore) {
  RangeGate gate("r");
  SwitchLog log;
  gate.Open();
  gate.Attach(log.Fn(), /*on_now=*/true);
  EXPECT_TRUE(gate.Covers(0));
  gate.Close();
  EXPECT_FALSE(gate.Covers(MonotonicNs() + 1));
}

TEST(RangeGateTest, ARangeOpenWhenAttachedIsAPeriodWithoutASwitch) {
  RangeGate gate("r");
  SwitchLog log;
  gate.Open();
  gate.Attach(log.Fn(), /*on_now=*/true);
  EXPECT_TRUE(log.calls.empty());
  EXPECT_EQ(gate.counts().periods, 1);
  gate.Attach(SwitchLog().Fn(), false);  // a second Attach is ignored
  gate.Close();
  EXPECT_EQ(log.calls, std::vector<bool>{false});
}

TEST(RangeGateTest, RefusedSwitchesAreCountedNotPeriods) {
  RangeGate gate("r");
  SwitchLog log;
  gate.Attach(log.Fn(), /*on_now=*/false);
  EXPECT_TRUE(log.calls.empty());  // already off
  log.refuse = true;
  gate.Open();
  gate.Close();
  EXPECT_EQ(log.calls, (std::vector<bool>{true, false}));  // still switched off after a refusal
  EXPECT_EQ(gate.counts().periods, 0);
  EXPECT_EQ(gate.counts().switch_failures, 2);
}

TEST(RangeGateTest, WithoutANameNothingMatchesOrSwitches) {
  RangeGate gate("");
  SwitchLog log;
  EXPECT_FALSE(gate.gating());
  EXPECT_FALSE(gate.Matches(""));
  gate.Attach(log.Fn(), true);
  gate.Open();
  gate.Close();
  EXPECT_TRUE(log.calls.empty());
  RangeGate named("a:b");
  EXPECT_TRUE(named.Matches("a:b"));
  EXPECT_FALSE(named.Matches("a:b "));
  EXPECT_FALSE(named.Matches("A:B"));
}

TEST(RangeGateTest, ManyThreadsSeeRecordingOnWhileTheirRangeIsOpen) {
  RangeGate gate("r");
  std::atomic<bool> on{true};
  std::atomic<int> crossed{0};  // a switch to the state already in force
  gate.Attach(
      [&](bool want) {
        if (on.exchange(want) == want) ++crossed;
        return true;
      },
      /*on_now=*/true);
  std::atomic<int> off_inside{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        gate.Open();
        if (!on.load()) ++off_inside;
        gate.Close();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(off_inside.load(), 0);
  EXPECT_EQ(crossed.load(), 0);
  EXPECT_FALSE(on.load());
  EXPECT_EQ(gate.open_ranges(), 0);
  EXPECT_GE(gate.counts().periods, 1);
}

TEST(NvtxCollectorGateTest, EveryRangeOfTheNameOpensAndClosesTheGate) {
  RangeGate gate("g");
  SwitchLog log;
  gate.Attach(log.Fn(), /*on_now=*/false);
  NvtxCollector c(100, &gate);
  const NvtxDomain dflt = NvtxCollector::DefaultDomain();
  const NvtxDomain other = c.Domain("engine");
  EXPECT_EQ(c.Push(dflt, "g", 1, 7), 0);
  EXPECT_EQ(gate.open_ranges(), 1);
  EXPECT_EQ(c.Push(dflt, "other", 2, 7), 1);
  EXPECT_EQ(c.Pop(dflt, 3, 7), 1);  // closes "other": the gate stays open
  EXPECT_EQ(gate.open_ranges(), 1);
  const uint64_t id = c.Start(other, "g", 4, 8);
  EXPECT_EQ(gate.open_ranges(), 2);
  EXPECT_EQ(c.Pop(other, 5, 7), -1);  // nothing open in that domain: closes nothing
  EXPECT_EQ(gate.open_ranges(), 2);
  c.End(id, 6);
  c.End(id, 7);  // ended twice: unmatched the second time
  EXPECT_EQ(c.Pop(dflt, 8, 7), 0);
  EXPECT_EQ(gate.open_ranges(), 0);
  EXPECT_EQ(log.calls, (std::vector<bool>{true, false}));
  EXPECT_EQ(c.counts().unmatched_pops, 2);
  std::vector<NvtxRangeEvent> ranges;
  std::vector<NvtxMarkEvent> marks;
  c.Take(&ranges, &marks);
  EXPECT_EQ(ranges.size(), 3u);  // every range is recorded, the gate's included
}

TEST(NvtxCollectorGateTest, AClosedCollectorLeavesTheGateAlone) {
  RangeGate gate("g");
  NvtxCollector c(100, &gate);
  c.Push(NvtxCollector::DefaultDomain(), "g", 1, 7);
  c.Disable();  // exit or a forked child
  c.Pop(NvtxCollector::DefaultDomain(), 2, 7);
  c.Push(NvtxCollector::DefaultDomain(), "g", 3, 7);
  EXPECT_EQ(gate.open_ranges(), 1);
}

TEST(NvtxCollectorGateTest, AFullQueueStillClosesTheGate) {
  RangeGate gate("g");
  NvtxCollector c(1, &gate);
  c.Mark(NvtxCollector::DefaultDomain(), "fills the queue", 1, 7);
  c.Push(NvtxCollector::DefaultDomain(), "g", 2, 7);
  c.Pop(NvtxCollector::DefaultDomain(), 3, 7);
  EXPECT_EQ(gate.open_ranges(), 0);
  EXPECT_EQ(c.counts().dropped, 1);
}

GetEnvFn GateEnv(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(OnlyRangeConfigTest, ReadsTheNameAndRefusesBadOnes) {
  auto none = ReadRecorderConfig(GateEnv({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}}), 1, nullptr);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->only_range, "");
  auto named = ReadRecorderConfig(GateEnv({{"DECODEPROF_RECORD_OUTPUT", "/t/x"},
                                           {"DECODEPROF_RECORD_ONLY_RANGE", "decodeprof:decode"}}),
                                  1, nullptr);
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->only_range, "decodeprof:decode");
  for (const std::string& bad :
       {std::string(), std::string("a\tb"), std::string(kMaxOnlyRangeBytes + 1, 'r')}) {
    auto config = ReadRecorderConfig(
        GateEnv({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}, {"DECODEPROF_RECORD_ONLY_RANGE", bad}}), 1,
        nullptr);
    ASSERT_FALSE(config.ok());
    EXPECT_EQ(config.status().kind(), base::ErrorKind::kConfig);
    EXPECT_EQ(config.status().where(), "DECODEPROF_RECORD_ONLY_RANGE");
  }
}

TEST(SampleStepsConfigTest, ReadsNAndTheStepRangeAndRefusesOnlyRangeBesideIt) {
  auto plain = ReadRecorderConfig(GateEnv({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}}), 1, nullptr);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->sample_steps, 1u);
  EXPECT_EQ(plain->gate_range(), "");
  auto sampled = ReadRecorderConfig(GateEnv({{"DECODEPROF_RECORD_OUTPUT", "/t/x"},
                                             {"DECODEPROF_RECORD_SAMPLE_STEPS", "8"},
                                             {"DECODEPROF_RECORD_STEP_RANGE", "execute_model"}}),
                                    1, nullptr);
  ASSERT_TRUE(sampled.ok()) << sampled.status().ToString();
  EXPECT_EQ(sampled->sample_steps, 8u);
  EXPECT_EQ(sampled->gate_range(), "execute_model");
  auto defaulted = ReadRecorderConfig(
      GateEnv({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}, {"DECODEPROF_RECORD_SAMPLE_STEPS", "4"}}), 1,
      nullptr);
  ASSERT_TRUE(defaulted.ok());
  EXPECT_EQ(defaulted->gate_range(), "decodeprof:step");
  for (const char* bad : {"0", "-3", "x", "1000001"}) {
    auto config = ReadRecorderConfig(
        GateEnv({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}, {"DECODEPROF_RECORD_SAMPLE_STEPS", bad}}), 1,
        nullptr);
    ASSERT_FALSE(config.ok()) << bad;
    EXPECT_EQ(config.status().where(), "DECODEPROF_RECORD_SAMPLE_STEPS");
  }
  auto both = ReadRecorderConfig(GateEnv({{"DECODEPROF_RECORD_OUTPUT", "/t/x"},
                                          {"DECODEPROF_RECORD_SAMPLE_STEPS", "4"},
                                          {"DECODEPROF_RECORD_ONLY_RANGE", "decodeprof:decode"}}),
                                 1, nullptr);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("cannot be combined"), std::string::npos);
}

TEST(SampleTimeConfigTest, ReadsOnAndPeriodAndRefusesBadOnes) {
  auto timed = ReadRecorderConfig(
      GateEnv({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}, {"DECODEPROF_RECORD_SAMPLE_TIME", "50/500"}}),
      1, nullptr);
  ASSERT_TRUE(timed.ok()) << timed.status().ToString();
  EXPECT_EQ(timed->sample_on_ms, 50u);
  EXPECT_EQ(timed->sample_period_ms, 500u);
  EXPECT_TRUE(timed->sampling());
  for (const char* bad : {"50", "0/500", "500/500", "1/3600001", "a/b", "50/"}) {
    auto config = ReadRecorderConfig(
        GateEnv({{"DECODEPROF_RECORD_OUTPUT", "/t/x"}, {"DECODEPROF_RECORD_SAMPLE_TIME", bad}}), 1,
        nullptr);
    ASSERT_FALSE(config.ok()) << bad;
    EXPECT_EQ(config.status().where(), "DECODEPROF_RECORD_SAMPLE_TIME");
  }
}

TEST(DetachConfigTest, OffUnlessAskedForAndNeverWithoutPeriods) {
  auto read = [](std::vector<std::pair<std::string, std::string>> vars) {
    vars.emplace_back("DECODEPROF_RECORD_OUTPUT", "/t/x");
    std::map<std::string, std::string> m(vars.begin(), vars.end());
    return ReadRecorderConfig(GateEnv(m), 1, nullptr);
  };
  auto timed = read({{"DECODEPROF_RECORD_SAMPLE_TIME", "50/500"}});
  ASSERT_TRUE(timed.ok());
  EXPECT_FALSE(timed->detach);  // it killed programs (config.h)
  auto timed_on =
      read({{"DECODEPROF_RECORD_SAMPLE_TIME", "50/500"}, {"DECODEPROF_RECORD_DETACH", "1"}});
  ASSERT_TRUE(timed_on.ok());
  EXPECT_TRUE(timed_on->detach);
  auto steps = read({{"DECODEPROF_RECORD_SAMPLE_STEPS", "8"}});
  ASSERT_TRUE(steps.ok());
  EXPECT_FALSE(steps->detach);
  auto steps_on =
      read({{"DECODEPROF_RECORD_SAMPLE_STEPS", "8"}, {"DECODEPROF_RECORD_DETACH", "1"}});
  ASSERT_TRUE(steps_on.ok());
  EXPECT_TRUE(steps_on->detach);
  auto timed_off =
      read({{"DECODEPROF_RECORD_SAMPLE_TIME", "50/500"}, {"DECODEPROF_RECORD_DETACH", "0"}});
  ASSERT_TRUE(timed_off.ok());
  EXPECT_FALSE(timed_off->detach);
  auto full = read({{"DECODEPROF_RECORD_DETACH", "1"}});  // no periods: nothing to detach
  ASSERT_TRUE(full.ok());
  EXPECT_FALSE(full->detach);
  auto bad = read({{"DECODEPROF_RECORD_DETACH", "yes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().where(), "DECODEPROF_RECORD_DETACH");
}

TEST(PeriodEndConfigTest, WaitByDefaultSwitchOnRequestAndGraphSteps) {
  auto read = [](std::vector<std::pair<std::string, std::string>> vars) {
    vars.emplace_back("DECODEPROF_RECORD_OUTPUT", "/t/x");
    std::map<std::string, std::string> m(vars.begin(), vars.end());
    return ReadRecorderConfig(GateEnv(m), 1, nullptr);
  };
  auto plain = read({{"DECODEPROF_RECORD_SAMPLE_STEPS", "8"}});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->period_end, RecorderConfig::PeriodEnd::kWait);
  EXPECT_TRUE(plain->graph_steps);
  EXPECT_EQ(plain->sample_stretch, 3u);
  auto unstretched = read({{"DECODEPROF_RECORD_SAMPLE_STRETCH", "0"}});
  ASSERT_TRUE(unstretched.ok());
  EXPECT_EQ(unstretched->sample_stretch, 0u);
  EXPECT_FALSE(read({{"DECODEPROF_RECORD_SAMPLE_STRETCH", "1001"}}).ok());
  EXPECT_FALSE(read({{"DECODEPROF_RECORD_SAMPLE_STRETCH", ""}}).ok());
  auto sw = read({{"DECODEPROF_RECORD_PERIOD_END", "switch"},
                  {"DECODEPROF_RECORD_GRAPH_STEPS", "0"},
                  {"DECODEPROF_CUDA_DRIVER_LIB", "/x/libcuda.so.1"}});
  ASSERT_TRUE(sw.ok());
  EXPECT_EQ(sw->period_end, RecorderConfig::PeriodEnd::kSwitch);
  EXPECT_FALSE(sw->graph_steps);
  EXPECT_EQ(sw->driver_lib, "/x/libcuda.so.1");
  auto bad = read({{"DECODEPROF_RECORD_PERIOD_END", "later"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().where(), "DECODEPROF_RECORD_PERIOD_END");
}

TEST(RangeGateTest, GraphLaunchesAreStepsUntilARangeOpens) {
  RangeGate gate("decodeprof:step", 2);
  gate.EnableGraphSteps();
  std::vector<bool> switches;
  gate.Attach(
      [&](bool on) {
        switches.push_back(on);
        return true;
      },
      /*on_now=*/true);
  ASSERT_EQ(switches, std::vector<bool>{false});  // off until a sampled step
  EXPECT_TRUE(gate.OpenGraph());                  // opening 0: not sampled
  EXPECT_FALSE(gate.period_open());
  gate.CloseGraph();
  EXPECT_TRUE(gate.OpenGraph());  // opening 1: sampled
  EXPECT_TRUE(gate.period_open());
  gate.CloseGraph();
  EXPECT_FALSE(gate.period_open());
  EXPECT_EQ(switches, (std::vector<bool>{false, true, false}));
  gate.Open();  // a step range: graph launches are steps no more
  EXPECT_FALSE(gate.OpenGraph());
  gate.Close();
  EXPECT_EQ(gate.counts().openings, 3);
}

TEST(RangeGateTest, ADeferredSwitchOffCoversUntilItIsDone) {
  RangeGate gate("decodeprof:step", 1);
  bool defer = true;
  std::vector<bool> switches;
  gate.Attach(
      [&](bool on) {
        switches.push_back(on);
        if (!on && defer) gate.DeferRecordsEnd();
        return true;
      },
      /*on_now=*/false);
  gate.Open();
  gate.Close();  // the period ends; its switch off is deferred
  EXPECT_TRUE(gate.deferred());
  const auto periods = gate.periods();
  ASSERT_EQ(periods.size(), 1u);
  EXPECT_LT(periods[0].second, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(gate.Covers(periods[0].second + 1000000000));  // still recording
  bool ran = false;
  gate.FinishDeferred([&] {
    ran = true;
    return true;
  });
  EXPECT_TRUE(ran);
  EXPECT_FALSE(gate.deferred());
  EXPECT_FALSE(gate.Covers(std::numeric_limits<int64_t>::max() - 1));
  // A period that begins while the switch off is deferred ends the deferral.
  gate.Open();
  gate.Close();
  EXPECT_TRUE(gate.deferred());
  gate.Open();
  EXPECT_FALSE(gate.deferred());
  ran = false;
  gate.FinishDeferred([&] {
    ran = true;
    return true;
  });
  EXPECT_FALSE(ran);
  gate.Close();
  gate.DropLaunch(42);
  EXPECT_TRUE(gate.DroppedLaunch(42));
  EXPECT_FALSE(gate.DroppedLaunch(43));
}

TEST(RangeGateTest, AHostFarAheadOfTheGpuStretchesTheSampling) {
  // One step in 4, stretch 3: the sampled step's GPU work finishes 5 steps later, so the
  // next sample comes (3 + 1)(5 + 1) = 24 steps after it, and none while it waits.
  RangeGate gate("decodeprof:step", 4);
  gate.SetStretch(3);
  std::vector<int> sampled;
  int opening = 0;
  bool defer = true;
  gate.Attach(
      [&](bool on) {
        if (on) sampled.push_back(opening);
        if (!on && defer) gate.DeferRecordsEnd();
        return true;
      },
      /*on_now=*/false);
  auto step = [&] {
    gate.Open();
    gate.Close();
    ++opening;
  };
  for (int i = 0; i < 8; ++i) step();  // opening 2 sampled; still deferred: 6 is not
  EXPECT_EQ(sampled, std::vector<int>{2});
  EXPECT_TRUE(gate.deferred());
  gate.FinishDeferred([] { return true; });  // 8 - 1 - 2 = 5 steps behind
  for (int i = 8; i < 60; ++i) step();
  // 2 + 24 = 26: deferred again until the end of the loop, so only 26 more.
  EXPECT_EQ(sampled, (std::vector<int>{2, 26}));
  EXPECT_EQ(gate.StretchText(),
            "asked one step in 4; stretched 1 times, up to one in 24: the GPU ran up to 5 steps "
            "behind the host");
  gate.FinishDeferred([] { return true; });  // 60 - 1 - 26 = 33 behind: gap 136
  defer = false;
  for (int i = 60; i < 200; ++i) step();
  EXPECT_EQ(sampled, (std::vector<int>{2, 26, 162, 166, 170, 174, 178, 182, 186, 190, 194, 198}));
  // Without stretching, the next sample after a deferral is simply the next due one.
  RangeGate plain("decodeprof:step", 4);
  std::vector<int> plain_sampled;
  opening = 0;
  plain.Attach(
      [&](bool on) {
        if (on) plain_sampled.push_back(opening);
        if (!on) plain.DeferRecordsEnd();
        return true;
      },
      /*on_now=*/false);
  for (int i = 0; i < 8; ++i) {
    plain.Open();
    plain.Close();
    ++opening;
  }
  plain.FinishDeferred([] { return true; });
  plain.Open();  // opening 8 >= 6, due
  plain.Close();
  EXPECT_EQ(plain_sampled, (std::vector<int>{2, 8}));
  EXPECT_EQ(plain.StretchText(), "");
}

}  // namespace
}  // namespace decodeprof::record::cupti
