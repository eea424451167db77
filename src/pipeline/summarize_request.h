// decodeprof::pipeline — what a `summarize` job is asked (summarize_run.h runs it): the trace,
// the logs, the model, the pack and the outputs. Its own header so that the stages of the job
// (summarize_stages.h) need not include the job's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/pipeline/window_spec.h"

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

}  // namespace decodeprof::pipeline
