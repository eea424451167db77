// Kineto (PyTorch profiler) Chrome-trace JSON in memory (ImportKinetoJsonText): the fast
// variant of kineto_json_fuzzer, with no file and no 1 MB read buffer per input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/io/kineto_json/kineto_json_importer.h"
#include "tests/fuzz/fuzz_support.h"

namespace decodeprof {

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  trace::StringPool names;
  fuzz::CheckingSink sink(names);
  io::KinetoImportOptions options;
  options.memory_ops_as_dispatches = true;
  const auto result = io::ImportKinetoJsonText(text, "fuzz.json", names, sink, options);
  if (result.ok()) {
    FUZZ_CHECK(result->kernels + result->memory_ops == sink.count());
    for (size_t i = 0; i < result->ranges.size(); ++i) {
      const trace::Range& r = result->ranges[i];
      FUZZ_CHECK(r.end >= r.start);
      FUZZ_CHECK(r.name < names.size());
      if (i > 0) FUZZ_CHECK(result->ranges[i - 1].start <= r.start);
    }
  }
  return 0;
}

}  // namespace decodeprof
