// Cross-rank analysis of a tensor-parallel decode: one trace per rank (process), recorded on
// one host, whose collective kernels (NCCL's all-reduce, ...) meet once per block. A rank's
// collective kernel starts when that rank launches it and ends when every rank has arrived
// and the data moved, so a collective's time on the rank that arrived first holds its wait
// for the last one. This module splits that time into wait and transfer (docs/multi-gpu.md).
//
// Inputs are the collective kernels of each rank's decode window, in start order. CUPTI
// timestamps of processes on one host are on one clock (CLOCK_MONOTONIC through the
// recorder's timestamp callback), so starts compare across ranks. Nothing here knows which
// kernels are collectives: the caller picks them by class (pipeline::kCollectiveClass).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "src/trace/dispatch.h"

namespace decodeprof::analysis {

// One collective kernel on one rank.
struct CollectiveInterval {
  trace::TimestampNs start = 0;
  trace::TimestampNs end = 0;  // >= start
};

// The collectives of one rank's decode window, by start.
struct RankCollectives {
  int32_t rank = 0;
  std::vector<CollectiveInterval> collectives;
};

// What one rank's collectives cost it.
struct RankCollectiveCost {
  int32_t rank = 0;
  int64_t count = 0;
  trace::DurationNs total_ns = 0;  // sum of the collectives' durations
  // Sum over the collectives of (latest start over the ranks − this rank's start), each
  // clipped to [0, the collective's duration on this rank]: the time spent waiting for the
  // last rank to arrive. nullopt when the ranks' collectives cannot be matched (below).
  std::optional<trace::DurationNs> wait_ns;
  std::optional<trace::DurationNs> transfer_ns;  // total − wait
};

struct CrossRankCollectives {
  // One entry per input, in input order.
  std::vector<RankCollectiveCost> ranks;
  // The i-th collective of every rank is taken to be the same operation (collectives are
  // issued in one order on every rank of a tensor-parallel group). When the counts differ
  // the match is unknown: `matched` is false, `mismatch` says the counts ("rank 0: 64
  // collectives, rank 1: 63") and no wait is computed.
  bool matched = true;
  std::string mismatch;
  // The rank the others waited for: the one with the least total wait (the latest to
  // arrive); ties go to the lowest rank number. nullopt when not matched or without any
  // collective.
  std::optional<int32_t> slowest_rank;
};

// Matches the i-th collective across `ranks` and computes each rank's cost. Ranks need not
// be sorted; an empty span gives an empty result.
CrossRankCollectives AnalyzeCollectives(std::span<const RankCollectives> ranks);

}  // namespace decodeprof::analysis
