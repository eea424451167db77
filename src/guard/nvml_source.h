// decodeprof::guard — NVIDIA GPU holders through NVML, loaded at run time.
//
// The binary never links NVML: LoadNvml() dlopen()s "libnvidia-ml.so.1" and looks up the
// few entry points below, so `decodeprof` runs (and `--gpu amd` works) where no NVIDIA
// driver is installed. The NVML types the guard needs are declared here with the layouts
// of the driver's nvml.h (no header needed at build time).
//
// A reading lists, for every device, the compute and graphics processes (pid) and the
// device utilization (percent of the last sample period in which a kernel ran). How the
// sampler judges them is in sampler.h.
#pragma once

#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/guard/gpu_source.h"

namespace decodeprof::guard {

namespace nvml {
using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorInsufficientSize = 7;
struct DeviceSt;
using Device = DeviceSt*;  // nvmlDevice_t
// nvmlProcessInfo_t, the element of the _v3 (and _v2) process queries.
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
static_assert(sizeof(ProcessInfo) == 24, "nvmlProcessInfo_t layout");
// nvmlUtilization_t.
struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};
}  // namespace nvml

// The entry points, as function pointers (so tests can supply fakes).
struct NvmlApi {
  nvml::Return (*init)() = nullptr;                                                   // nvmlInit_v2
  nvml::Return (*device_get_count)(unsigned int*) = nullptr;                          // _v2
  nvml::Return (*device_get_handle_by_index)(unsigned int, nvml::Device*) = nullptr;  // _v2
  // nvmlDeviceGetComputeRunningProcesses_v3, else _v2 (same element layout).
  nvml::Return (*compute_processes)(nvml::Device, unsigned int*, nvml::ProcessInfo*) = nullptr;
  // nvmlDeviceGetGraphicsRunningProcesses_v3, else _v2; may stay null.
  nvml::Return (*graphics_processes)(nvml::Device, unsigned int*, nvml::ProcessInfo*) = nullptr;
  // nvmlDeviceGetUtilizationRates; may stay null.
  nvml::Return (*utilization)(nvml::Device, nvml::Utilization*) = nullptr;
  // nvmlErrorString; may stay null.
  const char* (*error_string)(nvml::Return) = nullptr;
};

// dlopen()s `soname`, resolves the entry points and calls nvmlInit_v2. Descriptors NVML
// opens during init are marked close-on-exec so they never reach the guarded command.
// Errors (no library, missing symbol, init failure) are kConfig statuses saying why.
base::StatusOr<NvmlApi> LoadNvml(const char* soname = "libnvidia-ml.so.1");

// "<name> (<code>)" for an NVML return code.
std::string NvmlErrorText(const NvmlApi& api, nvml::Return code);

class NvmlSource final : public GpuHolderSource {
 public:
  // Enumerates the devices once. Fails when NVML reports no device or a handle is missing.
  static base::StatusOr<NvmlSource> Create(const NvmlApi& api);

  base::StatusOr<GpuReading> Read() override;
  const char* EmptyPhrase() const override;
  std::string Describe() const override;
  size_t device_count() const { return devices_.size(); }

 private:
  NvmlSource(const NvmlApi& api, std::vector<nvml::Device> devices)
      : api_(api), devices_(std::move(devices)) {}
  // Appends the pids of one process query; NOT_SUPPORTED reads as none.
  base::Status AppendProcesses(nvml::Return (*query)(nvml::Device, unsigned int*,
                                                     nvml::ProcessInfo*),
                               const char* what, int device, std::vector<unsigned int>* pids);

  NvmlApi api_;
  std::vector<nvml::Device> devices_;
};

}  // namespace decodeprof::guard
