#include "src/record/cupti/driver_api.h"

#include <dlfcn.h>

#include <type_traits>

namespace decodeprof::record::cupti {

std::string LoadDriverApi(const char* library_override, DriverApi& api) {
  const std::string library = library_override != nullptr && *library_override != '\0'
                                  ? std::string(library_override)
                                  : std::string("libcuda.so.1");
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return library + " is not loaded in this process";
  DriverApi out;
  std::string missing;
  const auto bind = [&](const char* name, auto& fn) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
    if (fn == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  bind("cuEventCreate", out.EventCreate);
  bind("cuEventRecord", out.EventRecord);
  bind("cuEventRecord_ptsz", out.EventRecordPtsz);
  bind("cuEventQuery", out.EventQuery);
  bind("cuStreamIsCapturing", out.StreamIsCapturing);
  bind("cuStreamIsCapturing_ptsz", out.StreamIsCapturingPtsz);
  bind("cuCtxGetCurrent", out.CtxGetCurrent);
  bind("cuCtxSetCurrent", out.CtxSetCurrent);
  bind("cuThreadExchangeStreamCaptureMode", out.ThreadExchangeStreamCaptureMode);
  if (!missing.empty()) return library + " lacks " + missing;
  api = out;
  return {};
}

}  // namespace decodeprof::record::cupti
