#include "src/pipeline/summarize_run.h"

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/file_io.h"
#include "src/base/parse.h"
#include "src/base/stage_times.h"
#include "src/base/temporary_files.h"
#include "src/io/importer_registry.h"
#include "src/pipeline/summarize_stages.h"
#include "src/report/dispatch_csv.h"
#include "src/report/kernel_csv.h"
#include "src/report/summary_json.h"
#include "src/report/summary_reader.h"

namespace decodeprof::pipeline {
namespace {

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

// What the summary says of the run besides the figures (analysis::RunFacts).
analysis::RunFacts RunFactsOf(const SummarizeRequest& req, const std::string& format,
                              const PlainChoice& plain, const WindowedTrace& t) {
  analysis::RunFacts facts;
  AddRecorderWarnings(t.info.diagnostics, facts.warnings);
  facts.trace_format = format;
  facts.trace_file = std::filesystem::path(req.trace).filename().string();
  facts.device = req.device;
  if (!req.device && t.info.dispatches_per_device.size() == 1) {
    facts.device = t.info.dispatches_per_device.begin()->first;
  }
  facts.window_source = t.window_source;
  facts.window_evidence = t.evidence;
  facts.engine_steps = t.engine_steps;
  if (req.synthetic) facts.workload = "synthetic";
  facts.plain_runs = plain.summary;
  if (t.info.rank) {
    analysis::RankFields& rank = facts.rank.emplace();
    rank.rank = t.info.rank->rank;
    rank.world_size = t.info.rank->world_size;
    rank.local_rank = t.info.rank->local_rank;
    rank.run_id = t.info.rank->run_id;
  }
  return facts;
}

// Everything analysis::BuildSummary needs, computed before it runs (summarize_stages.h).
analysis::SummaryInputs SummaryInputsOf(const SummarizeRequest& req, const std::string& format,
                                        const trace::StringPool& names, const LoadedTrace& loaded,
                                        const RunInputs& inputs, const TokenCount& tokens) {
  analysis::SummaryInputs in;
  in.name = req.name;
  in.temperature = req.temperature;
  in.window = &loaded.trace.window;
  in.names = &names;
  in.has_grid = loaded.trace.info.has_grid;
  in.graph_replay = loaded.graph_replay;
  in.pack = inputs.pack.get();
  in.units = inputs.units.get();
  in.pack_name = inputs.pack_name;
  in.units_name = inputs.units_name;
  in.profiled = tokens.profiled;
  in.window_tokens = tokens.window_tokens;
  in.plain = inputs.plain.used;
  in.plain_extremes = inputs.plain.extremes;
  in.model = inputs.model.config;
  in.model_type_present = inputs.model.model_type_present;
  in.launch_thread = loaded.launches.thread;
  in.launch_time = loaded.launches.time;
  in.ranges = loaded.ranges.get();
  in.sampling = loaded.sampling;
  in.facts = RunFactsOf(req, format, inputs.plain, loaded.trace);
  return in;
}

}  // namespace

struct ComputedRun::Parts {
  trace::StringPool names;
  LoadedTrace loaded;
  RunInputs inputs;
  TokenCount tokens;
  analysis::Attribution attribution;
};

ComputedRun::ComputedRun() : parts_(std::make_unique<Parts>()) {}
ComputedRun::~ComputedRun() = default;
ComputedRun::ComputedRun(ComputedRun&&) noexcept = default;
ComputedRun& ComputedRun::operator=(ComputedRun&&) noexcept = default;

const analysis::DecodeWindow& ComputedRun::window() const { return parts_->loaded.trace.window; }
const trace::ImportedTrace& ComputedRun::info() const { return parts_->loaded.trace.info; }
const analysis::Pack& ComputedRun::pack() const { return *parts_->inputs.pack; }
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
                      *p.inputs.pack, *p.inputs.units, run.result.written);
}

base::StatusOr<SummarizeResult> RunSummarize(const SummarizeRequest& req) {
  DP_RETURN_IF_ERROR(CheckRequest(req));
  DP_RETURN_IF_ERROR(CheckOutputs(req));
  ComputedRun run;
  DP_RETURN_IF_ERROR(ComputeRun(req, run));
  DP_RETURN_IF_ERROR(WriteComputedRun(req, run));
  base::MarkStage("write");
  return std::move(run.result);
}

base::Status ComputeRun(const SummarizeRequest& req, ComputedRun& run) {
  DP_RETURN_IF_ERROR(CheckRequest(req));
  SummarizeResult& result = run.result;
  ComputedRun::Parts& p = *run.parts_;
  base::StartStages();
  DP_ASSIGN_OR_RETURN(const io::Importer* importer, io::ResolveImporter(req.trace, req.format));
  result.format = std::string(importer->name());
  // The inputs, each once.
  DP_RETURN_IF_ERROR(ReadInputs(req, p.inputs));
  base::MarkStage("inputs");
  DP_ASSIGN_OR_RETURN(p.loaded, LoadTrace(req, *importer, p.inputs.log, p.names));
  DP_RETURN_IF_ERROR(ChoosePack(req, *importer, p.loaded, p.names, p.inputs, result.notes));
  base::MarkStage("pack");
  JoinLaunchCalls(req, *p.inputs.pack, p.names, p.loaded);
  AddWindowNotes(p.loaded, result.notes);
  DP_ASSIGN_OR_RETURN(p.tokens, CountTokens(req, p.inputs.log, p.loaded));
  const std::optional<size_t> sampled_note = AddSampledNote(p.loaded, p.tokens, result.notes);
  analysis::SummaryInputs in =
      SummaryInputsOf(req, result.format, p.names, p.loaded, p.inputs, p.tokens);
  base::MarkStage("tokens");
  p.attribution = analysis::Attribute(in);
  base::MarkStage("attribution");
  trace::Diagnostics& diag = p.loaded.trace.info.diagnostics;
  DP_RETURN_IF_ERROR(ComputeLedger(req, p.inputs.model, in, p.attribution, p.loaded, result.notes,
                                   diag, in.facts.speed_of_light));
  base::MarkStage("speed of light");
  // The summary, once.
  DP_ASSIGN_OR_RETURN(result.summary, analysis::BuildSummary(in, p.attribution));
  base::MarkStage("summary");
  if (sampled_note && result.summary.sampling) {
    CompleteSampledNote(*result.summary.sampling, result.notes[*sampled_note]);
  }
  // What it all says.
  AddRunDiagnostics(req, p.inputs, p.tokens, p.loaded, p.names, result.summary, p.attribution,
                    diag);
  result.summary.diagnostics = diag.entries();
  base::MarkStage("diagnostics");
  return FirstError(req, diag);
}

}  // namespace decodeprof::pipeline
