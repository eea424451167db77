// The packs and units files built into the binary (packs/*.toml, packs/units/*.toml),
// embedded at build time by embed_packs.cmake.
#pragma once

#include <span>
#include <string_view>

namespace decodeprof::packs {

struct BuiltinFile {
  std::string_view name;  // file stem: "mlx-rocm", "mlx-rocm-ports"
  std::string_view path;  // relative to the source tree, for error locations
  std::string_view text;  // the whole file
};

// Sorted by path.
std::span<const BuiltinFile> BuiltinPackFiles();
std::span<const BuiltinFile> BuiltinUnitsFiles();

}  // namespace decodeprof::packs
