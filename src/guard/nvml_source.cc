#include "src/guard/nvml_source.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "src/base/parse.h"
#include "src/guard/messages.h"
#include "src/guard/proc_fs.h"

namespace decodeprof::guard {
namespace {

std::set<int> OpenDescriptors() {
  std::set<int> fds;
  const std::optional<std::vector<std::string>> names = ListDirectory("/proc/self/fd");
  if (!names) return fds;
  for (const std::string& name : *names) {
    const std::optional<uint64_t> fd = base::ParseUnsigned(name);
    if (fd && *fd < 1u << 30) fds.insert(static_cast<int>(*fd));
  }
  return fds;
}

template <typename Fn>
Fn Symbol(void* handle, const char* name) {
  return reinterpret_cast<Fn>(::dlsym(handle, name));
}

}  // namespace

base::StatusOr<NvmlApi> LoadNvml(const char* soname) {
  void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return base::ConfigError("", why != nullptr ? why : fmt::format("cannot load {}", soname));
  }
  // The library stays loaded for the life of the process: NVML keeps state and threads.
  NvmlApi api;
  using InitFn = nvml::Return (*)();
  using CountFn = nvml::Return (*)(unsigned int*);
  using HandleFn = nvml::Return (*)(unsigned int, nvml::Device*);
  using ProcFn = nvml::Return (*)(nvml::Device, unsigned int*, nvml::ProcessInfo*);
  using UtilFn = nvml::Return (*)(nvml::Device, nvml::Utilization*);
  using ErrFn = const char* (*)(nvml::Return);
  api.init = Symbol<InitFn>(handle, "nvmlInit_v2");
  api.device_get_count = Symbol<CountFn>(handle, "nvmlDeviceGetCount_v2");
  api.device_get_handle_by_index = Symbol<HandleFn>(handle, "nvmlDeviceGetHandleByIndex_v2");
  api.compute_processes = Symbol<ProcFn>(handle, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (api.compute_processes == nullptr) {
    api.compute_processes = Symbol<ProcFn>(handle, "nvmlDeviceGetComputeRunningProcesses_v2");
  }
  api.graphics_processes = Symbol<ProcFn>(handle, "nvmlDeviceGetGraphicsRunningProcesses_v3");
  if (api.graphics_processes == nullptr) {
    api.graphics_processes = Symbol<ProcFn>(handle, "nvmlDeviceGetGraphicsRunningProcesses_v2");
  }
  api.utilization = Symbol<UtilFn>(handle, "nvmlDeviceGetUtilizationRates");
  api.error_string = Symbol<ErrFn>(handle, "nvmlErrorString");
  for (const auto& [ok, name] :
       {std::pair{api.init != nullptr, "nvmlInit_v2"},
        std::pair{api.device_get_count != nullptr, "nvmlDeviceGetCount_v2"},
        std::pair{api.device_get_handle_by_index != nullptr, "nvmlDeviceGetHandleByIndex_v2"},
        std::pair{api.compute_processes != nullptr, "nvmlDeviceGetComputeRunningProcesses"}}) {
    if (!ok) return base::ConfigError("", fmt::format("{} has no {}", soname, name));
  }

  const std::set<int> before = OpenDescriptors();
  const nvml::Return rc = api.init();
  // NVML may open device nodes without O_CLOEXEC; none of them may reach the command.
  for (const int fd : OpenDescriptors()) {
    if (before.count(fd) != 0) continue;
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
  if (rc != nvml::kSuccess) {
    return base::ConfigError("", "nvmlInit_v2 failed: " + NvmlErrorText(api, rc));
  }
  return api;
}

std::string NvmlErrorText(const NvmlApi& api, nvml::Return code) {
  const char* name = api.error_string != nullptr ? api.error_string(code) : nullptr;
  return fmt::format("{} ({})", name != nullptr ? name : "NVML error", code);
}

base::StatusOr<NvmlSource> NvmlSource::Create(const NvmlApi& api) {
  unsigned int count = 0;
  nvml::Return rc = api.device_get_count(&count);
  if (rc != nvml::kSuccess) {
    return base::ConfigError("", "nvmlDeviceGetCount_v2 failed: " + NvmlErrorText(api, rc));
  }
  if (count == 0) return base::ConfigError("", "NVML reports no device");
  std::vector<nvml::Device> devices;
  for (unsigned int i = 0; i < count; ++i) {
    nvml::Device device = nullptr;
    rc = api.device_get_handle_by_index(i, &device);
    if (rc != nvml::kSuccess) {
      return base::ConfigError("", fmt::format("nvmlDeviceGetHandleByIndex_v2({}) failed: {}", i,
                                               NvmlErrorText(api, rc)));
    }
    devices.push_back(device);
  }
  return NvmlSource(api, std::move(devices));
}

base::Status NvmlSource::AppendProcesses(nvml::Return (*query)(nvml::Device, unsigned int*,
                                                               nvml::ProcessInfo*),
                                         const char* what, int device,
                                         std::vector<unsigned int>* pids) {
  if (query == nullptr) return base::OkStatus();
  // The list can grow between the size probe and the read: retry a few times, with room.
  std::vector<nvml::ProcessInfo> infos(32);
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned int count = static_cast<unsigned int>(infos.size());
    const nvml::Return rc = query(devices_[static_cast<size_t>(device)], &count, infos.data());
    if (rc == nvml::kSuccess) {
      for (unsigned int i = 0; i < count && i < infos.size(); ++i) pids->push_back(infos[i].pid);
      return base::OkStatus();
    }
    if (rc == nvml::kErrorNotSupported) return base::OkStatus();
    if (rc != nvml::kErrorInsufficientSize) {
      return base::IoError(fmt::format("NVML device {}", device),
                           fmt::format("{} failed: {}", what, NvmlErrorText(api_, rc)));
    }
    infos.resize(std::max<size_t>(count, infos.size()) + 16);
  }
  return base::IoError(fmt::format("NVML device {}", device),
                       fmt::format("{}: process list keeps growing", what));
}

base::StatusOr<GpuReading> NvmlSource::Read() {
  GpuReading reading;
  for (size_t d = 0; d < devices_.size(); ++d) {
    const int index = static_cast<int>(d);
    std::vector<unsigned int> pids;
    DP_RETURN_IF_ERROR(AppendProcesses(api_.compute_processes, "compute processes", index, &pids));
    DP_RETURN_IF_ERROR(
        AppendProcesses(api_.graphics_processes, "graphics processes", index, &pids));
    GpuDevice info;
    info.index = index;
    std::vector<unsigned int> seen;
    for (const unsigned int pid : pids) {
      if (std::find(seen.begin(), seen.end(), pid) != seen.end()) continue;
      seen.push_back(pid);
      reading.processes.push_back(GpuProcess{std::to_string(pid), index});
      ++info.process_count;
    }
    if (api_.utilization != nullptr) {
      nvml::Utilization util{};
      const nvml::Return rc = api_.utilization(devices_[d], &util);
      if (rc == nvml::kSuccess) {
        info.utilization_percent = util.gpu;
      } else if (rc != nvml::kErrorNotSupported) {
        return base::IoError(fmt::format("NVML device {}", index),
                             "nvmlDeviceGetUtilizationRates failed: " + NvmlErrorText(api_, rc));
      }
    }
    reading.devices.push_back(info);
  }
  return reading;
}

const char* NvmlSource::EmptyPhrase() const { return kNvmlEmpty; }

std::string NvmlSource::Describe() const {
  return fmt::format("NVML, {} device{}", devices_.size(), devices_.size() == 1 ? "" : "s");
}

}  // namespace decodeprof::guard
