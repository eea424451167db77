// NVTX injection: fills the function tables of an NVTX instance (nvtx3's
// InitializeInjectionNvtx2 protocol, nvtxDetail/nvtxInit.h) with handlers that time each
// call on CLOCK_MONOTONIC and hand it to an NvtxCollector. Every domain is captured;
// ASCII, wide and registered messages are kept (wide ones as UTF-8). Categories, thread
// names and resources are accepted and ignored.
#pragma once

#define NVTX_NO_IMPL  // a tool: types only, no NVTX instance of our own
#include <nvtx3/nvToolsExt.h>

#include "src/record/cupti/nvtx_collector.h"

namespace decodeprof::record::cupti {

// Installs the handlers for `collector` (which must outlive the process) into the instance
// behind `get_export_table`. Returns 1 on success, 0 when the export table is unusable (NVTX
// then stays inert in that instance).
int InstallNvtxHooks(NvtxGetExportTableFunc_t get_export_table, NvtxCollector* collector);

}  // namespace decodeprof::record::cupti
