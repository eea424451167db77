#include "src/report/summary_schema.h"

#include <span>
#include <string>
#include <string_view>

namespace decodeprof::report {
namespace {

namespace s = summary_schema;

constexpr SummarySection kSections[] = {
    {"", s::run::kFields},
    {"checks.", s::checks::kFields},
    {"top_kernels[].", s::top_kernel::kFields},
    {"port_units.<id>.", s::unit::kFields},
    {"diagnostics[].", s::diagnostic::kFields},
    {"diagnostics[].first.", s::diagnostic_first::kFields},
    {"ranked_units[].", s::ranked_unit::kFields},
    {"rank.", s::rank::kFields},
    {"collectives.", s::collectives::kFields},
    {"plain_runs.", s::plain_runs::kFields},
};

std::string_view TypeName(SummaryFieldType type) {
  switch (type) {
    case SummaryFieldType::kNumber:
      return "number";
    case SummaryFieldType::kInteger:
      return "integer";
    case SummaryFieldType::kString:
      return "string";
    case SummaryFieldType::kBool:
      return "boolean";
    case SummaryFieldType::kObject:
      return "object";
    case SummaryFieldType::kArray:
      return "array";
    case SummaryFieldType::kMap:
      return "object of numbers";
  }
  return "";
}

std::string_view RangeText(SummaryRange range) {
  switch (range) {
    case SummaryRange::kAny:
      return "";
    case SummaryRange::kNonNegative:
      return ", 0..1e12";
    case SummaryRange::kPercent:
      return ", 0..100";
    case SummaryRange::kCeiling:
      return ", >= 1";
  }
  return "";
}

}  // namespace

std::span<const SummarySection> SummarySections() { return kSections; }

std::string SummaryFieldTableMarkdown() {
  std::string out =
      "| field | type | unit | meaning |\n"
      "|---|---|---|---|\n";
  for (const SummarySection& section : kSections) {
    for (const SummaryField& field : section.fields) {
      std::string type(TypeName(field.type));
      if (field.check == SummaryCheck::kChecked) type += RangeText(field.range);
      out += "| `" + std::string(section.path) + std::string(field.key) + "` | " + type + " | " +
             std::string(field.unit) + " | " + std::string(field.meaning) +
             (field.check == SummaryCheck::kFree ? " (not checked)" : "") + " |\n";
    }
  }
  return out;
}

}  // namespace decodeprof::report
