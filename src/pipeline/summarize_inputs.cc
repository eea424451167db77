// The inputs of ComputeRun (summarize_stages.h): the pack and units, the model config, the
// bench logs, the trace's window, the pack chosen from the kernel names, the tokens.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/py_format.h"
#include "src/base/stage_times.h"
#include "src/io/bench_log/bench_log.h"
#include "src/model/model_bytes.h"
#include "src/packs/default_pack.h"
#include "src/packs/pack_loader.h"
#include "src/pipeline/sampled_window.h"
#include "src/pipeline/summarize_stages.h"

namespace decodeprof::pipeline {
namespace {

// DIR/config.json's model_type and rope_scaling (rope_type, else type), when the file exists.
base::StatusOr<ModelInfo> ReadModelConfig(const std::string& model_dir) {
  ModelInfo info;
  if (model_dir.empty()) return info;
  std::error_code ec;
  if (!std::filesystem::is_directory(model_dir, ec)) {
    return base::IoError(model_dir, std::filesystem::exists(model_dir, ec)
                                        ? "--model-dir is not a directory"
                                        : "--model-dir does not exist");
  }
  const std::string path = (std::filesystem::path(model_dir) / "config.json").string();
  if (!std::filesystem::exists(path, ec)) {
    info.config_missing = true;  // the seed's behaviour: no model_type, no rope_scaling
    return info;
  }
  DP_ASSIGN_OR_RETURN(info.doc, model::ReadConfigJson(path));
  info.config_path = path;
  const nlohmann::json& doc = info.doc;
  analysis::ModelConfig config;
  if (doc.is_object()) {
    if (auto it = doc.find("model_type"); it != doc.end() && it->is_string()) {
      config.model_type = it->get<std::string>();
      info.model_type_present = true;
    }
    if (auto rs = doc.find("rope_scaling"); rs != doc.end() && rs->is_object()) {
      for (const char* key : {"rope_type", "type"}) {
        if (auto t = rs->find(key); t != rs->end() && t->is_string()) {
          config.rope_type = t->get<std::string>();
          break;
        }
      }
    }
  }
  info.config = config;
  return info;
}

// A units table with no unit: packs without work units still get every other figure.
class NoUnits : public analysis::UnitTable {
 public:
  const std::vector<analysis::Unit>& units() const override { return units_; }
  analysis::UnitReach Reach(size_t, const analysis::ModelConfig&, bool) const override {
    return {};
  }

 private:
  std::vector<analysis::Unit> units_;
};

// The pack `pack_name` and its units: `units_option` (--units), else the pack's default_units,
// else none.
base::Status LoadPackAndUnits(const std::string& pack_name, const std::string& units_option,
                              std::unique_ptr<analysis::Pack>& pack, std::string& units_name,
                              std::unique_ptr<analysis::UnitTable>& units) {
  DP_ASSIGN_OR_RETURN(pack, packs::LoadPack(pack_name));
  units_name = units_option.empty() ? packs::DefaultUnitsOf(*pack) : units_option;
  if (units_name.empty()) {
    units = std::make_unique<NoUnits>();
    return base::OkStatus();
  }
  DP_ASSIGN_OR_RETURN(units, packs::LoadUnits(units_name, *pack));
  return base::OkStatus();
}

// The plain logs, each a run's results; one without results is a warning (log_without_results).
base::Status ReadPlainLogs(const SummarizeRequest& req, RunInputs& inputs) {
  std::vector<trace::BenchResults> plain_runs;
  for (const std::string& path : req.plain_logs) {
    DP_ASSIGN_OR_RETURN(const trace::BenchLog plain_log, io::ParseBenchLog(path));
    plain_runs.push_back(plain_log.results);
    inputs.diagnostics.Merge(plain_log.diagnostics);
    if (!plain_log.results.decode_tok_s && !plain_log.results.generated_tokens) {
      inputs.diagnostics.Add(trace::Message<trace::Msg::kPlainLogWithoutResults>(), 1, path);
    }
  }
  inputs.plain = ChoosePlainRun(plain_runs);
  return base::OkStatus();
}

}  // namespace

PlainChoice ChoosePlainRun(const std::vector<trace::BenchResults>& plain_runs) {
  PlainChoice out;
  if (plain_runs.empty()) return out;
  std::vector<size_t> by_rate(plain_runs.size());
  for (size_t i = 0; i < by_rate.size(); ++i) by_rate[i] = i;
  std::stable_sort(by_rate.begin(), by_rate.end(), [&](size_t a, size_t b) {
    const auto& ra = plain_runs[a].decode_tok_s;
    const auto& rb = plain_runs[b].decode_tok_s;
    if (ra.has_value() != rb.has_value()) return ra.has_value();
    return ra && *ra < *rb;
  });
  size_t rated = 0;
  for (const trace::BenchResults& r : plain_runs) rated += r.decode_tok_s ? 1u : 0u;
  const size_t used = by_rate[rated > 0 ? (rated - 1) / 2 : 0];
  out.used = plain_runs[used];
  analysis::PlainRuns p;
  p.count = static_cast<int64_t>(plain_runs.size());
  for (const trace::BenchResults& r : plain_runs) p.decode_tok_s.push_back(r.decode_tok_s);
  p.used = static_cast<int64_t>(used);
  if (rated >= 2 && *out.used->decode_tok_s > 0) {
    const double lo = *plain_runs[by_rate.front()].decode_tok_s;
    const double hi = *plain_runs[by_rate[rated - 1]].decode_tok_s;
    p.spread_pct = base::PyRound(100 * (hi - lo) / *out.used->decode_tok_s, 2);
  }
  out.summary = p;
  if (rated >= 2) out.extremes = {plain_runs[by_rate.front()], plain_runs[by_rate[rated - 1]]};
  return out;
}

base::Status ReadInputs(const SummarizeRequest& req, RunInputs& inputs) {
  inputs.pack_name = req.pack;
  if (!inputs.pack_name.empty()) {
    DP_RETURN_IF_ERROR(LoadPackAndUnits(inputs.pack_name, req.units, inputs.pack, inputs.units_name,
                                        inputs.units));
  }
  DP_ASSIGN_OR_RETURN(inputs.model, ReadModelConfig(req.model_dir));
  if (!req.log.empty()) {
    DP_ASSIGN_OR_RETURN(inputs.log, io::ParseBenchLog(req.log));
  }
  inputs.diagnostics = inputs.log.diagnostics;
  DP_RETURN_IF_ERROR(ReadPlainLogs(req, inputs));
  if (inputs.model.config_missing) {
    inputs.diagnostics.Add(trace::Message<trace::Msg::kNoConfigJson>(), 1, req.model_dir);
  }
  return base::OkStatus();
}

base::StatusOr<LoadedTrace> LoadTrace(const SummarizeRequest& req, const io::Importer& importer,
                                      const trace::BenchLog& log, trace::StringPool& names) {
  TraceRequest request{req.trace, req.format, req.device, req.decode_range, req.step_range};
  request.window = req.window;
  LoadedTrace out;
  DP_ASSIGN_OR_RETURN(out.trace, ImportWindow(request, importer, log.marks, req.log, names));
  if (req.window.kind == WindowSpec::Kind::kDecode) {
    // The steps: --step-range, else the step ranges the window was taken from (a recording
    // sampled by graph launches: theirs), else decodeprof:step.
    const std::string step_range =
        !req.step_range.empty() || out.trace.evidence.range != kGraphStepRange
            ? req.step_range
            : std::string(kGraphStepRange);
    DP_ASSIGN_OR_RETURN(out.sampling,
                        ConcatenateSampledSteps(out.trace, names, step_range, req.trace));
    out.timed_periods = TimedSamplePeriods(out.trace.info, names);
    const std::string& source = out.trace.window_source;
    if (out.timed_periods > 0 && !out.sampling && source != "graph-launches" &&
        source != "periodic") {
      // The window's kernels were recorded only in the timer's periods, and no step range
      // lies whole in one: its idle time would hold the GPU work of the periods in between.
      return base::DataError(
          req.trace,
          "a recording sampled by time (--sample-time) cut by phase marks, with no step range "
          "whole inside a sampled period: the decode window holds periods in which nothing "
          "was recorded",
          "name the engine's per-step range with --step-range, record with --sample-steps N, "
          "or summarize a trace without marks (the decode loop is then found in one sampled "
          "period)");
    }
  }
  base::MarkStage("steps");
  return out;
}

void JoinLaunchCalls(const SummarizeRequest& req, const analysis::Pack& pack,
                     const trace::StringPool& names, LoadedTrace& loaded) {
  trace::ImportedTrace& info = loaded.trace.info;
  const trace::DispatchVector& dispatches = loaded.trace.window.dispatches;
  loaded.launches =
      JoinLaunches(dispatches, info, req.trace, pack.ReadsLaunchContext() && !info.ranges.empty());
  loaded.graph_replay = ReplaysGraphs(loaded.trace.window, info, names);
  // Nothing later reads the calls themselves: a whole-trace window's millions go now.
  std::vector<trace::ApiCall>().swap(info.launches);
  loaded.ranges = std::make_unique<analysis::RangeIndex>(info.ranges);
  base::MarkStage("launch join");
}

base::Status ChoosePack(const SummarizeRequest& req, const io::Importer& importer,
                        const LoadedTrace& loaded, const trace::StringPool& names,
                        RunInputs& inputs, std::vector<std::string>& notes) {
  if (inputs.pack) return base::OkStatus();
  const analysis::DecodeWindow& window = loaded.trace.window;
  const std::optional<trace::Runtime> runtime = loaded.trace.info.runtime;
  const packs::PackChoice choice = packs::DefaultPackFor(
      packs::KernelTimesOf(window.dispatches, names),
      std::string(importer.name()) +
          (packs::FormatDefaultFor(importer.default_pack(), runtime) != importer.default_pack()
               ? " (HIP)"
               : ""),
      packs::FormatDefaultFor(importer.default_pack(), runtime));
  inputs.pack_name = choice.pack;
  notes.push_back(choice.note);
  if (!choice.weak.empty() && !window.dispatches.empty()) {
    inputs.diagnostics.Add(trace::Message<trace::Msg::kPackChosenWeakly>(choice.pack, choice.weak),
                           1, req.trace);
  }
  return LoadPackAndUnits(inputs.pack_name, req.units, inputs.pack, inputs.units_name,
                          inputs.units);
}

base::StatusOr<TokenCount> CountTokens(const SummarizeRequest& req, const trace::BenchLog& log,
                                       const LoadedTrace& loaded) {
  const analysis::DecodeWindow& window = loaded.trace.window;
  TokenCount out;
  trace::BenchResults& profiled = out.profiled;
  profiled = log.results;
  // Generated tokens: the flag, else the log, else step ranges + 1 (the first token comes
  // from the prefill). A sampled recording's window holds its sampled steps only: the step
  // ranges counted are all the decode's (steps_seen), and the window stands for its share
  // of the tokens (SampledWindowTokens).
  if (req.generated_tokens) {
    profiled.generated_tokens = req.generated_tokens;
  } else if (loaded.sampling && !profiled.generated_tokens) {
    profiled.generated_tokens = DecodeSteps(*loaded.sampling) + 1;
  } else if (!profiled.generated_tokens && loaded.trace.steps) {
    // A loop found inside one period of a timed sampling is a piece of a decode cut by the
    // period: each of its steps made one token, and the prefill's token is not in it.
    const bool piece =
        loaded.timed_periods > 0 && (loaded.trace.window_source == "graph-launches" ||
                                     loaded.trace.window_source == "periodic");
    profiled.generated_tokens = *loaded.trace.steps + (piece ? 0 : 1);
  }
  // A decode token takes at least one kernel: more tokens than the window has dispatches
  // come from another run's log or a mistyped flag, and would divide the figures away.
  if (!loaded.sampling && profiled.generated_tokens && !window.dispatches.empty() &&
      *profiled.generated_tokens - 1 > static_cast<int64_t>(window.dispatches.size())) {
    const std::string from = req.generated_tokens ? "--generated-tokens" : req.log;
    return base::DataError(
        from,
        std::to_string(*profiled.generated_tokens) +
            " generated tokens, but the decode window holds only " +
            std::to_string(window.dispatches.size()) +
            " dispatches: every decode token takes at least one",
        "give the token count of this run (--generated-tokens) or its own bench log");
  }
  if (loaded.sampling) {
    out.window_tokens = SampledWindowTokens(*loaded.sampling, *profiled.generated_tokens);
  }
  return out;
}

}  // namespace decodeprof::pipeline
