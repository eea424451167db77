#include <algorithm>
#include <array>

#include "src/base/parallel.h"
#include "src/base/spill.h"
#include "src/trace/trace.h"

namespace decodeprof::trace {

LaunchIndex::LaunchIndex(std::span<const ApiCall> launches) : calls_(launches) {
  // Recorders write launches in correlation order, one call per id: then the index is the
  // calls themselves (no copy of millions).
  // (Checked in parts on several threads, each pair once: a part checks its calls against
  // their next.)
  std::array<bool, base::kMaxPassParts> part_increasing{};
  const size_t pairs = launches.empty() ? 0 : launches.size() - 1;
  const size_t parts = base::ForParts(pairs, base::kMinPassPart, [&](size_t k, size_t b, size_t e) {
    bool increasing = true;
    base::spill::ReleaseBehind<ApiCall> read(launches.data(), b);
    for (size_t i = b; i < e && increasing; ++i) {
      read.Passed(i);
      increasing = launches[i].correlation < launches[i + 1].correlation;
    }
    part_increasing[k] = increasing;
  });
  const bool strictly_increasing =
      std::all_of(part_increasing.begin(), part_increasing.begin() + static_cast<ptrdiff_t>(parts),
                  [](bool increasing) { return increasing; });
  if (strictly_increasing && (launches.empty() || launches.front().correlation != 0)) return;
  owned_.assign(launches.begin(), launches.end());
  const auto before = [](const ApiCall& a, const ApiCall& b) {
    return a.correlation != b.correlation ? a.correlation < b.correlation : a.start < b.start;
  };
  if (!std::is_sorted(owned_.begin(), owned_.end(), before)) {
    std::stable_sort(owned_.begin(), owned_.end(), before);
  }
  owned_.erase(std::unique(owned_.begin(), owned_.end(),
                           [](const ApiCall& a, const ApiCall& b) {
                             return a.correlation == b.correlation;
                           }),
               owned_.end());
  if (!owned_.empty() && owned_.front().correlation == 0) owned_.erase(owned_.begin());
  calls_ = owned_;
}

const ApiCall* LaunchIndex::Find(uint64_t correlation) const {
  if (correlation == 0) return nullptr;
  const auto it =
      std::lower_bound(calls_.begin(), calls_.end(), correlation,
                       [](const ApiCall& call, uint64_t id) { return call.correlation < id; });
  return it != calls_.end() && it->correlation == correlation ? &*it : nullptr;
}

const ApiCall* LaunchIndex::Find(uint64_t correlation, size_t& hint) const {
  if (correlation == 0) return nullptr;
  const size_t n = calls_.size();
  if (hint < n && calls_[hint].correlation <= correlation) {
    const size_t stop = std::min(n, hint + 8);
    size_t i = hint;
    while (i < stop && calls_[i].correlation < correlation) ++i;
    if (i < stop || stop == n) {  // calls_[i] is the first not before `correlation`
      hint = i;
      return i < n && calls_[i].correlation == correlation ? &calls_[i] : nullptr;
    }
  }
  const auto it =
      std::lower_bound(calls_.begin(), calls_.end(), correlation,
                       [](const ApiCall& call, uint64_t id) { return call.correlation < id; });
  hint = static_cast<size_t>(it - calls_.begin());
  return it != calls_.end() && it->correlation == correlation ? &*it : nullptr;
}

}  // namespace decodeprof::trace
