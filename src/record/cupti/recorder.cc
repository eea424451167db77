// Recorder's lifetime (recorder.h, "Lifetime"): created on first use from the environment,
// started (drain thread, atexit, fork and signal handlers), and ended by exit() or a signal.
// The other parts: recorder_internal.h.
#include "src/record/cupti/recorder.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "src/record/cupti/clock.h"
#include "src/record/cupti/recorder_internal.h"
#include "src/record/only_range.h"

#ifndef DECODEPROF_VERSION
#define DECODEPROF_VERSION "unknown"
#endif

namespace decodeprof::record::cupti {
namespace {

namespace nf = native_format;

constexpr size_t kMaxPendingNvtxEvents = 1 << 20;
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

std::string CommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\0') text.pop_back();
  for (char& c : text) c = c == '\0' ? ' ' : c;
  return text;
}

}  // namespace

std::atomic<Recorder*> g_instance{nullptr};

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

void Recorder::Warn(const trace::DiagMessage& message) const {
  if (!config_.quiet) std::fprintf(stderr, "decodeprof-cupti: %s\n", message.text.c_str());
}

void Recorder::SetMeta(std::string key, std::string value) {
  {
    std::lock_guard<std::mutex> lock(meta_mu_);
    meta_.emplace_back(std::move(key), std::move(value));
  }
  sem_post(&wake_);
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
  const timespec deadline = AfterMs(static_cast<uint64_t>(kExitWaitSeconds) * 1000);
  int rc;
  while ((rc = sem_clockwait(&r->done_, CLOCK_MONOTONIC, &deadline)) != 0 && errno == EINTR) {
  }
  if (rc == 0) {
    r->drain_.join();
  } else {
    r->Warn(trace::Message<trace::Msg::kDrainTimedOut>());
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
