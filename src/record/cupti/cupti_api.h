// The CUPTI entry points the recorder uses, loaded at run time with dlopen.
//
// Loading CUPTI ourselves (instead of linking it) keeps the injection library loadable when
// CUPTI is missing or of another major version: the recorder then records NVTX only and
// writes why into the file (style.md 7.8 rule 2), and the host program runs on. It also lets
// the tests put a stand-in library in CUPTI's place (src/record/cupti/testing/).
#pragma once

#include <cupti.h>

#include <string>
#include <vector>

namespace decodeprof::record::cupti {

struct CuptiApi {
  CUptiResult (*GetVersion)(uint32_t*) = nullptr;
  CUptiResult (*GetResultString)(CUptiResult, const char**) = nullptr;
  CUptiResult (*ActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                           CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*ActivityRegisterTimestampCallback)(CUpti_TimestampCallbackFunc) = nullptr;
  CUptiResult (*ActivityEnable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*ActivityDisable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*ActivityEnableRuntimeApi)(CUpti_CallbackId, uint8_t) = nullptr;
  CUptiResult (*ActivityEnableDriverApi)(CUpti_CallbackId, uint8_t) = nullptr;
  CUptiResult (*ActivityFlushAll)(uint32_t) = nullptr;
  CUptiResult (*ActivityGetNextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*ActivityGetNumDroppedRecords)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*GetTimestamp)(uint64_t*) = nullptr;
  CUptiResult (*SetThreadIdType)(CUpti_ActivityThreadIdType) = nullptr;
  // Optional (detaching between the periods of a sampled recording, recorder.h): null when
  // the library lacks them, and then CUPTI stays attached.
  CUptiResult (*Subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*EnableDomain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
  CUptiResult (*Finalize)() = nullptr;
  // Optional (watching CUDA graph launches: recorder.h): null when the library lacks it.
  CUptiResult (*EnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                CUpti_CallbackId) = nullptr;
  bool can_detach() const {
    return Subscribe != nullptr && EnableDomain != nullptr && Finalize != nullptr;
  }

  // The library that was loaded (for the file's metadata).
  std::string path;
};

// Uses a CUPTI already loaded in the process if there is one (any of `loaded_names`, with
// RTLD_NOLOAD, so that a program that brought its own libcupti, like PyTorch, shares it);
// else loads the first of `load_names` that loads. On success fills `api` and returns "";
// else returns why (dlerror text of every attempt, or the missing symbols).
std::string LoadCupti(const std::vector<std::string>& loaded_names,
                      const std::vector<std::string>& load_names, CuptiApi& api);

// CUPTI's text for `result` ("CUPTI_ERROR_..."), or the number when the API has none.
std::string CuptiErrorText(const CuptiApi& api, CUptiResult result);

}  // namespace decodeprof::record::cupti
