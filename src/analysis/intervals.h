// Busy time and idle-gap attribution over the decode window (seed spec 2.5, 2.9).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "src/analysis/pack.h"
#include "src/base/status.h"
#include "src/trace/dispatch.h"

namespace decodeprof::analysis {

// Length of the union of the dispatches' intervals, each clipped to [lo, hi]. `dispatches`
// must be in start order. Clipped intervals with end <= start are skipped; touching
// intervals merge. {0–10, 5–15, 20–30} → 25 in [0, 100] and 12 in [8, 25].
trace::DurationNs BusyUnion(std::span<const trace::Dispatch> dispatches, trace::TimestampNs lo,
                            trace::TimestampNs hi);

// Idle time of the window charged to roles: every idle stretch goes to the role of the
// dispatch that ends it, the stretch after the last dispatch to `tail`.
struct GapAttribution {
  // Per role, in first-appearance order (kNoRole = "unattributed"); an entry exists for every
  // role that occurs, even when its gap is 0.
  std::vector<std::pair<RoleId, trace::DurationNs>> per_role;
  trace::DurationNs tail = 0;
  trace::DurationNs total() const;
};

// `roles[i]` is the role of `dispatches[i]` (start order, all starting in the window). The
// values sum exactly to (hi − lo) − BusyUnion(...). Mismatched lengths → kInternal
// "<n> dispatches but <m> roles".
base::StatusOr<GapAttribution> AttributeGaps(std::span<const trace::Dispatch> dispatches,
                                             std::span<const RoleId> roles, trace::TimestampNs lo,
                                             trace::TimestampNs hi);

// The idle time charged to each dispatch by AttributeGaps' rule (the stretch it ends), one
// value per dispatch in the same order; the tail is in no entry. {10–20, 15–30, 40–50, 45–48,
// 60–70} in [0, 100] → {10, 0, 10, 0, 10}.
std::vector<trace::DurationNs> GapEndedByEach(std::span<const trace::Dispatch> dispatches,
                                              trace::TimestampNs lo, trace::TimestampNs hi);

}  // namespace decodeprof::analysis
