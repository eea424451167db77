// Work units (the seed's "port units", spec 2.8): optimization work items, each naming the
// roles it would replace, and a reach table saying which of those roles the shipped defaults
// and the opt-in switches actually reach for a given model config and sampling mode.
// decodeprof extends the seed's units in two opt-in ways (docs/packs.md, "Writing units"):
// a unit may also name kernel classes, and it may own the whole host gap of the decode
// window instead of only the gaps charged to its roles.
#pragma once

#include <string>
#include <vector>

#include "src/analysis/pack.h"

namespace decodeprof::analysis {

// What `--model-dir DIR/config.json` says (empty strings when absent).
struct ModelConfig {
  std::string model_type;  // "" when config.json is missing or has no model_type
  std::string rope_type;   // rope_scaling.rope_type, else rope_scaling.type, else ""
};

// Which idle time of the decode window a unit's ceilings count as removable.
enum class HostGapOwnership {
  kRoles,  // the gaps charged to its own dispatches (seed spec 2.9); the default
  kAll,    // the whole host gap of the window: wall − busy (e.g. a CUDA-graph capture)
};

struct Unit {
  std::string id;                      // "2063"
  std::string port;                    // description, e.g. "fused_add_rms_norm + ..."
  std::vector<RoleId> fallback_roles;  // roles it would replace, in table order
  // Kernel classes it would replace, whatever their role; a dispatch counts once even when
  // both its role and its class are named. Empty for the seed's units.
  std::vector<ClassId> classes = {};
  HostGapOwnership host_gap = HostGapOwnership::kRoles;
  // `unless = "graph_replay"`: the work is done already when the decode's steps replay a CUDA
  // or HIP graph (a graph capture unit): such a run does not rank the unit.
  bool unless_graph_replay = false;
  // `requires = [...]`: the unit's classes count only in a window that holds a dispatch of one
  // of these classes (a MoE unit whose classes include sorts or gathers a dense model runs
  // for other reasons); empty = always.
  std::vector<ClassId> requires_classes = {};
};

struct UnitReach {
  std::vector<RoleId> default_roles;  // reached with shipped defaults
  std::vector<RoleId> optin_roles;    // reached with the opt-in switches on
  std::string note;
  // True when the set is the whole unit: its roles, and also its classes and owned host
  // time (which a list of roles cannot name).
  bool default_whole = false;
  bool optin_whole = false;
};

class UnitTable {
 public:
  virtual ~UnitTable() = default;
  virtual const std::vector<Unit>& units() const = 0;
  // Reach of units()[index] for a model config; `sampled` = temperature > 0.
  virtual UnitReach Reach(size_t index, const ModelConfig& config, bool sampled) const = 0;
};

}  // namespace decodeprof::analysis
