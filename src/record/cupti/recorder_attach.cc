// Recorder: CUPTI in and out of the process (recorder.h; Kineto's CuptiActivityApi). Loading
// CUPTI and enabling the activity kinds at start (AttachCupti), the per-launch-API records,
// and detaching between the periods of a sampled recording ("Detaching") and attaching again.
#include "src/record/cupti/recorder.h"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "src/record/cupti/clock.h"
#include "src/record/cupti/recorder_internal.h"
#include "src/record/only_range.h"

namespace decodeprof::record::cupti {
namespace {

namespace nf = native_format;

}  // namespace

uint64_t CUPTIAPI MonotonicTimestamp() { return static_cast<uint64_t>(MonotonicNs()); }

// Loads CUPTI and checks its API version; a refusal is said (stderr, recording_status).
bool Recorder::LoadCheckedCupti() {
  // A CUPTI the program already loaded wins (one CUPTI per process); else the one the
  // launcher found (only it: it is what `decodeprof record` checked), else the sonames.
  std::vector<std::string> sonames = {"libcupti.so.13", "libcupti.so"};
  std::vector<std::string> loaded = sonames;
  if (!config_.cupti_lib.empty()) loaded.push_back(config_.cupti_lib);
  const std::string load_error = LoadCupti(
      loaded, config_.cupti_lib.empty() ? sonames : std::vector{config_.cupti_lib}, cupti_);
  if (!load_error.empty()) {
    Warn(trace::Message<trace::Msg::kCuptiNotLoaded>(load_error));
    SetMeta(std::string(nf::kMetaRecordingStatus), load_error);
    return false;
  }
  SetMeta("cupti_library", cupti_.path);
  uint32_t version = 0;
  if (cupti_.GetVersion(&version) == CUPTI_SUCCESS) {
    SetMeta("cupti_version", std::to_string(version));
  }
  // Record layouts (CUpti_ActivityKernel10, ...) are those of the headers we were built with.
  if (version / 10000 != CUPTI_API_VERSION / 10000) {
    const std::string why = trace::Message<trace::Msg::kCuptiVersionMismatch>(
                                version, cupti_.path, static_cast<uint32_t>(CUPTI_API_VERSION))
                                .text;
    Warn(trace::Message<trace::Msg::kCuptiNotLoaded>(why));
    SetMeta(std::string(nf::kMetaRecordingStatus), why);
    return false;
  }
  return true;
}

// CUPTI's timestamps on CLOCK_MONOTONIC: its timestamp callback, else a measured offset.
void Recorder::SetUpClock() {
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
}

// The buffer callbacks and the activity kinds (enabled now unless `enable_now` is false: the
// gate's first period enables them); an optional kind CUPTI refused is noted in `warnings`.
// False after a refusal of what recording needs (said in recording_status).
bool Recorder::EnableKinds(bool enable_now, std::string& warnings) {
  auto refuse = [&](const char* call, CUptiResult rc) {
    const std::string why =
        trace::Message<trace::Msg::kCuptiRefusedRecord>(call, CuptiErrorText(cupti_, rc)).text;
    Warn(trace::Message<trace::Msg::kCuptiNotLoaded>(why));
    SetMeta(std::string(nf::kMetaRecordingStatus), why);
  };
  CUptiResult rc =
      cupti_.ActivityRegisterCallbacks(&BufferRequestedTrampoline, &BufferCompletedTrampoline);
  if (rc != CUPTI_SUCCESS) {
    refuse("cuptiActivityRegisterCallbacks", rc);
    return false;
  }
  auto enable = [&](CUpti_ActivityKind kind) {
    return enable_now ? cupti_.ActivityEnable(kind) : CUPTI_SUCCESS;
  };
  // Never CUPTI_ACTIVITY_KIND_KERNEL: it serializes kernels (issue 4).
  rc = enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (rc != CUPTI_SUCCESS) {
    refuse("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", rc);
    return false;
  }
  switchable_.push_back({CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"});
  // An optional record CUPTI refused is noted in `warnings`; returns whether it is on.
  auto optional = [&](const char* name, CUptiResult result) {
    if (result == CUPTI_SUCCESS) return true;
    trace::AppendText(warnings, trace::Message<trace::Msg::kRecordKindRefused>(
                                    name, CuptiErrorText(cupti_, result)));
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
  return true;
}

// Detaching between periods (config detach), when this CUPTI can.
void Recorder::SetUpDetach(std::string& warnings) {
  if (config_.detach && !cupti_.can_detach()) {
    trace::AppendText(warnings, trace::Message<trace::Msg::kDetachUnsupported>());
    detach_broken_.store(true);
  }
  if (config_.detach && !detach_broken_.load()) {
    SetMeta(std::string(kMetaCuptiDetach),
            "between periods (cuptiFinalize), until the program makes or launches a CUDA graph");
  }
}

// A gated recording's graph watch and how its periods end (meta period_end).
void Recorder::SetUpPeriodEnd(std::string& warnings) {
  // Graph launches: the periods' ends wait for their GPU work, and with --sample-steps
  // they are the steps until a step range opens (recorder.h).
  std::string period_end = config_.period_end == RecorderConfig::PeriodEnd::kWait
                               ? "wait for the GPU work of the graphs launched in the period"
                               : "switch off when the range closes";
  if (config_.period_end == RecorderConfig::PeriodEnd::kWait) {
    if (const std::string why = LoadDriverApi(config_.driver_lib.c_str(), driver_); !why.empty()) {
      trace::AppendText(warnings, trace::Message<trace::Msg::kPeriodWaitUnavailable>(why));
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
    trace::AppendText(warnings, trace::Message<trace::Msg::kGraphWatchUnavailable>());
    period_end = "switch off when the range closes (no callback subscription)";
  } else if (config_.sample_steps > 1 && config_.graph_steps) {
    gate_.EnableGraphSteps();
  }
  SetMeta(std::string(kMetaPeriodEnd), period_end);
}

// Timed sampling: ON ms of every PERIOD ms, the first period after PERIOD - ON ms.
void Recorder::StartTimedSampler() {
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

void Recorder::AttachCupti() {
  if (!active() || cupti_attached_.load()) return;
  if (!LoadCheckedCupti()) return;
  SetUpClock();
  // DECODEPROF_RECORD_ENABLE_AT_ATTACH=0 (gated or sampled only): the switched kinds are
  // first enabled by the first period (a refusal is then a switch failure), for measuring
  // what a CUPTI whose kinds were never on costs the program.
  const bool enable_now = config_.enable_at_attach || !gate_.gating();
  std::string warnings;
  if (!EnableKinds(enable_now, warnings)) return;
  SetUpDetach(warnings);
  if (gate_.gating()) SetUpPeriodEnd(warnings);
  if (!warnings.empty()) {
    Warn(trace::Message<trace::Msg::kSomeRecordsOff>(warnings));
    SetMeta("warnings", warnings);
  }
  SetMeta(std::string(nf::kMetaRecordingStatus),
          config_.discard ? "ok (DECODEPROF_RECORD_DISCARD: activity records not written)" : "ok");
  cupti_attached_.store(true, std::memory_order_release);
  // Everything is on now; the gate turns it off unless a range of the name is open already.
  gate_.Attach([this](bool on) { return SwitchActivity(on); }, /*on_now=*/enable_now);
  if (gate_.timed()) StartTimedSampler();
}

std::unique_lock<std::mutex> Recorder::CuptiLock() {
  if (!config_.detach) return std::unique_lock<std::mutex>(cupti_mu_, std::defer_lock);
  return std::unique_lock<std::mutex>(cupti_mu_);
}

bool Recorder::CuptiLive() const {
  return cupti_attached_.load(std::memory_order_acquire) &&
         cupti_state_.load(std::memory_order_acquire) != CuptiState::kDetached;
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
    *refused = trace::Message<trace::Msg::kReattachRefused>(CuptiErrorText(cupti_, rc)).text;
    return false;
  }
  std::string ignored;  // AttachCupti said which ones CUPTI refuses
  if (api_cbids_on_) EnableLaunchApiRecords(&ignored);
  if (graph_watch_.load()) WatchGraphLaunches();  // the subscription went with cuptiFinalize
  attaches_.Add(MonotonicNs() - begin);
  return true;
}

void Recorder::EnableLaunchApiRecords(std::string* refused) {
  for (size_t i = 0; i < kLaunchApiCount; ++i) {
    const LaunchApi& api = kLaunchApis[i];
    const CUptiResult rc = api.kind == CUPTI_ACTIVITY_KIND_RUNTIME
                               ? cupti_.ActivityEnableRuntimeApi(api.cbid, 1)
                               : cupti_.ActivityEnableDriverApi(api.cbid, 1);
    if (rc != CUPTI_SUCCESS) {
      trace::AppendText(*refused, trace::Message<trace::Msg::kRecordKindRefused>(
                                      api.name, CuptiErrorText(cupti_, rc)));
    }
  }
}

CUptiResult Recorder::EnableApiDomains(uint32_t on) {
  CUptiResult rc = cupti_.EnableDomain(on, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API);
  if (rc == CUPTI_SUCCESS) rc = cupti_.EnableDomain(on, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API);
  return rc;
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
      const trace::DiagMessage why =
          trace::Message<trace::Msg::kDetachRefused>(CuptiErrorText(cupti_, rc));
      Warn(why);
      SetMeta(std::string(kMetaCuptiDetach), why.text);
      detach_broken_.store(true, std::memory_order_release);
      cupti_state_.store(CuptiState::kAttached, std::memory_order_release);
      return;
    }
  }
  cupti_state_.store(CuptiState::kFinalizePending, std::memory_order_release);
}

void Recorder::WriteDetachMeta() {
  if (!config_.detach || detach_broken_.load()) return;
  (void)writer_->SetMeta(kMetaCuptiDetaches, std::to_string(detaches_.count.load()));
  (void)writer_->SetMeta(kMetaCuptiAttaches, std::to_string(attaches_.count.load()));
  if (attaches_.count.load() > 0) (void)writer_->SetMeta(kMetaCuptiAttachTime, attaches_.Text());
  if (detaches_.count.load() > 0) (void)writer_->SetMeta(kMetaCuptiDetachTime, detaches_.Text());
}

}  // namespace decodeprof::record::cupti
