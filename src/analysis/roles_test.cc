// Role rules: the seed's RoleTests (spec section 3) on the built-in mlx-rocm pack, and the
// rule kinds' parameters (overwrite, conditions) on small packs.
#include "src/analysis/roles.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/role_rules.h"
#include "src/packs/pack_loader.h"
#include "src/packs/parsers.h"

namespace decodeprof::analysis {
namespace {

// Kernel names spelled the way rocprofv3 writes MLX's ROCm kernels.
const std::map<std::string, std::string>& KernelNames() {
  static const auto* names = new std::map<std::string, std::string>{
      {"qmv", "void mlx::core::rocm::qmv_wide_kernel<__half, __half, 64, 4>(__half const*)"},
      {"gqmv", "void mlx::core::rocm::gather_qmv_wide_kernel<hip_bfloat16, hip_bfloat16, 64>(x)"},
      {"rms", "void mlx::core::rocm::rms_norm_kernel<__half, 256, 4>(__half const*)"},
      {"add",
       "void mlx::core::rocm::binary_vv<mlx::core::rocm::Add, __half, __half, unsigned int, "
       "4>(x)"},
      {"mul",
       "void mlx::core::rocm::binary_g<mlx::core::rocm::Multiply, float, float, long, 1>(x)"},
      {"div",
       "void mlx::core::rocm::binary_vs<mlx::core::rocm::Divide, float, float, unsigned int, "
       "4>(x)"},
      {"rope", "void mlx::core::rocm::rope_single_1d<__half, false, true>(x)"},
      {"kv", "void mlx::core::rocm::copy_gg_byval<__half, __half, long>(x)"},
      {"cast", "void mlx::core::rocm::copy_v<__half, float, unsigned int, 4>(x)"},
      {"sdpa", "void mlx::core::rocm::kernel_sdpav_1pass<__half, false, 128>(x)"},
      {"swiglu",
       "void mlx::core::rocm::CV2ISigmoidADV2IMultiplyGH_VV_V2V2_614_contiguous<unsigned int, "
       "8>(x)"},
      {"silu",
       "void mlx::core::rocm::BV2ISigmoidACV2OMultiplyCD_V_V2_614_contiguous<unsigned int, "
       "16>(x)"},
      {"argmax",
       "void mlx::core::rocm::arg_reduce_final<__half, mlx::core::rocm::ArgMax<__half>, 256>(x)"},
      {"embed", "void mlx::core::rocm::gather_rows_kernel<unsigned int, int>(x)"},
      {"sort",
       "void mlx::core::rocm::block_sort_kernel<hip_bfloat16, unsigned int, true, 32, 8>(x)"},
      {"arange", "void mlx::core::rocm::arange_kernel<unsigned int>(unsigned int*)"},
      {"colsum",
       "void mlx::core::rocm::col_reduce_small<float, float, mlx::core::rocm::Sum, 4>(x)"},
      {"conv", "void mlx::core::(anonymous namespace)::depthwise_conv1d_kernel<hip_bfloat16>(x)"},
      {"exp",
       "void mlx::core::rocm::unary_v<mlx::core::rocm::Exp, float, float, unsigned int, 4>(x)"},
      {"scan",
       "void mlx::core::rocm::contiguous_scan<float, float, mlx::core::rocm::Sum, 4, true, "
       "false>(x)"},
      {"paged", "void mlx::core::rocm::Paged_Attention_v1<__half>(x)"},
  };
  return *names;
}

// A decode sequence as the seed's tests build it: "op" or "op:grid" (default grid 256),
// each dispatch 10 ns long, 20 ns apart.
class Sequence {
 public:
  Sequence(const Pack& pack, const std::vector<std::string>& ops) {
    trace::TimestampNs t = 1000;
    for (const std::string& op : ops) {
      const size_t colon = op.find(':');
      const std::string key = op.substr(0, colon);
      trace::Dispatch d;
      d.start = t;
      d.end = t + 10;
      d.grid = colon == std::string::npos ? 256 : std::stoll(op.substr(colon + 1));
      d.name = pool_.Intern(KernelNames().at(key));
      dispatches_.push_back(d);
      classes_.push_back(pack.Classify(KernelNames().at(key)));
      t += 20;
    }
  }
  SequenceView view(bool has_grid = true) const {
    return SequenceView{dispatches_, &pool_, classes_, has_grid};
  }
  void ClearGrids() {
    for (auto& d : dispatches_) d.grid = 0;
  }

 private:
  trace::StringPool pool_;
  trace::DispatchVector dispatches_;
  std::vector<ClassId> classes_;
};

class MlxRocmRolesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pack = packs::LoadPack("mlx-rocm");
    ASSERT_TRUE(pack.ok()) << pack.status().ToString();
    pack_ = std::move(pack).value();
  }
  // Role names (None → "") of `ops`.
  std::vector<std::string> Roles(const Sequence& seq, bool has_grid = true) const {
    std::vector<std::string> out;
    for (RoleId r : pack_->AssignRoles(seq.view(has_grid))) {
      out.push_back(r == kNoRole ? "" : pack_->role_names()[static_cast<size_t>(r)]);
    }
    return out;
  }
  std::unique_ptr<Pack> pack_;
};

TEST_F(MlxRocmRolesTest, DenseLayerAndSamplerTail) {
  const Sequence seq(
      *pack_, {"embed",    "rms",      "qmv:1000", "rope",      "kv",       "kv",       "rope",
               "sdpa",     "qmv:1000", "add",      "rms",       "qmv:3000", "qmv:3000", "swiglu",
               "qmv:1000", "add",      "rms",      "qmv:90000", "cast",     "argmax",   "embed"});
  const std::vector<std::string> roles = Roles(seq);
  ASSERT_EQ(roles.size(), 21u);
  for (size_t i = 3; i < 7; ++i) EXPECT_EQ(roles[i], "rope_append") << i;
  EXPECT_EQ(roles[9], "add_rms_join_post_attn");
  EXPECT_EQ(roles[10], "add_rms_join_post_attn");
  EXPECT_EQ(roles[15], "add_rms_join");
  EXPECT_EQ(roles[16], "add_rms_join");
  EXPECT_EQ(roles[18], "sampler_tail");
  EXPECT_EQ(roles[19], "sampler_tail");
  EXPECT_EQ(roles[17], "");  // the lm_head GEMV itself
  EXPECT_EQ(roles[20], "");  // the next step's embedding
  EXPECT_TRUE(pack_->RoleWarnings(seq.view()).empty());
}

TEST_F(MlxRocmRolesTest, MoeBlock) {
  const Sequence seq(
      *pack_, {"add", "rms", "qmv:64", "sort", "arange", "arange", "div", "gqmv", "gqmv", "swiglu",
               "gqmv", "mul", "cast", "colsum", "add", "rms", "qmv:90000", "argmax"});
  const std::vector<std::string> roles = Roles(seq);
  EXPECT_EQ(roles[7], "moe_expert_gemv");
  EXPECT_EQ(roles[8], "moe_expert_gemv");
  EXPECT_EQ(roles[10], "moe_expert_gemv");
  EXPECT_EQ(roles[9], "moe_activation");
  for (size_t i = 11; i < 14; ++i) EXPECT_EQ(roles[i], "moe_weighted_sum") << i;
  EXPECT_EQ(roles[4], "moe_gather_indices");
  EXPECT_EQ(roles[5], "moe_gather_indices");
  EXPECT_EQ(roles[3], "");  // router top-k stays outside the fused kernel
  EXPECT_EQ(roles[6], "");  // score normalisation too
  EXPECT_EQ(roles[14], "add_rms_join");
  EXPECT_EQ(roles[15], "add_rms_join");
  EXPECT_EQ(roles[0], "add_rms_join");
  EXPECT_EQ(roles[1], "add_rms_join");
}

TEST_F(MlxRocmRolesTest, MambaMixer) {
  const Sequence seq(
      *pack_, {"rms", "qmv:200000", "cast", "kv", "conv", "exp", "mul", "silu", "scan", "mul",
               "silu", "rms", "mul", "qmv:50000", "qmv:900000", "argmax"});
  const std::vector<std::string> roles = Roles(seq);
  EXPECT_EQ(roles[2], "ssm_step");
  EXPECT_EQ(roles[3], "ssm_conv");
  EXPECT_EQ(roles[4], "ssm_conv");
  for (size_t i : {5u, 6u, 8u, 9u}) EXPECT_EQ(roles[i], "ssm_step") << i;
  EXPECT_EQ(roles[7], "ssm_silu");
  EXPECT_EQ(roles[10], "ssm_silu");
  EXPECT_EQ(roles[11], "ssm_gated_norm");
  EXPECT_EQ(roles[12], "ssm_gated_norm");
  EXPECT_EQ(roles[1], "");   // in_proj
  EXPECT_EQ(roles[13], "");  // out_proj
  EXPECT_EQ(roles[15], "sampler_tail");
}

TEST_F(MlxRocmRolesTest, MixerSpanOverwritesTheSamplerTail) {
  // Rule 1 labels the cast after the widest qmv (the tail stops at the rms_norm); the
  // unlabelled conv's span reaches back to the qmv and relabels the cast.
  const std::vector<std::string> roles =
      Roles(Sequence(*pack_, {"qmv:9000", "cast", "rms", "conv", "exp", "qmv:100"}));
  EXPECT_EQ(roles, (std::vector<std::string>{"", "ssm_step", "ssm_gated_norm", "ssm_gated_norm",
                                             "ssm_gated_norm", ""}));
}

TEST_F(MlxRocmRolesTest, AConvWithARoleAlreadyOpensNoSpan) {
  const std::vector<std::string> roles =
      Roles(Sequence(*pack_, {"qmv:9000", "cast", "conv", "exp", "qmv:100"}));
  EXPECT_EQ(roles,
            (std::vector<std::string>{"", "sampler_tail", "sampler_tail", "sampler_tail", ""}));
}

TEST_F(MlxRocmRolesTest, MoeClustersSplitWhenTheGapExceedsTwelve) {
  std::vector<std::string> ops = {"gqmv"};
  for (int i = 0; i < 12; ++i) ops.push_back("exp");  // gqmv at 0 and 13: gap 13
  ops.push_back("gqmv");
  ops.push_back("exp");
  const Sequence seq(*pack_, ops);
  const std::vector<std::string> roles = Roles(seq);
  EXPECT_EQ(roles[0], "moe_expert_gemv");
  EXPECT_EQ(roles[13], "moe_expert_gemv");
  // Two clusters: the dispatches between them are after-runs, not activations.
  EXPECT_EQ(roles[1], "moe_weighted_sum");
  EXPECT_EQ(roles[12], "moe_weighted_sum");
  EXPECT_EQ(roles[14], "moe_weighted_sum");

  std::vector<std::string> close = {"gqmv"};
  for (int i = 0; i < 11; ++i) close.push_back("exp");  // gqmv at 0 and 12: gap 12
  close.push_back("gqmv");
  const std::vector<std::string> one = Roles(Sequence(*pack_, close));
  EXPECT_EQ(one[1], "moe_activation");
  EXPECT_EQ(one[11], "moe_activation");
}

TEST_F(MlxRocmRolesTest, DivideBetweenExpertGemvsIsNotAnActivation) {
  const std::vector<std::string> roles = Roles(Sequence(*pack_, {"gqmv", "div", "mul", "gqmv"}));
  EXPECT_EQ(roles[1], "");
  EXPECT_EQ(roles[2], "moe_activation");
}

TEST_F(MlxRocmRolesTest, WeightedSumStopsAtTheResidualAdd) {
  const std::vector<std::string> roles = Roles(Sequence(*pack_, {"gqmv", "mul", "add", "rms"}));
  EXPECT_EQ(roles[1], "moe_weighted_sum");
  EXPECT_EQ(roles[2], "add_rms_join");
  EXPECT_EQ(roles[3], "add_rms_join");
}

TEST_F(MlxRocmRolesTest, ArangeIsAGatherIndexOnlyWhenAGatherQmvExists) {
  EXPECT_EQ(Roles(Sequence(*pack_, {"arange", "exp"}))[0], "");
  EXPECT_EQ(Roles(Sequence(*pack_, {"arange", "exp", "gqmv"}))[0], "moe_gather_indices");
}

TEST_F(MlxRocmRolesTest, PagedIsMatchedOnTheLowerCasedName) {
  EXPECT_EQ(Roles(Sequence(*pack_, {"exp", "paged"}))[1], "paged_attention");
}

TEST_F(MlxRocmRolesTest, WithoutGridSizesEveryQmvIsAHeadAndAWarningSaysSo) {
  Sequence seq(*pack_, {"rms", "qmv", "cast", "rms", "qmv", "argmax"});
  seq.ClearGrids();
  const std::vector<std::string> roles = Roles(seq, /*has_grid=*/false);
  EXPECT_EQ(roles[2], "sampler_tail");  // seed behaviour: the cast after any qmv
  EXPECT_EQ(roles[5], "sampler_tail");
  const std::vector<trace::DiagMessage> warnings = pack_->RoleWarnings(seq.view(false));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].code, trace::Diag::kRoleRuleWarning);
  EXPECT_EQ(warnings[0].text,
            "the trace has no grid sizes, so all 2 qmv dispatches tie as the widest and each one "
            "starts a sampler_tail run (rule tail_after_widest); sampler_tail is overstated: "
            "record the trace with grid sizes");
}

TEST_F(MlxRocmRolesTest, ClassesShorterThanDispatchesCountAsOther) {
  const Sequence seq(*pack_, {"rope", "kv", "kv"});
  SequenceView view = seq.view();
  view.classes = view.classes.subspan(0, 1);
  const std::vector<RoleId> roles = pack_->AssignRoles(view);
  ASSERT_EQ(roles.size(), 3u);
  EXPECT_EQ(roles[1], *pack_->FindRole("rope_append"));  // names still match copy_gg
  const std::vector<trace::DiagMessage> warnings = pack_->RoleWarnings(view);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].text,
            "the role rules got 3 dispatches but 1 classes; dispatches without a class count as "
            "\"other\"");
}

TEST_F(MlxRocmRolesTest, EmptySequenceGetsNoRoles) {
  const Sequence seq(*pack_, {});
  EXPECT_TRUE(pack_->AssignRoles(seq.view()).empty());
  EXPECT_TRUE(pack_->RoleWarnings(seq.view()).empty());
}

// ---- rule kinds on small packs ----------------------------------------------------------

std::unique_ptr<RulePack> SmallPack(const std::string& rules) {
  const std::string text = R"(
[pack]
name = "small"
roles = ["a", "b"]
[[class]]
name = "x"
patterns = ["x"]
[[class]]
name = "y"
patterns = ["y"]
)" + rules;
  auto pack = packs::ParsePack(text, "small.toml", "");
  EXPECT_TRUE(pack.ok()) << pack.status().ToString();
  return pack.ok() ? std::move(pack).value() : nullptr;
}

// Roles ("" for none) of names given as a string of one-letter names; each name is its
// own kernel, so class x = "x", class y = "y", anything else is other.
// `class_grids`: SequenceView::class_grids as a caller that counted them would give them.
std::string RolesOf(const Pack& pack, const std::string& names, std::vector<int64_t> grids = {},
                    std::span<const ClassGrids> class_grids = {}) {
  trace::StringPool pool;
  trace::DispatchVector dispatches;
  std::vector<ClassId> classes;
  for (size_t i = 0; i < names.size(); ++i) {
    trace::Dispatch d;
    d.name = pool.Intern(std::string(1, names[i]));
    d.grid = i < grids.size() ? grids[i] : 1;
    dispatches.push_back(d);
    classes.push_back(pack.Classify(std::string(1, names[i])));
  }
  std::string out;
  SequenceView seq{dispatches, &pool, classes, true};
  seq.class_grids = class_grids;
  for (RoleId r : pack.AssignRoles(seq)) {
    out += r == kNoRole ? '.' : pack.role_names()[static_cast<size_t>(r)][0];
  }
  return out;
}

// A condition answers per dispatch from its class and its name, whether it keeps a table of
// answers by name (several matchers) or not (one): a name met under two classes gets each
// class's answer, in any order.
TEST(ConditionEvalTest, OneOrSeveralMatchersAnswerByClassAndName) {
  trace::StringPool pool;
  trace::DispatchVector dispatches;
  std::vector<ClassId> classes;
  const auto add = [&](std::string_view name, ClassId cls) {
    trace::Dispatch d;
    d.name = pool.Intern(name);
    dispatches.push_back(d);
    classes.push_back(cls);
  };
  // name:class  k:0  k:1  k:0  z:1  z:0  Kq:0
  add("k", 0);
  add("k", 1);
  add("k", 0);
  add("z", 1);
  add("z", 0);
  add("Kq", 0);
  const SequenceView seq{dispatches, &pool, classes, true};
  const auto answers = [&](const Condition& c) {
    ConditionEval eval(c, seq);
    std::string out;
    for (size_t i = 0; i < dispatches.size(); ++i) out += eval.Matches(i) ? '1' : '0';
    return out;
  };
  Condition one;
  one.any.push_back(Matcher{{0}, {"k"}, {}, false});
  EXPECT_EQ(answers(one), "101000");
  Condition lowered;
  lowered.any.push_back(Matcher{{}, {"k"}, {"q"}, true});  // names lower-cased: "kq" has a q
  EXPECT_EQ(answers(lowered), "111000");
  Condition several;
  several.any.push_back(Matcher{{0}, {"k"}, {}, false});
  several.any.push_back(Matcher{{1}, {"z"}, {}, false});
  EXPECT_EQ(answers(several), "101100");
  Condition by_class;
  by_class.any.push_back(Matcher{{1}, {}, {}, false});
  EXPECT_EQ(answers(by_class), "010100");
}

TEST(RoleRuleKindsTest, FollowRunStopsAtTheFirstOtherDispatch) {
  auto pack = SmallPack(R"(
[[role_rule]]
kind = "follow_run"
anchor_class = "x"
role = "a"
follow = { names = ["z"] }
overwrite = false
)");
  ASSERT_NE(pack, nullptr);
  EXPECT_EQ(RolesOf(*pack, "xzzqzx"), "aaa..a");
}

TEST(RoleRuleKindsTest, OverwriteDecidesWhetherEarlierRolesSurvive) {
  const std::string first = R"(
[[role_rule]]
kind = "name_contains"
role = "b"
names = ["z"]
overwrite = false
)";
  auto keep = SmallPack(first + R"(
[[role_rule]]
kind = "follow_run"
anchor_class = "x"
role = "a"
follow = { names = ["z", "q"] }
overwrite = false
)");
  auto relabel = SmallPack(first + R"(
[[role_rule]]
kind = "follow_run"
anchor_class = "x"
role = "a"
follow = { names = ["z", "q"] }
overwrite = true
)");
  ASSERT_NE(keep, nullptr);
  ASSERT_NE(relabel, nullptr);
  EXPECT_EQ(RolesOf(*keep, "xqzq"), "aab.");  // the run ends at the labelled z
  EXPECT_EQ(RolesOf(*relabel, "xqzq"), "aaaa");
}

TEST(RoleRuleKindsTest, PairUsesContextRoleOnlyWhenTheWholeContextMatches) {
  auto pack = SmallPack(R"(
[[role_rule]]
kind = "pair"
first = { names = ["p"] }
second = { names = ["r"] }
role = "a"
context_classes = ["x", "y"]
context_role = "b"
overwrite = false
)");
  ASSERT_NE(pack, nullptr);
  EXPECT_EQ(RolesOf(*pack, "yxpr"), "..bb");
  EXPECT_EQ(RolesOf(*pack, "xxpr"), "..aa");
  EXPECT_EQ(RolesOf(*pack, "xpr"), ".aa");  // context runs off the start
  EXPECT_EQ(RolesOf(*pack, "prr"), "aa.");
}

// The sampler-tail rule over the small pack's classes: a tail after the widest x, up to a y.
constexpr const char* kTailAfterWidestX = R"(
[[role_rule]]
kind = "tail_after_widest"
role = "a"
head_class = "x"
stop = { classes = ["y"] }
overwrite = false
)";

TEST(RoleRuleKindsTest, TailAfterWidestLabelsOnlyAfterTheWidestHeads) {
  auto pack = SmallPack(kTailAfterWidestX);
  ASSERT_NE(pack, nullptr);
  EXPECT_EQ(RolesOf(*pack, "xqqyxqqyq", {5, 1, 1, 1, 9, 1, 1, 1, 1}), ".....aa..");
  // The widest head found wherever it is in a window of several parts (a search in parts):
  // near the end, and, equal, at the start too.
  for (const size_t at : {size_t{3}, size_t{299'997}}) {
    std::string seq;
    for (size_t i = 0; i < 100'000; ++i) seq += "xqy";
    std::vector<int64_t> grids(seq.size(), 1);
    grids[at] = 9;
    grids[299'997] = 9;
    std::string want(seq.size(), '.');
    want[at + 1] = 'a';
    want[299'998] = 'a';
    EXPECT_EQ(RolesOf(*pack, seq, grids), want) << "widest at " << at;
  }
}

// Where the caller counted each class's kernels and widest grid (the summary's classes pass),
// the rule takes the widest from there rather than a pass of its own: the counts given agree
// with the sequence's and the labels are the same; counts that did not would show.
TEST(RoleRuleKindsTest, TailAfterWidestTakesTheWidestGridTheCallerCounted) {
  auto pack = SmallPack(kTailAfterWidestX);
  ASSERT_NE(pack, nullptr);
  const ClassId x = pack->Classify("x");
  const std::string seq = "xqqyxqqyq";
  const std::vector<int64_t> grids = {5, 1, 1, 1, 9, 1, 1, 1, 1};
  std::vector<ClassGrids> counted(pack->class_names().size());
  counted[x] = {2, 9};
  EXPECT_EQ(RolesOf(*pack, seq, grids, counted), ".....aa..");
  counted[x] = {2, 5};
  EXPECT_EQ(RolesOf(*pack, seq, grids, counted), ".aa......");
  counted[x] = {0, INT64_MIN};  // no head of the class: nothing labelled
  EXPECT_EQ(RolesOf(*pack, seq, grids, counted), ".........");
}

TEST(RoleRuleKindsTest, SpanLabelsApplyInOrderAndFromLastNeedsTheClassInTheSpan) {
  auto pack = SmallPack(R"(
[[role_rule]]
kind = "span_around"
anchor_class = "y"
boundary_classes = ["x"]
overwrite = true
[[role_rule.label]]
role = "b"
from_last_class = "other"
[[role_rule.label]]
role = "a"
when = { names = ["q"] }
)");
  ASSERT_NE(pack, nullptr);
  // Span of the y: indices 1..4; the last "other" (q or z) is at 4; y matches no label.
  EXPECT_EQ(RolesOf(*pack, "xqyqzx"), ".a.ab.");
  // No "other" dispatch in the span: the from_last label never applies.
  EXPECT_EQ(RolesOf(*pack, "xyyx"), "....");
}

TEST(RoleRuleKindsTest, NameTestsAreCaseSensitiveUnlessLowercase) {
  auto pack = SmallPack(R"(
[[role_rule]]
kind = "name_contains"
role = "b"
names = ["Q"]
lowercase = false
overwrite = false
[[role_rule]]
kind = "name_contains"
role = "a"
names = ["q"]
lowercase = true
overwrite = false
)");
  ASSERT_NE(pack, nullptr);
  EXPECT_EQ(RolesOf(*pack, "qQz"), "ab.");
}

TEST(RoleRuleKindsTest, ScansStayLinearOnDegenerateSequences) {
  // 200k dispatches that are all heads / anchors with runs to the end: a quadratic scan
  // would take minutes.
  const std::string all_x(200000, 'x');
  auto tail = SmallPack(R"(
[[role_rule]]
kind = "tail_after_widest"
role = "a"
head_class = "x"
stop = { names = ["never"] }
overwrite = true
)");
  ASSERT_NE(tail, nullptr);
  std::string expected(all_x.size(), 'a');
  expected[0] = '.';  // the first head gets nothing from its own run
  EXPECT_EQ(RolesOf(*tail, all_x), expected);
  auto follow = SmallPack(R"(
[[role_rule]]
kind = "follow_run"
anchor_class = "x"
role = "a"
follow = { classes = ["x"] }
overwrite = true
)");
  ASSERT_NE(follow, nullptr);
  EXPECT_EQ(RolesOf(*follow, all_x), std::string(all_x.size(), 'a'));
  auto span = SmallPack(R"(
[[role_rule]]
kind = "span_around"
anchor_class = "x"
boundary_classes = ["y"]
overwrite = false
[[role_rule.label]]
role = "a"
when = { names = ["q"] }
)");
  ASSERT_NE(span, nullptr);
  EXPECT_EQ(RolesOf(*span, all_x), std::string(all_x.size(), '.'));
}

}  // namespace
}  // namespace decodeprof::analysis
