#include "src/report/summary_schema.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
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

// DECODEPROF_UPDATE_DOCS=1 rewrites the page's table from the schema instead.
TEST(SummarySchemaTest, TheUserGuidesFieldTableIsTheGeneratedOne) {
  const std::string path = std::string(DECODEPROF_SOURCE_DIR) + "/docs/user-guide.md";
  auto text = base::ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  const size_t begin = text->find(kBegin);
  const size_t end = text->find(kEnd);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string table = text->substr(begin + kBegin.size(), end - begin - kBegin.size());
  if (const char* update = std::getenv("DECODEPROF_UPDATE_DOCS");
      update != nullptr && std::string_view(update) == "1") {
    text->replace(begin + kBegin.size(), end - begin - kBegin.size(), SummaryFieldTableMarkdown());
    std::ofstream(path, std::ios::binary) << *text;
    GTEST_SKIP() << "rewrote the summary field table of " << path;
  }
  EXPECT_EQ(table, SummaryFieldTableMarkdown())
      << "regenerate the table between the markers: rerun with DECODEPROF_UPDATE_DOCS=1";
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
        EXPECT_TRUE(
            field.type == SummaryFieldType::kNumber || field.type == SummaryFieldType::kInteger ||
            field.type == SummaryFieldType::kMap || field.type == SummaryFieldType::kNumbers)
            << section.path << field.key;
      }
    }
  }
  EXPECT_EQ(s::run::kFields[0].key, "name");
  EXPECT_EQ(s::top_kernel::class_name.key, "class");
}

// The sections form one tree from the top level: every section but the first is held by an
// Object, Array or ObjectMap field of a section before it, and every such field holds one, so
// the validator reaches every field.
TEST(SummarySchemaTest, TheSectionsFormOneTree) {
  const std::span<const SummarySection> sections = SummarySections();
  EXPECT_EQ(sections.front().holder, nullptr);
  std::set<const SummaryField*> holders;
  for (size_t i = 1; i < sections.size(); ++i) {
    const SummaryField* holder = sections[i].holder;
    ASSERT_NE(holder, nullptr) << sections[i].path;
    EXPECT_TRUE(holders.insert(holder).second) << sections[i].path;
    EXPECT_EQ(SectionHeldBy(*holder), &sections[i]) << sections[i].path;
    bool in_earlier = false;
    for (size_t j = 0; j < i; ++j) {
      for (const SummaryField& field : sections[j].fields) in_earlier |= &field == holder;
    }
    EXPECT_TRUE(in_earlier) << sections[i].path;
  }
  for (const SummarySection& section : sections) {
    for (const SummaryField& field : section.fields) {
      const bool holds = field.type == SummaryFieldType::kObject ||
                         field.type == SummaryFieldType::kArray ||
                         field.type == SummaryFieldType::kObjectMap;
      EXPECT_EQ(holds, holders.contains(&field)) << section.path << field.key;
    }
  }
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
    case SummaryFieldType::kObject:
    case SummaryFieldType::kObjectMap:
    case SummaryFieldType::kMap:
      return {nlohmann::ordered_json::array(), "is not an object"};
    case SummaryFieldType::kArray:
    case SummaryFieldType::kStrings:
    case SummaryFieldType::kNumbers:
      return {nlohmann::ordered_json::object(), "is not an array"};
  }
  return {nullptr, ""};
}

// A value of `field`'s type with a broken element, and the message's tail after the field's
// name ("" when the type has no elements to break).
Broken WrongElement(const SummaryField& field) {
  switch (field.type) {
    case SummaryFieldType::kMap:
      return {{{"e", "x"}}, ".`e` is neither a number nor null"};
    case SummaryFieldType::kObjectMap:
      return {{{"e", 1}}, ".`e` is not an object"};
    case SummaryFieldType::kStrings:
      return {nlohmann::ordered_json::array({1}), "[0] is not a string"};
    case SummaryFieldType::kNumbers:
      return {nlohmann::ordered_json::array({"x"}), "[0] is neither a number nor null"};
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
      {s::diagnostic_first::kFields, "`diagnostics`[0].`first`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["diagnostics"] = nlohmann::ordered_json::array({nlohmann::ordered_json::object()});
         doc["diagnostics"][0]["first"][std::string(key)] = value;
       }},
      {s::ranked_unit::kFields, "`ranked_units`[0].",
       [](auto& doc, std::string_view key, auto value) {
         doc["port_units"]["u"] = nlohmann::ordered_json::object();
         doc["ranked_units"] =
             nlohmann::ordered_json::array({{{"id", "u"}, {"by", "ceiling_wall"}}});
         doc["ranked_units"][0][std::string(key)] = value;
       }},
      {s::plain_runs::kFields, "`plain_runs`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["plain_runs"][std::string(key)] = value;
       }},
      {s::window_evidence::kFields, "`window_evidence`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["window_evidence"][std::string(key)] = value;
       }},
      {s::sampling::kFields, "`sampling`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["sampling"][std::string(key)] = value;
       }},
      {s::engine_steps::kFields, "`engine_steps`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["engine_steps"][std::string(key)] = value;
       }},
      {s::step_kind::kFields, "`engine_steps`.`kinds`[0].",
       [](auto& doc, std::string_view key, auto value) {
         doc["engine_steps"]["kinds"] = nlohmann::ordered_json::array({{{"kind", "decode"}}});
         doc["engine_steps"]["kinds"][0][std::string(key)] = value;
       }},
      {s::engine_step::kFields, "`engine_steps`.`steps`[0].",
       [](auto& doc, std::string_view key, auto value) {
         doc["engine_steps"]["steps"] = nlohmann::ordered_json::array({{{"kind", "decode"}}});
         doc["engine_steps"]["steps"][0][std::string(key)] = value;
       }},
      {s::sol::kFields, "`speed_of_light`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["speed_of_light"][std::string(key)] = value;
       }},
      {s::sol_decomposition::kFields, "`speed_of_light`.`decomposition_ms_per_token`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["speed_of_light"]["decomposition_ms_per_token"][std::string(key)] = value;
       }},
      {s::sol_class::kFields, "`speed_of_light`.`classes`.`c`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["speed_of_light"]["classes"]["c"][std::string(key)] = value;
       }},
      {s::sol_unit::kFields, "`speed_of_light`.`units`.`u`.",
       [](auto& doc, std::string_view key, auto value) {
         doc["speed_of_light"]["units"]["u"][std::string(key)] = value;
       }},
  };
  // Every section has its place here.
  EXPECT_EQ(places.size(), SummarySections().size());
  size_t checked = 0;
  for (const Place& place : places) {
    for (const SummaryField& field : place.fields) {
      // Required fields have messages of their own (RequiredFieldsAreRequired).
      if (field.check != SummaryCheck::kChecked) continue;
      for (const Broken& broken : {WrongType(field), WrongElement(field)}) {
        if (broken.message.empty()) continue;
        const bool element = broken.message[0] == '.' || broken.message[0] == '[';
        nlohmann::ordered_json doc = {{"name", "r"}};
        place.put(doc, field.key, broken.value);
        const auto parsed = ParseSummary("x_summary.json", doc.dump());
        ASSERT_FALSE(parsed.ok()) << place.prefix << field.key << " " << broken.message;
        EXPECT_EQ(parsed.status().message(), place.prefix + "`" + std::string(field.key) + "`" +
                                                 (element ? "" : " ") + broken.message);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 150u);
}

// A number out of its range, for every range: the message names the field and the rule.
TEST(SummarySchemaTest, TheValidatorChecksEveryRange) {
  struct Case {
    std::string doc;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R"({"name": "r", "generated_tokens": -1})",
       "`generated_tokens` is -1: a count, time or rate of a run is from 0 to 1e12"},
      {R"({"name": "r", "host_gap_pct_of_wall": 101})",
       "`host_gap_pct_of_wall` is 101: a percentage is from 0 to 100"},
      {R"({"name": "r", "port_units": {"u": {"ceiling_wall": 0.5}}})",
       "`port_units`.`u`.`ceiling_wall` is 0.5: a speedup bound is at least 1"},
      {R"({"name": "r", "speed_of_light": {"weight_bytes": 2e15}})",
       "`speed_of_light`.`weight_bytes` is 2e+15: bytes per token are from 0 to 1e15"},
      {R"({"name": "r", "speed_of_light": {"peak_bandwidth_gbps": 0.5}})",
       "`speed_of_light`.`peak_bandwidth_gbps` is 0.5: a peak bandwidth is from 1 to 1e5 GB/s"},
      {R"({"name": "r", "speed_of_light": {"achieved_gbps": -1}})",
       "`speed_of_light`.`achieved_gbps` is -1: a bandwidth is from 0 to 1e5 GB/s"},
      {R"({"name": "r", "speed_of_light": {"mbu_pct": 120.5}})",
       "`speed_of_light`.`mbu_pct` is 120.5: a MBU above 100 % means the bytes per token or the "
       "peak bandwidth are wrong (a MBU is from 0 to 100)"},
      {R"({"name": "r", "plain_runs": {"decode_tok_s": [50.0, -2]}})",
       "`plain_runs`.`decode_tok_s`[1] is -2: a count, time or rate of a run is from 0 to 1e12"},
      {R"({"name": "r", "engine_steps": {"kinds": [{"gpu_ms_p50": -0.5}]}})",
       "`engine_steps`.`kinds`[0].`gpu_ms_p50` is -0.5: a count, time or rate of a run is from 0 "
       "to 1e12"},
      {R"({"name": "r", "class_share_pct": {"gemv": 100.5}})",
       "`class_share_pct`.`gemv` is 100.5: a percentage is from 0 to 100"},
  };
  for (const Case& c : cases) {
    const auto parsed = ParseSummary("x_summary.json", c.doc);
    ASSERT_FALSE(parsed.ok()) << c.doc;
    EXPECT_EQ(parsed.status().message(), c.message) << c.doc;
  }
}

// A Required field: an entry without it, with another type, or not an object is rejected by
// one rule ("<entry> has no <type> `<key>`"); its range is checked as any field's.
TEST(SummarySchemaTest, RequiredFieldsAreRequired) {
  struct Case {
    std::string doc;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R"({"name": "r", "top_kernels": [{"class": "gemm"}]})",
       "`top_kernels`[0] has no string `kernel`"},
      {R"({"name": "r", "top_kernels": [3]})", "`top_kernels`[0] has no string `kernel`"},
      {R"({"name": "r", "rank": {"world_size": 2}})", "`rank` has no integer `rank`"},
      {R"({"name": "r", "rank": {"rank": "0"}})", "`rank` has no integer `rank`"},
      {R"({"name": "r", "rank": {"rank": 1.0}})", "`rank` has no integer `rank`"},
      {R"({"name": "r", "rank": {"rank": -1}})",
       "`rank`.`rank` is -1: a count, time or rate of a run is from 0 to 1e12"},
  };
  for (const Case& c : cases) {
    const auto parsed = ParseSummary("x_summary.json", c.doc);
    ASSERT_FALSE(parsed.ok()) << c.doc;
    EXPECT_EQ(parsed.status().message(), c.message) << c.doc;
  }
  size_t required = 0;
  for (const SummarySection& section : SummarySections()) {
    for (const SummaryField& field : section.fields) {
      required += field.check == SummaryCheck::kRequired ? 1 : 0;
    }
  }
  EXPECT_EQ(required, 5u);  // name, top_kernels[].kernel, ranked_units[].id and .by, rank.rank
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
