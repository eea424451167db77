// decodeprof::guard — the idle wait before an attempt and the monitor during it
// (seed spec 1.6, 1.7), on a real 1 Hz.
//
// Both loops sample on a fixed schedule: sample k is due at start + k * kSamplePeriodSecs
// (a slow sample makes the loop skip the ticks it missed, never drift). Each sample is one
// Sampler::Take(). The seed slept one second after each sample, so its samples were ~1.45 s
// apart and a "90 s" idle wait took ~129 s; here --idle-secs is wall seconds.
#pragma once

#include <cstdint>

#include "src/guard/child.h"
#include "src/guard/clock.h"
#include "src/guard/lock.h"
#include "src/guard/notes.h"
#include "src/guard/sampler.h"

namespace decodeprof::guard {

inline constexpr double kSamplePeriodSecs = 1.0;

enum class IdleOutcome { kIdle, kGaveUp, kInterrupted };

// Waits until the samples have been quiet (no holder, no compiler) for `idle_secs` wall
// seconds: the first quiet sample of a streak and every sample up to and including the
// one due idle_secs later. Notes "waiting for ...", "idle streak reset ..." (only when a
// streak of at least one second breaks), "idle for ..."; with a limited budget, gives up
// ("gave up after ...") once Budget::Waited() reaches --max-wait. idle_secs == 0 takes no
// sample.
IdleOutcome IdleWait(uint64_t idle_secs, Sampler& sampler, Clock& clock, Notes& notes,
                     const Budget& budget);

struct MonitorResult {
  uint64_t samples = 0;
  bool contended = false;
  bool interrupted = false;  // INT/TERM arrived; the command is still to be stopped
  // What the last contended sample saw (empty when none was): "gpu=[...] compilers=[...]".
  std::string blocked_by;
};

// Samples while the command runs: the first sample at once, then once a second until
// `child` has exited (a child's exit wakes the loop at once). A sample with a foreign
// holder or a compiler notes "sample <n>: CONTENDED ..."; a clean one goes to the log only
// ("sample <n>: clean gpu=[<raw holders>]"). Notes "monitor: <n> samples" at the end
// (not when interrupted).
MonitorResult Monitor(ChildWatch& child, Sampler& sampler, Clock& clock, Notes& notes);

}  // namespace decodeprof::guard
