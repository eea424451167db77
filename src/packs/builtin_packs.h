// The packs, units files and device table built into the binary (packs/*.toml but
// packs/devices.toml, packs/units/*.toml, packs/devices.toml),
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
// packs/devices.toml: the device table (device_table.h), not a rule pack.
std::span<const BuiltinFile> BuiltinDeviceFiles();

}  // namespace decodeprof::packs
