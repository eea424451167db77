#include "src/analysis/speed_of_light.h"

#include <algorithm>
#include <cmath>

#include "src/analysis/intervals.h"
#include "src/base/py_format.h"

namespace decodeprof::analysis {
namespace {

using trace::DurationNs;

bool Contains(const std::vector<ClassId>& v, ClassId c) {
  return std::find(v.begin(), v.end(), c) != v.end();
}
bool Contains(const std::vector<RoleId>& v, RoleId r) {
  return r != kNoRole && std::find(v.begin(), v.end(), r) != v.end();
}

double BytesOf(const SpeedOfLightInputs& in, std::string_view kind) {
  double sum = 0;
  for (const auto& [k, bytes] : in.bytes_by_kind) {
    if (k == kind) sum += bytes;
  }
  return sum;
}

}  // namespace

bool IsMovableBytes(std::string_view name) {
  return std::find(kMovableBytes.begin(), kMovableBytes.end(), name) != kMovableBytes.end();
}

std::string MovableBytesList() {
  std::string out;
  for (std::string_view k : kMovableBytes) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

base::StatusOr<SpeedOfLight> ComputeSpeedOfLight(const SpeedOfLightInputs& inputs,
                                                 const SummaryInputs& in,
                                                 const Attribution& attribution) {
  const DecodeWindow& window = *in.window;
  const auto& decode = window.dispatches;
  if (inputs.steps <= 0) {
    return base::DataError("speed of light", "the window holds no decode step to divide by");
  }
  if (!(inputs.peak_gbps > 0)) {
    return base::DataError("speed of light", "no peak bandwidth to divide by");
  }
  const auto& class_names = in.pack->class_names();
  const auto& moves = in.pack->class_moves();
  const size_t n_classes = class_names.size();

  // Kernel time per class and per (unit, class) over the window.
  std::vector<double> class_ns(n_classes, 0);
  DurationNs gpu_sum = 0;
  for (size_t i = 0; i < decode.size(); ++i) {
    class_ns[attribution.classes[i]] += static_cast<double>(decode[i].duration());
    gpu_sum += decode[i].duration();
  }
  const DurationNs busy = BusyUnion(decode, window.lo, window.hi);
  const DurationNs wall = window.hi - window.lo;
  if (wall <= 0) return base::DataError("speed of light", "the decode window has no time");

  // The byte kinds each class moves; a kind's bytes go to the classes that move it, in
  // proportion to their time (nothing finer is known of which kernel reads which tensor).
  std::vector<double> kind_claim_ns(kMovableBytes.size(), 0);
  for (size_t c = 0; c < n_classes && c < moves.size(); ++c) {
    for (const std::string& kind : moves[c]) {
      const auto k = static_cast<size_t>(
          std::find(kMovableBytes.begin(), kMovableBytes.end(), kind) - kMovableBytes.begin());
      if (k < kMovableBytes.size()) kind_claim_ns[k] += class_ns[c];
    }
  }
  // Bytes per step a class moves, and per ns of its time (for units' shares).
  std::vector<double> class_bytes(n_classes, 0);
  for (size_t c = 0; c < n_classes && c < moves.size(); ++c) {
    for (const std::string& kind : moves[c]) {
      const auto k = static_cast<size_t>(
          std::find(kMovableBytes.begin(), kMovableBytes.end(), kind) - kMovableBytes.begin());
      if (k >= kMovableBytes.size() || kind_claim_ns[k] <= 0) continue;
      class_bytes[c] += BytesOf(inputs, kind) * class_ns[c] / kind_claim_ns[k];
    }
  }

  SpeedOfLight out;
  out.in = inputs;
  const double steps = inputs.steps;
  const double peak_bytes_per_ms = inputs.peak_gbps * 1e6;  // GB/s = 1e9 B/s = 1e6 B/ms
  out.bytes_per_token = inputs.weight_bytes + inputs.kv_bytes + inputs.state_bytes;
  out.floor_ms_per_token = out.bytes_per_token / peak_bytes_per_ms;
  out.wall_ms_per_token = static_cast<double>(wall) / 1e6 / steps;
  out.achieved_gbps = out.bytes_per_token / out.wall_ms_per_token / 1e6;
  out.mbu_pct = 100.0 * out.floor_ms_per_token / out.wall_ms_per_token;
  out.to_the_floor =
      out.floor_ms_per_token > 0 ? out.wall_ms_per_token / out.floor_ms_per_token : 0;
  if (out.mbu_pct > 100.0) {
    return base::DataError(
        inputs.model_source,
        "the decode moved " + base::FormatFixed(out.bytes_per_token / 1e9, 3) + " GB a step in " +
            base::FormatFixed(out.wall_ms_per_token, 4) + " ms, " +
            base::FormatFixed(out.achieved_gbps, 1) + " GB/s, above the peak of " +
            base::FormatFixed(inputs.peak_gbps, 1) + " GB/s (" + inputs.peak_detail +
            "): the model's bytes or the peak are wrong for this run");
  }

  for (size_t c = 0; c < n_classes && c < moves.size(); ++c) {
    if (moves[c].empty() || class_ns[c] <= 0) continue;
    SpeedOfLightClass sc;
    sc.name = class_names[c];
    sc.moves = moves[c];
    sc.bytes_per_token = class_bytes[c];
    sc.ms_per_token = class_ns[c] / 1e6 / steps;
    sc.floor_ms_per_token = class_bytes[c] / peak_bytes_per_ms;
    sc.achieved_gbps = sc.bytes_per_token / sc.ms_per_token / 1e6;
    sc.pct_of_peak = 100.0 * *sc.achieved_gbps / inputs.peak_gbps;
    if (*sc.pct_of_peak > 100.0) {
      out.notes.push_back("class " + sc.name + " would move its bytes above the peak (" +
                          base::FormatFixed(*sc.pct_of_peak, 1) +
                          " %): other classes' kernels read part of what it is given");
    }
    out.classes.push_back(std::move(sc));
  }
  for (size_t k = 0; k < kMovableBytes.size(); ++k) {
    const double bytes = BytesOf(inputs, kMovableBytes[k]);
    if (bytes > 0 && kind_claim_ns[k] <= 0) {
      out.notes.push_back(std::string(kMovableBytes[k]) + " (" + base::FormatFixed(bytes / 1e6, 1) +
                          " MB a step) is moved by no kernel class of pack " + in.pack->name() +
                          " in this window: it counts in the floor, in no class");
    }
  }

  // Units: each unit's own figures (its dispatches: a fallback role or one of its classes),
  // and the decomposition, where a dispatch counts for the first unit that holds it.
  const auto& units = in.units->units();
  std::vector<int32_t> first_unit(decode.size(), -1);
  for (size_t u = 0; u < units.size(); ++u) {
    const Unit& unit = units[u];
    bool classes_count = unit.requires_classes.empty();
    for (size_t i = 0; i < decode.size() && !classes_count; ++i) {
      classes_count = Contains(unit.requires_classes, attribution.classes[i]);
    }
    double unit_ns = 0;
    double unit_bytes = 0;
    for (size_t i = 0; i < decode.size(); ++i) {
      const ClassId c = attribution.classes[i];
      if (!Contains(unit.fallback_roles, attribution.roles[i]) &&
          !(classes_count && Contains(unit.classes, c))) {
        continue;
      }
      const auto ns = static_cast<double>(decode[i].duration());
      unit_ns += ns;
      if (class_ns[c] > 0) unit_bytes += class_bytes[c] * ns / class_ns[c];
      if (first_unit[i] < 0) first_unit[i] = static_cast<int32_t>(u);
    }
    SpeedOfLightUnit su;
    su.id = unit.id;
    su.bytes_per_token = unit_bytes;
    su.ms_per_token = unit_ns / 1e6 / steps;
    su.floor_ms_per_token = unit_bytes / peak_bytes_per_ms;
    su.excess_ms_per_token = std::max(0.0, su.ms_per_token - su.floor_ms_per_token);
    const double rest = out.wall_ms_per_token - su.excess_ms_per_token;
    su.ceiling_to_floor = rest > 0 ? out.wall_ms_per_token / rest : 1.0;
    out.units.push_back(std::move(su));
  }
  std::vector<double> unit_ns(units.size(), 0);
  std::vector<double> unit_bytes(units.size(), 0);
  for (size_t i = 0; i < decode.size(); ++i) {
    if (first_unit[i] < 0) continue;
    const auto u = static_cast<size_t>(first_unit[i]);
    const ClassId c = attribution.classes[i];
    const auto ns = static_cast<double>(decode[i].duration());
    unit_ns[u] += ns;
    if (class_ns[c] > 0) unit_bytes[u] += class_bytes[c] * ns / class_ns[c];
  }
  out.floor = out.floor_ms_per_token;
  double units_excess = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    const double excess = unit_ns[u] / 1e6 / steps - unit_bytes[u] / peak_bytes_per_ms;
    out.unit_excess.emplace_back(units[u].id, excess);
    units_excess += excess;
  }
  const double sum_ms = static_cast<double>(gpu_sum) / 1e6 / steps;
  out.overlap = static_cast<double>(busy - gpu_sum) / 1e6 / steps;
  out.host_gap = static_cast<double>(wall - busy) / 1e6 / steps;
  // The rest of the kernels' time over the rest of the floor (bytes no unit's kernels move
  // included), so that the parts add up to the wall.
  out.other_kernels = sum_ms - out.floor - units_excess;
  for (const std::string& note : inputs.notes) out.notes.push_back(note);
  return out;
}

}  // namespace decodeprof::analysis
