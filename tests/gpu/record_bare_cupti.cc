// The floor of the CUPTI activity API, for tests/gpu/record_h200.sh: an injection library
// that enables CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL only, hands CUPTI 4 MiB buffers, walks
// each completed buffer (counting records) and writes nothing. Timing the 200k-launch loop
// under it gives the cost of CUPTI's own instrumentation, which no CUPTI-based recorder can
// go below.
//
// Build: g++ -O2 -shared -fPIC -I$CUDA/include record_bare_cupti.cc -o libbare_cupti.so \
//          -L$CUDA/lib -lcupti -static-libstdc++ -Wl,-rpath,$CUDA/lib64
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

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

void AtExit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::fprintf(stderr, "bare-cupti: %lld records\n", g_records.load());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  if (cuptiActivityRegisterCallbacks(&Requested, &Completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "bare-cupti: CUPTI refused\n");
    return 1;
  }
  std::atexit(&AtExit);
  return 1;
}
