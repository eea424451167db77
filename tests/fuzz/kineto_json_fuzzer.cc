// Kineto (PyTorch profiler) Chrome-trace JSON through the importer plug-in: the input is
// written to a file and imported by path. The same bytes are then imported from memory
// (ImportKinetoJsonText, as the plug-in configures it) through a read window of 1 to 64 bytes
// (the first byte chooses), so that every run boundary and refill of io::JsonStream is
// crossed: both must give the same dispatches, ranges and error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/io/importer_registry.h"
#include "src/io/kineto_json/kineto_json_importer.h"
#include "tests/fuzz/fuzz_support.h"

namespace decodeprof {

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::FuzzFile& file = fuzz::TheFuzzFile("kineto_json", ".json");
  file.Write(data, size);
  static const io::Importer* const importer = io::FindImporter("kineto-json");
  FUZZ_CHECK(importer != nullptr);

  trace::StringPool names;
  fuzz::CheckingSink sink(names, /*keep=*/true);
  trace::TraceBuilder builder(names, sink);
  const base::Status status = importer->Import(file.path(), builder);
  const trace::ImportedTrace imported = std::move(builder).Finish();
  fuzz::CheckImported(imported, names);
  FUZZ_CHECK(imported.kernels + imported.memory_ops == sink.count());

  trace::StringPool text_names;
  fuzz::CheckingSink text_sink(text_names, /*keep=*/true);
  io::KinetoImportOptions options;
  options.memory_ops_as_dispatches = true;
  options.window_bytes = size > 0 ? 1 + data[0] % 64 : 1;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto in_memory =
      io::ImportKinetoJsonText(text, file.path(), text_names, text_sink, options);
  FUZZ_CHECK(in_memory.status().kind() == status.kind());
  FUZZ_CHECK(in_memory.status().ToString() == status.ToString());
  FUZZ_CHECK(text_sink.kept().size() == sink.kept().size());
  for (size_t i = 0; i < sink.kept().size(); ++i) {
    FUZZ_CHECK(fuzz::SameDispatch(sink.kept()[i], text_sink.kept()[i]));
  }
  if (in_memory.ok()) {
    FUZZ_CHECK(in_memory->ranges.size() == imported.ranges.size());
    FUZZ_CHECK(in_memory->kernels == imported.kernels);
    FUZZ_CHECK(in_memory->memory_ops == imported.memory_ops);
  }
  return 0;
}

}  // namespace decodeprof
