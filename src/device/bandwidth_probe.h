// decodeprof::device — measuring a GPU's memory bandwidth (`decodeprof bandwidth`,
// `record --measure-bandwidth`): timed device-to-device copies through the CUDA driver API,
// loaded at run time with dlopen (no link-time CUDA dependency: the binary runs, and says
// why it cannot measure, on a machine without a driver).
//
// The method: two buffers of size_mib MiB (cuMemAlloc_v2, filled with cuMemsetD8_v2), a few
// warm-up copies, then `repeats` copies (cuMemcpyDtoDAsync_v2 on the default stream), each
// timed by a pair of CUDA events. A copy reads and writes every byte, so one copy of B bytes
// in T seconds counts 2 x B / T bytes per second. The result is the median and the maximum.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "src/base/status.h"
#include "src/device/peak_bandwidth.h"

namespace decodeprof::device {

inline constexpr int64_t kMaxProbeMib = 65536;
inline constexpr int kMaxProbeRepeats = 1000;
inline constexpr int kProbeWarmups = 3;

struct ProbeOptions {
  int device = 0;           // CUDA device ordinal (as CUDA_VISIBLE_DEVICES shows them)
  int64_t size_mib = 1024;  // each buffer, 1 .. kMaxProbeMib
  int repeats = 20;         // timed copies, 1 .. kMaxProbeRepeats
  // The driver library; "" = $DECODEPROF_LIBCUDA when set (the tests' stand-in), else
  // "libcuda.so.1".
  std::string library;
  // Called with a line of progress ("measuring ... on NVIDIA H200") before the copies.
  std::function<void(const std::string&)> progress;
};

struct ProbeResult {
  std::string device_name;  // cuDeviceGetName
  int device = 0;
  double median_gbps = 0;  // 10^9 bytes per second
  double max_gbps = 0;
  std::string method;          // "device-to-device copy, 2 x 1024 MiB per copy counted ..."
  std::string driver_version;  // cuDriverGetVersion: "13.0"
};

// Measures. Errors: kIo "no CUDA driver (<library>: <why>): cannot measure" when the library
// does not load or lacks an entry point; kUsage when `device` is not a device of the driver;
// kIo "<call> failed: <CUDA error name> (<code>)" naming the driver call that failed (every
// allocation, event and the context are released on every path).
base::StatusOr<ProbeResult> MeasureBandwidth(const ProbeOptions& options);

// The JSON `decodeprof bandwidth -o` writes (and --peak-bandwidth FILE reads):
// {"device_name", "peak_bandwidth_gbps" (the median), "max_gbps", "method", "driver_version"}.
std::string ProbeResultJson(const ProbeResult& result);

// The result as the peak of a measurement: source "measured".
PeakBandwidth PeakFromProbe(const ProbeResult& result);

// The median of `values` (the mean of the middle two for an even count); 0 for none.
double Median(std::vector<double> values);

}  // namespace decodeprof::device
