#include "src/base/for_overwrite.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

namespace decodeprof::base {
namespace {

struct Record {
  int64_t a = 0;
  uint32_t b = 7;
  uint8_t c = 0;
};

TEST(ForOverwriteTest, OrdinaryGrowthStillInitializes) {
  ForOverwriteVector<Record> v;
  ResizeForOverwrite(v, 100);
  for (Record& r : v) r = Record{1, 2, 3};
  v.resize(300);  // after a ResizeForOverwrite on this thread: initialized again
  for (size_t i = 100; i < v.size(); ++i) {
    ASSERT_EQ(v[i].a, 0) << i;
    ASSERT_EQ(v[i].b, 7u) << i;
  }
  v.insert(v.end(), 50, Record{4, 5, 6});
  EXPECT_EQ(v.back().a, 4);
  ForOverwriteVector<Record> copy(v);
  EXPECT_EQ(copy.size(), 350u);
  EXPECT_EQ(copy[99].a, 1);
}

TEST(ForOverwriteTest, ResizeForOverwriteKeepsWhatWasThereAndAddsRoom) {
  ForOverwriteVector<Record> v(3, Record{9, 9, 9});
  ResizeForOverwrite(v, 1000);
  ASSERT_EQ(v.size(), 1000u);
  EXPECT_EQ(v[2].a, 9);
#ifndef NDEBUG
  // Debug builds fill what they did not initialize, so that a read of it shows.
  EXPECT_EQ(static_cast<uint64_t>(v[500].a), uint64_t{0xA5A5A5A5A5A5A5A5});
  EXPECT_EQ(v[500].b, 0xA5A5A5A5u);
  EXPECT_EQ(v[500].c, 0xA5u);
#endif
  ResizeForOverwrite(v, 10);  // shrinking is resize()'s
  EXPECT_EQ(v.size(), 10u);
}

TEST(ForOverwriteTest, AFailedResizeLeavesLaterGrowthInitialized) {
  ForOverwriteVector<Record> v;
  EXPECT_THROW(ResizeForOverwrite(v, v.max_size() + 1), std::length_error);
  v.resize(64);
  for (const Record& r : v) ASSERT_EQ(r.b, 7u);
}

}  // namespace
}  // namespace decodeprof::base
