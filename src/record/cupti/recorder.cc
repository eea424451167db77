#include "src/record/cupti/recorder.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <thread>

#include "src/record/cupti/clock.h"
#include "src/record/only_range.h"

#ifndef DECODEPROF_VERSION
#define DECODEPROF_VERSION "unknown"
#endif

namespace decodeprof::record::cupti {
namespace {

namespace nf = native_format;

std::atomic<Recorder*> g_instance{nullptr};

constexpr size_t kMaxPendingNvtxEvents = 1 << 20;
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

uint64_t CUPTIAPI MonotonicTimestamp() { return static_cast<uint64_t>(MonotonicNs()); }

void CUPTIAPI BufferRequestedTrampoline(uint8_t** buffer, size_t* size, size_t* max_records) {
  Recorder* r = g_instance.load(std::memory_order_acquire);
  if (r == nullptr) {
    *buffer = nullptr;
    *size = 0;
    *max_records = 0;
    return;
  }
  r->OnBufferRequested(buffer, size, max_records);
}

void CUPTIAPI BufferCompletedTrampoline(CUcontext context, uint32_t stream, uint8_t* buffer,
                                        size_t /*size*/, size_t valid) {
  if (Recorder* r = g_instance.load(std::memory_order_acquire)) {
    r->OnBufferCompleted(context, stream, buffer, valid);
  }
}

// Async-signal-safe: back to the default action, then raise (delivered when the handler
// that calls this returns, since the signal is blocked while it runs).
void ResetAndRaise(int sig) {
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
  raise(sig);
}

timespec AfterMs(uint64_t ms) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += static_cast<time_t>(ms / 1000);
  ts.tv_nsec += static_cast<long>((ms % 1000) * 1000000);
  if (ts.tv_nsec >= 1000000000) {
    ts.tv_sec += 1;
    ts.tv_nsec -= 1000000000;
  }
  return ts;
}

std::string CommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\0') text.pop_back();
  for (char& c : text) c = c == '\0' ? ' ' : c;
  return text;
}

}  // namespace

Recorder* Recorder::Instance() {
  static Recorder* const instance = Create();
  return instance;
}

Recorder* Recorder::Create() {
  std::string output;
  const pid_t pid = ::getpid();
  auto config =
      ReadRecorderConfig([](const char* name) { return std::getenv(name); }, pid, &output);
  const std::string recorder = "decodeprof-cupti " DECODEPROF_VERSION;
  if (!config.ok()) {
    std::fprintf(stderr, "decodeprof-cupti: not recording: %s\n",
                 config.status().ToString().c_str());
    if (!output.empty()) {  // say why in the file, so that `decodeprof record` can tell
      if (auto w = nf::NativeWriter::Create(output, "monotonic", recorder); w.ok()) {
        (void)(*w)->SetMeta(nf::kMetaRecordingStatus,
                            "bad configuration: " + config.status().ToString());
        (void)(*w)->Close();
      }
    }
    return nullptr;
  }
  if (!config->enabled) return nullptr;
  auto writer = nf::NativeWriter::Create(config->output, "monotonic", recorder);
  if (!writer.ok()) {
    std::fprintf(stderr, "decodeprof-cupti: not recording: %s\n",
                 writer.status().ToString().c_str());
    return nullptr;
  }
  nf::NativeWriter& w = **writer;
  // Rank, world size and run of a multi-process job (torchrun, mpirun, srun): JobMeta.
  const auto job = JobMeta([](const char* name) { return std::getenv(name); });
  const bool meta_ok =
      w.SetMeta("pid", std::to_string(pid)).ok() && w.SetMeta("command", CommandLine()).ok() &&
      w.SetMeta(nf::kMetaRecordingStatus, "no CUDA context (NVTX only)").ok() &&
      w.SetMeta("clock_mapping", "none (no CUPTI records)").ok() &&
      w.SetMeta("buffer_bytes", std::to_string(config->buffer_bytes)).ok() &&
      w.SetMeta("max_buffers", std::to_string(config->max_buffers)).ok() &&
      (config->only_range.empty() || w.SetMeta(kMetaOnlyRange, config->only_range).ok()) &&
      (config->sample_period_ms == 0 ||
       w.SetMeta(kMetaSampleTime, std::to_string(config->sample_on_ms) + "/" +
                                      std::to_string(config->sample_period_ms))
           .ok()) &&
      (config->sample_steps <= 1 ||
       (w.SetMeta(kMetaSampleSteps, std::to_string(config->sample_steps)).ok() &&
        w.SetMeta(kMetaSampleRange, config->step_range).ok())) &&
      std::all_of(job.begin(), job.end(),
                  [&w](const auto& kv) { return w.SetMeta(kv.first, kv.second).ok(); }) &&
      w.Commit().ok();
  if (!meta_ok) {
    std::fprintf(stderr, "decodeprof-cupti: not recording: cannot write %s\n",
                 config->output.c_str());
    return nullptr;
  }
  auto* r = new Recorder(std::move(*config), std::move(*writer));  // never deleted
  r->Start();
  return r;
}

Recorder::Recorder(RecorderConfig config, std::unique_ptr<nf::NativeWriter> writer)
    : config_(std::move(config)),
      pid_(::getpid()),
      writer_(std::move(writer)),
      pool_(config_.buffer_bytes, config_.max_buffers),
      gate_(config_.gate_range(), static_cast<int64_t>(config_.sample_steps)),
      nvtx_(kMaxPendingNvtxEvents, &gate_) {
  if (config_.sample_period_ms > 0) gate_.MakeTimed();
  gate_.SetStretch(static_cast<int64_t>(config_.sample_stretch));
  sem_init(&wake_, 0, 0);
  sem_init(&done_, 0, 0);
}

void Recorder::Start() {
  drain_ = std::thread([this] { DrainLoop(); });
  g_instance.store(this, std::memory_order_release);
  std::atexit(&Recorder::AtExit);
  pthread_atfork(nullptr, nullptr, &Recorder::AtForkChild);
  InstallSignalHandlers();
}

void Recorder::InstallSignalHandlers() {
  for (int sig : kSignals) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0) continue;
    // Only where the program keeps the default action: its own handlers stay its own.
    if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = &Recorder::OnSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, nullptr);
  }
}

void Recorder::Warn(const std::string& message) const {
  if (!config_.quiet) std::fprintf(stderr, "decodeprof-cupti: %s\n", message.c_str());
}

void Recorder::SetMeta(std::string key, std::string value) {
  {
    std::lock_guard<std::mutex> lock(meta_mu_);
    meta_.emplace_back(std::move(key), std::move(value));
  }
  sem_post(&wake_);
}

void Recorder::AttachCupti() {
  if (!active() || cupti_attached_.load()) return;
  // A CUPTI the program already loaded wins (one CUPTI per process); else the one the
  // launcher found (only it: it is what `decodeprof record` checked), else the sonames.
  std::vector<std::string> sonames = {"libcupti.so.13", "libcupti.so"};
  std::vector<std::string> loaded = sonames;
  if (!config_.cupti_lib.empty()) loaded.push_back(config_.cupti_lib);
  const std::string load_error = LoadCupti(
      loaded, config_.cupti_lib.empty() ? sonames : std::vector{config_.cupti_lib}, cupti_);
  if (!load_error.empty()) {
    Warn(load_error + "; recording NVTX only");
    SetMeta(std::string(nf::kMetaRecordingStatus), load_error);
    return;
  }
  SetMeta("cupti_library", cupti_.path);
  uint32_t version = 0;
  if (cupti_.GetVersion(&version) == CUPTI_SUCCESS) {
    SetMeta("cupti_version", std::to_string(version));
  }
  // Record layouts (CUpti_ActivityKernel10, ...) are those of the headers we were built with.
  if (version / 10000 != CUPTI_API_VERSION / 10000) {
    const std::string why = "CUPTI API version " + std::to_string(version) + " at " + cupti_.path +
                            " does not match the version this recorder was built "
                            "for (" +
                            std::to_string(CUPTI_API_VERSION) + ")";
    Warn(why + "; recording NVTX only");
    SetMeta(std::string(nf::kMetaRecordingStatus), why);
    return;
  }
  auto refuse = [&](const char* call, CUptiResult rc) {
    const std::string why =
        std::string("CUPTI refused ") + call + ": " + CuptiErrorText(cupti_, rc);
    Warn(why + "; recording NVTX only");
    SetMeta(std::string(nf::kMetaRecordingStatus), why);
  };
  (void)cupti_.SetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  // The timestamp callback must be in place before any kind is enabled (cupti_activity.h).
  if (config_.clock == RecorderConfig::Clock::kCallback &&
      cupti_.ActivityRegisterTimestampCallback(&MonotonicTimestamp) == CUPTI_SUCCESS) {
    clock_callback_ = true;
    SetMeta("clock_mapping", "cupti timestamp callback: CLOCK_MONOTONIC");
  } else {
    clock_offset_ns_ = MeasureOffset([this] {
      uint64_t t = 0;
      cupti_.GetTimestamp(&t);
      return static_cast<int64_t>(t);
    });
    SetMeta("clock_mapping",
            "offset from cuptiGetTimestamp: " + std::to_string(clock_offset_ns_) + " ns");
  }
  CUptiResult rc =
      cupti_.ActivityRegisterCallbacks(&BufferRequestedTrampoline, &BufferCompletedTrampoline);
  if (rc != CUPTI_SUCCESS) return refuse("cuptiActivityRegisterCallbacks", rc);
  // DECODEPROF_RECORD_ENABLE_AT_ATTACH=0 (gated or sampled only): the switched kinds are
  // first enabled by the first period (a refusal is then a switch failure), for measuring
  // what a CUPTI whose kinds were never on costs the program.
  const bool enable_now = config_.enable_at_attach || !gate_.gating();
  auto enable = [&](CUpti_ActivityKind kind) {
    return enable_now ? cupti_.ActivityEnable(kind) : CUPTI_SUCCESS;
  };
  // Never CUPTI_ACTIVITY_KIND_KERNEL: it serializes kernels (issue 4).
  rc = enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (rc != CUPTI_SUCCESS) return refuse("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", rc);
  switchable_.push_back({CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"});
  std::string warnings;
  // An optional record CUPTI refused is noted in `warnings`; returns whether it is on.
  auto optional = [&](const char* name, CUptiResult result) {
    if (result == CUPTI_SUCCESS) return true;
    warnings +=
        std::string(warnings.empty() ? "" : "; ") + name + ": " + CuptiErrorText(cupti_, result);
    return false;
  };
  if (config_.memory_ops) {
    for (const Switchable kind : {Switchable{CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
                                  Switchable{CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"}}) {
      if (optional(kind.name, enable(kind.kind))) switchable_.push_back(kind);
    }
  }
  (void)cupti_.ActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE);  // device names; optional, never gated
  const bool switch_apis = gate_.gating() && config_.api_gate == RecorderConfig::ApiGate::kSwitch;
  if (config_.api_calls && config_.api_gate != RecorderConfig::ApiGate::kOff && switch_apis) {
    // The runtime and driver API kinds whole, switched by the gate like the kernels (CUPTI
    // 13.0 does not turn per-API records back on, below); the translator keeps the launches.
    for (const Switchable kind : {Switchable{CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME"},
                                  Switchable{CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER"}}) {
      if (optional(kind.name, enable(kind.kind))) switchable_.push_back(kind);
    }
  } else if (config_.api_calls &&
             (config_.api_gate != RecorderConfig::ApiGate::kOff || !gate_.gating())) {
    // Never switched by the gate: on CUPTI 13.0 a launch API record switched off with
    // cuptiActivityEnable{Runtime,Driver}Api(cbid, 0) stays off when switched on again (seen
    // on the H200: 0 API records in gated traces). Under --only-range they stay on, and the
    // translator drops those outside the gate's periods by their host start time.
    EnableLaunchApiRecords(&warnings);
    api_cbids_on_ = true;
  }
  launch_apis_only_ = switch_apis;
  if (config_.detach && !cupti_.can_detach()) {
    warnings += std::string(warnings.empty() ? "" : "; ") +
                "detaching: this CUPTI lacks cuptiSubscribe, cuptiEnableDomain or "
                "cuptiFinalize (CUPTI stays attached between periods)";
    detach_broken_.store(true);
  }
  if (config_.detach && !detach_broken_.load()) {
    SetMeta(std::string(kMetaCuptiDetach),
            "between periods (cuptiFinalize), until the program makes or launches a CUDA graph");
  }
  if (gate_.gating()) {
    // Graph launches: the periods' ends wait for their GPU work, and with --sample-steps
    // they are the steps until a step range opens (recorder.h).
    std::string period_end = config_.period_end == RecorderConfig::PeriodEnd::kWait
                                 ? "wait for the GPU work of the graphs launched in the period"
                                 : "switch off when the range closes";
    if (config_.period_end == RecorderConfig::PeriodEnd::kWait) {
      if (const std::string why = LoadDriverApi(config_.driver_lib.c_str(), driver_);
          !why.empty()) {
        warnings += std::string(warnings.empty() ? "" : "; ") +
                    "waiting for a period's GPU work: " + why +
                    " (periods end when their range closes)";
        period_end = "switch off when the range closes (" + why + ")";
      }
    }
    if (config_.graph_watch) {
      auto lock = CuptiLock();
      WatchGraphLaunches();
    }
    if (!config_.graph_watch) {
      period_end = "switch off when the range closes (DECODEPROF_RECORD_GRAPH_WATCH=0)";
    } else if (!graph_watch_.load()) {
      warnings += std::string(warnings.empty() ? "" : "; ") +
                  "watching CUDA graph launches: no callback subscription (another subscriber "
                  "in the program, or an old CUPTI): graph launches are not steps, and a "
                  "period's graph work is not waited for";
      period_end = "switch off when the range closes (no callback subscription)";
    } else if (config_.sample_steps > 1 && config_.graph_steps) {
      gate_.EnableGraphSteps();
    }
    SetMeta(std::string(kMetaPeriodEnd), period_end);
  }
  if (!warnings.empty()) {
    Warn("some records are off: " + warnings);
    SetMeta("warnings", warnings);
  }
  SetMeta(std::string(nf::kMetaRecordingStatus),
          config_.discard ? "ok (DECODEPROF_RECORD_DISCARD: activity records not written)" : "ok");
  cupti_attached_.store(true, std::memory_order_release);
  // Everything is on now; the gate turns it off unless a range of the name is open already.
  gate_.Attach([this](bool on) { return SwitchActivity(on); }, /*on_now=*/enable_now);
  if (gate_.timed()) {
    // Timed sampling: ON ms of every PERIOD ms, the first period after PERIOD - ON ms.
    std::thread([this] {
      const auto on = std::chrono::milliseconds(config_.sample_on_ms);
      const auto off = std::chrono::milliseconds(config_.sample_period_ms - config_.sample_on_ms);
      while (active() && !stop_.load()) {
        std::this_thread::sleep_for(off);
        if (!active() || stop_.load()) break;
        gate_.SetTimed(true);
        std::this_thread::sleep_for(on);
        gate_.SetTimed(false);
      }
    }).detach();
  }
}

std::unique_lock<std::mutex> Recorder::CuptiLock() {
  if (!config_.detach) return std::unique_lock<std::mutex>(cupti_mu_, std::defer_lock);
  return std::unique_lock<std::mutex>(cupti_mu_);
}

bool Recorder::CuptiLive() const {
  return cupti_attached_.load(std::memory_order_acquire) &&
         cupti_state_.load(std::memory_order_acquire) != CuptiState::kDetached;
}

bool Recorder::SwitchActivity(bool on) {
  const int64_t begin = MonotonicNs();
  struct Timed {  // adds the switch's duration however it returns
    Timings& into;
    int64_t begin;
    ~Timed() { into.Add(MonotonicNs() - begin); }
  } timed{on ? switches_on_ : switches_off_, begin};
  if (on) {
    // A period that begins while the last one's switch off waits: recording is on already,
    // and the waiter's FinishDeferred finds the gate's deferral over.
    deferring_.store(false, std::memory_order_release);
  } else if (config_.period_end == RecorderConfig::PeriodEnd::kWait && driver_.ok()) {
    std::vector<PeriodEvent> events;
    {
      std::lock_guard<std::mutex> events_lock(events_mu_);
      events.swap(period_events_);
    }
    if (!events.empty()) {
      // Graphs launched in the period may still run: switch off once they are done.
      {
        std::lock_guard<std::mutex> waiter_lock(waiter_mu_);
        waiting_.insert(waiting_.end(), events.begin(), events.end());
        deferred_since_ = begin;
        if (!waiter_started_) {
          waiter_started_ = true;
          std::thread([this] { WaiterLoop(); }).detach();
        }
      }
      deferring_.store(true, std::memory_order_release);
      gate_.DeferRecordsEnd();
      waiter_cv_.notify_one();
      return true;
    }
  }
  std::string refused;
  auto lock = CuptiLock();
  if (on && config_.detach) {
    switch (cupti_state_.load(std::memory_order_acquire)) {
      case CuptiState::kDetached:
        if (!ReattachLocked(&refused)) break;
        [[fallthrough]];
      case CuptiState::kFinalizePending:  // cancelled: the callback finds kAttached
        // and the program's API calls stop going through it (the callback never waits
        // for cupti_mu_, so switching its domains off here cannot wait on it either).
        if (subscriber_ != nullptr) (void)EnableApiDomains(0);
        [[fallthrough]];
      case CuptiState::kDetachWanted:
        cupti_state_.store(CuptiState::kAttached, std::memory_order_release);
        break;
      case CuptiState::kAttached:
        break;
    }
  }
  for (const Switchable& s : switchable_) {
    const CUptiResult rc = on ? cupti_.ActivityEnable(s.kind) : cupti_.ActivityDisable(s.kind);
    if (rc != CUPTI_SUCCESS) {
      refused +=
          std::string(refused.empty() ? "" : "; ") + s.name + ": " + CuptiErrorText(cupti_, rc);
    }
  }
  if (!on) {
    // Kernels launched in the period and still running are recorded when they end (CUPTI
    // decides at launch); a plain flush hands back the buffers whose records are complete.
    // In a sampled recording it runs here, on the thread that closed the step's range, before
    // that thread launches again: a CUDA graph replayed once its kernels are no longer
    // recorded overwrites the timestamps of the recorded replay that CUPTI has not read yet.
    // Without the flush its kernels came back with durations of ~12 ms instead of ~30 us;
    // with it on the recorder's thread, a few still did (~2 ms: the next step's replay won
    // the race; H200, CUPTI 13.0, docs/results/h200-sampling-2026-12-01.md and
    // h200-sampling-flush-2026-12-01.md). Under --only-range the recorder's thread flushes:
    // its periods can be many and short (a range per request on many threads), and each
    // flush hands back a buffer that only the recorder's thread gives back to the pool.
    if (gate_.sampling() && config_.flush_ms > 0) {
      const int64_t flush_begin = MonotonicNs();
      cupti_.ActivityFlushAll(0);
      period_flushes_.Add(MonotonicNs() - flush_begin);
    } else {
      flush_requested_.store(true, std::memory_order_release);
    }
    if (config_.detach && !detach_broken_.load(std::memory_order_acquire) &&
        !graphs_seen_.load(std::memory_order_acquire)) {
      cupti_state_.store(CuptiState::kDetachWanted, std::memory_order_release);
    }
    sem_post(&wake_);  // the recorder's thread writes what the flush handed back
  }
  if (refused.empty()) return true;
  const std::string why =
      std::string("CUPTI refused to switch recording ") + (on ? "on" : "off") + ": " + refused;
  if (!gate_warned_.exchange(true)) {
    Warn(why + " (--only-range; counted in only_range_switch_failures)");
  }
  SetMeta(std::string(kMetaOnlyRangeWarnings), why);
  return false;
}

// Enables again what AttachCupti enabled, on a CUPTI that cuptiFinalize took out (the first
// of these calls attaches it again). The kinds themselves are enabled by the caller.
bool Recorder::ReattachLocked(std::string* refused) {
  const int64_t begin = MonotonicNs();
  (void)cupti_.SetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  if (clock_callback_) (void)cupti_.ActivityRegisterTimestampCallback(&MonotonicTimestamp);
  const CUptiResult rc =
      cupti_.ActivityRegisterCallbacks(&BufferRequestedTrampoline, &BufferCompletedTrampoline);
  if (rc != CUPTI_SUCCESS) {
    *refused = std::string("attaching CUPTI again: cuptiActivityRegisterCallbacks: ") +
               CuptiErrorText(cupti_, rc);
    return false;
  }
  std::string ignored;  // AttachCupti said which ones CUPTI refuses
  if (api_cbids_on_) EnableLaunchApiRecords(&ignored);
  if (graph_watch_.load()) WatchGraphLaunches();  // the subscription went with cuptiFinalize
  attaches_.Add(MonotonicNs() - begin);
  return true;
}

namespace {

// The graph launch calls: (domain, callback id, launches on the per-thread default stream).
struct GraphLaunchCall {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  bool per_thread;
};
constexpr GraphLaunchCall kGraphLaunchCalls[] = {
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, false},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz, true},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, false},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000, true},
};

// The calls that make a CUDA graph (capture, instantiation, update): once one was made, the
// recorder never detaches (a graph CUPTI saw made may be instrumented: recorder.h). Their
// durations are measured too (meta graph_call_time).
struct GraphMakingCall {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
};
constexpr GraphMakingCall kGraphMakingCalls[] = {
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v10000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithFlags_v11040},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithParams_v12000},
    {CUPTI_CB_DOMAIN_RUNTIME_API,
     CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithParams_ptsz_v12000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030},
    {CUPTI_CB_DOMAIN_RUNTIME_API,
     CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecUpdate_v10020},
};

bool IsGraphMaking(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  for (const GraphMakingCall& call : kGraphMakingCalls) {
    if (call.domain == domain && call.cbid == cbid) return true;
  }
  return false;
}

const GraphLaunchCall* FindGraphLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  for (const GraphLaunchCall& call : kGraphLaunchCalls) {
    if (call.domain == domain && call.cbid == cbid) return &call;
  }
  return nullptr;
}

// The stream a graph launch call names (its parameters, cupti's generated_*_meta.h).
CUstream GraphLaunchStream(const GraphLaunchCall& call, const void* params) {
  if (params == nullptr) return nullptr;
  if (call.domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    return call.per_thread ? static_cast<const cuGraphLaunch_ptsz_params*>(params)->hStream
                           : static_cast<const cuGraphLaunch_params*>(params)->hStream;
  }
  return call.per_thread ? static_cast<const cudaGraphLaunch_ptsz_v10000_params*>(params)->stream
                         : static_cast<const cudaGraphLaunch_v10000_params*>(params)->stream;
}

}  // namespace

void Recorder::WatchGraphLaunches() {
  if (cupti_.Subscribe == nullptr || cupti_.EnableCallback == nullptr) return;
  CUptiResult rc = subscriber_ != nullptr
                       ? CUPTI_SUCCESS
                       : cupti_.Subscribe(&subscriber_, &Recorder::OnApiCallback, this);
  for (const GraphLaunchCall& call : kGraphLaunchCalls) {
    if (rc == CUPTI_SUCCESS) rc = cupti_.EnableCallback(1, subscriber_, call.domain, call.cbid);
  }
  for (const GraphMakingCall& call : kGraphMakingCalls) {
    // An older CUPTI may lack some of them: only the launches are required.
    if (rc == CUPTI_SUCCESS) (void)cupti_.EnableCallback(1, subscriber_, call.domain, call.cbid);
  }
  graph_watch_.store(rc == CUPTI_SUCCESS, std::memory_order_release);
}

void Recorder::OnGraphLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                             const CUpti_CallbackData& data) {
  const GraphLaunchCall* call = FindGraphLaunch(domain, cbid);
  // How long the program's graph calls take with recording on and off (the outermost of a
  // runtime call and the driver call it makes).
  // "On" as it is when the call returns (a sampled step's own launch opens the gate after
  // this entry and closes it after this exit).
  thread_local int timed_depth = 0;
  thread_local int64_t timed_begin = 0;
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (timed_depth++ == 0) timed_begin = MonotonicNs();
  } else if (data.callbackSite == CUPTI_API_EXIT && timed_depth > 0 && --timed_depth == 0) {
    const bool on = gate_.period_open() || deferring_.load(std::memory_order_acquire);
    graph_calls_[call != nullptr ? 0 : 1][on ? 1 : 0].Add(MonotonicNs() - timed_begin);
  }
  if (call == nullptr) {
    if (data.callbackSite == CUPTI_API_ENTER && IsGraphMaking(domain, cbid)) {
      graphs_seen_.store(true, std::memory_order_release);
    }
    return;
  }
  thread_local int depth = 0;            // a runtime launch calls the driver's
  thread_local bool step = false;        // this launch opened the gate as a step
  thread_local uint64_t step_range = 0;  // its decodeprof:graph-step range
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (depth++ == 0) {
      graphs_seen_.store(true, std::memory_order_release);
      if (gate_.OpenGraph()) {
        step = true;
        step_range = nvtx_.Start(nvtx_.Domain(std::string(kSampledRangeDomain)),
                                 std::string(kGraphStepRangeName), MonotonicNs(), ThreadId());
      }
    }
    // Launched while a deferred switch off keeps recording on, outside every period.
    if (deferring_.load(std::memory_order_acquire) && !gate_.period_open()) {
      gate_.DropLaunch(data.correlationId);
    }
    return;
  }
  if (data.callbackSite != CUPTI_API_EXIT || depth == 0 || --depth > 0) return;
  if (gate_.period_open() && config_.period_end == RecorderConfig::PeriodEnd::kWait &&
      driver_.ok()) {
    RecordPeriodEvent(GraphLaunchStream(*call, data.functionParams), call->per_thread);
  }
  if (step) {
    step = false;
    nvtx_.End(step_range, MonotonicNs());
    gate_.CloseGraph();
  }
}

void Recorder::RecordPeriodEvent(CUstream stream, bool per_thread) {
  // Relaxed for our calls only: a capture in global mode on another thread must not be
  // invalidated by them (cuThreadExchangeStreamCaptureMode).
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  if (driver_.ThreadExchangeStreamCaptureMode(&mode) != CUDA_SUCCESS) return;
  auto is_capturing = per_thread ? driver_.StreamIsCapturingPtsz : driver_.StreamIsCapturing;
  auto record = per_thread ? driver_.EventRecordPtsz : driver_.EventRecord;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUcontext context = nullptr;
  if (is_capturing(stream, &status) == CUDA_SUCCESS && status == CU_STREAM_CAPTURE_STATUS_NONE &&
      driver_.CtxGetCurrent(&context) == CUDA_SUCCESS && context != nullptr) {
    PeriodEvent e{nullptr, context};
    {
      std::lock_guard<std::mutex> lock(events_mu_);
      for (size_t i = 0; i < free_events_.size(); ++i) {
        if (free_events_[i].context == context) {
          e = free_events_[i];
          free_events_.erase(free_events_.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
      }
    }
    if (e.event == nullptr &&
        driver_.EventCreate(&e.event, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
      e.event = nullptr;
    }
    if (e.event != nullptr) {
      const bool recorded = record(e.event, stream) == CUDA_SUCCESS;
      std::lock_guard<std::mutex> lock(events_mu_);
      (recorded ? period_events_ : free_events_).push_back(e);
    }
  }
  (void)driver_.ThreadExchangeStreamCaptureMode(&mode);  // the program's mode again
}

void Recorder::WaiterLoop() {
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;  // never invalidate a capture
  (void)driver_.ThreadExchangeStreamCaptureMode(&mode);
  CUcontext current = nullptr;
  std::unique_lock<std::mutex> lock(waiter_mu_);
  for (;;) {
    waiter_cv_.wait(lock, [this] { return stop_.load() || !active() || !waiting_.empty(); });
    if (stop_.load() || !active()) return;
    const PeriodEvent front = waiting_.front();
    if (front.context != current && driver_.CtxSetCurrent(front.context) == CUDA_SUCCESS) {
      current = front.context;
    }
    // The query runs with waiter_mu_ held, so that the exit path, which takes it after
    // stop_, knows that none is under way while CUDA shuts down.
    if (driver_.EventQuery(front.event) == CUDA_ERROR_NOT_READY) {
      waiter_cv_.wait_for(lock, std::chrono::microseconds(50));
      continue;
    }
    waiting_.erase(waiting_.begin());
    {
      std::lock_guard<std::mutex> events_lock(events_mu_);
      free_events_.push_back(front);
    }
    if (waiting_.empty()) {
      lock.unlock();
      gate_.FinishDeferred([this] { return FinishDeferredOff(); });
      lock.lock();
    }
  }
}

bool Recorder::FinishDeferredOff() {
  int64_t since = 0;
  {
    std::lock_guard<std::mutex> lock(waiter_mu_);
    if (!waiting_.empty()) return false;  // a later period's graphs: wait for them too
    since = deferred_since_;
  }
  if (!deferring_.load(std::memory_order_acquire)) return false;
  auto lock = CuptiLock();
  const int64_t flush_begin = MonotonicNs();
  if (config_.flush_ms > 0) cupti_.ActivityFlushAll(0);  // the period's records, still intact
  period_flushes_.Add(MonotonicNs() - flush_begin);
  for (const Switchable& s : switchable_) (void)cupti_.ActivityDisable(s.kind);
  deferring_.store(false, std::memory_order_release);
  deferred_offs_.Add(MonotonicNs() - since);
  sem_post(&wake_);
  return true;
}

void Recorder::EnableLaunchApiRecords(std::string* refused) {
  for (size_t i = 0; i < kLaunchApiCount; ++i) {
    const LaunchApi& api = kLaunchApis[i];
    const CUptiResult rc = api.kind == CUPTI_ACTIVITY_KIND_RUNTIME
                               ? cupti_.ActivityEnableRuntimeApi(api.cbid, 1)
                               : cupti_.ActivityEnableDriverApi(api.cbid, 1);
    if (rc != CUPTI_SUCCESS) {
      *refused +=
          std::string(refused->empty() ? "" : "; ") + api.name + ": " + CuptiErrorText(cupti_, rc);
    }
  }
}

CUptiResult Recorder::EnableApiDomains(uint32_t on) {
  CUptiResult rc = cupti_.EnableDomain(on, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API);
  if (rc == CUPTI_SUCCESS) rc = cupti_.EnableDomain(on, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API);
  return rc;
}

void Recorder::Timings::Add(int64_t ns) {
  count.fetch_add(1, std::memory_order_relaxed);
  total_ns.fetch_add(ns, std::memory_order_relaxed);
  int64_t max = max_ns.load(std::memory_order_relaxed);
  while (ns > max && !max_ns.compare_exchange_weak(max, ns)) {
  }
}

std::string Recorder::Timings::Text() const {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f ms mean, %.3f ms max",
                static_cast<double>(total_ns.load()) / 1e6 / static_cast<double>(count.load()),
                static_cast<double>(max_ns.load()) / 1e6);
  return text;
}

// A period ended (kDetachWanted): hand back and write every record, then have the next API
// exit finalize CUPTI (OnApiCallback). Drain thread only.
void Recorder::DetachFromDrainThread() {
  {
    auto lock = CuptiLock();
    if (cupti_state_.load(std::memory_order_acquire) != CuptiState::kDetachWanted) return;
    cupti_.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  DrainOnce();  // the period's records, with CUPTI still attached
  auto lock = CuptiLock();
  if (cupti_state_.load(std::memory_order_acquire) != CuptiState::kDetachWanted) return;
  cupti_.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // none left, normally
  {
    // Subscribed once per attachment (a detach cancelled by the next period keeps it, with
    // its domains switched off).
    CUptiResult rc = subscriber_ != nullptr
                         ? CUPTI_SUCCESS
                         : cupti_.Subscribe(&subscriber_, &Recorder::OnApiCallback, this);
    if (rc == CUPTI_SUCCESS) rc = EnableApiDomains(1);
    if (rc != CUPTI_SUCCESS) {
      // Another subscriber (one per process), or an old CUPTI: stay attached from now on.
      const std::string why =
          "detaching CUPTI between periods: cuptiSubscribe/cuptiEnableDomain: " +
          CuptiErrorText(cupti_, rc) + " (CUPTI stays attached)";
      Warn(why);
      SetMeta(std::string(kMetaCuptiDetach), why);
      detach_broken_.store(true, std::memory_order_release);
      cupti_state_.store(CuptiState::kAttached, std::memory_order_release);
      return;
    }
  }
  cupti_state_.store(CuptiState::kFinalizePending, std::memory_order_release);
}

void CUPTIAPI Recorder::OnApiCallback(void* user, CUpti_CallbackDomain domain,
                                      CUpti_CallbackId cbid, const void* data) {
  auto* r = static_cast<Recorder*>(user);
  if (r->in_forked_child_.load(std::memory_order_acquire)) return;  // the parent's recorder
  if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) &&
      data != nullptr && r->active()) {
    r->OnGraphLaunch(domain, cbid, *static_cast<const CUpti_CallbackData*>(data));
  }
  if (r->cupti_state_.load(std::memory_order_acquire) != CuptiState::kFinalizePending) return;
  if (r->stop_.load(std::memory_order_acquire)) return;  // exiting: CUPTI stays to the end
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (static_cast<const CUpti_CallbackData*>(data)->callbackSite != CUPTI_API_EXIT) return;
  std::unique_lock<std::mutex> lock(r->cupti_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // a switch or a flush is under way: the next exit
  if (r->cupti_state_.load(std::memory_order_acquire) != CuptiState::kFinalizePending) return;
  if (r->graphs_seen_.load(std::memory_order_acquire)) {
    // Finalizing under a graph CUPTI instrumented killed programs: stay attached for good.
    r->detach_broken_.store(true, std::memory_order_release);
    (void)r->EnableApiDomains(0);
    r->WatchGraphLaunches();
    r->cupti_state_.store(CuptiState::kAttached, std::memory_order_release);
    return;
  }
  // cuptiFinalize flushes and hands back what is left (OnBufferCompleted: the ready queue).
  const int64_t begin = MonotonicNs();
  if (r->cupti_.Finalize() != CUPTI_SUCCESS) return;  // still attached: try the next exit
  r->detaches_.Add(MonotonicNs() - begin);
  r->subscriber_ = nullptr;  // gone with CUPTI
  // Buffers completed from here on come from the next attachment, whose correlation ids
  // may start over (RecordTranslator::SetEpoch); cuptiFinalize handed back the last ones.
  r->cupti_epoch_.fetch_add(1, std::memory_order_acq_rel);
  r->cupti_state_.store(CuptiState::kDetached, std::memory_order_release);
}

void Recorder::WriteDetachMeta() {
  if (!config_.detach || detach_broken_.load()) return;
  (void)writer_->SetMeta(kMetaCuptiDetaches, std::to_string(detaches_.count.load()));
  (void)writer_->SetMeta(kMetaCuptiAttaches, std::to_string(attaches_.count.load()));
  if (attaches_.count.load() > 0) (void)writer_->SetMeta(kMetaCuptiAttachTime, attaches_.Text());
  if (detaches_.count.load() > 0) (void)writer_->SetMeta(kMetaCuptiDetachTime, detaches_.Text());
}

void Recorder::WriteGateTimingMeta() {
  for (const auto& [key, timings] :
       {std::pair<std::string_view, const Timings*>{kMetaGateSwitchOnTime, &switches_on_},
        {kMetaGateSwitchOffTime, &switches_off_},
        {kMetaGateFlushTime, &period_flushes_},
        {kMetaDeferredOffTime, &deferred_offs_}}) {
    if (timings->count.load() > 0) {
      (void)writer_->SetMeta(key,
                             std::to_string(timings->count.load()) + " times, " + timings->Text());
    }
  }
  std::string calls;
  const char* const kinds[2] = {"launch", "capture/instantiate/update"};
  for (int kind = 0; kind < 2; ++kind) {
    for (int on = 1; on >= 0; --on) {
      const Timings& t = graph_calls_[kind][on];
      if (t.count.load() == 0) continue;
      calls += std::string(calls.empty() ? "" : "; ") + kinds[kind] +
               (on ? " recording on: " : " recording off: ") + std::to_string(t.count.load()) +
               " times, " + t.Text();
    }
  }
  if (!calls.empty()) (void)writer_->SetMeta(kMetaGraphCallTime, calls);
  if (const std::string stretch = gate_.StretchText(); !stretch.empty()) {
    (void)writer_->SetMeta(kMetaSampleStretch, stretch);
  }
}

void Recorder::OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many as fit
  *buffer = active() ? pool_.Acquire() : nullptr;
  *size = *buffer != nullptr ? pool_.buffer_bytes() : 0;
}

void Recorder::OnBufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer,
                                 size_t valid) {
  if (in_forked_child_.load(std::memory_order_acquire)) return;  // the parent's buffer
  size_t dropped = 0;
  if (cupti_.ActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) {
    cupti_dropped_.fetch_add(static_cast<int64_t>(dropped));
  }
  if (buffer == nullptr) return;
  if (closed_.load(std::memory_order_acquire)) {
    pool_.Release(buffer);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(ready_mu_);
    ready_.push_back({buffer, valid, cupti_epoch_.load(std::memory_order_acquire)});
  }
  sem_post(&wake_);
}

void Recorder::DrainOnce() {
  if (translator_ == nullptr && cupti_attached_.load(std::memory_order_acquire)) {
    translator_ = std::make_unique<RecordTranslator>(*writer_, cupti_.ActivityGetNextRecord,
                                                     clock_offset_ns_, &gate_);
    translator_->set_launch_apis_only(launch_apis_only_);
  }
  std::vector<ReadyBuffer> buffers;
  {
    std::lock_guard<std::mutex> lock(ready_mu_);
    buffers.swap(ready_);
  }
  for (const ReadyBuffer& b : buffers) {
    if (translator_ != nullptr && !config_.discard) {
      translator_->SetEpoch(b.epoch);
      translator_->Translate(b.data, b.valid);
    }
    pool_.Release(b.data);
  }
  std::vector<NvtxRangeEvent> ranges;
  std::vector<NvtxMarkEvent> marks;
  nvtx_.Take(&ranges, &marks);
  for (const NvtxRangeEvent& e : ranges) {
    auto name = writer_->Intern(e.name);
    auto domain = writer_->Intern(*e.domain);
    if (!name.ok() || !domain.ok() ||
        !writer_
             ->AddRange(
                 nf::RangeRow{e.start_ns, e.end_ns, *name, *domain, e.thread, e.depth, e.kind})
             .ok()) {
      ++write_failures_;
    }
  }
  for (const NvtxMarkEvent& e : marks) {
    auto name = writer_->Intern(e.name);
    auto domain = writer_->Intern(*e.domain);
    if (!name.ok() || !domain.ok() ||
        !writer_->AddMark(nf::MarkRow{e.time_ns, *name, *domain, e.thread}).ok()) {
      ++write_failures_;
    }
  }
  std::vector<std::pair<std::string, std::string>> meta;
  {
    std::lock_guard<std::mutex> lock(meta_mu_);
    meta.swap(meta_);
  }
  for (const auto& [key, value] : meta) {
    if (!writer_->SetMeta(key, value).ok()) ++write_failures_;
  }
}

void Recorder::WriteCounters() {
  if (auto lock = CuptiLock(); CuptiLive()) {
    size_t dropped = 0;  // the global queue (records of no particular context)
    if (cupti_.ActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
      cupti_dropped_.fetch_add(static_cast<int64_t>(dropped));
    }
  }
  const TranslateCounts t = translator_ != nullptr ? translator_->counts() : TranslateCounts{};
  const NvtxCounts n = nvtx_.counts();
  const std::pair<std::string_view, int64_t> counters[] = {
      {nf::kCounterCuptiDropped, cupti_dropped_.load()},
      {nf::kCounterBufferPoolExhausted, pool_.refusals()},
      {nf::kCounterTranslationFailures, t.translation_failures},
      {nf::kCounterIncompleteKernels, t.incomplete},
      {nf::kCounterWriteFailures, t.write_failures + write_failures_},
      {nf::kCounterUnknownRecords, t.unknown},
      {nf::kCounterNvtxQueueFull, n.dropped},
      {nf::kCounterNvtxUnmatchedPops, n.unmatched_pops},
      {nf::kCounterNvtxUnendedRanges, n.unended},
  };
  for (const auto& [name, value] : counters) (void)writer_->SetCounter(name, value);
  // The devices this process ran kernels on (with the counters: written at every commit).
  if (translator_ != nullptr) {
    if (const std::string devices = translator_->KernelDevices(); !devices.empty()) {
      (void)writer_->SetMeta("devices_used", devices);
    }
  }
  if (gate_.gating()) {
    const RangeGate::Counts g = gate_.counts();
    (void)writer_->SetCounter(kCounterOnlyRangePeriods, g.periods);
    (void)writer_->SetCounter(kCounterOnlyRangeSwitchFailures, g.switch_failures);
    (void)writer_->SetCounter(kCounterOnlyRangeApiCallsOutside, t.api_calls_outside_range);
    if (t.dropped_after_period > 0) {
      (void)writer_->SetCounter(kCounterDroppedAfterPeriod, t.dropped_after_period);
    }
    if (gate_.every() > 1) (void)writer_->SetCounter(kCounterSampleSteps, g.openings);
    if (gate_.timed()) (void)writer_->SetCounter(kCounterSamplePeriods, g.openings);
  }
}

void Recorder::DrainLoop() {
  int64_t next_commit = MonotonicNs() + static_cast<int64_t>(config_.commit_ms) * 1000000;
  int64_t next_flush = MonotonicNs() + static_cast<int64_t>(config_.flush_ms) * 1000000;
  for (;;) {
    const timespec deadline = AfterMs(config_.commit_ms);
    while (sem_clockwait(&wake_, CLOCK_MONOTONIC, &deadline) != 0 && errno == EINTR) {
    }
    if (const int sig = pending_signal_.load(); sig != 0 && !stop_.exchange(true)) {
      // Watchdog: if flushing hangs, the signal still ends the process.
      std::thread([sig] {
        std::this_thread::sleep_for(std::chrono::seconds(kSignalWaitSeconds));
        ResetAndRaise(sig);
      }).detach();
      if (auto lock = CuptiLock(); CuptiLive()) {
        cupti_.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      }
      FinishFromDrainThread();
      ResetAndRaise(sig);
      return;
    }
    const int64_t now = MonotonicNs();
    // A gated period just ended (--only-range): flush now rather than at the next periodic
    // flush (not with flush_ms = 0, which asks for no flush before exit).
    const bool period_ended = flush_requested_.exchange(false, std::memory_order_acq_rel);
    if (cupti_state_.load(std::memory_order_acquire) == CuptiState::kDetachWanted &&
        !stop_.load()) {
      DetachFromDrainThread();  // flushes (forced) and writes the period's records
      next_flush = now + static_cast<int64_t>(config_.flush_ms) * 1000000;
    } else if (config_.flush_ms > 0 && (now >= next_flush || period_ended) && !stop_.load()) {
      // Hands back buffers whose records are complete, so that commits keep up with the
      // program (and a SIGKILL loses at most about flush_ms + commit_ms of records).
      if (auto lock = CuptiLock(); CuptiLive()) cupti_.ActivityFlushAll(0);
      next_flush = now + static_cast<int64_t>(config_.flush_ms) * 1000000;
    }
    DrainOnce();
    if (stop_.load()) {
      FinishFromDrainThread();
      return;
    }
    if (now >= next_commit) {
      WriteCounters();
      if (!writer_->Commit().ok() && !write_failed_warned_.exchange(true)) {
        Warn("cannot commit to " + config_.output + "; records are being lost");
      }
      next_commit = now + static_cast<int64_t>(config_.commit_ms) * 1000000;
    }
  }
}

void Recorder::FinishFromDrainThread() {
  DrainOnce();
  WriteCounters();
  if (gate_.sampling()) WriteSampledPeriods();
  WriteDetachMeta();
  WriteGateTimingMeta();
  closed_.store(true, std::memory_order_release);
  nvtx_.Disable();
  if (const base::Status status = writer_->Close(); !status.ok()) Warn(status.ToString());
  sem_post(&done_);
}

// One start/end range per period of a sampled recording (only_range.h, kSampledRangeName);
// a period still open ends now.
void Recorder::WriteSampledPeriods() {
  auto name = writer_->Intern(gate_.timed() ? kSampledTimeRangeName : kSampledRangeName);
  auto domain = writer_->Intern(kSampledRangeDomain);
  if (!name.ok() || !domain.ok()) {
    ++write_failures_;
    return;
  }
  const int64_t now = MonotonicNs();
  for (auto [begin, end] : gate_.periods()) {
    if (end == std::numeric_limits<int64_t>::max()) end = now;
    if (begin == std::numeric_limits<int64_t>::min()) continue;  // opened before CUPTI came
    if (!writer_
             ->AddRange(nf::RangeRow{begin, end, *name, *domain, 0, -1, nf::RangeKind::kStartEnd})
             .ok()) {
      ++write_failures_;
    }
  }
}

void Recorder::AtExit() {
  Recorder* r = g_instance.load(std::memory_order_acquire);
  if (r == nullptr || ::getpid() != r->pid_ || r->stop_.load()) return;
  // Flush before stopping the drain thread, so that it still writes what CUPTI hands back.
  if (auto lock = r->CuptiLock(); r->CuptiLive()) {
    r->cupti_.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  if (r->stop_.exchange(true)) return;  // a signal got there first
  {
    std::lock_guard<std::mutex> lock(r->waiter_mu_);  // no event query under way from here
  }
  r->waiter_cv_.notify_all();
  sem_post(&r->wake_);
  const timespec deadline = AfterMs(kExitWaitSeconds * 1000);
  int rc;
  while ((rc = sem_clockwait(&r->done_, CLOCK_MONOTONIC, &deadline)) != 0 && errno == EINTR) {
  }
  if (rc == 0) {
    r->drain_.join();
  } else {
    r->Warn(
        "gave up waiting for the trace to be written; it holds the records up to the "
        "last commit");
  }
}

void Recorder::AtForkChild() {
  Recorder* r = g_instance.load(std::memory_order_acquire);
  if (r == nullptr) return;
  r->in_forked_child_.store(true, std::memory_order_release);
  r->nvtx_.Disable();
}

void Recorder::OnSignal(int sig) {
  Recorder* r = g_instance.load(std::memory_order_acquire);
  if (r == nullptr || ::getpid() != r->pid_ || r->closed_.load() ||
      r->pending_signal_.exchange(sig) != 0) {
    ResetAndRaise(sig);  // not ours to delay, or a second signal: die now
    return;
  }
  sem_post(&r->wake_);  // async-signal-safe
}

}  // namespace decodeprof::record::cupti
