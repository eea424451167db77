#include "src/record/cupti/cupti_api.h"

#include <dlfcn.h>

namespace decodeprof::record::cupti {
namespace {

template <typename Fn>
bool Bind(void* handle, const char* name, Fn& fn, std::string& missing) {
  fn = reinterpret_cast<Fn>(::dlsym(handle, name));
  if (fn == nullptr) {
    if (!missing.empty()) missing += ", ";
    missing += name;
  }
  return fn != nullptr;
}

std::string BindAll(void* handle, CuptiApi& api) {
  std::string missing;
  Bind(handle, "cuptiGetVersion", api.GetVersion, missing);
  Bind(handle, "cuptiGetResultString", api.GetResultString, missing);
  Bind(handle, "cuptiActivityRegisterCallbacks", api.ActivityRegisterCallbacks, missing);
  Bind(handle, "cuptiActivityRegisterTimestampCallback", api.ActivityRegisterTimestampCallback,
       missing);
  Bind(handle, "cuptiActivityEnable", api.ActivityEnable, missing);
  Bind(handle, "cuptiActivityDisable", api.ActivityDisable, missing);
  Bind(handle, "cuptiActivityEnableRuntimeApi", api.ActivityEnableRuntimeApi, missing);
  Bind(handle, "cuptiActivityEnableDriverApi", api.ActivityEnableDriverApi, missing);
  Bind(handle, "cuptiActivityFlushAll", api.ActivityFlushAll, missing);
  Bind(handle, "cuptiActivityGetNextRecord", api.ActivityGetNextRecord, missing);
  Bind(handle, "cuptiActivityGetNumDroppedRecords", api.ActivityGetNumDroppedRecords, missing);
  Bind(handle, "cuptiGetTimestamp", api.GetTimestamp, missing);
  Bind(handle, "cuptiSetThreadIdType", api.SetThreadIdType, missing);
  std::string optional;  // may be missing: the recorder then never detaches
  Bind(handle, "cuptiSubscribe", api.Subscribe, optional);
  Bind(handle, "cuptiEnableDomain", api.EnableDomain, optional);
  Bind(handle, "cuptiFinalize", api.Finalize, optional);
  Bind(handle, "cuptiEnableCallback", api.EnableCallback, optional);
  return missing;
}

}  // namespace

std::string LoadCupti(const std::vector<std::string>& loaded_names,
                      const std::vector<std::string>& load_names, CuptiApi& api) {
  std::string why;
  void* handle = nullptr;
  std::string loaded;
  for (const std::string& name : loaded_names) {
    handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (handle != nullptr) {
      loaded = name + " (already loaded)";
      break;
    }
  }
  for (size_t i = 0; handle == nullptr && i < load_names.size(); ++i) {
    handle = ::dlopen(load_names[i].c_str(), RTLD_NOW);
    if (handle != nullptr) {
      loaded = load_names[i];
    } else {
      const char* error = ::dlerror();
      why += (why.empty() ? "" : "; ") + std::string(error != nullptr ? error : load_names[i]);
    }
  }
  if (handle == nullptr) return "cannot load CUPTI: " + (why.empty() ? "no candidate" : why);
  const std::string missing = BindAll(handle, api);
  if (!missing.empty()) {
    api = CuptiApi{};
    return "CUPTI at " + loaded + " lacks " + missing;
  }
  api.path = loaded;
  return {};
}

std::string CuptiErrorText(const CuptiApi& api, CUptiResult result) {
  const char* text = nullptr;
  if (api.GetResultString != nullptr && api.GetResultString(result, &text) == CUPTI_SUCCESS &&
      text != nullptr) {
    return text;
  }
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

}  // namespace decodeprof::record::cupti
