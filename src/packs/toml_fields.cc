#include "src/packs/toml_fields.h"

#include <utility>

namespace decodeprof::packs {

base::StatusOr<toml::table> ParseToml(std::string_view text, std::string_view file) {
  toml::parse_result result = toml::parse(text, file);
  if (!result) {
    const toml::parse_error& error = result.error();
    return base::ConfigError(base::AtLine(file, error.source().begin.line),
                             "TOML syntax error: " + std::string(error.description()));
  }
  return std::move(result).table();
}

std::string WhereOf(std::string_view file, const toml::node& node, int64_t fallback_line) {
  const int64_t line = node.source().begin.line;
  return base::AtLine(file, line > 0 ? line : fallback_line);
}

std::string_view TomlTypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return "a date/time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

TomlFields::TomlFields(const toml::table& table, std::string_view file, std::string what)
    : table_(table), file_(file), what_(std::move(what)) {}

std::string TomlFields::where() const { return WhereOf(file_, table_, 1); }

std::string TomlFields::where(std::string_view key) const {
  const toml::node* node = Get(key);
  if (node == nullptr) return where();
  return WhereOf(file_, *node, table_.source().begin.line);
}

base::Status TomlFields::CheckKeys(std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, node] : table_) {
    bool known = false;
    for (std::string_view name : allowed) known = known || key.str() == name;
    if (known) continue;
    std::string list;
    for (std::string_view name : allowed) {
      if (!list.empty()) list += ", ";
      list += name;
    }
    const int64_t line = key.source().begin.line;
    return base::ConfigError(
        line > 0 ? base::AtLine(file_, line) : WhereOf(file_, node, 1),
        what_ + ": unknown key '" + std::string(key.str()) + "' (known keys: " + list + ")");
  }
  return base::OkStatus();
}

base::Status TomlFields::TypeError(std::string_view key, std::string_view expected) const {
  return base::ConfigError(where(key), what_ + ": '" + std::string(key) + "' must be " +
                                           std::string(expected) + ", not " +
                                           std::string(TomlTypeName(*Get(key))));
}

base::StatusOr<std::string> TomlFields::RequiredString(std::string_view key) const {
  if (!Has(key)) {
    return base::ConfigError(where(), what_ + ": missing key '" + std::string(key) + "'");
  }
  return OptionalString(key);
}

base::StatusOr<std::string> TomlFields::OptionalString(std::string_view key,
                                                       std::string fallback) const {
  const toml::node* node = Get(key);
  if (node == nullptr) return fallback;
  if (!node->is_string()) return TypeError(key, "a string");
  return std::string(node->as_string()->get());
}

base::StatusOr<bool> TomlFields::RequiredBool(std::string_view key) const {
  if (!Has(key)) {
    return base::ConfigError(where(),
                             what_ + ": missing key '" + std::string(key) + "' (true or false)");
  }
  DP_ASSIGN_OR_RETURN(std::optional<bool> value, OptionalBool(key));
  return *value;
}

base::StatusOr<std::optional<bool>> TomlFields::OptionalBool(std::string_view key) const {
  const toml::node* node = Get(key);
  if (node == nullptr) return std::optional<bool>();
  if (!node->is_boolean()) return TypeError(key, "true or false");
  return std::optional<bool>(node->as_boolean()->get());
}

base::StatusOr<int64_t> TomlFields::RequiredInt(std::string_view key) const {
  const toml::node* node = Get(key);
  if (node == nullptr) {
    return base::ConfigError(where(), what_ + ": missing key '" + std::string(key) + "'");
  }
  if (!node->is_integer()) return TypeError(key, "an integer");
  return node->as_integer()->get();
}

base::StatusOr<std::vector<StringAt>> TomlFields::StringList(std::string_view key,
                                                             bool required) const {
  std::vector<StringAt> out;
  const toml::node* node = Get(key);
  if (node == nullptr) {
    if (!required) return out;
    return base::ConfigError(where(), what_ + ": missing key '" + std::string(key) + "'");
  }
  const int64_t fallback = node->source().begin.line;
  if (node->is_string()) {
    out.push_back({std::string(node->as_string()->get()), WhereOf(file_, *node, fallback)});
    return out;
  }
  if (!node->is_array()) return TypeError(key, "an array of strings");
  for (const toml::node& item : *node->as_array()) {
    if (!item.is_string()) {
      return base::ConfigError(WhereOf(file_, item, fallback),
                               what_ + ": '" + std::string(key) + "' must hold only strings, not " +
                                   std::string(TomlTypeName(item)));
    }
    out.push_back({std::string(item.as_string()->get()), WhereOf(file_, item, fallback)});
  }
  return out;
}

base::StatusOr<std::vector<const toml::table*>> TomlFields::TableList(std::string_view key) const {
  std::vector<const toml::table*> out;
  const toml::node* node = Get(key);
  if (node == nullptr) return out;
  if (node->is_table()) {
    out.push_back(node->as_table());
    return out;
  }
  if (!node->is_array()) return TypeError(key, "a table or an array of tables");
  const int64_t fallback = node->source().begin.line;
  for (const toml::node& item : *node->as_array()) {
    if (!item.is_table()) {
      return base::ConfigError(WhereOf(file_, item, fallback), what_ + ": '" + std::string(key) +
                                                                   "' must hold only tables, not " +
                                                                   std::string(TomlTypeName(item)));
    }
    out.push_back(item.as_table());
  }
  return out;
}

}  // namespace decodeprof::packs
