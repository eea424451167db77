#include "src/analysis/window.h"

#include <gtest/gtest.h>

namespace decodeprof::analysis {
namespace {

using trace::ClockDomain;
using trace::Dispatch;
using trace::MarkStamp;
using trace::PhaseMarks;

// The five-row trace of the seed's WindowTests: warmup, prefill, two decode dispatches and
// one after the run, on boottime; the monotonic marks 1..4 bracket nothing.
PhaseMarks SeedMarks() {
  return {{"warmup_start", MarkStamp{1, 90000}},
          {"measured_start", MarkStamp{2, 400000}},
          {"decode_start", MarkStamp{3, 600000}},
          {"measured_end", MarkStamp{4, 800000}}};
}

std::vector<Dispatch> SeedRows() {
  return {Dispatch{.start = 100000, .end = 200000, .name = 0, .line = 2},
          Dispatch{.start = 500000, .end = 600000, .name = 1, .line = 3},
          Dispatch{.start = 710000, .end = 735000, .name = 2, .line = 4},
          Dispatch{.start = 735000, .end = 760000, .name = 3, .line = 5},
          Dispatch{.start = 900000, .end = 950000, .name = 4, .line = 6}};
}

TEST(WindowTest, PicksTheClockThatBracketsTheDispatches) {
  WindowCollector collector(SeedMarks());
  for (const auto& d : SeedRows()) collector.Add(d);
  EXPECT_EQ(collector.bracketed(ClockDomain::kBoottime), 4);
  EXPECT_EQ(collector.bracketed(ClockDomain::kMonotonic), 0);
  auto window = std::move(collector).Finish("bench.log");
  ASSERT_TRUE(window.ok()) << window.status().ToString();
  EXPECT_EQ(window->clock, ClockDomain::kBoottime);
  EXPECT_EQ(window->lo, 600000);
  EXPECT_EQ(window->hi, 800000);
  ASSERT_EQ(window->dispatches.size(), 2u);
  EXPECT_EQ(window->dispatches[0].line, 4u);
  EXPECT_EQ(window->straddling, 0);
  ASSERT_TRUE(window->last_before);
  EXPECT_EQ(window->last_before->line, 3u);
}

TEST(WindowTest, BoottimeWinsATie) {
  PhaseMarks marks = {{"warmup_start", MarkStamp{0, 0}},
                      {"decode_start", MarkStamp{50, 50}},
                      {"measured_end", MarkStamp{100, 100}}};
  WindowCollector collector(marks);
  collector.Add(Dispatch{.start = 60, .end = 70});
  auto window = std::move(collector).Finish("log");
  ASSERT_TRUE(window.ok());
  EXPECT_EQ(window->clock, ClockDomain::kBoottime);
}

TEST(WindowTest, TheWindowIsInclusiveAndStraddlersAreCounted) {
  PhaseMarks marks = {{"warmup_start", MarkStamp{std::nullopt, 0}},
                      {"decode_start", MarkStamp{std::nullopt, 100}},
                      {"measured_end", MarkStamp{std::nullopt, 200}}};
  WindowCollector collector(marks);
  collector.Add(Dispatch{.start = 90, .end = 110, .line = 1});   // straddles lo
  collector.Add(Dispatch{.start = 100, .end = 120, .line = 2});  // starts at lo: inside
  collector.Add(Dispatch{.start = 200, .end = 250, .line = 3});  // starts at hi: inside
  collector.Add(Dispatch{.start = 201, .end = 250, .line = 4});  // after
  auto window = std::move(collector).Finish("log");
  ASSERT_TRUE(window.ok());
  EXPECT_EQ(window->clock, ClockDomain::kBoottime);
  EXPECT_EQ(window->dispatches.size(), 2u);
  EXPECT_EQ(window->straddling, 1);
  EXPECT_FALSE(window->last_before);
}

TEST(WindowTest, EqualStartsKeepFileOrderAndTheLaterRowIsLastBefore) {
  PhaseMarks marks = {{"warmup_start", MarkStamp{std::nullopt, 0}},
                      {"decode_start", MarkStamp{std::nullopt, 100}},
                      {"measured_end", MarkStamp{std::nullopt, 200}}};
  WindowCollector collector(marks);
  collector.Add(Dispatch{.start = 150, .end = 160, .line = 1});
  collector.Add(Dispatch{.start = 10, .end = 20, .line = 2});
  collector.Add(Dispatch{.start = 10, .end = 30, .line = 3});
  collector.Add(Dispatch{.start = 150, .end = 170, .line = 4});
  collector.Add(Dispatch{.start = 120, .end = 130, .line = 5});
  auto window = std::move(collector).Finish("log");
  ASSERT_TRUE(window.ok());
  ASSERT_EQ(window->dispatches.size(), 3u);
  EXPECT_EQ(window->dispatches[0].line, 5u);
  EXPECT_EQ(window->dispatches[1].line, 1u);
  EXPECT_EQ(window->dispatches[2].line, 4u);
  EXPECT_EQ(window->last_before->line, 3u);
}

TEST(WindowTest, NoMarksIsTheSeedsError) {
  WindowCollector collector(PhaseMarks{});
  collector.Add(Dispatch{.start = 1, .end = 2});
  auto window = std::move(collector).Finish("bench.log");
  ASSERT_FALSE(window.ok());
  EXPECT_EQ(window.status().exit_code(), 65);
  EXPECT_EQ(window.status().ToString(),
            "bench.log: no dispatch lies between the warmup_start and measured_end marks on "
            "either clock; was MLXCEL_BENCH_PHASE_MARKS=1 set?");
}

TEST(WindowTest, AnEmptyDecodeWindowIsAnError) {
  PhaseMarks marks = {{"warmup_start", MarkStamp{std::nullopt, 0}},
                      {"decode_start", MarkStamp{std::nullopt, 100}},
                      {"measured_end", MarkStamp{std::nullopt, 200}}};
  WindowCollector collector(marks);
  collector.Add(Dispatch{.start = 10, .end = 20});
  auto window = std::move(collector).Finish("bench.log");
  ASSERT_FALSE(window.ok());
  EXPECT_EQ(window.status().message(), "no dispatch inside the decode window");
}

TEST(WindowTest, AMissingDecodeStartIsReported) {
  PhaseMarks marks = {{"warmup_start", MarkStamp{std::nullopt, 0}},
                      {"measured_end", MarkStamp{std::nullopt, 200}}};
  WindowCollector collector(marks);
  collector.Add(Dispatch{.start = 10, .end = 20});
  auto window = std::move(collector).Finish("bench.log");
  ASSERT_FALSE(window.ok());
  EXPECT_EQ(window.status().message(),
            "the bench log has no decode_start mark on the boottime clock");
}

}  // namespace
}  // namespace decodeprof::analysis
