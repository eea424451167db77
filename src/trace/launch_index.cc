#include <algorithm>

#include "src/trace/trace.h"

namespace decodeprof::trace {

LaunchIndex::LaunchIndex(std::span<const ApiCall> launches)
    : calls_(launches.begin(), launches.end()) {
  std::stable_sort(calls_.begin(), calls_.end(), [](const ApiCall& a, const ApiCall& b) {
    return a.correlation != b.correlation ? a.correlation < b.correlation : a.start < b.start;
  });
  calls_.erase(std::unique(calls_.begin(), calls_.end(),
                           [](const ApiCall& a, const ApiCall& b) {
                             return a.correlation == b.correlation;
                           }),
               calls_.end());
  if (!calls_.empty() && calls_.front().correlation == 0) calls_.erase(calls_.begin());
}

const ApiCall* LaunchIndex::Find(uint64_t correlation) const {
  if (correlation == 0) return nullptr;
  const auto it =
      std::lower_bound(calls_.begin(), calls_.end(), correlation,
                       [](const ApiCall& call, uint64_t id) { return call.correlation < id; });
  return it != calls_.end() && it->correlation == correlation ? &*it : nullptr;
}

}  // namespace decodeprof::trace
