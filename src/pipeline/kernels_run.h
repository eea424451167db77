// decodeprof::pipeline — the `kernels` job: read a trace of any registered format through its
// importer straight into a kernel census (analysis/kernel_census.h; memory is bounded by the
// distinct names, not the file), with the checks every import gets (CheckImported: impossible
// dispatches, an empty trace, several devices without --device), and the census by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/kernel_census.h"
#include "src/base/status.h"
#include "src/pipeline/trace_source.h"
#include "src/pipeline/window_spec.h"
#include "src/trace/diagnostics.h"

namespace decodeprof::pipeline {

struct KernelsRequest {
  TraceRequest trace;  // path, format, device (the range names are not used)
  WindowSpec window;   // kAll, kRange, or kDecode (the decode window as summarize finds it)
  std::string pack;    // "" = chosen from the kernel names, as summarize chooses it
};

struct KernelsResult {
  std::string format;              // the importer that read the trace
  std::string pack;                // the pack that classed the kernels
  std::vector<std::string> notes;  // what was chosen on the user's behalf (the default pack)
  int32_t device = 0;              // --device, else the trace's only device
  std::string device_name;         // "" when the trace names none
  std::string clock;               // ClockText
  int64_t device_dispatches = 0;   // the device's dispatches, inside the window or not
  // The earliest and latest start among them (the range a --window can usefully take).
  trace::TimestampNs first_start = 0;
  trace::TimestampNs last_start = 0;
  analysis::CensusTable by_name;  // the window's dispatches by name (names repaired)
  // --window decode: how the window was found (Summary::window_source), its bounds and steps.
  std::string window_source;
  trace::TimestampNs window_lo = 0;
  trace::TimestampNs window_hi = 0;
  std::optional<int64_t> window_steps;
  // The import's non-zero diagnostics (names_repaired included).
  std::vector<trace::DiagnosticEntry> diagnostics;
};

// Runs the job. Errors: kUsage for an unknown format; with --window decode, those of
// ImportWindow (no decode loop found, ...); the pack's (kConfig); the importer's (kIo, kData with
// the file and position); those of CheckImported (kData); a diagnostic of error severity (kData).
base::StatusOr<KernelsResult> RunKernels(const KernelsRequest& request);

}  // namespace decodeprof::pipeline
