#include "src/analysis/engine_steps.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "src/base/py_format.h"

namespace decodeprof::analysis {
namespace {

// A count in a name: digits that fit an int64 (RE2 leaves out-of-range numbers unparsed).
using Count = int64_t;

// a + b, saturating (the counts come from names: any digits).
Count Sum(Count a, Count b) {
  Count out = 0;
  return __builtin_add_overflow(a, b, &out) ? std::numeric_limits<Count>::max() : out;
}

// The kind of a step that runs `context` prompt requests and `generation` decode requests.
StepKind KindOf(Count context, Count generation) {
  if (context > 0 && generation > 0) return StepKind::kMixed;
  if (context > 0) return StepKind::kPrefill;
  if (generation > 0) return StepKind::kDecode;
  return StepKind::kIdle;
}

// SGLang's scheduler: step[DECODE bs=32], step[EXTEND bs=15 toks=15360], step[MIXED bs=2],
// with more key=value fields after them in detailed builds.
std::optional<StepLabel> ParseSglang(std::string_view name) {
  static const RE2 re(R"(step\[([A-Z_]+) bs=(\d+)(?:/\d+)?((?: [^\]]*)?)\])");
  std::string mode, rest;
  Count bs = 0;
  if (!RE2::FullMatch(name, re, &mode, &bs, &rest)) return std::nullopt;
  StepLabel label;
  label.batch = bs;
  if (mode == "DECODE") {
    label.kind = StepKind::kDecode;
  } else if (mode == "EXTEND") {
    label.kind = StepKind::kPrefill;
  } else if (mode == "MIXED") {
    label.kind = StepKind::kMixed;
  } else if (mode == "IDLE") {
    label.kind = StepKind::kIdle;
  }
  static const RE2 toks(R"((?:^| )toks=(\d+)(?: |$))");
  Count tokens = 0;
  if (RE2::PartialMatch(rest, toks, &tokens)) label.tokens = tokens;
  return label;
}

// vLLM's worker with per-request token statistics (ROCm builds, TraceLens):
// execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37(sq37sk34489...).
std::optional<StepLabel> ParseVllmDetailed(std::string_view name) {
  static const RE2 re(R"(execute_(\d+)_context_(\d+)\([^)]*\)_generation_(\d+)\([^)]*\))");
  Count tokens = 0, context = 0, generation = 0;
  if (!RE2::FullMatch(name, re, &tokens, &context, &generation)) return std::nullopt;
  return StepLabel{KindOf(context, generation), Sum(context, generation), tokens};
}

// vLLM's worker (annotate_profile): execute_context_1(888)_generation_0(0); some builds add
// a second figure in the parentheses, execute_context_1(888_788544)_generation_0(0).
std::optional<StepLabel> ParseVllm(std::string_view name) {
  static const RE2 re(
      R"(execute_context_(\d+)\((\d+)(?:_\d+)*\)_generation_(\d+)\((\d+)(?:_\d+)*\))");
  Count context = 0, context_tokens = 0, generation = 0, generation_tokens = 0;
  if (!RE2::FullMatch(name, re, &context, &context_tokens, &generation, &generation_tokens)) {
    return std::nullopt;
  }
  return StepLabel{KindOf(context, generation), Sum(context, generation),
                   Sum(context_tokens, generation_tokens)};
}

// Later vLLM workers: execute_new_2_cached_30 (new requests are prompts; cached ones are
// running, mostly decodes, though a chunked prompt's later chunks are cached too).
std::optional<StepLabel> ParseVllmNewCached(std::string_view name) {
  static const RE2 re(R"(execute_new_(\d+)_cached_(\d+))");
  Count fresh = 0, cached = 0;
  if (!RE2::FullMatch(name, re, &fresh, &cached)) return std::nullopt;
  return StepLabel{KindOf(fresh, cached), Sum(fresh, cached), std::nullopt};
}

// TensorRT-LLM's PyTorch executor (NVTX): "[Executor] _forward_step 12: 0 ctx reqs, 32 gen
// reqs"; older releases leave out the iteration or the "[Executor] " prefix.
std::optional<StepLabel> ParseTrtllm(std::string_view name) {
  static const RE2 re(
      R"((?:\[Executor\] )?_forward_step(?: \d+)?: (\d+) ctx reqs, (\d+) gen reqs)");
  Count context = 0, generation = 0;
  if (!RE2::FullMatch(name, re, &context, &generation)) return std::nullopt;
  return StepLabel{KindOf(context, generation), Sum(context, generation), std::nullopt};
}

// ATOM (AMD's engine): prefill[bs=2 tok=14721 ctx=[7803, 6918]], decode[bs=64 tok=64 d=64],
// decode[bs=117/128 tok=117 d=117] (a graph padded to 128).
std::optional<StepLabel> ParseAtom(std::string_view name) {
  static const RE2 re(R"((prefill|decode)\[bs=(\d+)(?:/\d+)?(?: tok=(\d+))?(?: .*)?\])");
  std::string phase, tok;
  Count bs = 0;
  if (!RE2::FullMatch(name, re, &phase, &bs, &tok)) return std::nullopt;
  StepLabel label{phase == "decode" ? StepKind::kDecode : StepKind::kPrefill, bs, std::nullopt};
  if (!tok.empty()) {
    Count tokens = 0;
    if (RE2::FullMatch(tok, R"((\d+))", &tokens)) label.tokens = tokens;
  }
  return label;
}

// vLLM's CUDA-graph capture (capture_32_FULL, capture_1_prefill): the captured batch size.
std::optional<StepLabel> ParseCapture(std::string_view name) {
  static const RE2 re(R"(capture_(\d+)_[A-Za-z_]+)");
  Count bs = 0;
  if (!RE2::FullMatch(name, re, &bs)) return std::nullopt;
  return StepLabel{StepKind::kCapture, bs, std::nullopt};
}

// torch.profiler's schedule step (prof.step()): ProfilerStep#6. Its kind is the caller's.
std::optional<StepLabel> ParseProfilerStep(std::string_view name) {
  static const RE2 re(R"(ProfilerStep#\d+)");
  if (!RE2::FullMatch(name, re)) return std::nullopt;
  return StepLabel{};
}

// The table. A new engine: its parser above, and a row here (and docs/engine-steps.md).
constexpr EngineStepRule kRules[] = {
    {"sglang", "SGLang", "step[DECODE bs=32]", ParseSglang},
    {"vllm-detailed", "vLLM (per-request statistics)",
     "execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37("
     "sq37sk34489sqsq37sqsk34489)",
     ParseVllmDetailed},
    {"vllm", "vLLM", "execute_context_0(0)_generation_32(32)", ParseVllm},
    {"vllm-new-cached", "vLLM", "execute_new_0_cached_32", ParseVllmNewCached},
    {"trtllm", "TensorRT-LLM", "[Executor] _forward_step 12: 0 ctx reqs, 32 gen reqs", ParseTrtllm},
    {"atom", "ATOM", "decode[bs=64 tok=64 d=64]", ParseAtom},
    {"vllm-capture", "vLLM (graph capture)", "capture_32_FULL", ParseCapture},
    {"torch-profiler", "torch.profiler", "ProfilerStep#6", ParseProfilerStep},
};

}  // namespace

std::string_view StepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::kDecode:
      return "decode";
    case StepKind::kPrefill:
      return "prefill";
    case StepKind::kMixed:
      return "mixed";
    case StepKind::kCapture:
      return "capture";
    case StepKind::kIdle:
      return "idle";
    case StepKind::kUnknown:
      break;
  }
  return "unknown";
}

std::span<const EngineStepRule> EngineStepRules() { return kRules; }

const EngineStepRule* ReadStepName(std::string_view name, StepLabel* label) {
  for (const EngineStepRule& rule : kRules) {
    if (std::optional<StepLabel> l = rule.parse(name)) {
      if (label != nullptr) *label = *l;
      return &rule;
    }
  }
  return nullptr;
}

int64_t NearestRank(std::span<const int64_t> sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * n));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

std::vector<StepKindStats> StepKindTable(std::span<const StepRecord> steps) {
  std::vector<StepKindStats> out;
  const auto ms = [](double ns) { return base::PyRound(ns / 1e6, 3); };
  for (const StepKind kind : kAllStepKinds) {
    StepKindStats k;
    k.kind = kind;
    std::vector<int64_t> gpu, wall;
    for (const StepRecord& s : steps) {
      if (s.label.kind != kind) continue;
      ++k.steps;
      k.in_window += s.in_window ? 1 : 0;
      if (s.label.batch) k.batch_sizes.push_back(*s.label.batch);
      if (s.label.tokens) k.tokens.push_back(*s.label.tokens);
      k.dispatches += s.dispatches;
      gpu.push_back(s.gpu_busy_ns);
      wall.push_back(s.end_ns - s.start_ns);
    }
    if (k.steps == 0) continue;
    for (std::vector<int64_t>* v : {&k.batch_sizes, &k.tokens}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    std::sort(gpu.begin(), gpu.end());
    std::sort(wall.begin(), wall.end());
    double gpu_sum = 0, wall_sum = 0;
    for (const int64_t g : gpu) gpu_sum += static_cast<double>(g);
    for (const int64_t w : wall) wall_sum += static_cast<double>(w);
    const auto n = static_cast<double>(k.steps);
    k.gpu_ms_mean = ms(gpu_sum / n);
    k.gpu_ms_p50 = ms(static_cast<double>(NearestRank(gpu, 50)));
    k.gpu_ms_p99 = ms(static_cast<double>(NearestRank(gpu, 99)));
    k.wall_ms_mean = ms(wall_sum / n);
    k.wall_ms_p50 = ms(static_cast<double>(NearestRank(wall, 50)));
    k.wall_ms_p99 = ms(static_cast<double>(NearestRank(wall, 99)));
    out.push_back(std::move(k));
  }
  return out;
}

std::string KindCounts(std::span<const StepKindStats> kinds) {
  std::string out;
  for (const StepKindStats& k : kinds) {
    if (!out.empty()) out += ", ";
    out += std::to_string(k.steps) + " " + std::string(StepKindName(k.kind));
  }
  return out;
}

}  // namespace decodeprof::analysis
