#include "src/base/demangle.h"

#include <cxxabi.h>

#include <cstdlib>

namespace decodeprof::base {

std::optional<std::string> Demangle(std::string_view mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(std::string(mangled).c_str(), nullptr, nullptr, &status);
  std::optional<std::string> out;
  if (status == 0 && text != nullptr) out = std::string(text);
  std::free(text);
  return out;
}

std::string DemangledOrSelf(std::string_view name) {
  if (name.substr(0, 2) != "_Z") return std::string(name);
  return Demangle(name).value_or(std::string(name));
}

}  // namespace decodeprof::base
