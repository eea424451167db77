// Units and reach: the seed's ReachTests (spec section 3) on the built-in
// mlx-rocm-ports table, and the reach-case semantics.
#include "src/analysis/unit_table.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "src/packs/pack_loader.h"

namespace decodeprof::analysis {
namespace {

class PortsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pack = packs::LoadPack("mlx-rocm");
    ASSERT_TRUE(pack.ok()) << pack.status().ToString();
    pack_ = std::move(pack).value();
    auto units = packs::LoadUnits("mlx-rocm-ports", *pack_);
    ASSERT_TRUE(units.ok()) << units.status().ToString();
    units_ = std::move(units).value();
  }
  size_t IndexOf(const std::string& id) const {
    for (size_t i = 0; i < units_->units().size(); ++i) {
      if (units_->units()[i].id == id) return i;
    }
    ADD_FAILURE() << "no unit " << id;
    return 0;
  }
  std::vector<std::string> Names(const std::vector<RoleId>& roles) const {
    std::vector<std::string> out;
    for (RoleId r : roles) out.push_back(pack_->role_names()[static_cast<size_t>(r)]);
    return out;
  }
  UnitReach Reach(const std::string& id, const std::string& model_type,
                  const std::string& rope_type = "", bool sampled = false) const {
    return units_->Reach(IndexOf(id), ModelConfig{model_type, rope_type}, sampled);
  }
  std::unique_ptr<Pack> pack_;
  std::unique_ptr<UnitTable> units_;
};

using Roles = std::vector<std::string>;

TEST_F(PortsTest, UnitsAndFallbackRolesFollowTheSeedTable) {
  ASSERT_EQ(units_->units().size(), 5u);
  const std::vector<std::string> ids = {"2063", "2064", "2065", "2067", "2068"};
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(units_->units()[i].id, ids[i]);
  EXPECT_EQ(units_->units()[0].port, "fused_add_rms_norm + fused_rope_qk_append");
  EXPECT_EQ(Names(units_->units()[0].fallback_roles),
            (Roles{"add_rms_join_post_attn", "rope_append"}));
  EXPECT_EQ(Names(units_->units()[2].fallback_roles),
            (Roles{"moe_expert_gemv", "moe_activation", "moe_weighted_sum", "moe_gather_indices"}));
  EXPECT_EQ(units_->units()[4].port, "paged attention (v1, v2, merge)");
}

// Seed ReachTests: test_fused_norm_and_rope_ship_on_for_rocm_and_rope_tables_never_reach.
TEST_F(PortsTest, FusedNormAndRopeShipOnForRocmAndRopeTablesNeverReach) {
  const UnitReach table = Reach("2063", "llama", "llama3");
  EXPECT_EQ(Names(table.default_roles), Roles{"add_rms_join_post_attn"});
  EXPECT_EQ(Names(table.optin_roles), Roles{"add_rms_join_post_attn"});
  EXPECT_NE(table.note.find("frequency table"), std::string::npos);
  EXPECT_EQ(Names(Reach("2063", "llama", "yarn").default_roles), Roles{"add_rms_join_post_attn"});

  const UnitReach plain = Reach("2063", "llama");
  EXPECT_EQ(Names(plain.default_roles), (Roles{"add_rms_join_post_attn", "rope_append"}));
  EXPECT_EQ(Names(plain.optin_roles), (Roles{"add_rms_join_post_attn", "rope_append"}));
  EXPECT_EQ(plain.note.find("frequency table"), std::string::npos);
  // Other rope types (e.g. linear) take the RoPE kernel.
  EXPECT_EQ(Names(Reach("2063", "llama", "linear").default_roles).size(), 2u);
}

TEST_F(PortsTest, NonLlamaNeverCallsTheFusedNormAndTheNoteNamesTheModelType) {
  const UnitReach qwen = Reach("2063", "qwen3_moe");
  EXPECT_TRUE(qwen.default_roles.empty());
  EXPECT_TRUE(qwen.optin_roles.empty());
  EXPECT_EQ(qwen.note, "qwen3_moe never calls fused_add_rms_norm or forward_fused_rope_append");
  // Missing config.json: model_type "" and the note begins with a space, as in the seed.
  EXPECT_EQ(Reach("2063", "").note, " never calls fused_add_rms_norm or forward_fused_rope_append");
  EXPECT_EQ(Reach("2065", "").note, " does not call forward_fused_kernel");
}

// Seed ReachTests: test_moe_reach_follows_the_caller.
TEST_F(PortsTest, MoeReachFollowsTheCaller) {
  const UnitReach qwen = Reach("2065", "qwen3_moe");
  EXPECT_EQ(Names(qwen.default_roles).size(), 4u);
  EXPECT_EQ(qwen.note, "forward_fused_kernel caller");
  EXPECT_TRUE(Reach("2065", "granitemoehybrid").default_roles.empty());
  EXPECT_EQ(Reach("2065", "granitemoehybrid").note,
            "granitemoehybrid does not call forward_fused_kernel");
  const UnitReach nemotron = Reach("2065", "nemotron_h");
  EXPECT_TRUE(nemotron.default_roles.empty());
  EXPECT_TRUE(nemotron.optin_roles.empty());
  EXPECT_NE(nemotron.note.find("MLXCEL_FUSED_MOE_RELU2"), std::string::npos);
  EXPECT_NE(nemotron.note.find("moe_fc1_relu2"), std::string::npos);
}

// Seed ReachTests: test_samplers_only_in_sampled_runs.
TEST_F(PortsTest, SamplersOnlyInSampledRuns) {
  EXPECT_TRUE(Reach("2064", "", "", /*sampled=*/false).default_roles.empty());
  EXPECT_EQ(Reach("2064", "", "", false).note, "greedy argmax dispatches neither sampler kernel");
  const UnitReach sampled = Reach("2064", "", "", /*sampled=*/true);
  EXPECT_EQ(Names(sampled.default_roles), Roles{"sampler_tail"});
  EXPECT_EQ(Names(sampled.optin_roles), Roles{"sampler_tail"});
  EXPECT_EQ(sampled.note, "sampled run: the draw is the fallback chain");
}

TEST_F(PortsTest, SsmAndPagedReach) {
  EXPECT_EQ(Names(Reach("2067", "nemotron_h").default_roles), Roles{"ssm_step"});
  EXPECT_EQ(Names(Reach("2067", "granitemoehybrid").optin_roles), Roles{"ssm_step"});
  EXPECT_EQ(Reach("2067", "llama").note, "no Mamba2 layer");
  EXPECT_TRUE(Reach("2067", "llama").default_roles.empty());
  const UnitReach paged = Reach("2068", "llama", "", true);
  EXPECT_TRUE(paged.default_roles.empty());
  EXPECT_EQ(paged.note, "the bench decodes into a dense KVCache; the paged path is not taken");
}

TEST_F(PortsTest, AnIndexOutOfRangeReachesNothing) {
  const UnitReach none = units_->Reach(99, ModelConfig{"llama", ""}, true);
  EXPECT_TRUE(none.default_roles.empty());
  EXPECT_TRUE(none.note.empty());
}

TEST(ReachCaseTest, FirstMatchingCaseWinsAndNoMatchReachesNothing) {
  UnitSpec spec;
  spec.unit.id = "1";
  ReachCase sampled_llama;
  sampled_llama.model_types = {"llama"};
  sampled_llama.sampled = true;
  sampled_llama.default_roles = {0};
  sampled_llama.note = "first";
  ReachCase llama;
  llama.model_types = {"llama"};
  llama.note = "second {model_type}/{rope_type}";
  spec.cases = {sampled_llama, llama};
  const DataUnitTable table({spec});
  EXPECT_EQ(table.Reach(0, {"llama", ""}, true).note, "first");
  EXPECT_EQ(table.Reach(0, {"llama", "yarn"}, false).note, "second llama/yarn");
  EXPECT_TRUE(table.Reach(0, {"qwen3", ""}, true).note.empty());
}

TEST(RenderNoteTest, ReplacesOnlyTheKnownPlaceholders) {
  EXPECT_EQ(RenderNote("{model_type} {x} {model_type}", {"mt", "rt"}), "mt {x} mt");
  EXPECT_EQ(RenderNote("`{model_type}`", {"", ""}), "``");
  EXPECT_EQ(RenderNote("{rope_type", {"", "rt"}), "{rope_type");
}

}  // namespace
}  // namespace decodeprof::analysis
