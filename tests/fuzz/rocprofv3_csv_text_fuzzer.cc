// rocprofv3 kernel-trace CSV in memory: CsvReader::FromString (parsed in place, no file, no
// buffer) into ImportRocprofv3Csv, the fast variant of rocprofv3_csv_fuzzer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/io/common/csv_reader.h"
#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"
#include "tests/fuzz/fuzz_support.h"

namespace decodeprof {

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto reader = io::CsvReader::FromString(text, "fuzz.csv");
  trace::StringPool names;
  fuzz::CheckingSink sink(names);
  const auto stats = io::ImportRocprofv3Csv(*reader, names, sink);
  if (stats.ok()) FUZZ_CHECK(stats->rows == sink.count());
  return 0;
}

}  // namespace decodeprof
