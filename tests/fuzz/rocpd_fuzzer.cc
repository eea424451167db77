// rocprofv3's rocpd database through the importer plug-in.
//
// Raw bytes seldom form a valid database, so the target has two modes:
//   * input starting with SQLite's header ("SQLite format 3\0"): the bytes are the file;
//   * anything else fills an rocpd_testing::RocpdDb (rocprofiler-sdk's schema 3,
//     src/io/rocpd/testing/rocpd_db_writer.h): agents (CPU and GPUs, indexes missing or
//     extreme), kernel dispatches (display and symbol names mangled or not, --kernel-rename
//     text, grids, queues, streams, correlations or none), memory copies, HIP/HSA calls, roctx
//     push/pop and start/stop ranges, other marker operations, marks and zero-length calls
//     (samples) on several processes and threads, with or without the plain views and the
//     metadata, of any schema_version; which WriteRocpdDb writes (rows that break a foreign
//     key make it fail: nothing is imported then); the written file is then damaged (tables
//     dropped or renamed, columns dropped, NULL / text / real / blob / extreme cells, rows
//     deleted; sqlite_fuzz.h).
// The file is then imported by path into a TraceBuilder whose sink checks every dispatch.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "src/io/importer_registry.h"
#include "src/io/rocpd/testing/rocpd_db_writer.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/sqlite_fuzz.h"

namespace decodeprof {
namespace {

namespace rt = io::rocpd_testing;

bool WriteRocpdFile(const std::string& path, FuzzedDataProvider& fdp) {
  rt::RocpdDb db;
  db.views = fdp.ConsumeIntegralInRange<int>(0, 7) != 0;
  db.metadata = fdp.ConsumeIntegralInRange<int>(0, 7) != 0;
  if (fdp.ConsumeIntegralInRange<int>(0, 5) == 0) {
    static const char* const kVersions[] = {"3", "3.0.2", "4", "4.1.0", "2", "", "x"};
    db.schema_version = kVersions[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kVersions) - 1)];
  }
  const int gpus = fdp.ConsumeIntegralInRange<int>(0, 2);
  for (int g = 0; g < gpus; ++g) {
    rt::Agent a;
    a.id = 2 + g;
    if (fdp.ConsumeBool()) a.absolute_index.reset();
    if (fdp.ConsumeBool()) {
      a.logical_index = fuzz::FuzzSmall<int64_t>(fdp, 0, 4);
    } else if (fdp.ConsumeBool()) {
      a.logical_index.reset();
    }
    if (fdp.ConsumeBool()) a.type = "CPU";
    a.product_name = fdp.ConsumeRandomLengthString(12);
    db.agents.push_back(a);
  }
  const auto agent = [&]() {
    return db.agents[fdp.ConsumeIntegralInRange<size_t>(0, db.agents.size() - 1)].id;
  };
  int64_t clock = 1000;
  int64_t next_id = 1;
  auto pid = [&]() { return fdp.ConsumeBool() ? rt::kPid : rt::kPid + 100; };
  auto tid_of = [&](int64_t p) { return p + fdp.ConsumeIntegralInRange<int64_t>(0, 2); };
  auto correlation = [&]() -> std::optional<int64_t> {
    if (fdp.ConsumeIntegralInRange<int>(0, 5) == 0) return std::nullopt;
    return fuzz::FuzzSmall<int64_t>(fdp, 0, 32);
  };
  const int rows = fdp.ConsumeIntegralInRange<int>(0, 48);
  for (int i = 0; i < rows && fdp.remaining_bytes() > 0; ++i) {
    switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
      case 0:
      case 1: {
        rt::KernelDispatch k;
        k.start = fuzz::FuzzTime(fdp, clock);
        k.end = fuzz::FuzzEnd(fdp, k.start, clock);
        k.pid = pid();
        k.tid = tid_of(k.pid);
        k.agent_id = agent();
        k.display_name = fdp.ConsumeBool() ? fuzz::FuzzName(fdp) : "";
        k.kernel_name = fdp.ConsumeBool() ? fuzz::FuzzName(fdp) + ".kd" : "";
        if (fdp.ConsumeIntegralInRange<int>(0, 7) == 0) k.region_name = fuzz::FuzzName(fdp);
        k.queue_id = fuzz::FuzzSmall<int64_t>(fdp, 0, 4);
        k.stream_id = fuzz::FuzzSmall<int64_t>(fdp, 0, 4);
        for (int64_t& g : k.grid) g = fuzz::FuzzSmall<int64_t>(fdp, -1, 4096);
        k.correlation = correlation();
        db.kernels.push_back(k);
        break;
      }
      case 2: {
        static const char* const kOps[] = {
            "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST",
            "MEMORY_COPY_DEVICE_TO_DEVICE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_NONE"};
        rt::MemoryCopy m;
        m.start = fuzz::FuzzTime(fdp, clock);
        m.end = fuzz::FuzzEnd(fdp, m.start, clock);
        m.pid = pid();
        m.tid = tid_of(m.pid);
        m.operation = kOps[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kOps) - 1)];
        if (fdp.ConsumeBool())
          m.src_agent_id = agent();
        else
          m.src_agent_id.reset();
        if (fdp.ConsumeBool())
          m.dst_agent_id = agent();
        else
          m.dst_agent_id.reset();
        if (fdp.ConsumeBool()) m.queue_id = fuzz::FuzzSmall<int64_t>(fdp, 0, 4);
        if (fdp.ConsumeBool()) m.stream_id.reset();
        m.correlation = correlation();
        db.copies.push_back(m);
        break;
      }
      case 3:
      case 4: {
        static const char* const kCategories[] = {"HIP_RUNTIME_API_EXT", "HSA_CORE_API", "RCCL_API",
                                                  "MARKER_CORE_RANGE_API", "MARKER_CONTROL_API"};
        static const char* const kMarkerOps[] = {"roctxThreadRangeA", "roctxProcessRangeA",
                                                 "roctxMarkA", "roctxGetThreadId",
                                                 "roctxProfilerPause"};
        rt::Region r;
        r.id = next_id;
        next_id += fdp.ConsumeIntegralInRange<int64_t>(1, 3);
        r.pid = pid();
        r.tid = tid_of(r.pid);
        r.start = fuzz::FuzzTime(fdp, clock);
        r.end = fuzz::FuzzEnd(fdp, r.start, clock);
        r.category = kCategories[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kCategories) - 1)];
        const bool marker = r.category.starts_with("MARKER_");
        r.name = marker && fdp.ConsumeBool()
                     ? kMarkerOps[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kMarkerOps) - 1)]
                     : fuzz::FuzzName(fdp);
        if (marker) r.message = fuzz::FuzzName(fdp);
        r.event = fdp.ConsumeIntegralInRange<int>(0, 7) != 0;
        db.regions.push_back(r);
        break;
      }
      case 5: {
        rt::Sample s;
        s.id = next_id++;
        s.pid = pid();
        s.tid = tid_of(s.pid);
        s.timestamp = fuzz::FuzzTime(fdp, clock);
        if (fdp.ConsumeIntegralInRange<int>(0, 3) == 0) s.category = "HIP_RUNTIME_API_EXT";
        if (fdp.ConsumeBool()) s.message = fuzz::FuzzName(fdp);
        db.samples.push_back(s);
        break;
      }
      default: {
        rt::Region r = rt::ThreadRange(next_id++, fuzz::FuzzName(fdp), 0, 0);
        r.pid = pid();
        r.tid = tid_of(r.pid);
        r.start = fuzz::FuzzTime(fdp, clock);
        r.end = fuzz::FuzzEnd(fdp, r.start, clock);
        db.regions.push_back(r);
        break;
      }
    }
  }
  if (!rt::WriteRocpdDb(path, db).ok()) return false;
  fuzz::DamageDatabase(path, fdp, 6);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::FuzzFile& file = fuzz::TheFuzzFile("rocpd", ".db");
  if (fuzz::IsSqliteFile(data, size)) {
    file.Write(data, size);
  } else {
    file.Remove();
    FuzzedDataProvider fdp(data, size);
    if (!WriteRocpdFile(file.path(), fdp)) return 0;
  }
  static const io::Importer* const importer = io::FindImporter("rocpd");
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
