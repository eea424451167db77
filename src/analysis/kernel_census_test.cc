#include "src/analysis/kernel_census.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/test_pack.h"

namespace decodeprof::analysis {
namespace {

using trace::Dispatch;
using trace::DispatchKind;

class KernelCensusTest : public ::testing::Test {
 protected:
  KernelCensusTest() : pack_({"gemm", "norm", "memcpy", "memset"}, {}, {}) {}

  Dispatch D(std::string_view name, int64_t start, int64_t end,
             DispatchKind kind = DispatchKind::kKernel) {
    Dispatch d;
    d.name = names_.Intern(name);
    d.start = start;
    d.end = end;
    d.kind = kind;
    return d;
  }

  trace::StringPool names_;
  testing::FakePack pack_;
};

const CensusRow* Find(const CensusTable& t, std::string_view name) {
  for (const CensusRow& r : t.rows) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

// The kernel names counted (for the choice of the default pack): memory operations and the
// dispatches outside the window are left out, each name once, by id.
TEST_F(KernelCensusTest, KernelNameIdsAreTheCountedKernelsOnly) {
  KernelCensus census(StartRange{100, 500});
  names_.Intern("unused string");
  census.Add(D("early", 0, 10));  // before the window
  census.Add(D("gemm_a", 100, 110));
  census.Add(D("[memcpy]", 120, 130, DispatchKind::kMemcpy));
  census.Add(D("norm_b", 200, 210));
  census.Add(D("gemm_a", 300, 310));
  std::vector<std::string_view> got;
  for (const trace::StringId id : census.KernelNameIds()) got.push_back(names_.Get(id));
  EXPECT_EQ(got, (std::vector<std::string_view>{"gemm_a", "norm_b"}));
  EXPECT_TRUE(KernelCensus().KernelNameIds().empty());
}

TEST_F(KernelCensusTest, CountsCallsTotalsMinMaxAndAverage) {
  KernelCensus census;
  census.Add(D("gemm_a", 0, 100));    // 100
  census.Add(D("gemm_a", 200, 230));  // 30
  census.Add(D("gemm_a", 300, 351));  // 51
  census.Add(D("norm_b", 400, 410));  // 10
  const CensusTable t = census.ByName(names_, pack_);
  ASSERT_EQ(t.rows.size(), 2u);
  const CensusRow& a = t.rows[0];
  EXPECT_EQ(a.name, "gemm_a");
  EXPECT_EQ(a.class_name, "gemm");
  EXPECT_EQ(a.calls, 3);
  EXPECT_EQ(a.total_ns, 181);
  EXPECT_EQ(a.min_ns, 30);
  EXPECT_EQ(a.max_ns, 100);
  EXPECT_EQ(a.avg_ns, 60);  // 181 / 3 = 60.33
  EXPECT_EQ(t.rows[1].name, "norm_b");
  EXPECT_EQ(t.rows[1].min_ns, 10);
  EXPECT_EQ(t.rows[1].max_ns, 10);
  EXPECT_EQ(t.dispatches, 4);
  EXPECT_EQ(t.total_ns, 191);
  EXPECT_EQ(t.names, 2);
  EXPECT_EQ(census.offered(), 4);
  EXPECT_EQ(census.counted(), 4);
}

TEST_F(KernelCensusTest, TheAverageRoundsHalfToEvenInIntegers) {
  KernelCensus census;
  census.Add(D("gemm_odd", 0, 1));  // 1 + 2 = 3 over 2 calls: 1.5 -> 2
  census.Add(D("gemm_odd", 0, 2));
  census.Add(D("gemm_even", 0, 2));  // 2 + 3 = 5 over 2: 2.5 -> 2
  census.Add(D("gemm_even", 0, 3));
  census.Add(D("gemm_big", 0, int64_t{3'000'000'000'000'000'001}));  // beyond a double's 2^53
  census.Add(D("gemm_big", 0, int64_t{3'000'000'000'000'000'002}));
  const CensusTable t = census.ByName(names_, pack_);
  EXPECT_EQ(Find(t, "gemm_odd")->avg_ns, 2);
  EXPECT_EQ(Find(t, "gemm_even")->avg_ns, 2);
  EXPECT_EQ(Find(t, "gemm_big")->avg_ns, int64_t{3'000'000'000'000'000'002});  // 1.5 -> even
}

TEST_F(KernelCensusTest, RowsByTotalDescendingThenByName) {
  KernelCensus census;
  census.Add(D("zeta", 0, 50));
  census.Add(D("beta", 0, 50));
  census.Add(D("alpha", 0, 10));
  census.Add(D("alpha", 0, 10));
  census.Add(D("gamma", 0, 70));
  census.Add(D("alpha", 0, 30));  // alpha: 50, tied with beta and zeta
  const CensusTable t = census.ByName(names_, pack_);
  std::vector<std::string> order;
  for (const CensusRow& r : t.rows) order.push_back(r.name);
  EXPECT_EQ(order, (std::vector<std::string>{"gamma", "alpha", "beta", "zeta"}));
}

TEST_F(KernelCensusTest, TheOrderDoesNotDependOnTheOrderOfTheDispatches) {
  const std::vector<std::tuple<std::string, int64_t, int64_t>> rows = {
      {"b", 0, 5}, {"a", 0, 5}, {"c", 0, 9}, {"a", 1, 3}, {"d", 0, 2}};
  std::vector<std::string> forward, backward;
  {
    trace::StringPool pool;
    KernelCensus census;
    for (const auto& [n, s, e] : rows) {
      Dispatch d;
      d.name = pool.Intern(n);
      d.start = s;
      d.end = e;
      census.Add(d);
    }
    for (const CensusRow& r : census.ByName(pool, pack_).rows) forward.push_back(r.name);
  }
  {
    trace::StringPool pool;
    KernelCensus census;
    for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
      Dispatch d;
      d.name = pool.Intern(std::get<0>(*it));
      d.start = std::get<1>(*it);
      d.end = std::get<2>(*it);
      census.Add(d);
    }
    for (const CensusRow& r : census.ByName(pool, pack_).rows) backward.push_back(r.name);
  }
  EXPECT_EQ(forward, backward);
  EXPECT_EQ(forward, (std::vector<std::string>{"c", "a", "b", "d"}));
}

TEST_F(KernelCensusTest, SharesSumToOneHundred) {
  KernelCensus census;
  census.Add(D("gemm_a", 0, 333));
  census.Add(D("norm_b", 0, 333));
  census.Add(D("other_c", 0, 334));
  census.Add(D("[CUDA memcpy Device-to-Host]", 0, 7, DispatchKind::kMemcpy));
  const CensusTable t = census.ByName(names_, pack_);
  double sum = 0;
  for (const CensusRow& r : t.rows) sum += r.share_pct;
  EXPECT_NEAR(sum, 100.0, 1e-9);
  EXPECT_NEAR(Find(t, "other_c")->share_pct, 100.0 * 334 / 1007, 1e-12);
  const CensusTable by_class = ByClass(t);
  sum = 0;
  for (const CensusRow& r : by_class.rows) sum += r.share_pct;
  EXPECT_NEAR(sum, 100.0, 1e-9);
}

TEST_F(KernelCensusTest, MemoryOperationsAreRowsOfTheirClass) {
  KernelCensus census;
  census.Add(D("[CUDA memcpy Device-to-Host]", 0, 40, DispatchKind::kMemcpy));
  census.Add(D("[CUDA memcpy Device-to-Host]", 100, 120, DispatchKind::kMemcpy));
  census.Add(D("[CUDA memset]", 200, 205, DispatchKind::kMemset));
  census.Add(D("gemm_x", 300, 310));
  const CensusTable t = census.ByName(names_, pack_);
  ASSERT_EQ(t.rows.size(), 3u);
  const CensusRow* copy = Find(t, "[CUDA memcpy Device-to-Host]");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->class_name, "memcpy");
  EXPECT_EQ(copy->kind, DispatchKind::kMemcpy);
  EXPECT_EQ(copy->calls, 2);
  EXPECT_EQ(copy->total_ns, 60);
  EXPECT_EQ(Find(t, "[CUDA memset]")->class_name, "memset");
}

TEST_F(KernelCensusTest, TheWindowCountsOnlyDispatchesStartingInsideBothEndsIncluded) {
  KernelCensus census(StartRange{100, 200});
  census.Add(D("gemm_before", 99, 150));  // starts before: out
  census.Add(D("gemm_first", 100, 101));  // at lo: in
  census.Add(D("gemm_last", 200, 900));   // at hi, ends after: in (whole duration)
  census.Add(D("gemm_after", 201, 202));  // out
  census.Add(D("gemm_first", 150, 160));  // in
  const CensusTable t = census.ByName(names_, pack_);
  EXPECT_EQ(census.offered(), 5);
  EXPECT_EQ(census.counted(), 3);
  EXPECT_EQ(t.dispatches, 3);
  EXPECT_EQ(Find(t, "gemm_before"), nullptr);
  EXPECT_EQ(Find(t, "gemm_after"), nullptr);
  EXPECT_EQ(Find(t, "gemm_last")->total_ns, 700);
  EXPECT_EQ(Find(t, "gemm_first")->calls, 2);
  EXPECT_EQ(t.total_ns, 711);
}

TEST_F(KernelCensusTest, ByClassSumsTheKernelsOfEachClass) {
  KernelCensus census;
  census.Add(D("gemm_a", 0, 100));
  census.Add(D("gemm_b", 0, 20));
  census.Add(D("gemm_b", 0, 300));
  census.Add(D("norm_c", 0, 50));
  census.Add(D("unknown_d", 0, 5));
  census.Add(D("[CUDA memset]", 0, 1, DispatchKind::kMemset));
  const CensusTable t = ByClass(census.ByName(names_, pack_));
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[0].name, "gemm");
  EXPECT_EQ(t.rows[0].names, 2);
  EXPECT_EQ(t.rows[0].calls, 3);
  EXPECT_EQ(t.rows[0].total_ns, 420);
  EXPECT_EQ(t.rows[0].min_ns, 20);
  EXPECT_EQ(t.rows[0].max_ns, 300);
  EXPECT_EQ(t.rows[0].avg_ns, 140);
  EXPECT_EQ(t.rows[1].name, "norm");
  EXPECT_EQ(t.rows[2].name, "other");
  EXPECT_EQ(t.rows[3].name, "memset");
  EXPECT_EQ(t.dispatches, 6);
  EXPECT_EQ(t.total_ns, 476);
  EXPECT_EQ(t.names, 5);
}

TEST_F(KernelCensusTest, RepairedNamesAreMergedAndCounted) {
  KernelCensus census;
  census.Add(D("gemm\x01", 0, 10));
  census.Add(D("gemm\x02", 0, 20));
  census.Add(D("norm", 0, 5));
  const auto repair = [](std::string_view text) -> std::optional<std::string> {
    std::string out(text);
    bool changed = false;
    for (char& c : out) {
      if (c < 0x20) {
        c = '?';
        changed = true;
      }
    }
    if (!changed) return std::nullopt;
    return out;
  };
  const CensusTable t = census.ByName(names_, pack_, repair);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].name, "gemm?");
  EXPECT_EQ(t.rows[0].calls, 2);
  EXPECT_EQ(t.rows[0].min_ns, 10);
  EXPECT_EQ(t.rows[0].max_ns, 20);
  EXPECT_EQ(t.names_repaired, 2);
  EXPECT_EQ(t.first_repaired, "gemm?");
}

TEST_F(KernelCensusTest, CutKeepsTheTopRowsAndSumsTheRest) {
  KernelCensus census;
  census.Add(D("a", 0, 50));
  census.Add(D("b", 0, 30));
  census.Add(D("c", 0, 15));
  census.Add(D("d", 0, 5));
  const CensusTable t = census.ByName(names_, pack_);
  const CensusCut two = CutCensus(t, 2);
  ASSERT_EQ(two.shown.size(), 2u);
  EXPECT_EQ(two.shown[1].name, "b");
  EXPECT_EQ(two.omitted_rows, 2);
  EXPECT_EQ(two.omitted_total_ns, 20);
  EXPECT_NEAR(two.omitted_share_pct, 20.0, 1e-9);
  EXPECT_EQ(CutCensus(t, 0).shown.size(), 4u);
  EXPECT_EQ(CutCensus(t, 0).omitted_rows, 0);
  EXPECT_EQ(CutCensus(t, 9).shown.size(), 4u);
}

TEST_F(KernelCensusTest, AnEmptyCensusHasNoRowsAndNoShares) {
  KernelCensus census(StartRange{10, 20});
  census.Add(D("gemm", 0, 5));
  const CensusTable t = census.ByName(names_, pack_);
  EXPECT_TRUE(t.rows.empty());
  EXPECT_EQ(t.total_ns, 0);
  EXPECT_EQ(census.offered(), 1);
  EXPECT_TRUE(ByClass(t).rows.empty());
}

TEST_F(KernelCensusTest, ExpectationsCountTheMatchingKernelsAndCalls) {
  KernelCensus census;
  census.Add(D("void gemv2T_kernel<bf16>", 0, 10));
  census.Add(D("void gemv2T_kernel<bf16>", 0, 10));
  census.Add(D("void gemvx_kernel<f32>", 0, 10));
  census.Add(D("flash_fwd_kernel", 0, 10));
  const CensusTable t = census.ByName(names_, pack_);
  std::vector<NamePattern> patterns;
  for (const char* p : {"gemv", "^flash", "Flash", "gemv2T|flash", ""}) {
    auto compiled = NamePattern::Compile(p);
    ASSERT_TRUE(compiled.ok()) << p;
    patterns.push_back(std::move(*compiled));
  }
  auto matches = MatchExpectations(patterns, t);
  ASSERT_TRUE(matches.ok());
  ASSERT_EQ(matches->size(), 5u);
  EXPECT_EQ((*matches)[0].names, 2);
  EXPECT_EQ((*matches)[0].calls, 3);
  EXPECT_EQ((*matches)[1].names, 1);  // regex_search: anchors work
  EXPECT_EQ((*matches)[2].names, 0);  // case-sensitive
  EXPECT_EQ((*matches)[3].calls, 3);
  EXPECT_EQ((*matches)[4].names, 3);  // the empty pattern matches every name
  EXPECT_EQ((*matches)[2].pattern, "Flash");
}

TEST_F(KernelCensusTest, AnInvalidPatternIsAUsageErrorNamingIt) {
  for (const char* bad : {"[", "(gemm", "*x", "a{2,1}"}) {
    auto compiled = NamePattern::Compile(bad);
    ASSERT_FALSE(compiled.ok()) << bad;
    EXPECT_EQ(compiled.status().kind(), base::ErrorKind::kUsage);
    EXPECT_EQ(compiled.status().where(), "'" + std::string(bad) + "'");
    EXPECT_NE(compiled.status().message().find("not a valid RE2 pattern"), std::string::npos);
  }
}

// What RE2 cannot take is refused with the reason; a pathological pattern of backtracking
// engines, or a name of 1 MiB, matches in linear time.
TEST_F(KernelCensusTest, PatternsAreRe2AndLinear) {
  for (const char* bad : {"(a)\\1", "gemm(?=_f16)", "(?<!void )gemm", "a++"}) {
    auto compiled = NamePattern::Compile(bad);
    ASSERT_FALSE(compiled.ok()) << bad;
    EXPECT_EQ(compiled.status().kind(), base::ErrorKind::kUsage);
    EXPECT_NE(compiled.status().message().find("RE2 does not support"), std::string::npos)
        << compiled.status().message();
  }
  auto catastrophic = NamePattern::Compile("^(.*)*x$");
  ASSERT_TRUE(catastrophic.ok());
  const std::string name(1 << 20, 'a');
  auto matched = catastrophic->Matches(name);
  ASSERT_TRUE(matched.ok());
  EXPECT_FALSE(*matched);
  auto found = catastrophic->Matches(name + "x");
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(*found);
  // The location quotes at most 200 bytes of a long pattern.
  auto long_one = NamePattern::Compile(std::string(20000, 'a'));
  ASSERT_FALSE(long_one.ok());
  EXPECT_LT(long_one.status().where().size(), 260u);
}

}  // namespace
}  // namespace decodeprof::analysis
