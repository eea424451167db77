// The few CUDA driver entry points the recorder calls itself, found at run time in the
// driver the program already loaded (dlopen RTLD_NOLOAD: the recorder never loads a driver
// of its own, and links none).
//
// They serve one purpose: ending a sampled period when the GPU work launched inside it has
// finished, without the program synchronizing (recorder.h, "Periods that outlive their
// range"). An event is recorded right after each CUDA graph launch made in a period, on the
// launching thread and stream, and the recorder's own thread polls it.
//
// DECODEPROF_CUDA_DRIVER_LIB names the library to look in instead of libcuda.so.1 (the tests'
// stand-in); it too must be loaded already.
#pragma once

#include <cuda.h>

#include <string>

namespace decodeprof::record::cupti {

struct DriverApi {
  CUresult (*EventCreate)(CUevent*, unsigned int) = nullptr;
  CUresult (*EventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*EventRecordPtsz)(CUevent, CUstream) = nullptr;  // per-thread default stream
  CUresult (*EventQuery)(CUevent) = nullptr;
  CUresult (*StreamIsCapturing)(CUstream, CUstreamCaptureStatus*) = nullptr;
  CUresult (*StreamIsCapturingPtsz)(CUstream, CUstreamCaptureStatus*) = nullptr;
  CUresult (*CtxGetCurrent)(CUcontext*) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*ThreadExchangeStreamCaptureMode)(CUstreamCaptureMode*) = nullptr;
  bool ok() const { return EventCreate != nullptr; }
};

// Fills `api` from the loaded driver; returns "" or why not (then `api` stays empty and the
// recorder ends periods when their range closes, as before).
std::string LoadDriverApi(const char* library_override, DriverApi& api);

}  // namespace decodeprof::record::cupti
