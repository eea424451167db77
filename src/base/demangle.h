// Itanium C++ name demangling (abi::__cxa_demangle), once for every importer and writer.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace decodeprof::base {

// The demangled form of `mangled` ("_Z..."), or nullopt when the demangler rejects it (not a
// mangled name, or one too long or deep for it).
std::optional<std::string> Demangle(std::string_view mangled);

// Demangle(name) for a name that starts with "_Z", else (or when it fails) the name itself.
std::string DemangledOrSelf(std::string_view name);

}  // namespace decodeprof::base
