// A stand-in for a CUDA program under `decodeprof record`: it loads the injection library
// the way the CUDA driver (InitializeInjection) and an NVTX instance
// (InitializeInjectionNvtx2 with an export table) do, makes the stand-in CUPTI emit kernel
// records, and then ends in the way the scenario (argv[2]) names. Used by
// injection_standin_test.cc; exit status 2 means the harness itself failed.
//
// usage: fake_host LIBDECODEPROF_CUPTI.so SCENARIO
#define NVTX_NO_IMPL
#include <cupti.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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
nvtxRangeId_t Start(const char* name) {
  auto fn = Core<nvtxRangeStartA_impl_fntype>(NVTX_CBID_CORE_RangeStartA);
  return fn != nullptr ? fn(name) : 0;
}
void End(nvtxRangeId_t id) {
  if (auto fn = Core<nvtxRangeEnd_impl_fntype>(NVTX_CBID_CORE_RangeEnd)) fn(id);
}
nvtxEventAttributes_t Ascii(const char* message) {
  nvtxEventAttributes_t attr{};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = message;
  return attr;
}
nvtxDomainHandle_t CreateDomain(const char* name) {
  auto fn = Core2<nvtxDomainCreateA_impl_fntype>(NVTX_CBID_CORE2_DomainCreateA);
  return fn != nullptr ? fn(name) : nullptr;
}
int DomainPush(nvtxDomainHandle_t domain, const char* name) {
  auto fn = Core2<nvtxDomainRangePushEx_impl_fntype>(NVTX_CBID_CORE2_DomainRangePushEx);
  const nvtxEventAttributes_t attr = Ascii(name);
  return fn != nullptr ? fn(domain, &attr) : -100;
}
int DomainPop(nvtxDomainHandle_t domain) {
  auto fn = Core2<nvtxDomainRangePop_impl_fntype>(NVTX_CBID_CORE2_DomainRangePop);
  return fn != nullptr ? fn(domain) : -100;
}
void Mark(const char* name) {
  if (auto fn = Core<nvtxMarkA_impl_fntype>(NVTX_CBID_CORE_MarkA)) fn(name);
}

// The range name the gated scenarios open (DECODEPROF_RECORD_ONLY_RANGE in the tests).
constexpr const char* kGate = "decodeprof:record";

// ---- the stand-in CUPTI's controls ----
using EmitFn = int (*)(int, const char*, uint64_t);
using FlushFn = CUptiResult (*)(uint32_t);  // cuptiActivityFlushAll, its exact type
using DetachStatsFn = void (*)(int*, int*);
using CountFn = int (*)();
EmitFn g_emit = nullptr;
FlushFn g_flush = nullptr;
DetachStatsFn g_detach_stats = nullptr;
CountFn g_launches_over_unread = nullptr;
using LaunchGraphFn = int (*)(int, const char*, uint64_t, uint64_t);
using GpuCompleteFn = void (*)(uint64_t);
LaunchGraphFn g_launch_graph = nullptr;
GpuCompleteFn g_gpu_complete = nullptr;

int LaunchesOverUnread() {
  return g_launches_over_unread != nullptr ? g_launches_over_unread() : 0;
}

int Emit(int n, const char* name, uint64_t duration_ns = 2000) {
  return g_emit != nullptr ? g_emit(n, name, duration_ns) : 0;
}

int Fail(const char* what) {
  std::fprintf(stderr, "fake_host: %s\n", what);
  return 2;
}

// ---- scenarios under DECODEPROF_RECORD_ONLY_RANGE=decodeprof:record ----
// Kernels named k_in* are launched while a range of the name is open, k_out* while none is.
int RunGated(const std::string& scenario) {
  if (scenario == "gated") {
    Emit(10, "k_out_before");
    if (Push(kGate) != 0) return Fail("push");
    Emit(20, "k_in");
    Emit(1, "k_in_long", 50'000'000);  // still running on the "GPU" when the range closes
    if (Pop() != 0) return Fail("pop");
    Emit(30, "k_out_between");
    Mark("between");  // marks and other ranges are recorded whatever the gate says
    Push("other");
    Emit(3, "k_out_other");
    Pop();
    Push(kGate);
    Emit(5, "k_in");
    Pop();
    Emit(7, "k_out_after");
    return 0;
  }
  if (scenario == "gated_detach_graph") {
    // DECODEPROF_RECORD_DETACH=1: the first period ends and CUPTI is finalized; then the
    // program instantiates a CUDA graph (attached again for the second period first, so
    // that the recorder sees it), and from then on CUPTI is never finalized again. Exit 3:
    // CUPTI was finalized other than once.
    auto instantiate = reinterpret_cast<void (*)()>(
        dlsym(dlopen(std::getenv("DECODEPROF_CUPTI_LIB"), RTLD_NOW | RTLD_NOLOAD),
              "FakeCuptiInstantiateGraph"));
    if (instantiate == nullptr) return Fail("no FakeCuptiInstantiateGraph");
    int finalizes = 0;
    int stray = 0;
    for (int period = 0; period < 3; ++period) {
      Push(kGate);
      Emit(10, "k_in");
      if (period == 1) instantiate();
      Pop();
      for (int i = 0; i < 300; ++i) {
        Emit(1, "k_out_between");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    if (g_detach_stats != nullptr) g_detach_stats(&finalizes, &stray);
    if (finalizes != 1) return Fail("CUPTI was finalized other than once") + 1;
    if (stray != 0) return Fail("CUPTI was called while detached") + 1;
    return 0;
  }
  if (scenario == "gated_detach") {
    // DECODEPROF_RECORD_DETACH=1: after each period the recorder finalizes CUPTI at an API
    // exit; the host launches outside the periods until it has (at most 5 s), then opens
    // the next period. Exit 3: CUPTI never detached, or was called while detached.
    // With FAKE_CUPTI_NO_SUBSCRIBE=1 it waits 200 ms a period and expects no detach.
    const bool never = std::getenv("FAKE_CUPTI_NO_SUBSCRIBE") != nullptr;
    int finalizes = 0;
    int stray = 0;
    for (int period = 0; period < 3; ++period) {
      Push(kGate);
      Emit(10, "k_in");
      Pop();
      for (int i = 0; i < (never ? 200 : 5000); ++i) {
        Emit(1, "k_out_between");
        if (g_detach_stats != nullptr) g_detach_stats(&finalizes, &stray);
        if (finalizes > period) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (never ? finalizes != 0 : finalizes <= period) {
        return Fail(never ? "CUPTI was finalized" : "CUPTI was not finalized after a period") + 1;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the drain thread's turns
    if (g_detach_stats != nullptr) g_detach_stats(&finalizes, &stray);
    if (stray != 0) return Fail("CUPTI was called while detached") + 1;
    return 0;
  }
  if (scenario == "gated_nested") {
    Push(kGate);
    if (Push(kGate) != 1) return Fail("nested push");
    Emit(4, "k_in_a");
    Pop();
    Emit(4, "k_in_b");  // the outer range is still open
    Pop();
    Emit(4, "k_out_1");
    // A start/end range overlapping a push/pop range of the same name in another domain.
    const nvtxDomainHandle_t domain = CreateDomain("engine");
    const nvtxRangeId_t id = Start(kGate);
    if (DomainPush(domain, kGate) != 0) return Fail("domain push");
    End(id);
    Emit(4, "k_in_c");  // the domain's range is still open
    DomainPop(domain);
    Emit(4, "k_out_2");
    // A start/end range ended on another thread.
    const nvtxRangeId_t id2 = Start(kGate);
    Emit(4, "k_in_d");
    std::thread([id2] { End(id2); }).join();
    Emit(4, "k_out_3");
    if (Pop() != -1) return Fail("unmatched pop accepted");  // must not close anything
    Emit(4, "k_out_4");
    return 0;
  }
  if (scenario == "gated_threads") {
    // Many threads opening and closing ranges of the name at once: whenever a thread has its
    // range open, its kernels are recorded.
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([] {
        for (int i = 0; i < 20; ++i) {
          if (Push(kGate) != 0) std::_Exit(2);
          Emit(5, "k_in_thread");
          if (Pop() != 0) std::_Exit(2);
        }
      });
    }
    for (auto& t : threads) t.join();
    Emit(9, "k_out_after_threads");
    return 0;
  }
  if (scenario == "gated_unclosed") {
    Emit(3, "k_out_before");
    Push(kGate);
    Emit(10, "k_in_unclosed");  // in CUPTI's buffer at exit: the exit flush must get it
    return 0;                   // exit with the range still open
  }
  if (scenario == "gated_early") {  // the range was pushed before CUDA came up (main)
    Emit(6, "k_in_early");
    Pop();
    Emit(6, "k_out_early");
    return 0;
  }
  return Fail("unknown gated scenario");
}

}  // namespace

// Under LeakSanitizer (the asan preset): the recorder lives as long as the process by
// design, and a forked child sees the parent's drain-thread stack as gone, so buffers it
// still pointed to look leaked. Leaks are checked by the unit tests, not in this harness.
// NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): LSan's hook name
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
  // A program may make NVTX calls before its first CUDA call (gated_early).
  const bool nvtx_first = scenario == "gated_early";
  if (scenario != "nvtx_only" && !nvtx_first && init() != 1) {
    return Fail("InitializeInjection failed");
  }
  const int nvtx_ok = init_nvtx(&GetExportTable);
  if (scenario == "not_followed" || scenario == "bad_config") {  // the recorder stays out
    return nvtx_ok == 0 ? 0 : Fail("NVTX attached without a recorder");
  }
  if (nvtx_ok != 1) return Fail("InitializeInjectionNvtx2 failed");
  if (nvtx_first) {
    if (Push(kGate) != 0) return Fail("push before CUDA");
    if (init() != 1) return Fail("InitializeInjection failed");
  }

  if (const char* fake = std::getenv("DECODEPROF_CUPTI_LIB")) {
    void* cupti = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
    if (cupti != nullptr) {
      g_emit = reinterpret_cast<EmitFn>(dlsym(cupti, "FakeCuptiEmitKernels"));
      g_flush = reinterpret_cast<FlushFn>(dlsym(cupti, "cuptiActivityFlushAll"));
      g_detach_stats = reinterpret_cast<DetachStatsFn>(dlsym(cupti, "FakeCuptiDetachStats"));
      g_launches_over_unread =
          reinterpret_cast<CountFn>(dlsym(cupti, "FakeCuptiLaunchesOverUnread"));
      g_launch_graph = reinterpret_cast<LaunchGraphFn>(dlsym(cupti, "FakeCuptiLaunchGraph"));
      g_gpu_complete = reinterpret_cast<GpuCompleteFn>(dlsym(cupti, "FakeGpuComplete"));
    }
  }
  auto emit = [](int n, const char* name) { return Emit(n, name); };

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
  if (scenario == "graph_steps" || scenario == "graph_detach") {
    // An engine without step ranges replaying one CUDA graph a token (5 kernels) without
    // synchronizing: the GPU finishes each launch only after the next one was made. With
    // DECODEPROF_RECORD_SAMPLE_STEPS=4, launches 2, 6 and 10 are the sampled steps.
    // graph_detach: the same inside one range of DECODEPROF_RECORD_ONLY_RANGE, detach on.
    if (g_launch_graph == nullptr || g_gpu_complete == nullptr) return Fail("no graph stand-in");
    const bool ranged = scenario == "graph_detach";
    for (int i = 0; i < 12; ++i) {
      if (ranged && Push(kGate) != 0) return Fail("push");
      g_launch_graph(5, "k_graph", 2000, 0x10);
      if (ranged && Pop() != 0) return Fail("pop");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      g_gpu_complete(static_cast<uint64_t>(i));  // the previous launch is done now
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    g_gpu_complete(1000);
    Emit(1, "k_after");
    return 0;
  }
  if (scenario == "sampled_steps") {
    // DECODEPROF_RECORD_SAMPLE_STEPS=2: eight steps of four kernels, every second one
    // recorded. Each sampled step's records are handed back before the thread that closed it
    // launches again (a CUDA graph replayed then would overwrite timestamps CUPTI has not
    // read yet). Exit 3: a launch came while kernel records were unread.
    for (int step = 0; step < 8; ++step) {
      if (Push("decodeprof:step") != 0) return Fail("push");
      Emit(4, "k_step");
      if (Pop() != 0) return Fail("pop");
      if (LaunchesOverUnread() != 0) return Fail("launched over unread kernel records") + 1;
    }
    Emit(1, "k_after");
    return LaunchesOverUnread() == 0 ? 0 : Fail("launched over unread kernel records") + 1;
  }
  if (scenario.rfind("gated", 0) == 0) return RunGated(scenario);
  return Fail("unknown scenario");
}
