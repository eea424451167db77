// The one clock of the recorder (issue 4 "One clock"): CLOCK_MONOTONIC, the clock of the
// phase-mark log lines. CUPTI is handed MonotonicNs() as its timestamp callback, so that
// it maps GPU timestamps onto it; NVTX events are stamped with it directly. Only when CUPTI
// refuses the callback is an offset measured (MeasureOffset) and added to CUPTI's times.
#pragma once

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

namespace decodeprof::record::cupti {

inline int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The calling thread's OS thread id (what CUPTI reports with CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM).
inline uint64_t ThreadId() { return static_cast<uint64_t>(::syscall(SYS_gettid)); }

// MONOTONIC − other clock, from `samples` reads of `other` each bracketed by two monotonic
// reads; the pair with the narrowest bracket wins (its midpoint is taken). `other` returns
// nanoseconds.
template <typename OtherClock>
int64_t MeasureOffset(OtherClock other, int samples = 16) {
  int64_t best_width = INT64_MAX;
  int64_t best_offset = 0;
  for (int i = 0; i < samples; ++i) {
    const int64_t before = MonotonicNs();
    const int64_t theirs = other();
    const int64_t after = MonotonicNs();
    if (after - before < best_width) {
      best_width = after - before;
      best_offset = before + (after - before) / 2 - theirs;
    }
  }
  return best_offset;
}

}  // namespace decodeprof::record::cupti
