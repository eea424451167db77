// Recorder: the range gate's side (recorder.h, "Gating" and "Periods that outlive their
// range"): the gate's switch over the activity kinds, the deferred switch off once a period's
// graph events completed (the waiter thread), and what the gate writes at the end: the
// sampled periods and the switches' timings.
#include "src/record/cupti/recorder.h"

#include <chrono>
#include <limits>
#include <string>
#include <utility>

#include "src/record/cupti/clock.h"
#include "src/record/cupti/recorder_internal.h"
#include "src/record/only_range.h"

namespace decodeprof::record::cupti {
namespace {

namespace nf = native_format;

}  // namespace

// A switch off while graphs launched in the period may still run: handed to the waiter
// thread, which switches off once their events completed (recorder.h, "Periods that outlive
// their range"). True when deferred.
bool Recorder::DeferSwitchOff(int64_t begin) {
  if (config_.period_end != RecorderConfig::PeriodEnd::kWait || !driver_.ok()) return false;
  std::vector<PeriodEvent> events;
  {
    std::lock_guard<std::mutex> events_lock(events_mu_);
    events.swap(period_events_);
  }
  if (events.empty()) return false;
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

// Switching on: a detach under way is cancelled, a detached CUPTI attached again (a refusal
// goes into `refused`). cupti_mu_ held.
void Recorder::CancelDetachLocked(std::string* refused) {
  switch (cupti_state_.load(std::memory_order_acquire)) {
    case CuptiState::kDetached:
      if (!ReattachLocked(refused)) break;
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

// After a switch off: the period's flush (here in a sampled recording, else by the
// recorder's thread), and a detach asked for. cupti_mu_ held.
void Recorder::AfterSwitchOffLocked() {
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
  } else if (DeferSwitchOff(begin)) {
    return true;
  }
  std::string refused;
  auto lock = CuptiLock();
  if (on && config_.detach) CancelDetachLocked(&refused);
  for (const Switchable& s : switchable_) {
    const CUptiResult rc = on ? cupti_.ActivityEnable(s.kind) : cupti_.ActivityDisable(s.kind);
    if (rc != CUPTI_SUCCESS) {
      trace::AppendText(refused, trace::Message<trace::Msg::kRecordKindRefused>(
                                     s.name, CuptiErrorText(cupti_, rc)));
    }
  }
  if (!on) AfterSwitchOffLocked();
  if (refused.empty()) return true;
  const std::string why =
      trace::Message<trace::Msg::kGateSwitchRefused>(on ? "on" : "off", refused).text;
  if (!gate_warned_.exchange(true)) {
    Warn(trace::Message<trace::Msg::kGateSwitchRefusedOnce>(why));
  }
  SetMeta(std::string(kMetaOnlyRangeWarnings), why);
  return false;
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

}  // namespace decodeprof::record::cupti
