#include "src/report/speed_of_light_section.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/summary_schema.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

using Field = SummaryField;
namespace sol = summary_schema::sol;
namespace sol_decomposition = summary_schema::sol_decomposition;
namespace sol_class = summary_schema::sol_class;
namespace sol_unit = summary_schema::sol_unit;

std::string Name(std::string_view prefix, std::string_view key) {
  return std::string(prefix) + "`" + std::string(key) + "`";
}

// Reads a field of `object` into the struct, checking as it goes.
class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {}

  // The field's number, checked against its type and range in the schema (summary_schema.h).
  base::Status Number(const Json& object, std::string_view prefix, const Field& field,
                      std::optional<double>& out) const {
    return Number(object, prefix, field.key, field.range, out);
  }
  base::Status Number(const Json& object, std::string_view prefix, std::string_view key,
                      SummaryRange range, std::optional<double>& out) const {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return base::OkStatus();
    if (!it->is_number()) {
      return Error(Name(prefix, key) + " is neither a number nor null");
    }
    const double x = it->get<double>();
    if (!std::isfinite(x)) return Error(Name(prefix, key) + " is not a finite number");
    if (const std::string_view broken = SummaryRangeViolation(range, x); !broken.empty()) {
      return Error(Name(prefix, key) + " is " + it->dump() + ": " + std::string(broken));
    }
    out = x;
    return base::OkStatus();
  }

  base::Status String(const Json& object, std::string_view prefix, const Field& field,
                      std::string& out) const {
    const std::string_view key = field.key;
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return base::OkStatus();
    if (!it->is_string()) return Error(Name(prefix, key) + " is neither a string nor null");
    out = it->get<std::string>();
    return base::OkStatus();
  }

  base::Status Strings(const Json& object, std::string_view prefix, const Field& field,
                       std::vector<std::string>& out) const {
    const std::string_view key = field.key;
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return base::OkStatus();
    if (!it->is_array()) return Error(Name(prefix, key) + " is not an array");
    for (size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string()) {
        return Error(Name(prefix, key) + "[" + std::to_string(i) + "] is not a string");
      }
      out.push_back((*it)[i].get<std::string>());
    }
    return base::OkStatus();
  }

  // The object at `key`, or nullptr when absent or null.
  base::StatusOr<const Json*> Object(const Json& object, std::string_view prefix,
                                     const Field& field) const {
    const std::string_view key = field.key;
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return static_cast<const Json*>(nullptr);
    if (!it->is_object()) return Error(Name(prefix, key) + " is not an object");
    return &*it;
  }

  base::Status Error(std::string message) const {
    return base::DataError(path_, std::move(message));
  }

 private:
  const std::string& path_;
};

constexpr std::string_view kTop = "`speed_of_light`.";

base::Status ReadDecomposition(const Reader& r, const Json& object,
                               SpeedOfLightDecomposition& out) {
  const std::string prefix = Name(kTop, sol::decomposition_ms_per_token.key) + ".";
  DP_RETURN_IF_ERROR(r.Number(object, prefix, sol_decomposition::floor, out.floor));
  DP_ASSIGN_OR_RETURN(const Json* units, r.Object(object, prefix, sol_decomposition::units));
  if (units != nullptr) {
    const std::string units_prefix = Name(prefix, sol_decomposition::units.key) + ".";
    for (const auto& [id, value] : units->items()) {
      std::optional<double> excess;
      DP_RETURN_IF_ERROR(
          r.Number(*units, units_prefix, id, sol_decomposition::units.range, excess));
      if (excess) out.units.emplace_back(id, *excess);
    }
  }
  DP_RETURN_IF_ERROR(r.Number(object, prefix, sol_decomposition::other_kernels, out.other_kernels));
  DP_RETURN_IF_ERROR(r.Number(object, prefix, sol_decomposition::overlap, out.overlap));
  DP_RETURN_IF_ERROR(r.Number(object, prefix, sol_decomposition::host_gap, out.host_gap));
  DP_RETURN_IF_ERROR(r.Number(object, prefix, sol_decomposition::wall, out.wall));
  if (out.floor && out.wall) {
    double sum = *out.floor + out.other_kernels.value_or(0.0) + out.overlap.value_or(0.0) +
                 out.host_gap.value_or(0.0);
    for (const auto& [id, excess] : out.units) sum += excess;
    const double slack = kSolSumRelSlack * std::abs(*out.wall) + kSolSumAbsSlackMs;
    if (std::abs(sum - *out.wall) > slack) {
      return r.Error(prefix.substr(0, prefix.size() - 1) + " adds up to " +
                     base::FormatFixed(sum, 4) + " ms, not " +
                     Name("", sol_decomposition::wall.key) + " " + base::PyRepr(*out.wall) +
                     " (floor + units + other_kernels + overlap + host_gap must equal wall "
                     "within 1 % + 0.01 ms)");
    }
  }
  return base::OkStatus();
}

base::Status ReadClasses(const Reader& r, const Json& object, std::vector<SpeedOfLightClass>& out) {
  for (const auto& [name, entry] : object.items()) {
    const std::string prefix = Name(Name(kTop, sol::classes.key) + ".", name) + ".";
    if (!entry.is_object())
      return r.Error(prefix.substr(0, prefix.size() - 1) + " is not an object");
    SpeedOfLightClass c;
    c.name = name;
    DP_RETURN_IF_ERROR(r.Strings(entry, prefix, sol_class::moves, c.moves));
    DP_RETURN_IF_ERROR(r.Number(entry, prefix, sol_class::bytes_per_token, c.bytes_per_token));
    DP_RETURN_IF_ERROR(r.Number(entry, prefix, sol_class::ms_per_token, c.ms_per_token));
    DP_RETURN_IF_ERROR(
        r.Number(entry, prefix, sol_class::floor_ms_per_token, c.floor_ms_per_token));
    // A class may move its share of the bytes above the peak: not bounded by it (the schema).
    DP_RETURN_IF_ERROR(r.Number(entry, prefix, sol_class::achieved_gbps, c.achieved_gbps));
    DP_RETURN_IF_ERROR(r.Number(entry, prefix, sol_class::pct_of_peak, c.pct_of_peak));
    out.push_back(std::move(c));
  }
  return base::OkStatus();
}

base::Status ReadUnits(const Reader& r, const Json& object, std::vector<SpeedOfLightUnit>& out) {
  for (const auto& [id, entry] : object.items()) {
    const std::string prefix = Name(Name(kTop, sol::units.key) + ".", id) + ".";
    if (!entry.is_object())
      return r.Error(prefix.substr(0, prefix.size() - 1) + " is not an object");
    SpeedOfLightUnit u;
    u.id = id;
    DP_RETURN_IF_ERROR(r.Number(entry, prefix, sol_unit::bytes_per_token, u.bytes_per_token));
    DP_RETURN_IF_ERROR(r.Number(entry, prefix, sol_unit::ms_per_token, u.ms_per_token));
    DP_RETURN_IF_ERROR(r.Number(entry, prefix, sol_unit::floor_ms_per_token, u.floor_ms_per_token));
    DP_RETURN_IF_ERROR(
        r.Number(entry, prefix, sol_unit::excess_ms_per_token, u.excess_ms_per_token));
    DP_RETURN_IF_ERROR(r.Number(entry, prefix, sol_unit::ceiling_to_floor, u.ceiling_to_floor));
    out.push_back(std::move(u));
  }
  return base::OkStatus();
}

// A byte count as an integer when it is one (below 2^53), else a float.
base::JsonValue Bytes(double x) {
  if (x == std::floor(x) && std::abs(x) < 9007199254740992.0) {
    return base::JsonValue::Int(static_cast<int64_t>(x));
  }
  return base::JsonValue::Float(x);
}

void AddNumber(base::JsonValue& object, const Field& key, const std::optional<double>& value) {
  if (value) object.Add(Key(key), base::JsonValue::Float(*value));
}

void AddBytes(base::JsonValue& object, const Field& key, const std::optional<double>& value) {
  if (value) object.Add(Key(key), Bytes(*value));
}

void AddString(base::JsonValue& object, const Field& key, const std::string& value) {
  if (!value.empty()) object.Add(Key(key), base::JsonValue::Str(value));
}

base::JsonValue StringsJson(const std::vector<std::string>& values) {
  base::JsonValue array = base::JsonValue::MakeArray();
  for (const std::string& value : values) array.Push(base::JsonValue::Str(value));
  return array;
}

std::string Ms(double x) { return base::FormatFixed(x, 2); }

// Below this a figure prints as 0.00 (or -0.00) at 2 decimals.
constexpr double kHalfHundredth = 0.005;

}  // namespace

base::StatusOr<std::optional<SpeedOfLightSection>> ReadSpeedOfLight(const Json& summary,
                                                                    const std::string& path) {
  const Reader r(path);
  if (!summary.is_object()) return std::optional<SpeedOfLightSection>();
  DP_ASSIGN_OR_RETURN(const Json* found,
                      r.Object(summary, "", summary_schema::run::speed_of_light));
  if (found == nullptr) return std::optional<SpeedOfLightSection>();
  const Json& o = *found;
  SpeedOfLightSection s;
  DP_RETURN_IF_ERROR(r.String(o, kTop, sol::model, s.model));
  DP_RETURN_IF_ERROR(r.String(o, kTop, sol::model_source, s.model_source));
  DP_RETURN_IF_ERROR(r.String(o, kTop, sol::architecture, s.architecture));
  DP_RETURN_IF_ERROR(r.String(o, kTop, sol::weight_format, s.weight_format));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::context_tokens, s.context_tokens));
  DP_RETURN_IF_ERROR(r.String(o, kTop, sol::context_source, s.context_source));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::weight_bytes, s.weight_bytes));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::kv_bytes_per_token, s.kv_bytes_per_token));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::state_bytes_per_token, s.state_bytes_per_token));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::bytes_per_token, s.bytes_per_token));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::peak_bandwidth_gbps, s.peak_bandwidth_gbps));
  DP_RETURN_IF_ERROR(r.String(o, kTop, sol::peak_source, s.peak_source));
  if (!s.peak_source.empty() && s.peak_source != "measured" && s.peak_source != "table" &&
      s.peak_source != "option") {
    return r.Error(Name(kTop, sol::peak_source.key) + " is \"" + s.peak_source +
                   "\", not \"measured\", \"table\" or \"option\"");
  }
  DP_RETURN_IF_ERROR(r.String(o, kTop, sol::peak_detail, s.peak_detail));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::floor_ms_per_token, s.floor_ms_per_token));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::wall_ms_per_token, s.wall_ms_per_token));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::achieved_gbps, s.achieved_gbps));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::mbu_pct, s.mbu_pct));
  DP_RETURN_IF_ERROR(r.Number(o, kTop, sol::to_the_floor, s.to_the_floor));
  DP_ASSIGN_OR_RETURN(const Json* decomposition,
                      r.Object(o, kTop, sol::decomposition_ms_per_token));
  if (decomposition != nullptr) {
    SpeedOfLightDecomposition d;
    DP_RETURN_IF_ERROR(ReadDecomposition(r, *decomposition, d));
    s.decomposition_ms_per_token = std::move(d);
  }
  DP_ASSIGN_OR_RETURN(const Json* classes, r.Object(o, kTop, sol::classes));
  if (classes != nullptr) DP_RETURN_IF_ERROR(ReadClasses(r, *classes, s.classes));
  DP_ASSIGN_OR_RETURN(const Json* units, r.Object(o, kTop, sol::units));
  if (units != nullptr) DP_RETURN_IF_ERROR(ReadUnits(r, *units, s.units));
  DP_RETURN_IF_ERROR(r.Strings(o, kTop, sol::notes, s.notes));
  return std::optional<SpeedOfLightSection>(std::move(s));
}

base::JsonValue SpeedOfLightJson(const SpeedOfLightSection& s, bool summary_form) {
  base::JsonValue o = base::JsonValue::MakeObject();
  const auto add_string = [&](base::JsonValue& object, const Field& key, const std::string& v) {
    if (summary_form) {
      object.Add(Key(key), base::JsonValue::Str(v));
    } else {
      AddString(object, key, v);
    }
  };
  add_string(o, sol::model, s.model);
  add_string(o, sol::model_source, s.model_source);
  add_string(o, sol::architecture, s.architecture);
  add_string(o, sol::weight_format, s.weight_format);
  AddNumber(o, sol::context_tokens, s.context_tokens);
  add_string(o, sol::context_source, s.context_source);
  AddBytes(o, sol::weight_bytes, s.weight_bytes);
  AddBytes(o, sol::kv_bytes_per_token, s.kv_bytes_per_token);
  AddBytes(o, sol::state_bytes_per_token, s.state_bytes_per_token);
  AddBytes(o, sol::bytes_per_token, s.bytes_per_token);
  AddNumber(o, sol::peak_bandwidth_gbps, s.peak_bandwidth_gbps);
  add_string(o, sol::peak_source, s.peak_source);
  add_string(o, sol::peak_detail, s.peak_detail);
  AddNumber(o, sol::decode_steps, s.decode_steps);
  AddNumber(o, sol::floor_ms_per_token, s.floor_ms_per_token);
  AddNumber(o, sol::wall_ms_per_token, s.wall_ms_per_token);
  AddNumber(o, sol::achieved_gbps, s.achieved_gbps);
  AddNumber(o, sol::mbu_pct, s.mbu_pct);
  AddNumber(o, sol::to_the_floor, s.to_the_floor);
  if (s.decomposition_ms_per_token) {
    const SpeedOfLightDecomposition& d = *s.decomposition_ms_per_token;
    base::JsonValue units = base::JsonValue::MakeObject();
    for (const auto& [id, excess] : d.units) units.Add(id, base::JsonValue::Float(excess));
    base::JsonValue object = base::JsonValue::MakeObject();
    AddNumber(object, sol_decomposition::floor, d.floor);
    object.Add(Key(sol_decomposition::units), std::move(units));
    AddNumber(object, sol_decomposition::other_kernels, d.other_kernels);
    AddNumber(object, sol_decomposition::overlap, d.overlap);
    AddNumber(object, sol_decomposition::host_gap, d.host_gap);
    AddNumber(object, sol_decomposition::wall, d.wall);
    o.Add(Key(sol::decomposition_ms_per_token), std::move(object));
  }
  if (summary_form || !s.classes.empty()) {
    base::JsonValue classes = base::JsonValue::MakeObject();
    for (const SpeedOfLightClass& c : s.classes) {
      base::JsonValue entry = base::JsonValue::MakeObject();
      entry.Add(Key(sol_class::moves), StringsJson(c.moves));
      AddBytes(entry, sol_class::bytes_per_token, c.bytes_per_token);
      AddNumber(entry, sol_class::ms_per_token, c.ms_per_token);
      AddNumber(entry, sol_class::floor_ms_per_token, c.floor_ms_per_token);
      AddNumber(entry, sol_class::achieved_gbps, c.achieved_gbps);
      AddNumber(entry, sol_class::pct_of_peak, c.pct_of_peak);
      classes.Add(c.name, std::move(entry));
    }
    o.Add(Key(sol::classes), std::move(classes));
  }
  if (summary_form || !s.units.empty()) {
    base::JsonValue units = base::JsonValue::MakeObject();
    for (const SpeedOfLightUnit& u : s.units) {
      base::JsonValue entry = base::JsonValue::MakeObject();
      AddBytes(entry, sol_unit::bytes_per_token, u.bytes_per_token);
      AddNumber(entry, sol_unit::ms_per_token, u.ms_per_token);
      AddNumber(entry, sol_unit::floor_ms_per_token, u.floor_ms_per_token);
      AddNumber(entry, sol_unit::excess_ms_per_token, u.excess_ms_per_token);
      AddNumber(entry, sol_unit::ceiling_to_floor, u.ceiling_to_floor);
      units.Add(u.id, std::move(entry));
    }
    o.Add(Key(sol::units), std::move(units));
  }
  if (summary_form || !s.notes.empty()) o.Add(Key(sol::notes), StringsJson(s.notes));
  return o;
}

std::string SpeedOfLightHeadline(const SpeedOfLightSection& s) {
  if (!s.wall_ms_per_token || !s.floor_ms_per_token) return "";
  std::string out =
      Ms(*s.wall_ms_per_token) + " ms/step vs a floor of " + Ms(*s.floor_ms_per_token) + " ms";
  std::vector<std::string> basis;
  if (s.bytes_per_token)
    basis.push_back(base::FormatFixed(*s.bytes_per_token / 1e9, 2) + " GB/step");
  if (s.peak_bandwidth_gbps) {
    const double peak = *s.peak_bandwidth_gbps;
    std::string at = "at " + base::FormatFixed(peak, peak >= 100 ? 0 : 1) + " GB/s";
    std::string words = s.peak_detail.substr(0, s.peak_detail.find(", "));
    if (words.empty()) words = s.peak_source;
    if (!words.empty()) at += ", " + words;
    if (!basis.empty()) {
      basis.back() += " " + at;
    } else {
      basis.push_back(at);
    }
  }
  if (!basis.empty()) out += " (" + basis.front() + ")";
  std::vector<std::string> tail;
  if (s.mbu_pct) tail.push_back("MBU " + base::FormatFixed(*s.mbu_pct, 1) + " %");
  if (s.to_the_floor) tail.push_back(Ms(*s.to_the_floor) + "x to the floor");
  if (!tail.empty()) {
    out += " — " + tail.front();
    for (size_t i = 1; i < tail.size(); ++i) out += ", " + tail[i];
  }
  return out;
}

std::string SpeedOfLightDecompositionLine(const SpeedOfLightSection& s) {
  if (!s.decomposition_ms_per_token) return "";
  const SpeedOfLightDecomposition& d = *s.decomposition_ms_per_token;
  std::vector<std::string> parts;
  if (d.floor) parts.push_back("floor " + Ms(*d.floor));
  if (!d.units.empty()) {
    double sum = 0.0;
    std::string each;
    for (const auto& [id, excess] : d.units) {
      sum += excess;
      // Units with nothing above their floor (a CUDA-graph unit, a unit that did not run)
      // are left out of the list; the sum counts every unit.
      if (std::abs(excess) < kHalfHundredth) continue;
      each += (each.empty() ? "" : ", ") + id + " " + Ms(excess);
    }
    parts.push_back("units " + Ms(sum) + (each.empty() ? "" : " (" + each + ")"));
  }
  if (d.other_kernels) parts.push_back("other kernels " + Ms(*d.other_kernels));
  if (d.overlap && std::abs(*d.overlap) >= kHalfHundredth) {
    parts.push_back("overlap " + Ms(*d.overlap));
  }
  if (d.host_gap) parts.push_back("host gap " + Ms(*d.host_gap));
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : " + ") + part;
  if (d.wall) out += (out.empty() ? "" : " = ") + Ms(*d.wall) + " ms/step";
  return out;
}

std::vector<const SpeedOfLightUnit*> UnitsByExcess(const SpeedOfLightSection& s) {
  std::vector<const SpeedOfLightUnit*> out;
  for (const SpeedOfLightUnit& u : s.units) out.push_back(&u);
  std::stable_sort(
      out.begin(), out.end(), [](const SpeedOfLightUnit* a, const SpeedOfLightUnit* b) {
        if (a->excess_ms_per_token.has_value() != b->excess_ms_per_token.has_value()) {
          return a->excess_ms_per_token.has_value();
        }
        return a->excess_ms_per_token && *a->excess_ms_per_token > *b->excess_ms_per_token;
      });
  return out;
}

}  // namespace decodeprof::report
