// The toml++ adapter of src/packs: parsing (no exceptions: TOML_EXCEPTIONS=0) and strict,
// typed access to a table's keys, every error a kConfig Status at "file:line".
// Only src/packs includes this header (it pulls in toml++).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// toml++ 3.3 asserts on some malformed table headers (e.g. `[!]`) where its release build
// returns a clean parse error. A bad pack file must never abort, so its asserts are off in
// every build type (with GCC, NDEBUG does the same: TOML_ASSUME is then a no-op). Every
// translation unit of src/packs that uses toml++ includes it through this header.
#define TOML_ASSERT(expr) static_cast<void>(0)
#include <toml++/toml.h>

#include "src/base/status.h"

namespace decodeprof::packs {

// A string value with the location it came from.
struct StringAt {
  std::string value;
  std::string where;  // "file:line"
};

// Parses a whole TOML document; a syntax error → kConfig at the error's line with
// toml++'s description.
base::StatusOr<toml::table> ParseToml(std::string_view text, std::string_view file);

// "file:line" of a node (the fallback line when the node carries none).
std::string WhereOf(std::string_view file, const toml::node& node, int64_t fallback_line = 0);

// One table of a document: `what` names it in messages ("[pack]", "[[class]] \"qmv\"").
class TomlFields {
 public:
  TomlFields(const toml::table& table, std::string_view file, std::string what);

  const std::string& what() const { return what_; }
  std::string where() const;                      // the table's own line
  std::string where(std::string_view key) const;  // the key's line (table's when absent)
  const toml::node* Get(std::string_view key) const { return table_.get(key); }
  bool Has(std::string_view key) const { return Get(key) != nullptr; }

  // Every key must be one of `allowed`; else an error naming the key and the allowed ones.
  base::Status CheckKeys(std::initializer_list<std::string_view> allowed) const;

  base::StatusOr<std::string> RequiredString(std::string_view key) const;
  base::StatusOr<std::string> OptionalString(std::string_view key, std::string fallback = {}) const;
  base::StatusOr<bool> RequiredBool(std::string_view key) const;
  base::StatusOr<std::optional<bool>> OptionalBool(std::string_view key) const;
  base::StatusOr<int64_t> RequiredInt(std::string_view key) const;
  // An array of strings (a single string is accepted as a one-element list). Absent →
  // empty, or an error when `required`.
  base::StatusOr<std::vector<StringAt>> StringList(std::string_view key, bool required) const;
  // An array of tables (a single table is accepted as a one-element list). Absent → empty.
  base::StatusOr<std::vector<const toml::table*>> TableList(std::string_view key) const;

 private:
  base::Status TypeError(std::string_view key, std::string_view expected) const;

  const toml::table& table_;
  std::string_view file_;
  std::string what_;
};

std::string_view TomlTypeName(const toml::node& node);

}  // namespace decodeprof::packs
