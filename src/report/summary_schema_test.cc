#include "src/report/summary_schema.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "src/base/file_io.h"
#include "src/report/summary_reader.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {
namespace {

namespace s = summary_schema;

constexpr std::string_view kBegin = "<!-- summary-fields:begin -->\n";
constexpr std::string_view kEnd = "<!-- summary-fields:end -->";

TEST(SummarySchemaTest, TheUserGuidesFieldTableIsTheGeneratedOne) {
  const auto text = base::ReadFile(std::string(DECODEPROF_SOURCE_DIR) + "/docs/user-guide.md");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  const size_t begin = text->find(kBegin);
  const size_t end = text->find(kEnd);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string table = text->substr(begin + kBegin.size(), end - begin - kBegin.size());
  EXPECT_EQ(table, SummaryFieldTableMarkdown())
      << "regenerate the table between the markers from SummaryFieldTableMarkdown()";
}

TEST(SummarySchemaTest, EverySectionNamesEachKeyOnceWithAMeaning) {
  ASSERT_FALSE(SummarySections().empty());
  for (const SummarySection& section : SummarySections()) {
    std::set<std::string_view> keys;
    ASSERT_FALSE(section.fields.empty()) << section.path;
    for (const SummaryField& field : section.fields) {
      EXPECT_TRUE(keys.insert(field.key).second) << section.path << field.key;
      EXPECT_FALSE(field.meaning.empty()) << section.path << field.key;
      if (field.range != SummaryRange::kAny) {
        EXPECT_TRUE(field.type == SummaryFieldType::kNumber ||
                    field.type == SummaryFieldType::kInteger ||
                    field.type == SummaryFieldType::kMap)
            << section.path << field.key;
      }
    }
  }
  EXPECT_EQ(s::run::kFields[0].key, "name");
  EXPECT_EQ(s::top_kernel::class_name.key, "class");
}

TEST(SummaryViewTest, AccessorsReadTheTypedValueAndTheStoredOne) {
  const auto doc = nlohmann::ordered_json::parse(R"({
    "name": "r", "generated_tokens": 12, "gpu_ms_per_token": 5.0, "model_type": null,
    "checks": {"kernels_straddling_decode_start": 2},
    "top_kernels": [{"kernel": "k", "class": "gemm", "share_pct": 40}],
    "port_units": {"u": {"ceiling_wall": 1.5, "host_gap": "all"}},
    "collectives": {"matched": true},
    "warnings": ["w", 3]
  })");
  const RunView run(doc);
  EXPECT_EQ(run.name().get(), "r");
  EXPECT_EQ(run.generated_tokens().get(), 12);
  EXPECT_EQ(run.generated_tokens().Str(), "12");
  EXPECT_EQ(run.gpu_ms_per_token().get(), 5.0);
  EXPECT_EQ(run.gpu_ms_per_token().Str(), "5.0");
  EXPECT_FALSE(run.model_type().get().has_value());
  EXPECT_TRUE(run.model_type().is_null());
  EXPECT_EQ(run.model_type().Str(), "None");
  EXPECT_FALSE(run.decode_wall_ms().get().has_value());  // absent
  EXPECT_EQ(run.Checks().kernels_straddling_decode_start().get(), 2);
  ASSERT_EQ(run.TopKernels().size(), 1u);
  EXPECT_EQ(run.TopKernels()[0].class_name().get(), "gemm");
  EXPECT_EQ(run.TopKernels()[0].share_pct().get(), 40.0);
  EXPECT_EQ(run.Unit("u").ceiling_wall().get(), 1.5);
  EXPECT_EQ(run.Unit("u").host_gap().get(), "all");
  EXPECT_FALSE(run.Unit("v").is_object());
  EXPECT_FALSE(run.Unit("v").ceiling_wall().get().has_value());
  EXPECT_EQ(run.Collectives().matched().get(), true);
  EXPECT_EQ(run.Warnings(), std::vector<std::string>{"w"});
  // A field of another type reads as absent through get(), as written through json().
  const auto odd = nlohmann::ordered_json::parse(R"({"generated_tokens": 12.0})");
  EXPECT_FALSE(RunView(odd).generated_tokens().get().has_value());
  EXPECT_EQ(RunView(odd).generated_tokens().Str(), "12.0");
}

}  // namespace
}  // namespace decodeprof::report
