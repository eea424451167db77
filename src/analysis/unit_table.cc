#include "src/analysis/unit_table.h"

#include <algorithm>
#include <utility>

namespace decodeprof::analysis {
namespace {

bool OneOf(const std::vector<std::string>& allowed, const std::string& value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

}  // namespace

DataUnitTable::DataUnitTable(std::vector<UnitSpec> specs) {
  units_.reserve(specs.size());
  cases_.reserve(specs.size());
  for (UnitSpec& spec : specs) {
    units_.push_back(std::move(spec.unit));
    cases_.push_back(std::move(spec.cases));
  }
}

bool CaseMatches(const ReachCase& reach_case, const ModelConfig& config, bool sampled) {
  return OneOf(reach_case.model_types, config.model_type) &&
         OneOf(reach_case.rope_types, config.rope_type) &&
         (!reach_case.sampled || *reach_case.sampled == sampled);
}

UnitReach DataUnitTable::Reach(size_t index, const ModelConfig& config, bool sampled) const {
  if (index >= cases_.size()) return {};
  for (const ReachCase& reach_case : cases_[index]) {
    if (!CaseMatches(reach_case, config, sampled)) continue;
    const std::vector<RoleId>& all = units_[index].fallback_roles;
    return UnitReach{reach_case.default_whole ? all : reach_case.default_roles,
                     reach_case.optin_whole ? all : reach_case.optin_roles,
                     RenderNote(reach_case.note, config), reach_case.default_whole,
                     reach_case.optin_whole};
  }
  return {};
}

std::string RenderNote(std::string_view note, const ModelConfig& config) {
  static constexpr std::string_view kModelType = "{model_type}";
  static constexpr std::string_view kRopeType = "{rope_type}";
  std::string out;
  out.reserve(note.size());
  size_t i = 0;
  while (i < note.size()) {
    if (note.substr(i, kModelType.size()) == kModelType) {
      out += config.model_type;
      i += kModelType.size();
    } else if (note.substr(i, kRopeType.size()) == kRopeType) {
      out += config.rope_type;
      i += kRopeType.size();
    } else {
      out += note[i++];
    }
  }
  return out;
}

}  // namespace decodeprof::analysis
