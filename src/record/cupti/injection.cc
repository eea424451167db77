// The entry points of libdecodeprof_cupti.so — the only symbols it exports (exports.map).
//
// * InitializeInjection: called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH
//   names this library. Attaches CUPTI; never fails the driver (returns 1 always).
// * InitializeInjectionNvtx2: called by each NVTX instance on its first NVTX call when
//   NVTX_INJECTION64_PATH names this library. Returns 0 (NVTX stays inert, at no cost) when
//   this process does not record.
#include "src/record/cupti/nvtx_hooks.h"
#include "src/record/cupti/recorder.h"

using decodeprof::record::cupti::InstallNvtxHooks;
using decodeprof::record::cupti::Recorder;

extern "C" {

__attribute__((visibility("default"))) int InitializeInjection(void) {
  if (Recorder* recorder = Recorder::Instance()) recorder->AttachCupti();
  return 1;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  Recorder* recorder = Recorder::Instance();
  if (recorder == nullptr || !recorder->active()) return 0;
  return InstallNvtxHooks(get_export_table, &recorder->nvtx());
}

}  // extern "C"
