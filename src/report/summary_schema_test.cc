#include "src/report/summary_schema.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

TEST(SummarySchemaTest, TheFuzzersDictionaryHoldsEveryKey) {
  const auto text =
      base::ReadFile(std::string(DECODEPROF_SOURCE_DIR) + "/tests/fuzz/dict/summary_json.dict");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  for (const SummarySection& section : SummarySections()) {
    for (const SummaryField& field : section.fields) {
      const std::string line = "\"\\\"" + std::string(field.key) + "\\\"\"\n";
      EXPECT_NE(text->find(line), std::string::npos) << line;
    }
  }
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

// A wrong JSON type of `field` in its section's place, and the message the validator gives.
struct Broken {
  nlohmann::ordered_json value;
  std::string message;
};
Broken WrongType(const SummaryField& field) {
  switch (field.type) {
    case SummaryFieldType::kNumber:
      return {"x", "is neither a number nor null"};
    case SummaryFieldType::kInteger:
      return {1.5, "is neither an integer nor null"};
    case SummaryFieldType::kString:
      return {1, "is neither a string nor null"};
    case SummaryFieldType::kBool:
      return {1, "is neither a boolean nor null"};
    default:
      return {nullptr, ""};
  }
}

// Every checked scalar field of these sections is checked, and the message names its path.
TEST(SummarySchemaTest, TheValidatorChecksEveryCheckedField) {
  struct Place {
    std::span<const SummaryField> fields;
    std::string prefix;  // as the message spells it
    // Puts `value` at the field's place in a valid summary.
    std::function<void(nlohmann::ordered_json&, std::string_view, nlohmann::ordered_json)> put;
  };
  const std::vector<Place> places = {
      {s::run::kFields, "",
       [](auto& doc, std::string_view key, auto value) { doc[std::string(key)] = value; }},
      {s::checks::kFields, "`checks`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["checks"][std::string(key)] = value;
       }},
      {s::top_kernel::kFields, "`top_kernels`[0].",
       [](auto& doc, std::string_view key, auto value) {
         doc["top_kernels"] = nlohmann::ordered_json::array({{{"kernel", "k"}}});
         doc["top_kernels"][0][std::string(key)] = value;
       }},
      {s::unit::kFields, "`port_units`.`u`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["port_units"]["u"][std::string(key)] = value;
       }},
      {s::diagnostic::kFields, "`diagnostics`[0].",
       [](auto& doc, std::string_view key, auto value) {
         doc["diagnostics"] = nlohmann::ordered_json::array({nlohmann::ordered_json::object()});
         doc["diagnostics"][0][std::string(key)] = value;
       }},
      {s::rank::kFields, "`rank`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["rank"]["rank"] = 0;
         doc["rank"][std::string(key)] = value;
       }},
      {s::collectives::kFields, "`collectives`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["collectives"][std::string(key)] = value;
       }},
  };
  size_t checked = 0;
  for (const Place& place : places) {
    for (const SummaryField& field : place.fields) {
      const Broken broken = WrongType(field);
      if (field.check != SummaryCheck::kChecked || broken.message.empty()) continue;
      if (field.key == "name" || field.key == "kernel" ||
          (place.prefix == "`rank`." && field.key == "rank")) {
        continue;  // required fields, with messages of their own
      }
      nlohmann::ordered_json doc = {{"name", "r"}};
      place.put(doc, field.key, broken.value);
      const auto parsed = ParseSummary("x_summary.json", doc.dump());
      ASSERT_FALSE(parsed.ok()) << place.prefix << field.key;
      EXPECT_EQ(parsed.status().message(),
                place.prefix + "`" + std::string(field.key) + "` " + broken.message);
      ++checked;
    }
  }
  EXPECT_GT(checked, 50u);
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
