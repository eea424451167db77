// What part of an attached CUPTI costs a program that replays large CUDA graphs, for
// tests/gpu/cupti_attach_cost_h200.sh: an injection library that does, at attach, only the
// steps DECODEPROF_PROBE_STEPS names (comma-separated, in this order):
//
//   version   cuptiGetVersion (CUPTI loaded and asked one thing)
//   buffers   cuptiActivityRegisterCallbacks (the activity API's buffer callbacks)
//   device    cuptiActivityEnable(DEVICE) (device records, no tracing)
//   clock     cuptiActivityRegisterTimestampCallback (CLOCK_MONOTONIC timestamps)
//   subscribe cuptiSubscribe with a callback that does nothing, and nothing enabled
//   graphcb   the four graph-launch callbacks enabled (runtime and driver, _ptsz too)
//   apirecs   runtime/driver API records of cudaGraphLaunch and cuGraphLaunch
//   kernelsoff  CONCURRENT_KERNEL enabled, then disabled at once
//   kernels   CONCURRENT_KERNEL enabled and left on (the floor of full recording)
//
// Built without CUPTI (-DPROBE_EMPTY) it is an injection that does nothing at all.
//
// Build (tests/gpu/cupti_attach_cost_h200.sh says how it was staged):
//   g++ -O2 -shared -fPIC -I$CUDA/include cupti_attach_probe.cc -o libprobe_cupti.so
//       -L$CUDA/lib64 -lcupti -static-libstdc++ -Wl,-rpath,$CUDA/lib64
//   g++ -O2 -shared -fPIC -DPROBE_EMPTY cupti_attach_probe.cc -o libprobe_empty.so
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#ifndef PROBE_EMPTY
#include <cupti.h>

#include <atomic>
#include <ctime>

namespace {

std::atomic<long long> g_records{0};
constexpr size_t kBufferBytes = 4u << 20;

void CUPTIAPI Requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI Completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  long long n = 0;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) ++n;
  g_records += n;
  std::free(buffer);
}

uint64_t Monotonic() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void CUPTIAPI Nothing(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

bool g_buffers = false;

void AtExit() {
  if (g_buffers) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::fprintf(stderr, "probe: %lld records\n", g_records.load());
}

bool Has(const std::string& steps, const char* step) {
  return ("," + steps + ",").find(std::string(",") + step + ",") != std::string::npos;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* env = std::getenv("DECODEPROF_PROBE_STEPS");
  const std::string steps = env != nullptr ? env : "";
  int failed = 0;
  auto check = [&](const char* what, CUptiResult rc) {
    if (rc != CUPTI_SUCCESS) {
      std::fprintf(stderr, "probe: %s failed (%d)\n", what, static_cast<int>(rc));
      ++failed;
    }
  };
  if (Has(steps, "version")) {
    uint32_t version = 0;
    check("cuptiGetVersion", cuptiGetVersion(&version));
  }
  if (Has(steps, "clock")) {
    check("timestamp callback", cuptiActivityRegisterTimestampCallback(&Monotonic));
  }
  if (Has(steps, "buffers")) {
    check("buffers", cuptiActivityRegisterCallbacks(&Requested, &Completed));
    g_buffers = true;
  }
  if (Has(steps, "device")) check("DEVICE", cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE));
  if (Has(steps, "subscribe") || Has(steps, "graphcb")) {
    CUpti_SubscriberHandle subscriber = nullptr;
    check("subscribe",
          cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(&Nothing), nullptr));
    if (Has(steps, "graphcb") && subscriber != nullptr) {
      check("cb", cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                                      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch));
      check("cb", cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                                      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz));
      check("cb", cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000));
      check("cb", cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000));
    }
  }
  if (Has(steps, "apirecs")) {
    check("api", cuptiActivityEnableRuntimeApi(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, 1));
    check("api", cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, 1));
  }
  if (Has(steps, "kernelsoff") || Has(steps, "kernels")) {
    check("CONCURRENT_KERNEL", cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    if (Has(steps, "kernelsoff")) {
      check("CONCURRENT_KERNEL off", cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    }
  }
  std::atexit(&AtExit);
  std::fprintf(stderr, "probe: steps '%s'%s\n", steps.c_str(), failed != 0 ? " (some failed)" : "");
  return 1;
}
#else
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  std::fprintf(stderr, "probe: empty injection\n");
  return 1;
}
#endif
