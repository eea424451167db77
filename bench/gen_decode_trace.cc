// decodeprof_gen_trace: writes a synthetic profiled decode run (rocprofv3 kernel trace, stats,
// bench logs, model config) as the seed harness would have captured it. Used by the
// benchmarks, the demo script and tests. See bench/synth_run.h for the files and the run.
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "bench/synth_run.h"
#include "src/base/parse.h"
#include "src/base/status.h"

namespace {

using decodeprof::base::Status;
using decodeprof::base::UsageError;

constexpr std::string_view kUsage =
    "usage: decodeprof_gen_trace --model llama|qwen3-moe|mamba2-hybrid --name NAME\n"
    "                            --out-dir DIR [--tokens N] [--warmup-tokens N]\n"
    "                            [--prompt-tokens N] [--temperature T] [--top-p P]\n"
    "                            [--seed S] [--target-bytes N] [--monotonic-offset-ns N]\n"
    "\n"
    "Writes DIR/NAME_kernel_trace.csv, NAME_kernel_stats.csv, NAME_bench.log,\n"
    "NAME_plain_bench.log and NAME_model/config.json. Defaults: --tokens 128,\n"
    "--warmup-tokens 20, --prompt-tokens 512, --temperature 0 (greedy), --top-p 1,\n"
    "--seed 1. --target-bytes extends the decode until the trace reaches N bytes.\n"
    "The same arguments always give byte-identical files.\n";

Status ParseInt(std::string_view flag, std::string_view text, int64_t* out) {
  auto v = decodeprof::base::ParseInt64(text);
  if (!v) return UsageError(std::string(flag) + ": not an integer: '" + std::string(text) + "'");
  *out = *v;
  return decodeprof::base::OkStatus();
}

Status ParseU64(std::string_view flag, std::string_view text, uint64_t* out) {
  auto v = decodeprof::base::ParseUnsigned(text);
  if (!v) {
    return UsageError(std::string(flag) + ": not a non-negative integer: '" + std::string(text) +
                      "'");
  }
  *out = *v;
  return decodeprof::base::OkStatus();
}

Status ParseReal(std::string_view flag, std::string_view text, double* out) {
  auto v = decodeprof::base::ParseDouble(text);
  if (!v) return UsageError(std::string(flag) + ": not a number: '" + std::string(text) + "'");
  *out = *v;
  return decodeprof::base::OkStatus();
}

Status ParseArgs(int argc, char** argv, decodeprof::bench::GenOptions* o, bool* help) {
  bool have_model = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      *help = true;
      return decodeprof::base::OkStatus();
    }
    if (!arg.starts_with("--")) return UsageError("unexpected argument '" + std::string(arg) + "'");
    std::string_view flag = arg;
    std::optional<std::string_view> value;
    if (const size_t eq = arg.find('='); eq != std::string_view::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    }
    if (!value) return UsageError(std::string(flag) + " needs a value");
    const std::string_view v = *value;
    if (flag == "--model") {
      auto kind = decodeprof::bench::ParseModelKind(v);
      if (!kind) {
        return UsageError("--model: unknown model '" + std::string(v) +
                          "' (llama, qwen3-moe, mamba2-hybrid)");
      }
      o->model = *kind;
      have_model = true;
    } else if (flag == "--tokens") {
      DP_RETURN_IF_ERROR(ParseInt(flag, v, &o->tokens));
    } else if (flag == "--warmup-tokens") {
      DP_RETURN_IF_ERROR(ParseInt(flag, v, &o->warmup_tokens));
    } else if (flag == "--prompt-tokens") {
      DP_RETURN_IF_ERROR(ParseInt(flag, v, &o->prompt_tokens));
    } else if (flag == "--temperature") {
      DP_RETURN_IF_ERROR(ParseReal(flag, v, &o->temperature));
    } else if (flag == "--top-p") {
      DP_RETURN_IF_ERROR(ParseReal(flag, v, &o->top_p));
    } else if (flag == "--name") {
      o->name = std::string(v);
    } else if (flag == "--out-dir") {
      o->out_dir = std::string(v);
    } else if (flag == "--seed") {
      DP_RETURN_IF_ERROR(ParseU64(flag, v, &o->seed));
    } else if (flag == "--target-bytes") {
      DP_RETURN_IF_ERROR(ParseU64(flag, v, &o->target_bytes));
    } else if (flag == "--monotonic-offset-ns") {
      DP_RETURN_IF_ERROR(ParseU64(flag, v, &o->monotonic_offset_ns));
    } else {
      return UsageError("unknown option '" + std::string(flag) + "'");
    }
  }
  if (!have_model) return UsageError("--model is required");
  if (o->name.empty()) return UsageError("--name is required");
  if (o->out_dir.empty()) return UsageError("--out-dir is required");
  return decodeprof::base::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  decodeprof::bench::GenOptions options;
  bool help = false;
  if (Status s = ParseArgs(argc, argv, &options, &help); !s.ok()) {
    std::fprintf(stderr, "decodeprof_gen_trace: %s\n%.*s", s.ToString().c_str(),
                 static_cast<int>(kUsage.size()), kUsage.data());
    return s.exit_code();
  }
  if (help) {
    std::fwrite(kUsage.data(), 1, kUsage.size(), stdout);
    return 0;
  }
  auto result = decodeprof::bench::GenerateRun(options);
  if (!result.ok()) {
    std::fprintf(stderr, "decodeprof_gen_trace: %s\n", result.status().ToString().c_str());
    return result.status().exit_code();
  }
  const auto& r = *result;
  std::printf(
      "%s: %llu dispatches, %llu bytes; %lld generated tokens, %llu decode dispatches "
      "(%llu per forward pass), %.2f tok/s\n",
      r.trace_path.c_str(), static_cast<unsigned long long>(r.dispatches),
      static_cast<unsigned long long>(r.trace_bytes), static_cast<long long>(r.generated_tokens),
      static_cast<unsigned long long>(r.decode_dispatches),
      static_cast<unsigned long long>(r.decode_step_dispatches), r.decode_tok_s);
  return 0;
}
