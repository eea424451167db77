// An ordered JSON document for writing outputs, dumped exactly as Python's
// json.dumps(obj, indent=2) does (seed spec 2.12): key order as inserted, ", " / ": "
// separators replaced by newline indentation, "{}" / "[]" for empty containers, floats in
// repr form, ASCII-only strings. Reading JSON is nlohmann-json's job; this type only writes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace decodeprof::base {

class JsonValue {
 public:
  using Array = std::vector<JsonValue>;
  using Object = std::vector<std::pair<std::string, JsonValue>>;

  JsonValue() = default;  // null
  static JsonValue Null() { return JsonValue(); }
  static JsonValue Bool(bool v) { return JsonValue(Storage(v)); }
  static JsonValue Int(int64_t v) { return JsonValue(Storage(v)); }
  static JsonValue Float(double v) { return JsonValue(Storage(v)); }
  static JsonValue Str(std::string v) { return JsonValue(Storage(std::move(v))); }
  static JsonValue MakeArray() { return JsonValue(Storage(Array{})); }
  static JsonValue MakeObject() { return JsonValue(Storage(Object{})); }
  // null when absent.
  static JsonValue OptFloat(std::optional<double> v) { return v ? Float(*v) : Null(); }
  static JsonValue OptInt(std::optional<int64_t> v) { return v ? Int(*v) : Null(); }
  static JsonValue OptStr(std::optional<std::string> v) { return v ? Str(std::move(*v)) : Null(); }

  // Object: appends a key (the caller keeps keys unique). Returns the stored value.
  JsonValue& Add(std::string key, JsonValue value);
  // Array: appends an element.
  JsonValue& Push(JsonValue value);

  // json.dumps(self, indent=2) without the trailing newline.
  std::string Dump() const;

 private:
  using Storage = std::variant<std::monostate, bool, int64_t, double, std::string, Array, Object>;
  explicit JsonValue(Storage s) : value_(std::move(s)) {}
  void DumpTo(std::string& out, int depth) const;

  Storage value_;
};

}  // namespace decodeprof::base
