// Busy time and idle-gap attribution over the decode window (seed spec 2.5, 2.9).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "src/analysis/pack.h"
#include "src/base/parallel.h"
#include "src/base/status.h"
#include "src/trace/dispatch.h"

namespace decodeprof::analysis {

// A pass over dispatches in start order cut into parts (base::ForParts), each with the latest
// min(end, hi) of its dispatches (`lo` for none). A second pass over the same parts
// (base::RunParts) starts part p from FrontierBefore(p): the latest end, clipped to hi, of
// every dispatch before it, as one pass in order would have it there.
struct FrontierParts {
  struct Part {
    size_t begin = 0;
    size_t end = 0;
    trace::TimestampNs reach = 0;
  };
  std::array<Part, base::kMaxPassParts> part;
  size_t count = 0;
  trace::TimestampNs FrontierBefore(size_t p, trace::TimestampNs lo) const;
};
FrontierParts ReachOfParts(std::span<const trace::Dispatch> dispatches, trace::TimestampNs lo,
                           trace::TimestampNs hi);

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
