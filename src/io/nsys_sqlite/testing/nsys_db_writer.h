// Test support for the nsys-sqlite importer: writes small databases in the schema of
// Nsight Systems' SQLite export (`nsys export --type sqlite`), in the shapes of several nsys
// versions, so that tests build their inputs at run time instead of committing binaries.
//
// The DDL is the one quoted in shared/reference/trace-formats-nsys-rocpd.md A3, per version
// (A2, A9):
//   k2022   — nsys 2022.2.1: EXPORT_META_DATA (schema 2.9.1), no ENUM_* tables, no
//             TARGET_INFO_SESSION_START_TIME.systemClockNs, NVTX_EVENTS without textId (NVTX
//             text only); the kernel table ends at sharedMemoryLimitConfig.
//   k2024   — nsys 2024.6.2: META_DATA_EXPORT (schema 3.16.1), ENUM_* tables, NVTX textId +
//             StringIds, still no systemClockNs.
//   k2025_6 — nsys 2025.6.1: META_DATA_EXPORT (schema 3.24.7), systemClockNs, the kernel
//             table of 2026.1.1 (greenContextId, graphId, cluster*, ...), NVTX eventId, and
//             CUPTI_ACTIVITY_KIND_GRAPH_TRACE for graph-level CUDA-graph launches.
// Tables of events are created lazily, as nsys does: only those that get rows. Strings go to
// StringIds (ids dense from 1, first-seen order). Every NOT NULL column the caller gives no
// value for is 0. Depends on base and SQLite only; never linked into decodeprof itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::io::nsys_testing {

enum class NsysSchema { k2022, k2024, k2025_6 };
inline constexpr NsysSchema kAllSchemas[] = {NsysSchema::k2022, NsysSchema::k2024,
                                             NsysSchema::k2025_6};
// "2022", "2024", "2025.6" (for test names and messages).
const char* SchemaName(NsysSchema schema);

// globalPid / globalTid as nsys serializes them (A5): hardware id (bits 56-63), VM id
// (48-55), process id (24-47), thread id (0-23).
constexpr uint64_t GlobalPid(uint32_t pid, uint32_t vm = 1) {
  return (uint64_t{vm} << 48) | (uint64_t{pid} << 24);
}
constexpr uint64_t GlobalTid(uint32_t pid, uint32_t tid, uint32_t vm = 1) {
  return GlobalPid(pid, vm) | tid;
}

// Times are the export's own: nanoseconds since the session start.
struct Kernel {
  int64_t start = 0;
  int64_t end = 0;
  int32_t device = 0;
  int32_t stream = 7;
  std::optional<uint32_t> correlation;  // nullopt: NULL
  std::string demangled;                // demangledName (StringIds)
  std::string short_name;               // shortName; "" = the demangled name
  std::string mangled;                  // mangledName; "" = NULL
  int32_t grid[3] = {1, 1, 1};
  int32_t block[3] = {128, 1, 1};
  uint64_t global_pid = GlobalPid(100);
};

struct MemoryOp {
  bool memset = false;  // CUPTI_ACTIVITY_KIND_MEMSET, else _MEMCPY
  int64_t start = 0;
  int64_t end = 0;
  int32_t device = 0;
  int32_t stream = 7;
  std::optional<uint32_t> correlation;
  int32_t copy_kind = 2;  // ENUM_CUDA_MEMCPY_OPER (memcpy only)
  int64_t bytes = 8;
  uint64_t global_pid = GlobalPid(100);
};

// A CUDA runtime or driver API call: a row of CUPTI_ACTIVITY_KIND_RUNTIME (driver calls too,
// eventClass 1, as every nsys export has them).
struct ApiCall {
  int64_t start = 0;
  int64_t end = 0;
  std::string name;  // as nsys spells it: "cudaLaunchKernel_v7000"
  uint64_t global_tid = GlobalTid(100, 100);
  uint32_t correlation = 0;
  bool driver = false;
};

// A row of NVTX_EVENTS.
struct NvtxEvent {
  int64_t start = 0;
  std::optional<int64_t> end;  // nullopt: NULL (a range that never ended; a mark)
  int32_t event_type = 59;     // 59 push/pop, 60 start/end, 34 mark, 75 domain create, ...
  std::string text;
  // Written as textId (a registered string in StringIds) where the schema has the column;
  // as text otherwise.
  bool registered = false;
  uint64_t global_tid = GlobalTid(100, 100);
  int32_t domain = 0;
};

// A row of CUPTI_ACTIVITY_KIND_GRAPH_TRACE (a whole CUDA-graph launch).
struct GraphLaunch {
  int64_t start = 0;
  int64_t end = 0;
  int32_t device = 0;
  int32_t stream = 7;
  uint32_t correlation = 0;
  int64_t graph_id = 1;
  int64_t graph_exec_id = 1;
  uint64_t global_pid = GlobalPid(100);
};

struct Gpu {
  int32_t id = 0;
  std::string name;
};

struct NsysDb {
  NsysSchema schema = NsysSchema::k2025_6;
  int64_t utc_epoch_ns = 1775078550000000000;
  // TARGET_INFO_SESSION_START_TIME.systemClockNs (k2025_6 only; nullopt: NULL).
  std::optional<int64_t> system_clock_ns = 7'150'000'000'000'000;
  // The kernel table's mangledName column (exports of old captures lack it, A9).
  bool kernel_mangled_name_column = true;
  std::vector<Kernel> kernels;
  std::vector<MemoryOp> memory_ops;
  std::vector<ApiCall> api_calls;
  std::vector<NvtxEvent> nvtx;
  std::vector<GraphLaunch> graphs;  // k2025_6 only
  std::vector<Gpu> gpus;            // TARGET_INFO_GPU
};

// Writes `db` to `path` (replacing a file there). Errors: kIo with SQLite's message; kInternal
// for a GraphLaunch in a schema older than k2025_6.
base::Status WriteNsysDb(const std::string& path, const NsysDb& db);

// Runs `sql` on the database at `path` (for tests that damage a file). Errors: kIo.
base::Status ExecSql(const std::string& path, const std::string& sql);

}  // namespace decodeprof::io::nsys_testing
