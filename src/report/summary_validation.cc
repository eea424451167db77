#include "src/report/summary_validation.h"

#include <cmath>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "src/report/summary_json.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

enum class Type { kNumber, kInteger, kString };

// What a number may be: a count, a time or a rate is >= 0 and at most kLargest (no run
// reaches 10^12 ms, dispatches or tokens); a percentage is 0..100; a speedup bound is >= 1.
enum class Range { kAny, kNonNegative, kPercent, kCeiling };
constexpr double kLargest = 1e12;
constexpr double kRoundingSlack = 0.01;  // the summary's figures are rounded

struct Field {
  std::string_view key;
  Type type;
  Range range = Range::kAny;
};

// The scalar fields of a run, in the order summarize writes them.
constexpr Field kRunFields[] = {
    {"model_type", Type::kString},
    {"temperature", Type::kNumber, Range::kNonNegative},
    {"clock", Type::kString},
    {"prompt_tokens", Type::kInteger, Range::kNonNegative},
    {"generated_tokens", Type::kInteger, Range::kNonNegative},
    {"profiled_decode_tok_s", Type::kNumber, Range::kNonNegative},
    {"plain_decode_tok_s", Type::kNumber, Range::kNonNegative},
    {"profiler_decode_slowdown_pct", Type::kNumber},
    {"decode_dispatches", Type::kInteger, Range::kNonNegative},
    {"dispatches_per_token", Type::kNumber, Range::kNonNegative},
    {"decode_wall_ms", Type::kNumber, Range::kNonNegative},
    {"decode_gpu_sum_ms", Type::kNumber, Range::kNonNegative},
    {"decode_gpu_busy_ms", Type::kNumber, Range::kNonNegative},
    {"gpu_ms_per_token", Type::kNumber, Range::kNonNegative},
    {"host_gap_ms_per_token", Type::kNumber, Range::kNonNegative},
    {"host_gap_pct_of_wall", Type::kNumber, Range::kPercent},
    {"plain_wall_ms_per_token", Type::kNumber, Range::kNonNegative},
    {"plain_host_gap_ms_per_token_est", Type::kNumber},
    {"decode_forward_passes", Type::kInteger, Range::kNonNegative},
    {"window_tokens", Type::kNumber, Range::kNonNegative},
    {"pack", Type::kString},
    {"units_file", Type::kString},
    {"trace_format", Type::kString},
    {"trace_file", Type::kString},
    {"device", Type::kInteger, Range::kNonNegative},
    {"window_source", Type::kString},
    {"workload", Type::kString},
};

constexpr Field kCheckFields[] = {
    {"kernels_straddling_decode_start", Type::kInteger, Range::kNonNegative},
    {"host_gap_attribution_residual_ns", Type::kNumber},
    {"idle_gap_before_first_decode_dispatch_us", Type::kNumber},
};

constexpr Field kTopKernelFields[] = {
    {"class", Type::kString},
    {"calls_per_token", Type::kNumber, Range::kNonNegative},
    {"share_pct", Type::kNumber, Range::kPercent},
};

constexpr Field kUnitFields[] = {
    {"port", Type::kString},
    {"fallback_share_pct", Type::kNumber, Range::kPercent},
    {"fallback_dispatches_per_token", Type::kNumber, Range::kNonNegative},
    {"reached_default_share_pct", Type::kNumber, Range::kPercent},
    {"reached_default_dispatches_per_token", Type::kNumber, Range::kNonNegative},
    {"reached_optin_share_pct", Type::kNumber, Range::kPercent},
    {"fallback_host_gap_ms_per_token", Type::kNumber, Range::kNonNegative},
    {"fallback_host_gap_us_per_dispatch", Type::kNumber, Range::kNonNegative},
    {"fallback_wall_share_pct", Type::kNumber, Range::kPercent},
    {"ceiling_gpu_share", Type::kNumber, Range::kCeiling},
    {"ceiling_wall", Type::kNumber, Range::kCeiling},
    {"plain_ceiling_wall_est", Type::kNumber, Range::kNonNegative},
    {"reached_default_host_gap_ms_per_token", Type::kNumber, Range::kNonNegative},
    {"host_gap", Type::kString},
};

constexpr Field kDiagnosticFields[] = {
    {"code", Type::kString},
    {"severity", Type::kString},
    {"count", Type::kInteger, Range::kNonNegative},
    {"meaning", Type::kString},
};

constexpr Field kDiagnosticFirstFields[] = {
    {"file", Type::kString},
    {"position", Type::kString},
    {"detail", Type::kString},
};

base::Status Error(const SummaryFile& summary, std::string message) {
  return base::DataError(summary.path, std::move(message));
}

// `value`, the field `<prefix>key`: null, or a finite number.
base::Status CheckNumber(const SummaryFile& summary, const Json& value, std::string_view prefix,
                         std::string_view key) {
  if (value.is_null()) return base::OkStatus();
  if (!value.is_number()) {
    return Error(summary, FieldName(prefix, key) + " is neither a number nor null");
  }
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    return Error(summary, FieldName(prefix, key) + " is not a finite number");
  }
  return base::OkStatus();
}

// A present number against its range.
base::Status CheckRange(const SummaryFile& summary, const Json& value, std::string_view prefix,
                        std::string_view key, Range range) {
  if (range == Range::kAny || !value.is_number()) return base::OkStatus();
  const double x = value.get<double>();
  switch (range) {
    case Range::kAny:
      break;
    case Range::kNonNegative:
      if (x < 0 || x > kLargest) {
        return Error(summary, FieldName(prefix, key) + " is " + value.dump() +
                                  ": a count, time or rate of a run is from 0 to 1e12");
      }
      break;
    case Range::kPercent:
      if (x < 0 || x > 100 + kRoundingSlack) {
        return Error(summary, FieldName(prefix, key) + " is " + value.dump() +
                                  ": a percentage is from 0 to 100");
      }
      break;
    case Range::kCeiling:
      if (x < 1 - kRoundingSlack || x > kLargest) {
        return Error(summary, FieldName(prefix, key) + " is " + value.dump() +
                                  ": a speedup bound is at least 1");
      }
      break;
  }
  return base::OkStatus();
}

base::Status CheckField(const SummaryFile& summary, const Json& object, std::string_view prefix,
                        const Field& field) {
  const Json& value = JsonGet(object, field.key);
  if (value.is_null()) return base::OkStatus();
  switch (field.type) {
    case Type::kNumber:
      DP_RETURN_IF_ERROR(CheckNumber(summary, value, prefix, field.key));
      return CheckRange(summary, value, prefix, field.key, field.range);
    case Type::kInteger:
      // is_number_integer() holds for signed and unsigned integers; 12.0 is a float.
      if (value.is_number_integer()) {
        return CheckRange(summary, value, prefix, field.key, field.range);
      }
      return Error(summary, FieldName(prefix, field.key) + " is neither an integer nor null");
    case Type::kString:
      if (value.is_string()) return base::OkStatus();
      return Error(summary, FieldName(prefix, field.key) + " is neither a string nor null");
  }
  return base::OkStatus();
}

base::Status CheckFields(const SummaryFile& summary, const Json& object, std::string_view prefix,
                         std::span<const Field> fields) {
  for (const Field& field : fields) {
    DP_RETURN_IF_ERROR(CheckField(summary, object, prefix, field));
  }
  return base::OkStatus();
}

std::string Indexed(std::string_view key, size_t i) {
  return "`" + std::string(key) + "`[" + std::to_string(i) + "]";
}

// Every summarize version writes `name`; diff and the report name runs by it.
base::Status CheckName(const SummaryFile& summary) {
  if (!summary.content.is_object() || !summary.content.contains("name")) {
    return base::DataError(summary.path, "not a decodeprof summary: no `name` field",
                           "pass the <name>_summary.json files that `decodeprof summarize` "
                           "writes");
  }
  if (!JsonGet(summary.content, "name").is_string()) {
    return Error(summary, "`name` is not a string");
  }
  return base::OkStatus();
}

base::Status CheckChecks(const SummaryFile& summary) {
  const Json& checks = JsonGet(summary.content, "checks");
  if (checks.is_null()) return base::OkStatus();
  if (!checks.is_object()) return Error(summary, "`checks` is not an object");
  return CheckFields(summary, checks, "`checks`.", kCheckFields);
}

base::Status CheckTopKernels(const SummaryFile& summary) {
  const Json& top = JsonGet(summary.content, "top_kernels");
  if (top.is_null()) return base::OkStatus();
  if (!top.is_array()) return Error(summary, "`top_kernels` is not an array");
  for (size_t i = 0; i < top.size(); ++i) {
    const std::string entry = Indexed("top_kernels", i);
    if (!top[i].is_object() || !JsonGet(top[i], "kernel").is_string()) {
      return Error(summary, entry + " has no string `kernel`");
    }
    DP_RETURN_IF_ERROR(CheckFields(summary, top[i], entry + ".", kTopKernelFields));
  }
  return base::OkStatus();
}

// class_share_pct / role_share_pct: {name: share}.
base::Status CheckShareMap(const SummaryFile& summary, std::string_view key) {
  const Json& shares = JsonGet(summary.content, key);
  if (shares.is_null()) return base::OkStatus();
  if (!shares.is_object()) return Error(summary, FieldName("", key) + " is not an object");
  const std::string prefix = FieldName("", key) + ".";
  for (const auto& [name, value] : shares.items()) {
    DP_RETURN_IF_ERROR(CheckNumber(summary, value, prefix, name));
    DP_RETURN_IF_ERROR(CheckRange(summary, value, prefix, name, Range::kPercent));
  }
  return base::OkStatus();
}

base::Status CheckPortUnits(const SummaryFile& summary) {
  const Json& units = JsonGet(summary.content, "port_units");
  if (units.is_null()) return base::OkStatus();
  if (!units.is_object()) return Error(summary, "`port_units` is not an object");
  for (const auto& [id, unit] : units.items()) {
    const std::string name = FieldName("`port_units`.", id);
    if (!unit.is_object()) return Error(summary, name + " is not an object");
    DP_RETURN_IF_ERROR(CheckFields(summary, unit, name + ".", kUnitFields));
  }
  return base::OkStatus();
}

base::Status CheckWarnings(const SummaryFile& summary) {
  const Json& warnings = JsonGet(summary.content, "warnings");
  if (warnings.is_null()) return base::OkStatus();
  if (!warnings.is_array()) return Error(summary, "`warnings` is not an array");
  for (size_t i = 0; i < warnings.size(); ++i) {
    if (!warnings[i].is_string())
      return Error(summary, Indexed("warnings", i) + " is not a string");
  }
  return base::OkStatus();
}

base::Status CheckDiagnostics(const SummaryFile& summary) {
  const Json& diagnostics = JsonGet(summary.content, "diagnostics");
  if (diagnostics.is_null()) return base::OkStatus();
  if (!diagnostics.is_array()) return Error(summary, "`diagnostics` is not an array");
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    const Json& entry = diagnostics[i];
    const std::string name = Indexed("diagnostics", i);
    if (!entry.is_object()) return Error(summary, name + " is not an object");
    DP_RETURN_IF_ERROR(CheckFields(summary, entry, name + ".", kDiagnosticFields));
    const Json& first = JsonGet(entry, "first");
    if (first.is_null()) continue;
    if (!first.is_object()) return Error(summary, name + ".`first` is not an object");
    DP_RETURN_IF_ERROR(CheckFields(summary, first, name + ".`first`.", kDiagnosticFirstFields));
  }
  return base::OkStatus();
}

// `ranked_units` against `port_units` (already checked: an object or null).
base::Status CheckRankedUnits(const SummaryFile& summary) {
  const Json& ranked = JsonGet(summary.content, "ranked_units");
  if (ranked.is_null()) return base::OkStatus();
  if (!ranked.is_array()) return Error(summary, "`ranked_units` is not an array");
  const Json& units = JsonGet(summary.content, "port_units");
  std::unordered_set<std::string_view> unit_ids;
  for (const auto& [id, unit] : units.items()) unit_ids.insert(id);
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const Json& entry = ranked[i];
    const std::string name = Indexed("ranked_units", i);
    const Json& id = JsonGet(entry, "id");
    if (!entry.is_object() || !id.is_string()) {
      return Error(summary, name + " is not an object with a string `id`");
    }
    const std::string& unit = id.get_ref<const std::string&>();
    if (!unit_ids.contains(unit)) {
      return Error(summary, name + ".`id` \"" + unit + "\" is no unit of `port_units`");
    }
    if (!seen.insert(unit).second) {
      return Error(summary, name + ".`id` \"" + unit + "\" is listed twice");
    }
    const Json& by = JsonGet(entry, "by");
    if (!by.is_string() || !RankFigureNamed(by.get_ref<const std::string&>())) {
      return Error(summary,
                   name + ".`by` is neither \"plain_ceiling_wall_est\" nor \"ceiling_wall\"");
    }
    DP_RETURN_IF_ERROR(CheckNumber(summary, JsonGet(entry, "value"), name + ".", "value"));
    DP_RETURN_IF_ERROR(
        CheckRange(summary, JsonGet(entry, "value"), name + ".", "value", Range::kNonNegative));
  }
  if (seen.size() != unit_ids.size()) {
    for (const auto& [id, unit] : units.items()) {
      if (!seen.contains(id))
        return Error(summary, "`ranked_units` lacks `port_units`.`" + id + "`");
    }
  }
  return base::OkStatus();
}

constexpr Field kRankFields[] = {
    {"world_size", Type::kInteger, Range::kNonNegative},
    {"local_rank", Type::kInteger, Range::kNonNegative},
    {"run_id", Type::kString},
    {"group", Type::kString},
};

constexpr Field kCollectiveFields[] = {
    {"count", Type::kInteger, Range::kNonNegative},
    {"total_ms_per_token", Type::kNumber, Range::kNonNegative},
    {"wait_ms_per_token", Type::kNumber, Range::kNonNegative},
    {"transfer_ms_per_token", Type::kNumber, Range::kNonNegative},
    {"pct_of_wall", Type::kNumber, Range::kPercent},
    {"slowest_rank", Type::kInteger, Range::kNonNegative},
};

// `rank` and `collectives` (multi-rank runs, docs/multi-gpu.md).
base::Status CheckRankObjects(const SummaryFile& summary) {
  const Json& rank = JsonGet(summary.content, "rank");
  if (!rank.is_null()) {
    if (!rank.is_object()) return Error(summary, "`rank` is not an object");
    const Json& number = JsonGet(rank, "rank");
    if (!number.is_number_integer() || number.get<int64_t>() < 0) {
      return Error(summary, "`rank`.`rank` is not an integer >= 0");
    }
    DP_RETURN_IF_ERROR(CheckFields(summary, rank, "`rank`.", kRankFields));
  }
  const Json& collectives = JsonGet(summary.content, "collectives");
  if (collectives.is_null()) return base::OkStatus();
  if (!collectives.is_object()) return Error(summary, "`collectives` is not an object");
  DP_RETURN_IF_ERROR(CheckFields(summary, collectives, "`collectives`.", kCollectiveFields));
  const Json& matched = JsonGet(collectives, "matched");
  if (!matched.is_null() && !matched.is_boolean()) {
    return Error(summary, "`collectives`.`matched` is neither a boolean nor null");
  }
  return base::OkStatus();
}

// The window's times against each other: the GPU is busy at most the wall and at most the sum
// of its dispatches.
base::Status CheckWindowTimes(const SummaryFile& summary) {
  const Json& wall = JsonGet(summary.content, "decode_wall_ms");
  const Json& busy = JsonGet(summary.content, "decode_gpu_busy_ms");
  const Json& sum = JsonGet(summary.content, "decode_gpu_sum_ms");
  if (!busy.is_number()) return base::OkStatus();
  const double b = busy.get<double>();
  if (wall.is_number() && b > wall.get<double>() + kRoundingSlack) {
    return Error(summary, "`decode_gpu_busy_ms` " + busy.dump() +
                              " is more than `decode_wall_ms` " + wall.dump() +
                              ": the GPU cannot be busy longer than the window");
  }
  if (sum.is_number() && b > sum.get<double>() + kRoundingSlack) {
    return Error(summary, "`decode_gpu_busy_ms` " + busy.dump() +
                              " is more than `decode_gpu_sum_ms` " + sum.dump() +
                              ": busy time is a union of the dispatches");
  }
  return base::OkStatus();
}

}  // namespace

base::Status ValidateSummary(const SummaryFile& summary) {
  DP_RETURN_IF_ERROR(CheckName(summary));
  DP_RETURN_IF_ERROR(CheckFields(summary, summary.content, "", kRunFields));
  DP_RETURN_IF_ERROR(CheckWindowTimes(summary));
  DP_RETURN_IF_ERROR(CheckChecks(summary));
  DP_RETURN_IF_ERROR(CheckTopKernels(summary));
  DP_RETURN_IF_ERROR(CheckShareMap(summary, "class_share_pct"));
  DP_RETURN_IF_ERROR(CheckShareMap(summary, "role_share_pct"));
  DP_RETURN_IF_ERROR(CheckPortUnits(summary));
  DP_RETURN_IF_ERROR(CheckWarnings(summary));
  DP_RETURN_IF_ERROR(CheckDiagnostics(summary));
  DP_RETURN_IF_ERROR(CheckRankedUnits(summary));
  DP_RETURN_IF_ERROR(CheckRankObjects(summary));
  return ReadSpeedOfLight(summary.content, summary.path).status();
}

}  // namespace decodeprof::report
