#include "src/analysis/ranks.h"

#include <algorithm>

namespace decodeprof::analysis {

CrossRankCollectives AnalyzeCollectives(std::span<const RankCollectives> ranks) {
  CrossRankCollectives out;
  for (const RankCollectives& r : ranks) {
    RankCollectiveCost cost;
    cost.rank = r.rank;
    cost.count = static_cast<int64_t>(r.collectives.size());
    for (const CollectiveInterval& c : r.collectives) cost.total_ns += c.end - c.start;
    out.ranks.push_back(cost);
  }
  if (ranks.empty()) return out;
  const size_t count = ranks.front().collectives.size();
  for (const RankCollectives& r : ranks) out.matched = out.matched && r.collectives.size() == count;
  if (!out.matched) {
    for (const RankCollectives& r : ranks) {
      out.mismatch += (out.mismatch.empty() ? "" : ", ") + std::string("rank ") +
                      std::to_string(r.rank) + ": " + std::to_string(r.collectives.size()) +
                      " collectives";
    }
    return out;
  }
  for (RankCollectiveCost& cost : out.ranks) cost.wait_ns = 0;
  for (size_t i = 0; i < count; ++i) {
    trace::TimestampNs last_start = ranks.front().collectives[i].start;
    for (const RankCollectives& r : ranks)
      last_start = std::max(last_start, r.collectives[i].start);
    for (size_t k = 0; k < ranks.size(); ++k) {
      const CollectiveInterval& c = ranks[k].collectives[i];
      *out.ranks[k].wait_ns +=
          std::clamp(last_start - c.start, trace::DurationNs{0}, c.end - c.start);
    }
  }
  for (RankCollectiveCost& cost : out.ranks) cost.transfer_ns = cost.total_ns - *cost.wait_ns;
  if (count > 0) {
    const RankCollectiveCost* slowest = &out.ranks.front();
    for (const RankCollectiveCost& cost : out.ranks) {
      if (*cost.wait_ns < *slowest->wait_ns ||
          (*cost.wait_ns == *slowest->wait_ns && cost.rank < slowest->rank)) {
        slowest = &cost;
      }
    }
    out.slowest_rank = slowest->rank;
  }
  return out;
}

}  // namespace decodeprof::analysis
