#include "src/base/json_writer.h"

#include <cmath>
#include <string>

#include "src/base/py_format.h"

namespace decodeprof::base {

JsonValue& JsonValue::Add(std::string key, JsonValue value) {
  auto& object = std::get<Object>(value_);
  object.emplace_back(std::move(key), std::move(value));
  return object.back().second;
}

JsonValue& JsonValue::Push(JsonValue value) {
  auto& array = std::get<Array>(value_);
  array.push_back(std::move(value));
  return array.back();
}

std::string JsonValue::Dump() const {
  std::string out;
  DumpTo(out, 0);
  return out;
}

namespace {

void Indent(std::string& out, int depth) {
  out += '\n';
  out.append(static_cast<size_t>(depth) * 2, ' ');
}

// json.dumps's float spelling: repr, except for the non-finite values.
std::string JsonFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return PyRepr(v);
}

}  // namespace

void JsonValue::DumpTo(std::string& out, int depth) const {
  if (std::holds_alternative<std::monostate>(value_)) {
    out += "null";
  } else if (const bool* b = std::get_if<bool>(&value_)) {
    out += *b ? "true" : "false";
  } else if (const int64_t* i = std::get_if<int64_t>(&value_)) {
    out += std::to_string(*i);
  } else if (const double* d = std::get_if<double>(&value_)) {
    out += JsonFloat(*d);
  } else if (const std::string* s = std::get_if<std::string>(&value_)) {
    out += JsonQuote(*s);
  } else if (const Array* a = std::get_if<Array>(&value_)) {
    if (a->empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (size_t k = 0; k < a->size(); ++k) {
      if (k > 0) out += ',';
      Indent(out, depth + 1);
      (*a)[k].DumpTo(out, depth + 1);
    }
    Indent(out, depth);
    out += ']';
  } else {
    const Object& o = std::get<Object>(value_);
    if (o.empty()) {
      out += "{}";
      return;
    }
    out += '{';
    for (size_t k = 0; k < o.size(); ++k) {
      if (k > 0) out += ',';
      Indent(out, depth + 1);
      out += JsonQuote(o[k].first);
      out += ": ";
      o[k].second.DumpTo(out, depth + 1);
    }
    Indent(out, depth);
    out += '}';
  }
}

}  // namespace decodeprof::base
