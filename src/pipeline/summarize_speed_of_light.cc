// The speed-of-light ledger of ComputeRun (summarize_stages.h; analysis/speed_of_light.h,
// docs/speed-of-light.md): the bytes a step moves at the window's mean context, the peak
// bandwidth (--peak-bandwidth, the trace's measured peak, the device table), and the window's
// steps.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/speed_of_light.h"
#include "src/base/py_format.h"
#include "src/device/peak_bandwidth.h"
#include "src/model/model_bytes.h"
#include "src/pipeline/summarize_stages.h"

namespace decodeprof::pipeline {
namespace {

// The peak bandwidth of the summarized devices, or the reason none is known in `why`.
base::StatusOr<std::optional<device::PeakBandwidth>> PeakOf(const SummarizeRequest& req,
                                                            const trace::ImportedTrace& info,
                                                            std::string& why) {
  std::vector<std::string> device_names;
  for (const trace::Device& d : info.devices) {
    if (!req.device || d.id == *req.device) device_names.push_back(d.name);
  }
  DP_ASSIGN_OR_RETURN(const std::optional<device::PeakBandwidth> peak,
                      device::ResolvePeak(req.peak_bandwidth, info.meta, device_names));
  if (!peak) {
    std::string names;
    for (const std::string& n : device_names) names += (names.empty() ? "" : ", ") + n;
    why = "no peak bandwidth known for " +
          (names.empty() ? std::string("this trace (it names no device)") : "device " + names) +
          ": give --peak-bandwidth (GB/s, or `decodeprof bandwidth`'s JSON)";
  }
  return peak;
}

// Steps the window holds: the sampled steps, the steps found or counted, else the forward
// passes of the generated tokens (the first token comes from the prefill). 0: unknown.
double StepsOf(const LoadedTrace& loaded, const trace::BenchResults& profiled) {
  if (loaded.sampling) return static_cast<double>(loaded.sampling->steps_sampled);
  if (loaded.trace.steps && *loaded.trace.steps > 0) {
    return static_cast<double>(*loaded.trace.steps);
  }
  if (profiled.generated_tokens && *profiled.generated_tokens > 1) {
    return static_cast<double>(*profiled.generated_tokens - 1);
  }
  return 0;
}

// The mean context of the steps: the prompt, then one more token each step (the token a
// step makes attends to the prompt, the tokens before it and itself). Without a prompt
// length a model with a KV cache is a warning (speed_of_light_context_unknown).
void SetContext(const SummarizeRequest& req, const trace::BenchResults& profiled, double steps,
                const model::ModelBytes& bytes, const std::string& where,
                analysis::SpeedOfLightInputs& sol, trace::Diagnostics& diagnostics) {
  if (req.context_tokens) {
    sol.context_tokens = *req.context_tokens;
    sol.context_source = "--context-tokens";
  } else if (profiled.prompt_tokens) {
    const double decode_steps =
        profiled.generated_tokens
            ? static_cast<double>(std::max<int64_t>(*profiled.generated_tokens - 1, 1))
            : steps;
    sol.context_tokens = static_cast<double>(*profiled.prompt_tokens) + (decode_steps + 1) / 2;
    sol.context_source = "prompt " + std::to_string(*profiled.prompt_tokens) + " + the mean of " +
                         base::FormatFixed(decode_steps, 0) + " decode positions";
  } else {
    sol.context_tokens = (steps + 1) / 2;
    sol.context_source = "the decode's own tokens only (prompt unknown)";
    if (bytes.KvBytes(1) > 0) {
      diagnostics.Add(trace::Message<trace::Msg::kNoPromptLength>(), 1, where);
    }
  }
}

// The model's name and source, and the bytes a step moves at the context, by kind.
void SetModelBytes(const SummarizeRequest& req, const model::ModelBytes& bytes,
                   analysis::SpeedOfLightInputs& sol) {
  const std::filesystem::path source(bytes.source);
  sol.model = req.gguf.empty()
                  ? std::filesystem::path(req.model_dir).lexically_normal().filename().string()
                  : source.stem().string();
  if (sol.model.empty()) sol.model = source.parent_path().filename().string();
  sol.model_source = bytes.source;
  sol.architecture = bytes.architecture;
  sol.weight_format = bytes.weight_format;
  const auto context = static_cast<int64_t>(std::llround(sol.context_tokens));
  for (std::string_view kind_name : analysis::kMovableBytes) {
    model::ByteKind kind;
    if (!model::ParseByteKind(kind_name, kind)) continue;
    const int64_t b = bytes.BytesOf(kind, context);
    if (b > 0) sol.bytes_by_kind.emplace_back(std::string(kind_name), static_cast<double>(b));
  }
  sol.weight_bytes = static_cast<double>(bytes.WeightBytes());
  sol.kv_bytes = static_cast<double>(bytes.KvBytes(context));
  sol.state_bytes = static_cast<double>(bytes.StateBytes());
  sol.notes = bytes.notes;
}

}  // namespace

base::Status ComputeLedger(const SummarizeRequest& req, const ModelInfo& model_info,
                           const analysis::SummaryInputs& in,
                           const analysis::Attribution& attribution, const LoadedTrace& loaded,
                           std::vector<std::string>& notes, trace::Diagnostics& diagnostics,
                           std::optional<analysis::SpeedOfLight>& ledger) {
  // --model-dir without a config.json: model_dir_without_config says so already.
  const std::string model_path = req.gguf.empty() ? model_info.config_path : req.gguf;
  if (model_path.empty()) return base::OkStatus();
  const std::string& where = req.gguf.empty() ? req.model_dir : req.gguf;  // what the user named
  const auto left_out = [&](const std::string& why) {
    diagnostics.Add(trace::Diag::kSpeedOfLightLeftOut, 1, {where, "", why});
    notes.push_back("speed of light: left out: " + why);
    return base::OkStatus();
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
    return left_out(bytes.status().ToString());
  }
  std::string why;
  DP_ASSIGN_OR_RETURN(const std::optional<device::PeakBandwidth> peak,
                      PeakOf(req, loaded.trace.info, why));
  if (!peak) return left_out(why);
  const double steps = StepsOf(loaded, in.profiled);
  if (steps <= 0) {
    return left_out(
        "the window's decode steps are unknown (no step ranges, no loop found, no token "
        "count): give --generated-tokens or a bench log");
  }
  analysis::SpeedOfLightInputs sol;
  SetContext(req, in.profiled, steps, *bytes, where, sol, diagnostics);
  SetModelBytes(req, *bytes, sol);
  sol.peak_gbps = peak->gbps;
  sol.peak_source = peak->source;
  sol.peak_detail = peak->detail;
  sol.steps = steps;
  if (loaded.sampling) {
    sol.notes.push_back(
        "a sampled window: the context is the decode's mean, not the sampled "
        "steps' own");
  }
  base::StatusOr<analysis::SpeedOfLight> computed =
      analysis::ComputeSpeedOfLight(sol, in, attribution);
  if (!computed.ok()) return left_out(computed.status().ToString());
  ledger = *computed;  // summarize's terminal output prints it (report/speed_of_light_render.h)
  return base::OkStatus();
}

}  // namespace decodeprof::pipeline
