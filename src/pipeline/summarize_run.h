// decodeprof::pipeline — the `summarize` job end to end: load the pack and units, read the
// bench logs and the model config, stream the trace through the window cut, attribute,
// summarize and write the outputs. The CLI only parses options into a SummarizeRequest and
// prints the result; this module is the one place that joins io, packs, analysis and report.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "src/analysis/summary.h"
#include "src/base/status.h"
#include "src/pipeline/summarize_request.h"
#include "src/pipeline/trace_source.h"
#include "src/trace/diagnostics.h"
#include "src/trace/trace.h"

namespace decodeprof::pipeline {

struct SummarizeResult {
  analysis::Summary summary;
  std::vector<std::string> written;  // output paths
  std::vector<std::string> notes;    // what was chosen on the user's behalf (default pack, ...)
  std::string format;                // the importer that read the trace
};

// Runs the job. Nothing is written unless everything was computed; each output is written
// atomically, and on a write failure the outputs already written are removed. Before any
// input is read: `name` must pass base::CheckOutputName and `out_dir` must not be "-"
// (kUsage), and each output must pass base::CheckOutputTarget against the inputs (trace,
// logs, pack, units, model config): a symlink, directory, device... there is kIo, an input
// kUsage.
base::StatusOr<SummarizeResult> RunSummarize(const SummarizeRequest& request);

// RunSummarize in two halves, for jobs that combine several summaries before writing them
// (summarize_ranks.h): ComputeRun reads and computes everything and writes nothing;
// WriteComputedRun writes the outputs of `run.result.summary` (as it is then) the way
// RunSummarize does. Neither checks the outputs before reading: CheckSummarizeOutputs does.
class ComputedRun {
 public:
  ComputedRun();
  ~ComputedRun();
  ComputedRun(ComputedRun&&) noexcept;
  ComputedRun& operator=(ComputedRun&&) noexcept;

  SummarizeResult result;  // `written` is filled by WriteComputedRun

  // The decode window, the import's details, the pack and each window dispatch's class.
  const analysis::DecodeWindow& window() const;
  const trace::ImportedTrace& info() const;
  const analysis::Pack& pack() const;
  std::span<const analysis::ClassId> classes() const;
  // Counts a diagnostic into the run's table and refreshes result.summary.diagnostics.
  void AddDiagnostic(trace::Diag code, int64_t count, trace::DiagnosticExample first);

 private:
  struct Parts;
  friend base::Status ComputeRun(const SummarizeRequest& request, ComputedRun& run);
  friend base::Status WriteComputedRun(const SummarizeRequest& request, ComputedRun& run);
  std::unique_ptr<Parts> parts_;
};

base::Status ComputeRun(const SummarizeRequest& request, ComputedRun& run);
base::Status WriteComputedRun(const SummarizeRequest& request, ComputedRun& run);
base::Status CheckSummarizeOutputs(const SummarizeRequest& request);

}  // namespace decodeprof::pipeline
