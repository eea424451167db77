// The bench log parser ([phase] marks and the [Profile Results] block, seed spec 2.3–2.4):
// ParseBenchLogText over the input, as `summarize --bench-log` reads it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/io/bench_log/bench_log.h"
#include "tests/fuzz/fuzz_support.h"

namespace decodeprof {

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const trace::BenchLog log = io::ParseBenchLogText(text);
  // Every mark came from one line of the input: its label is a word of it.
  for (const auto& [label, stamp] : log.marks) {
    FUZZ_CHECK(!label.empty());
    FUZZ_CHECK(text.find(label) != std::string_view::npos);
    FUZZ_CHECK(!stamp.realtime && !stamp.session);  // bench logs print only the log clocks
  }
  return 0;
}

}  // namespace decodeprof
