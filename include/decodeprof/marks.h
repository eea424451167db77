/* decodeprof/marks.h — phase marks for decodeprof, header-only C (and C++).
 *
 * An engine calls these around its phases; each call emits the phase
 *   1. as an NVTX range "decodeprof:<phase>" (pushed on begin, popped on end, on the calling
 *      thread), which `decodeprof record` captures and `summarize` reads, and
 *   2. for the four phases the seed's bench log knows, as its log line on stderr:
 *        [phase] <label> monotonic_ns=<n> boottime_ns=<n>
 *      begin(WARMUP) → warmup_start, begin(PREFILL) → measured_start,
 *      begin(DECODE) → decode_start, end(DECODE) → measured_end.
 *      Set DECODEPROF_PHASE_MARKS=0 in the environment to silence the lines.
 *
 * Both carry the same CLOCK_MONOTONIC instant to within a microsecond or so: the NVTX call
 * is made first (the first one also loads an attached NVTX tool, which takes milliseconds),
 * the stamp read right after it, and the line printed last, so that the two sources cut
 * the same window (issue 4, "One clock"). Steps (DECODEPROF_PHASE_STEP, one per generated
 * token) are NVTX only.
 *
 * Requires the NVTX v3 headers (CUDA's include/nvtx3, header-only; link -ldl) and POSIX
 * clocks. Without an NVTX tool attached the NVTX calls cost a few nanoseconds.
 *
 *   decodeprof_phase_begin(DECODEPROF_PHASE_DECODE);
 *   for (...) { decodeprof_phase_begin(DECODEPROF_PHASE_STEP); ...;
 *               decodeprof_phase_end(DECODEPROF_PHASE_STEP); }
 *   decodeprof_phase_end(DECODEPROF_PHASE_DECODE);
 */
#ifndef DECODEPROF_MARKS_H_
#define DECODEPROF_MARKS_H_

#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum decodeprof_phase {
  DECODEPROF_PHASE_WARMUP = 0,
  DECODEPROF_PHASE_PREFILL = 1,
  DECODEPROF_PHASE_DECODE = 2,
  DECODEPROF_PHASE_STEP = 3
} decodeprof_phase;

/* The NVTX range name of a phase ("decodeprof:decode", ...). */
static inline const char* decodeprof_phase_range_name(decodeprof_phase phase) {
  switch (phase) {
    case DECODEPROF_PHASE_WARMUP:
      return "decodeprof:warmup";
    case DECODEPROF_PHASE_PREFILL:
      return "decodeprof:prefill";
    case DECODEPROF_PHASE_DECODE:
      return "decodeprof:decode";
    default:
      return "decodeprof:step";
  }
}

/* Nanoseconds on `clock_id`, or -1 when the clock cannot be read. */
static inline int64_t decodeprof_clock_ns(clockid_t clock_id) {
  struct timespec ts;
  if (clock_gettime(clock_id, &ts) != 0) return -1;
  return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

/* Prints the seed's mark line for `label` with the given monotonic stamp (and a boottime
 * stamp read now), unless DECODEPROF_PHASE_MARKS=0. */
static inline void decodeprof_log_mark(const char* label, int64_t monotonic_ns) {
  const char* env = getenv("DECODEPROF_PHASE_MARKS");
  if (env != NULL && strcmp(env, "0") == 0) return;
  int64_t boottime_ns = -1;
#ifdef CLOCK_BOOTTIME
  boottime_ns = decodeprof_clock_ns(CLOCK_BOOTTIME);
#endif
  char mono[24] = "na";
  char boot[24] = "na";
  if (monotonic_ns >= 0) snprintf(mono, sizeof mono, "%lld", (long long)monotonic_ns);
  if (boottime_ns >= 0) snprintf(boot, sizeof boot, "%lld", (long long)boottime_ns);
  fprintf(stderr, "[phase] %s monotonic_ns=%s boottime_ns=%s\n", label, mono, boot);
  fflush(stderr);
}

static inline void decodeprof_phase_begin(decodeprof_phase phase) {
  nvtxRangePushA(decodeprof_phase_range_name(phase));
  const int64_t now = decodeprof_clock_ns(CLOCK_MONOTONIC);
  switch (phase) {
    case DECODEPROF_PHASE_WARMUP:
      decodeprof_log_mark("warmup_start", now);
      break;
    case DECODEPROF_PHASE_PREFILL:
      decodeprof_log_mark("measured_start", now);
      break;
    case DECODEPROF_PHASE_DECODE:
      decodeprof_log_mark("decode_start", now);
      break;
    default:
      break;
  }
}

/* Ends the innermost open phase of this thread; `phase` must be the one begun last. */
static inline void decodeprof_phase_end(decodeprof_phase phase) {
  nvtxRangePop();
  const int64_t now = decodeprof_clock_ns(CLOCK_MONOTONIC);
  if (phase == DECODEPROF_PHASE_DECODE) decodeprof_log_mark("measured_end", now);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DECODEPROF_MARKS_H_ */
