#include "src/device/bandwidth_probe.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "src/base/json_writer.h"

namespace decodeprof::device {
namespace {

// The few driver types and entry points used, declared here so that the build needs no CUDA
// headers (their ABI is cuda.h's: handles are pointers, CUdevice an int, CUdeviceptr 64 bits).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // NOLINT(runtime/int): cuda.h's type
using CUcontext = struct CUctx_st*;
using CUevent = struct CUevent_st*;
using CUstream = struct CUstream_st*;
constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorInvalidDevice = 101;

struct Driver {
  CUresult (*Init)(unsigned int) = nullptr;
  CUresult (*DriverGetVersion)(int*) = nullptr;
  CUresult (*DeviceGetCount)(int*) = nullptr;
  CUresult (*DeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*DeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*DevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*DevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*MemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*MemFree)(CUdeviceptr) = nullptr;
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*EventCreate)(CUevent*, unsigned int) = nullptr;
  CUresult (*EventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*EventSynchronize)(CUevent) = nullptr;
  CUresult (*EventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*EventDestroy)(CUevent) = nullptr;
  CUresult (*GetErrorName)(CUresult, const char**) = nullptr;  // optional
};

std::string LibraryName(const ProbeOptions& options) {
  if (!options.library.empty()) return options.library;
  const char* env = std::getenv("DECODEPROF_LIBCUDA");
  if (env != nullptr && *env != '\0') return env;
  return "libcuda.so.1";
}

base::Status NoDriver(const std::string& library, const std::string& why) {
  return base::IoError("", fmt::format("no CUDA driver ({}: {}): cannot measure", library, why),
                       "give the peak with --peak-bandwidth GBPS, or measure where the GPU is");
}

// Loads the driver. The library stays loaded for the life of the process (unloading a CUDA
// driver is not supported).
base::StatusOr<Driver> LoadDriver(const std::string& library) {
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    std::string why = error != nullptr ? error : "cannot load";
    // dlerror says "<library>: <why>"; the message names the library once.
    if (why.starts_with(library + ": ")) why.erase(0, library.size() + 2);
    return NoDriver(library, why);
  }
  Driver d;
  std::string missing;
  // The first of `names` the library exports (versioned names first).
  const auto bind = [&](auto& fn, std::initializer_list<const char*> names) {
    for (const char* name : names) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
      if (fn != nullptr) return;
    }
    missing += std::string(missing.empty() ? "" : ", ") + *names.begin();
  };
  bind(d.Init, {"cuInit"});
  bind(d.DriverGetVersion, {"cuDriverGetVersion"});
  bind(d.DeviceGetCount, {"cuDeviceGetCount"});
  bind(d.DeviceGet, {"cuDeviceGet"});
  bind(d.DeviceGetName, {"cuDeviceGetName"});
  bind(d.DevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  bind(d.DevicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  bind(d.CtxSetCurrent, {"cuCtxSetCurrent"});
  bind(d.MemAlloc, {"cuMemAlloc_v2"});
  bind(d.MemFree, {"cuMemFree_v2"});
  bind(d.MemsetD8, {"cuMemsetD8_v2"});
  bind(d.MemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"});
  bind(d.EventCreate, {"cuEventCreate"});
  bind(d.EventRecord, {"cuEventRecord"});
  bind(d.EventSynchronize, {"cuEventSynchronize"});
  bind(d.EventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  bind(d.EventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
  if (!missing.empty()) return NoDriver(library, "it lacks " + missing);
  d.GetErrorName = reinterpret_cast<decltype(d.GetErrorName)>(::dlsym(handle, "cuGetErrorName"));
  return d;
}

// Everything the measurement holds, released in reverse order on every path.
class Session {
 public:
  explicit Session(const Driver& d) : d_(d) {}
  ~Session() {
    for (CUevent e : events_) d_.EventDestroy(e);
    for (CUdeviceptr p : buffers_) d_.MemFree(p);
    if (retained_) {
      d_.CtxSetCurrent(nullptr);
      d_.DevicePrimaryCtxRelease(device_);
    }
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // "<call> failed: CUDA_ERROR_X (n)" as a kIo status; OK for CUDA_SUCCESS.
  base::Status Check(CUresult rc, const std::string& call) const {
    if (rc == kCudaSuccess) return base::OkStatus();
    const char* name = nullptr;
    if (d_.GetErrorName == nullptr || d_.GetErrorName(rc, &name) != kCudaSuccess ||
        name == nullptr) {
      name = "CUDA error";
    }
    return base::IoError("", fmt::format("{} failed: {} ({})", call, name, rc),
                         "the GPU must be usable by this process (not in an exclusive mode held "
                         "by another, with memory free for two buffers); see nvidia-smi");
  }

  base::Status Retain(CUdevice device) {
    CUcontext ctx = nullptr;
    DP_RETURN_IF_ERROR(Check(d_.DevicePrimaryCtxRetain(&ctx, device), "cuDevicePrimaryCtxRetain"));
    retained_ = true;
    device_ = device;
    return Check(d_.CtxSetCurrent(ctx), "cuCtxSetCurrent");
  }
  base::StatusOr<CUdeviceptr> Alloc(size_t bytes) {
    CUdeviceptr p = 0;
    DP_RETURN_IF_ERROR(
        Check(d_.MemAlloc(&p, bytes), fmt::format("cuMemAlloc_v2 ({} MiB)", bytes >> 20)));
    buffers_.push_back(p);
    DP_RETURN_IF_ERROR(Check(d_.MemsetD8(p, 1, bytes), "cuMemsetD8_v2"));
    return p;
  }
  base::StatusOr<CUevent> Event() {
    CUevent e = nullptr;
    DP_RETURN_IF_ERROR(Check(d_.EventCreate(&e, 0), "cuEventCreate"));
    events_.push_back(e);
    return e;
  }

 private:
  const Driver& d_;
  bool retained_ = false;
  CUdevice device_ = 0;
  std::vector<CUdeviceptr> buffers_;
  std::vector<CUevent> events_;
};

std::string MethodText(int64_t size_mib, int repeats) {
  return fmt::format(
      "device-to-device copy, 2 x {} MiB per copy counted (read + write), median of {}", size_mib,
      repeats);
}

}  // namespace

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

base::StatusOr<ProbeResult> MeasureBandwidth(const ProbeOptions& options) {
  if (options.size_mib < 1 || options.size_mib > kMaxProbeMib) {
    return base::UsageError(
        fmt::format("--size-mib must be from 1 to {}, got {}", kMaxProbeMib, options.size_mib));
  }
  if (options.repeats < 1 || options.repeats > kMaxProbeRepeats) {
    return base::UsageError(
        fmt::format("--repeats must be from 1 to {}, got {}", kMaxProbeRepeats, options.repeats));
  }
  const std::string library = LibraryName(options);
  DP_ASSIGN_OR_RETURN(const Driver d, LoadDriver(library));
  Session s(d);
  DP_RETURN_IF_ERROR(s.Check(d.Init(0), "cuInit"));
  int version = 0;
  DP_RETURN_IF_ERROR(s.Check(d.DriverGetVersion(&version), "cuDriverGetVersion"));
  int count = 0;
  DP_RETURN_IF_ERROR(s.Check(d.DeviceGetCount(&count), "cuDeviceGetCount"));
  if (options.device < 0 || options.device >= count) {
    return base::UsageError(fmt::format("--device {}: the CUDA driver shows {} device{}",
                                        options.device, count, count == 1 ? "" : "s"),
                            "devices are numbered from 0, as CUDA_VISIBLE_DEVICES shows them");
  }
  CUdevice device = 0;
  const CUresult got = d.DeviceGet(&device, options.device);
  if (got == kCudaErrorInvalidDevice) {
    return base::UsageError(fmt::format("--device {}: not a CUDA device", options.device));
  }
  DP_RETURN_IF_ERROR(s.Check(got, "cuDeviceGet"));
  char name[256] = {};
  DP_RETURN_IF_ERROR(
      s.Check(d.DeviceGetName(name, static_cast<int>(sizeof name) - 1, device), "cuDeviceGetName"));
  ProbeResult result;
  result.device = options.device;
  result.device_name = name;
  result.driver_version = fmt::format("{}.{}", version / 1000, version % 1000 / 10);
  result.method = MethodText(options.size_mib, options.repeats);
  if (options.progress) {
    options.progress(fmt::format("measuring the memory bandwidth of device {} ({}): {}",
                                 options.device, result.device_name, result.method));
  }

  DP_RETURN_IF_ERROR(s.Retain(device));
  const size_t bytes = static_cast<size_t>(options.size_mib) << 20;
  DP_ASSIGN_OR_RETURN(const CUdeviceptr src, s.Alloc(bytes));
  DP_ASSIGN_OR_RETURN(const CUdeviceptr dst, s.Alloc(bytes));
  DP_ASSIGN_OR_RETURN(CUevent start, s.Event());
  DP_ASSIGN_OR_RETURN(CUevent stop, s.Event());
  CUstream stream = nullptr;  // the context's default stream
  std::vector<double> gbps;
  for (int i = 0; i < kProbeWarmups + options.repeats; ++i) {
    DP_RETURN_IF_ERROR(s.Check(d.EventRecord(start, stream), "cuEventRecord"));
    DP_RETURN_IF_ERROR(s.Check(d.MemcpyDtoDAsync(dst, src, bytes, stream), "cuMemcpyDtoDAsync_v2"));
    DP_RETURN_IF_ERROR(s.Check(d.EventRecord(stop, stream), "cuEventRecord"));
    DP_RETURN_IF_ERROR(s.Check(d.EventSynchronize(stop), "cuEventSynchronize"));
    float ms = 0;
    DP_RETURN_IF_ERROR(s.Check(d.EventElapsedTime(&ms, start, stop), "cuEventElapsedTime"));
    if (i < kProbeWarmups) continue;
    if (!(ms > 0)) {
      return base::IoError("", fmt::format("cuEventElapsedTime gave {} ms for a copy of {} MiB", ms,
                                           options.size_mib));
    }
    gbps.push_back(2.0 * static_cast<double>(bytes) / (static_cast<double>(ms) * 1e-3) / 1e9);
  }
  result.median_gbps = Median(gbps);
  result.max_gbps = *std::max_element(gbps.begin(), gbps.end());
  return result;
}

std::string ProbeResultJson(const ProbeResult& result) {
  base::JsonValue json = base::JsonValue::MakeObject();
  json.Add("device_name", base::JsonValue::Str(result.device_name));
  json.Add(kMetaPeakGbps, base::JsonValue::Float(result.median_gbps));
  json.Add("max_gbps", base::JsonValue::Float(result.max_gbps));
  json.Add("method", base::JsonValue::Str(result.method));
  json.Add("driver_version", base::JsonValue::Str(result.driver_version));
  return json.Dump() + "\n";
}

PeakBandwidth PeakFromProbe(const ProbeResult& result) {
  PeakBandwidth peak;
  peak.gbps = result.median_gbps;
  peak.source = "measured";
  peak.detail = fmt::format("measured: {} on {}", result.method, result.device_name);
  peak.device_name = result.device_name;
  return peak;
}

}  // namespace decodeprof::device
