#include "src/analysis/window.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <vector>

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

// Everything a window result holds, for comparing two of them.
void ExpectSameWindow(const base::StatusOr<DecodeWindow>& got,
                      const base::StatusOr<DecodeWindow>& want) {
  ASSERT_EQ(got.ok(), want.ok());
  if (!want.ok()) {
    EXPECT_EQ(got.status().ToString(), want.status().ToString());
    return;
  }
  EXPECT_EQ(got->clock, want->clock);
  EXPECT_EQ(got->lo, want->lo);
  EXPECT_EQ(got->hi, want->hi);
  EXPECT_EQ(got->straddling, want->straddling);
  ASSERT_EQ(got->last_before.has_value(), want->last_before.has_value());
  if (want->last_before) {
    EXPECT_EQ(got->last_before->line, want->last_before->line);
    EXPECT_EQ(got->last_before->name, want->last_before->name);
  }
  ASSERT_EQ(got->dispatches.size(), want->dispatches.size());
  for (size_t i = 0; i < want->dispatches.size(); ++i) {
    const Dispatch& a = got->dispatches[i];
    const Dispatch& b = want->dispatches[i];
    EXPECT_TRUE(a.start == b.start && a.end == b.end && a.grid == b.grid && a.name == b.name &&
                a.line == b.line)
        << "dispatch " << i;
  }
}

// Two clocks whose windows overlap only in part, so that membership differs per clock.
PhaseMarks TwoClockMarks() {
  return {{"warmup_start", MarkStamp{0, 5}},
          {"decode_start", MarkStamp{40, 50}},
          {"measured_end", MarkStamp{80, 90}}};
}

// Rows with many equal starts (ties inside the window and among the rows before it).
std::vector<Dispatch> TiedRows(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Dispatch> rows;
  for (uint32_t i = 0; i < n; ++i) {
    const int64_t start = static_cast<int64_t>(rng() % 12) * 9;  // 0, 9, ..., 99
    const int64_t end = start + static_cast<int64_t>(rng() % 30);
    rows.push_back(Dispatch{.start = start, .end = end, .name = i % 5, .line = i + 2});
  }
  return rows;
}

TEST(WindowTest, MergingTwoPartsAtAnyCutEqualsOneCollector) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    const std::vector<Dispatch> rows = TiedRows(60, seed);
    WindowCollector whole(TwoClockMarks());
    for (const Dispatch& d : rows) whole.Add(d);
    const int64_t boottime = whole.bracketed(ClockDomain::kBoottime);
    const int64_t monotonic = whole.bracketed(ClockDomain::kMonotonic);
    const auto want = std::move(whole).Finish("log");
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (size_t cut = 0; cut <= rows.size(); ++cut) {
      WindowCollector first(TwoClockMarks());
      WindowCollector later(TwoClockMarks());
      for (size_t i = 0; i < rows.size(); ++i) (i < cut ? first : later).Add(rows[i]);
      first.Merge(std::move(later));
      EXPECT_EQ(first.bracketed(ClockDomain::kBoottime), boottime);
      EXPECT_EQ(first.bracketed(ClockDomain::kMonotonic), monotonic);
      SCOPED_TRACE("seed " + std::to_string(seed) + " cut " + std::to_string(cut));
      ExpectSameWindow(std::move(first).Finish("log"), want);
    }
  }
}

TEST(WindowTest, MergeRebasesTheLaterPartsDispatches) {
  PhaseMarks marks = {{"warmup_start", MarkStamp{std::nullopt, 0}},
                      {"decode_start", MarkStamp{std::nullopt, 100}},
                      {"measured_end", MarkStamp{std::nullopt, 200}}};
  WindowCollector first(marks);
  first.Add(Dispatch{.start = 10, .end = 20, .name = 0, .line = 2});
  first.Add(Dispatch{.start = 150, .end = 160, .name = 0, .line = 3});
  WindowCollector later(marks);
  // Lines count from 1 in the part, names are the part's own ids.
  later.Add(Dispatch{.start = 10, .end = 30, .name = 0, .line = 1});  // ties: the later row wins
  later.Add(Dispatch{.start = 150, .end = 170, .name = 1, .line = 2});
  const std::vector<trace::StringId> name_map = {7, 9};
  first.Merge(std::move(later), [&](Dispatch& d) {
    d.name = name_map[d.name];
    d.line += 10;
  });
  auto window = std::move(first).Finish("log");
  ASSERT_TRUE(window.ok());
  ASSERT_EQ(window->dispatches.size(), 2u);
  EXPECT_EQ(window->dispatches[0].line, 3u);
  EXPECT_EQ(window->dispatches[1].line, 12u);
  EXPECT_EQ(window->dispatches[1].name, 9u);
  ASSERT_TRUE(window->last_before);
  EXPECT_EQ(window->last_before->line, 11u);
  EXPECT_EQ(window->last_before->name, 7u);
}

// MergeAll of several parts, some large enough to be faulted in and copied on threads, some
// empty, names and lines rebased: what one collector that saw every row in order holds.
TEST(WindowTest, MergingManyPartsAtOnceEqualsOneCollector) {
  const std::vector<Dispatch> rows = TiedRows(400000, 11);
  WindowCollector whole(TwoClockMarks());
  for (const Dispatch& d : rows) whole.Add(d);
  const auto want = std::move(whole).Finish("log");
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  const std::vector<size_t> cuts = {0, 1000, 1000, 150000, 150001, 390000, rows.size()};
  WindowCollector first(TwoClockMarks());
  std::vector<WindowCollector> parts;
  parts.reserve(cuts.size());
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    WindowCollector& c = k == 0 ? first : parts.emplace_back(TwoClockMarks());
    // A later part holds its names shifted by 100 and its lines counted from 1.
    for (size_t i = cuts[k]; i < cuts[k + 1]; ++i) {
      Dispatch d = rows[i];
      if (k > 0) {
        d.name += 100;
        d.line -= static_cast<uint32_t>(cuts[k]);
      }
      c.Add(d);
    }
  }
  std::vector<std::function<void(Dispatch&)>> rebases;
  for (size_t k = 1; k + 1 < cuts.size(); ++k) {
    rebases.emplace_back([shift = static_cast<uint32_t>(cuts[k])](Dispatch& d) {
      d.name -= 100;
      d.line += shift;
    });
  }
  std::vector<WindowCollector::LaterPart> later;
  for (size_t k = 0; k < parts.size(); ++k) later.push_back({&parts[k], &rebases[k]});
  first.MergeAll(later);
  ExpectSameWindow(std::move(first).Finish("log"), want);
}

TEST(WindowTest, AReservationChangesNothing) {
  const std::vector<Dispatch> rows = TiedRows(200, 4);
  WindowCollector plain(TwoClockMarks());
  WindowCollector reserved(TwoClockMarks());
  reserved.Reserve(size_t{1} << 20);
  reserved.Reserve(10);  // smaller than what is there: no effect
  for (const Dispatch& d : rows) {
    plain.Add(d);
    reserved.Add(d);
  }
  ExpectSameWindow(std::move(reserved).Finish("log"), std::move(plain).Finish("log"));
}

}  // namespace
}  // namespace decodeprof::analysis
