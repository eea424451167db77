// decodeprof::pipeline — the `export` job: a trace of any registered format, read through the
// importer summarize uses (the same recognition, device check and sources of phase marks,
// trace_source.h), written as a Chrome trace timeline (report::WriteChromeTraceFile), the
// whole trace or its decode window. The CLI only parses options into an ExportRequest.
#pragma once

#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/pipeline/trace_source.h"
#include "src/report/chrome_trace.h"

namespace decodeprof::pipeline {

struct ExportRequest {
  std::string out;  // the timeline file, or base::kStdout
  TraceRequest trace;
  bool decode_window = false;  // the decode window only (as summarize cuts it), else all
  std::string log;             // bench log whose [phase] marks cut the decode window
  std::string pack;            // "" = chosen from the kernel names exported
};

// Runs the job; `notes` gets what was chosen on the user's behalf (the default pack). The
// output is checked (base::CheckOutputTarget against the inputs) before anything is read.
// Errors: those of the import and the window cut; a trace whose import found an error
// diagnostic (kData, pipeline::ErrorDiagnostic: nothing written); the write's.
base::StatusOr<report::ChromeTraceStats> RunExport(const ExportRequest& req,
                                                   std::vector<std::string>& notes);

}  // namespace decodeprof::pipeline
