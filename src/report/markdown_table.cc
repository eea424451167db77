#include "src/report/markdown_table.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace decodeprof::report {

using Json = nlohmann::ordered_json;

const Json& JsonGet(const Json& object, std::string_view key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

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

base::StatusOr<const Json*> PortUnits(const SummaryFile& summary) {
  const Json& units = JsonGet(summary.content, "port_units");
  if (units.is_null()) return &units;
  if (!units.is_object()) {
    return base::DataError(summary.path, "`port_units` is not an object");
  }
  for (const auto& [id, unit] : units.items()) {
    if (!unit.is_object()) {
      return base::DataError(summary.path, "`port_units`.`" + id + "` is not an object");
    }
  }
  return &units;
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

}  // namespace decodeprof::report
