/* A stand-in for libnvidia-ml.so.1, for the guard's NVML tests on machines without an
 * NVIDIA driver. The guard dlopen()s it through LD_LIBRARY_PATH like the real library.
 *
 * Its state is re-read from the file named by $FAKE_NVML_STATE at every call, one
 * directive a line:
 *   devices N            number of devices (default 1)
 *   util D P             device D is P percent busy (default 0)
 *   proc D PID           PID has a compute context on device D
 *   graphics D PID       PID has a graphics context on device D
 *   init_fail CODE       nvmlInit_v2 returns CODE
 * Only the entry points the guard uses exist, with the driver's nvml.h signatures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_t;
typedef struct {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;

enum { kMaxDevices = 8, kMaxProcs = 64 };

typedef struct {
  unsigned devices;
  unsigned util[kMaxDevices];
  unsigned procs[kMaxDevices][kMaxProcs];
  unsigned nprocs[kMaxDevices];
  unsigned gfx[kMaxDevices][kMaxProcs];
  unsigned ngfx[kMaxDevices];
  int init_fail;
} State;

static void Load(State* s) {
  memset(s, 0, sizeof *s);
  s->devices = 1;
  const char* path = getenv("FAKE_NVML_STATE");
  FILE* f = path != NULL ? fopen(path, "re") : NULL;
  if (f == NULL) return;
  char word[32];
  unsigned a = 0;
  unsigned b = 0;
  while (fscanf(f, "%31s", word) == 1) {
    if (strcmp(word, "devices") == 0 && fscanf(f, "%u", &a) == 1) {
      s->devices = a < kMaxDevices ? a : kMaxDevices;
    } else if (strcmp(word, "init_fail") == 0 && fscanf(f, "%u", &a) == 1) {
      s->init_fail = (int)a;
    } else if (strcmp(word, "util") == 0 && fscanf(f, "%u %u", &a, &b) == 2 && a < kMaxDevices) {
      s->util[a] = b;
    } else if (strcmp(word, "proc") == 0 && fscanf(f, "%u %u", &a, &b) == 2 && a < kMaxDevices &&
               s->nprocs[a] < kMaxProcs) {
      s->procs[a][s->nprocs[a]++] = b;
    } else if (strcmp(word, "graphics") == 0 && fscanf(f, "%u %u", &a, &b) == 2 &&
               a < kMaxDevices && s->ngfx[a] < kMaxProcs) {
      s->gfx[a][s->ngfx[a]++] = b;
    }
  }
  fclose(f);
}

static unsigned Index(nvmlDevice_t device) { return (unsigned)((size_t)device - 1); }

nvmlReturn_t nvmlInit_v2(void) {
  State s;
  Load(&s);
  return s.init_fail;
}

const char* nvmlErrorString(nvmlReturn_t code) {
  return code == 9 ? "Driver Not Loaded" : "Fake NVML Error";
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  State s;
  Load(&s);
  *count = s.devices;
  return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  *device = (nvmlDevice_t)(size_t)(index + 1);
  return 0;
}

static nvmlReturn_t Fill(const unsigned* pids, unsigned n, unsigned int* count,
                         nvmlProcessInfo_t* infos) {
  if (*count < n) {
    *count = n;
    return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
  }
  for (unsigned i = 0; i < n; ++i) {
    infos[i].pid = pids[i];
    infos[i].usedGpuMemory = 1u << 20;
    infos[i].gpuInstanceId = 0xFFFFFFFFu;
    infos[i].computeInstanceId = 0xFFFFFFFFu;
  }
  *count = n;
  return 0;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* count,
                                                      nvmlProcessInfo_t* infos) {
  State s;
  Load(&s);
  const unsigned d = Index(device);
  return Fill(s.procs[d], s.nprocs[d], count, infos);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int* count,
                                                       nvmlProcessInfo_t* infos) {
  State s;
  Load(&s);
  const unsigned d = Index(device);
  return Fill(s.gfx[d], s.ngfx[d], count, infos);
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* util) {
  State s;
  Load(&s);
  util->gpu = s.util[Index(device)];
  util->memory = 0;
  return 0;
}
