#include "src/report/markdown_table.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/run_set.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {

namespace {
using Json = nlohmann::ordered_json;
}  // namespace

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

std::string RunLabel(const SummaryFile& summary) { return "`" + LabelOf(summary) + "`"; }

std::vector<std::string> UnitColumns(const std::vector<SummaryFile>& summaries) {
  std::vector<std::string> ids;
  for (const SummaryFile& summary : summaries) {
    for (const auto& [id, unit] : PortUnits(summary).items()) {
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
  if (!value || !std::isfinite(*value)) return std::string(kNoValue);
  return base::PyRepr(base::PyRound(*value, 4));
}

std::string PlainMsPerToken(const SummaryFile& summary) {
  const RunView s(summary);
  if (s.plain_wall_ms_per_token().get()) return s.plain_wall_ms_per_token().Str();
  return DerivedText(Quotient(1000.0, s.plain_decode_tok_s().get()));
}

std::string ProfiledMsPerToken(const SummaryFile& summary) {
  const RunView s(summary);
  if (const std::optional<double> per_token =
          Quotient(s.decode_wall_ms().get(), WindowTokens(summary.content))) {
    return DerivedText(per_token);
  }
  return DerivedText(Quotient(1000.0, s.profiled_decode_tok_s().get()));
}

std::vector<TopKernelEntry> TopKernelEntries(const SummaryFile& summary) {
  std::vector<TopKernelEntry> entries;
  for (const TopKernelView& kernel : RunView(summary).TopKernels()) {
    const Json& name = kernel.kernel().json();
    if (name.is_string()) entries.push_back({kernel, &name.get_ref<const std::string&>()});
  }
  return entries;
}

}  // namespace decodeprof::report
