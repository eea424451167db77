// `decodeprof summarize --ranks TRACE...`: the traces of one multi-process run (a
// tensor-parallel decode under torchrun, recorded with `decodeprof record --follow-fork`:
// one FILE.<pid>.sqlite per rank) summarized together, one summary per rank, each with its
// `rank` object and a `collectives` object computed across the set: the collective kernels'
// time per token and how much of it each rank spent waiting for the slowest one
// (analysis/ranks.h; docs/multi-gpu.md).
//
// Each trace is summarized as `summarize --trace` would (its own window, pack, units), into
// <out-dir>/<name>_rank<R>_summary.json and <name>_rank<R>_decode_kernels.csv (and
// _decode_dispatches.csv with --emit-dispatches); the summary's `name` is <name>_rank<R>
// and its rank.group is <name>. Collectives are the window's dispatches of class
// kCollectiveClass; the i-th of every rank is matched with the i-th of the others.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/base/status.h"
#include "src/pipeline/summarize_run.h"

namespace decodeprof::pipeline {

// The class of the collective kernels, in every pack that has them (pytorch-cuda,
// pytorch-rocm; docs/packs.md).
inline constexpr std::string_view kCollectiveClass = "communication";

struct SummarizeRanksRequest {
  // Every option of a one-trace summarize except trace, log, plain_logs and device, which
  // must be empty (kUsage otherwise); `name` names the set.
  SummarizeRequest base;
  std::vector<std::string> traces;  // at least one
};

struct SummarizeRanksResult {
  std::vector<SummarizeResult> ranks;  // by rank
  std::vector<std::string> notes;      // each rank's notes, "rank R: " before each
};

// Runs the job: nothing is written unless every rank was computed and the set is one run.
// Errors: the options above (kUsage); a trace's own summarize errors; kData, where = the
// trace: no rank in its metadata; a world_size other than the first trace's; a rank given
// twice (the same file twice, too); a run_id other than the first trace's (traces of
// different runs); a world size that the traces do not fill ("rank 1 of 2 is missing").
// A window whose collectives differ in number from the other ranks' is no error: every
// summary gets a collective_count_mismatch warning and no wait figures.
base::StatusOr<SummarizeRanksResult> RunSummarizeRanks(const SummarizeRanksRequest& request);

}  // namespace decodeprof::pipeline
