// RangeIndex: the ranges enclosing an instant on one thread, innermost first.
#include "src/analysis/range_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace decodeprof::analysis {
namespace {

class RangeIndexTest : public ::testing::Test {
 protected:
  void Add(const std::string& name, int64_t start, int64_t end, uint64_t thread, int32_t depth) {
    ranges_.push_back(trace::Range{pool_.Intern(name), start, end, thread, depth});
  }
  // The enclosing names joined innermost first with '<', "" for none.
  std::string At(const RangeIndex& index, uint64_t thread, int64_t t) {
    std::vector<trace::StringId> ids;
    index.Enclosing(thread, t, &ids);
    std::string out;
    for (trace::StringId id : ids) {
      if (!out.empty()) out += '<';
      out += pool_.Get(id);
    }
    return out;
  }

  trace::StringPool pool_;
  std::vector<trace::Range> ranges_;
};

TEST_F(RangeIndexTest, NestedRangesInnermostFirst) {
  Add("step", 0, 100, 1, 0);
  Add("layer", 10, 60, 1, 1);
  Add("attn", 10, 30, 1, 2);  // starts with its parent
  Add("mlp", 30, 60, 1, 2);   // adjacent to its sibling
  Add("norm", 70, 80, 1, 1);
  const RangeIndex index(ranges_);
  EXPECT_EQ(index.size(), 5u);
  EXPECT_EQ(At(index, 1, 10), "attn<layer<step");
  EXPECT_EQ(At(index, 1, 29), "attn<layer<step");
  EXPECT_EQ(At(index, 1, 30), "mlp<layer<step");  // half-open: attn ended
  EXPECT_EQ(At(index, 1, 65), "step");            // after layer, before norm
  EXPECT_EQ(At(index, 1, 75), "norm<step");
  EXPECT_EQ(At(index, 1, 100), "");  // end is exclusive
  EXPECT_EQ(At(index, 1, -5), "");   // before every range
}

TEST_F(RangeIndexTest, ThreadsAreSeparateAndStartEndRangesAreLeftOut) {
  Add("main", 0, 100, 1, 0);
  Add("worker", 0, 100, 2, 0);
  Add("worker.op", 40, 50, 2, 1);
  Add("async", 0, 100, 1, -1);  // start/end range: not indexed
  const RangeIndex index(ranges_);
  EXPECT_EQ(index.size(), 3u);
  EXPECT_EQ(At(index, 1, 45), "main");
  EXPECT_EQ(At(index, 2, 45), "worker.op<worker");
  EXPECT_EQ(At(index, 3, 45), "");  // a thread without ranges
}

TEST_F(RangeIndexTest, InputOrderDoesNotMatterAndDeepChainsAreWalked) {
  // Given innermost first: the index sorts them.
  for (int d = 9; d >= 0; --d) Add("d" + std::to_string(d), d, 100 - d, 5, d);
  Add("later", 200, 300, 5, 0);
  const RangeIndex index(ranges_);
  EXPECT_EQ(At(index, 5, 50), "d9<d8<d7<d6<d5<d4<d3<d2<d1<d0");
  EXPECT_EQ(At(index, 5, 95), "d4<d3<d2<d1<d0");
  EXPECT_EQ(At(index, 5, 250), "later");
  EXPECT_EQ(At(index, 5, 150), "");
}

TEST_F(RangeIndexTest, OverlappingRangesOnlyEverReturnEnclosingOnes) {
  // Bad data: b overlaps a without nesting in it.
  Add("a", 0, 50, 1, 0);
  Add("b", 40, 90, 1, 1);
  const RangeIndex index(ranges_);
  EXPECT_EQ(At(index, 1, 45), "b<a");
  EXPECT_EQ(At(index, 1, 60), "b");
  EXPECT_EQ(At(index, 1, 20), "a");
}

TEST_F(RangeIndexTest, EmptyIndex) {
  const RangeIndex index(ranges_);
  EXPECT_TRUE(index.empty());
  EXPECT_EQ(At(index, 1, 0), "");
}

// AnyEnclosing and AnyEnclosingNamed give the answer of testing each name Enclosing returns,
// on nested, overlapping (ranges that do not nest) and deep chains, with and without the jumps.
TEST_F(RangeIndexTest, AnyEnclosingAgreesWithEnclosing) {
  std::mt19937_64 rng(7);
  for (const int count : {40, 300}) {  // 300 nested deep: the jump tables are built
    ranges_.clear();
    for (int i = 0; i < count; ++i) {
      const int64_t start = static_cast<int64_t>(rng() % 1000);
      const int64_t length = static_cast<int64_t>(rng() % 400) + 1;
      Add("r" + std::to_string(rng() % 5), start, start + length, 1 + rng() % 2, 0);
    }
    for (int d = 0; d < count; ++d) Add("n" + std::to_string(d % 7), 2000 + d, 3000 - d, 1, d);
    const RangeIndex index(ranges_);
    EXPECT_EQ(index.deep(), count == 300);
    // names(): each name of the ranges once, in id order.
    std::vector<trace::StringId> names;
    for (const trace::Range& r : ranges_) names.push_back(r.name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    EXPECT_TRUE(std::ranges::equal(index.names(), names));
    for (const std::string wanted : {"r1", "n3", "none"}) {
      const std::vector<int32_t> nearest =
          index.NearestMatching([&](trace::StringId id) { return pool_.Get(id) == wanted; });
      std::vector<uint8_t> matching(pool_.size(), 0);
      for (size_t id = 0; id < pool_.size(); ++id) {
        matching[id] = pool_.Get(static_cast<trace::StringId>(id)) == wanted ? 1 : 0;
      }
      size_t hint = 0;  // carried over every thread and instant: in order, then back again
      for (uint64_t thread : {1u, 2u, 3u, 2u}) {
        for (int64_t t = -1; t < 3100; t += thread == 2 ? 3 : 5) {
          std::vector<trace::StringId> ids;
          index.Enclosing(thread, t, &ids);
          bool any = false;
          for (trace::StringId id : ids) any = any || pool_.Get(id) == wanted;
          ASSERT_EQ(index.AnyEnclosing(thread, t, nearest), any)
              << wanted << " thread " << thread << " at " << t << " of " << count;
          ASSERT_EQ(index.AnyEnclosingNamed(thread, t, matching), any)
              << wanted << " thread " << thread << " at " << t << " of " << count;
          ASSERT_EQ(index.AnyEnclosingNamed(thread, t, matching, &hint), any)
              << wanted << " thread " << thread << " at " << t << " of " << count << " (hint)";
          size_t far = 0;  // a hint at the first range: a long way up to the instant
          ASSERT_EQ(index.AnyEnclosingNamed(thread, 3100 - t, matching, &far),
                    index.AnyEnclosingNamed(thread, 3100 - t, matching))
              << wanted << " thread " << thread << " at " << 3100 - t;
        }
      }
    }
  }
}

// The same answers whether the ranges' threads are few (grouped a thread at a time, a group
// sorted only when out of order) or many (one sort of them all), and whatever their order.
TEST_F(RangeIndexTest, FewOrManyThreadsInAnyOrderGiveTheSameAnswers) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 3000; ++i) {
    const int64_t start = static_cast<int64_t>(rng() % 5000);
    const int64_t length = static_cast<int64_t>(rng() % 200) + 1;
    Add("r" + std::to_string(rng() % 9), start, start + length, rng() % 3,
        static_cast<int32_t>(rng() % 3));
  }
  std::vector<trace::Range> shuffled = ranges_;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  std::vector<trace::Range> in_order = ranges_;
  std::stable_sort(in_order.begin(), in_order.end(),
                   [](const trace::Range& a, const trace::Range& b) { return a.start < b.start; });
  std::vector<trace::Range> many_threads = shuffled;
  for (uint64_t thread = 100; thread < 300; ++thread) {
    many_threads.push_back(trace::Range{pool_.Intern("other"), 0, 10, thread, 0});
  }
  const RangeIndex reference(shuffled);
  const RangeIndex grouped(in_order);
  const RangeIndex sorted_once(many_threads);
  const auto names = [](const RangeIndex& index, uint64_t thread, int64_t t) {
    std::vector<trace::StringId> ids;
    index.Enclosing(thread, t, &ids);
    std::sort(ids.begin(), ids.end());  // ranges that tie on every key may come either way
    return ids;
  };
  int64_t found = 0;
  for (uint64_t thread = 0; thread < 3; ++thread) {
    for (int64_t t = 0; t < 5300; t += 3) {
      const std::vector<trace::StringId> want = names(reference, thread, t);
      found += static_cast<int64_t>(want.size());
      EXPECT_EQ(names(grouped, thread, t), want) << "thread " << thread << " at " << t;
      EXPECT_EQ(names(sorted_once, thread, t), want) << "thread " << thread << " at " << t;
    }
  }
  EXPECT_GT(found, 1000);
}

// 10^5 nested ranges and 10^5 lookups at their innermost point: linear work, not 10^10.
TEST_F(RangeIndexTest, DeepNestingIsAnsweredWithoutWalkingTheChain) {
  constexpr int kDepth = 100'000;
  for (int d = 0; d < kDepth; ++d) Add("module", d, 10 * kDepth - d, 9, d);
  Add("module.attn", kDepth, kDepth + 1, 9, kDepth);
  const auto begin = std::chrono::steady_clock::now();
  const RangeIndex index(ranges_);
  const std::vector<int32_t> nearest =
      index.NearestMatching([&](trace::StringId id) { return pool_.Get(id) == "module.attn"; });
  int64_t hits = 0;
  for (int64_t t = 0; t < 2 * kDepth; ++t) hits += index.AnyEnclosing(9, kDepth + t % 3, nearest);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_EQ(hits, (2 * kDepth + 2) / 3);  // only at kDepth itself
  EXPECT_LT(seconds, 10.0);
}

}  // namespace
}  // namespace decodeprof::analysis
