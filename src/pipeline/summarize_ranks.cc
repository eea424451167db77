#include "src/pipeline/summarize_ranks.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "src/analysis/ranks.h"
#include "src/base/file_io.h"
#include "src/base/py_format.h"

namespace decodeprof::pipeline {
namespace {

base::Status CheckRanksRequest(const SummarizeRanksRequest& req) {
  if (req.traces.empty()) return base::UsageError("--ranks needs at least one trace");
  const SummarizeRequest& b = req.base;
  if (!b.trace.empty()) return base::UsageError("--ranks and --trace do not go together");
  if (!b.log.empty() || !b.plain_logs.empty()) {
    return base::UsageError("--log and --plain-log do not go with --ranks",
                            "the decode window of each rank comes from its decodeprof:* ranges");
  }
  if (b.device) {
    return base::UsageError("--device does not go with --ranks",
                            "each rank's trace holds the one device it ran on");
  }
  DP_RETURN_IF_ERROR(base::CheckOutputName(b.name, "--name"));
  if (b.out_dir == base::kStdout) {
    return base::UsageError("--out-dir - : summarize writes several files, not standard output",
                            "name a directory (./- for one called '-')");
  }
  return base::OkStatus();
}

// The checks that make the traces one run: every rank known, one world size, one run, each
// rank once, every rank of the world there.
base::Status CheckOneRun(const std::vector<std::string>& traces,
                         const std::vector<ComputedRun>& runs) {
  const std::string& first = traces.front();
  const std::optional<trace::RankInfo>& r0 = runs.front().info().rank;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::optional<trace::RankInfo>& r = runs[i].info().rank;
    if (!r) {
      return base::DataError(traces[i], "no rank in the trace's metadata (meta rank)",
                             "record each rank with `decodeprof record --follow-fork -- torchrun "
                             "...` (docs/multi-gpu.md)");
    }
    if (r->world_size != r0->world_size) {
      const auto size = [](const std::optional<int32_t>& w) {
        return w ? std::to_string(*w) : std::string("unknown");
      };
      return base::DataError(traces[i], "world_size " + size(r->world_size) + ", but " + first +
                                            " has world_size " + size(r0->world_size));
    }
    if (r->run_id != r0->run_id) {
      return base::DataError(traces[i],
                             "a trace of another run: run_id '" + r->run_id + "', but " + first +
                                 " has '" + r0->run_id + "'",
                             "give --ranks the traces of one `decodeprof record`");
    }
    for (size_t k = 0; k < i; ++k) {
      if (runs[k].info().rank->rank == r->rank) {
        return base::DataError(traces[i], "rank " + std::to_string(r->rank) +
                                              " again (it is also " + traces[k] + "'s)");
      }
    }
  }
  if (r0->world_size && static_cast<int64_t>(runs.size()) != *r0->world_size) {
    for (int32_t want = 0; want < *r0->world_size; ++want) {
      const bool found = std::any_of(runs.begin(), runs.end(), [&](const ComputedRun& run) {
        return run.info().rank->rank == want;
      });
      if (!found) {
        return base::DataError(first, "rank " + std::to_string(want) + " of " +
                                          std::to_string(*r0->world_size) +
                                          " is missing: give --ranks every rank's trace");
      }
    }
  }
  return base::OkStatus();
}

// The window's dispatches of class kCollectiveClass, by start.
analysis::RankCollectives CollectivesOf(const ComputedRun& run) {
  analysis::RankCollectives out;
  out.rank = run.info().rank->rank;
  const std::vector<std::string>& names = run.pack().class_names();
  const auto it = std::find(names.begin(), names.end(), kCollectiveClass);
  if (it == names.end()) return out;
  const auto id = static_cast<analysis::ClassId>(it - names.begin());
  const trace::DispatchVector& dispatches = run.window().dispatches;
  const std::span<const analysis::ClassId> classes = run.classes();
  for (size_t i = 0; i < dispatches.size() && i < classes.size(); ++i) {
    if (classes[i] == id) out.collectives.push_back({dispatches[i].start, dispatches[i].end});
  }
  return out;
}

// ns of the window per token it stands for (analysis::WindowTokens), in ms to 4 places (the
// summary's *_ms_per_token).
std::optional<double> MsPerToken(std::optional<trace::DurationNs> ns,
                                 const std::optional<double>& tokens) {
  if (!ns || !tokens || *tokens <= 0) return std::nullopt;
  return base::PyRound(static_cast<double>(*ns) / 1e6 / *tokens, 4);
}

}  // namespace

base::StatusOr<SummarizeRanksResult> RunSummarizeRanks(const SummarizeRanksRequest& req) {
  DP_RETURN_IF_ERROR(CheckRanksRequest(req));
  std::vector<ComputedRun> runs(req.traces.size());
  for (size_t i = 0; i < req.traces.size(); ++i) {
    SummarizeRequest one = req.base;
    one.trace = req.traces[i];
    DP_RETURN_IF_ERROR(ComputeRun(one, runs[i]));
  }
  DP_RETURN_IF_ERROR(CheckOneRun(req.traces, runs));

  std::vector<size_t> order(runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return runs[a].info().rank->rank < runs[b].info().rank->rank;
  });
  std::vector<analysis::RankCollectives> collectives;
  for (const size_t i : order) collectives.push_back(CollectivesOf(runs[i]));
  const analysis::CrossRankCollectives cross = analysis::AnalyzeCollectives(collectives);

  SummarizeRanksResult result;
  std::vector<SummarizeRequest> requests;
  for (size_t k = 0; k < order.size(); ++k) {
    ComputedRun& run = runs[order[k]];
    const analysis::RankCollectiveCost& cost = cross.ranks[k];
    analysis::Summary& s = run.result.summary;
    SummarizeRequest one = req.base;
    one.trace = req.traces[order[k]];
    one.name = req.base.name + "_rank" + std::to_string(cost.rank);
    s.name = one.name;
    s.rank->group = req.base.name;
    analysis::CollectiveFields& c = s.collectives.emplace();
    c.count = cost.count;
    c.matched = cross.matched;
    const std::optional<double> tokens = analysis::WindowTokens(s);
    c.total_ms_per_token = MsPerToken(cost.total_ns, tokens);
    c.wait_ms_per_token = MsPerToken(cost.wait_ns, tokens);
    c.transfer_ms_per_token = MsPerToken(cost.transfer_ns, tokens);
    const trace::DurationNs wall = run.window().hi - run.window().lo;
    if (wall > 0) {
      c.pct_of_wall =
          base::PyRound(100.0 * static_cast<double>(cost.total_ns) / static_cast<double>(wall), 2);
    }
    c.slowest_rank = cross.slowest_rank;
    if (!cross.matched) {
      run.AddDiagnostic(trace::Diag::kCollectiveCountMismatch, 1, {one.trace, "", cross.mismatch});
    }
    for (const std::string& note : run.result.notes) {
      result.notes.push_back("rank " + std::to_string(cost.rank) + ": " + note);
    }
    DP_RETURN_IF_ERROR(CheckSummarizeOutputs(one));
    requests.push_back(std::move(one));
  }
  if (std::all_of(cross.ranks.begin(), cross.ranks.end(),
                  [](const analysis::RankCollectiveCost& r) { return r.count == 0; })) {
    result.notes.push_back("no collective kernels (class " + std::string(kCollectiveClass) +
                           ") in the decode windows");
  }
  // Every rank's outputs, or none.
  for (size_t k = 0; k < order.size(); ++k) {
    ComputedRun& run = runs[order[k]];
    if (base::Status status = WriteComputedRun(requests[k], run); !status.ok()) {
      for (size_t j = 0; j < k; ++j) {
        for (const std::string& path : runs[order[j]].result.written) {
          std::filesystem::remove(path);
        }
      }
      return status;
    }
  }
  for (const size_t i : order) result.ranks.push_back(std::move(runs[i].result));
  return result;
}

}  // namespace decodeprof::pipeline
