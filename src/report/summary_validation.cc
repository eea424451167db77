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

// The walk of a summary along the schema's sections (summary_schema.h): every object of a
// section, its Required fields, its scalar fields, then the fields that hold other sections,
// maps and arrays, in the order the schema lists them; the rules between fields at their
// places (BeforeEntry, AfterScalars, AfterField).
class Validator {
 public:
  explicit Validator(const SummaryFile& summary) : summary_(summary) {}

  // The top level (its `name` already checked).
  base::Status Run() { return Object(summary_.content, "", SummarySections().front()); }

 private:
  base::Status Error(std::string message) const {
    return base::DataError(summary_.path, std::move(message));
  }

  // `value`, the field `name`: null, or a finite number of `range`.
  base::Status Number(const Json& value, const std::string& name, SummaryRange range) const {
    if (value.is_null()) return base::OkStatus();
    if (!value.is_number()) return Error(name + " is neither a number nor null");
    if (value.is_number_float() && !std::isfinite(value.get<double>())) {
      return Error(name + " is not a finite number");
    }
    return Range(value, name, range);
  }

  // A present number against its range.
  base::Status Range(const Json& value, const std::string& name, SummaryRange range) const {
    if (range == SummaryRange::kAny || !value.is_number()) return base::OkStatus();
    const std::string_view broken = SummaryRangeViolation(range, value.get<double>());
    if (broken.empty()) return base::OkStatus();
    return Error(name + " is " + value.dump() + ": " + std::string(broken));
  }

  // The value of a scalar field (Number, Integer, String, Bool), present and not null.
  base::Status Scalar(const Json& value, const std::string& name, const SummaryField& field) const {
    switch (field.type) {
      case SummaryFieldType::kNumber:
        return Number(value, name, field.range);
      case SummaryFieldType::kInteger:
        // is_number_integer() holds for signed and unsigned integers; 12.0 is a float.
        if (value.is_number_integer()) return Range(value, name, field.range);
        return Error(name + " is neither an integer nor null");
      case SummaryFieldType::kString:
        if (value.is_string()) return base::OkStatus();
        return Error(name + " is neither a string nor null");
      case SummaryFieldType::kBool:
        if (value.is_boolean()) return base::OkStatus();
        return Error(name + " is neither a boolean nor null");
      default:
        return base::OkStatus();
    }
  }

  static bool IsScalar(SummaryFieldType type) {
    return type == SummaryFieldType::kNumber || type == SummaryFieldType::kInteger ||
           type == SummaryFieldType::kString || type == SummaryFieldType::kBool;
  }

  static bool HasType(const Json& value, SummaryFieldType type) {
    switch (type) {
      case SummaryFieldType::kNumber:
        return value.is_number();
      case SummaryFieldType::kInteger:
        return value.is_number_integer();
      case SummaryFieldType::kString:
        return value.is_string();
      case SummaryFieldType::kBool:
        return value.is_boolean();
      case SummaryFieldType::kObject:
      case SummaryFieldType::kObjectMap:
      case SummaryFieldType::kMap:
        return value.is_object();
      case SummaryFieldType::kArray:
      case SummaryFieldType::kStrings:
      case SummaryFieldType::kNumbers:
        return value.is_array();
    }
    return false;
  }

  // One object of `section`, named `name` in messages ("" for the top level, else e.g.
  // "`top_kernels`[0]").
  base::Status Object(const Json& object, const std::string& name, const SummarySection& section) {
    DP_RETURN_IF_ERROR(BeforeEntry(section, object, name));
    // An entry without a Required field, or not an object: "`top_kernels`[0] has no string
    // `kernel`".
    for (const SummaryField& field : section.fields) {
      if (field.check != SummaryCheck::kRequired) continue;
      if (!object.is_object() || !HasType(JsonGet(object, field.key), field.type)) {
        return Error(name + " has no " + std::string(SummaryTypeName(field.type)) + " " +
                     FieldName("", field.key));
      }
    }
    if (!object.is_object()) return Error(name + " is not an object");
    const std::string prefix = name.empty() ? "" : name + ".";
    for (const SummaryField& field : section.fields) {
      const Json& value = JsonGet(object, field.key);
      if (field.check == SummaryCheck::kFree || value.is_null() || !IsScalar(field.type)) continue;
      DP_RETURN_IF_ERROR(Scalar(value, FieldName(prefix, field.key), field));
    }
    DP_RETURN_IF_ERROR(AfterScalars(section, object));
    for (const SummaryField& field : section.fields) {
      if (field.check == SummaryCheck::kFree || IsScalar(field.type)) continue;
      DP_RETURN_IF_ERROR(Holder(JsonGet(object, field.key), FieldName(prefix, field.key), field));
      DP_RETURN_IF_ERROR(AfterField(field));
    }
    return base::OkStatus();
  }

  // The value of a field that holds a section, a map or an array (absent or null: nothing).
  base::Status Holder(const Json& value, const std::string& name, const SummaryField& field) {
    if (value.is_null()) return base::OkStatus();
    const SummarySection* section = SectionHeldBy(field);
    switch (field.type) {
      case SummaryFieldType::kObject:
        if (!value.is_object()) return Error(name + " is not an object");
        return section == nullptr ? base::OkStatus() : Object(value, name, *section);
      case SummaryFieldType::kObjectMap:
        if (!value.is_object()) return Error(name + " is not an object");
        for (const auto& [id, entry] : value.items()) {
          const std::string entry_name = FieldName(name + ".", id);
          if (section == nullptr) {
            if (!entry.is_object()) return Error(entry_name + " is not an object");
            continue;
          }
          DP_RETURN_IF_ERROR(Object(entry, entry_name, *section));
        }
        return base::OkStatus();
      case SummaryFieldType::kMap:
        if (!value.is_object()) return Error(name + " is not an object");
        for (const auto& [key, number] : value.items()) {
          DP_RETURN_IF_ERROR(Number(number, FieldName(name + ".", key), field.range));
        }
        return base::OkStatus();
      case SummaryFieldType::kArray:
        if (!value.is_array()) return Error(name + " is not an array");
        for (size_t i = 0; i < value.size(); ++i) {
          const std::string entry_name = Indexed(name, i);
          if (section == nullptr) {
            if (!value[i].is_object()) return Error(entry_name + " is not an object");
            continue;
          }
          DP_RETURN_IF_ERROR(Object(value[i], entry_name, *section));
        }
        return base::OkStatus();
      case SummaryFieldType::kStrings:
        if (!value.is_array()) return Error(name + " is not an array");
        for (size_t i = 0; i < value.size(); ++i) {
          if (!value[i].is_string()) return Error(Indexed(name, i) + " is not a string");
        }
        return base::OkStatus();
      case SummaryFieldType::kNumbers:
        if (!value.is_array()) return Error(name + " is not an array");
        for (size_t i = 0; i < value.size(); ++i) {
          DP_RETURN_IF_ERROR(Number(value[i], Indexed(name, i), field.range));
        }
        return base::OkStatus();
      default:
        return base::OkStatus();
    }
  }

  static std::string Indexed(const std::string& name, size_t i) {
    return name + "[" + std::to_string(i) + "]";
  }

  // ---------------------------------------------------------------------------------------
  // The rules between fields.

  // Before the generic checks of an entry: ranked_units' entries, each a unit of port_units
  // (once) ranked by one of the two figures.
  base::Status BeforeEntry(const SummarySection& section, const Json& entry,
                           const std::string& name) {
    if (section.holder != &s::run::ranked_units) return base::OkStatus();
    const std::string id_name = FieldName(name + ".", s::ranked_unit::id.key);
    const Json& id = JsonGet(entry, s::ranked_unit::id.key);
    if (!entry.is_object() || !id.is_string()) {
      return Error(name + " is not an object with a string " +
                   FieldName("", s::ranked_unit::id.key));
    }
    const std::string& unit = id.get_ref<const std::string&>();
    if (!JsonGet(summary_.content, s::run::port_units.key).contains(unit)) {
      return Error(id_name + " \"" + unit + "\" is no unit of " +
                   FieldName("", s::run::port_units.key));
    }
    if (!ranked_.insert(unit).second) {
      return Error(id_name + " \"" + unit + "\" is listed twice");
    }
    const Json& by = JsonGet(entry, s::ranked_unit::by.key);
    if (!by.is_string() || !RankFigureNamed(by.get_ref<const std::string&>())) {
      return Error(FieldName(name + ".", s::ranked_unit::by.key) + " is neither \"" +
                   std::string(RankFigureField(analysis::RankFigure::kPlainCeilingWallEst)) +
                   "\" nor \"" + std::string(RankFigureField(analysis::RankFigure::kCeilingWall)) +
                   "\"");
    }
    return base::OkStatus();
  }

  // After the top level's scalar fields: the window's times against each other, the GPU is
  // busy at most the wall and at most the sum of its dispatches.
  base::Status AfterScalars(const SummarySection& section, const Json& object) const {
    if (section.holder != nullptr) return base::OkStatus();
    const Json& wall = JsonGet(object, s::run::decode_wall_ms.key);
    const Json& busy = JsonGet(object, s::run::decode_gpu_busy_ms.key);
    const Json& sum = JsonGet(object, s::run::decode_gpu_sum_ms.key);
    if (!busy.is_number()) return base::OkStatus();
    const double b = busy.get<double>();
    const std::string busy_name = FieldName("", s::run::decode_gpu_busy_ms.key);
    if (wall.is_number() && b > wall.get<double>() + kSummaryRoundingSlack) {
      return Error(busy_name + " " + busy.dump() + " is more than " +
                   FieldName("", s::run::decode_wall_ms.key) + " " + wall.dump() +
                   ": the GPU cannot be busy longer than the window");
    }
    if (sum.is_number() && b > sum.get<double>() + kSummaryRoundingSlack) {
      return Error(busy_name + " " + busy.dump() + " is more than " +
                   FieldName("", s::run::decode_gpu_sum_ms.key) + " " + sum.dump() +
                   ": busy time is a union of the dispatches");
    }
    return base::OkStatus();
  }

  // After a field's value: ranked_units lists every unit of port_units.
  base::Status AfterField(const SummaryField& field) const {
    if (&field != &s::run::ranked_units) return base::OkStatus();
    const Json& ranked = JsonGet(summary_.content, s::run::ranked_units.key);
    const Json& units = JsonGet(summary_.content, s::run::port_units.key);
    if (!ranked.is_array() || !units.is_object() || ranked_.size() == units.size()) {
      return base::OkStatus();
    }
    for (const auto& [id, unit] : units.items()) {
      if (!ranked_.contains(id)) {
        return Error(FieldName("", s::run::ranked_units.key) + " lacks " +
                     FieldName(FieldName("", s::run::port_units.key) + ".", id));
      }
    }
    return base::OkStatus();
  }

  const SummaryFile& summary_;
  std::unordered_set<std::string> ranked_;  // the units ranked_units names
};

// Every summarize version writes `name`; diff and the report name runs by it.
base::Status CheckName(const SummaryFile& summary) {
  if (!summary.content.is_object() || !summary.content.contains(s::run::name.key)) {
    return base::DataError(summary.path, "not a decodeprof summary: no `name` field",
                           "pass the <name>_summary.json files that `decodeprof summarize` "
                           "writes");
  }
  if (!JsonGet(summary.content, s::run::name.key).is_string()) {
    return base::DataError(summary.path, FieldName("", s::run::name.key) + " is not a string");
  }
  return base::OkStatus();
}

}  // namespace

base::Status ValidateSummary(const SummaryFile& summary) {
  DP_RETURN_IF_ERROR(CheckName(summary));
  DP_RETURN_IF_ERROR(Validator(summary).Run());
  // The speed-of-light section's own rules (its decomposition adds up, its peak's source).
  return ReadSpeedOfLight(summary.content, summary.path).status();
}

}  // namespace decodeprof::report
