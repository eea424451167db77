// A stand-in for libcupti: the entry points the recorder loads, backed by a tiny in-process
// simulation, so that the injection library's wiring (buffers, drain thread, exit, fork,
// signals, many threads, gating by a range) is tested without a GPU. It produces
// CONCURRENT_KERNEL records in CUDA 13's layout (CUpti_ActivityKernel10), as the real CUPTI
// hands them out, and cudaLaunchKernel API records.
//
// Like CUPTI, it decides at launch: a kernel launched while CONCURRENT_KERNEL is disabled
// leaves no record, and one launched while it is enabled is recorded (its record is written
// at launch and handed back at the next flush) whatever is switched afterwards. The API
// record follows cuptiActivityEnableRuntimeApi(cudaLaunchKernel) in the same way, except that,
// like CUPTI 13.0 on the H200, once switched off it stays off: enabling it again is accepted
// and does nothing.
//
// Detaching: cuptiSubscribe/cuptiEnableDomain take one subscriber, called at the exit of
// every "launch" (FakeCuptiEmitKernels) while the runtime domain is enabled; cuptiFinalize
// hands back the buffer and forgets everything (callbacks, enabled kinds, the subscriber),
// and, like a fresh CUPTI, starts the correlation ids over. A flush or a dropped-record query
// while finalized is counted as a stray call (CUPTI would attach itself again).
//
// CUDA graphs (FakeCuptiLaunchGraph): a graph launch calls the subscriber at its entry and
// exit when cuptiEnableCallback enabled cuGraphLaunch, and, like CUPTI, decides at launch
// whether its kernels are recorded; but their records are read only once the stand-in GPU
// has finished the launch (FakeGpuComplete) and a flush comes: a graph launch made with
// kernels switched off before then overwrites them (their durations come back 12 ms). A
// forced flush reads them as they are. The stand-in also holds the few driver entry points
// the recorder uses (cuEventRecord, cuEventQuery, ...): an event completes once the GPU has
// finished every launch made before it was recorded.
//
// Environment: FAKE_CUPTI_REFUSE=1 makes enabling CONCURRENT_KERNEL fail;
// FAKE_CUPTI_REFUSE_AGAIN=1 lets the first enabling of CONCURRENT_KERNEL succeed and fails
// every later one; FAKE_CUPTI_DROPPED=N makes the first dropped-record query report N;
// FAKE_CUPTI_NO_SUBSCRIBE=1 makes cuptiSubscribe fail.
// Control functions for the host program: FakeCuptiEmitKernels, FakeCuptiDetachStats,
// FakeCuptiLaunchesOverUnread (launches made with kernels switched off while kernel records
// were still unread: in a real CUPTI, graph replays that overwrite the recorded replay's
// timestamps).
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

std::mutex g_mu;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
CUpti_TimestampCallbackFunc g_timestamp = nullptr;
bool g_kernels_enabled = false;    // CONCURRENT_KERNEL
bool g_api_enabled = false;        // the cudaLaunchKernel runtime API record
bool g_api_disabled_once = false;  // switched off once: stays off (see the top)
int g_kernel_enables = 0;
uint8_t* g_buffer = nullptr;  // the buffer being filled
size_t g_size = 0;
size_t g_used = 0;
uint32_t g_correlation = 0;
std::atomic<int64_t> g_dropped{0};
CUpti_CallbackFunc g_callback = nullptr;  // the subscriber's
void* g_callback_user = nullptr;
bool g_subscribed = false;
bool g_runtime_domain = false;
bool g_finalized = false;
int g_finalizes = 0;
int g_stray_calls = 0;
size_t g_unread_kernels = 0;  // kernel records in g_buffer, not handed back yet
int g_launches_over_unread = 0;
std::atomic<bool> g_reported_env_drops{false};
bool g_graph_callback = false;        // cuGraphLaunch's callback enabled
bool g_instantiate_callback = false;  // cuGraphInstantiateWithFlags' callback enabled
struct PendingGraphKernel {
  CUpti_ActivityKernel10 record;
  uint64_t launch;  // the graph launch's number
  bool overwritten;
};
// Graph kernel records not read yet. Never destroyed: the recorder loads this library after
// it registered its exit handler, so this library's static destructors run before that
// handler's final flush.
std::vector<PendingGraphKernel>& g_pending = *new std::vector<PendingGraphKernel>;
uint64_t g_graph_launches = 0;
uint64_t g_gpu_done = 0;  // graph launches the GPU has finished
int g_overwritten = 0;

bool Set(const char* variable) {
  const char* value = std::getenv(variable);
  return value != nullptr && std::strcmp(value, "1") == 0;
}

uint64_t Now() {
  if (g_timestamp != nullptr) return g_timestamp();
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

size_t RecordSize(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return sizeof(CUpti_ActivityAPI);
    default:
      return 0;
  }
}

// Hands the current buffer back through the completion callback (outside the lock, like
// CUPTI, which may deliver on the thread that flushes).
void CompleteLocked(std::unique_lock<std::mutex>& lock) {
  if (g_buffer == nullptr) return;
  uint8_t* buffer = g_buffer;
  const size_t size = g_size;
  const size_t used = g_used;
  g_buffer = nullptr;
  g_size = g_used = 0;
  g_unread_kernels = 0;
  auto complete = g_complete;
  lock.unlock();
  if (complete != nullptr) complete(nullptr, 0, buffer, size, used);
  lock.lock();
}

void AppendLocked(std::unique_lock<std::mutex>& lock, const void* record, size_t size);

// Reads the graph kernel records whose launch the GPU has finished (all of them when
// `forced`) into the buffer.
void ReadGraphRecordsLocked(std::unique_lock<std::mutex>& lock, bool forced) {
  std::vector<PendingGraphKernel> ready;
  auto it = std::stable_partition(g_pending.begin(), g_pending.end(), [&](const auto& p) {
    return !(forced || p.launch <= g_gpu_done);
  });
  ready.assign(it, g_pending.end());
  g_pending.erase(it, g_pending.end());
  for (PendingGraphKernel& p : ready) {
    if (p.overwritten) p.record.end = p.record.start + 12000000;
    AppendLocked(lock, &p.record, sizeof p.record);
  }
}

// Makes the current buffer one with room for `need` bytes, asking for one when needed; false
// when the request was refused. Each time the lock is let go another thread may take or hand
// back the current buffer (a flush on the thread that closed a range), so it looks again
// until there is one.
bool RoomLocked(std::unique_lock<std::mutex>& lock, size_t need) {
  while (g_buffer == nullptr || g_used + need > g_size) {
    if (g_buffer != nullptr) {
      CompleteLocked(lock);
      continue;
    }
    size_t max_records = 0;
    auto request = g_request;
    lock.unlock();
    uint8_t* buffer = nullptr;
    size_t size = 0;
    if (request != nullptr) request(&buffer, &size, &max_records);
    lock.lock();
    if (buffer == nullptr || size < need) return false;
    if (g_buffer != nullptr) {  // another thread got one meanwhile: keep theirs
      lock.unlock();
      g_complete(nullptr, 0, buffer, size, 0);
      lock.lock();
    } else {
      g_buffer = buffer;
      g_size = size;
      g_used = 0;
    }
  }
  return true;
}

// Appends one record to the current buffer (dropped and counted when no buffer was given).
void AppendLocked(std::unique_lock<std::mutex>& lock, const void* record, size_t size) {
  if (!RoomLocked(lock, size)) {
    ++g_dropped;
    return;
  }
  std::memcpy(g_buffer + g_used, record, size);
  g_used += size;
}

thread_local CUstreamCaptureMode t_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
struct FakeEvent {
  uint64_t after = 0;  // the graph launches made before it was recorded
};

}  // namespace

extern "C" {

CUptiResult cuptiGetVersion(uint32_t* version) {
  *version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiGetResultString(CUptiResult result, const char** str) {
  *str = result == CUPTI_ERROR_NOT_INITIALIZED ? "CUPTI_ERROR_NOT_INITIALIZED" : "CUPTI_ERROR";
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                           CUpti_BuffersCallbackCompleteFunc complete) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_finalized = false;  // attached again (lazy initialization)
  g_request = request;
  g_complete = complete;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc fn) {
  g_timestamp = fn;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
    std::lock_guard<std::mutex> lock(g_mu);
    const bool refuse =
        Set("FAKE_CUPTI_REFUSE") || (Set("FAKE_CUPTI_REFUSE_AGAIN") && g_kernel_enables > 0);
    ++g_kernel_enables;
    if (refuse) return CUPTI_ERROR_NOT_INITIALIZED;
    g_kernels_enabled = true;
  }
  if (kind == CUPTI_ACTIVITY_KIND_KERNEL) std::abort();  // the recorder must never ask
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_kernels_enabled = false;
  }
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000) {
    std::lock_guard<std::mutex> lock(g_mu);
    if (enable == 0) g_api_disabled_once = true;
    g_api_enabled = enable != 0 && !g_api_disabled_once;
  }
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId, uint8_t) { return CUPTI_SUCCESS; }
CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType) { return CUPTI_SUCCESS; }
CUptiResult cuptiGetTimestamp(uint64_t* t) {
  *t = Now();
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityFlushAll(uint32_t flags) {
  std::unique_lock<std::mutex> lock(g_mu);
  if (g_finalized) ++g_stray_calls;
  ReadGraphRecordsLocked(lock, (flags & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0);
  CompleteLocked(lock);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_finalized) ++g_stray_calls;
  }
  int64_t n = g_dropped.exchange(0);
  if (!g_reported_env_drops.exchange(true)) {
    if (const char* text = std::getenv("FAKE_CUPTI_DROPPED")) n += std::strtoll(text, nullptr, 10);
  }
  *dropped = static_cast<size_t>(n);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* handle, CUpti_CallbackFunc callback,
                           void* user) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (Set("FAKE_CUPTI_NO_SUBSCRIBE") || g_subscribed) {
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  g_subscribed = true;
  g_callback = callback;
  g_callback_user = user;
  *handle = reinterpret_cast<CUpti_SubscriberHandle>(&g_subscribed);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle,
                              CUpti_CallbackDomain domain) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_subscribed) return CUPTI_ERROR_INVALID_PARAMETER;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) g_runtime_domain = enable != 0;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle,
                                CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_subscribed) return CUPTI_ERROR_INVALID_PARAMETER;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch) {
    g_graph_callback = enable != 0;
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API &&
      cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags) {
    g_instantiate_callback = enable != 0;
  }
  return CUPTI_SUCCESS;
}
CUptiResult cuptiFinalize() {
  std::unique_lock<std::mutex> lock(g_mu);
  ReadGraphRecordsLocked(lock, true);
  CompleteLocked(lock);
  g_request = nullptr;
  g_complete = nullptr;
  g_timestamp = nullptr;
  g_kernels_enabled = g_api_enabled = g_api_disabled_once = false;
  g_subscribed = g_runtime_domain = g_graph_callback = g_instantiate_callback = false;
  g_callback = nullptr;
  g_correlation = 0;
  g_finalized = true;
  ++g_finalizes;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  uint8_t* next = buffer;
  if (*record != nullptr) {
    next = reinterpret_cast<uint8_t*>(*record) + RecordSize((*record)->kind);
  }
  if (next + sizeof(CUpti_Activity) > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  auto* candidate = reinterpret_cast<CUpti_Activity*>(next);
  if (RecordSize(candidate->kind) == 0) return CUPTI_ERROR_INVALID_KIND;
  *record = candidate;
  return CUPTI_SUCCESS;
}

// "Launches" `count` kernels named `name` of `duration_ns` each, one after the other: a
// CONCURRENT_KERNEL record per kernel when that kind is enabled, and a cudaLaunchKernel API
// record per kernel when that callback is. Thread-safe. Returns how many kernel records
// were written (the rest were not enabled, or dropped for want of a buffer and counted).
int FakeCuptiEmitKernels(int count, const char* name, uint64_t duration_ns) {
  std::unique_lock<std::mutex> lock(g_mu);
  int recorded = 0;
  for (int i = 0; i < count; ++i) {
    if (g_runtime_domain && g_callback != nullptr) {  // the previous launch's API exit
      CUpti_CallbackData data{};
      data.callbackSite = CUPTI_API_EXIT;
      auto callback = g_callback;
      void* user = g_callback_user;
      lock.unlock();
      callback(user, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
               &data);
      lock.lock();
    }
    const bool kernel = g_kernels_enabled;
    const bool api = g_api_enabled;
    // CUPTI 13 reads a graph kernel's timestamps when it hands its record back; a replay of
    // the graph after recording was switched off overwrites those it has not read yet.
    if (!kernel && g_unread_kernels > 0) ++g_launches_over_unread;
    const size_t need =
        (kernel ? sizeof(CUpti_ActivityKernel10) : 0) + (api ? sizeof(CUpti_ActivityAPI) : 0);
    if (need == 0) continue;
    // A buffer with room for the records; a refused request drops them.
    if (!RoomLocked(lock, need)) {
      g_dropped += (kernel ? 1 : 0) + (api ? 1 : 0);
      continue;
    }
    const uint32_t correlation = ++g_correlation;
    const uint64_t launch = Now();
    if (api) {
      CUpti_ActivityAPI a{};
      a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
      a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
      a.start = launch;
      a.end = launch + 500;
      a.threadId = 1;
      a.correlationId = correlation;
      std::memcpy(g_buffer + g_used, &a, sizeof a);
      g_used += sizeof a;
    }
    if (!kernel) continue;
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = launch + 1000;
    k.end = k.start + duration_ns;
    k.deviceId = 0;
    k.streamId = 7;
    k.correlationId = correlation;
    k.gridX = 2;
    k.gridY = k.gridZ = 1;
    k.blockX = 128;
    k.blockY = k.blockZ = 1;
    k.name = name;
    std::memcpy(g_buffer + g_used, &k, sizeof k);
    g_used += sizeof k;
    ++g_unread_kernels;
    ++recorded;
  }
  return recorded;
}

// "Launches" a CUDA graph of `kernels` kernels named `name` on stream `stream` (see the top).
// Returns how many kernel records it will leave.
int FakeCuptiLaunchGraph(int kernels, const char* name, uint64_t duration_ns, uint64_t stream) {
  std::unique_lock<std::mutex> lock(g_mu);
  const uint32_t correlation = ++g_correlation;
  cuGraphLaunch_params params{};
  params.hStream = reinterpret_cast<CUstream>(stream);  // NOLINT(performance-no-int-to-ptr)
  CUpti_CallbackData data{};
  data.correlationId = correlation;
  data.functionParams = &params;
  data.functionName = "cuGraphLaunch";
  const auto call = [&](CUpti_ApiCallbackSite site) {
    if (!g_graph_callback || g_callback == nullptr) return;
    data.callbackSite = site;
    auto callback = g_callback;
    void* user = g_callback_user;
    lock.unlock();
    callback(user, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &data);
    lock.lock();
  };
  call(CUPTI_API_ENTER);
  const uint64_t launch = ++g_graph_launches;
  const bool recorded = g_kernels_enabled;
  if (!recorded) {
    for (PendingGraphKernel& p : g_pending) {
      if (!p.overwritten) ++g_overwritten;
      p.overwritten = true;
    }
  }
  const uint64_t t = Now();
  for (int i = 0; recorded && i < kernels; ++i) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = t + 1000 + static_cast<uint64_t>(i) * (duration_ns + 100);
    k.end = k.start + duration_ns;
    k.streamId = 7;
    k.correlationId = correlation;
    k.graphId = 1;
    k.graphNodeId = static_cast<uint64_t>(i) + 1;
    k.gridX = k.gridY = k.gridZ = 1;
    k.blockX = 32;
    k.blockY = k.blockZ = 1;
    k.name = name;
    g_pending.push_back({k, launch, false});
  }
  call(CUPTI_API_EXIT);
  return recorded ? kernels : 0;
}

// "Instantiates" a CUDA graph: the subscriber is called at the entry and exit of
// cuGraphInstantiateWithFlags when its callback is enabled.
void FakeCuptiInstantiateGraph() {
  std::unique_lock<std::mutex> lock(g_mu);
  if (!g_instantiate_callback || g_callback == nullptr) return;
  auto callback = g_callback;
  void* user = g_callback_user;
  lock.unlock();
  CUpti_CallbackData data{};
  data.functionName = "cuGraphInstantiateWithFlags";
  for (const CUpti_ApiCallbackSite site : {CUPTI_API_ENTER, CUPTI_API_EXIT}) {
    data.callbackSite = site;
    callback(user, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
             &data);
  }
}

// The stand-in GPU finishes the first `launches` graph launches (all so far when larger).
void FakeGpuComplete(uint64_t launches) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_gpu_done = std::max(g_gpu_done, std::min(launches, g_graph_launches));
}

// Graph kernel records a later unrecorded launch overwrote (see the top).
int FakeCuptiOverwritten() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_overwritten;
}

// ---- the driver entry points the recorder calls (driver_api.h) ----
CUresult cuEventCreate(CUevent* event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new FakeEvent);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent event, CUstream) {
  std::lock_guard<std::mutex> lock(g_mu);
  reinterpret_cast<FakeEvent*>(event)->after = g_graph_launches;
  return CUDA_SUCCESS;
}
CUresult cuEventRecord_ptsz(CUevent event, CUstream stream) { return cuEventRecord(event, stream); }
CUresult cuEventQuery(CUevent event) {
  std::lock_guard<std::mutex> lock(g_mu);
  return reinterpret_cast<FakeEvent*>(event)->after <= g_gpu_done ? CUDA_SUCCESS
                                                                  : CUDA_ERROR_NOT_READY;
}
CUresult cuStreamIsCapturing(CUstream, CUstreamCaptureStatus* status) {
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
CUresult cuStreamIsCapturing_ptsz(CUstream stream, CUstreamCaptureStatus* status) {
  return cuStreamIsCapturing(stream, status);
}
CUresult cuCtxGetCurrent(CUcontext* context) {
  *context = reinterpret_cast<CUcontext>(&g_mu);
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
  std::swap(*mode, t_capture_mode);
  return CUDA_SUCCESS;
}

// How often cuptiFinalize ran, and the stray calls made while finalized (see the top).
void FakeCuptiDetachStats(int* finalizes, int* stray_calls) {
  std::lock_guard<std::mutex> lock(g_mu);
  *finalizes = g_finalizes;
  *stray_calls = g_stray_calls;
}

// Launches made with kernels switched off while kernel records were unread (see the top).
int FakeCuptiLaunchesOverUnread() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_launches_over_unread;
}

}  // extern "C"
