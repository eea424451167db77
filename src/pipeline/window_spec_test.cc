#include "src/pipeline/window_spec.h"

#include <gtest/gtest.h>

#include <string>

namespace decodeprof::pipeline {
namespace {

TEST(WindowSpecTest, AllAndDecode) {
  auto all = ParseWindowSpec("all");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->kind, WindowSpec::Kind::kAll);
  EXPECT_TRUE(all->Contains(0));
  EXPECT_TRUE(all->Contains(INT64_MAX));
  EXPECT_EQ(all->ToString(), "all");

  auto decode = ParseWindowSpec("decode");
  ASSERT_TRUE(decode.ok());
  EXPECT_EQ(decode->kind, WindowSpec::Kind::kDecode);
  EXPECT_FALSE(decode->Contains(0));
  EXPECT_EQ(decode->ToString(), "decode");
}

TEST(WindowSpecTest, ARangeIsInclusiveAtBothEnds) {
  auto spec = ParseWindowSpec("1000..2000");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->kind, WindowSpec::Kind::kRange);
  EXPECT_EQ(spec->start, 1000);
  EXPECT_EQ(spec->end, 2000);
  EXPECT_FALSE(spec->Contains(999));
  EXPECT_TRUE(spec->Contains(1000));
  EXPECT_TRUE(spec->Contains(2000));
  EXPECT_FALSE(spec->Contains(2001));
  EXPECT_EQ(spec->ToString(), "1000..2000");
}

TEST(WindowSpecTest, AOneNanosecondRangeAndTheLargestBounds) {
  auto point = ParseWindowSpec("5..5");
  ASSERT_TRUE(point.ok());
  EXPECT_TRUE(point->Contains(5));
  EXPECT_FALSE(point->Contains(4));
  EXPECT_FALSE(point->Contains(6));

  auto widest = ParseWindowSpec("0..9223372036854775807");
  ASSERT_TRUE(widest.ok()) << widest.status().ToString();
  EXPECT_EQ(widest->start, 0);
  EXPECT_EQ(widest->end, INT64_MAX);
  // Leading zeros are digits like any other.
  auto zeros = ParseWindowSpec("007..010");
  ASSERT_TRUE(zeros.ok());
  EXPECT_EQ(zeros->start, 7);
  EXPECT_EQ(zeros->end, 10);
}

TEST(WindowSpecTest, AStartAfterTheEndIsAUsageError) {
  auto spec = ParseWindowSpec("5..3");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().kind(), base::ErrorKind::kUsage);
  EXPECT_EQ(spec.status().exit_code(), 2);
  EXPECT_EQ(spec.status().message(), "--window 5..3: the start is after the end");
}

TEST(WindowSpecTest, MalformedValuesAreUsageErrorsThatNameThem) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"", "--window needs a value"},
      {"prefill", "--window prefill: not all, decode or START_NS..END_NS"},
      {"ALL", "--window ALL: not all, decode or START_NS..END_NS"},
      {"1000", "--window 1000: not all, decode or START_NS..END_NS"},
      {"..5", "--window ..5: the start is missing"},
      {"5..", "--window 5..: the end is missing"},
      {"..", "--window ..: the start is missing"},
      {"-5..3",
       "--window -5..3: the start '-5' is not a whole number of nanoseconds from 0 to "
       "9223372036854775807"},
      {"1.5..3",
       "--window 1.5..3: the start '1.5' is not a whole number of nanoseconds from 0 to "
       "9223372036854775807"},
      {"1...3",
       "--window 1...3: the end '.3' is not a whole number of nanoseconds from 0 to "
       "9223372036854775807"},
      {"1..2..3",
       "--window 1..2..3: the end '2..3' is not a whole number of nanoseconds from 0 to "
       "9223372036854775807"},
      {" 1..3",
       "--window  1..3: the start ' 1' is not a whole number of nanoseconds from 0 to "
       "9223372036854775807"},
      {"1..9223372036854775808",
       "--window 1..9223372036854775808: the end '9223372036854775808' is not a whole number of "
       "nanoseconds from 0 to 9223372036854775807"},
      {"1e3..2e3",
       "--window 1e3..2e3: the start '1e3' is not a whole number of nanoseconds from 0 to "
       "9223372036854775807"},
  };
  for (const Case& c : cases) {
    auto spec = ParseWindowSpec(c.text);
    ASSERT_FALSE(spec.ok()) << "'" << c.text << "'";
    EXPECT_EQ(spec.status().kind(), base::ErrorKind::kUsage) << c.text;
    EXPECT_EQ(spec.status().message(), c.message) << c.text;
    EXPECT_FALSE(spec.status().hint().empty()) << c.text;
  }
}

}  // namespace
}  // namespace decodeprof::pipeline
