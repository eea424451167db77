#include "src/report/summary_schema.h"

#include <span>
#include <string>
#include <string_view>

namespace decodeprof::report {
namespace {

namespace s = summary_schema;

constexpr SummarySection kSections[] = {
    {"", s::run::kFields, nullptr},
    {"checks.", s::checks::kFields, &s::run::checks},
    {"top_kernels[].", s::top_kernel::kFields, &s::run::top_kernels},
    {"port_units.<id>.", s::unit::kFields, &s::run::port_units},
    {"diagnostics[].", s::diagnostic::kFields, &s::run::diagnostics},
    {"diagnostics[].first.", s::diagnostic_first::kFields, &s::diagnostic::first},
    {"ranked_units[].", s::ranked_unit::kFields, &s::run::ranked_units},
    {"rank.", s::rank::kFields, &s::run::rank},
    {"collectives.", s::collectives::kFields, &s::run::collectives},
    {"plain_runs.", s::plain_runs::kFields, &s::run::plain_runs},
    {"window_evidence.", s::window_evidence::kFields, &s::run::window_evidence},
    {"sampling.", s::sampling::kFields, &s::run::sampling},
    {"engine_steps.", s::engine_steps::kFields, &s::run::engine_steps},
    {"engine_steps.kinds[].", s::step_kind::kFields, &s::engine_steps::kinds},
    {"engine_steps.steps[].", s::engine_step::kFields, &s::engine_steps::steps},
    {"speed_of_light.", s::sol::kFields, &s::run::speed_of_light},
    {"speed_of_light.decomposition_ms_per_token.", s::sol_decomposition::kFields,
     &s::sol::decomposition_ms_per_token},
    {"speed_of_light.classes.<class>.", s::sol_class::kFields, &s::sol::classes},
    {"speed_of_light.units.<id>.", s::sol_unit::kFields, &s::sol::units},
};

// What a number may be (SummaryRange): a count, a time or a rate is >= 0 and at most
// kRangeLargest (no run reaches 10^12 ms, dispatches or tokens); a percentage is 0..100; a
// speedup bound is >= 1; bytes per token at most 10^15; a bandwidth at most 10^5 GB/s.
constexpr double kRangeLargest = 1e12;
constexpr double kRangeLargestBytes = 1e15;
constexpr double kRangeLeastPeakGbps = 1.0;
constexpr double kRangeLargestGbps = 1e5;

std::string_view RangeText(SummaryRange range) {
  switch (range) {
    case SummaryRange::kAny:
      return "";
    case SummaryRange::kNonNegative:
      return ", 0..1e12";
    case SummaryRange::kPercent:
    case SummaryRange::kMbu:
      return ", 0..100";
    case SummaryRange::kCeiling:
      return ", >= 1";
    case SummaryRange::kBytes:
      return ", 0..1e15";
    case SummaryRange::kPeakBandwidth:
      return ", 1..1e5";
    case SummaryRange::kBandwidth:
      return ", 0..1e5";
  }
  return "";
}

}  // namespace

std::span<const SummarySection> SummarySections() { return kSections; }

const SummarySection* SectionHeldBy(const SummaryField& field) {
  for (const SummarySection& section : kSections) {
    if (section.holder == &field) return &section;
  }
  return nullptr;
}

std::string_view SummaryTypeName(SummaryFieldType type) {
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
      return "array of objects";
    case SummaryFieldType::kObjectMap:
      return "object of objects";
    case SummaryFieldType::kMap:
      return "object of numbers";
    case SummaryFieldType::kStrings:
      return "array of strings";
    case SummaryFieldType::kNumbers:
      return "array of numbers";
  }
  return "";
}

std::string_view SummaryRangeViolation(SummaryRange range, double x) {
  const double slack = kSummaryRoundingSlack;
  switch (range) {
    case SummaryRange::kAny:
      break;
    case SummaryRange::kNonNegative:
      if (x < 0 || x > kRangeLargest) return "a count, time or rate of a run is from 0 to 1e12";
      break;
    case SummaryRange::kPercent:
      if (x < 0 || x > 100 + slack) return "a percentage is from 0 to 100";
      break;
    case SummaryRange::kCeiling:
      if (x < 1 - slack || x > kRangeLargest) return "a speedup bound is at least 1";
      break;
    case SummaryRange::kBytes:
      if (x < 0 || x > kRangeLargestBytes) return "bytes per token are from 0 to 1e15";
      break;
    case SummaryRange::kPeakBandwidth:
      if (x < kRangeLeastPeakGbps || x > kRangeLargestGbps) {
        return "a peak bandwidth is from 1 to 1e5 GB/s";
      }
      break;
    case SummaryRange::kBandwidth:
      if (x < 0 || x > kRangeLargestGbps) return "a bandwidth is from 0 to 1e5 GB/s";
      break;
    case SummaryRange::kMbu:
      if (x < 0 || x > 100 + slack) {
        return "a MBU above 100 % means the bytes per token or the peak bandwidth are wrong (a "
               "MBU is from 0 to 100)";
      }
      break;
  }
  return "";
}

std::string SummaryFieldTableMarkdown() {
  std::string out =
      "| field | type | unit | meaning |\n"
      "|---|---|---|---|\n";
  for (const SummarySection& section : kSections) {
    for (const SummaryField& field : section.fields) {
      std::string type(SummaryTypeName(field.type));
      if (field.check != SummaryCheck::kFree) type += RangeText(field.range);
      out += "| `" + std::string(section.path) + std::string(field.key) + "` | " + type + " | " +
             std::string(field.unit) + " | " + std::string(field.meaning) +
             (field.check == SummaryCheck::kFree       ? " (not checked)"
              : field.check == SummaryCheck::kRequired ? " (required)"
                                                       : "") +
             " |\n";
    }
  }
  return out;
}

}  // namespace decodeprof::report
