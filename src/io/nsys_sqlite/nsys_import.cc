#include "src/io/nsys_sqlite/nsys_import.h"

namespace decodeprof::io {

std::string_view StripApiVersion(std::string_view name) {
  const size_t v = name.rfind("_v");
  if (v == std::string_view::npos || v == 0 || name.size() - v < 6) return name;
  for (char c : name.substr(v + 2)) {
    if (c < '0' || c > '9') return name;
  }
  return name.substr(0, v);
}

}  // namespace decodeprof::io
