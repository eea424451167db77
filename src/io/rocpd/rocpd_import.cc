#include "src/io/rocpd/rocpd_import.h"

#include "src/trace/trace.h"

namespace decodeprof::io {

std::string_view RocpdMemcpyName(std::string_view operation) {
  if (operation.starts_with("MEMORY_COPY_")) operation.remove_prefix(12);
  // rocprofiler_memory_copy_operation_t names, mapped onto the CUPTI kinds of MemcpyName.
  constexpr trace::Runtime kHip = trace::Runtime::kHip;
  if (operation == "HOST_TO_DEVICE") return trace::MemcpyName(1, kHip);
  if (operation == "DEVICE_TO_HOST") return trace::MemcpyName(2, kHip);
  if (operation == "DEVICE_TO_DEVICE") return trace::MemcpyName(8, kHip);
  if (operation == "HOST_TO_HOST") return trace::MemcpyName(9, kHip);
  return trace::MemcpyName(0, kHip);
}

}  // namespace decodeprof::io
