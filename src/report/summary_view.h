// The typed reader of a summary (issue 28, "A typed summary"): views over a parsed
// `<name>_summary.json` whose accessors come from the schema's lists (summary_schema.h), so a
// writer of `report` or `diff` reads `RunView(summary).gpu_ms_per_token()` instead of a field
// by its spelled key.
//
// A view holds a pointer into the parsed document (SummaryFile::content) and copies nothing;
// it lives no longer than the document. A SummaryFile from ParseSummary has passed
// ValidateSummary (summary_validation.h), which checks the same lists, so its checked fields
// hold their types. Each accessor returns a SummaryValue<T>: the value as written (json(), Str()
// for Python's str() of it, the form the seed's tables print) and typed (get(): nullopt when the
// field is absent, null or, in a SummaryFile built in code that skipped the check, of another
// type). Nothing here throws.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/report/summary_reader.h"
#include "src/report/summary_schema.h"

namespace decodeprof::report {

template <SummaryFieldType kType>
struct SummaryValueType {
  using Type = nlohmann::ordered_json;  // objects, arrays and maps: read through their views
};
template <>
struct SummaryValueType<SummaryFieldType::kNumber> {
  using Type = double;
};
template <>
struct SummaryValueType<SummaryFieldType::kInteger> {
  using Type = int64_t;
};
template <>
struct SummaryValueType<SummaryFieldType::kString> {
  using Type = std::string;
};
template <>
struct SummaryValueType<SummaryFieldType::kBool> {
  using Type = bool;
};

// One field's stored value.
template <typename T>
class SummaryValue {
 public:
  explicit SummaryValue(const nlohmann::ordered_json& json) : json_(&json) {}

  // The value as written: null when absent.
  const nlohmann::ordered_json& json() const { return *json_; }
  bool is_null() const { return json_->is_null(); }
  // Python's str() of the value as written ("None" when absent).
  std::string Str() const { return PyStr(*json_); }

  // Any number as a double (an Integer field written as 12.0 too); nullopt otherwise.
  std::optional<double> number() const {
    if (!json_->is_number()) return std::nullopt;
    return json_->get<double>();
  }

  // The typed value; nullopt when absent, null or of another type. An integer beyond int64
  // reads as INT64_MAX.
  std::optional<T> get() const requires(!std::is_same_v<T, nlohmann::ordered_json>) {
    const nlohmann::ordered_json& v = *json_;
    if constexpr (std::is_same_v<T, double>) {
      if (v.is_number()) return v.get<double>();
    } else if constexpr (std::is_same_v<T, int64_t>) {
      if (v.is_number_unsigned()) {
        return static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), INT64_MAX));
      }
      if (v.is_number_integer()) return v.get<int64_t>();
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (v.is_string()) return v.get<std::string>();
    } else if constexpr (std::is_same_v<T, bool>) {
      if (v.is_boolean()) return v.get<bool>();
    }
    return std::nullopt;
  }

 private:
  const nlohmann::ordered_json* json_;
};

#define DP_SUMMARY_ACCESSOR(ident, key, type, range, check, unit, meaning)                        \
  SummaryValue<SummaryValueType<SummaryFieldType::k##type>::Type> ident() const {                 \
    return SummaryValue<SummaryValueType<SummaryFieldType::k##type>::Type>(JsonGet(*json_, key)); \
  }

// A JSON object of the summary (a null value when absent or not an object: every field then
// reads as absent).
class ObjectView {
 public:
  explicit ObjectView(const nlohmann::ordered_json& json) : json_(&json) {}
  const nlohmann::ordered_json& json() const { return *json_; }
  bool is_object() const { return json_->is_object(); }
  // The field is there, null or not.
  bool Has(const SummaryField& field) const {
    return json_->is_object() && json_->find(field.key) != json_->end();
  }
  // The field as written, by its schema entry.
  const nlohmann::ordered_json& Get(const SummaryField& field) const {
    return JsonGet(*json_, field.key);
  }

 protected:
  const nlohmann::ordered_json* json_;
};

class ChecksView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_CHECK_FIELDS(DP_SUMMARY_ACCESSOR)
};

class TopKernelView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_TOP_KERNEL_FIELDS(DP_SUMMARY_ACCESSOR)
};

class UnitView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_UNIT_FIELDS(DP_SUMMARY_ACCESSOR)
};

class DiagnosticFirstView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_DIAGNOSTIC_FIRST_FIELDS(DP_SUMMARY_ACCESSOR)
};

class DiagnosticView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_DIAGNOSTIC_FIELDS(DP_SUMMARY_ACCESSOR)
  DiagnosticFirstView First() const { return DiagnosticFirstView(first().json()); }
};

class RankedUnitView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_RANKED_UNIT_FIELDS(DP_SUMMARY_ACCESSOR)
};

class RankView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_RANK_FIELDS(DP_SUMMARY_ACCESSOR)
};

class CollectivesView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_COLLECTIVE_FIELDS(DP_SUMMARY_ACCESSOR)
};

class PlainRunsView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_PLAIN_RUNS_FIELDS(DP_SUMMARY_ACCESSOR)
};

// The elements of an array field as views (none when the field is absent or not an array).
template <typename View>
std::vector<View> ViewsOf(const nlohmann::ordered_json& array) {
  std::vector<View> out;
  if (!array.is_array()) return out;
  out.reserve(array.size());
  for (const nlohmann::ordered_json& element : array) out.emplace_back(element);
  return out;
}

// An ObjectMap field (`port_units`, `speed_of_light.units`): objects of one section by id.
template <typename View>
class ObjectMapView {
 public:
  explicit ObjectMapView(const nlohmann::ordered_json& json) : json_(&json) {}
  bool is_object() const { return json_->is_object(); }
  // The entry `id` (every field absent when there is no such entry).
  View At(std::string_view id) const { return View(JsonGet(*json_, id)); }
  // The entries in the JSON's order (none when the field is absent or not an object).
  std::vector<std::pair<std::string, View>> Entries() const {
    std::vector<std::pair<std::string, View>> out;
    if (!json_->is_object()) return out;
    for (const auto& [id, entry] : json_->items()) out.emplace_back(id, View(entry));
    return out;
  }

 private:
  const nlohmann::ordered_json* json_;
};

// A Map field (`class_share_pct`, ...): numbers or nulls by name.
class NumberMapView {
 public:
  explicit NumberMapView(const nlohmann::ordered_json& json) : json_(&json) {}
  bool is_object() const { return json_->is_object(); }
  // The value of `name` (absent: null).
  SummaryValue<double> At(std::string_view name) const {
    return SummaryValue<double>(JsonGet(*json_, name));
  }
  // The names in the JSON's order (none when the field is absent or not an object).
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    if (!json_->is_object()) return out;
    for (const auto& [name, value] : json_->items()) out.push_back(name);
    return out;
  }

 private:
  const nlohmann::ordered_json* json_;
};

class WindowEvidenceView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_WINDOW_EVIDENCE_FIELDS(DP_SUMMARY_ACCESSOR)
};

class SamplingView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_SAMPLING_FIELDS(DP_SUMMARY_ACCESSOR)
};

class StepKindView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_STEP_KIND_FIELDS(DP_SUMMARY_ACCESSOR)
};

class EngineStepView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_ENGINE_STEP_FIELDS(DP_SUMMARY_ACCESSOR)
};

class EngineStepsView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_ENGINE_STEPS_FIELDS(DP_SUMMARY_ACCESSOR)
  std::vector<StepKindView> Kinds() const { return ViewsOf<StepKindView>(kinds().json()); }
  std::vector<EngineStepView> Steps() const { return ViewsOf<EngineStepView>(steps().json()); }
};

class SolDecompositionView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_SOL_DECOMPOSITION_FIELDS(DP_SUMMARY_ACCESSOR)
  NumberMapView Units() const { return NumberMapView(units().json()); }
};

class SolClassView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_SOL_CLASS_FIELDS(DP_SUMMARY_ACCESSOR)
};

class SolUnitView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_SOL_UNIT_FIELDS(DP_SUMMARY_ACCESSOR)
};

// `speed_of_light` as stored (speed_of_light_section.h reads it into a struct as well).
class SpeedOfLightView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  DP_SUMMARY_SOL_FIELDS(DP_SUMMARY_ACCESSOR)
  SolDecompositionView Decomposition() const {
    return SolDecompositionView(decomposition_ms_per_token().json());
  }
  ObjectMapView<SolClassView> Classes() const {
    return ObjectMapView<SolClassView>(classes().json());
  }
  ObjectMapView<SolUnitView> Units() const { return ObjectMapView<SolUnitView>(units().json()); }
};

// The top level of a run's summary.
class RunView : public ObjectView {
 public:
  using ObjectView::ObjectView;
  explicit RunView(const SummaryFile& summary) : ObjectView(summary.content) {}
  DP_SUMMARY_RUN_FIELDS(DP_SUMMARY_ACCESSOR)

  ChecksView Checks() const { return ChecksView(checks().json()); }
  std::vector<TopKernelView> TopKernels() const {
    return ViewsOf<TopKernelView>(top_kernels().json());
  }
  ObjectMapView<UnitView> PortUnits() const { return ObjectMapView<UnitView>(port_units().json()); }
  // The unit `id` of port_units (every field absent when there is no such unit).
  UnitView Unit(std::string_view id) const { return PortUnits().At(id); }
  NumberMapView Map(const SummaryField& field) const { return NumberMapView(Get(field)); }
  std::vector<DiagnosticView> Diagnostics() const {
    return ViewsOf<DiagnosticView>(diagnostics().json());
  }
  std::vector<RankedUnitView> RankedUnitEntries() const {
    return ViewsOf<RankedUnitView>(ranked_units().json());
  }
  RankView Rank() const { return RankView(rank().json()); }
  CollectivesView Collectives() const { return CollectivesView(collectives().json()); }
  PlainRunsView PlainRuns() const { return PlainRunsView(plain_runs().json()); }
  WindowEvidenceView WindowEvidence() const { return WindowEvidenceView(window_evidence().json()); }
  SamplingView Sampling() const { return SamplingView(sampling().json()); }
  EngineStepsView EngineSteps() const { return EngineStepsView(engine_steps().json()); }
  SpeedOfLightView SpeedOfLight() const { return SpeedOfLightView(speed_of_light().json()); }
  // The strings of `warnings` (other elements skipped).
  std::vector<std::string> Warnings() const {
    std::vector<std::string> out;
    if (!warnings().json().is_array()) return out;
    for (const nlohmann::ordered_json& w : warnings().json()) {
      if (w.is_string()) out.push_back(w.get<std::string>());
    }
    return out;
  }
};

#undef DP_SUMMARY_ACCESSOR

}  // namespace decodeprof::report
