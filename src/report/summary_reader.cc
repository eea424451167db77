#include "src/report/summary_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "src/base/file_io.h"
#include "src/base/json_writer.h"
#include "src/base/py_format.h"
#include "src/report/run_set.h"
#include "src/report/summary_json.h"
#include "src/report/summary_validation.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kSuffix = "_summary.json";

int64_t LineOfOffset(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
}

// Finds the first place where arrays/objects nest deeper than kMaxSummaryNesting, before
// nlohmann builds (and our writers walk) the document recursively. Returns the byte offset
// or npos. Brackets inside strings do not count.
size_t FindExcessNesting(const std::string& text) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxSummaryNesting) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string::npos;
}

// nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 3, column 5:
// syntax error while parsing ..."; keep the description after the position, which
// ParseSummary states itself.
std::string ParseErrorDescription(std::string_view what) {
  if (const size_t bracket = what.find("] "); bracket != std::string_view::npos) {
    what.remove_prefix(bracket + 2);
  }
  if (what.starts_with("parse error")) {
    if (const size_t colon = what.find(": "); colon != std::string_view::npos) {
      what.remove_prefix(colon + 2);
    }
  }
  return std::string(what);
}

base::JsonValue ToJsonValue(const nlohmann::ordered_json& value) {
  using Type = nlohmann::ordered_json::value_t;
  switch (value.type()) {
    case Type::null:
    case Type::discarded:
      return base::JsonValue::Null();
    case Type::boolean:
      return base::JsonValue::Bool(value.get<bool>());
    case Type::number_integer:
      return base::JsonValue::Int(value.get<int64_t>());
    case Type::number_unsigned: {
      const uint64_t u = value.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) {
        return base::JsonValue::Int(static_cast<int64_t>(u));
      }
      return base::JsonValue::Float(static_cast<double>(u));
    }
    case Type::number_float:
      return base::JsonValue::Float(value.get<double>());
    case Type::string:
      return base::JsonValue::Str(value.get<std::string>());
    case Type::array: {
      base::JsonValue array = base::JsonValue::MakeArray();
      for (const auto& element : value) array.Push(ToJsonValue(element));
      return array;
    }
    case Type::object: {
      base::JsonValue object = base::JsonValue::MakeObject();
      for (const auto& [key, element] : value.items()) object.Add(key, ToJsonValue(element));
      return object;
    }
    case Type::binary:
      break;  // parse() never produces binary values
  }
  return base::JsonValue::Null();
}

// repr(str): single quotes unless the text holds a ' and no ".
std::string PyReprString(std::string_view text) {
  const bool double_quotes =
      text.find('\'') != std::string_view::npos && text.find('"') == std::string_view::npos;
  const char quote = double_quotes ? '"' : '\'';
  std::string out(1, quote);
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  out += quote;
  return out;
}

// Python's repr() of a value nested in a list or dict (strings are quoted there).
std::string PyReprNested(const nlohmann::ordered_json& value) {
  return value.is_string() ? PyReprString(value.get_ref<const std::string&>()) : PyStr(value);
}

// The order of a summary without `ranked_units`, computed as summarize computes it.
std::vector<analysis::RankedUnit> RankPortUnits(const Json& units) {
  std::vector<analysis::UnitCeilings> ceilings;
  for (const auto& [id, entry] : units.items()) {
    const UnitView unit(entry);
    ceilings.push_back({id, unit.plain_ceiling_wall_est().get(), unit.ceiling_wall().get()});
  }
  return analysis::RankUnits(ceilings);
}

}  // namespace

const Json& JsonGet(const Json& object, std::string_view key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string FieldName(std::string_view prefix, std::string_view key) {
  return std::string(prefix) + "`" + std::string(key) + "`";
}

std::optional<double> OptionalNumber(const Json& object, std::string_view key) {
  const Json& value = JsonGet(object, key);
  if (!value.is_number()) return std::nullopt;
  return value.get<double>();
}

std::optional<double> WindowTokens(const Json& summary) {
  const RunView run(summary);
  if (const std::optional<double> window = run.window_tokens().get()) return window;
  return run.generated_tokens().number();
}

const Json& PortUnits(const SummaryFile& summary) {
  static const Json kNull;
  const Json& units = RunView(summary).port_units().json();
  return units.is_object() ? units : kNull;
}

std::vector<analysis::RankedUnit> RankedUnits(const SummaryFile& summary) {
  const RunView run(summary);
  if (!run.ranked_units().json().is_array()) {
    return RankPortUnits(PortUnits(summary));  // written before it existed
  }
  std::vector<analysis::RankedUnit> out;
  for (const RankedUnitView& entry : run.RankedUnitEntries()) {
    const std::optional<std::string> id = entry.id().get();
    const std::optional<std::string> by_name = entry.by().get();
    const std::optional<analysis::RankFigure> by =
        by_name ? RankFigureNamed(*by_name) : std::nullopt;
    if (!id || !by) continue;
    analysis::RankedUnit unit{*id, *by, entry.value().get()};
    const Json& range = entry.value_range().json();
    if (range.is_array() && range.size() == 2 && range[0].is_number() && range[1].is_number()) {
      unit.value_range = std::make_pair(range[0].get<double>(), range[1].get<double>());
    }
    out.push_back(std::move(unit));
  }
  return out;
}

std::string PyStr(const nlohmann::ordered_json& value) {
  using Type = nlohmann::ordered_json::value_t;
  switch (value.type()) {
    case Type::null:
    case Type::discarded:
      return "None";
    case Type::boolean:
      return value.get<bool>() ? "True" : "False";
    case Type::number_integer:
      return std::to_string(value.get<int64_t>());
    case Type::number_unsigned:
      return std::to_string(value.get<uint64_t>());
    case Type::number_float:
      return base::PyRepr(value.get<double>());
    case Type::string:
      return value.get<std::string>();
    case Type::array: {
      std::string out = "[";
      for (size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out += ", ";
        out += PyReprNested(value[i]);
      }
      return out + "]";
    }
    case Type::object: {
      std::string out = "{";
      bool first = true;
      for (const auto& [key, element] : value.items()) {
        if (!first) out += ", ";
        first = false;
        out += PyReprString(key) + ": " + PyReprNested(element);
      }
      return out + "}";
    }
    case Type::binary:
      break;  // parse() never produces binary values
  }
  return "None";
}

base::StatusOr<std::vector<std::string>> ListSummaryFiles(const std::string& dir) {
  std::vector<std::string> paths;
  const std::string root = dir.ends_with('/') ? dir.substr(0, dir.size() - 1) : dir;
  // Directories still to read, each with its spelling as a prefix.
  std::vector<std::string> pending = {root};
  while (!pending.empty()) {
    const std::string current = std::move(pending.back());
    pending.pop_back();
    const std::string shown = current.empty() ? "/" : current;
    std::error_code ec;
    std::filesystem::directory_iterator it(shown, ec);
    if (ec) return base::IoError(shown, "cannot read directory: " + ec.message());
    for (const std::filesystem::directory_iterator end; it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.starts_with('.')) continue;
      const std::string path = current + "/" + name;
      std::error_code type_ec;
      if (it->is_directory(type_ec) && !it->is_symlink(type_ec)) {
        pending.push_back(path);
      } else if (name.ends_with(kSuffix) && !it->is_directory(type_ec)) {
        paths.push_back(path);
      }
    }
    if (ec) return base::IoError(shown, "cannot read directory: " + ec.message());
  }
  if (paths.empty()) return base::DataError("", "no *_summary.json in " + dir);
  std::sort(paths.begin(), paths.end());  // char_traits<char> compares bytes as unsigned
  return paths;
}

base::StatusOr<std::vector<std::string>> ResolveSummaryPaths(
    const std::vector<std::string>& paths) {
  if (paths.empty()) {
    return base::UsageError("no summary given",
                            "pass <name>_summary.json files or directories holding them");
  }
  std::vector<std::string> out;
  std::vector<std::pair<dev_t, ino_t>> seen;
  const auto add = [&out, &seen](const std::string& path, const struct stat& st) {
    const std::pair<dev_t, ino_t> id = {st.st_dev, st.st_ino};
    if (std::find(seen.begin(), seen.end(), id) != seen.end()) return;
    seen.push_back(id);
    out.push_back(path);
  };
  for (const std::string& path : paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      const int err = errno;
      return base::IoError(path,
                           err == ENOENT ? std::string("no such file or directory")
                                         : std::string("cannot open: ") + std::strerror(err),
                           "pass <name>_summary.json files or directories holding them");
    }
    if (S_ISREG(st.st_mode)) {
      add(path, st);
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      return base::UsageError(path + ": is neither a summary file nor a directory",
                              "pass <name>_summary.json files or directories holding them");
    }
    DP_ASSIGN_OR_RETURN(const std::vector<std::string> listed, ListSummaryFiles(path));
    for (const std::string& file : listed) {
      struct stat file_st {};
      if (::stat(file.c_str(), &file_st) != 0) {
        return base::IoError(file, std::string("cannot open: ") + std::strerror(errno));
      }
      add(file, file_st);
    }
  }
  return out;
}

base::StatusOr<SummaryFile> ParseSummary(const std::string& path, const std::string& text) {
  if (const size_t deep = FindExcessNesting(text); deep != std::string::npos) {
    return base::DataError(base::AtLine(path, LineOfOffset(text, deep)),
                           "JSON nests deeper than " + std::to_string(kMaxSummaryNesting) +
                               " levels at byte " + std::to_string(deep));
  }
  SummaryFile summary{path, {}, {}, std::nullopt};
  try {
    summary.content = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::ordered_json::parse_error& e) {
    // e.byte is the 1-based index of the last character read: the offending one.
    const size_t offset = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    return base::DataError(
        base::AtLine(path, LineOfOffset(text, offset)),
        "invalid JSON at byte " + std::to_string(offset) + ": " + ParseErrorDescription(e.what()));
  } catch (const nlohmann::ordered_json::exception& e) {
    // out_of_range.406: a number beyond the range of a double ("number overflow parsing
    // '1e309'"); nlohmann gives no position for it.
    return base::DataError(path, "invalid JSON: " + ParseErrorDescription(e.what()));
  }
  if (!summary.content.is_object()) {
    return base::DataError(
        base::AtLine(path, 1),
        std::string("a summary must be a JSON object, found ") + summary.content.type_name());
  }
  DP_RETURN_IF_ERROR(ValidateSummary(summary));
  DP_ASSIGN_OR_RETURN(summary.speed_of_light, ReadSpeedOfLight(summary.content, path));
  return summary;
}

base::StatusOr<SummaryFile> ReadSummaryFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return base::IoError(path, std::string("cannot open: ") + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) return base::IoError(path, "is not a regular file");
  DP_ASSIGN_OR_RETURN(const std::string text,
                      base::ReadFile(path, base::kMaxSummaryBytes, "a summary file"));
  return ParseSummary(path, text);
}

std::optional<std::string> SummaryTraceFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (256 << 20)) {
    return std::nullopt;
  }
  base::StatusOr<std::string> text = base::ReadFile(path);
  if (!text.ok() || FindExcessNesting(*text) != std::string::npos) return std::nullopt;
  const nlohmann::json doc = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  const auto it = doc.find(Key(summary_schema::run::trace_file));
  if (it == doc.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

base::StatusOr<std::vector<SummaryFile>> ReadSummaryDir(const std::string& dir) {
  return ReadSummaries({dir});
}

base::StatusOr<std::vector<SummaryFile>> ReadSummaries(const std::vector<std::string>& paths_in) {
  DP_ASSIGN_OR_RETURN(const std::vector<std::string> paths, ResolveSummaryPaths(paths_in));
  std::vector<SummaryFile> summaries;
  summaries.reserve(paths.size());
  for (const std::string& path : paths) {
    DP_ASSIGN_OR_RETURN(SummaryFile summary, ReadSummaryFile(path));
    summaries.push_back(std::move(summary));
  }
  AssignRunLabels(summaries);
  return summaries;
}

base::JsonValue JsonValueOf(const nlohmann::ordered_json& value) { return ToJsonValue(value); }

std::string RenderSummariesJson(const std::vector<SummaryFile>& summaries) {
  base::JsonValue array = base::JsonValue::MakeArray();
  for (const SummaryFile& summary : summaries) array.Push(ToJsonValue(summary.content));
  return array.Dump() + "\n";
}

}  // namespace decodeprof::report
