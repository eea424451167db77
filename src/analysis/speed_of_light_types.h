// The speed-of-light ledger's figures (speed_of_light.h computes them; Summary carries them,
// and src/report writes and renders them). No dependency beyond the standard library.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace decodeprof::analysis {

// The byte kinds a pack's class may name in `moves` (model::ByteKindName spells the same).
inline constexpr std::array<std::string_view, 7> kMovableBytes = {
    "dense_weights", "expert_weights", "head_weights", "embedding",
    "norm_weights",  "kv_cache",       "state"};
bool IsMovableBytes(std::string_view name);
std::string MovableBytesList();  // "dense_weights, expert_weights, ..."

struct SpeedOfLightInputs {
  std::string model;  // a name for the model (its directory or file stem)
  std::string model_source;
  std::string architecture;
  std::string weight_format;
  // Bytes one step moves, per kind of kMovableBytes (at the context length); kinds absent = 0.
  std::vector<std::pair<std::string, double>> bytes_by_kind;
  double weight_bytes = 0;  // the weight kinds' sum
  double kv_bytes = 0;      // kv_cache
  double state_bytes = 0;   // state
  double context_tokens = 0;
  std::string context_source;
  double peak_gbps = 0;
  std::string peak_source;  // "measured" | "table" | "option"
  std::string peak_detail;
  double steps = 0;  // decode steps (forward passes) the window holds
  std::vector<std::string> notes;
};

struct SpeedOfLightClass {
  std::string name;
  std::vector<std::string> moves;
  double bytes_per_token = 0;
  double ms_per_token = 0;
  double floor_ms_per_token = 0;
  std::optional<double> achieved_gbps;  // null when the class took no time
  std::optional<double> pct_of_peak;
};

struct SpeedOfLightUnit {
  std::string id;
  double bytes_per_token = 0;
  double ms_per_token = 0;  // kernel time of the unit's dispatches
  double floor_ms_per_token = 0;
  double excess_ms_per_token = 0;
  double ceiling_to_floor = 1;  // wall / (wall − excess)
};

struct SpeedOfLight {
  SpeedOfLightInputs in;  // model, context and peak, as given
  double bytes_per_token = 0;
  double floor_ms_per_token = 0;
  double wall_ms_per_token = 0;
  double achieved_gbps = 0;
  double mbu_pct = 0;
  double to_the_floor = 0;  // wall / floor
  // The decomposition: floor + units (by id, each dispatch counted for the first unit that
  // holds it) + other_kernels + overlap (busy − Σ durations, ≤ 0) + host_gap = wall.
  double floor = 0;
  std::vector<std::pair<std::string, double>> unit_excess;
  double other_kernels = 0;
  double overlap = 0;
  double host_gap = 0;
  std::vector<SpeedOfLightClass> classes;  // classes that move bytes, in pack order
  std::vector<SpeedOfLightUnit> units;     // every unit, in units-file order
  std::vector<std::string> notes;
};

}  // namespace decodeprof::analysis
