#include "src/analysis/range_marks.h"

#include <gtest/gtest.h>

#include <vector>

namespace decodeprof::analysis {
namespace {

using trace::ClockDomain;
using trace::Range;

TEST(RangeMarksTest, TheLastDecodeRangeAndItsStepsCutTheWindow) {
  trace::StringPool s;
  const auto warm = s.Intern("decodeprof:warmup"), dec = s.Intern("decodeprof:decode"),
             step = s.Intern("decodeprof:step"), other = s.Intern("model.layers.0");
  const std::vector<Range> ranges = {
      {.name = warm, .start = 10, .end = 50},    {.name = dec, .start = 30, .end = 45},
      {.name = step, .start = 31, .end = 33},    {.name = dec, .start = 100, .end = 200},
      {.name = step, .start = 110, .end = 120},  {.name = step, .start = 130, .end = 140},
      {.name = other, .start = 131, .end = 132}, {.name = step, .start = 250, .end = 260}};
  auto m = MarksFromRanges(ranges, s, ClockDomain::kMonotonic, RangeNames{}, "t.sqlite");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->marks.at("warmup_start").monotonic, 10);
  EXPECT_EQ(m->marks.at("decode_start").monotonic, 100);
  EXPECT_EQ(m->marks.at("measured_end").monotonic, 200);
  EXPECT_FALSE(m->marks.at("decode_start").boottime);
  EXPECT_EQ(m->steps, 2);
}

TEST(RangeMarksTest, EngineRangeNamesAndNoWarmup) {
  trace::StringPool s;
  const auto gen = s.Intern("generate"), fwd = s.Intern("forward");
  const std::vector<Range> ranges = {{.name = gen, .start = 5, .end = 9},
                                     {.name = fwd, .start = 6, .end = 7}};
  RangeNames names;
  names.decode = "generate";
  names.step = "forward";
  auto m = MarksFromRanges(ranges, s, ClockDomain::kBoottime, names, "t");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->marks.at("warmup_start").boottime, 5);
  EXPECT_EQ(m->steps, 1);
}

TEST(RangeMarksTest, NoDecodeRangeIsAClearError) {
  trace::StringPool s;
  auto m = MarksFromRanges({}, s, ClockDomain::kMonotonic, RangeNames{}, "t.sqlite");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().ToString(), "t.sqlite: no range named 'decodeprof:decode' in the trace");
  EXPECT_EQ(m.status().exit_code(), 65);
}

}  // namespace
}  // namespace decodeprof::analysis
