// The table of devices' published peak memory bandwidths (packs/devices.toml, embedded in the
// binary like the packs; src/device resolves a trace's device names against it). The file's
// language: [devices] (description) and [[device]] entries with name, match (an RE2 pattern,
// case-insensitive), gbps (a number from 1 to 100000) and source (the datasheet). Errors name
// the file and line (kConfig).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/status.h"

namespace re2 {
class RE2;
}

namespace decodeprof::packs {

struct DeviceEntry {
  std::string name;                         // "NVIDIA H200 SXM 141GB"
  std::string match;                        // the pattern's text
  double gbps = 0;                          // 10^9 bytes per second
  std::string source;                       // the datasheet it came from
  std::string where;                        // "packs/devices.toml:42"
  std::shared_ptr<const re2::RE2> pattern;  // `match` compiled, case-insensitive
};

// Parses a device table; `file` names it in errors.
base::StatusOr<std::vector<DeviceEntry>> ParseDeviceTable(std::string_view text,
                                                          std::string_view file);

// The built-in table (packs/devices.toml), parsed once. An error here is a bad built-in file,
// which the tests rule out.
const base::StatusOr<std::vector<DeviceEntry>>& BuiltinDeviceTable();

// The first entry of `table` whose pattern is found in `device_name`; nullptr when none.
const DeviceEntry* FindDevice(const std::vector<DeviceEntry>& table, std::string_view device_name);

}  // namespace decodeprof::packs
