#include "src/analysis/intervals.h"

#include <algorithm>
#include <array>
#include <string>

#include "src/base/parallel.h"
#include "src/base/spill.h"

namespace decodeprof::analysis {

FrontierParts ReachOfParts(std::span<const trace::Dispatch> dispatches, trace::TimestampNs lo,
                           trace::TimestampNs hi) {
  FrontierParts parts;
  parts.count =
      base::ForParts(dispatches.size(), base::kMinPassPart, [&](size_t p, size_t b, size_t e) {
        trace::TimestampNs reach = lo;
        base::spill::ReleaseBehind<trace::Dispatch> behind(dispatches.data(), b);
        for (size_t i = b; i < e; ++i) {
          behind.Passed(i);
          reach = std::max(reach, std::min(dispatches[i].end, hi));
        }
        parts.part[p] = FrontierParts::Part{b, e, reach};
      });
  return parts;
}

trace::TimestampNs FrontierParts::FrontierBefore(size_t p, trace::TimestampNs lo) const {
  trace::TimestampNs frontier = lo;
  for (size_t q = 0; q < p; ++q) frontier = std::max(frontier, part[q].reach);
  return frontier;
}

// The union's length as the sum over the dispatches of what each adds past the frontier (the
// latest end before it): in start order that is the merged segments' total, and it splits
// into parts exactly.
trace::DurationNs BusyUnion(std::span<const trace::Dispatch> dispatches, trace::TimestampNs lo,
                            trace::TimestampNs hi) {
  const FrontierParts parts = ReachOfParts(dispatches, lo, hi);
  std::array<trace::DurationNs, base::kMaxPassParts> busy{};
  base::RunParts(parts.count, [&](size_t p) {
    trace::TimestampNs frontier = parts.FrontierBefore(p, lo);
    trace::DurationNs sum = 0;
    base::spill::ReleaseBehind<trace::Dispatch> behind(dispatches.data(), parts.part[p].begin);
    for (size_t i = parts.part[p].begin; i < parts.part[p].end; ++i) {
      behind.Passed(i);
      const trace::TimestampNs s = std::max(dispatches[i].start, lo);
      const trace::TimestampNs e = std::min(dispatches[i].end, hi);
      sum += std::max<trace::DurationNs>(0, e - std::max(s, frontier));
      frontier = std::max(frontier, e);
    }
    busy[p] = sum;
  });
  trace::DurationNs total = 0;
  for (size_t p = 0; p < parts.count; ++p) total += busy[p];
  return total;
}

trace::DurationNs GapAttribution::total() const {
  trace::DurationNs sum = tail;
  for (const auto& [role, ns] : per_role) sum += ns;
  return sum;
}

base::StatusOr<GapAttribution> AttributeGaps(std::span<const trace::Dispatch> dispatches,
                                             std::span<const RoleId> roles, trace::TimestampNs lo,
                                             trace::TimestampNs hi) {
  if (dispatches.size() != roles.size()) {
    return base::InternalError("attribute_gaps", std::to_string(dispatches.size()) +
                                                     " dispatches but " +
                                                     std::to_string(roles.size()) + " roles");
  }
  // In parts, each charging the stretches its dispatches end from the frontier the parts
  // before it leave, its roles in their first-appearance order; merged in part order.
  const FrontierParts parts = ReachOfParts(dispatches, lo, hi);
  std::array<GapAttribution, base::kMaxPassParts> charged;
  base::RunParts(parts.count, [&](size_t p) {
    GapAttribution& out = charged[p];
    // Roles are small dense ids: index their slot in per_role (+1 shifts kNoRole to 0).
    std::vector<int32_t> slot;
    trace::TimestampNs frontier = parts.FrontierBefore(p, lo);
    base::spill::ReleaseBehind<trace::Dispatch> behind(dispatches.data(), parts.part[p].begin);
    for (size_t i = parts.part[p].begin; i < parts.part[p].end; ++i) {
      behind.Passed(i);
      const trace::Dispatch& d = dispatches[i];
      const size_t key = static_cast<size_t>(roles[i] + 1);
      if (key >= slot.size()) slot.resize(key + 1, -1);
      if (slot[key] < 0) {
        slot[key] = static_cast<int32_t>(out.per_role.size());
        out.per_role.emplace_back(roles[i], 0);
      }
      out.per_role[static_cast<size_t>(slot[key])].second +=
          std::max<trace::DurationNs>(0, std::min(d.start, hi) - frontier);
      frontier = std::max(frontier, std::min(d.end, hi));
    }
  });
  GapAttribution out;
  for (size_t p = 0; p < parts.count; ++p) {
    for (const auto& [role, ns] : charged[p].per_role) {
      const auto it = std::find_if(out.per_role.begin(), out.per_role.end(),
                                   [role = role](const auto& e) { return e.first == role; });
      if (it == out.per_role.end()) {
        out.per_role.emplace_back(role, ns);
      } else {
        it->second += ns;
      }
    }
  }
  out.tail = std::max<trace::DurationNs>(0, hi - parts.FrontierBefore(parts.count, lo));
  return out;
}

std::vector<trace::DurationNs> GapEndedByEach(std::span<const trace::Dispatch> dispatches,
                                              trace::TimestampNs lo, trace::TimestampNs hi) {
  std::vector<trace::DurationNs> out;
  out.reserve(dispatches.size());
  trace::TimestampNs frontier = lo;
  for (const trace::Dispatch& d : dispatches) {
    out.push_back(std::max<trace::DurationNs>(0, std::min(d.start, hi) - frontier));
    frontier = std::max(frontier, std::min(d.end, hi));
  }
  return out;
}

}  // namespace decodeprof::analysis
