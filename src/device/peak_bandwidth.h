// decodeprof::device — a GPU's peak memory bandwidth, the divisor of every speed-of-light
// figure: from --peak-bandwidth, from a measurement (`decodeprof bandwidth`, or the one
// `record` stores in the trace's meta), or from the table of published figures
// (packs/devices.toml: device-name patterns, GB/s, the datasheet it came from).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::device {

struct PeakBandwidth {
  double gbps = 0;     // 10^9 bytes per second
  std::string source;  // "measured", "table", "option"
  // Human words for the report: "measured: device-to-device copy of 1 GiB on NVIDIA H200,
  // median of 20", "table: NVIDIA H200 SXM 141GB, 4800 GB/s (NVIDIA H200 datasheet)",
  // "--peak-bandwidth 4000".
  std::string detail;
  std::string device_name;  // the name it was found or measured for ("" for the option)
};

// Meta keys a measured peak is stored under in a native trace (record) and in the JSON
// `decodeprof bandwidth` writes.
inline constexpr const char* kMetaPeakGbps = "peak_bandwidth_gbps";
inline constexpr const char* kMetaPeakMethod = "peak_bandwidth_method";
inline constexpr const char* kMetaPeakDevice = "peak_bandwidth_device";

// The table's entry for a device name (case-insensitive patterns, first match wins), or
// nullopt when none matches.
std::optional<PeakBandwidth> PeakFromTable(const std::string& device_name);

// The peak to use: `option` (--peak-bandwidth: a number of GB/s or a path to a JSON written
// by `decodeprof bandwidth`) first, then a measurement in `meta`, then the table by the
// trace's device names (the first that matches). nullopt when none is known. A number
// outside 1..100000 (nan, inf included) is kUsage naming the option; anything else is a path:
// missing or unreadable kIo, not such a JSON kData, naming the file. A bad meta value is kData
// (where "meta peak_bandwidth_gbps"). When other device names match other entries, the
// first is used and `detail` names the others.
base::StatusOr<std::optional<PeakBandwidth>> ResolvePeak(
    const std::string& option, const std::map<std::string, std::string>& meta,
    const std::vector<std::string>& device_names);

// The meta entries (kMetaPeakGbps: the median as Python's repr, kMetaPeakMethod,
// kMetaPeakDevice) of a measurement `decodeprof bandwidth -o` wrote to `json_path`: what
// `record --measure-bandwidth` stores in its trace. Errors: kIo for an unreadable file, kData
// naming it for a bad one (as ResolvePeak's).
base::StatusOr<std::vector<std::pair<std::string, std::string>>> MeasurementMeta(
    const std::string& json_path);

}  // namespace decodeprof::device
