#include "src/report/markdown_table.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/py_format.h"

namespace decodeprof::report {

using Json = nlohmann::ordered_json;

bool IsTruthy(const Json& value) {
  switch (value.type()) {
    case Json::value_t::boolean:
      return value.get<bool>();
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return value.get<double>() != 0.0;
    case Json::value_t::string:
      return !value.get_ref<const std::string&>().empty();
    case Json::value_t::array:
    case Json::value_t::object:
      return !value.empty();
    default:
      return false;
  }
}

std::string EscapeCell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string MarkdownRow(const std::vector<std::string>& cells) {
  std::string row = "|";
  for (const std::string& cell : cells) row += " " + cell + " |";
  return row;
}

std::string MarkdownAlignmentRow(size_t right_aligned_columns) {
  std::string row = "|---|";
  for (size_t i = 0; i < right_aligned_columns; ++i) row += "---:|";
  return row;
}

std::string RunLabel(const SummaryFile& summary) {
  return "`" + PyStr(JsonGet(summary.content, "name")) + "`";
}

base::StatusOr<std::vector<std::string>> UnitColumns(const std::vector<SummaryFile>& summaries) {
  std::vector<std::string> ids;
  for (const SummaryFile& summary : summaries) {
    DP_ASSIGN_OR_RETURN(const Json* units, PortUnits(summary));
    if (!units->is_object()) continue;
    for (const auto& [id, unit] : units->items()) {
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
  }
  return ids;
}

std::optional<double> Quotient(std::optional<double> numerator, std::optional<double> divisor) {
  if (!numerator || !divisor || *divisor == 0.0) return std::nullopt;
  return *numerator / *divisor;
}

std::string DerivedText(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return "-";
  return base::PyRepr(base::PyRound(*value, 4));
}

base::StatusOr<std::string> PlainMsPerToken(const SummaryFile& summary) {
  const Json& s = summary.content;
  DP_ASSIGN_OR_RETURN(const std::optional<double> stored,
                      NumberOf(summary, s, "", "plain_wall_ms_per_token"));
  if (stored) return PyStr(JsonGet(s, "plain_wall_ms_per_token"));
  DP_ASSIGN_OR_RETURN(const std::optional<double> tok_s,
                      NumberOf(summary, s, "", "plain_decode_tok_s"));
  return DerivedText(Quotient(1000.0, tok_s));
}

base::StatusOr<std::string> ProfiledMsPerToken(const SummaryFile& summary) {
  const Json& s = summary.content;
  DP_ASSIGN_OR_RETURN(const std::optional<double> wall, NumberOf(summary, s, "", "decode_wall_ms"));
  DP_ASSIGN_OR_RETURN(const std::optional<double> tokens,
                      NumberOf(summary, s, "", "generated_tokens"));
  if (const std::optional<double> per_token = Quotient(wall, tokens)) {
    return DerivedText(per_token);
  }
  DP_ASSIGN_OR_RETURN(const std::optional<double> tok_s,
                      NumberOf(summary, s, "", "profiled_decode_tok_s"));
  return DerivedText(Quotient(1000.0, tok_s));
}

base::StatusOr<std::vector<TopKernelEntry>> TopKernelEntries(const SummaryFile& summary) {
  std::vector<TopKernelEntry> entries;
  const Json& top = JsonGet(summary.content, "top_kernels");
  if (top.is_null()) return entries;
  if (!top.is_array()) return base::DataError(summary.path, "`top_kernels` is not an array");
  entries.reserve(top.size());
  for (size_t i = 0; i < top.size(); ++i) {
    const Json& name = JsonGet(top[i], "kernel");
    const std::string prefix = "`top_kernels`[" + std::to_string(i) + "]";
    if (!top[i].is_object() || !name.is_string()) {
      return base::DataError(summary.path, prefix + " has no string `kernel`");
    }
    entries.push_back({&top[i], &name.get_ref<const std::string&>(), prefix + "."});
  }
  return entries;
}

}  // namespace decodeprof::report
