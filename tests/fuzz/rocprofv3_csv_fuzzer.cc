// rocprofv3 kernel-trace CSV through the importer plug-in: the input is written to a file and
// imported by path. The same file is then read again through a 64-byte read buffer (every
// record crosses refills): the buffer size must change neither the dispatches nor the error.
#include <cstddef>
#include <cstdint>

#include "src/io/importer_registry.h"
#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"
#include "tests/fuzz/fuzz_support.h"

namespace decodeprof {

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::FuzzFile& file = fuzz::TheFuzzFile("rocprofv3_csv", ".csv");
  file.Write(data, size);
  static const io::Importer* const importer = io::FindImporter("rocprofv3-csv");
  FUZZ_CHECK(importer != nullptr);

  trace::StringPool names;
  fuzz::CheckingSink sink(names, /*keep=*/true);
  trace::TraceBuilder builder(names, sink);
  const base::Status status = importer->Import(file.path(), builder);
  const trace::ImportedTrace imported = std::move(builder).Finish();
  fuzz::CheckImported(imported, names);
  FUZZ_CHECK(imported.kernels == sink.count());

  trace::StringPool small_names;
  fuzz::CheckingSink small_sink(small_names, /*keep=*/true);
  io::CsvReader::Options options;
  options.buffer_size = 64;
  const auto small = io::ImportRocprofv3Csv(file.path(), small_names, small_sink, options);
  FUZZ_CHECK(small.status().kind() == status.kind());
  FUZZ_CHECK(small.status().ToString() == status.ToString());
  FUZZ_CHECK(small_sink.kept().size() == sink.kept().size());
  for (size_t i = 0; i < sink.kept().size(); ++i) {
    FUZZ_CHECK(fuzz::SameDispatch(sink.kept()[i], small_sink.kept()[i]));
  }
  FUZZ_CHECK(small_names.size() == names.size());
  for (trace::StringId id = 0; id < names.size(); ++id) {
    FUZZ_CHECK(small_names.Get(id) == names.Get(id));
  }
  return 0;
}

}  // namespace decodeprof
