// Recorder: CUPTI's callbacks (recorder.h, "Watching CUDA graph launches"; Kineto's
// CuptiCallbackApi): the subscription to the graph launch and graph making calls, what a
// launch does (open the gate for a graph step, an event after a launch in a period), and the
// API exit that finalizes CUPTI when detaching.
#include "src/record/cupti/recorder.h"

#include <string>

#include "src/record/cupti/clock.h"
#include "src/record/cupti/recorder_internal.h"
#include "src/record/only_range.h"

namespace decodeprof::record::cupti {
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

}  // namespace decodeprof::record::cupti
