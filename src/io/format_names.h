// The --format names of the built-in importers (importer_registry.h), for the modules that name
// a format rather than recognize it (profile summarizes its own recording; `kernels -- CMD`
// reads the native trace it recorded). Each importer's name() returns its constant here.
#pragma once

#include <string_view>

namespace decodeprof::io {

inline constexpr std::string_view kKinetoJsonFormat = "kineto-json";
inline constexpr std::string_view kNativeFormat = "native";
inline constexpr std::string_view kNsysSqliteFormat = "nsys-sqlite";
inline constexpr std::string_view kRocpdFormat = "rocpd";
inline constexpr std::string_view kRocprofv3CsvFormat = "rocprofv3-csv";

}  // namespace decodeprof::io
