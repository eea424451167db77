#include "src/record/cupti/record_translator.h"

#include <algorithm>
#include <cstdlib>

#include "src/base/demangle.h"

namespace decodeprof::record::cupti {

namespace nf = native_format;

const LaunchApi kLaunchApis[] = {
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020, "cudaLaunch"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
     "cudaLaunchKernel"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000,
     "cudaLaunch_ptsz"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
     "cudaLaunchKernel_ptsz"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
     "cudaLaunchCooperativeKernel"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
     "cudaLaunchCooperativeKernel_ptsz"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
     "cudaLaunchKernelExC"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
     "cudaLaunchKernelExC_ptsz"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
     "__cudaLaunchKernel"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
     "__cudaLaunchKernel_ptsz"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
     "cudaGraphLaunch"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
     "cudaGraphLaunch_ptsz"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunch, "cuLaunch"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid, "cuLaunchGrid"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync, "cuLaunchGridAsync"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
     "cuLaunchKernel_ptsz"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
     "cuLaunchCooperativeKernel"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
     "cuLaunchCooperativeKernel_ptsz"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "cuLaunchKernelEx"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
     "cuLaunchKernelEx_ptsz"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch"},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz, "cuGraphLaunch_ptsz"},
};
const size_t kLaunchApiCount = sizeof(kLaunchApis) / sizeof(kLaunchApis[0]);

std::string RecordTranslator::ApiName(CUpti_ActivityKind kind, uint32_t cbid) {
  for (const LaunchApi& api : kLaunchApis) {
    if (api.kind == kind && api.cbid == cbid) return api.name;
  }
  return std::string(kind == CUPTI_ACTIVITY_KIND_DRIVER ? "driver" : "runtime") + " api " +
         std::to_string(cbid);
}

bool RecordTranslator::Ok(const base::Status& status) {
  if (status.ok()) return true;
  ++counts_.write_failures;
  return false;
}

void RecordTranslator::Translate(uint8_t* buffer, size_t valid_bytes) {
  if (buffer == nullptr || valid_bytes == 0) return;
  CUpti_Activity* record = nullptr;
  for (;;) {
    const CUptiResult rc = next_(buffer, valid_bytes, &record);
    if (rc == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // the normal end of the buffer
    if (rc != CUPTI_SUCCESS || record == nullptr) {
      ++counts_.translation_failures;
      break;
    }
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        AddKernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        AddMemoryOp(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record),
                    nf::MemoryOpKind::kMemcpy,
                    reinterpret_cast<const CUpti_ActivityMemcpy6*>(record)->copyKind);
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        AddMemoryOp(*reinterpret_cast<const CUpti_ActivityMemset4*>(record),
                    nf::MemoryOpKind::kMemset, 0);
        break;
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER:
        AddApi(*reinterpret_cast<const CUpti_ActivityAPI*>(record));
        break;
      case CUPTI_ACTIVITY_KIND_DEVICE:
        AddDevice(*reinterpret_cast<const CUpti_ActivityDevice5*>(record));
        break;
      default:
        ++counts_.unknown;
        break;
    }
  }
}

bool RecordTranslator::KernelNames(const char* name, nf::StringRef* demangled,
                                   nf::StringRef* mangled) {
  const std::string_view key = name != nullptr ? name : "<unnamed kernel>";
  if (auto it = kernel_names_.find(key); it != kernel_names_.end()) {
    *demangled = it->second.first;
    *mangled = it->second.second;
    return true;
  }
  const std::string pretty = base::Demangle(key).value_or(std::string(key));
  auto d = writer_.Intern(pretty);
  auto m = writer_.Intern(key);
  if (!Ok(d.status()) || !Ok(m.status())) return false;
  kernel_names_.emplace(std::string(key), std::make_pair(*d, *m));
  *demangled = *d;
  *mangled = *m;
  return true;
}

std::string RecordTranslator::KernelDevices() const {
  std::string text;
  for (const uint32_t device : kernel_devices_) {
    if (!text.empty()) text += ',';
    text += std::to_string(device);
  }
  return text;
}

void RecordTranslator::AddKernel(const CUpti_ActivityKernel10& k) {
  if (gate_ != nullptr && gate_->DroppedLaunch(k.correlationId)) {
    ++counts_.dropped_after_period;
    return;
  }
  if (k.start == 0 || k.end == 0 || k.end < k.start) {
    ++counts_.incomplete;
    return;
  }
  nf::KernelRow row;
  if (!KernelNames(k.name, &row.name, &row.mangled)) return;
  row.start_ns = static_cast<int64_t>(k.start) + offset_ns_;
  row.end_ns = static_cast<int64_t>(k.end) + offset_ns_;
  row.device = k.deviceId;
  kernel_devices_.insert(k.deviceId);
  row.context = k.contextId;
  row.stream = k.streamId;
  row.correlation = Correlation(k.correlationId);
  row.grid[0] = k.gridX;
  row.grid[1] = k.gridY;
  row.grid[2] = k.gridZ;
  row.block[0] = k.blockX;
  row.block[1] = k.blockY;
  row.block[2] = k.blockZ;
  row.registers = k.registersPerThread;
  row.static_smem = k.staticSharedMemory;
  row.dynamic_smem = k.dynamicSharedMemory;
  row.graph_id = k.graphId;
  row.graph_node_id = k.graphNodeId;
  if (Ok(writer_.AddKernel(row))) ++counts_.kernels;
}

// Memcpy6 and Memset4 share the fields a memory operation row needs.
template <typename Record>
void RecordTranslator::AddMemoryOp(const Record& m, nf::MemoryOpKind kind, int32_t copy_kind) {
  if (gate_ != nullptr && gate_->DroppedLaunch(m.correlationId)) {
    ++counts_.dropped_after_period;
    return;
  }
  if (m.start == 0 || m.end == 0 || m.end < m.start) {
    ++counts_.incomplete;
    return;
  }
  nf::MemoryOpRow row;
  row.kind = kind;
  row.copy_kind = copy_kind;
  row.bytes = static_cast<int64_t>(m.bytes);
  row.start_ns = static_cast<int64_t>(m.start) + offset_ns_;
  row.end_ns = static_cast<int64_t>(m.end) + offset_ns_;
  row.device = m.deviceId;
  row.context = m.contextId;
  row.stream = m.streamId;
  row.correlation = Correlation(m.correlationId);
  row.graph_id = m.graphId;
  row.graph_node_id = m.graphNodeId;
  if (Ok(writer_.AddMemoryOp(row))) ++counts_.memory_ops;
}

void RecordTranslator::AddApi(const CUpti_ActivityAPI& a) {
  const int64_t start_ns = static_cast<int64_t>(a.start) + offset_ns_;
  if (gate_ != nullptr && !gate_->Covers(start_ns)) {
    ++counts_.api_calls_outside_range;
    return;
  }
  const uint64_t key = (static_cast<uint64_t>(a.kind) << 32) | a.cbid;
  if (launch_apis_only_) {
    auto [it, added] = is_launch_api_.try_emplace(key, false);
    if (added) {
      for (size_t i = 0; i < kLaunchApiCount; ++i) {
        if (kLaunchApis[i].kind == a.kind && kLaunchApis[i].cbid == a.cbid) it->second = true;
      }
    }
    if (!it->second) {
      ++counts_.api_calls_other;
      return;
    }
  }
  nf::ApiCallRow row;
  if (auto it = api_names_.find(key); it != api_names_.end()) {
    row.name = it->second;
  } else {
    auto name = writer_.Intern(ApiName(a.kind, a.cbid));
    if (!Ok(name.status())) return;
    api_names_.emplace(key, *name);
    row.name = *name;
  }
  row.start_ns = start_ns;
  row.end_ns = static_cast<int64_t>(a.end) + offset_ns_;
  row.thread = a.threadId;
  row.correlation = Correlation(a.correlationId);
  row.return_value = static_cast<int32_t>(a.returnValue);
  if (Ok(writer_.AddApiCall(row))) ++counts_.api_calls;
}

void RecordTranslator::AddDevice(const CUpti_ActivityDevice5& d) {
  nf::DeviceRow row;
  row.id = d.id;
  row.name = d.name != nullptr ? d.name : "";
  row.compute_major = static_cast<int32_t>(d.computeCapabilityMajor);
  row.compute_minor = static_cast<int32_t>(d.computeCapabilityMinor);
  row.multiprocessors = static_cast<int32_t>(d.numMultiprocessors);
  row.global_memory = static_cast<int64_t>(d.globalMemorySize);
  if (Ok(writer_.AddDevice(row))) ++counts_.devices;
}

void RecordTranslator::SetEpoch(uint32_t epoch) {
  if (epoch == epoch_) return;
  epoch_ = epoch;
  previous_raw_max_ = std::max(previous_raw_max_, raw_max_);
  raw_max_ = 0;
  epoch_begun_ = true;
}

uint32_t RecordTranslator::Correlation(uint32_t raw) {
  if (raw == 0) return 0;  // none
  if (epoch_begun_) {
    epoch_begun_ = false;
    if (raw <= previous_raw_max_) correlation_base_ = written_max_;  // started over
  }
  raw_max_ = std::max(raw_max_, raw);
  const uint32_t id = correlation_base_ + raw;
  written_max_ = std::max(written_max_, id);
  return id;
}

}  // namespace decodeprof::record::cupti
