#include "src/pipeline/summarize_run.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/analysis/intervals.h"
#include "src/analysis/range_index.h"
#include "src/analysis/speed_of_light.h"
#include "src/analysis/window.h"
#include "src/base/file_io.h"
#include "src/base/parse.h"
#include "src/base/py_format.h"
#include "src/base/temporary_files.h"
#include "src/base/utf8.h"
#include "src/device/peak_bandwidth.h"
#include "src/io/bench_log/bench_log.h"
#include "src/io/importer_registry.h"
#include "src/model/model_bytes.h"
#include "src/packs/default_pack.h"
#include "src/packs/pack_loader.h"
#include "src/pipeline/sampled_window.h"
#include "src/report/dispatch_csv.h"
#include "src/report/kernel_csv.h"
#include "src/report/summary_json.h"
#include "src/report/summary_reader.h"

namespace decodeprof::pipeline {
namespace {

// Fewer sampled steps than this in a sampled window: a warning (sampled_steps_few).
constexpr int64_t kFewSampledSteps = 3;
// Fewer decode steps named by the engine than this in the window is a warning (engine_steps_few).
constexpr int64_t kFewEngineSteps = 3;

struct ModelInfo {
  std::optional<analysis::ModelConfig> config;
  bool model_type_present = false;
  bool config_missing = false;  // the directory exists but holds no config.json
  std::string config_path;      // DIR/config.json when read
  nlohmann::json doc;           // its contents, for the speed-of-light ledger's bytes
};

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

// The window of the trace and what the analysis needs besides: the launch context of every
// window dispatch and the trace's ranges, for op_path rules.
struct LoadedTrace {
  WindowedTrace trace;
  std::optional<analysis::Sampling> sampling;  // a sampled recording (sampled_window.h)
  int64_t timed_periods = 0;                   // of a recording sampled by time
  LaunchContext launches;
  std::unique_ptr<analysis::RangeIndex> ranges;
};

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
  out.launches = JoinLaunches(out.trace.window.dispatches, out.trace.info, req.trace);
  out.ranges = std::make_unique<analysis::RangeIndex>(out.trace.info.ranges);
  return out;
}

// Whether the decode's steps replay graphs: most of the window's dispatches were launched by a
// graph launch call (cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch), or the trace shows graphs
// whole (nsys's "[CUDA graph N]" rows).
bool ReplaysGraphs(const analysis::DecodeWindow& w, const trace::ImportedTrace& info,
                   const trace::StringPool& names) {
  const trace::LaunchIndex index(info.launches);
  // Without the launch calls (a recording with the API records off, a trace that lost them),
  // a graph replay still shows: CUPTI and roctracer give every kernel of a graph launch that
  // launch's correlation id, so two or more kernels share it; a plain launch runs one.
  std::unordered_map<uint64_t, int> per_correlation;
  for (const trace::Dispatch& d : w.dispatches) {
    if (d.correlation != 0 && d.kind == trace::DispatchKind::kKernel) {
      ++per_correlation[d.correlation];
    }
  }
  size_t graphed = 0;
  for (const trace::Dispatch& d : w.dispatches) {
    const trace::ApiCall* call = index.Find(d.correlation);
    const auto shared = per_correlation.find(d.correlation);
    if ((call != nullptr && trace::IsGraphLaunch(names.Get(call->name))) ||
        (call == nullptr && shared != per_correlation.end() && shared->second >= 2) ||
        names.Get(d.name).starts_with("[CUDA graph")) {
      ++graphed;
    }
  }
  return !w.dispatches.empty() && graphed * 2 >= w.dispatches.size();
}

// Kernels of one CUDA stream run in order: one that ends after the next kernel of its stream
// ended has a late end timestamp (seen on the H200 when a CUDA graph was replayed before CUPTI
// read the recorded replay's timestamps: ~2 ms graph kernels of ~20 us), or overlaps it by
// programmatic dependent launch. Only where the source's streams run in order
// (ImportedTrace::in_order_streams: CUDA streams, not ROCm queues).
void AddStreamOrderDiagnostics(const SummarizeRequest& req, const trace::ImportedTrace& info,
                               const analysis::DecodeWindow& w, const trace::StringPool& names,
                               trace::Diagnostics& diag) {
  if (!info.in_order_streams) return;
  std::unordered_map<uint64_t, size_t> last;  // (device, stream) -> its latest kernel so far
  int64_t count = 0;
  int64_t late_ns = 0;
  const trace::Dispatch* first = nullptr;
  for (size_t i = 0; i < w.dispatches.size(); ++i) {
    const trace::Dispatch& d = w.dispatches[i];
    if (d.kind != trace::DispatchKind::kKernel || d.stream == 0) continue;
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint16_t>(d.device)) << 32) | d.stream;
    const auto [it, fresh] = last.try_emplace(key, i);
    if (fresh) continue;
    const trace::Dispatch& prev = w.dispatches[it->second];
    if (prev.end > d.end) {
      ++count;
      late_ns += prev.end - d.end;
      if (first == nullptr) first = &prev;
      continue;  // keep the late one: the kernels it outlasts count once each
    }
    it->second = i;
  }
  if (count == 0) return;
  diag.Add(trace::Diag::kDispatchesOutOfStreamOrder, count,
           {req.trace, first->line == 0 ? "" : std::to_string(first->line),
            "the first: " + std::string(names.Get(first->name)) + " on stream " +
                std::to_string(first->stream) + " (" +
                base::FormatFixed(static_cast<double>(first->duration()) / 1e3, 1) +
                " us); the late ends add up to " +
                base::FormatFixed(static_cast<double>(late_ns) / 1e6, 3) + " ms"});
}

// A kernel of more than this share of the window's GPU time in class `other`: a warning.
constexpr double kLargeOtherSharePct = 5.0;

void AddAnalysisDiagnostics(const SummarizeRequest& req, const analysis::Summary& summary,
                            const analysis::Attribution& attribution, trace::Diagnostics& diag) {
  // The kernel table is in descending time order: the largest such kernels first; the
  // detail names up to three.
  std::string named;
  int64_t large_other = 0;
  for (const analysis::KernelStat& k : summary.kernels) {
    if (k.class_name != "other" || !k.share_exact || *k.share_exact <= kLargeOtherSharePct) {
      continue;
    }
    if (large_other++ < 3) {
      named += std::string(named.empty() ? "" : "; ") +
               std::string(base::TruncateCodePoints(k.name, 120)) + ": " +
               base::FormatFixed(*k.share_exact, 1) + " % of the GPU time";
    }
  }
  if (large_other > 0) {
    diag.Add(
        trace::Diag::kLargeKernelUnclassified, large_other,
        {req.trace, "",
         named + (large_other > 3 ? "; and " + std::to_string(large_other - 3) + " more" : "")});
  }
  diag.Add(trace::Diag::kStraddlingDecodeStart, summary.kernels_straddling_decode_start,
           {req.trace, "", "decode_start cuts through them"});
  if (summary.host_gap_attribution_residual_ns != 0) {
    diag.Add(trace::Diag::kHostGapResidual, 1,
             {req.trace, "",
              std::to_string(summary.host_gap_attribution_residual_ns) + " ns unattributed"});
  }
  if (!attribution.warnings.empty()) {
    diag.Add(trace::Diag::kRoleRuleWarning, static_cast<int64_t>(attribution.warnings.size()),
             {req.trace, "", attribution.warnings.front()});
  }
}

// The files summarize reads: no output may replace one of them.
std::vector<std::string> InputsOf(const SummarizeRequest& req) {
  std::vector<std::string> inputs = {req.trace, req.log, req.pack, req.units};
  inputs.insert(inputs.end(), req.plain_logs.begin(), req.plain_logs.end());
  if (!req.model_dir.empty()) {
    inputs.push_back((std::filesystem::path(req.model_dir) / "config.json").string());
  }
  if (!req.gguf.empty()) inputs.push_back(req.gguf);
  // --peak-bandwidth names a file unless it is a number.
  if (!req.peak_bandwidth.empty() && !base::ParseDouble(req.peak_bandwidth)) {
    inputs.push_back(req.peak_bandwidth);
  }
  return inputs;
}

// <out-dir>/<name>_decode_kernels.csv, [_decode_dispatches.csv,] _summary.json.
std::vector<std::string> OutputsOf(const SummarizeRequest& req) {
  const std::filesystem::path out(req.out_dir);
  std::vector<std::string> paths = {(out / (req.name + "_decode_kernels.csv")).string()};
  if (req.emit_dispatches) paths.push_back((out / (req.name + "_decode_dispatches.csv")).string());
  paths.push_back((out / (req.name + "_summary.json")).string());
  return paths;
}

// --name and --out-dir, and the files they make (issue 11, "Output paths"): checked before
// any input is read, and again before the first output is written.
base::Status CheckOutputs(const SummarizeRequest& req) {
  DP_RETURN_IF_ERROR(base::CheckOutputName(req.name, "--name"));
  if (req.out_dir == base::kStdout) {
    return base::UsageError("--out-dir - : summarize writes several files, not standard output",
                            "name a directory (./- for one called '-')");
  }
  const std::vector<std::string> inputs = InputsOf(req);
  const std::vector<std::string> outputs = OutputsOf(req);
  for (const std::string& path : outputs) {
    DP_RETURN_IF_ERROR(base::CheckOutputTarget(path, inputs));
  }
  // A summary of another trace is never replaced silently (two traces whose names differ
  // only after a dot, or the same name in two directories, onto one --out-dir).
  const std::string& summary = outputs.back();
  const std::string trace_file = std::filesystem::path(req.trace).filename().string();
  if (std::optional<std::string> other = report::SummaryTraceFile(summary);
      other && *other != trace_file) {
    return base::IoError(summary,
                         "refusing to replace the summary of another trace (" + *other +
                             ") with that of " + trace_file,
                         "name this run apart with --name, write it to another --out-dir, or "
                         "remove the old summary");
  }
  return base::OkStatus();
}

base::Status WriteOutputs(const SummarizeRequest& req, const analysis::Summary& summary,
                          const analysis::DecodeWindow& window, const trace::StringPool& names,
                          const analysis::Attribution& attribution, const analysis::Pack& pack,
                          const analysis::UnitTable& units, std::vector<std::string>& written) {
  DP_RETURN_IF_ERROR(base::MakeDirs(req.out_dir));
  // Every target again before the first file is written: none is replaced when one is refused.
  DP_RETURN_IF_ERROR(CheckOutputs(req));
  const std::vector<std::string> inputs = InputsOf(req);
  const std::vector<std::string> paths = OutputsOf(req);
  const auto undo = [&written](base::Status s) {
    for (const std::string& path : written) std::filesystem::remove(path);
    written.clear();
    return s;
  };
  // The files of the set already in place count as temporary until the last one is: a SIGINT,
  // SIGTERM or SIGHUP in between removes them (base/temporary_files.h), never a partial set.
  struct SetInProgress {
    std::vector<int> handles;
    ~SetInProgress() {
      for (const int h : handles) base::UnregisterTemporary(h);
    }
  } in_progress;
  const std::string& kernels = paths.front();
  if (auto s = base::WriteFileAtomic(kernels, report::KernelCsvText(summary), inputs); !s.ok()) {
    return undo(s);
  }
  written.push_back(kernels);
  in_progress.handles.push_back(base::RegisterTemporary(kernels));
  if (req.emit_dispatches) {
    const std::string& path = paths[1];
    if (auto s = report::WriteDispatchCsv(path, window, names, attribution, pack, units, inputs);
        !s.ok()) {
      return undo(s);
    }
    written.push_back(path);
    in_progress.handles.push_back(base::RegisterTemporary(path));
  }
  const std::string& json = paths.back();
  if (auto s = base::WriteFileAtomic(json, report::SummaryJsonText(summary), inputs); !s.ok()) {
    return undo(s);
  }
  written.push_back(json);
  return base::OkStatus();
}

// Options that cannot be right, before anything is read.
base::Status CheckRequest(const SummarizeRequest& req) {
  if (!std::isfinite(req.temperature) || req.temperature < 0) {
    return base::UsageError("--temperature must be a finite number >= 0",
                            "the sampling temperature of the run, e.g. 0 or 0.7");
  }
  if (req.generated_tokens && *req.generated_tokens < 1) {
    return base::UsageError("--generated-tokens must be at least 1",
                            "the tokens the run generated, the prefill's first token included");
  }
  return base::OkStatus();
}

}  // namespace

struct ComputedRun::Parts {
  trace::StringPool names;
  LoadedTrace loaded;
  std::unique_ptr<analysis::Pack> pack;
  std::unique_ptr<analysis::UnitTable> units;
  analysis::Attribution attribution;
};

ComputedRun::ComputedRun() : parts_(std::make_unique<Parts>()) {}
ComputedRun::~ComputedRun() = default;
ComputedRun::ComputedRun(ComputedRun&&) noexcept = default;
ComputedRun& ComputedRun::operator=(ComputedRun&&) noexcept = default;

const analysis::DecodeWindow& ComputedRun::window() const { return parts_->loaded.trace.window; }
const trace::ImportedTrace& ComputedRun::info() const { return parts_->loaded.trace.info; }
const analysis::Pack& ComputedRun::pack() const { return *parts_->pack; }
std::span<const analysis::ClassId> ComputedRun::classes() const {
  return parts_->attribution.classes;
}

void ComputedRun::AddDiagnostic(trace::Diag code, int64_t count, trace::DiagnosticExample first) {
  trace::Diagnostics& diag = parts_->loaded.trace.info.diagnostics;
  diag.Add(code, count, std::move(first));
  result.summary.diagnostics = diag.entries();
}

base::Status CheckSummarizeOutputs(const SummarizeRequest& req) { return CheckOutputs(req); }

base::Status WriteComputedRun(const SummarizeRequest& req, ComputedRun& run) {
  ComputedRun::Parts& p = *run.parts_;
  return WriteOutputs(req, run.result.summary, p.loaded.trace.window, p.names, p.attribution,
                      *p.pack, *p.units, run.result.written);
}

base::StatusOr<SummarizeResult> RunSummarize(const SummarizeRequest& req) {
  DP_RETURN_IF_ERROR(CheckRequest(req));
  DP_RETURN_IF_ERROR(CheckOutputs(req));
  ComputedRun run;
  DP_RETURN_IF_ERROR(ComputeRun(req, run));
  DP_RETURN_IF_ERROR(WriteComputedRun(req, run));
  return std::move(run.result);
}

namespace {

// The speed-of-light ledger, when the model is given (--model-dir's config.json or --gguf):
// the bytes a step moves at the window's mean context, the peak bandwidth (--peak-bandwidth,
// the trace's measured peak, the device table), and the window's steps. What keeps it out is
// a warning (speed_of_light_left_out) with the reason; nothing else of the summary changes.
base::Status AddSpeedOfLight(const SummarizeRequest& req, const ModelInfo& model_info,
                             const analysis::SummaryInputs& in,
                             const analysis::Attribution& attribution, const LoadedTrace& loaded,
                             SummarizeResult& result, trace::Diagnostics& diagnostics) {
  // --model-dir without a config.json: model_dir_without_config says so already.
  const std::string model_path = req.gguf.empty() ? model_info.config_path : req.gguf;
  if (model_path.empty()) return base::OkStatus();
  const std::string& where = req.gguf.empty() ? req.model_dir : req.gguf;  // what the user named
  const auto left_out = [&](const std::string& why) {
    diagnostics.Add(trace::Diag::kSpeedOfLightLeftOut, 1, {where, "", why});
    result.notes.push_back("speed of light: left out: " + why);
  };
  model::ModelOptions options;
  options.kv_dtype = req.kv_dtype == "f16" ? "fp16" : req.kv_dtype;
  base::StatusOr<model::ModelBytes> bytes =
      req.gguf.empty() ? model::ModelBytesFromConfig(model_info.doc, model_path, options)
                       : model::ReadModelBytes(req.gguf, options);
  if (!bytes.ok()) {
    // A model the table does not describe leaves the rest of the summary as it was; a file
    // that cannot be read is an error like any other input's.
    if (bytes.status().kind() != base::ErrorKind::kConfig) return bytes.status();
    left_out(bytes.status().ToString());
    return base::OkStatus();
  }
  const trace::ImportedTrace& info = loaded.trace.info;
  std::vector<std::string> device_names;
  for (const trace::Device& d : info.devices) {
    if (!req.device || d.id == *req.device) device_names.push_back(d.name);
  }
  DP_ASSIGN_OR_RETURN(const std::optional<device::PeakBandwidth> peak,
                      device::ResolvePeak(req.peak_bandwidth, info.meta, device_names));
  if (!peak) {
    std::string names;
    for (const std::string& n : device_names) names += (names.empty() ? "" : ", ") + n;
    left_out("no peak bandwidth known for " +
             (names.empty() ? std::string("this trace (it names no device)") : "device " + names) +
             ": give --peak-bandwidth (GB/s, or `decodeprof bandwidth`'s JSON)");
    return base::OkStatus();
  }
  // Steps the window holds: the sampled steps, the steps found or counted, else the forward
  // passes of the generated tokens (the first token comes from the prefill).
  const analysis::Summary& s = result.summary;
  double steps = 0;
  if (loaded.sampling) {
    steps = static_cast<double>(loaded.sampling->steps_sampled);
  } else if (loaded.trace.steps && *loaded.trace.steps > 0) {
    steps = static_cast<double>(*loaded.trace.steps);
  } else if (s.generated_tokens && *s.generated_tokens > 1) {
    steps = static_cast<double>(*s.generated_tokens - 1);
  }
  if (steps <= 0) {
    left_out(
        "the window's decode steps are unknown (no step ranges, no loop found, no token "
        "count): give --generated-tokens or a bench log");
    return base::OkStatus();
  }
  analysis::SpeedOfLightInputs sol;
  const std::filesystem::path source(bytes->source);
  sol.model = req.gguf.empty()
                  ? std::filesystem::path(req.model_dir).lexically_normal().filename().string()
                  : source.stem().string();
  if (sol.model.empty()) sol.model = source.parent_path().filename().string();
  sol.model_source = bytes->source;
  sol.architecture = bytes->architecture;
  sol.weight_format = bytes->weight_format;
  // The mean context of the steps: the prompt, then one more token each step (the token a
  // step makes attends to the prompt, the tokens before it and itself).
  if (req.context_tokens) {
    sol.context_tokens = *req.context_tokens;
    sol.context_source = "--context-tokens";
  } else if (s.prompt_tokens) {
    const double decode_steps =
        s.generated_tokens ? static_cast<double>(std::max<int64_t>(*s.generated_tokens - 1, 1))
                           : steps;
    sol.context_tokens = static_cast<double>(*s.prompt_tokens) + (decode_steps + 1) / 2;
    sol.context_source = "prompt " + std::to_string(*s.prompt_tokens) + " + the mean of " +
                         base::FormatFixed(decode_steps, 0) + " decode positions";
  } else {
    sol.context_tokens = (steps + 1) / 2;
    sol.context_source = "the decode's own tokens only (prompt unknown)";
    if (bytes->KvBytes(1) > 0) {
      diagnostics.Add(trace::Diag::kSpeedOfLightContextUnknown, 1,
                      {where, "", "no prompt length: give --context-tokens"});
    }
  }
  const auto context = static_cast<int64_t>(std::llround(sol.context_tokens));
  for (std::string_view kind_name : analysis::kMovableBytes) {
    model::ByteKind kind;
    if (!model::ParseByteKind(kind_name, kind)) continue;
    const int64_t b = bytes->BytesOf(kind, context);
    if (b > 0) sol.bytes_by_kind.emplace_back(std::string(kind_name), static_cast<double>(b));
  }
  sol.weight_bytes = static_cast<double>(bytes->WeightBytes());
  sol.kv_bytes = static_cast<double>(bytes->KvBytes(context));
  sol.state_bytes = static_cast<double>(bytes->StateBytes());
  sol.peak_gbps = peak->gbps;
  sol.peak_source = peak->source;
  sol.peak_detail = peak->detail;
  sol.steps = steps;
  sol.notes = bytes->notes;
  if (loaded.sampling) {
    sol.notes.push_back(
        "a sampled window: the context is the decode's mean, not the sampled "
        "steps' own");
  }
  base::StatusOr<analysis::SpeedOfLight> ledger =
      analysis::ComputeSpeedOfLight(sol, in, attribution);
  if (!ledger.ok()) {
    left_out(ledger.status().ToString());
    return base::OkStatus();
  }
  // summarize's terminal output prints the ledger (report/speed_of_light_render.h).
  result.summary.speed_of_light = *ledger;
  return base::OkStatus();
}

}  // namespace

base::Status ComputeRun(const SummarizeRequest& req, ComputedRun& run) {
  DP_RETURN_IF_ERROR(CheckRequest(req));
  SummarizeResult& result = run.result;
  ComputedRun::Parts& parts = *run.parts_;
  DP_ASSIGN_OR_RETURN(const io::Importer* importer, io::ResolveImporter(req.trace, req.format));
  result.format = std::string(importer->name());

  // Configuration first: a bad --pack must not cost a pass over a large trace. Without
  // --pack the pack is chosen from the kernel names, so it (and its units) load after the
  // import.
  std::string pack_name = req.pack;
  std::unique_ptr<analysis::Pack>& pack = parts.pack;
  std::string units_name;
  std::unique_ptr<analysis::UnitTable>& units = parts.units;
  if (!pack_name.empty()) {
    DP_RETURN_IF_ERROR(LoadPackAndUnits(pack_name, req.units, pack, units_name, units));
  }
  DP_ASSIGN_OR_RETURN(const ModelInfo model, ReadModelConfig(req.model_dir));
  trace::BenchLog log;
  if (!req.log.empty()) {
    DP_ASSIGN_OR_RETURN(log, io::ParseBenchLog(req.log));
  }
  std::optional<trace::BenchResults> plain;
  trace::Diagnostics inputs = log.diagnostics;  // what the logs and the model dir said
  std::vector<trace::BenchResults> plain_runs;
  for (const std::string& path : req.plain_logs) {
    DP_ASSIGN_OR_RETURN(const trace::BenchLog plain_log, io::ParseBenchLog(path));
    plain_runs.push_back(plain_log.results);
    inputs.Merge(plain_log.diagnostics);
    if (!plain_log.results.decode_tok_s && !plain_log.results.generated_tokens) {
      inputs.Add(trace::Diag::kLogWithoutResults, 1,
                 {path, "", "--plain-log has no Decode: or Generated tokens: line"});
    }
  }
  // The median plain run by decode tok/s (the lower middle one of an even count); runs
  // without a rate come last.
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
  std::optional<analysis::PlainRuns> plain_summary;
  if (!plain_runs.empty()) {
    const size_t used = by_rate[rated > 0 ? (rated - 1) / 2 : 0];
    plain = plain_runs[used];
    analysis::PlainRuns p;
    p.count = static_cast<int64_t>(plain_runs.size());
    for (const trace::BenchResults& r : plain_runs) p.decode_tok_s.push_back(r.decode_tok_s);
    p.used = static_cast<int64_t>(used);
    if (rated >= 2 && *plain->decode_tok_s > 0) {
      const double lo = *plain_runs[by_rate.front()].decode_tok_s;
      const double hi = *plain_runs[by_rate[rated - 1]].decode_tok_s;
      p.spread_pct = base::PyRound(100 * (hi - lo) / *plain->decode_tok_s, 2);
    }
    plain_summary = p;
  }
  if (model.config_missing) {
    inputs.Add(trace::Diag::kModelDirWithoutConfig, 1, {req.model_dir, "", "no config.json"});
  }

  trace::StringPool& names = parts.names;
  DP_ASSIGN_OR_RETURN(parts.loaded, LoadTrace(req, *importer, log, names));
  LoadedTrace& loaded = parts.loaded;
  const analysis::DecodeWindow& window = loaded.trace.window;
  if (!pack) {
    const std::optional<trace::Runtime> runtime = loaded.trace.info.runtime;
    const packs::PackChoice choice = packs::DefaultPackFor(
        packs::KernelTimesOf(window.dispatches, names),
        std::string(importer->name()) +
            (packs::FormatDefaultFor(importer->default_pack(), runtime) != importer->default_pack()
                 ? " (HIP)"
                 : ""),
        packs::FormatDefaultFor(importer->default_pack(), runtime));
    pack_name = choice.pack;
    result.notes.push_back(choice.note);
    if (!choice.weak.empty() && !window.dispatches.empty()) {
      inputs.Add(trace::Diag::kPackChoiceWeak, 1,
                 {req.trace, "", "pack " + choice.pack + ": " + choice.weak});
    }
    DP_RETURN_IF_ERROR(LoadPackAndUnits(pack_name, req.units, pack, units_name, units));
  }
  if (loaded.timed_periods > 0) {
    result.notes.push_back(
        "sampled by time: kernels recorded in " + std::to_string(loaded.timed_periods) +
        (loaded.timed_periods == 1 ? " period" : " periods") +
        (loaded.sampling ? "; the step ranges whole inside them are the sampled steps"
                         : "; the decode loop is the one of the most steps found in one of them, "
                           "a piece of the decode: one token a step (no prefill token)"));
  }
  if (const analysis::WindowEvidence& ev = loaded.trace.evidence;
      loaded.trace.window_source == "graph-launches" || loaded.trace.window_source == "periodic") {
    std::string note = "no phase marks: the decode loop found by " + loaded.trace.window_source +
                       ": " + std::to_string(ev.steps.value_or(0)) + " steps of " +
                       std::to_string(ev.dispatches_per_step.value_or(0)) + " dispatches";
    if (ev.graph_launches_per_step.value_or(0) > 0) {
      note += " (" + std::to_string(*ev.graph_launches_per_step) + " graph launch" +
              (*ev.graph_launches_per_step == 1 ? "" : "es") + " each)";
    }
    if (ev.deviated_steps.value_or(0) > 0) {
      note += ", " + std::to_string(*ev.deviated_steps) + " deviating";
    }
    if (ev.runs.value_or(0) > 1) {
      note += "; the longest of " + std::to_string(*ev.runs) +
              " runs (the others: warm-up or earlier decodes)";
    }
    result.notes.push_back(note);
  }

  if (const auto& e = loaded.trace.engine_steps) {
    std::string note = "no phase marks: the window is the engine's own steps (" + e->engine +
                       " step names, rule " + e->rule + "): " + std::to_string(e->window_steps) +
                       " " + std::string(analysis::StepKindName(e->window_kind)) +
                       (e->window_steps == 1 ? " step" : " steps") +
                       " (the trace's steps: " + analysis::KindCounts(e->kinds) + ")";
    if (e->decode_runs > 1) {
      note += ", the longest of " + std::to_string(e->decode_runs) + " runs of decode steps";
    }
    for (size_t i = 0; i < e->also_found.size(); ++i) {
      note += (i == 0 ? "; also named by " : ", ") + e->also_found[i];
    }
    result.notes.push_back(note);
  }
  std::optional<size_t> sampled_note;  // the sampling note, completed once the summary is built
  trace::BenchResults profiled = log.results;
  // Generated tokens: the flag, else the log, else step ranges + 1 (the first token comes
  // from the prefill). A sampled recording's window holds its sampled steps only: the step
  // ranges counted are all the decode's (steps_seen), and the window stands for its share
  // of the tokens (SampledWindowTokens).
  std::optional<double> window_tokens;
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
  if (const auto& m = loaded.sampling) {
    window_tokens = SampledWindowTokens(*m, *profiled.generated_tokens);
    std::string note = "sampled recording: " + std::to_string(m->steps_sampled) + " of " +
                       std::to_string(m->steps_seen) + " steps recorded kernel by kernel";
    if (m->distortion_pct) {
      note += " (sampled steps " + base::FormatFixed(*m->sampled_step_ms, 3) + " ms, the others " +
              base::FormatFixed(*m->unsampled_step_ms, 3) +
              " ms: " + (*m->distortion_pct >= 0 ? "+" : "") +
              base::FormatFixed(*m->distortion_pct, 2) + " %)";
    }
    note += "; per-token figures: the sampled steps' mean scaled to the " +
            std::to_string(DecodeSteps(*m)) + " steps of the decode (" +
            std::to_string(*profiled.generated_tokens) + " tokens)";
    result.notes.push_back(note);
    sampled_note = result.notes.size() - 1;
  }

  analysis::SummaryInputs in;
  in.name = req.name;
  in.temperature = req.temperature;
  in.window = &window;
  in.names = &names;
  in.has_grid = loaded.trace.info.has_grid;
  in.graph_replay = ReplaysGraphs(window, loaded.trace.info, names);
  in.pack = pack.get();
  in.units = units.get();
  in.pack_name = pack_name;
  in.units_name = units_name;
  in.profiled = profiled;
  in.window_tokens = window_tokens;
  in.plain = plain;
  in.model = model.config;
  in.model_type_present = model.model_type_present;
  in.launch_thread = loaded.launches.thread;
  in.launch_time = loaded.launches.time;
  in.ranges = loaded.ranges.get();
  parts.attribution = analysis::Attribute(in);
  const analysis::Attribution& attribution = parts.attribution;
  DP_ASSIGN_OR_RETURN(result.summary, analysis::BuildSummary(in, attribution));
  result.summary.plain_runs = plain_summary;
  if (req.synthetic) result.summary.workload = "synthetic";
  result.summary.sampling = loaded.sampling;
  if (auto& m = result.summary.sampling; m && m->sampled_step_ms && m->unsampled_step_ms) {
    const double cost = *m->sampled_step_ms - *m->unsampled_step_ms;
    const auto k = static_cast<double>(m->steps_sampled);
    m->tracing_cost_ms_per_step = base::PyRound(cost, 3);
    if (result.summary.decode_dispatches > 0) {
      m->tracing_cost_us_per_dispatch = base::PyRound(
          cost * 1000.0 / (static_cast<double>(result.summary.decode_dispatches) / k), 3);
    }
    const double gap_per_step =
        (result.summary.decode_wall_ms - result.summary.decode_gpu_busy_ms) / k;
    if (gap_per_step > 0) {
      m->tracing_share_of_host_gap_pct = base::PyRound(100.0 * cost / gap_per_step, 2);
    }
    if (sampled_note && m->tracing_cost_us_per_dispatch) {
      std::string& note = result.notes[*sampled_note];
      note += "; tracing added " + base::FormatFixed(*m->tracing_cost_ms_per_step, 3) +
              " ms a sampled step, " + base::FormatFixed(*m->tracing_cost_us_per_dispatch, 3) +
              " us a dispatch";
      if (m->tracing_share_of_host_gap_pct) {
        note +=
            ", " + base::FormatFixed(*m->tracing_share_of_host_gap_pct, 2) + " % of its host gap";
      }
    }
    if (sampled_note && m->run_cost_ms_per_sampled_step && m->run_cost_pct) {
      result.notes[*sampled_note] += "; sampling cost the run " +
                                     base::FormatFixed(*m->run_cost_ms_per_sampled_step, 3) +
                                     " ms a sampled step (it and the next, start to start), " +
                                     base::FormatFixed(*m->run_cost_pct, 2) + " % of the decode";
    }
  }
  if (rated >= 2) {
    // How much the plain runs' spread could move each plain ceiling: the same summary over
    // the slowest and the fastest plain run.
    for (const size_t extreme : {by_rate.front(), by_rate[rated - 1]}) {
      analysis::SummaryInputs other = in;
      other.plain = plain_runs[extreme];
      DP_ASSIGN_OR_RETURN(const analysis::Summary s, analysis::BuildSummary(other, attribution));
      for (analysis::RankedUnit& r : result.summary.ranked_units) {
        if (r.by != analysis::RankFigure::kPlainCeilingWallEst || !r.value) continue;
        for (const analysis::RankedUnit& o : s.ranked_units) {
          if (o.id != r.id || o.by != r.by || !o.value) continue;
          if (!r.value_range) r.value_range = std::make_pair(*r.value, *r.value);
          r.value_range->first = std::min(r.value_range->first, *o.value);
          r.value_range->second = std::max(r.value_range->second, *o.value);
        }
      }
    }
  }

  trace::ImportedTrace& info = loaded.trace.info;
  info.diagnostics.Merge(inputs);
  if (const auto& m = loaded.sampling) {
    info.diagnostics.Add(
        trace::Diag::kSampledSteps, m->steps_sampled,
        {req.trace, "",
         std::to_string(m->steps_sampled) + " of " + std::to_string(m->steps_seen) + " steps"});
    if (m->steps_sampled < kFewSampledSteps) {
      info.diagnostics.Add(
          trace::Diag::kSampledStepsFew, 1,
          {req.trace, "",
           std::to_string(m->steps_sampled) + " sampled step" + (m->steps_sampled == 1 ? "" : "s") +
               " of " + std::to_string(m->steps_seen) + " in the window"});
    }
    if (m->distortion_pct && *m->distortion_pct > 5.0) {
      info.diagnostics.Add(
          trace::Diag::kSamplingDistortion, 1,
          {req.trace, "",
           "+" + base::FormatFixed(*m->distortion_pct, 2) + " % over the unsampled steps"});
    }
    if (m->run_cost_pct && *m->run_cost_pct > 5.0 && m->run_cost_ms_per_sampled_step) {
      info.diagnostics.Add(
          trace::Diag::kSamplingRunCost, 1,
          {req.trace, "",
           base::FormatFixed(*m->run_cost_pct, 2) + " % of the decode, " +
               base::FormatFixed(*m->run_cost_ms_per_sampled_step, 3) +
               " ms a sampled step; one step in " + std::to_string(SamplingForRunCost(*m, 2.0)) +
               " would cost about 2 %"});
    }
  }
  if (const auto& e = loaded.trace.engine_steps;
      e && e->window_kind == analysis::StepKind::kDecode && e->window_steps < kFewEngineSteps) {
    info.diagnostics.Add(trace::Diag::kEngineStepsFew, 1,
                         {req.trace, "",
                          std::to_string(e->window_steps) + " decode step" +
                              (e->window_steps == 1 ? "" : "s") + " (" + e->rule + ")"});
  }
  // Tokens given (log or flag) against the decode steps the window holds (step ranges,
  // graph launches or the loop found): the first token comes from the prefill.
  if (!loaded.sampling && loaded.trace.steps && *loaded.trace.steps > 0 &&
      (req.generated_tokens || log.results.generated_tokens) && profiled.generated_tokens) {
    const int64_t steps = *loaded.trace.steps;
    const int64_t passes = std::max<int64_t>(*profiled.generated_tokens - 1, 1);
    if (passes > 2 * steps || steps > 2 * passes) {
      info.diagnostics.Add(trace::Diag::kTokensDisagreeWithSteps, 1,
                           {req.generated_tokens ? std::string("--generated-tokens") : req.log, "",
                            std::to_string(*profiled.generated_tokens) + " tokens, " +
                                std::to_string(steps) + " decode steps in the window"});
    }
  }
  if (!log.marks.empty() && loaded.trace.marks_source != req.log) {
    info.diagnostics.Add(trace::Diag::kLogMarksUnused, 1,
                         {req.log, "", "the window comes from " + loaded.trace.marks_source});
  }
  // The summary's warnings of recorder trouble, in the words decodeprof always used.
  for (std::string& warning : trace::RecorderWarnings(info.diagnostics)) {
    result.summary.warnings.push_back(std::move(warning));
  }
  AddAnalysisDiagnostics(req, result.summary, attribution, info.diagnostics);
  DP_RETURN_IF_ERROR(
      AddSpeedOfLight(req, model, in, attribution, loaded, result, info.diagnostics));
  AddOverlapDiagnostics(req.trace, window.dispatches, window.lo, window.hi, info.diagnostics);
  AddStreamOrderDiagnostics(req, info, window, names, info.diagnostics);
  result.summary.diagnostics = info.diagnostics.entries();
  result.summary.trace_format = result.format;
  result.summary.trace_file = std::filesystem::path(req.trace).filename().string();
  result.summary.window_source = loaded.trace.window_source;
  result.summary.window_evidence = loaded.trace.evidence;
  result.summary.engine_steps = loaded.trace.engine_steps;
  result.summary.device = req.device;
  if (!req.device && info.dispatches_per_device.size() == 1) {
    result.summary.device = info.dispatches_per_device.begin()->first;
  }
  if (info.rank) {
    analysis::RankFields& rank = result.summary.rank.emplace();
    rank.rank = info.rank->rank;
    rank.world_size = info.rank->world_size;
    rank.local_rank = info.rank->local_rank;
    rank.run_id = info.rank->run_id;
  }
  if (info.diagnostics.has_error()) {
    for (const trace::DiagnosticEntry& e : result.summary.diagnostics) {
      const trace::DiagnosticInfo& d = trace::Describe(e.code);
      if (d.severity == trace::Severity::kError) {
        return base::DataError(e.first.file.empty() ? req.trace : e.first.file,
                               std::string(d.meaning) + " (" + std::string(d.name) + ", " +
                                   std::to_string(e.count) + ")");
      }
    }
  }
  return base::OkStatus();
}

}  // namespace decodeprof::pipeline
