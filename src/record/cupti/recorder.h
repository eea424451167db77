// Recorder: the one process-global object of the injection library (style.md 7.11 allows
// the injection library, and only it, such state, held in one object). Its parts live in
// recorder.cc (lifetime), recorder_attach.cc (CUPTI in and out), recorder_gate.cc (the gate's
// switch), recorder_hooks.cc (CUPTI callbacks) and recorder_drain.cc (buffers and the drain
// thread); recorder_internal.h holds what they share.
//
// It owns the native writer, the CUPTI buffer pool, the NVTX collector and the drain thread:
//
//   app threads ──NVTX calls──────────────► NvtxCollector ─┐
//   CUPTI ──bufferRequested──► BufferPool                  ├─► drain thread ─► NativeWriter
//   CUPTI ──bufferCompleted──► ready queue ─(semaphore)────┘      (commits every commit_ms)
//
// Lock order: ready_mu_, meta_mu_, the pool's and the collector's mutexes are leaves; CUPTI
// is never called with any of them held (CUPTI may call bufferCompleted from inside
// cuptiActivityFlushAll, on the calling thread). The one exception is the range gate's
// mutex (`--only-range`, range_gate.h): it is held across cuptiActivityEnable/Disable so
// that switches never cross, and so comes first: gate → CUPTI → (callbacks) pool, ready_mu_;
// gate → meta_mu_. No CUPTI callback and no drain-thread path takes it.
//
// Gating (`--only-range`): AttachCupti enables the activity kinds as always (so that a
// refusal is found and reported at start), remembers which ones CUPTI accepted, and hands
// the gate a switch over exactly those; the gate turns them off at once unless a range of
// the name is already open. Every switch to off also asks the drain thread for a CUPTI
// flush, so that a period's records reach the file soon after it ends.
//
// Lifetime: created on first use (the first of InitializeInjection and the NVTX injection)
// and never destroyed, so nothing depends on static destruction order. The end of
// recording is explicit, in one of three ways:
//   * exit(): an atexit handler flushes CUPTI, lets the drain thread write everything and
//     close the file (complete=1), waiting at most kExitWaitSeconds;
//   * SIGTERM/SIGINT/SIGHUP, when the program left them at their default action: the
//     handler only wakes the drain thread, which flushes, closes and re-raises the signal
//     with its default action (a second signal, or a flush that takes over
//     kSignalWaitSeconds, re-raises at once);
//   * SIGKILL or a crash: the file holds everything up to the last commit.
// In a forked child (not exec'd) every entry point becomes a no-op: the child never
// touches the parent's file, locks or threads.
//
// Watching CUDA graph launches (any gated or sampled recording): the recorder subscribes to
// CUPTI's callbacks of the four graph launch calls (cuGraphLaunch, cudaGraphLaunch and their
// per-thread-stream forms) and of the calls that make a graph (stream capture, instantiation:
// they only mark that the program uses graphs), and nothing else, so an eager program pays
// nothing for it. A runtime launch that calls the driver's counts once (a per-thread depth).
//
// Periods that outlive their range: CUPTI decides at launch whether a kernel is recorded, but
// reads a graph kernel's timestamps later, and a replay of the same graph made after recording
// was switched off overwrites those it has not read yet (H200, CUPTI 13.0: a sampled step of a
// CUDA-graph decode that does not synchronize came back with kernels of ~12 ms instead of
// ~30 us). So when a graph was launched in a period, an event is recorded on its stream right
// after the launch returns (on the launching thread; never while that stream is capturing,
// and with that thread's capture mode relaxed for the call, so that no capture elsewhere is
// invalidated), and the switch off at the period's end is deferred: the gate closes the
// period (its range ends there) but recording stays on until the waiter thread has seen
// every such event complete; it then flushes and switches the kinds off (gate mutex held, as
// any switch). Graph launches made in the meantime are recorded but their kernels and copies
// are dropped (RangeGate::DropLaunch: their own records may be overwritten), as are their
// launch calls' records when outside every period; eager kernels launched meanwhile are kept
// with their launch calls (RangeGate::Covers runs to the deferred switch off) and are outside
// the period by their launch time. A period that begins before the deferral ends keeps
// recording on. DECODEPROF_RECORD_PERIOD_END=switch turns this off (for measuring it).
// Lock order: gate → waiter_mu_ / events_mu_ (leaves); the waiter never holds waiter_mu_
// while it takes the gate's mutex.
//
// Graph launches as steps (`--sample-steps N`, DECODEPROF_RECORD_GRAPH_STEPS): until a range
// of the step name opens, each outermost graph launch opens the gate at its entry and closes
// it at its return (RangeGate::OpenGraph), so that one graph replay in N is recorded whole on
// engines without step ranges (llama.cpp, torch.compile, serving engines), and each launch is
// written as a decodeprof:graph-step range (only_range.h) for summarize to count.
//
// Detaching (DECODEPROF_RECORD_DETACH, off by default; never once a graph was launched): a CUPTI
// whose kinds are disabled after it recorded kernels still costs every launch, so between the
// periods of a sampled recording the recorder takes CUPTI out of the process. When a period
// ends, the drain thread flushes CUPTI (forced), writes what came back and subscribes to
// the runtime and driver API callbacks; the first API exit on any thread then calls
// cuptiFinalize (never blocking: it only try-locks cupti_mu_). The next period enables
// everything again (ReattachLocked) before the gate reports it open. While detached, no
// recorder thread calls CUPTI (any call would attach it again: lazy initialization), and
// the translator is told that correlation ids may start over (RecordTranslator::
// SetEpoch). Lock order: gate → cupti_mu_ → the leaves.
#pragma once

#include <semaphore.h>
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "src/native_format/native_writer.h"
#include "src/record/cupti/buffer_pool.h"
#include "src/record/cupti/config.h"
#include "src/record/cupti/cupti_api.h"
#include "src/record/cupti/driver_api.h"
#include "src/record/cupti/nvtx_collector.h"
#include "src/record/cupti/range_gate.h"
#include "src/record/cupti/record_translator.h"
#include "src/trace/diagnostics_list.h"

namespace decodeprof::record::cupti {

inline constexpr int kExitWaitSeconds = 10;
inline constexpr int kSignalWaitSeconds = 5;

class Recorder {
 public:
  // The process's recorder, created on first call; nullptr when this process does not
  // record (no output configured, a child not followed, or the file cannot be created —
  // the reason is printed once to stderr unless quiet).
  static Recorder* Instance();

  // Loads CUPTI and enables the activity kinds (called from InitializeInjection, during
  // cuInit). On any refusal the reason goes into meta recording_status and the process
  // runs on untraced by CUPTI (NVTX is still recorded).
  void AttachCupti();

  NvtxCollector& nvtx() { return nvtx_; }
  bool active() const {
    return !in_forked_child_.load(std::memory_order_acquire) &&
           !closed_.load(std::memory_order_acquire);
  }

  // CUPTI buffer callbacks (through static trampolines in recorder_drain.cc).
  void OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  void OnBufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t valid);

 private:
  Recorder(RecorderConfig config, std::unique_ptr<native_format::NativeWriter> writer);
  static Recorder* Create();
  void Start();
  void DrainLoop();
  // One pass of the drain thread: write ready buffers, NVTX events and queued meta.
  void DrainOnce();
  void WriteCounters();
  void SetMeta(std::string key, std::string value);  // any thread; written by the drain thread
  // Prints `message` on the program's stderr (unless quiet): "decodeprof-cupti: <text>".
  void Warn(const trace::DiagMessage& message) const;
  void FinishFromDrainThread();
  void WriteSampledPeriods();
  static void AtExit();
  static void AtForkChild();
  static void OnSignal(int sig);
  void InstallSignalHandlers();
  // AttachCupti's steps (recorder_attach.cc): CUPTI loaded and its version checked, the
  // clock, the buffer callbacks and the activity kinds (false: a refusal, said in meta
  // recording_status), detaching, a gated recording's period end, the timed sampler.
  bool LoadCheckedCupti();
  void SetUpClock();
  bool EnableKinds(bool enable_now, std::string& warnings);
  void SetUpDetach(std::string& warnings);
  void SetUpPeriodEnd(std::string& warnings);
  void StartTimedSampler();
  // The gate's switch: enables (on) or disables every kind in switchable_; on a refusal says
  // why in meta only_range_warnings (and once on stderr) and returns false. Gate mutex held.
  bool SwitchActivity(bool on);
  // SwitchActivity's parts (recorder_gate.cc): a switch off deferred to the waiter thread
  // (true when it was), a detach cancelled by a switch on, the flush after a switch off.
  bool DeferSwitchOff(int64_t begin);
  void CancelDetachLocked(std::string* refused);  // cupti_mu_ held
  void AfterSwitchOffLocked();                    // cupti_mu_ held

  // An activity kind that AttachCupti enabled (in switchable_: the kinds the gate switches).
  struct Switchable {
    CUpti_ActivityKind kind;
    const char* name;
  };

  // Detaching between periods (config detach; see "Detaching" above). The states, in turn:
  // attached; a period ended and the drain thread is to detach (kDetachWanted); the drain
  // thread has flushed everything and subscribed to the runtime and driver APIs, and the
  // next API exit on any thread calls cuptiFinalize (kFinalizePending: CUPTI's recommended
  // place, cupti_finalize sample); detached. A period that begins in any of the middle
  // states cancels the detach; one that begins detached attaches CUPTI again (Reattach).
  enum class CuptiState { kAttached, kDetachWanted, kFinalizePending, kDetached };
  // The lock over the recorder's own CUPTI calls when detaching (locked), else unlocked.
  std::unique_lock<std::mutex> CuptiLock();
  bool CuptiLive() const;  // attached, and not finalized
  void DetachFromDrainThread();
  bool ReattachLocked(std::string* refused);  // cupti_mu_ held
  // The per-launch-API records (kLaunchApis) on; each one CUPTI refused is added to `refused`.
  void EnableLaunchApiRecords(std::string* refused);
  // The runtime and driver API domains of subscriber_ on (1) or off (0).
  CUptiResult EnableApiDomains(uint32_t on);
  static void CUPTIAPI OnApiCallback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                     const void* data);
  // Graph launches (see "Watching CUDA graph launches"): the subscription (cupti_mu_ held, or
  // at attach), the callback's part, the event after a launch in a period, the waiter.
  void WatchGraphLaunches();
  void OnGraphLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                     const CUpti_CallbackData& data);
  void RecordPeriodEvent(CUstream stream, bool per_thread);
  void WaiterLoop();
  bool FinishDeferredOff();  // gate mutex held (RangeGate::FinishDeferred)
  void WriteDetachMeta();
  void WriteGateTimingMeta();

  const RecorderConfig config_;
  const pid_t pid_;
  std::unique_ptr<native_format::NativeWriter> writer_;  // drain thread only
  BufferPool pool_;
  RangeGate gate_;  // before nvtx_, which points to it
  NvtxCollector nvtx_;
  CuptiApi cupti_;
  std::vector<Switchable> switchable_;  // written by AttachCupti before the gate is attached
  bool launch_apis_only_ = false;       // whole API kinds on: the translator keeps launches
  std::atomic<bool> cupti_attached_{false};
  std::unique_ptr<RecordTranslator> translator_;  // drain thread only, once attached
  int64_t clock_offset_ns_ = 0;

  sem_t wake_;  // posted by producers, the exit path and the signal handler
  sem_t done_;  // posted by the drain thread once the file is closed
  std::thread drain_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> closed_{false};
  std::atomic<bool> in_forked_child_{false};
  std::atomic<int> pending_signal_{0};
  std::atomic<int64_t> cupti_dropped_{0};

  std::mutex cupti_mu_;  // after the gate's mutex; taken only when detaching (CuptiLock)
  std::atomic<CuptiState> cupti_state_{CuptiState::kAttached};
  CUpti_SubscriberHandle subscriber_ = nullptr;  // cupti_mu_; none once finalized
  bool api_cbids_on_ = false;                 // per-launch-API records on (enabled again on attach)
  bool clock_callback_ = false;               // CUPTI takes its timestamps from MonotonicTimestamp
  std::atomic<bool> flush_requested_{false};  // an --only-range period ended: flush
  std::atomic<bool> detach_broken_{false};    // subscribing failed: CUPTI stays attached
  std::atomic<uint32_t> cupti_epoch_{0};      // attachments ended by cuptiFinalize
  // How many, and how long: attaching again (ReattachLocked), cuptiFinalize, the gate's
  // switches and a sampled period's flush (on the program's threads). Any thread adds; the
  // drain thread reads at the end.
  struct Timings {
    std::atomic<int64_t> count{0};
    std::atomic<int64_t> total_ns{0};
    std::atomic<int64_t> max_ns{0};
    void Add(int64_t ns);
    std::string Text() const;  // "<mean> ms mean, <max> ms max"
  };
  Timings attaches_;
  Timings detaches_;
  Timings switches_on_;     // SwitchActivity(true), attaching again included
  Timings switches_off_;    // SwitchActivity(false)
  Timings period_flushes_;  // a sampled period's flush on the closing thread (SwitchActivity)
  Timings deferred_offs_;   // a period's close to its deferred switch off (waiter thread)
  // The program's graph calls, [launch, capture/instantiate/update][recording off, on]: what
  // recording costs where it lands (meta graph_call_time).
  Timings graph_calls_[2][2];

  // Graph launches and deferred switches off.
  DriverApi driver_;                      // empty when the driver's entry points were not found
  std::atomic<bool> graph_watch_{false};  // subscribed to the graph launch callbacks
  std::atomic<bool> graphs_seen_{false};  // the program launched a CUDA graph
  std::atomic<bool> deferring_{false};    // a switch off is deferred (drop graph launches)
  struct PeriodEvent {
    CUevent event;
    CUcontext context;
  };
  std::mutex events_mu_;                    // leaf: guards period_events_ and free_events_
  std::vector<PeriodEvent> period_events_;  // recorded after graph launches of the open period
  std::vector<PeriodEvent> free_events_;    // completed, to be recorded again
  std::mutex waiter_mu_;  // leaf: guards waiting_ and deferred_since_; held across a query
  std::condition_variable waiter_cv_;
  std::vector<PeriodEvent> waiting_;  // the events a deferred switch off waits for
  int64_t deferred_since_ = 0;        // when the period whose switch off is deferred ended
  bool waiter_started_ = false;       // waiter_mu_
  std::atomic<bool> gate_warned_{false};

  std::mutex ready_mu_;  // leaf: guards ready_
  struct ReadyBuffer {
    uint8_t* data;
    size_t valid;
    uint32_t epoch;  // the attachment it came from (cupti_epoch_ when it was completed)
  };
  std::vector<ReadyBuffer> ready_;
  std::mutex meta_mu_;  // leaf: guards meta_
  std::vector<std::pair<std::string, std::string>> meta_;
  std::atomic<bool> write_failed_warned_{false};
  int64_t write_failures_ = 0;  // drain thread only
};

}  // namespace decodeprof::record::cupti
