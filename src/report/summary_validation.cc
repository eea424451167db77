#include "src/report/summary_validation.h"

#include <cmath>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "src/report/summary_json.h"
#include "src/report/summary_schema.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

namespace s = summary_schema;
using Range = SummaryRange;

// What a number may be (SummaryRange): a count, a time or a rate is >= 0 and at most kLargest
// (no run reaches 10^12 ms, dispatches or tokens); a percentage is 0..100; a speedup bound is
// >= 1.
constexpr double kLargest = 1e12;
constexpr double kRoundingSlack = 0.01;  // the summary's figures are rounded

base::Status Error(const SummaryFile& summary, std::string message) {
  return base::DataError(summary.path, std::move(message));
}

// `value`, the field `<prefix>key`: null, or a finite number.
base::Status CheckNumber(const SummaryFile& summary, const Json& value, std::string_view prefix,
                         std::string_view key) {
  if (value.is_null()) return base::OkStatus();
  if (!value.is_number()) {
    return Error(summary, FieldName(prefix, key) + " is neither a number nor null");
  }
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    return Error(summary, FieldName(prefix, key) + " is not a finite number");
  }
  return base::OkStatus();
}

// A present number against its range.
base::Status CheckRange(const SummaryFile& summary, const Json& value, std::string_view prefix,
                        std::string_view key, Range range) {
  if (range == Range::kAny || !value.is_number()) return base::OkStatus();
  const double x = value.get<double>();
  switch (range) {
    case Range::kAny:
      break;
    case Range::kNonNegative:
      if (x < 0 || x > kLargest) {
        return Error(summary, FieldName(prefix, key) + " is " + value.dump() +
                                  ": a count, time or rate of a run is from 0 to 1e12");
      }
      break;
    case Range::kPercent:
      if (x < 0 || x > 100 + kRoundingSlack) {
        return Error(summary, FieldName(prefix, key) + " is " + value.dump() +
                                  ": a percentage is from 0 to 100");
      }
      break;
    case Range::kCeiling:
      if (x < 1 - kRoundingSlack || x > kLargest) {
        return Error(summary, FieldName(prefix, key) + " is " + value.dump() +
                                  ": a speedup bound is at least 1");
      }
      break;
  }
  return base::OkStatus();
}

base::Status CheckField(const SummaryFile& summary, const Json& object, std::string_view prefix,
                        const SummaryField& field) {
  const Json& value = JsonGet(object, field.key);
  if (value.is_null() || field.check != SummaryCheck::kChecked) return base::OkStatus();
  switch (field.type) {
    case SummaryFieldType::kNumber:
      DP_RETURN_IF_ERROR(CheckNumber(summary, value, prefix, field.key));
      return CheckRange(summary, value, prefix, field.key, field.range);
    case SummaryFieldType::kInteger:
      // is_number_integer() holds for signed and unsigned integers; 12.0 is a float.
      if (value.is_number_integer()) {
        return CheckRange(summary, value, prefix, field.key, field.range);
      }
      return Error(summary, FieldName(prefix, field.key) + " is neither an integer nor null");
    case SummaryFieldType::kString:
      if (value.is_string()) return base::OkStatus();
      return Error(summary, FieldName(prefix, field.key) + " is neither a string nor null");
    case SummaryFieldType::kBool:
      if (value.is_boolean()) return base::OkStatus();
      return Error(summary, FieldName(prefix, field.key) + " is neither a boolean nor null");
    case SummaryFieldType::kObject:
    case SummaryFieldType::kArray:
    case SummaryFieldType::kMap:
      break;  // checked by their sections, after the scalar fields
  }
  return base::OkStatus();
}

// The scalar fields of `fields` (the schema's order, the order summarize writes them).
base::Status CheckFields(const SummaryFile& summary, const Json& object, std::string_view prefix,
                         std::span<const SummaryField> fields) {
  for (const SummaryField& field : fields) {
    DP_RETURN_IF_ERROR(CheckField(summary, object, prefix, field));
  }
  return base::OkStatus();
}

std::string Indexed(std::string_view key, size_t i) {
  return "`" + std::string(key) + "`[" + std::to_string(i) + "]";
}

// `field` of the top level: its value and its name in messages.
const Json& Top(const SummaryFile& summary, const SummaryField& field) {
  return JsonGet(summary.content, field.key);
}
std::string Name(const SummaryField& field) { return FieldName("", field.key); }
std::string Indexed(const SummaryField& field, size_t i) { return Indexed(field.key, i); }

// Every summarize version writes `name`; diff and the report name runs by it.
base::Status CheckName(const SummaryFile& summary) {
  if (!summary.content.is_object() || !summary.content.contains(s::run::name.key)) {
    return base::DataError(summary.path, "not a decodeprof summary: no `name` field",
                           "pass the <name>_summary.json files that `decodeprof summarize` "
                           "writes");
  }
  if (!Top(summary, s::run::name).is_string()) {
    return Error(summary, Name(s::run::name) + " is not a string");
  }
  return base::OkStatus();
}

base::Status CheckChecks(const SummaryFile& summary) {
  const Json& checks = Top(summary, s::run::checks);
  if (checks.is_null()) return base::OkStatus();
  if (!checks.is_object()) return Error(summary, Name(s::run::checks) + " is not an object");
  return CheckFields(summary, checks, Name(s::run::checks) + ".", s::checks::kFields);
}

base::Status CheckTopKernels(const SummaryFile& summary) {
  const Json& top = Top(summary, s::run::top_kernels);
  if (top.is_null()) return base::OkStatus();
  if (!top.is_array()) return Error(summary, Name(s::run::top_kernels) + " is not an array");
  for (size_t i = 0; i < top.size(); ++i) {
    const std::string entry = Indexed(s::run::top_kernels, i);
    if (!top[i].is_object() || !JsonGet(top[i], s::top_kernel::kernel.key).is_string()) {
      return Error(summary, entry + " has no string " + Name(s::top_kernel::kernel));
    }
    DP_RETURN_IF_ERROR(CheckFields(summary, top[i], entry + ".", s::top_kernel::kFields));
  }
  return base::OkStatus();
}

// class_share_pct / role_share_pct: {name: share}.
base::Status CheckShareMap(const SummaryFile& summary, const SummaryField& field) {
  const Json& shares = Top(summary, field);
  if (shares.is_null()) return base::OkStatus();
  if (!shares.is_object()) return Error(summary, Name(field) + " is not an object");
  const std::string prefix = Name(field) + ".";
  for (const auto& [name, value] : shares.items()) {
    DP_RETURN_IF_ERROR(CheckNumber(summary, value, prefix, name));
    DP_RETURN_IF_ERROR(CheckRange(summary, value, prefix, name, field.range));
  }
  return base::OkStatus();
}

base::Status CheckPortUnits(const SummaryFile& summary) {
  const Json& units = Top(summary, s::run::port_units);
  if (units.is_null()) return base::OkStatus();
  if (!units.is_object()) return Error(summary, Name(s::run::port_units) + " is not an object");
  for (const auto& [id, unit] : units.items()) {
    const std::string name = FieldName(Name(s::run::port_units) + ".", id);
    if (!unit.is_object()) return Error(summary, name + " is not an object");
    DP_RETURN_IF_ERROR(CheckFields(summary, unit, name + ".", s::unit::kFields));
  }
  return base::OkStatus();
}

base::Status CheckWarnings(const SummaryFile& summary) {
  const Json& warnings = Top(summary, s::run::warnings);
  if (warnings.is_null()) return base::OkStatus();
  if (!warnings.is_array()) return Error(summary, Name(s::run::warnings) + " is not an array");
  for (size_t i = 0; i < warnings.size(); ++i) {
    if (!warnings[i].is_string())
      return Error(summary, Indexed(s::run::warnings, i) + " is not a string");
  }
  return base::OkStatus();
}

base::Status CheckDiagnostics(const SummaryFile& summary) {
  const Json& diagnostics = Top(summary, s::run::diagnostics);
  if (diagnostics.is_null()) return base::OkStatus();
  if (!diagnostics.is_array()) {
    return Error(summary, Name(s::run::diagnostics) + " is not an array");
  }
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    const Json& entry = diagnostics[i];
    const std::string name = Indexed(s::run::diagnostics, i);
    if (!entry.is_object()) return Error(summary, name + " is not an object");
    DP_RETURN_IF_ERROR(CheckFields(summary, entry, name + ".", s::diagnostic::kFields));
    const Json& first = JsonGet(entry, s::diagnostic::first.key);
    if (first.is_null()) continue;
    const std::string first_name = FieldName(name + ".", s::diagnostic::first.key);
    if (!first.is_object()) return Error(summary, first_name + " is not an object");
    DP_RETURN_IF_ERROR(CheckFields(summary, first, first_name + ".", s::diagnostic_first::kFields));
  }
  return base::OkStatus();
}

// `ranked_units` against `port_units` (already checked: an object or null).
base::Status CheckRankedUnits(const SummaryFile& summary) {
  const Json& ranked = Top(summary, s::run::ranked_units);
  if (ranked.is_null()) return base::OkStatus();
  if (!ranked.is_array()) return Error(summary, Name(s::run::ranked_units) + " is not an array");
  const Json& units = Top(summary, s::run::port_units);
  const std::string units_name = Name(s::run::port_units);
  std::unordered_set<std::string_view> unit_ids;
  for (const auto& [id, unit] : units.items()) unit_ids.insert(id);
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const Json& entry = ranked[i];
    const std::string name = Indexed(s::run::ranked_units, i);
    const std::string id_name = FieldName(name + ".", s::ranked_unit::id.key);
    const Json& id = JsonGet(entry, s::ranked_unit::id.key);
    if (!entry.is_object() || !id.is_string()) {
      return Error(summary, name + " is not an object with a string " + Name(s::ranked_unit::id));
    }
    const std::string& unit = id.get_ref<const std::string&>();
    if (!unit_ids.contains(unit)) {
      return Error(summary, id_name + " \"" + unit + "\" is no unit of " + units_name);
    }
    if (!seen.insert(unit).second) {
      return Error(summary, id_name + " \"" + unit + "\" is listed twice");
    }
    const Json& by = JsonGet(entry, s::ranked_unit::by.key);
    if (!by.is_string() || !RankFigureNamed(by.get_ref<const std::string&>())) {
      return Error(summary,
                   FieldName(name + ".", s::ranked_unit::by.key) + " is neither \"" +
                       std::string(RankFigureField(analysis::RankFigure::kPlainCeilingWallEst)) +
                       "\" nor \"" +
                       std::string(RankFigureField(analysis::RankFigure::kCeilingWall)) + "\"");
    }
    DP_RETURN_IF_ERROR(CheckFields(summary, entry, name + ".", s::ranked_unit::kFields));
  }
  if (seen.size() != unit_ids.size()) {
    for (const auto& [id, unit] : units.items()) {
      if (!seen.contains(id)) {
        return Error(summary,
                     Name(s::run::ranked_units) + " lacks " + FieldName(units_name + ".", id));
      }
    }
  }
  return base::OkStatus();
}

// `rank` and `collectives` (multi-rank runs, docs/multi-gpu.md).
base::Status CheckRankObjects(const SummaryFile& summary) {
  const Json& rank = Top(summary, s::run::rank);
  const std::string rank_name = Name(s::run::rank);
  if (!rank.is_null()) {
    if (!rank.is_object()) return Error(summary, rank_name + " is not an object");
    const Json& number = JsonGet(rank, s::rank::rank.key);
    if (!number.is_number_integer() || number.get<int64_t>() < 0) {
      return Error(summary,
                   FieldName(rank_name + ".", s::rank::rank.key) + " is not an integer >= 0");
    }
    DP_RETURN_IF_ERROR(CheckFields(summary, rank, rank_name + ".", s::rank::kFields));
  }
  const Json& collectives = Top(summary, s::run::collectives);
  if (collectives.is_null()) return base::OkStatus();
  if (!collectives.is_object()) {
    return Error(summary, Name(s::run::collectives) + " is not an object");
  }
  return CheckFields(summary, collectives, Name(s::run::collectives) + ".",
                     s::collectives::kFields);
}

// The window's times against each other: the GPU is busy at most the wall and at most the sum
// of its dispatches.
base::Status CheckWindowTimes(const SummaryFile& summary) {
  const Json& wall = Top(summary, s::run::decode_wall_ms);
  const Json& busy = Top(summary, s::run::decode_gpu_busy_ms);
  const Json& sum = Top(summary, s::run::decode_gpu_sum_ms);
  if (!busy.is_number()) return base::OkStatus();
  const double b = busy.get<double>();
  if (wall.is_number() && b > wall.get<double>() + kRoundingSlack) {
    return Error(summary, Name(s::run::decode_gpu_busy_ms) + " " + busy.dump() + " is more than " +
                              Name(s::run::decode_wall_ms) + " " + wall.dump() +
                              ": the GPU cannot be busy longer than the window");
  }
  if (sum.is_number() && b > sum.get<double>() + kRoundingSlack) {
    return Error(summary, Name(s::run::decode_gpu_busy_ms) + " " + busy.dump() + " is more than " +
                              Name(s::run::decode_gpu_sum_ms) + " " + sum.dump() +
                              ": busy time is a union of the dispatches");
  }
  return base::OkStatus();
}

}  // namespace

base::Status ValidateSummary(const SummaryFile& summary) {
  DP_RETURN_IF_ERROR(CheckName(summary));
  DP_RETURN_IF_ERROR(CheckFields(summary, summary.content, "", s::run::kFields));
  DP_RETURN_IF_ERROR(CheckWindowTimes(summary));
  DP_RETURN_IF_ERROR(CheckChecks(summary));
  DP_RETURN_IF_ERROR(CheckTopKernels(summary));
  DP_RETURN_IF_ERROR(CheckShareMap(summary, s::run::class_share_pct));
  DP_RETURN_IF_ERROR(CheckShareMap(summary, s::run::role_share_pct));
  DP_RETURN_IF_ERROR(CheckPortUnits(summary));
  DP_RETURN_IF_ERROR(CheckWarnings(summary));
  DP_RETURN_IF_ERROR(CheckDiagnostics(summary));
  DP_RETURN_IF_ERROR(CheckRankedUnits(summary));
  DP_RETURN_IF_ERROR(CheckRankObjects(summary));
  return ReadSpeedOfLight(summary.content, summary.path).status();
}

}  // namespace decodeprof::report
