// Work units as data (seed spec 2.8): each unit names the roles it would replace, and an
// ordered list of reach cases says, per model config and sampling mode, which roles the
// shipped defaults and the opt-in switches reach. The first case whose conditions all hold
// wins; a unit with no matching case reaches nothing and has an empty note. A case may reach
// the whole unit, which is how a unit's classes and owned host time are reached.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/units.h"

namespace decodeprof::analysis {

struct ReachCase {
  // Conditions; an empty list / nullopt does not constrain.
  std::vector<std::string> model_types;  // config.model_type is one of them
  std::vector<std::string> rope_types;   // config.rope_type is one of them
  std::optional<bool> sampled;           // the run's sampling mode equals it
  // Outcome. `*_whole`: the set is the whole unit (its roles, classes and owned host time;
  // written `default = "all"`), and the role list is then ignored.
  std::vector<RoleId> default_roles;
  std::vector<RoleId> optin_roles;
  bool default_whole = false;
  bool optin_whole = false;
  std::string note;  // template: {model_type} and {rope_type} are replaced
};

struct UnitSpec {
  Unit unit;
  std::vector<ReachCase> cases;
};

class DataUnitTable final : public UnitTable {
 public:
  explicit DataUnitTable(std::vector<UnitSpec> specs);

  const std::vector<Unit>& units() const override { return units_; }
  // An index out of range reaches nothing (empty sets, empty note).
  UnitReach Reach(size_t index, const ModelConfig& config, bool sampled) const override;

 private:
  std::vector<Unit> units_;
  std::vector<std::vector<ReachCase>> cases_;
};

// True when every condition of `reach_case` holds for this config and sampling mode.
bool CaseMatches(const ReachCase& reach_case, const ModelConfig& config, bool sampled);

// `note` with every "{model_type}" and "{rope_type}" replaced by the config's values (which
// may be empty: a missing config.json gives model_type "", as in the seed). Other braces
// are kept as written.
std::string RenderNote(std::string_view note, const ModelConfig& config);

}  // namespace decodeprof::analysis
