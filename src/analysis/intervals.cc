#include "src/analysis/intervals.h"

#include <algorithm>
#include <string>

namespace decodeprof::analysis {

trace::DurationNs BusyUnion(std::span<const trace::Dispatch> dispatches, trace::TimestampNs lo,
                            trace::TimestampNs hi) {
  trace::DurationNs busy = 0;
  bool open = false;
  trace::TimestampNs seg_start = 0;
  trace::TimestampNs seg_end = 0;
  for (const trace::Dispatch& d : dispatches) {
    const trace::TimestampNs s = std::max(d.start, lo);
    const trace::TimestampNs e = std::min(d.end, hi);
    if (e <= s) continue;
    if (!open || s > seg_end) {
      if (open) busy += seg_end - seg_start;
      seg_start = s;
      seg_end = e;
      open = true;
    } else {
      seg_end = std::max(seg_end, e);
    }
  }
  if (open) busy += seg_end - seg_start;
  return busy;
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
  GapAttribution out;
  // Roles are small dense ids: index their slot in per_role (+1 shifts kNoRole to 0).
  std::vector<int32_t> slot;
  trace::TimestampNs frontier = lo;
  for (size_t i = 0; i < dispatches.size(); ++i) {
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
  out.tail = std::max<trace::DurationNs>(0, hi - frontier);
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
