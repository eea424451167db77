// Recorder's private helpers shared by its files (recorder.h says how the parts fit):
//   recorder.cc         lifetime: creation, the exit and signal paths, fork, shared timings;
//   recorder_attach.cc  CUPTI in and out: loading it, enabling the activity kinds, detaching
//                       between periods and attaching again (Kineto's CuptiActivityApi);
//   recorder_gate.cc    the range gate's switch, the deferred switch off, the gate's meta;
//   recorder_hooks.cc   CUPTI callbacks: graph launches and the API exit that finalizes
//                       (Kineto's CuptiCallbackApi);
//   recorder_drain.cc   the buffer callbacks and the drain thread that writes the file.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

#include "src/record/cupti/cupti_api.h"

namespace decodeprof::record::cupti {

class Recorder;

// The recorder once started (Recorder::Start), for the static callbacks; null before.
extern std::atomic<Recorder*> g_instance;

// CUPTI's timestamp callback: CLOCK_MONOTONIC, the clock of every record (recorder_attach.cc).
uint64_t CUPTIAPI MonotonicTimestamp();

// CUPTI's buffer callbacks, forwarded to g_instance (recorder_drain.cc).
void CUPTIAPI BufferRequestedTrampoline(uint8_t** buffer, size_t* size, size_t* max_records);
void CUPTIAPI BufferCompletedTrampoline(CUcontext context, uint32_t stream, uint8_t* buffer,
                                        size_t size, size_t valid);

// Async-signal-safe: back to the default action, then raise (delivered when the handler
// that calls this returns, since the signal is blocked while it runs).
void ResetAndRaise(int sig);

// CLOCK_MONOTONIC `ms` from now, for sem_clockwait.
timespec AfterMs(uint64_t ms);

}  // namespace decodeprof::record::cupti
