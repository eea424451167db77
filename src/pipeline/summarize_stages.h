// decodeprof::pipeline — the stages of ComputeRun (summarize_run.h), private to the module.
// ComputeRun computes every input of analysis::BuildSummary first, builds the summary once,
// then judges it:
//   1. inputs (summarize_inputs.cc): the pack and units, the model config, the bench logs and
//      the median plain run; the trace through the window cut; the pack chosen from the
//      kernel names when none was named; the tokens the window stands for;
//   2. notes (summarize_judgments.cc): what was chosen on the user's behalf;
//   3. the speed-of-light ledger (summarize_speed_of_light.cc);
//   4. analysis::BuildSummary, once;
//   5. diagnostics (summarize_judgments.cc): what the inputs, the window and the figures say,
//      and the first error among them.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/range_index.h"
#include "src/analysis/summary.h"
#include "src/base/status.h"
#include "src/io/importer.h"
#include "src/pipeline/summarize_request.h"
#include "src/pipeline/trace_source.h"
#include "src/trace/diagnostics.h"

namespace decodeprof::pipeline {

struct ModelInfo {
  std::optional<analysis::ModelConfig> config;
  bool model_type_present = false;
  bool config_missing = false;  // the directory exists but holds no config.json
  std::string config_path;      // DIR/config.json when read
  nlohmann::json doc;           // its contents, for the speed-of-light ledger's bytes
};

// The plain (unprofiled) runs: the median one by decode tok/s (the lower middle one of an even
// count; runs without a rate come last), what the summary says of them, and the slowest and
// fastest rated runs when two or more have a rate (analysis::SummaryInputs::plain_extremes).
struct PlainChoice {
  std::optional<trace::BenchResults> used;
  std::optional<analysis::PlainRuns> summary;
  std::vector<trace::BenchResults> extremes;
};
PlainChoice ChoosePlainRun(const std::vector<trace::BenchResults>& runs);

// Everything summarize reads besides the trace.
struct RunInputs {
  ModelInfo model;
  trace::BenchLog log;
  PlainChoice plain;
  std::string pack_name;
  std::string units_name;
  std::unique_ptr<analysis::Pack> pack;  // null until chosen (ChoosePack) without --pack
  std::unique_ptr<analysis::UnitTable> units;
  trace::Diagnostics diagnostics;  // what the logs, the model dir and the pack choice said
};

// Configuration first: a bad --pack must not cost a pass over a large trace. Without --pack
// the pack is chosen from the kernel names, so it (and its units) load after the import.
base::Status ReadInputs(const SummarizeRequest& req, RunInputs& inputs);

// The window of the trace and what the analysis needs besides: the launch context of every
// window dispatch and the trace's ranges, for op_path rules.
struct LoadedTrace {
  WindowedTrace trace;
  std::optional<analysis::Sampling> sampling;  // a sampled recording (sampled_window.h)
  int64_t timed_periods = 0;                   // of a recording sampled by time
  // Set by JoinLaunchCalls:
  LaunchContext launches;
  bool graph_replay = false;  // analysis::SummaryInputs::graph_replay
  std::unique_ptr<analysis::RangeIndex> ranges;
};
base::StatusOr<LoadedTrace> LoadTrace(const SummarizeRequest& req, const io::Importer& importer,
                                      const trace::BenchLog& log, trace::StringPool& names);

// The launch calls joined to the window's dispatches, once the pack is known: the launch
// context per dispatch (LoadedTrace::launches) only when the pack's rules read it and the trace
// has ranges, whether the steps replay graphs, launch_not_found; then the calls are let go
// (info.launches is empty afterwards) and the ranges indexed.
void JoinLaunchCalls(const SummarizeRequest& req, const analysis::Pack& pack,
                     const trace::StringPool& names, LoadedTrace& loaded);

// Without --pack: the pack for the window's kernel names (packs::DefaultPackFor) and its units;
// the choice is a note, a weak one a diagnostic (pack_choice_weak).
base::Status ChoosePack(const SummarizeRequest& req, const io::Importer& importer,
                        const LoadedTrace& loaded, const trace::StringPool& names,
                        RunInputs& inputs, std::vector<std::string>& notes);

// The profiled run's figures with its generated tokens (the flag, else the log, else step
// ranges + 1), and the tokens the window stands for (a sampled recording's share). Errors
// (kData): more tokens than the window has dispatches.
struct TokenCount {
  trace::BenchResults profiled;
  std::optional<double> window_tokens;
};
base::StatusOr<TokenCount> CountTokens(const SummarizeRequest& req, const trace::BenchLog& log,
                                       const LoadedTrace& loaded);

// The notes of how the window was found: sampled by time, a loop found without marks, the
// engine's own steps.
void AddWindowNotes(const LoadedTrace& loaded, std::vector<std::string>& notes);
// The note of a sampled recording, completed with the tracing and sampling cost once the
// summary is built (CompleteSampledNote); its index in `notes`, if any.
std::optional<size_t> AddSampledNote(const LoadedTrace& loaded, const TokenCount& tokens,
                                     std::vector<std::string>& notes);
void CompleteSampledNote(const analysis::Sampling& m, std::string& note);

// Whether the decode's steps replay graphs (analysis::SummaryInputs::graph_replay).
bool ReplaysGraphs(const analysis::DecodeWindow& w, const trace::ImportedTrace& info,
                   const trace::StringPool& names);

// The summary's warnings of recorder trouble, in the words decodeprof always used.
void AddRecorderWarnings(const trace::Diagnostics& diag, std::vector<trace::DiagMessage>& warnings);

// The speed-of-light ledger into `ledger`, when the model is given (--model-dir's config.json
// or --gguf). What keeps it out is a warning (speed_of_light_left_out) and a note with the
// reason; nothing else of the summary changes.
base::Status ComputeLedger(const SummarizeRequest& req, const ModelInfo& model_info,
                           const analysis::SummaryInputs& in,
                           const analysis::Attribution& attribution, const LoadedTrace& loaded,
                           std::vector<std::string>& notes, trace::Diagnostics& diagnostics,
                           std::optional<analysis::SpeedOfLight>& ledger);

// Every diagnostic of the run after the summary is built, into `diag` (the import's):
// the inputs', the sampling's, the tokens against the steps, the analysis', the window's
// overlaps and stream order.
void AddRunDiagnostics(const SummarizeRequest& req, const RunInputs& inputs,
                       const TokenCount& tokens, const LoadedTrace& loaded,
                       const trace::StringPool& names, const analysis::Summary& summary,
                       const analysis::Attribution& attribution, trace::Diagnostics& diag);

// The first diagnostic of severity error, as a kData status naming its file (else the trace).
base::Status FirstError(const SummarizeRequest& req, const trace::Diagnostics& diag);

}  // namespace decodeprof::pipeline
