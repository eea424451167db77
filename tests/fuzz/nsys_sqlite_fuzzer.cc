// The Nsight Systems SQLite export through the importer plug-in.
//
// Raw bytes seldom form a valid database, so the target has two modes:
//   * input starting with SQLite's header ("SQLite format 3\0") or with the .nsys-rep magic:
//     the bytes are the file;
//   * anything else fills an nsys_testing::NsysDb (the schema of nsys 2022, 2024 or 2025.6,
//     src/io/nsys_sqlite/testing/nsys_db_writer.h): kernels, memcpy/memset, CUDA-graph
//     launches, runtime/driver calls, NVTX events and GPUs with fuzz-chosen values (times,
//     systemClockNs near the end of int64, devices, streams, correlations, names mangled or
//     not, several processes, ranges without end), which WriteNsysDb writes; the written file is
//     then damaged (tables dropped or renamed, columns dropped, NULL / text / real / blob /
//     extreme cells, dangling string ids, rows deleted; sqlite_fuzz.h).
// The file is then imported by path into a TraceBuilder whose sink checks every dispatch.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "src/io/importer_registry.h"
#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/sqlite_fuzz.h"

namespace decodeprof {
namespace {

namespace nt = io::nsys_testing;

bool WriteNsysFile(const std::string& path, FuzzedDataProvider& fdp) {
  nt::NsysDb db;
  db.schema = nt::kAllSchemas[fdp.ConsumeIntegralInRange<size_t>(0, 2)];
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      db.system_clock_ns.reset();
      break;
    case 1:
      db.system_clock_ns = fdp.ConsumeIntegral<int64_t>();
      break;
    default:
      break;  // the writer's default (a monotonic clock reading)
  }
  db.kernel_mangled_name_column = fdp.ConsumeBool();
  int64_t clock = 1000;
  auto correlation = [&]() { return fuzz::FuzzSmall<uint32_t>(fdp, 0, 32); };
  // A thread of process p: p itself or one of the next two ids (saturating: a pid near
  // UINT32_MAX must not give an empty range, which FuzzedDataProvider aborts on).
  auto tid_of = [&](uint32_t p) {
    return fuzz::FuzzSmall<uint32_t>(fdp, p, p > UINT32_MAX - 2 ? UINT32_MAX : p + 2);
  };
  auto pid = [&]() { return fuzz::FuzzSmall<uint32_t>(fdp, 100, 102); };
  const int rows = fdp.ConsumeIntegralInRange<int>(0, 48);
  for (int i = 0; i < rows && fdp.remaining_bytes() > 0; ++i) {
    switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
      case 0:
      case 1: {
        nt::Kernel k;
        k.start = fuzz::FuzzTime(fdp, clock);
        k.end = fuzz::FuzzEnd(fdp, k.start, clock);
        k.device = fuzz::FuzzSmall<int32_t>(fdp, 0, 3);
        k.stream = fuzz::FuzzSmall<int32_t>(fdp, 0, 16);
        if (fdp.ConsumeBool()) k.correlation = correlation();
        k.demangled = fuzz::FuzzName(fdp);
        if (fdp.ConsumeBool()) k.short_name = fuzz::FuzzName(fdp);
        if (fdp.ConsumeBool()) k.mangled = fuzz::FuzzName(fdp);
        for (int& g : k.grid) g = fuzz::FuzzSmall<int32_t>(fdp, -1, 4096);
        k.global_pid = nt::GlobalPid(pid());
        db.kernels.push_back(k);
        break;
      }
      case 2: {
        nt::MemoryOp m;
        m.memset = fdp.ConsumeBool();
        m.start = fuzz::FuzzTime(fdp, clock);
        m.end = fuzz::FuzzEnd(fdp, m.start, clock);
        m.device = fuzz::FuzzSmall<int32_t>(fdp, 0, 3);
        m.stream = fuzz::FuzzSmall<int32_t>(fdp, 0, 16);
        if (fdp.ConsumeBool()) m.correlation = correlation();
        m.copy_kind = fuzz::FuzzSmall<int32_t>(fdp, 0, 13);
        m.global_pid = nt::GlobalPid(pid());
        db.memory_ops.push_back(m);
        break;
      }
      case 3:
      case 4: {
        nt::ApiCall a;
        a.start = fuzz::FuzzTime(fdp, clock);
        a.end = fuzz::FuzzEnd(fdp, a.start, clock);
        a.name = fuzz::FuzzName(fdp);
        const uint32_t p = pid();
        a.global_tid = nt::GlobalTid(p, tid_of(p));
        a.correlation = correlation();
        a.driver = fdp.ConsumeBool();
        db.api_calls.push_back(a);
        break;
      }
      case 5: {
        static const int32_t kTypes[] = {59, 60, 70, 71, 34, 33, 75};
        nt::NvtxEvent e;
        e.start = fuzz::FuzzTime(fdp, clock);
        if (fdp.ConsumeIntegralInRange<int>(0, 5) != 0) e.end = fuzz::FuzzEnd(fdp, e.start, clock);
        e.event_type = fdp.ConsumeIntegralInRange<int>(0, 9) == 0
                           ? fdp.ConsumeIntegral<int32_t>()
                           : kTypes[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kTypes) - 1)];
        e.text = fuzz::FuzzName(fdp);
        e.registered = fdp.ConsumeBool();
        const uint32_t p = pid();
        e.global_tid = nt::GlobalTid(p, tid_of(p));
        e.domain = fuzz::FuzzSmall<int32_t>(fdp, 0, 2);
        db.nvtx.push_back(e);
        break;
      }
      case 6: {
        if (db.schema != nt::NsysSchema::k2025_6) break;
        nt::GraphLaunch g;
        g.start = fuzz::FuzzTime(fdp, clock);
        g.end = fuzz::FuzzEnd(fdp, g.start, clock);
        g.device = fuzz::FuzzSmall<int32_t>(fdp, 0, 3);
        g.correlation = correlation();
        g.graph_id = fuzz::FuzzSmall<int64_t>(fdp, 0, 4);
        g.global_pid = nt::GlobalPid(pid());
        db.graphs.push_back(g);
        break;
      }
      default: {
        nt::Gpu gpu;
        gpu.id = fuzz::FuzzSmall<int32_t>(fdp, 0, 3);
        gpu.name = fdp.ConsumeRandomLengthString(16);
        db.gpus.push_back(gpu);
        break;
      }
    }
  }
  if (!nt::WriteNsysDb(path, db).ok()) return false;
  fuzz::DamageDatabase(path, fdp, 6);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::FuzzFile& file = fuzz::TheFuzzFile("nsys_sqlite", ".sqlite");
  static constexpr std::string_view kReportMagic = "NVIDIA Tegra Profiler Report";
  const std::string_view head(reinterpret_cast<const char*>(data), size);
  if (fuzz::IsSqliteFile(data, size) || head.starts_with(kReportMagic)) {
    file.Write(data, size);
  } else {
    file.Remove();
    FuzzedDataProvider fdp(data, size);
    if (!WriteNsysFile(file.path(), fdp)) return 0;
  }
  static const io::Importer* const importer = io::FindImporter("nsys-sqlite");
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
