/* A stand-in for libcuda.so.1 with the entry points src/device/bandwidth_probe.cc calls,
 * over host memory: copies are memcpy and take DECODEPROF_FAKE_CUDA_COPY_MS (default 1) ms
 * of a fake clock that the events read. DECODEPROF_FAKE_CUDA_FAIL names one entry point
 * that fails with CUDA_ERROR_OUT_OF_MEMORY (2); DECODEPROF_FAKE_CUDA_DEVICES the number of
 * devices (default 1). fake_cuda_live() counts what is held (allocations, events, retained
 * contexts) so the tests can see that everything was released. */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct {
  double ms;
} FakeEvent;

static double g_clock_ms = 0;
static int g_live = 0;
static int g_context = 0;

static int Fails(const char* name) {
  const char* fail = getenv("DECODEPROF_FAKE_CUDA_FAIL");
  return fail != NULL && strcmp(fail, name) == 0;
}
#define FAKE_FAIL(name) \
  if (Fails(name)) return 2

int fake_cuda_live(void) { return g_live; }

CUresult cuInit(unsigned int flags) {
  (void)flags;
  FAKE_FAIL("cuInit");
  return 0;
}
CUresult cuDriverGetVersion(int* version) {
  *version = 13000;
  return 0;
}
CUresult cuDeviceGetCount(int* count) {
  const char* env = getenv("DECODEPROF_FAKE_CUDA_DEVICES");
  *count = env != NULL ? atoi(env) : 1;
  return 0;
}
CUresult cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return 0;
}
CUresult cuDeviceGetName(char* name, int len, int device) {
  (void)device;
  strncpy(name, "NVIDIA H200", (size_t)len);
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int device) {
  (void)device;
  FAKE_FAIL("cuDevicePrimaryCtxRetain");
  *ctx = &g_context;
  ++g_live;
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  --g_live;
  return 0;
}
CUresult cuCtxSetCurrent(void* ctx) {
  (void)ctx;
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
  FAKE_FAIL("cuMemAlloc_v2");
  void* p = malloc(bytes);
  if (p == NULL) return 2;
  *ptr = (CUdeviceptr)(size_t)p;
  ++g_live;
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  free((void*)(size_t)ptr);
  --g_live;
  return 0;
}
CUresult cuMemsetD8_v2(CUdeviceptr ptr, unsigned char value, size_t bytes) {
  memset((void*)(size_t)ptr, value, bytes);
  return 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, void* stream) {
  (void)stream;
  FAKE_FAIL("cuMemcpyDtoDAsync_v2");
  memcpy((void*)(size_t)dst, (const void*)(size_t)src, bytes);
  const char* ms = getenv("DECODEPROF_FAKE_CUDA_COPY_MS");
  g_clock_ms += ms != NULL ? atof(ms) : 1.0;
  return 0;
}
CUresult cuEventCreate(FakeEvent** event, unsigned int flags) {
  (void)flags;
  FAKE_FAIL("cuEventCreate");
  *event = (FakeEvent*)calloc(1, sizeof(FakeEvent));
  ++g_live;
  return 0;
}
CUresult cuEventRecord(FakeEvent* event, void* stream) {
  (void)stream;
  event->ms = g_clock_ms;
  return 0;
}
CUresult cuEventSynchronize(FakeEvent* event) {
  (void)event;
  FAKE_FAIL("cuEventSynchronize");
  return 0;
}
CUresult cuEventElapsedTime(float* ms, FakeEvent* start, FakeEvent* end) {
  *ms = (float)(end->ms - start->ms);
  return 0;
}
CUresult cuEventDestroy_v2(FakeEvent* event) {
  free(event);
  --g_live;
  return 0;
}
CUresult cuGetErrorName(CUresult error, const char** name) {
  *name = error == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
