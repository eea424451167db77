// The native trace (SQLite, src/native_format/schema.h) through the importer plug-in.
//
// Raw bytes seldom form a valid database, so the target has two modes:
//   * input starting with SQLite's header ("SQLite format 3\0"): the bytes are the file;
//   * anything else drives a NativeWriter (the recorder's writer, the real schema): which
//     rows are written and their values (timestamps, string ids valid or dangling, grids,
//     devices, meta keys such as format, format_version and clock_domain, counters, whether
//     the file is closed), then damage to the written file (tables dropped or renamed, columns
//     dropped, NULL / text / real / blob / extreme cells, rows deleted; sqlite_fuzz.h).
// The file is then imported by path into a TraceBuilder whose sink checks every dispatch.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/io/importer_registry.h"
#include "src/native_format/native_writer.h"
#include "src/native_format/schema.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/sqlite_fuzz.h"

namespace decodeprof {
namespace {

namespace nf = native_format;

// Writes a native file at `path` from the fuzz bytes; false when the writer could not start.
bool WriteNativeFile(const std::string& path, FuzzedDataProvider& fdp) {
  static const char* const kClocks[] = {"monotonic", "boottime", "realtime",
                                        "session",   "unknown",  "wallclock"};
  const std::string clock = kClocks[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kClocks) - 1)];
  auto created = nf::NativeWriter::Create(path, clock, "fuzz");
  if (!created.ok()) return false;
  std::unique_ptr<nf::NativeWriter> writer = std::move(created).value();

  std::vector<nf::StringRef> strings;
  int64_t clock_ns = 1'000'000'000;
  // A string id: mostly one that exists, sometimes 0, a dangling one or anything.
  auto string_id = [&]() -> nf::StringRef {
    switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
      case 0:
        return 0;
      case 1:
        return static_cast<nf::StringRef>(strings.size()) + 1;
      case 2:
        return fdp.ConsumeIntegral<int64_t>();
      default:
        if (strings.empty()) return 1;
        return strings[fdp.ConsumeIntegralInRange<size_t>(0, strings.size() - 1)];
    }
  };
  auto intern = [&](const std::string& text) {
    auto id = writer->Intern(text);
    if (id.ok()) strings.push_back(*id);
  };
  intern("void gemv_kernel<float>(float const*, float*, int)");

  const int rows = fdp.ConsumeIntegralInRange<int>(0, 64);
  for (int i = 0; i < rows && fdp.remaining_bytes() > 0; ++i) {
    switch (fdp.ConsumeIntegralInRange<int>(0, 10)) {
      case 0:
        intern(fuzz::FuzzName(fdp));
        break;
      case 1:
      case 2: {
        nf::KernelRow k;
        k.start_ns = fuzz::FuzzTime(fdp, clock_ns);
        k.end_ns = fuzz::FuzzEnd(fdp, k.start_ns, clock_ns);
        k.name = string_id();
        k.mangled = string_id();
        k.device = fuzz::FuzzSmall<uint32_t>(fdp, 0, 3);
        k.stream = fuzz::FuzzSmall<uint32_t>(fdp, 0, 16);
        k.correlation = fuzz::FuzzSmall<uint32_t>(fdp, 0, 64);
        for (int& g : k.grid) g = fuzz::FuzzSmall<int32_t>(fdp, -1, 4096);
        for (int& b : k.block) b = fuzz::FuzzSmall<int32_t>(fdp, 0, 1024);
        k.graph_id = fuzz::FuzzSmall<uint32_t>(fdp, 0, 2);
        (void)writer->AddKernel(k);
        break;
      }
      case 3: {
        nf::MemoryOpRow m;
        m.start_ns = fuzz::FuzzTime(fdp, clock_ns);
        m.end_ns = fuzz::FuzzEnd(fdp, m.start_ns, clock_ns);
        m.kind = static_cast<nf::MemoryOpKind>(fuzz::FuzzSmall<int>(fdp, 0, 3));
        m.copy_kind = fuzz::FuzzSmall<int32_t>(fdp, 0, 11);
        m.bytes = fuzz::FuzzSmall<int64_t>(fdp, 0, 1 << 20);
        m.device = fuzz::FuzzSmall<uint32_t>(fdp, 0, 3);
        m.stream = fuzz::FuzzSmall<uint32_t>(fdp, 0, 16);
        m.correlation = fuzz::FuzzSmall<uint32_t>(fdp, 0, 64);
        (void)writer->AddMemoryOp(m);
        break;
      }
      case 4: {
        nf::ApiCallRow a;
        a.start_ns = fuzz::FuzzTime(fdp, clock_ns);
        a.end_ns = fuzz::FuzzEnd(fdp, a.start_ns, clock_ns);
        a.name = string_id();
        a.thread = fuzz::FuzzSmall<uint64_t>(fdp, 0, 4);
        a.correlation = fuzz::FuzzSmall<uint32_t>(fdp, 0, 64);
        (void)writer->AddApiCall(a);
        break;
      }
      case 5: {
        nf::RangeRow r;
        r.start_ns = fuzz::FuzzTime(fdp, clock_ns);
        r.end_ns = fuzz::FuzzEnd(fdp, r.start_ns, clock_ns);
        r.name = string_id();
        r.domain = string_id();
        r.thread = fuzz::FuzzSmall<uint64_t>(fdp, 0, 4);
        r.depth = fuzz::FuzzSmall<int32_t>(fdp, -1, 4);
        r.kind = fdp.ConsumeBool() ? nf::RangeKind::kPushPop : nf::RangeKind::kStartEnd;
        (void)writer->AddRange(r);
        break;
      }
      case 6: {
        nf::MarkRow m;
        m.time_ns = fuzz::FuzzTime(fdp, clock_ns);
        m.name = string_id();
        m.domain = string_id();
        m.thread = fuzz::FuzzSmall<uint64_t>(fdp, 0, 4);
        (void)writer->AddMark(m);
        break;
      }
      case 7: {
        nf::DeviceRow d;
        d.id = fuzz::FuzzSmall<uint32_t>(fdp, 0, 3);
        d.name = fdp.ConsumeRandomLengthString(16);
        d.compute_major = 9;
        (void)writer->AddDevice(d);
        break;
      }
      case 8: {
        static const char* const kKeys[] = {"format",   "format_version",   "clock_domain",
                                            "complete", "recording_status", "recorder"};
        static const char* const kValues[] = {
            "decodeprof-native", "1",         "2",       "0",  "-1",
            "99999999999",       "monotonic", "unknown", "ok", "ok: fine",
            "cupti unavailable", ""};
        const std::string key = fdp.ConsumeBool() ? kKeys[fdp.ConsumeIntegralInRange<size_t>(0, 5)]
                                                  : fdp.ConsumeRandomLengthString(12);
        const std::string value = fdp.ConsumeBool()
                                      ? kValues[fdp.ConsumeIntegralInRange<size_t>(0, 11)]
                                      : fdp.ConsumeRandomLengthString(12);
        (void)writer->SetMeta(key, value);
        break;
      }
      case 9: {
        static const std::string_view kCounters[] = {
            nf::kCounterCuptiDropped,      nf::kCounterTranslationFailures,
            nf::kCounterIncompleteKernels, nf::kCounterNvtxQueueFull,
            nf::kCounterWriteFailures,     nf::kCounterBufferPoolExhausted,
            nf::kCounterNvtxUnmatchedPops, nf::kCounterNvtxUnendedRanges,
            nf::kCounterUnknownRecords};
        const std::string name =
            fdp.ConsumeBool()
                ? std::string(
                      kCounters[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kCounters) - 1)])
                : fdp.ConsumeRandomLengthString(12);
        (void)writer->SetCounter(name, fuzz::FuzzSmall<int64_t>(fdp, -1, 100));
        break;
      }
      default:
        (void)writer->Commit();
        break;
    }
  }
  if (fdp.ConsumeBool()) (void)writer->Close();  // else: left incomplete (complete = 0)
  writer.reset();
  fuzz::DamageDatabase(path, fdp, 6);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::FuzzFile& file = fuzz::TheFuzzFile("native", ".dptrace");
  if (fuzz::IsSqliteFile(data, size)) {
    file.Write(data, size);
  } else {
    file.Remove();
    FuzzedDataProvider fdp(data, size);
    if (!WriteNativeFile(file.path(), fdp)) return 0;
  }
  static const io::Importer* const importer = io::FindImporter("native");
  FUZZ_CHECK(importer != nullptr);
  trace::StringPool names;
  fuzz::CheckingSink sink(names);
  trace::TraceBuilder builder(names, sink);
  const base::Status status = importer->Import(file.path(), builder);
  const trace::ImportedTrace imported = std::move(builder).Finish();
  fuzz::CheckImported(imported, names);
  FUZZ_CHECK(imported.kernels + imported.memory_ops == sink.count());
  (void)status;  // an error is a fine outcome
  return 0;
}

}  // namespace decodeprof
