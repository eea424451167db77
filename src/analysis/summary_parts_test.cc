// The summary's passes in parts on several threads give what one pass gives: the same window
// summarized with every CPU and with one (the process's affinity narrowed for the run).
#include <gtest/gtest.h>
#include <sched.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/intervals.h"
#include "src/analysis/roles.h"
#include "src/analysis/summary.h"
#include "src/analysis/test_pack.h"
#include "src/base/parallel.h"
#include "src/packs/pack_loader.h"

namespace decodeprof::analysis {
namespace {

using testing::FakePack;
using testing::FakeUnits;
using testing::InputsOf;
using trace::Dispatch;

// Runs fn() with the process's CPUs narrowed to its first one, then restores them.
template <typename Fn>
void OnOneCpu(const Fn& fn) {
  cpu_set_t all;
  CPU_ZERO(&all);
  EXPECT_EQ(::sched_getaffinity(0, sizeof(all), &all), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  for (size_t c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &one);
      break;
    }
  }
  EXPECT_EQ(::sched_setaffinity(0, sizeof(one), &one), 0);
  EXPECT_EQ(base::UsableCpus(), 1u);
  fn();
  EXPECT_EQ(::sched_setaffinity(0, sizeof(all), &all), 0);
}

Summary SummaryOnOneCpu(const SummaryInputs& in) {
  Summary out;
  OnOneCpu([&] {
    auto s = BuildSummary(in, Attribute(in));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (s.ok()) out = std::move(s).value();
  });
  return out;
}

TEST(SummaryPartsTest, UnitsNamingClassesSumTheSameGapsInPartsAsInOnePass) {
  trace::StringPool names;
  DecodeWindow window;
  FakePack pack{{"qmv", "rope", "copy"},
                {"rope_append", "ssm_step", "sampler_tail"},
                {{"rope_k", "rope_append"}, {"copy_gg", "rope_append"}}};
  FakeUnits units{{Unit{"graph", "capture the decode step", {}, {}, HostGapOwnership::kAll},
                   Unit{"gemv", "gemv kernel", {}, {0}, HostGapOwnership::kRoles},
                   Unit{"rope", "fused rope", {0}, {1}, HostGapOwnership::kAll}},
                  {UnitReach{{}, {}, "always", true, false}, UnitReach{{}, {}, "", true, true},
                   UnitReach{{0}, {0}, "", false, false}}};
  // 300 000 dispatches with gaps between most of them; every 997th runs long, over the next
  // few hundred, so that the gaps after a part's first index depend on an earlier part.
  const trace::StringId kernels[] = {names.Intern("qmv_a"), names.Intern("rope_k"),
                                     names.Intern("copy_gg"), names.Intern("other")};
  trace::TimestampNs t = 1000;
  for (size_t i = 0; i < 300000; ++i) {
    const trace::TimestampNs length = i % 997 == 0 ? 30000 : 50 + static_cast<int64_t>(i % 7);
    window.dispatches.push_back(Dispatch{.start = t, .end = t + length, .name = kernels[i % 4]});
    t += 40 + static_cast<int64_t>(i % 5) * 10;
  }
  window.lo = 0;
  window.hi = t - 20000;  // the last dispatches end past the window
  SummaryInputs in = InputsOf(window, names, pack, units);
  in.profiled.generated_tokens = 300;
  in.plain = trace::BenchResults{.decode_tok_s = 2500.0};
  ASSERT_GE(base::PassParts(window.dispatches.size(), base::kMinPassPart), 1u);
  auto parts = BuildSummary(in, Attribute(in));
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  const Summary one = SummaryOnOneCpu(in);
  ASSERT_EQ(parts->units.size(), 3u);
  ASSERT_EQ(one.units.size(), 3u);
  for (size_t u = 0; u < 3; ++u) {
    SCOPED_TRACE(parts->units[u].id);
    for (const auto field :
         {&UnitSummary::fallback, &UnitSummary::reached_default, &UnitSummary::reached_optin}) {
      const WallFields& a = parts->units[u].*field;
      const WallFields& b = one.units[u].*field;
      EXPECT_EQ(a.host_gap_ms_per_token, b.host_gap_ms_per_token);
      EXPECT_EQ(a.host_gap_us_per_dispatch, b.host_gap_us_per_dispatch);
      EXPECT_EQ(a.wall_share_pct, b.wall_share_pct);
      EXPECT_EQ(a.ceiling_wall, b.ceiling_wall);
      EXPECT_EQ(a.plain_ceiling_wall_est, b.plain_ceiling_wall_est);
    }
  }
  // The class unit owns some of the gap, and not all of it: the sums are not trivially equal.
  EXPECT_GT(one.units[1].fallback.host_gap_ms_per_token, 0.0);
  EXPECT_LT(one.units[1].fallback.host_gap_ms_per_token, one.host_gap_ms_per_token);
  EXPECT_EQ(parts->host_gap_ms_per_token, one.host_gap_ms_per_token);
  EXPECT_EQ(parts->host_gap_attribution_residual_ns, one.host_gap_attribution_residual_ns);
}

// The busy union and the gap attribution as one pass in start order computes them: merged
// segments, and each idle stretch to the role of the dispatch that ends it, roles in their
// first appearance.
trace::DurationNs BusyUnionInOnePass(const std::vector<Dispatch>& dispatches, trace::TimestampNs lo,
                                     trace::TimestampNs hi) {
  trace::DurationNs busy = 0;
  bool open = false;
  trace::TimestampNs seg_start = 0;
  trace::TimestampNs seg_end = 0;
  for (const Dispatch& d : dispatches) {
    const trace::TimestampNs s = std::max(d.start, lo);
    const trace::TimestampNs e = std::min(d.end, hi);
    if (e <= s) continue;
    if (!open || s > seg_end) {
      if (open) busy += seg_end - seg_start;
      seg_start = s;
      seg_end = e;
      open = true;
    } else {
      seg_end = std::max(seg_end, e);
    }
  }
  return open ? busy + seg_end - seg_start : busy;
}

GapAttribution GapsInOnePass(const std::vector<Dispatch>& dispatches,
                             const std::vector<RoleId>& roles, trace::TimestampNs lo,
                             trace::TimestampNs hi) {
  GapAttribution out;
  trace::TimestampNs frontier = lo;
  for (size_t i = 0; i < dispatches.size(); ++i) {
    auto it = std::find_if(out.per_role.begin(), out.per_role.end(),
                           [&](const auto& e) { return e.first == roles[i]; });
    if (it == out.per_role.end()) it = out.per_role.insert(it, {roles[i], 0});
    it->second += std::max<trace::DurationNs>(0, std::min(dispatches[i].start, hi) - frontier);
    frontier = std::max(frontier, std::min(dispatches[i].end, hi));
  }
  out.tail = std::max<trace::DurationNs>(0, hi - frontier);
  return out;
}

TEST(SummaryPartsTest, BusyUnionAndGapsInPartsEqualOnePassInStartOrder) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> step(0, 60);
  std::uniform_int_distribution<int> length(0, 80);
  std::uniform_int_distribution<int> role(-1, 5);
  std::vector<Dispatch> dispatches;
  std::vector<RoleId> roles;
  trace::TimestampNs t = 0;
  for (size_t i = 0; i < 300000; ++i) {
    t += step(rng);
    // Empty ones, touching ones, and every 50 001st running long, over a part boundary.
    const trace::TimestampNs len = i % 50001 == 49000 ? 400000 : length(rng);
    dispatches.push_back(Dispatch{.start = t, .end = t + len});
    // A role first met late in the window, so that the first appearances cross the parts.
    roles.push_back(i < 250000 ? static_cast<RoleId>(role(rng)) : RoleId{9});
  }
  ASSERT_GE(base::PassParts(dispatches.size(), base::kMinPassPart), 1u);
  for (const auto& [lo, hi] : std::vector<std::pair<trace::TimestampNs, trace::TimestampNs>>{
           {0, t + 100}, {t / 3, t - t / 4}, {-50, t / 2}}) {
    SCOPED_TRACE(lo);
    const trace::DurationNs busy = BusyUnion(dispatches, lo, hi);
    EXPECT_EQ(busy, BusyUnionInOnePass(dispatches, lo, hi));
    EXPECT_GT(busy, 0);
    EXPECT_LT(busy, hi - lo);
    auto gaps = AttributeGaps(dispatches, roles, lo, hi);
    ASSERT_TRUE(gaps.ok()) << gaps.status().ToString();
    const GapAttribution expected = GapsInOnePass(dispatches, roles, lo, hi);
    EXPECT_EQ(gaps->per_role, expected.per_role);
    EXPECT_EQ(gaps->tail, expected.tail);
    if (lo <= 0) {  // every dispatch starts in the window: gaps and busy time make it up
      EXPECT_EQ(gaps->total(), hi - lo - busy);
    }
  }
}

// A pack of 130 roles that gives each dispatch the role of its index modulo 130: one kernel
// name is seen in every role, in every part of the sums, past the first 64 role slots.
class RoundRobinRoles : public FakePack {
 public:
  static constexpr size_t kRoles = 130;
  RoundRobinRoles() : FakePack({"gemv"}, RoleNames(), {}) {}
  std::vector<RoleId> AssignRoles(const SequenceView& seq) const override {
    std::vector<RoleId> out(SizeOf(seq));
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<RoleId>(i % kRoles);
    return out;
  }

 private:
  static std::vector<std::string> RoleNames() {
    std::vector<std::string> roles;
    for (size_t r = 0; r < kRoles; ++r) roles.push_back("r" + std::to_string(1000 + r));
    return roles;
  }
};

// The roles a kernel was seen in, merged over the parts: every one of 130 for the kernel that
// takes them all, one for the kernel that only runs at indices 7 modulo 130.
TEST(SummaryPartsTest, AKernelSeenInManyRolesListsEachOnceInPartsAsInOnePass) {
  trace::StringPool names;
  DecodeWindow window;
  const trace::StringId every = names.Intern("gemv_every");
  const trace::StringId seventh = names.Intern("gemv_seventh");
  for (size_t i = 0; i < 300000; ++i) {
    window.dispatches.push_back(
        Dispatch{.start = static_cast<int64_t>(i) * 100,
                 .end = static_cast<int64_t>(i) * 100 + 60,
                 .name = i % RoundRobinRoles::kRoles == 7 ? seventh : every});
  }
  window.lo = 0;
  window.hi = 300000 * 100;
  const RoundRobinRoles pack;
  FakeUnits units{{}, {}};
  const SummaryInputs in = InputsOf(window, names, pack, units);
  ASSERT_GE(base::PassParts(window.dispatches.size(), base::kMinPassPart), 1u);
  const Attribution attribution = Attribute(in);
  EXPECT_EQ(attribution.kernel_names, 2u);  // each name counted once, whichever part met it
  auto parts = BuildSummary(in, attribution);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  const Summary one = SummaryOnOneCpu(in);
  std::vector<std::string> all_but_seventh;
  for (size_t r = 0; r < RoundRobinRoles::kRoles; ++r) {
    if (r != 7) all_but_seventh.push_back("r" + std::to_string(1000 + r));
  }
  const Summary& in_parts = parts.value();
  for (const Summary* s : {&in_parts, &one}) {
    ASSERT_EQ(s->kernels.size(), 2u);
    EXPECT_EQ(s->kernels[0].name, "gemv_every");
    EXPECT_EQ(s->kernels[0].roles, all_but_seventh);
    EXPECT_EQ(s->kernels[1].name, "gemv_seventh");
    EXPECT_EQ(s->kernels[1].roles, std::vector<std::string>{"r1007"});
  }
}

// A window that holds memory operations: the role rules see its kernels only, through a
// compact view filled in parts. The roles equal those of the rules over a copy of the
// kernels, on every CPU and on one; the memory operations keep none.
TEST(SummaryPartsTest, KernelsBetweenMemoryOperationsGetTheRolesOfTheKernelsAlone) {
  auto loaded = packs::LoadPack("mlx-rocm");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const auto& pack = dynamic_cast<const RulePack&>(*loaded.value());
  const std::vector<std::string>& layer = testing::MlxRocmDecodeKernels();
  trace::StringPool names;
  DecodeWindow window;
  const trace::StringId copy = names.Intern(trace::MemcpyName(2));
  for (size_t i = 0; i < 240000; ++i) {
    Dispatch d{.start = static_cast<int64_t>(i) * 100, .end = static_cast<int64_t>(i) * 100 + 60};
    if (i % 37 == 36) {
      d.name = copy;
      d.kind = trace::DispatchKind::kMemcpy;
    } else {
      const size_t k = (i * 7 + i / 11) % 10;
      d.name = names.Intern(layer[k]);
      d.grid = k == 1 && i % 50 < 3 ? 4096 : 64;  // a few widest heads
    }
    window.dispatches.push_back(d);
  }
  window.lo = 0;
  window.hi = 240000 * 100;
  FakeUnits units{{}, {}};
  const SummaryInputs in = InputsOf(window, names, pack, units);
  ASSERT_GE(base::PassParts(window.dispatches.size(), base::kMinPassPart), 1u);
  const Attribution parts = Attribute(in);
  Attribution one;
  OnOneCpu([&] { one = Attribute(in); });
  // The rules over a copy of the kernels, one after another.
  std::vector<Dispatch> kernels;
  std::vector<ClassId> classes;
  for (const Dispatch& d : window.dispatches) {
    if (d.kind != trace::DispatchKind::kKernel) continue;
    kernels.push_back(d);
    classes.push_back(pack.Classify(names.Get(d.name)));
  }
  const std::vector<RoleId> alone = pack.AssignRoles(SequenceView{kernels, &names, classes, true},
                                                     RulePack::RuleSchedule::kOneAfterAnother);
  std::vector<RoleId> expected;
  size_t k = 0;
  size_t labelled = 0;
  for (const Dispatch& d : window.dispatches) {
    const bool kernel = d.kind == trace::DispatchKind::kKernel;
    expected.push_back(kernel ? alone[k++] : kNoRole);
    labelled += expected.back() != kNoRole ? 1u : 0u;
  }
  EXPECT_GT(labelled, window.dispatches.size() / 10);
  EXPECT_EQ(parts.roles, expected);
  EXPECT_EQ(one.roles, expected);
  EXPECT_EQ(parts.classes, one.classes);
  EXPECT_EQ(parts.warnings, one.warnings);
  EXPECT_EQ(parts.warnings, pack.RoleWarnings(SequenceView{kernels, &names, classes, true}));
}

}  // namespace
}  // namespace decodeprof::analysis
