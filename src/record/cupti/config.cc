#include "src/record/cupti/config.h"

#include <initializer_list>

#include <optional>
#include <string_view>
#include <tuple>

#include "src/base/parse.h"
#include "src/record/only_range.h"

namespace decodeprof::record::cupti {
namespace {

base::Status ReadUnsigned(const GetEnvFn& getenv, const char* name, uint64_t min, uint64_t max,
                          uint64_t* out) {
  const char* text = getenv(name);
  if (text == nullptr) return base::OkStatus();
  const std::optional<uint64_t> value = base::ParseUnsigned(text);
  if (!value || *value < min || *value > max) {
    return base::ConfigError(name, "expected an integer from " + std::to_string(min) + " to " +
                                       std::to_string(max) + ", got '" + text + "'");
  }
  *out = *value;
  return base::OkStatus();
}

base::Status ReadSwitch(const GetEnvFn& getenv, const char* name, bool* out) {
  const char* text = getenv(name);
  if (text == nullptr) return base::OkStatus();
  const std::string_view value(text);
  if (value != "0" && value != "1") {
    return base::ConfigError(name, "expected 0 or 1, got '" + std::string(value) + "'");
  }
  *out = value == "1";
  return base::OkStatus();
}

// A variable whose value is one of `choices` (name, value), e.g. "time"; left as it is when
// unset. Error: "expected A, B or C, got 'x'".
template <typename Enum>
base::Status ReadChoice(const GetEnvFn& getenv, const char* name,
                        std::initializer_list<std::pair<std::string_view, Enum>> choices,
                        Enum* out) {
  const char* text = getenv(name);
  if (text == nullptr) return base::OkStatus();
  std::string expected;
  size_t i = 0;
  for (const auto& [choice, value] : choices) {
    if (choice == text) {
      *out = value;
      return base::OkStatus();
    }
    if (i > 0) expected += i + 1 == choices.size() ? " or " : ", ";
    expected += choice;
    ++i;
  }
  return base::ConfigError(name, "expected " + expected + ", got '" + std::string(text) + "'");
}

struct RankVariables {
  const char* rank;
  const char* world_size;
  const char* local_rank;
};
constexpr RankVariables kRankVariables[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

}  // namespace

std::vector<std::pair<std::string, std::string>> JobMeta(const GetEnvFn& getenv) {
  std::vector<std::pair<std::string, std::string>> meta;
  std::string problems;
  const auto problem = [&](const std::string& text) {
    problems += (problems.empty() ? "" : "; ") + text;
  };
  // A variable's value as a number; nullopt (and a problem) when set but not plain decimal.
  const auto number = [&](const char* name) -> std::optional<uint64_t> {
    const char* text = getenv(name);
    if (text == nullptr) return std::nullopt;
    std::optional<uint64_t> value = base::ParseUnsigned(text);
    if (!value || *value > 0x7fffffff) {
      problem(std::string(name) + "='" + text + "' is not a rank or size");
      return std::nullopt;
    }
    return value;
  };
  for (const RankVariables& v : kRankVariables) {
    if (getenv(v.rank) == nullptr) continue;
    const std::optional<uint64_t> rank = number(v.rank);
    const std::optional<uint64_t> size = number(v.world_size);
    const std::optional<uint64_t> local = number(v.local_rank);
    if (!rank) break;
    if (size && *rank >= *size) {
      problem(std::string(v.rank) + " " + std::to_string(*rank) + " is not below " + v.world_size +
              " " + std::to_string(*size));
      break;
    }
    meta.emplace_back("rank", std::to_string(*rank));
    if (size) meta.emplace_back("world_size", std::to_string(*size));
    if (local) meta.emplace_back("local_rank", std::to_string(*local));
    meta.emplace_back("rank_source", v.rank);
    break;
  }
  if (!problems.empty()) meta.emplace_back("rank_problem", problems);
  const char* root = getenv("DECODEPROF_RECORD_ROOT_PID");
  const char* output = getenv("DECODEPROF_RECORD_OUTPUT");
  if (root != nullptr && output != nullptr) {
    meta.emplace_back("run_id", std::string(root) + ":" + output);
  }
  if (const char* visible = getenv("CUDA_VISIBLE_DEVICES")) {
    meta.emplace_back("cuda_visible_devices", visible);
  }
  return meta;
}

std::string ChildOutputPath(const std::string& output, pid_t pid) {
  constexpr std::string_view kExt = ".sqlite";
  std::string tag = ".";  // (not "." + to_string: GCC 12 -O3 -Wrestrict false positive)
  tag += std::to_string(pid);
  if (output.size() > kExt.size() &&
      std::string_view(output).substr(output.size() - kExt.size()) == kExt) {
    return output.substr(0, output.size() - kExt.size()) + tag + std::string(kExt);
  }
  return output + tag;
}

base::StatusOr<RecorderConfig> ReadRecorderConfig(const GetEnvFn& getenv, pid_t pid,
                                                  std::string* output_if_known) {
  RecorderConfig config;
  const char* output = getenv("DECODEPROF_RECORD_OUTPUT");
  if (output == nullptr || *output == '\0') return config;  // not under `decodeprof record`
  config.output = output;
  DP_RETURN_IF_ERROR(ReadSwitch(getenv, "DECODEPROF_RECORD_FOLLOW_FORK", &config.follow_fork));
  uint64_t root_pid = 0;
  DP_RETURN_IF_ERROR(ReadUnsigned(getenv, "DECODEPROF_RECORD_ROOT_PID", 1, 0x7fffffff, &root_pid));
  if (root_pid != 0 && root_pid != static_cast<uint64_t>(pid)) {
    if (!config.follow_fork) return config;  // a child, not followed: enabled stays false
    config.output = ChildOutputPath(config.output, pid);
  }
  if (output_if_known != nullptr) *output_if_known = config.output;
  if (const char* lib = getenv("DECODEPROF_CUPTI_LIB")) config.cupti_lib = lib;
  uint64_t buffer_kb = config.buffer_bytes >> 10;
  DP_RETURN_IF_ERROR(ReadUnsigned(getenv, "DECODEPROF_RECORD_BUFFER_KB", 64, 1 << 20, &buffer_kb));
  config.buffer_bytes = buffer_kb << 10;
  DP_RETURN_IF_ERROR(
      ReadUnsigned(getenv, "DECODEPROF_RECORD_MAX_BUFFERS", 2, 1 << 16, &config.max_buffers));
  DP_RETURN_IF_ERROR(
      ReadUnsigned(getenv, "DECODEPROF_RECORD_COMMIT_MS", 1, 3600000, &config.commit_ms));
  DP_RETURN_IF_ERROR(
      ReadUnsigned(getenv, "DECODEPROF_RECORD_FLUSH_MS", 0, 3600000, &config.flush_ms));
  DP_RETURN_IF_ERROR(ReadSwitch(getenv, "DECODEPROF_RECORD_API", &config.api_calls));
  DP_RETURN_IF_ERROR(ReadSwitch(getenv, "DECODEPROF_RECORD_MEMORY", &config.memory_ops));
  DP_RETURN_IF_ERROR(ReadSwitch(getenv, "DECODEPROF_RECORD_QUIET", &config.quiet));
  DP_RETURN_IF_ERROR(ReadSwitch(getenv, "DECODEPROF_RECORD_DISCARD", &config.discard));
  if (const char* clock = getenv("DECODEPROF_RECORD_CLOCK")) {
    const std::string_view value(clock);
    if (value == "offset") {
      config.clock = RecorderConfig::Clock::kOffset;
    } else if (value != "callback") {
      return base::ConfigError("DECODEPROF_RECORD_CLOCK",
                               "expected callback or offset, got '" + std::string(value) + "'");
    }
  }
  if (const char* name = getenv(kOnlyRangeVariable)) {
    if (const std::string problem = OnlyRangeNameProblem(name); !problem.empty()) {
      return base::ConfigError(kOnlyRangeVariable, problem);
    }
    config.only_range = name;
  }
  DP_RETURN_IF_ERROR(
      ReadUnsigned(getenv, "DECODEPROF_RECORD_SAMPLE_STEPS", 1, 1000000, &config.sample_steps));
  if (const char* name = getenv("DECODEPROF_RECORD_STEP_RANGE")) {
    if (const std::string problem = OnlyRangeNameProblem(name); !problem.empty()) {
      return base::ConfigError("DECODEPROF_RECORD_STEP_RANGE", problem);
    }
    config.step_range = name;
  }
  if (const char* text = getenv("DECODEPROF_RECORD_SAMPLE_TIME")) {
    const auto sample = ParseSampleTime(text);
    if (!sample) {
      return base::ConfigError("DECODEPROF_RECORD_SAMPLE_TIME",
                               "expected ON/PERIOD in milliseconds, 1 <= ON < PERIOD <= 3600000, "
                               "got '" +
                                   std::string(text) + "'");
    }
    std::tie(config.sample_on_ms, config.sample_period_ms) = *sample;
  }
  using ApiGate = RecorderConfig::ApiGate;
  DP_RETURN_IF_ERROR(
      ReadChoice(getenv, "DECODEPROF_RECORD_API_GATE",
                 {{"time", ApiGate::kTime}, {"switch", ApiGate::kSwitch}, {"off", ApiGate::kOff}},
                 &config.api_gate));
  if (config.sample_period_ms > 0 && (config.sample_steps > 1 || !config.only_range.empty())) {
    return base::ConfigError("DECODEPROF_RECORD_SAMPLE_TIME",
                             "cannot be combined with DECODEPROF_RECORD_SAMPLE_STEPS or " +
                                 std::string(kOnlyRangeVariable));
  }
  if (config.sample_steps > 1 && !config.only_range.empty()) {
    return base::ConfigError("DECODEPROF_RECORD_SAMPLE_STEPS",
                             "cannot be combined with " + std::string(kOnlyRangeVariable));
  }
  using PeriodEnd = RecorderConfig::PeriodEnd;
  DP_RETURN_IF_ERROR(ReadChoice(getenv, "DECODEPROF_RECORD_PERIOD_END",
                                {{"wait", PeriodEnd::kWait}, {"switch", PeriodEnd::kSwitch}},
                                &config.period_end));
  DP_RETURN_IF_ERROR(ReadSwitch(getenv, "DECODEPROF_RECORD_GRAPH_STEPS", &config.graph_steps));
  DP_RETURN_IF_ERROR(
      ReadUnsigned(getenv, "DECODEPROF_RECORD_SAMPLE_STRETCH", 0, 1000, &config.sample_stretch));
  DP_RETURN_IF_ERROR(
      ReadSwitch(getenv, "DECODEPROF_RECORD_ENABLE_AT_ATTACH", &config.enable_at_attach));
  DP_RETURN_IF_ERROR(ReadSwitch(getenv, "DECODEPROF_RECORD_GRAPH_WATCH", &config.graph_watch));
  if (const char* lib = getenv("DECODEPROF_CUDA_DRIVER_LIB")) config.driver_lib = lib;
  // Detaching between periods: off unless asked for. Attaching CUPTI again failed
  // (CUPTI_ERROR_NOT_INITIALIZED) and the program died on the H200 (PyTorch, CUPTI 13.0:
  // docs/recording.md "Sampled recording"); never once the program made or launched a CUDA
  // graph (recorder.h).
  config.detach = false;
  DP_RETURN_IF_ERROR(ReadSwitch(getenv, "DECODEPROF_RECORD_DETACH", &config.detach));
  if (!config.sampling() && config.only_range.empty()) config.detach = false;  // no periods
  config.enabled = true;
  return config;
}

}  // namespace decodeprof::record::cupti
