#include "src/trace/string_pool.h"

#include <gtest/gtest.h>

#include <string>

#include "src/trace/dispatch.h"

namespace decodeprof::trace {
namespace {

TEST(StringPoolTest, InternsDenselyInFirstSeenOrder) {
  StringPool pool;
  EXPECT_EQ(pool.Intern("qmv"), 0u);
  EXPECT_EQ(pool.Intern("rms_norm"), 1u);
  std::string again = "qmv";
  EXPECT_EQ(pool.Intern(again), 0u);
  EXPECT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool.Get(1), "rms_norm");
}

TEST(StringPoolTest, ViewsStayValidAsThePoolGrows) {
  StringPool pool;
  const std::string_view first = pool.Get(pool.Intern("first"));
  for (int i = 0; i < 10000; ++i) pool.Intern("k" + std::to_string(i));
  EXPECT_EQ(first, "first");
  EXPECT_EQ(pool.Intern("k9999"), 10000u);
}

TEST(DispatchTest, DurationIsEndMinusStart) {
  Dispatch d{.start = 100, .end = 125, .grid = 0, .name = 0, .line = 2};
  EXPECT_EQ(d.duration(), 25);
}

}  // namespace
}  // namespace decodeprof::trace
