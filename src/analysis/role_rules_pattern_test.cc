// The pattern rule kind: steps of conditions matched greedily with backtracking, context
// steps, fallback after earlier rules, overwrite, and the loader's checks.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/analysis/role_rules.h"
#include "src/packs/parsers.h"

namespace decodeprof::analysis {
namespace {

// Roles are written with their initials in the expectations below: q k v a o n m r.
constexpr const char* kPatternPackHead = R"(
[pack]
name = "pat"
roles = ["q_proj", "k_proj", "v_proj", "attention", "o_proj", "norm", "mlp", "residual"]
[[class]]
name = "gemm"
patterns = ['gemm']
[[class]]
name = "attention"
patterns = ['attn']
[[class]]
name = "elementwise"
patterns = ['ew_']
[[class]]
name = "reduce"
patterns = ['mean']
)";

// One letter per dispatch: G gemm, S split-K reduce (a gemm too), A attention, a add,
// m mul, M mean, x other.
const std::map<char, std::string>& Kernels() {
  static const auto* kernels = new std::map<char, std::string>{
      {'G', "nvjet_gemm_tn"}, {'S', "splitKreduce_gemm"}, {'A', "sdpa_attn_fwd"},
      {'a', "ew_add<float>"}, {'m', "ew_mul<float>"},     {'M', "reduce_mean<float>"},
      {'x', "memcpy_k"},
  };
  return *kernels;
}

std::unique_ptr<RulePack> ParsePatterns(const std::string& rules) {
  auto pack = packs::ParsePack(std::string(kPatternPackHead) + rules, "pat.toml", "");
  EXPECT_TRUE(pack.ok()) << pack.status().ToString();
  return pack.ok() ? std::move(pack).value() : nullptr;
}

std::string ParseError(const std::string& rules) {
  auto pack = packs::ParsePack(std::string(kPatternPackHead) + rules, "pat.toml", "");
  EXPECT_FALSE(pack.ok());
  return pack.ok() ? "" : pack.status().ToString();
}

// Role initials ('.' for none) of the sequence `ops`; `preset` (same length, '.' = none)
// labels dispatches before the pack's rules run, as an earlier rule would.
std::string PatternRoles(const RulePack& pack, const std::string& ops,
                         const std::string& preset = "") {
  trace::StringPool pool;
  trace::DispatchVector dispatches;
  std::vector<ClassId> classes;
  for (char op : ops) {
    trace::Dispatch d;
    d.name = pool.Intern(Kernels().at(op));
    d.start = static_cast<trace::TimestampNs>(10 * dispatches.size());
    d.end = d.start + 5;
    dispatches.push_back(d);
    classes.push_back(pack.Classify(Kernels().at(op)));
  }
  // Each rule runs over the dispatches' names and, again, over the packed copy that
  // RulePack::AssignRoles gives the rules (SequenceView::name_ids): the same roles.
  SequenceView seq{dispatches, &pool, classes, true};
  std::vector<trace::StringId> packed;
  for (const trace::Dispatch& d : dispatches) packed.push_back(d.name);
  std::string out[2];
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) seq.name_ids = packed;
    std::vector<RoleId> roles(dispatches.size(), kNoRole);
    for (size_t i = 0; i < preset.size(); ++i) {
      for (size_t r = 0; r < pack.role_names().size() && preset[i] != '.'; ++r) {
        if (pack.role_names()[r][0] == preset[i]) roles[i] = static_cast<RoleId>(r);
      }
    }
    for (const auto& rule : pack.rules()) rule->ApplyAlone(seq, roles);
    for (RoleId r : roles) {
      out[pass] += r == kNoRole ? '.' : pack.role_names()[static_cast<size_t>(r)][0];
    }
  }
  EXPECT_EQ(out[1], out[0]) << ops;
  return out[0];
}

// Three projections (each a GEMM with an optional split-K reduce), the elementwise run and
// attention kernel of the attention core, then the output projection.
constexpr const char* kAttentionRule = R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [
  { role = "q_proj", match = { classes = ["gemm"], not_names = ["splitK"] } },
  { role = "q_proj", match = { names = ["splitK"] }, min = 0 },
  { role = "k_proj", match = { classes = ["gemm"], not_names = ["splitK"] } },
  { role = "k_proj", match = { names = ["splitK"] }, min = 0 },
  { role = "v_proj", match = { classes = ["gemm"], not_names = ["splitK"] } },
  { role = "v_proj", match = { names = ["splitK"] }, min = 0 },
  { role = "attention", match = { classes = ["elementwise"] }, min = 0, max = 8 },
  { role = "attention", match = { classes = ["attention"] } },
  { role = "o_proj", match = { classes = ["gemm"], not_names = ["splitK"] } },
  { role = "o_proj", match = { names = ["splitK"] }, min = 0 },
]
)";

TEST(PatternRuleTest, LabelsByPositionInTheSequence) {
  auto pack = ParsePatterns(kAttentionRule);
  ASSERT_NE(pack, nullptr);
  EXPECT_EQ(PatternRoles(*pack, "xGSGGSamAGSx"), ".qqkvvaaaoo.");
  // Two layers back to back, and a lone GEMM pair that is not an attention block.
  EXPECT_EQ(PatternRoles(*pack, "GGGAGaGGGAGxGGa"), "qkvao.qkvao....");
}

TEST(PatternRuleTest, NoMatchWhenAStepCannotBeFilled) {
  auto pack = ParsePatterns(kAttentionRule);
  ASSERT_NE(pack, nullptr);
  EXPECT_EQ(PatternRoles(*pack, "GGGaaAx"), ".......");                // no output projection
  EXPECT_EQ(PatternRoles(*pack, "GGGaaaaaaaaaAG"), "..............");  // 9 elementwise > max 8
  EXPECT_EQ(PatternRoles(*pack, "GGGaaaaaaaaAG"), "qkvaaaaaaaaao");    // 8 fit
}

TEST(PatternRuleTest, GreedyStepsGiveBackWhatALaterStepNeeds) {
  auto pack = ParsePatterns(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [
  { role = "norm", match = { classes = ["elementwise", "reduce"] }, min = 1, max = 10 },
  { role = "residual", match = { names = ["ew_add"] } },
  { role = "mlp", match = { classes = ["gemm"] } },
]
)");
  ASSERT_NE(pack, nullptr);
  // The first step could take all five elementwise dispatches; it gives the last add back.
  EXPECT_EQ(PatternRoles(*pack, "maMmaG"), "nnnnrm");
  // The first anchor that matches wins: the match starts at index 0, not at the reduce.
  EXPECT_EQ(PatternRoles(*pack, "xmMaaG"), ".nnnrm");
}

TEST(PatternRuleTest, FallbackLeavesEarlierRolesAndContextStepsReadThem) {
  auto pack = ParsePatterns(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [
  { match = { classes = ["attention"] } },
  { role = "o_proj", match = { classes = ["gemm"] } },
  { role = "residual", match = { names = ["ew_add"] }, min = 0 },
]
)");
  ASSERT_NE(pack, nullptr);
  // The attention kernel is context: labelled earlier or not, it anchors the match and keeps
  // its role.
  EXPECT_EQ(PatternRoles(*pack, "AGaAGa", "a....."), "aor.or");
  // A step with a role takes only unlabelled dispatches without overwrite: a labelled GEMM
  // makes the match fail, a labelled add ends the optional step.
  EXPECT_EQ(PatternRoles(*pack, "AGaAGa", "....q."), ".or.q.");
  EXPECT_EQ(PatternRoles(*pack, "AGa", "..m"), ".om");
}

TEST(PatternRuleTest, OverwriteRelabels) {
  auto pack = ParsePatterns(R"(
[[role_rule]]
kind = "pattern"
overwrite = true
step = [
  { match = { classes = ["attention"] } },
  { role = "o_proj", match = { classes = ["gemm"] } },
]
)");
  ASSERT_NE(pack, nullptr);
  EXPECT_EQ(PatternRoles(*pack, "AGAG", "mmmq"), "momo");
}

TEST(PatternRuleTest, ATrailingContextStepMayStartTheNextMatch) {
  // Each GEMM followed by another GEMM: the scan resumes right after the labelled GEMM, so
  // the context GEMM of one match is the labelled GEMM of the next.
  auto pack = ParsePatterns(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [
  { role = "mlp", match = { classes = ["gemm"] } },
  { match = { classes = ["gemm"] } },
]
)");
  ASSERT_NE(pack, nullptr);
  EXPECT_EQ(PatternRoles(*pack, "GGGxG"), "mm...");
}

TEST(PatternRuleTest, StepsArrayOfTablesFormAndDefaults) {
  // [[role_rule.step]] tables; min defaults to 1 and max to max(min, 1).
  auto pack = ParsePatterns(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
[[role_rule.step]]
role = "norm"
match = { names = ["mean"] }
[[role_rule.step]]
role = "norm"
match = { classes = ["elementwise"] }
min = 2
[[role_rule.step]]
role = "residual"
match = { classes = ["elementwise"] }
min = 0
)");
  ASSERT_NE(pack, nullptr);
  EXPECT_EQ(PatternRoles(*pack, "MmmmG"), "nnnr.");
  EXPECT_EQ(PatternRoles(*pack, "MmG"), "...");  // the second step needs exactly two
}

TEST(PatternRuleTest, PathologicalPatternsStayPolynomial) {
  // Two greedy steps over everything and a step that never matches: without the failure
  // memo the backtracking would try every split at every anchor.
  auto pack = ParsePatterns(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [
  { role = "mlp", match = { classes = ["gemm", "elementwise"] }, min = 0, max = 1000 },
  { role = "mlp", match = { classes = ["gemm", "elementwise"] }, min = 0, max = 1000 },
  { role = "norm", match = { classes = ["attention"] } },
]
)");
  ASSERT_NE(pack, nullptr);
  std::string ops;
  for (int i = 0; i < 3000; ++i) ops += (i % 3 == 0) ? 'G' : 'a';
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(PatternRoles(*pack, ops), std::string(ops.size(), '.'));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  // With an attention kernel at the end, the first anchor that reaches it within the two
  // steps' 2000 dispatches wins.
  EXPECT_EQ(PatternRoles(*pack, ops + "A"), std::string(1000, '.') + std::string(2000, 'm') + "n");
}

TEST(PatternRuleTest, ParseErrorsNameTheRuleStepAndLine) {
  const std::string no_steps = ParseError(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
)");
  EXPECT_NE(no_steps.find("pat.toml:18"), std::string::npos) << no_steps;
  EXPECT_NE(no_steps.find("needs at least one 'step'"), std::string::npos) << no_steps;

  const std::string no_role = ParseError(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [{ match = { classes = ["gemm"] } }]
)");
  EXPECT_NE(no_role.find("no step has a 'role'"), std::string::npos) << no_role;

  const std::string empty_match = ParseError(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [{ role = "mlp", match = { classes = ["gemm"] }, min = 0 }]
)");
  EXPECT_NE(empty_match.find("could match nothing"), std::string::npos) << empty_match;

  const std::string bad_max = ParseError(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [
  { role = "mlp", match = { classes = ["gemm"] } },
  { role = "mlp", match = { classes = ["gemm"] }, min = 3, max = 2 },
]
)");
  EXPECT_NE(bad_max.find("pat.toml:23"), std::string::npos) << bad_max;
  EXPECT_NE(bad_max.find("step #2: 'max' (2) is less than 'min' (3)"), std::string::npos)
      << bad_max;

  const std::string huge = ParseError(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [{ role = "mlp", match = { classes = ["gemm"] }, max = 1001 }]
)");
  EXPECT_NE(huge.find("'max' must be 1 to 1000"), std::string::npos) << huge;

  const std::string negative = ParseError(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [{ role = "mlp", match = { classes = ["gemm"] }, min = -1 }]
)");
  EXPECT_NE(negative.find("'min' must not be negative"), std::string::npos) << negative;

  const std::string no_match = ParseError(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [{ role = "mlp" }]
)");
  EXPECT_NE(no_match.find("missing key 'match'"), std::string::npos) << no_match;

  const std::string unknown = ParseError(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [{ role = "mlp", match = { classes = ["gemm"] }, count = 2 }]
)");
  EXPECT_NE(unknown.find("unknown key 'count'"), std::string::npos) << unknown;

  const std::string unknown_class = ParseError(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [{ role = "mlp", match = { classes = ["gemv"] } }]
)");
  EXPECT_NE(unknown_class.find("unknown class \"gemv\""), std::string::npos) << unknown_class;

  const std::string unknown_role = ParseError(R"(
[[role_rule]]
kind = "pattern"
overwrite = false
step = [{ role = "lm_head", match = { classes = ["gemm"] } }]
)");
  EXPECT_NE(unknown_role.find("unknown role \"lm_head\""), std::string::npos) << unknown_role;

  std::string many = "\n[[role_rule]]\nkind = \"pattern\"\noverwrite = false\nstep = [\n";
  for (size_t i = 0; i <= kMaxPatternSteps; ++i) {
    many += "  { role = \"mlp\", match = { classes = [\"gemm\"] } },\n";
  }
  many += "]\n";
  EXPECT_NE(ParseError(many).find("more than 64 steps"), std::string::npos);
}

}  // namespace
}  // namespace decodeprof::analysis
