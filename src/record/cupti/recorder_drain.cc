// Recorder: the buffer side (recorder.h, the diagram): CUPTI's buffer callbacks, and the drain
// thread that writes buffers, NVTX events, counters and meta to the native file, flushes CUPTI
// and commits, and closes the file at the end.
#include "src/record/cupti/recorder.h"

#include <semaphore.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include "src/record/cupti/clock.h"
#include "src/record/cupti/recorder_internal.h"
#include "src/record/only_range.h"

namespace decodeprof::record::cupti {
namespace {

namespace nf = native_format;

}  // namespace

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
        Warn(trace::Message<trace::Msg::kCommitFailed>(config_.output));
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
  if (const base::Status status = writer_->Close(); !status.ok()) {
    Warn(trace::Message<trace::Msg::kCloseFailed>(status.ToString()));
  }
  sem_post(&done_);
}

}  // namespace decodeprof::record::cupti
