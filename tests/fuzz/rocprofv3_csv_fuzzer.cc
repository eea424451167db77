// rocprofv3 kernel-trace CSV through the importer plug-in: the input is written to a file and
// imported by path. The same file is then read again through a 64-byte read buffer (every
// record crosses refills), and on two threads in parts of 16 bytes or more
// (ImportRocprofv3CsvInParts, the parts merged as the pipeline merges them): neither may change
// the dispatches, the names or the error.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

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

  struct VectorSink final : trace::DispatchSink {
    void Add(const trace::Dispatch& d) override { kept.push_back(d); }
    trace::DispatchVector kept;
  };
  trace::StringPool parts_names;
  VectorSink first;
  std::deque<VectorSink> parts;  // a part's sink receives its names' private ids
  io::CsvSplitOptions split;
  split.reader.buffer_size = 64;
  split.min_split_bytes = 0;
  split.min_part_bytes = 16;
  split.cores = 2;
  const auto in_parts = io::ImportRocprofv3CsvInParts(
      file.path(), parts_names, first,
      [&](size_t index, int64_t) -> trace::DispatchSink* {
        FUZZ_CHECK(index == parts.size());
        return &parts.emplace_back();
      },
      split);
  FUZZ_CHECK(in_parts.status().ToString() == status.ToString());
  if (in_parts.ok()) {
    FUZZ_CHECK(small.ok() && in_parts->stats.rows == small->rows);
    trace::DispatchVector merged = first.kept;
    for (const io::CsvLaterPart& later : in_parts->later) {
      FUZZ_CHECK(later.index < parts.size());
      for (trace::Dispatch d : parts[later.index].kept) {
        later.Rebase(d);
        merged.push_back(d);
      }
    }
    FUZZ_CHECK(merged.size() == sink.kept().size());
    for (size_t i = 0; i < merged.size(); ++i) {
      FUZZ_CHECK(fuzz::SameDispatch(merged[i], sink.kept()[i]));
    }
    FUZZ_CHECK(parts_names.size() == names.size());
    for (trace::StringId id = 0; id < names.size(); ++id) {
      FUZZ_CHECK(parts_names.Get(id) == names.Get(id));
    }
  }
  return 0;
}

}  // namespace decodeprof
