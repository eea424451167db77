// A stand-in for a CUDA program under `decodeprof record`: it loads the injection library
// the way the CUDA driver (InitializeInjection) and an NVTX instance
// (InitializeInjectionNvtx2 with an export table) do, makes the stand-in CUPTI emit kernel
// records, and then ends in the way the scenario (argv[2]) names. Used by
// injection_standin_test.cc; exit status 2 means the harness itself failed.
//
// usage: fake_host LIBDECODEPROF_CUPTI.so SCENARIO
#define NVTX_NO_IMPL
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

// ---- an NVTX instance: function slots the injection fills in ----
NvtxFunctionPointer g_core[NVTX_CBID_CORE_SIZE] = {};
NvtxFunctionPointer* g_core_table[NVTX_CBID_CORE_SIZE];
NvtxFunctionPointer g_core2[NVTX_CBID_CORE2_SIZE] = {};
NvtxFunctionPointer* g_core2_table[NVTX_CBID_CORE2_SIZE];

int GetModuleFunctionTable(NvtxCallbackModule module, NvtxFunctionTable* out, unsigned int* size) {
  if (module == NVTX_CB_MODULE_CORE) {
    *out = g_core_table;
    *size = NVTX_CBID_CORE_SIZE;
    return 1;
  }
  if (module == NVTX_CB_MODULE_CORE2) {
    *out = g_core2_table;
    *size = NVTX_CBID_CORE2_SIZE;
    return 1;
  }
  return 0;
}

const NvtxExportTableCallbacks g_callbacks = {sizeof(NvtxExportTableCallbacks),
                                              &GetModuleFunctionTable};
const void* GetExportTable(uint32_t id) {
  return id == NVTX_ETID_CALLBACKS ? &g_callbacks : nullptr;
}

template <typename Fn>
Fn Core(int id) {
  return reinterpret_cast<Fn>(g_core[id]);
}
template <typename Fn>
Fn Core2(int id) {
  return reinterpret_cast<Fn>(g_core2[id]);
}
int Push(const char* name) {
  auto fn = Core<nvtxRangePushA_impl_fntype>(NVTX_CBID_CORE_RangePushA);
  return fn != nullptr ? fn(name) : -100;
}
int Pop() {
  auto fn = Core<nvtxRangePop_impl_fntype>(NVTX_CBID_CORE_RangePop);
  return fn != nullptr ? fn() : -100;
}

// ---- the stand-in CUPTI's controls ----
using EmitFn = int (*)(int, const char*, uint64_t);
using FlushFn = int (*)(uint32_t);
EmitFn g_emit = nullptr;
FlushFn g_flush = nullptr;

int Fail(const char* what) {
  std::fprintf(stderr, "fake_host: %s\n", what);
  return 2;
}

}  // namespace

// Under LeakSanitizer (the asan preset): the recorder lives as long as the process by
// design, and a forked child sees the parent's drain-thread stack as gone, so buffers it
// still pointed to look leaked. Leaks are checked by the unit tests, not in this harness.
extern "C" __attribute__((used)) const char* __lsan_default_options() { return "detect_leaks=0"; }

int main(int argc, char** argv) {
  if (argc != 3) return Fail("usage: fake_host LIB SCENARIO");
  const std::string scenario = argv[2];
  for (int i = 0; i < NVTX_CBID_CORE_SIZE; ++i) g_core_table[i] = &g_core[i];
  for (int i = 0; i < NVTX_CBID_CORE2_SIZE; ++i) g_core2_table[i] = &g_core2[i];

  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return Fail(dlerror());
  auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
  auto init_nvtx =
      reinterpret_cast<int (*)(NvtxGetExportTableFunc_t)>(dlsym(lib, "InitializeInjectionNvtx2"));
  if (init == nullptr || init_nvtx == nullptr) return Fail("entry points missing");

  // The driver calls InitializeInjection during cuInit; a program without CUDA never does.
  if (scenario != "nvtx_only" && init() != 1) return Fail("InitializeInjection failed");
  const int nvtx_ok = init_nvtx(&GetExportTable);
  if (scenario == "not_followed") return nvtx_ok == 0 ? 0 : Fail("NVTX attached in a child");
  if (nvtx_ok != 1) return Fail("InitializeInjectionNvtx2 failed");

  if (const char* fake = std::getenv("DECODEPROF_CUPTI_LIB")) {
    void* cupti = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
    if (cupti != nullptr) {
      g_emit = reinterpret_cast<EmitFn>(dlsym(cupti, "FakeCuptiEmitKernels"));
      g_flush = reinterpret_cast<FlushFn>(dlsym(cupti, "cuptiActivityFlushAll"));
    }
  }
  auto emit = [](int n, const char* name) { return g_emit != nullptr ? g_emit(n, name, 2000) : 0; };

  if (scenario == "basic") {
    // Many threads launching and annotating at once.
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&] {
        if (Push("decodeprof:step") != 0 || Push("inner") != 1) std::_Exit(2);
        emit(125, "_Z8k_threadv");
        if (Pop() != 1 || Pop() != 0) std::_Exit(2);
      });
    }
    for (auto& t : threads) t.join();
    auto start = Core<nvtxRangeStartA_impl_fntype>(NVTX_CBID_CORE_RangeStartA);
    auto end = Core<nvtxRangeEnd_impl_fntype>(NVTX_CBID_CORE_RangeEnd);
    const nvtxRangeId_t id = start("startend");
    std::thread([&] { end(id); }).join();  // ends on another thread
    auto create = Core2<nvtxDomainCreateA_impl_fntype>(NVTX_CBID_CORE2_DomainCreateA);
    auto mark = Core2<nvtxDomainMarkEx_impl_fntype>(NVTX_CBID_CORE2_DomainMarkEx);
    nvtxEventAttributes_t attr{};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = "token";
    mark(create("mydomain"), &attr);
    if (Pop() != -1) return Fail("unmatched pop accepted");
    emit(5, "k_tail");  // still in CUPTI's buffer at exit: the exit flush must get it
    return 0;           // exit without any CUDA teardown
  }
  if (scenario == "sigterm") {
    emit(100, "k_before_signal");
    Push("open_at_signal");
    kill(getpid(), SIGTERM);
    sleep(10);
    return 3;  // not reached: the recorder re-raises SIGTERM after flushing
  }
  if (scenario == "sigkill") {
    emit(100, "k_committed");
    if (g_flush != nullptr) g_flush(0);
    usleep(600 * 1000);  // several commit periods
    emit(50, "k_lost");
    raise(SIGKILL);
    return 3;
  }
  if (scenario == "fork") {
    emit(10, "k_parent");
    const pid_t child = fork();
    if (child < 0) return Fail("fork");
    if (child == 0) {
      Push("child");  // no-ops: a forked child is not traced
      Pop();
      emit(10, "k_child");
      std::exit(0);  // runs the atexit handlers, the recorder's included
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return Fail("child failed");
    }
    emit(10, "k_parent");
    return 0;
  }
  if (scenario == "refuse" || scenario == "nvtx_only") {
    Push("annotated");
    Pop();
    return 0;
  }
  if (scenario == "dropped") {
    emit(3, "k");
    return 0;
  }
  return Fail("unknown scenario");
}
