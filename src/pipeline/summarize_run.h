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
#include "src/pipeline/trace_source.h"
#include "src/trace/diagnostics.h"
#include "src/trace/trace.h"

namespace decodeprof::pipeline {

struct SummarizeRequest {
  std::string trace;
  std::string format;  // a registry name; "" or "auto": recognized from the file
  // --device: the one device of a multi-device trace to summarize.
  std::optional<int32_t> device;
  // Bench log (optional: without marks the decode loop is found in the trace). On a trace whose
  // clock the log prints (native), its [phase] marks win over annotation ranges; on any other
  // clock (Kineto's realtime, nsys's session) the trace's ranges win and the log's marks are
  // used only without them (pipeline::CutWindow, window_stage.h).
  std::string log;
  // Unprofiled bench logs (optional; --plain-log may repeat): the plain figures are the
  // median run's by decode tok/s, and the summary's plain_runs says the spread.
  std::vector<std::string> plain_logs;
  std::string model_dir;  // optional; config.json is read when present
  // The speed-of-light ledger (analysis/speed_of_light.h; docs/speed-of-light.md): the model's
  // bytes come from --model-dir's config.json or --gguf; the peak from --peak-bandwidth (GB/s
  // or a `decodeprof bandwidth` JSON), the trace's measured peak, or the device table; the
  // context from --context-tokens, else the log's prompt tokens + the mean decode position.
  std::string gguf;
  std::string peak_bandwidth;
  std::optional<double> context_tokens;
  std::string kv_dtype;
  std::string pack;   // "" = chosen from the kernel names (packs::DefaultPackFor)
  std::string units;  // "" = the pack's default_units (none → no units)
  std::string name;
  std::string out_dir;
  double temperature = 0.0;
  // `--synthetic`: the summary's `workload` is "synthetic" (report/run_set.h).
  bool synthetic = false;
  std::string decode_range;  // "" = decodeprof:decode
  std::string step_range;    // "" = decodeprof:step
  std::optional<int64_t> generated_tokens;
  bool emit_dispatches = false;
  WindowSpec window{WindowSpec::Kind::kDecode};  // --window (default: the decode loop)
};

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
