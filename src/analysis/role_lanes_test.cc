// The role rules run one behind the other, each on a thread of its own (RoleLane), label a
// long sequence exactly as the rules run one after another do: every rule kind, the shipped
// packs, and the pattern rule's failures kept for a bounded reach only.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "src/analysis/role_rules.h"
#include "src/analysis/roles.h"
#include "src/analysis/test_pack.h"
#include "src/base/parallel.h"
#include "src/base/spill.h"
#include "src/base/testing/spill_testing.h"
#include "src/packs/pack_loader.h"
#include "src/packs/parsers.h"

namespace decodeprof::analysis {
namespace {

using Schedule = RulePack::RuleSchedule;

// A sequence of named dispatches with their classes under `pack`.
struct Sequence {
  trace::StringPool pool;
  trace::DispatchVector dispatches;
  std::vector<ClassId> classes;
  void Add(const Pack& pack, const std::string& name, int64_t grid) {
    trace::Dispatch d;
    d.start = static_cast<trace::TimestampNs>(dispatches.size()) * 20;
    d.end = d.start + 10;
    d.grid = grid;
    d.name = pool.Intern(name);
    dispatches.push_back(d);
    classes.push_back(pack.Classify(name));
  }
  SequenceView view() const { return SequenceView{dispatches, &pool, classes, true}; }
};

// Both schedules over `seq`; expects the same labels, and some labels at all.
void ExpectSameLabels(const RulePack& pack, const Sequence& seq) {
  ASSERT_GE(seq.dispatches.size(), base::kMinPassPart);
  const std::vector<RoleId> alone = pack.AssignRoles(seq.view(), Schedule::kOneAfterAnother);
  // The first lane held within a lead of the last: the shipped one, and leads short enough
  // that the lanes between wait on it (a pattern's or a span's look-ahead past the lead).
  for (const size_t lead : {RulePack::kMaxLead, size_t{50000}, size_t{700}}) {
    SCOPED_TRACE(lead);
    const std::vector<RoleId> lanes =
        pack.AssignRoles(seq.view(), Schedule::kOneBehindAnother, lead);
    ASSERT_EQ(lanes.size(), alone.size());
    size_t labelled = 0;
    size_t first_difference = alone.size();
    for (size_t i = 0; i < alone.size(); ++i) {
      labelled += alone[i] != kNoRole ? 1u : 0u;
      if (lanes[i] != alone[i] && first_difference == alone.size()) first_difference = i;
    }
    EXPECT_EQ(first_difference, alone.size()) << "the schedules differ first at this index";
    EXPECT_GT(labelled, alone.size() / 20) << "too few labels to tell the schedules apart";
  }
}

// The first lane waits while it is a lead ahead of the last, goes on as the last moves, and
// goes on regardless once the last stops moving (a rule between looking ahead past the lead
// waits for the first: without that, neither would move).
TEST(RoleLanesTest, TheFirstLaneRunsAtMostALeadAheadOfTheLast) {
  std::vector<RoleId> roles(10000, kNoRole);
  std::atomic<size_t> own{0};
  std::atomic<size_t> last{0};
  RoleLane lane(roles, nullptr, &own);
  lane.LeadAtMost(&last, 100, std::chrono::seconds(3600));  // never stuck here
  lane.WaitFor(99);                                         // within the lead: no wait
  lane.Commit(90);
  std::atomic<bool> through{false};
  size_t last_when_through = 0;
  std::thread first([&] {
    lane.WaitFor(400);
    last_when_through = last.load();
    through = true;
  });
  // It says how far it is done before it waits, so that the lanes behind can catch up.
  while (own.load() < 90) std::this_thread::yield();
  // The last lane moving: the first follows it.
  for (size_t at = 0; at <= 100000 && !through; at += 1) {
    last = at;
    std::this_thread::sleep_for(std::chrono::microseconds(10));
  }
  first.join();
  EXPECT_GE(last_when_through, 301u);
  // The last lane stuck at 0: the first goes on after a while all the same.
  std::vector<RoleId> more(100000, kNoRole);
  std::atomic<size_t> own2{0};
  std::atomic<size_t> stuck{0};
  RoleLane alone(more, nullptr, &own2);
  alone.LeadAtMost(&stuck, 100);
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < more.size(); i += 97) alone.WaitFor(i);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// AssignRoles holds the first lane to a lead only where the arrays lie in files, where the
// lead bounds what the lanes map in; in memory a lead would only hold the first rule up.
TEST(RoleLanesTest, TheFirstLaneHasALeadWhereTheArraysAreInFilesOrOneIsAsked) {
  std::vector<trace::Dispatch> dispatches(1000);
  std::vector<RoleId> roles(1000, kNoRole);
  EXPECT_EQ(RulePack::FirstLaneLead(dispatches.data(), roles.data(), std::nullopt), std::nullopt);
  EXPECT_EQ(RulePack::FirstLaneLead(dispatches.data(), roles.data(), 700), 700u);
  const base::spill::testing::SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  std::vector<RoleId, base::spill::testing::SpillAllocator<RoleId>> in_file(size_t{64} << 20);
  ASSERT_TRUE(base::spill::InFile(in_file.data()));
  EXPECT_EQ(RulePack::FirstLaneLead(dispatches.data(), in_file.data(), std::nullopt),
            RulePack::kMaxLead);
  EXPECT_EQ(RulePack::FirstLaneLead(in_file.data(), roles.data(), std::nullopt),
            RulePack::kMaxLead);
  EXPECT_EQ(RulePack::FirstLaneLead(in_file.data(), roles.data(), 50000), 50000u);
}

// Every rule kind but op_path (role_rules_oppath_test.cc), several of each, over a random
// sequence of one-letter kernels: later rules read what earlier ones wrote (overwrite off)
// or relabel it (on), so that a rule reading ahead of the one before it would show.
constexpr const char* kEveryKind = R"(
[pack]
name = "every-kind"
roles = ["a", "b", "c", "d", "e", "f", "g"]
[[class]]
name = "x"
patterns = ["^x$"]
[[class]]
name = "y"
patterns = ["^y$"]
[[class]]
name = "z"
patterns = ["^z$"]
[[class]]
name = "w"
patterns = ["^w$"]

[[role_rule]]
kind = "pattern"
overwrite = false
step = [
  { role = "a", match = { classes = ["x"] } },
  { match = { classes = ["y", "other"] }, min = 0, max = 3 },
  { role = "b", match = { classes = ["z"] }, min = 1, max = 2 },
]
[[role_rule]]
kind = "clusters"
member_class = "w"
max_gap = 4
member_role = "c"
overwrite = false
between_role = "d"
between = { names = ["y"] }
after_role = "e"
after = { names = ["z", "q"] }
after_stop = { names = ["q"] }
[[role_rule]]
kind = "follow_run"
overwrite = false
anchor_class = "y"
role = "f"
follow = { names = ["r"] }
[[role_rule]]
kind = "pair"
role = "g"
first = { names = ["s"] }
second = { names = ["t"] }
context_classes = ["x"]
context_role = "a"
overwrite = true
[[role_rule]]
kind = "span_around"
anchor_class = "z"
boundary_classes = ["w"]
overwrite = false
[[role_rule.label]]
role = "b"
when = { names = ["s"] }
[[role_rule.label]]
role = "c"
from_last_class = "y"
[[role_rule]]
kind = "tail_after_widest"
overwrite = false
head_class = "x"
role = "d"
stop = { names = ["w"] }
[[role_rule]]
kind = "name_contains"
overwrite = false
role = "e"
names = ["u"]
[[role_rule]]
kind = "clusters"
overwrite = false
member_class = "y"
max_gap = 2
member_role = "g"
follow_up_role = "f"
follow_up = { names = ["v"] }
[[role_rule]]
kind = "name_contains"
role = "a"
names = ["q", "v"]
overwrite = false
)";

TEST(RoleLanesTest, EveryRuleKindLabelsTheSameOneBehindAnother) {
  auto parsed = packs::ParsePack(kEveryKind, "every-kind.toml", "");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const auto& pack = dynamic_cast<const RulePack&>(*parsed.value());
  ASSERT_EQ(pack.rules().size(), 9u);
  const std::string letters = "xyzwqrstuvo";
  for (const uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<size_t> letter(0, letters.size() - 1);
    std::uniform_int_distribution<int> grid(1, 50);
    Sequence seq;
    // Long stretches without a boundary or an anchor too, so that rules wait on each other
    // across many publications.
    while (seq.dispatches.size() < 200000) {
      const bool quiet = (seq.dispatches.size() / 30000) % 3 == 2;
      const char c = quiet ? 'o' : letters[letter(rng)];
      seq.Add(pack, std::string(1, c), grid(rng));
    }
    SCOPED_TRACE(seed);
    ExpectSameLabels(pack, seq);
  }
}

// DECODEPROF_STAGE_TIMES: a line for the lanes' set-up, then one a lane in rule order, each
// with its kind, when it was done and how often it stood still; the labels are the same.
TEST(RoleLanesTest, StageTimesTellWhenEachLaneWasDoneAndHowLongItStoodStill) {
  auto parsed = packs::ParsePack(kEveryKind, "every-kind.toml", "");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const auto& pack = dynamic_cast<const RulePack&>(*parsed.value());
  Sequence seq;
  const std::string letters = "xyzwqrstuvo";
  std::mt19937 rng(7);
  std::uniform_int_distribution<size_t> letter(0, letters.size() - 1);
  while (seq.dispatches.size() < base::kMinPassPart * 2) {
    seq.Add(pack, std::string(1, letters[letter(rng)]), 1);
  }
  const std::vector<RoleId> plain = pack.AssignRoles(seq.view(), Schedule::kOneBehindAnother);
  setenv("DECODEPROF_STAGE_TIMES", "1", 1);
  ::testing::internal::CaptureStderr();
  const std::vector<RoleId> timed = pack.AssignRoles(seq.view(), Schedule::kOneBehindAnother);
  const std::string err = ::testing::internal::GetCapturedStderr();
  unsetenv("DECODEPROF_STAGE_TIMES");
  EXPECT_EQ(timed, plain);
  size_t at =
      err.find("decodeprof: role lanes: 9 rules over " + std::to_string(seq.dispatches.size()) +
               " kernels, names and roles set up in ");
  ASSERT_NE(at, std::string::npos) << err;
  for (size_t k = 0; k < pack.rules().size(); ++k) {
    const std::string kind(pack.rules()[k]->kind());
    char head[64];
    std::snprintf(head, sizeof head, "decodeprof: role lane %2zu %s", k, kind.c_str());
    at = err.find(head, at);
    ASSERT_NE(at, std::string::npos) << head << " in\n" << err;
    const size_t end = err.find('\n', at);
    const std::string line = err.substr(at, end - at);
    EXPECT_NE(line.find(" done at "), std::string::npos) << line;
    EXPECT_NE(line.find(" times for "), std::string::npos) << line;
    // The first lane has nobody before it and no lead to keep: it never stands still.
    if (k == 0) {
      EXPECT_NE(line.find("stood still 0 times for 0.000 s"), std::string::npos) << line;
    }
  }
  // Without the variable, nothing.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(pack.AssignRoles(seq.view(), Schedule::kOneBehindAnother), plain);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

// The shipped packs (their op_path rules have no ranges here and label nothing) over
// sequences of the kernels they name, in a decode-like order with random slips.
TEST(RoleLanesTest, ShippedPacksLabelTheSameOneBehindAnother) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"mlx-rocm", testing::MlxRocmDecodeKernels()},
      {"ggml",
       {"void rms_norm_f32<1024, true, false>(float const*, float*, int)",
        "void quantize_q8_1(float const*, void*, long, long, long, long, long, long)",
        "void mul_mat_vec_q<(ggml_type)8, 1, false, false>(void const*, void const*)",
        "void rope_norm<true, false, float, float>(float const*, float*, int)",
        "void k_set_rows<float, __half, long>(float const*, long const*, __half*)",
        "void flash_attn_ext_vec<128, 1, (ggml_type)1, (ggml_type)1, false>(char const*)",
        "void flash_attn_combine_results<128>(float const*, float2 const*, float*, int)",
        "void k_bin_bcast<&op_add, float, float, float>(float const*, float const*, float*)",
        "void mul_mat_vec_f<__half, float, 1, 256, false, false>(__half const*, float const*)",
        "void k_get_rows_float<float, float>(float const*, int const*, float*)"}},
      {"pytorch-cuda",
       {"void at::native::rms_norm_kernel<float>(float*)", "nvjet_hsh_128x64_64x4_1x2_h_bz_NNT",
        "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int)",
        "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)",
        "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16>(x)",
        "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64>>(x)",
        "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn>(x)",
        "void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel>(x)",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, ArgMaxOps>>(x)",
        "void at::native::index_elementwise_kernel<128, 4>(int)",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(x)",
        "void at::native::unrolled_elementwise_kernel<at::native::FillFunctor<long>>(int)"}},
  };
  for (const auto& [name, kernels] : cases) {
    SCOPED_TRACE(name);
    auto loaded = packs::LoadPack(name);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    const auto& pack = dynamic_cast<const RulePack&>(*loaded.value());
    ASSERT_GE(pack.rules().size(), 2u);
    std::mt19937 rng(7);
    std::uniform_int_distribution<size_t> any(0, kernels.size() - 1);
    std::uniform_int_distribution<int> slip(0, 9);
    Sequence seq;
    for (size_t step = 0; seq.dispatches.size() < 150000; ++step) {
      for (size_t k = 0; k < kernels.size(); ++k) {
        const size_t at = slip(rng) == 0 ? any(rng) : k;
        seq.Add(pack, kernels[at], step % 50 == 0 && at == 1 ? 4096 : 64);
      }
    }
    ExpectSameLabels(pack, seq);
  }
}

// A memo-free reading of the pattern rule (role_rules.h): anchors left to right, the first
// match by the largest counts first, labels on the steps that have a role, then on from the
// end of the last labelled step (or the next index).
std::vector<RoleId> NaivePattern(const PatternParams& p, const std::vector<ClassId>& classes,
                                 std::vector<RoleId> roles) {
  const size_t n = classes.size();
  const auto takes = [&](size_t k, size_t i) {
    const PatternStep& step = p.steps[k];
    if (step.role != kNoRole && !p.overwrite && roles[i] != kNoRole) return false;
    for (const Matcher& m : step.match.any) {
      for (const ClassId c : m.classes) {
        if (c == classes[i]) return true;
      }
    }
    return false;
  };
  std::vector<size_t> taken(p.steps.size());
  const auto match = [&](const auto& self, size_t k, size_t pos) -> bool {
    if (k == p.steps.size()) return true;
    size_t run = 0;
    while (run < static_cast<size_t>(p.steps[k].max) && pos + run < n && takes(k, pos + run)) {
      ++run;
    }
    for (size_t count = run + 1; count-- > static_cast<size_t>(p.steps[k].min);) {
      taken[k] = count;
      if (self(self, k + 1, pos + count)) return true;
    }
    return false;
  };
  size_t i = 0;
  while (i < n) {
    if (!match(match, 0, i)) {
      ++i;
      continue;
    }
    size_t next = i + 1;
    size_t pos = i;
    for (size_t k = 0; k < p.steps.size(); ++k) {
      if (p.steps[k].role != kNoRole && taken[k] > 0) {
        for (size_t j = pos; j < pos + taken[k]; ++j) roles[j] = p.steps[k].role;
        next = std::max(next, pos + taken[k]);
      }
      pos += taken[k];
    }
    i = next;
  }
  return roles;
}

TEST(RoleLanesTest, PatternFailuresKeptForTheReachOnlyMatchLikeNoMemoAtAll) {
  // Classes 0..3; a pattern whose optional steps make the scan back off and retry, with a
  // reach (the sum of max: 1 + 4 + 3 + 2 = 10) far below the sequence's length, so that the
  // ring of failures wraps many times.
  PatternParams p;
  const auto step = [](std::vector<ClassId> classes, int64_t min, int64_t max, RoleId role) {
    PatternStep s;
    s.match.any.push_back(Matcher{std::move(classes), {}, {}, false});
    s.min = min;
    s.max = max;
    s.role = role;
    return s;
  };
  p.steps = {step({0}, 1, 1, 0), step({1, 2}, 0, 4, kNoRole), step({2}, 1, 3, 1),
             step({3, 1}, 0, 2, 2)};
  for (const bool overwrite : {false, true}) {
    p.overwrite = overwrite;
    const PatternRule rule(p);
    for (const uint32_t seed : {11u, 12u, 13u}) {
      std::mt19937 rng(seed);
      std::uniform_int_distribution<int> cls(0, 3);
      std::uniform_int_distribution<int> preset(0, 7);
      trace::StringPool pool;
      trace::DispatchVector dispatches(5000);
      std::vector<ClassId> classes;
      std::vector<RoleId> roles;
      for (trace::Dispatch& d : dispatches) {
        const int c = cls(rng);
        d.name = pool.Intern(std::string(1, static_cast<char>('a' + c)));
        classes.push_back(static_cast<ClassId>(c));
        roles.push_back(preset(rng) == 0 ? RoleId{3} : kNoRole);  // some labelled before
      }
      const std::vector<RoleId> expected = NaivePattern(p, classes, roles);
      rule.ApplyAlone(SequenceView{dispatches, &pool, classes, true}, roles);
      EXPECT_EQ(roles, expected) << "seed " << seed << " overwrite " << overwrite;
      size_t labelled = 0;
      for (const RoleId r : expected) labelled += r == 0 || r == 1 ? 1u : 0u;
      EXPECT_GT(labelled, 500u);
    }
  }
}

// The clusters rule as it was first written: every cluster found first, then each labelled,
// then the follow-up in a pass of its own over the whole sequence. Names are one letter: the
// member is "w", `between` "y", `after` "z" up to a "q", the follow-up "v", "y" or "z" (what
// the clusters would have labelled, had they come first); '.' unassigned.
std::string ClustersInThreePasses(const std::string& names, std::string roles, bool overwrite) {
  const size_t n = names.size();
  std::vector<std::pair<size_t, size_t>> clusters;
  for (size_t i = 0; i < n; ++i) {
    if (names[i] != 'w') continue;
    if (!clusters.empty() && i - clusters.back().second <= 4) {
      clusters.back().second = i;
    } else {
      clusters.emplace_back(i, i);
    }
  }
  for (const auto& [first, last] : clusters) {
    for (size_t i = first; i <= last; ++i) {
      if (names[i] == 'w' && (overwrite || roles[i] == '.')) roles[i] = 'c';
    }
    for (size_t k = first + 1; k < last; ++k) {
      if (roles[k] == '.' && names[k] == 'y') roles[k] = 'd';
    }
    for (size_t k = last + 1; k < n && roles[k] == '.' && names[k] == 'z'; ++k) roles[k] = 'e';
  }
  if (clusters.empty()) return roles;
  for (size_t i = 0; i < n; ++i) {
    if (roles[i] == '.' && (names[i] == 'v' || names[i] == 'y' || names[i] == 'z')) roles[i] = 'f';
  }
  return roles;
}

// The clusters rule labels as it goes, its follow-up running below the next cluster (so that
// the rules after it need not wait for the end): the labels of the three passes, behind a rule
// that labelled some dispatches first, with and without overwrite, in either schedule.
TEST(RoleLanesTest, ClustersWithAFollowUpLabelAsInThreePasses) {
  for (const bool overwrite : {false, true}) {
    const std::string text = std::string(R"(
[pack]
name = "clusters"
roles = ["a", "c", "d", "e", "f"]
[[class]]
name = "w"
patterns = ["^w"]
[[role_rule]]
kind = "name_contains"
role = "a"
names = ["u"]
overwrite = false
[[role_rule]]
kind = "clusters"
member_class = "w"
max_gap = 4
member_role = "c"
overwrite = )") + (overwrite ? "true" : "false") +
                             R"(
between_role = "d"
between = { names = ["y"] }
after_role = "e"
after = { names = ["z", "q"] }
after_stop = { names = ["q"] }
follow_up_role = "f"
follow_up = { names = ["v", "y", "z"] }
)";
    auto parsed = packs::ParsePack(text, "clusters.toml", "");
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    const auto& pack = dynamic_cast<const RulePack&>(*parsed.value());
    for (const uint32_t seed : {1u, 2u}) {
      SCOPED_TRACE(::testing::Message() << "overwrite " << overwrite << ", seed " << seed);
      std::mt19937 rng(seed);
      // Rare marked names ("u", and the "w" and "v" the first rule labels) and stretches
      // without a member, so that clusters, after-runs and follow-ups meet part edges.
      const std::string letters = "wyzzqvoooo";
      std::uniform_int_distribution<size_t> letter(0, letters.size() - 1);
      std::uniform_int_distribution<int> marked(0, 40);
      Sequence seq;
      std::string names;
      std::string first_roles;
      while (names.size() < 150000) {
        const bool quiet = (names.size() / 20000) % 4 == 3;
        char c = letters[letter(rng)];
        if (quiet && c == 'w') c = 'o';
        const bool mark = marked(rng) == 0;
        const std::string name =
            mark ? (c == 'w' || c == 'v' ? std::string(1, c) + "u" : "u") : std::string(1, c);
        seq.Add(pack, name, 1);
        names += mark && c != 'w' && c != 'v' ? 'u' : c;
        first_roles += mark ? 'a' : '.';
      }
      const std::string want = ClustersInThreePasses(names, first_roles, overwrite);
      const std::string roles = "acdef";
      for (const Schedule schedule : {Schedule::kOneAfterAnother, Schedule::kOneBehindAnother}) {
        std::string got;
        for (const RoleId r : pack.AssignRoles(seq.view(), schedule)) {
          got += r == kNoRole ? '.' : roles[static_cast<size_t>(r)];
        }
        size_t first_difference = 0;
        while (first_difference < got.size() && got[first_difference] == want[first_difference]) {
          ++first_difference;
        }
        EXPECT_EQ(first_difference, want.size()) << "first difference at " << first_difference;
        EXPECT_EQ(got, want);
      }
      EXPECT_NE(want.find('f'), std::string::npos);
      EXPECT_NE(want.find('e'), std::string::npos);
      EXPECT_NE(want.find('d'), std::string::npos);
    }
  }
}

// span_around whose anchor is a boundary class too, at an index where the rule says how far it
// is done: its span reaches back past that index, so it must not say it is done there (debug
// builds check every rule's reads and writes against its commits), and both schedules agree.
TEST(RoleLanesTest, AnAnchorThatIsABoundaryReachesBackPastTheCommitPoint) {
  auto parsed = packs::ParsePack(R"(
[pack]
name = "span"
roles = ["a", "b"]
[[class]]
name = "w"
patterns = ["^w$"]
[[class]]
name = "z"
patterns = ["^z$"]
[[role_rule]]
kind = "span_around"
anchor_class = "z"
boundary_classes = ["w", "z"]
overwrite = false
[[role_rule.label]]
role = "a"
[[role_rule]]
kind = "name_contains"
role = "b"
names = ["o"]
overwrite = false
)",
                                 "span.toml", "");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const auto& pack = dynamic_cast<const RulePack&>(*parsed.value());
  Sequence seq;
  const size_t n = 5 * (size_t{1} << 14);
  for (size_t i = 0; i < n; ++i) {
    // A boundary at 16 000, the anchor at 16 384 (2^14), nothing else in between.
    const char c = i == 16'000 ? 'w' : i == 16'384 ? 'z' : 'o';
    seq.Add(pack, std::string(1, c), 1);
  }
  for (const Schedule schedule : {Schedule::kOneAfterAnother, Schedule::kOneBehindAnother}) {
    const std::vector<RoleId> roles = pack.AssignRoles(seq.view(), schedule);
    ASSERT_EQ(roles.size(), n);
    EXPECT_EQ(roles[15'999], 1);  // "b": before the boundary, the second rule's
    EXPECT_EQ(roles[16'001], 0);  // "a": the anchor's span, from after the boundary
    EXPECT_EQ(roles[16'384], 0);
    EXPECT_EQ(roles[n - 1], 0);  // the span runs to the end
  }
}

}  // namespace
}  // namespace decodeprof::analysis
