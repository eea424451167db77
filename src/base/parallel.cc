#include "src/base/parallel.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "src/base/parse.h"
#include "src/base/spill.h"

namespace decodeprof::base {

namespace {

// DECODEPROF_THREADS: how many threads a pass may use, in place of the CPUs (1 to
// kMaxPassParts; anything else is ignored, with a note on stderr). Read once.
unsigned ThreadsFromEnvironment() {
  static const unsigned threads = [] {
    const char* text = std::getenv("DECODEPROF_THREADS");
    if (text == nullptr || *text == '\0') return 0u;
    const std::optional<uint64_t> value = ParseUnsigned(text);
    if (!value || *value < 1 || *value > kMaxPassParts) {
      std::fprintf(
          stderr,
          "decodeprof: note: DECODEPROF_THREADS=%s is not a number from 1 to %zu; ignored\n", text,
          kMaxPassParts);
      return 0u;
    }
    return static_cast<unsigned>(*value);
  }();
  return threads;
}

}  // namespace

namespace {

unsigned AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  unsigned cpus = std::thread::hardware_concurrency();
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) cpus = static_cast<unsigned>(CPU_COUNT(&set));
  return cpus;
}

}  // namespace

unsigned UsableCpus() {
  if (const unsigned threads = ThreadsFromEnvironment(); threads != 0) return threads;
  return ThreadsOn(AffinityCpus(), spill::WantsACpu());
}

unsigned ParseThreads() {
  if (const unsigned threads = ThreadsFromEnvironment(); threads != 0) return threads;
  return ParseThreadsOn(AffinityCpus(), spill::WantsACpu());
}

unsigned ParseThreadsOn(unsigned cpus, bool watched) {
  if (watched && cpus >= spill::kCpusToLeaveOne) --cpus;
  return std::max(1u, cpus);
}

unsigned ThreadsOn(unsigned cpus, bool watched) {
  // A parse's threads (one CPU left to the memory budget's watcher while large blocks go to
  // files, spill.h), and no more than hold what they read within a little of the budget.
  const unsigned threads = ParseThreadsOn(cpus, watched);
  return watched ? std::min(threads, kThreadsWithFileBlocks) : threads;
}

size_t PassParts(size_t n, size_t min_size) {
  const size_t by_size = n / std::max<size_t>(1, min_size);
  return std::max<size_t>(1, std::min({size_t{UsableCpus()}, kMaxPassParts, by_size}));
}

namespace parallel_internal {
namespace {

// Worker w runs part w + 1 of each pass that has one. Never destroyed: its threads wait on
// its condition for the process's whole life (a pass can still hold it at exit).
class Pool {
 public:
  bool Start(size_t parts, void (*call)(void*, size_t), void* fn) {
    if (busy_.test_and_set(std::memory_order_acquire)) return false;
    std::lock_guard<std::mutex> lock(mu_);
    while (workers_ < parts - 1) {
      std::thread([this, w = workers_] { Work(w); }).detach();
      ++workers_;
    }
    call_ = call;
    fn_ = fn;
    parts_ = parts;
    running_ = parts - 1;
    ++pass_;
    work_.notify_all();
    return true;
  }

  void Wait() {
    {
      std::unique_lock<std::mutex> lock(mu_);
      done_.wait(lock, [this] { return running_ == 0; });
    }
    busy_.clear(std::memory_order_release);
  }

 private:
  [[noreturn]] void Work(size_t w) {
    uint64_t seen = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen = pass_ - 1;  // started for the pass under way: it has a part for this thread
    }
    for (;;) {
      void (*call)(void*, size_t) = nullptr;
      void* fn = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_.wait(lock, [&] { return pass_ != seen && w + 1 < parts_; });
        seen = pass_;
        call = call_;
        fn = fn_;
      }
      call(fn, w + 1);
      std::lock_guard<std::mutex> lock(mu_);
      if (--running_ == 0) done_.notify_one();
    }
  }

  std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
  std::mutex mu_;
  std::condition_variable work_;
  std::condition_variable done_;
  size_t workers_ = 0;
  uint64_t pass_ = 0;
  size_t parts_ = 0;
  size_t running_ = 0;
  void (*call_)(void*, size_t) = nullptr;
  void* fn_ = nullptr;
};

Pool& ThePool() {
  static Pool* const pool = new Pool;
  return *pool;
}

}  // namespace

bool Start(size_t parts, void (*call)(void*, size_t), void* fn) {
  return ThePool().Start(parts, call, fn);
}
void Wait() { ThePool().Wait(); }

}  // namespace parallel_internal
}  // namespace decodeprof::base
