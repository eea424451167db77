// The op_path rule kind: roles from the annotation ranges enclosing each launch.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "src/analysis/range_index.h"
#include "src/analysis/role_rules.h"
#include "src/packs/parsers.h"

namespace decodeprof::analysis {
namespace {

constexpr const char* kPackHead = R"(
[pack]
name = "ops"
roles = ["proj", "attn", "mlp", "tail"]
[[class]]
name = "gemv"
patterns = ["gemv"]
)";

// Projections inside attention first, then what is left of attention, then the MLP.
constexpr const char* kOpRules = R"(
[[role_rule]]
kind = "op_path"
role = "proj"
patterns = ['\.q_proj$', '\.o_proj$']
overwrite = false

[[role_rule]]
kind = "op_path"
role = "attn"
patterns = ['Attention:']
overwrite = false

[[role_rule]]
kind = "op_path"
role = "mlp"
patterns = ['MLP:']
overwrite = false
)";

std::unique_ptr<RulePack> Parse(const std::string& rules) {
  auto pack = packs::ParsePack(std::string(kPackHead) + rules, "ops.toml", "");
  EXPECT_TRUE(pack.ok()) << pack.status().ToString();
  return pack.ok() ? std::move(pack).value() : nullptr;
}

// A small decode: one layer on thread 1 (attention with q/o projections, then the MLP),
// and a sampler thread 2 with a range of its own.
class OpPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Range("Layer:model.layers.0", 0, 100, 1, 0);
    Range("Attention:model.layers.0.self_attn", 0, 50, 1, 1);
    Range("Linear:model.layers.0.self_attn.q_proj", 0, 10, 1, 2);
    Range("Linear:model.layers.0.self_attn.o_proj", 40, 50, 1, 2);
    Range("MLP:model.layers.0.mlp", 50, 90, 1, 1);
    Range("MLP:sampler.mlp", 0, 100, 2, 0);  // another thread: never encloses thread 1's
  }
  void Range(const std::string& name, int64_t s, int64_t e, uint64_t thread, int32_t depth) {
    ranges_.push_back(trace::Range{pool_.Intern(name), s, e, thread, depth});
  }
  void Launch(uint64_t thread, trace::TimestampNs time) {
    trace::Dispatch d;
    d.name = pool_.Intern(dispatches_.size() % 2 == 0 ? "gemv_kernel" : "add_kernel");
    d.start = 1000 + static_cast<int64_t>(dispatches_.size());
    d.end = d.start + 1;
    dispatches_.push_back(d);
    threads_.push_back(thread);
    times_.push_back(time);
  }
  // One letter per dispatch: the role's initial, '.' for none.
  std::string Roles(const Pack& pack, bool with_launches = true, bool with_ranges = true) {
    std::vector<ClassId> classes;
    for (const auto& d : dispatches_) classes.push_back(pack.Classify(pool_.Get(d.name)));
    const RangeIndex index(ranges_);
    SequenceView seq{dispatches_, &pool_, classes, true};
    if (with_launches) {
      seq.launch_thread = threads_;
      seq.launch_time = times_;
    }
    if (with_ranges) seq.ranges = &index;
    std::string out;
    for (RoleId r : pack.AssignRoles(seq)) {
      out += r == kNoRole ? '.' : pack.role_names()[static_cast<size_t>(r)][0];
    }
    warnings_ = pack.RoleWarnings(seq);
    return out;
  }

  trace::StringPool pool_;
  std::vector<trace::Range> ranges_;
  trace::DispatchVector dispatches_;
  std::vector<uint64_t> threads_;
  std::vector<trace::TimestampNs> times_;
  std::vector<trace::DiagMessage> warnings_;
};

TEST_F(OpPathTest, InnermostRulesFirstThenWhatIsLeft) {
  auto pack = Parse(kOpRules);
  ASSERT_NE(pack, nullptr);
  Launch(1, 5);    // q_proj
  Launch(1, 20);   // attention core
  Launch(1, 45);   // o_proj
  Launch(1, 60);   // mlp
  Launch(1, 95);   // in the layer, outside its modules
  Launch(1, 150);  // outside every range
  Launch(2, 60);   // the other thread's MLP range
  Launch(3, 60);   // a thread without ranges
  EXPECT_EQ(Roles(*pack), "papm..m.");
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(OpPathTest, AMissingLaunchIsLeftAlone) {
  auto pack = Parse(kOpRules);
  ASSERT_NE(pack, nullptr);
  Launch(1, 5);
  Launch(1, kUnknownLaunch);
  Launch(1, 60);
  EXPECT_EQ(Roles(*pack), "p.m");
}

TEST_F(OpPathTest, OverwriteRelabelsAndOrderDecides) {
  // The attention rule first: it takes the projections too; a later overwriting rule wins.
  auto pack = Parse(R"(
[[role_rule]]
kind = "op_path"
role = "attn"
patterns = ['Attention:']
overwrite = false

[[role_rule]]
kind = "op_path"
role = "proj"
patterns = ['\.q_proj$']
overwrite = false

[[role_rule]]
kind = "op_path"
role = "tail"
patterns = ['o_proj']
overwrite = true
)");
  ASSERT_NE(pack, nullptr);
  Launch(1, 5);
  Launch(1, 20);
  Launch(1, 45);
  EXPECT_EQ(Roles(*pack), "aat");
}

TEST_F(OpPathTest, SkippedWithoutLaunchInfoOrRangesWhileSequenceRulesStillApply) {
  auto pack = Parse(std::string(kOpRules) + R"(
[[role_rule]]
kind = "name_contains"
role = "tail"
names = ["add"]
overwrite = false
)");
  ASSERT_NE(pack, nullptr);
  Launch(1, 5);   // gemv
  Launch(1, 60);  // add
  EXPECT_EQ(Roles(*pack), "pm");
  EXPECT_EQ(Roles(*pack, /*with_launches=*/false), ".t");
  ASSERT_EQ(warnings_.size(), 1u);  // one sentence for the three op_path rules
  EXPECT_EQ(warnings_[0].code, trace::Diag::kRoleRuleWarning);
  EXPECT_NE(warnings_[0].text.find("op_path rules were skipped"), std::string::npos);
  EXPECT_EQ(Roles(*pack, true, /*with_ranges=*/false), ".t");
  EXPECT_EQ(warnings_.size(), 1u);
}

// Only a pack with an op_path rule asks its caller for the launch context per dispatch.
TEST(OpPathPackTest, OnlyAPackWithOpPathRulesReadsTheLaunchContext) {
  const auto with = Parse(kOpRules);
  ASSERT_NE(with, nullptr);
  EXPECT_TRUE(with->ReadsLaunchContext());
  const auto without = Parse(R"(
[[role_rule]]
kind = "name_contains"
role = "tail"
names = ["gemv"]
overwrite = false
)");
  ASSERT_NE(without, nullptr);
  EXPECT_FALSE(without->ReadsLaunchContext());
}

TEST_F(OpPathTest, ParseErrorsNameTheFileAndLine) {
  const auto bad = packs::ParsePack(std::string(kPackHead) + R"(
[[role_rule]]
kind = "op_path"
role = "attn"
patterns = ['Attention(']
overwrite = false
)",
                                    "ops.toml", "");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("ops.toml:12"), std::string::npos)
      << bad.status().ToString();
  EXPECT_NE(bad.status().ToString().find("bad pattern 'Attention('"), std::string::npos);

  const auto unknown_key = packs::ParsePack(std::string(kPackHead) + R"(
[[role_rule]]
kind = "op_path"
role = "attn"
patterns = ['Attention:']
names = ["x"]
overwrite = false
)",
                                            "ops.toml", "");
  ASSERT_FALSE(unknown_key.ok());
  EXPECT_NE(unknown_key.status().ToString().find("names"), std::string::npos);

  const auto no_patterns = packs::ParsePack(std::string(kPackHead) + R"(
[[role_rule]]
kind = "op_path"
role = "attn"
patterns = []
overwrite = false
)",
                                            "ops.toml", "");
  ASSERT_FALSE(no_patterns.ok());
  EXPECT_NE(no_patterns.status().ToString().find("must not be empty"), std::string::npos);
}

}  // namespace
}  // namespace decodeprof::analysis
